//! What a histogram takes, its validation, and the host reference.

use rayon::prelude::*;
use rosetta_core::{Elem, Error, Result};
use serde::Serialize;
use std::fmt;

/// Bins of a u8 histogram when none are given: one per byte value.
pub const U8_BINS: u32 = 256;

/// What a histogram counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum HistogramInput {
    /// u32 values; value `v` counts in bin `v`, values `>= bins` are not
    /// counted.
    U32,
    /// f32 values over `[lo, hi]` with numpy.histogram's rules (see
    /// [`histogram_edges`]).
    F32 {
        /// Lower end of the range (the first edge, as f32).
        lo: f64,
        /// Upper end of the range (the last edge, as f32).
        hi: f64,
    },
    /// u8 values (image pixels), packed four to a 32-bit word on the device;
    /// value `v` counts in bin `v`, values `>= bins` are not counted.
    U8,
}

impl HistogramInput {
    /// Value of the kernels' `INPUT` constant.
    pub fn code(self) -> u32 {
        match self {
            HistogramInput::U32 => 0,
            HistogramInput::F32 { .. } => 1,
            HistogramInput::U8 => 2,
        }
    }

    /// The element type of the values.
    pub fn elem(self) -> Elem {
        match self {
            HistogramInput::U32 => Elem::U32,
            HistogramInput::F32 { .. } => Elem::F32,
            HistogramInput::U8 => Elem::U8,
        }
    }
}

impl fmt::Display for HistogramInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Very small and very large ends in exponent form.
        let short = |x: f64| {
            if x != 0.0 && !(1e-4..1e9).contains(&x.abs()) {
                format!("{x:e}")
            } else {
                format!("{x}")
            }
        };
        match self {
            HistogramInput::F32 { lo, hi } => write!(f, "f32 [{}, {}]", short(*lo), short(*hi)),
            other => f.write_str(other.elem().name()),
        }
    }
}

impl HistogramInput {
    /// f32 values over a range as numpy.histogram takes it: an empty range
    /// (`lo == hi`, −0 and +0 alike) widens to `[lo − 0.5, hi + 0.5]`, as
    /// numpy widens it; any other is kept as given ([`HistogramSpec::validate`]
    /// refuses reversed, non-finite and too narrow ones).
    pub fn f32_range(lo: f64, hi: f64) -> HistogramInput {
        if lo == hi {
            HistogramInput::F32 {
                lo: lo - 0.5,
                hi: hi + 0.5,
            }
        } else {
            HistogramInput::F32 { lo, hi }
        }
    }
}

/// A histogram of `len` values in `bins` bins.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HistogramSpec {
    /// What the values are, and how they map to bins.
    pub input: HistogramInput,
    /// Values (elements; bytes for u8).
    pub len: usize,
    /// Bins (counts written).
    pub bins: u32,
}

impl HistogramSpec {
    /// Refuse what has no answer, before anything is allocated: no bins; a
    /// u8 histogram of more than 256 bins; an f32 range that is empty,
    /// reversed, not finite, or too narrow for its bins (numpy raises "Too
    /// many bins for data range" when the f32 edges are not strictly
    /// increasing: [`Error::InvalidRange`]). Allocates nothing, whatever
    /// `bins` is.
    pub fn validate(&self) -> Result<()> {
        if self.bins == 0 {
            return Err(Error::ZeroBins);
        }
        match self.input {
            HistogramInput::U32 => Ok(()),
            HistogramInput::U8 => {
                if self.bins > U8_BINS {
                    Err(Error::InvalidArgument(format!(
                        "a u8 histogram has at most {U8_BINS} bins (one per value), got {}",
                        self.bins
                    )))
                } else {
                    Ok(())
                }
            }
            HistogramInput::F32 { lo, hi } => check_range(lo, hi, self.bins),
        }
    }

    /// Bytes of the values: 4 per value, 1 per u8 value. A u8 buffer of
    /// `len` bytes is bound as the `ceil(len / 4)` words it is packed in
    /// (buffers are allocated in multiples of 16 bytes, so that word and the
    /// 4-word vector holding it are inside the binding).
    pub fn value_bytes(&self) -> Result<u64> {
        (self.len as u64)
            .checked_mul(self.input.elem().size())
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{} {} values overflow a buffer size",
                    self.len,
                    self.input.elem()
                ))
            })
    }

    /// Bytes of the counts: one word per bin.
    pub fn counts_bytes(&self) -> u64 {
        u64::from(self.bins) * 4
    }

    /// Bytes of the f32 bin edges the plan uploads (`bins + 1` f32), or 0
    /// for integer input.
    pub fn edges_bytes(&self) -> u64 {
        match self.input {
            HistogramInput::F32 { .. } => (u64::from(self.bins) + 1) * 4,
            _ => 0,
        }
    }
}

/// The order-preserving key of an f32's bits (`crate::reduce::ordered_key`).
fn key(x: f32) -> u32 {
    crate::reduce::ordered_key(x.to_bits())
}

/// Edge `i` of [`histogram_edges`], computed alone.
fn edge(lo: f64, step: f64, hi: f32, bins: u32, i: u32) -> f32 {
    if i == bins {
        hi
    } else {
        (f64::from(i) * step + lo) as f32
    }
}

/// Check an f32 range for `bins` bins (see [`HistogramSpec::validate`]):
/// without building the edges, and in time independent of `bins` except
/// where the answer needs a look at the edges (then at most a few 2^26 of
/// them, since no f32 range has more strictly increasing equal-width edges
/// than that).
fn check_range(lo: f64, hi: f64, bins: u32) -> Result<()> {
    let invalid = |why| Err(Error::InvalidRange { lo, hi, why });
    let (lo32, hi32) = (lo as f32, hi as f32);
    if !(lo.is_finite() && hi.is_finite() && lo32.is_finite() && hi32.is_finite()) {
        return invalid("the ends must be finite f32 values");
    }
    if lo32 >= hi32 {
        // Ends that differ in f64 but round to one f32 (a range of equal
        // ends widened by ±0.5 at magnitudes past 2^23, say), and ends equal
        // even in f64 (past 2^53 the widening changes neither), make a range
        // too narrow, not a reversed one.
        return invalid(if lo < hi {
            "too narrow for its bins (both ends round to one f32 value)"
        } else if lo == hi {
            "too narrow for its bins (equal ends; a range taken from data whose values are all equal is widened by ±0.5 first, which at this magnitude changes neither end)"
        } else {
            "the range is reversed"
        });
    }
    // `bins + 1` distinct edges need as many f32 values in [lo, hi]: keys
    // count them (−0 and +0 share one).
    let values = u64::from(key(hi32) - key(lo32)) + 1;
    if values < u64::from(bins) + 1 {
        return invalid("too narrow for its bins (fewer f32 values than edges)");
    }
    // Consecutive edges are at least `step` apart before rounding to f32;
    // where that is four ulps of the largest end, they stay distinct.
    let step = (hi - lo) / f64::from(bins);
    let largest = lo32.abs().max(hi32.abs());
    let ulp = f64::from(largest.next_up()) - f64::from(largest);
    if step >= 4.0 * ulp {
        return Ok(());
    }
    // Else look: equal edges appear first where the ulp is largest, at the
    // end of larger magnitude, so walk from there.
    let at = |i| edge(lo, step, hi32, bins, i);
    let equal = if hi32.abs() >= lo32.abs() {
        (0..bins).rev().any(|i| at(i) >= at(i + 1))
    } else {
        (0..bins).any(|i| at(i) >= at(i + 1))
    };
    if equal {
        invalid("too narrow for its bins (two f32 edges are equal; numpy: too many bins for data range)")
    } else {
        Ok(())
    }
}

/// The bin edges numpy.histogram uses for f32 input and a range `[lo, hi]`:
/// `edges[i] = f32(lo + i·(hi − lo)/bins)` computed in f64 (numpy's linspace,
/// then cast to the input's dtype), with `edges[bins] = f32(hi)`.
///
/// Value `x` counts in bin `i` when `edges[i] <= x < edges[i + 1]`; `x == hi`
/// counts in the last bin; values outside `[f32(lo), f32(hi)]` and NaN are not
/// counted. Call after [`HistogramSpec::validate`] (it allocates `bins + 1`
/// floats).
pub fn histogram_edges(lo: f64, hi: f64, bins: u32) -> Vec<f32> {
    let step = (hi - lo) / f64::from(bins);
    (0..=bins)
        .into_par_iter()
        .map(|i| edge(lo, step, hi as f32, bins, i))
        .collect()
}

/// The f32 factor kernels use for a first guess of a value's bin,
/// `floor((x − lo) · scale)`, before they settle it against the edges.
pub fn histogram_scale(lo: f64, hi: f64, bins: u32) -> f32 {
    (f64::from(bins) / (hi - lo)) as f32
}

/// The number of steps of a binary search over `bins` bins:
/// `ceil(log2(bins))`. The kernels' f32 binning loops at most this often per
/// value (what plans count against a device's loop budget).
pub fn search_steps(bins: u32) -> u32 {
    32 - (bins.max(1) - 1).leading_zeros()
}

/// Counts of `values` under `bin` (`None`: not counted), in parallel.
fn tally<T: Copy + Sync>(
    values: &[T],
    bins: u32,
    bin: impl Fn(T) -> Option<u32> + Sync,
) -> Vec<u32> {
    let add = |mut counts: Vec<u32>, chunk: &[T]| {
        for &v in chunk {
            if let Some(b) = bin(v) {
                counts[b as usize] += 1;
            }
        }
        counts
    };
    values
        .par_chunks(1 << 18)
        .fold(|| vec![0u32; bins as usize], add)
        .reduce(
            || vec![0u32; bins as usize],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// Counts of u32 values; values `>= bins` are not counted.
pub fn count_u32(values: &[u32], bins: u32) -> Vec<u32> {
    tally(values, bins, |v| (v < bins).then_some(v))
}

/// Counts of u8 values; values `>= bins` are not counted.
pub fn count_u8(values: &[u8], bins: u32) -> Vec<u32> {
    tally(values, bins, |v| {
        (u32::from(v) < bins).then_some(u32::from(v))
    })
}

/// The bin of an f32 value under [`histogram_edges`]'s rules, if counted.
pub fn f32_bin(x: f32, edges: &[f32]) -> Option<usize> {
    let bins = edges.len() - 1;
    if !(x >= edges[0] && x <= edges[bins]) {
        return None;
    }
    // The last bin i with edges[i] <= x, capped at the last bin (x == hi).
    let upper = edges.partition_point(|&e| e <= x);
    Some((upper - 1).min(bins - 1))
}

/// numpy.histogram of f32 values with `bins` equal bins over `[lo, hi]`
/// (the range must pass [`HistogramSpec::validate`]).
pub fn count_f32(values: &[f32], bins: u32, lo: f64, hi: f64) -> Vec<u32> {
    let edges = histogram_edges(lo, hi, bins);
    tally(values, bins, |x| f32_bin(x, &edges).map(|b| b as u32))
}

/// `len` u32 values below `bins` with a Zipf-like skew: `v = floor(bins^u) − 1`
/// for `u` uniform in [0, 1), so bin `v` is drawn with probability about
/// `1 / ((v + 1)·ln bins)` (an eighth of all values in bin 0 for 256 bins).
pub fn zipf_values(seed: u64, len: usize, bins: u32) -> Vec<u32> {
    let ln = f64::from(bins.max(1)).ln();
    (0..len as u64)
        .into_par_iter()
        .map(|i| {
            let u = (rosetta_core::inputs::bits(seed, i) >> 11) as f64 / (1u64 << 53) as f64;
            ((u * ln).exp() as u32).clamp(1, bins.max(1)) - 1
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_range_widens_by_a_half_as_numpy_does() {
        assert_eq!(
            HistogramInput::f32_range(1.0, 1.0),
            HistogramInput::F32 { lo: 0.5, hi: 1.5 }
        );
        assert_eq!(
            HistogramInput::f32_range(-0.0, 0.0),
            HistogramInput::F32 { lo: -0.5, hi: 0.5 }
        );
        assert_eq!(
            HistogramInput::f32_range(2.0, 1.0),
            HistogramInput::F32 { lo: 2.0, hi: 1.0 }
        );
        // numpy.histogram([1, 1, .5, 1.5, .7, 2], 4, range=(1, 1)) is
        // [2, 0, 2, 1] (edges 0.5, 0.75, 1, 1.25, 1.5).
        let input = HistogramInput::f32_range(1.0, 1.0);
        let HistogramInput::F32 { lo, hi } = input else {
            unreachable!()
        };
        let values = [1.0f32, 1.0, 0.5, 1.5, 0.7, 2.0];
        assert_eq!(count_f32(&values, 4, lo, hi), vec![2, 0, 2, 1]);
        // Where the widened ends are one f32 value, the range stays empty
        // (numpy: too many bins for data range).
        let HistogramInput::F32 { lo, hi } = HistogramInput::f32_range(1e8, 1e8) else {
            unreachable!()
        };
        let e = check_range(lo, hi, 4).unwrap_err().to_string();
        assert!(e.contains("too narrow for its bins"), "{e}");
        // The same past 2^53, where the widening changes neither end in f64.
        let HistogramInput::F32 { lo, hi } = HistogramInput::f32_range(3.4028235e38, 3.4028235e38)
        else {
            unreachable!()
        };
        assert_eq!(lo, hi);
        let e = check_range(lo, hi, 4).unwrap_err().to_string();
        assert!(e.contains("too narrow for its bins (equal ends"), "{e}");
        // A reversed range is called that.
        let e = check_range(2.0, 1.0, 4).unwrap_err().to_string();
        assert!(e.contains("the range is reversed"), "{e}");
    }

    fn f32_spec(lo: f64, hi: f64, bins: u32) -> HistogramSpec {
        HistogramSpec {
            input: HistogramInput::F32 { lo, hi },
            len: 1,
            bins,
        }
    }

    #[test]
    fn rules_match_numpy() {
        // numpy.histogram([0, 0.5, 1, 1.5, 2, -1, nan], bins=2, range=(0, 2)) -> [2, 3]
        let x = [0.0, 0.5, 1.0, 1.5, 2.0, -1.0, f32::NAN];
        assert_eq!(count_f32(&x, 2, 0.0, 2.0), vec![2, 3]);
        assert_eq!(count_u32(&[0, 1, 1, 5, 9], 6), vec![1, 2, 0, 0, 0, 1]);
        assert_eq!(count_u8(&[0, 255, 3, 3, 200], 4), vec![1, 0, 0, 2]);
        assert_eq!(count_u8(&[255, 255], U8_BINS)[255], 2);
    }

    #[test]
    fn bad_ranges_and_bins_are_refused() {
        let invalid = |s: HistogramSpec| matches!(s.validate(), Err(Error::InvalidRange { .. }));
        assert!(invalid(f32_spec(1.0, 1.0, 8)));
        assert!(invalid(f32_spec(2.0, 1.0, 8)));
        assert!(invalid(f32_spec(0.0, f64::INFINITY, 8)));
        assert!(invalid(f32_spec(0.0, 1e39, 8)), "not finite as f32");
        assert!(invalid(f32_spec(1.0, 1.0 + 1e-9, 1)), "equal as f32");
        assert!(f32_spec(0.0, 1.0, 1 << 20).validate().is_ok());
        let zero = HistogramSpec {
            input: HistogramInput::U32,
            len: 3,
            bins: 0,
        };
        assert!(matches!(zero.validate(), Err(Error::ZeroBins)));
        let u8_wide = HistogramSpec {
            input: HistogramInput::U8,
            len: 3,
            bins: 257,
        };
        assert!(matches!(u8_wide.validate(), Err(Error::InvalidArgument(_))));
    }

    /// Whether numpy would raise: the edges are not strictly increasing.
    fn numpy_raises(lo: f64, hi: f64, bins: u32) -> bool {
        let e = histogram_edges(lo, hi, bins);
        e.windows(2).any(|w| w[0] >= w[1])
    }

    #[test]
    fn too_narrow_ranges_are_refused_exactly_when_numpy_raises() {
        // Eight f32 values in [1, 1 + 7 ulp]: 7 bins fit, 8 do not.
        let top = f64::from(1.0f32 + 7.0 * f32::EPSILON);
        for bins in 1..12 {
            let raises = numpy_raises(1.0, top, bins);
            let refused = f32_spec(1.0, top, bins).validate().is_err();
            assert_eq!(raises, refused, "bins={bins}");
            assert_eq!(refused, bins > 7, "bins={bins}");
        }
        // Enough f32 values for the edges, but the step is below the ulp of
        // [1, 2): only a look at the edges tells.
        assert!(numpy_raises(0.5, 2.0, (1 << 24) - 1));
        assert!(f32_spec(0.5, 2.0, (1 << 24) - 1).validate().is_err());
        assert!(!numpy_raises(0.5, 2.0, 1 << 22));
        assert!(f32_spec(0.5, 2.0, 1 << 22).validate().is_ok());
        // The limits case "top edge of 2^24+4 bins": valid, and f32(BINS − 1)
        // rounds up to BINS.
        let bins = (1u32 << 24) + 4;
        assert!(f32_spec(-8_388_610.0, 8_388_610.0, bins).validate().is_ok());
        assert_eq!((bins - 1) as f32, bins as f32);
        // Around the precision of the largest end, both ways round.
        for (lo, hi) in [(-1.0, 1.0), (1e6, 1.1e6), (-3.0e38, 1.0), (0.0, 1e-38)] {
            let values = u64::from(key(hi as f32) - key(lo as f32)) + 1;
            for bins in [values / 64, values / 8, values / 3, values / 2, values - 1] {
                let Ok(bins) = u32::try_from(bins.max(1)) else {
                    continue;
                };
                if bins > 1 << 26 {
                    continue;
                }
                assert_eq!(
                    numpy_raises(lo, hi, bins),
                    f32_spec(lo, hi, bins).validate().is_err(),
                    "[{lo}, {hi}] bins={bins}"
                );
            }
        }
    }

    #[test]
    fn huge_bin_counts_are_refused_without_allocating() {
        // The old plan built 16 GiB of edges here and aborted.
        let started = std::time::Instant::now();
        for (lo, hi) in [(0.0, 1.0), (-3.0e38, 3.0e38), (-1e30, 1e30)] {
            assert!(matches!(
                f32_spec(lo, hi, u32::MAX).validate(),
                Err(Error::InvalidRange { .. })
            ));
        }
        assert!(started.elapsed().as_secs_f64() < 5.0);
    }

    #[test]
    fn search_steps_are_ceil_log2() {
        assert_eq!(search_steps(1), 0);
        assert_eq!(search_steps(2), 1);
        assert_eq!(search_steps(256), 8);
        assert_eq!(search_steps(257), 9);
        assert_eq!(search_steps(u32::MAX), 32);
    }

    #[test]
    fn zipf_values_are_skewed_and_in_range() {
        let v = zipf_values(3, 100_000, 256);
        assert!(v.iter().all(|&x| x < 256));
        let counts = count_u32(&v, 256);
        assert!(
            counts[0] > 10_000 && counts[0] > 10 * counts[200],
            "{counts:?}"
        );
    }
}
