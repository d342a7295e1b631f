//! The checks behind each case: prepared inputs, the host reference, and the
//! comparison of a device's result with it.

use super::{Check, Verdict};
use crate::device::Device;
use crate::HistogramPath;
use rosetta_core::bounds::{dot_bound, sum_bound};
use rosetta_core::ops::words_to_bytes;
use rosetta_core::ops::{Conv2dSpec, HistogramInput, MatmulSpec, ReduceOp};
use rosetta_core::reference::{self, Exact};
use rosetta_core::Buffer;
use rosetta_core::{Error, Result};
use rosetta_kernels::matmul::{MatmulPlan, Tiling};
use std::hash::{Hash, Hasher};

fn fingerprint<T: bytemuck::Pod>(values: &[T]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytemuck::cast_slice::<T, u8>(values).hash(&mut hasher);
    hasher.finish()
}

fn verdict(passed: bool, error_ratio: Option<f64>, detail: String, fingerprint: u64) -> Verdict {
    Verdict {
        passed,
        error_ratio,
        detail,
        fingerprint,
    }
}

/// Compare f32 outputs with exact references under per-element bounds.
pub fn compare_bounded(got: &[f32], exact: &[Exact], bound: impl Fn(&Exact) -> f64) -> Verdict {
    let print = fingerprint(got);
    if got.len() != exact.len() {
        return verdict(
            false,
            None,
            format!("{} outputs, expected {}", got.len(), exact.len()),
            print,
        );
    }
    let mut worst = 0.0f64;
    let mut worst_at = 0;
    for (i, (&g, e)) in got.iter().zip(exact).enumerate() {
        let err = (f64::from(g) - e.value).abs();
        let b = bound(e);
        let ratio = if err == 0.0 {
            0.0
        } else if b > 0.0 {
            err / b
        } else {
            f64::INFINITY
        };
        // A NaN output (NaN ratio) fails.
        if ratio.is_nan() || ratio > worst {
            worst = if ratio.is_nan() { f64::INFINITY } else { ratio };
            worst_at = i;
        }
    }
    let passed = worst <= 1.0;
    let detail = if passed {
        String::new()
    } else {
        format!(
            "output {worst_at}: got {} expected {} (error {:.3e} > bound {:.3e})",
            got[worst_at],
            exact[worst_at].value,
            (f64::from(got[worst_at]) - exact[worst_at].value).abs(),
            bound(&exact[worst_at])
        )
    };
    verdict(passed, Some(worst), detail, print)
}

/// Compare exact outputs (integers, counts, min/max).
pub fn compare_exact<T: bytemuck::Pod + PartialEq + std::fmt::Debug>(
    got: &[T],
    expected: &[T],
) -> Verdict {
    let print = fingerprint(got);
    if got.len() != expected.len() {
        return verdict(
            false,
            None,
            format!("{} outputs, expected {}", got.len(), expected.len()),
            print,
        );
    }
    let wrong: Vec<usize> = (0..got.len()).filter(|&i| got[i] != expected[i]).collect();
    if wrong.is_empty() {
        return verdict(true, None, String::new(), print);
    }
    let i = wrong[0];
    verdict(
        false,
        None,
        format!(
            "{} of {} differ; first at {i}: got {:?}, expected {:?}",
            wrong.len(),
            got.len(),
            got[i],
            expected[i]
        ),
        print,
    )
}

// ---------------------------------------------------------------- reduce

pub struct ReduceF32 {
    x: Vec<f32>,
    op: ReduceOp,
    sum: Exact,
    min_max: Option<f32>,
}

impl ReduceF32 {
    pub fn new(x: Vec<f32>, op: ReduceOp) -> Self {
        let (sum, min_max) = match op {
            ReduceOp::Sum => (reference::sum_f32(&x), None),
            _ => (Exact::default(), reference::min_max_f32(&x, op)),
        };
        ReduceF32 {
            x,
            op,
            sum,
            min_max,
        }
    }
}

impl Check for ReduceF32 {
    fn run(&self, device: &Device) -> Result<Verdict> {
        let got = device.reduce(&self.x, self.op)?;
        Ok(match self.op {
            ReduceOp::Sum => {
                let n = self.x.len();
                compare_bounded(&[got], &[self.sum], |e| sum_bound(n, e.abs))
            }
            ReduceOp::Min | ReduceOp::Max => {
                let expected = self.min_max.unwrap_or(f32::NAN);
                let same = (got.is_nan() && expected.is_nan()) || got == expected;
                verdict(
                    same,
                    None,
                    if same {
                        String::new()
                    } else {
                        format!("got {got}, expected {expected}")
                    },
                    fingerprint(&[got]),
                )
            }
        })
    }
}

pub struct ReduceInt<T> {
    x: Vec<T>,
    op: ReduceOp,
    expected: Option<T>,
}

impl<T: reference::IntElem> ReduceInt<T> {
    pub fn new(x: Vec<T>, op: ReduceOp) -> Self {
        let expected = reference::reduce_int(&x, op);
        ReduceInt { x, op, expected }
    }
}

impl<T> Check for ReduceInt<T>
where
    T: rosetta_core::ops::Element + reference::IntElem + PartialEq,
{
    fn run(&self, device: &Device) -> Result<Verdict> {
        let got = device.reduce(&self.x, self.op)?;
        let expected = self
            .expected
            .ok_or_else(|| Error::InvalidArgument("reference of an empty min/max".into()))?;
        Ok(compare_exact(&[got], &[expected]))
    }
}

// ---------------------------------------------------------------- histogram

pub struct Histogram {
    words: Vec<u32>,
    input: HistogramInput,
    bins: u32,
    path: HistogramPath,
    expected: Vec<u32>,
}

impl Histogram {
    pub fn new(words: Vec<u32>, input: HistogramInput, bins: u32, path: HistogramPath) -> Self {
        let expected = match input {
            HistogramInput::U32 => reference::histogram_u32(&words, bins),
            HistogramInput::F32 { lo, hi } => {
                reference::histogram_f32(bytemuck::cast_slice(&words), bins, lo, hi)
            }
        };
        Histogram {
            words,
            input,
            bins,
            path,
            expected,
        }
    }
}

impl Check for Histogram {
    fn run(&self, device: &Device) -> Result<Verdict> {
        let got = match self.input {
            HistogramInput::U32 => device.histogram_with(&self.words, self.bins, self.path)?,
            HistogramInput::F32 { lo, hi } => device.histogram_f32_with(
                bytemuck::cast_slice(&self.words),
                self.bins,
                (lo, hi),
                self.path,
            )?,
        };
        Ok(compare_exact(&got, &self.expected))
    }
}

// ---------------------------------------------------------------- convolution, matmul

pub struct Conv1d {
    x: Vec<f32>,
    taps: Vec<f32>,
    exact: Vec<Exact>,
}

impl Conv1d {
    pub fn new(x: Vec<f32>, taps: Vec<f32>) -> Self {
        let exact = reference::conv1d(&x, &taps);
        Conv1d { x, taps, exact }
    }
}

impl Check for Conv1d {
    fn run(&self, device: &Device) -> Result<Verdict> {
        let got = device.conv1d(&self.x, &self.taps)?;
        let k = self.taps.len();
        Ok(compare_bounded(&got, &self.exact, |e| dot_bound(k, e.abs)))
    }
}

pub struct Conv2d {
    image: Vec<f32>,
    filter: Vec<f32>,
    spec: Conv2dSpec,
    exact: Vec<Exact>,
}

impl Conv2d {
    pub fn new(image: Vec<f32>, filter: Vec<f32>, spec: Conv2dSpec) -> Self {
        let exact = reference::conv2d(&image, &filter, &spec);
        Conv2d {
            image,
            filter,
            spec,
            exact,
        }
    }
}

impl Check for Conv2d {
    fn run(&self, device: &Device) -> Result<Verdict> {
        let got = device.conv2d(&self.image, &self.filter, &self.spec)?;
        let k = self.spec.kh * self.spec.kw;
        Ok(compare_bounded(&got, &self.exact, |e| dot_bound(k, e.abs)))
    }
}

pub struct Matmul {
    a: Vec<f32>,
    b: Vec<f32>,
    spec: MatmulSpec,
    /// A forced tiling (else the plan chooses for the device).
    tiling: Option<Tiling>,
    exact: Vec<Exact>,
}

impl Matmul {
    pub fn new(a: Vec<f32>, b: Vec<f32>, spec: MatmulSpec, tiling: Option<Tiling>) -> Self {
        let exact = reference::matmul(&a, &b, &spec);
        Matmul {
            a,
            b,
            spec,
            tiling,
            exact,
        }
    }

    /// Through the plan with the forced tiling, on device buffers.
    fn run_tiled(&self, device: &Device, tiling: Tiling) -> Result<Vec<f32>> {
        let backend = device.backend();
        let plan = MatmulPlan::with_tiling(backend, &self.spec, Some(tiling))?;
        let a = Buffer::from_slice(backend, &self.a)?;
        let b = Buffer::from_slice(backend, &self.b)?;
        let c = Buffer::new(backend, words_to_bytes(self.spec.m * self.spec.n)?)?;
        plan.encode(&a, &b, &c)?;
        c.read(self.spec.m * self.spec.n)
    }
}

impl Check for Matmul {
    fn run(&self, device: &Device) -> Result<Verdict> {
        let got = match self.tiling {
            Some(tiling) => self.run_tiled(device, tiling)?,
            None => device.matmul(&self.a, &self.b, &self.spec)?,
        };
        let k = self.spec.k;
        Ok(compare_bounded(&got, &self.exact, |e| dot_bound(k, e.abs)))
    }
}

// ---------------------------------------------------------------- bad input

/// A call that must fail with a given typed error.
pub struct Rejects {
    pub expected: &'static str,
    pub call: fn(&Device) -> Result<()>,
    pub is_expected: fn(&Error) -> bool,
}

impl Check for Rejects {
    fn run(&self, device: &Device) -> Result<Verdict> {
        Ok(match (self.call)(device) {
            Ok(()) => verdict(
                false,
                None,
                format!("accepted; expected {}", self.expected),
                0,
            ),
            Err(e) if (self.is_expected)(&e) => verdict(true, None, format!("{e}"), 0),
            Err(e) => verdict(
                false,
                None,
                format!("got '{e}', expected {}", self.expected),
                0,
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_comparison_catches_errors_and_nan() {
        let exact = [Exact {
            value: 1.0,
            abs: 1.0,
        }];
        assert!(compare_bounded(&[1.0], &exact, |_| 0.0).passed);
        assert!(!compare_bounded(&[1.001], &exact, |_| 1e-6).passed);
        assert!(!compare_bounded(&[f32::NAN], &exact, |_| 1.0).passed);
        assert!(compare_bounded(&[1.0000001], &exact, |_| 1e-6).passed);
    }

    #[test]
    fn exact_comparison_reports_first_difference() {
        let v = compare_exact(&[1u32, 2, 3], &[1, 5, 3]);
        assert!(!v.passed);
        assert!(v.detail.contains("first at 1"), "{}", v.detail);
        assert!(compare_exact(&[7i32], &[7]).passed);
    }
}
