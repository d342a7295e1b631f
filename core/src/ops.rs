//! Op specs: what each op takes, and the validation that turns bad input into
//! typed errors before anything reaches a device.

use crate::error::{Error, Result};
use serde::Serialize;
use std::fmt;

/// Element types a reduction works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Elem {
    F32,
    I32,
    U32,
}

impl Elem {
    /// Value of the kernels' `ELEM` constant.
    pub fn code(self) -> u32 {
        match self {
            Elem::F32 => 0,
            Elem::I32 => 1,
            Elem::U32 => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::I32 => "i32",
            Elem::U32 => "u32",
        }
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Rust types that map to an [`Elem`].
pub trait Element: bytemuck::Pod + Default + Send + Sync + fmt::Debug + 'static {
    const ELEM: Elem;
}
impl Element for f32 {
    const ELEM: Elem = Elem::F32;
}
impl Element for i32 {
    const ELEM: Elem = Elem::I32;
}
impl Element for u32 {
    const ELEM: Elem = Elem::U32;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReduceOp {
    Sum,
    Min,
    Max,
}

impl ReduceOp {
    pub const ALL: [ReduceOp; 3] = [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max];

    /// Value of the kernels' `OP` constant.
    pub fn code(self) -> u32 {
        match self {
            ReduceOp::Sum => 0,
            ReduceOp::Min => 1,
            ReduceOp::Max => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        ReduceOp::ALL
            .into_iter()
            .find(|op| op.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a 2-D convolution reads outside the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Border {
    /// Outside pixels are 0.
    Zero,
    /// Outside pixels repeat the nearest edge pixel (numpy's `edge` padding).
    Clamp,
}

impl Border {
    /// Value of the kernels' `BORDER` constant.
    pub fn code(self) -> u32 {
        match self {
            Border::Zero => 0,
            Border::Clamp => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Border::Zero => "zero",
            Border::Clamp => "clamp",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        [Border::Zero, Border::Clamp]
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }
}

/// A reduction of `len` elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReduceSpec {
    pub elem: Elem,
    pub op: ReduceOp,
    pub len: usize,
}

impl ReduceSpec {
    pub fn validate(&self) -> Result<()> {
        if self.len == 0 && self.op != ReduceOp::Sum {
            return Err(Error::EmptyReduction { op: self.op.name() });
        }
        Ok(())
    }
}

/// What a histogram counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum HistogramInput {
    /// u32 values; value `v` counts in bin `v`, values `>= bins` are not counted.
    U32,
    /// f32 values over `[lo, hi]` with numpy.histogram's rules (see
    /// [`histogram_edges`]).
    F32 { lo: f64, hi: f64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HistogramSpec {
    pub input: HistogramInput,
    pub len: usize,
    pub bins: u32,
}

impl HistogramSpec {
    pub fn validate(&self) -> Result<()> {
        if self.bins == 0 {
            return Err(Error::ZeroBins);
        }
        if let HistogramInput::F32 { lo, hi } = self.input {
            let finite_f32 = |v: f64| v.is_finite() && (v as f32).is_finite();
            if !(finite_f32(lo) && finite_f32(hi) && (lo as f32) < (hi as f32)) {
                return Err(Error::InvalidRange { lo, hi });
            }
        }
        Ok(())
    }
}

/// The bin edges numpy.histogram uses for f32 input and a range `[lo, hi]`:
/// `edges[i] = f32(lo + i·(hi − lo)/bins)` computed in f64 (numpy's linspace,
/// then cast to the input's dtype), with `edges[bins] = f32(hi)`.
///
/// Value `x` counts in bin `i` when `edges[i] <= x < edges[i + 1]`; `x == hi`
/// counts in the last bin; values outside `[f32(lo), f32(hi)]` and NaN are not
/// counted.
pub fn histogram_edges(lo: f64, hi: f64, bins: u32) -> Vec<f32> {
    let step = (hi - lo) / f64::from(bins);
    let mut edges: Vec<f32> = (0..=bins)
        .map(|i| (f64::from(i) * step + lo) as f32)
        .collect();
    edges[bins as usize] = hi as f32;
    edges
}

/// The f32 factor kernels use for a first guess of a value's bin,
/// `floor((x − lo) · scale)`, before they correct it against the edges.
pub fn histogram_scale(lo: f64, hi: f64, bins: u32) -> f32 {
    (f64::from(bins) / (hi - lo)) as f32
}

/// `out[i] = Σ_j taps[j] · x[i + j − taps/2]`, zero outside the signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Conv1dSpec {
    pub len: usize,
    pub taps: usize,
}

impl Conv1dSpec {
    pub fn validate(&self) -> Result<()> {
        check_odd("taps", self.taps)
    }
}

/// `out[y][x] = Σ_ij f[i][j] · img(y + i − kh/2, x + j − kw/2)` (cross-correlation,
/// centred filter, output the image's size).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Conv2dSpec {
    pub height: usize,
    pub width: usize,
    pub kh: usize,
    pub kw: usize,
    pub border: Border,
}

impl Conv2dSpec {
    pub fn validate(&self) -> Result<()> {
        check_odd("filter height", self.kh)?;
        check_odd("filter width", self.kw)
    }
}

/// `C (m×n) = A (m×k) · B (k×n)`, row-major f32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MatmulSpec {
    pub m: usize,
    pub k: usize,
    pub n: usize,
}

impl MatmulSpec {
    pub fn validate(&self) -> Result<()> {
        if self.m == 0 || self.k == 0 || self.n == 0 {
            return Err(Error::ShapeMismatch(format!(
                "matmul needs M, N, K >= 1 (got M={}, K={}, N={})",
                self.m, self.k, self.n
            )));
        }
        Ok(())
    }

    /// The spec for `A (a_rows×a_cols) · B (b_rows×b_cols)`, checking that the
    /// inner dimensions agree.
    pub fn from_shapes(a: [usize; 2], b: [usize; 2]) -> Result<Self> {
        if a[1] != b[0] {
            return Err(Error::ShapeMismatch(format!(
                "matmul inner dimensions differ: A is {}x{}, B is {}x{}",
                a[0], a[1], b[0], b[1]
            )));
        }
        let spec = MatmulSpec {
            m: a[0],
            k: a[1],
            n: b[1],
        };
        spec.validate()?;
        Ok(spec)
    }
}

fn check_odd(what: &str, extent: usize) -> Result<()> {
    if extent == 0 {
        return Err(Error::InvalidFilter(format!("{what} is 0 (empty filter)")));
    }
    if extent.is_multiple_of(2) {
        return Err(Error::InvalidFilter(format!(
            "{what} is {extent}; filters must have odd extents so they can be centred"
        )));
    }
    Ok(())
}

/// Check that a slice holds exactly the number of elements its shape says.
pub fn check_len(what: &str, actual: usize, expected: usize) -> Result<()> {
    if actual != expected {
        return Err(Error::ShapeMismatch(format!(
            "{what} has {actual} elements, its shape says {expected}"
        )));
    }
    Ok(())
}

/// Size in bytes of `len` 32-bit elements, or an error if it overflows.
pub fn words_to_bytes(len: usize) -> Result<u64> {
    (len as u64)
        .checked_mul(4)
        .ok_or_else(|| Error::InvalidArgument(format!("{len} elements overflow a buffer size")))
}
