//! Seeded input generators, shared by the conformance suite, the CLI and the
//! benches so that every device sees identical inputs.
//!
//! Counter-based: value `i` of a stream depends only on `(seed, i)`, so inputs
//! are reproducible across machines, thread counts and crate versions, and
//! large inputs are generated in parallel.

use rayon::prelude::*;

/// SplitMix64's finaliser: a well-mixed 64-bit hash of one counter.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 64 random bits for element `i` of stream `seed`.
pub fn bits(seed: u64, i: u64) -> u64 {
    mix(mix(seed) ^ i.wrapping_mul(0xD1B5_4A32_D192_ED03))
}

/// Uniform f32 in [lo, hi): 24 random mantissa bits, so no subnormals for
/// ranges like [-1, 1).
pub fn f32_in(seed: u64, i: u64, lo: f32, hi: f32) -> f32 {
    let unit = (bits(seed, i) >> 40) as f32 / (1u64 << 24) as f32;
    lo + (hi - lo) * unit
}

/// `len` uniform f32 values in [-1, 1).
pub fn f32_values(seed: u64, len: usize) -> Vec<f32> {
    (0..len as u64)
        .into_par_iter()
        .map(|i| f32_in(seed, i, -1.0, 1.0))
        .collect()
}

/// `len` values in [-1, 1) ([`f32_values`]) with `value` at index `at`, or
/// at the last index where `at` is past it: one special value in random
/// data.
pub fn f32_with_value_at(seed: u64, len: usize, at: usize, value: f32) -> Vec<f32> {
    let mut x = f32_values(seed, len);
    if let Some(slot) = x.get_mut(at.min(len.saturating_sub(1))) {
        *slot = value;
    }
    x
}

/// `len` uniform f32 values in [lo, hi).
pub fn f32_values_in(seed: u64, len: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..len as u64)
        .into_par_iter()
        .map(|i| f32_in(seed, i, lo, hi))
        .collect()
}

/// `len` values in [-1, 1) with every fourth replaced by a random subnormal
/// (or ±0), for sums and products that must stay within their bounds on
/// devices that keep subnormals and on devices that flush them.
pub fn f32_with_subnormals(seed: u64, len: usize) -> Vec<f32> {
    (0..len as u64)
        .into_par_iter()
        .map(|i| {
            let b = bits(seed, i);
            if b & 3 == 0 {
                f32::from_bits((b >> 32) as u32 & 0x807f_ffff)
            } else {
                f32_in(seed, i, -1.0, 1.0)
            }
        })
        .collect()
}

/// `len` values small enough that their pairwise products underflow:
/// magnitudes below 2⁻⁶³ (normal) with every fourth a subnormal, so a
/// dot product's terms and partial sums are subnormal or zero.
pub fn f32_underflowing(seed: u64, len: usize) -> Vec<f32> {
    const SCALE: f32 = 1.0 / (1u64 << 63) as f32;
    f32_with_subnormals(seed, len)
        .into_par_iter()
        .map(|x| {
            if x.abs() < f32::MIN_POSITIVE {
                x
            } else {
                x * SCALE
            }
        })
        .collect()
}

/// `len` values in [-1, 1) with +Inf at `len / 7`, NaN at `len / 3` and
/// -Inf at `2·len / 3 + 1` (where those fall inside): for sums and products
/// through which NaN and infinities must propagate as IEEE arithmetic
/// propagates them.
pub fn f32_with_nonfinite(seed: u64, len: usize) -> Vec<f32> {
    let mut x = f32_values(seed, len);
    for (at, value) in [
        (len / 7, f32::INFINITY),
        (len / 3, f32::NAN),
        (2 * len / 3 + 1, f32::NEG_INFINITY),
    ] {
        if let Some(v) = x.get_mut(at) {
            *v = value;
        }
    }
    x
}

/// `len` i32 values over the whole range (sums wrap).
pub fn i32_values(seed: u64, len: usize) -> Vec<i32> {
    (0..len as u64)
        .into_par_iter()
        .map(|i| (bits(seed, i) >> 32) as i32)
        .collect()
}

/// `len` u32 values over the whole range (sums wrap).
pub fn u32_values(seed: u64, len: usize) -> Vec<u32> {
    (0..len as u64)
        .into_par_iter()
        .map(|i| (bits(seed, i) >> 32) as u32)
        .collect()
}

/// `len` u32 values uniform in [0, below).
pub fn u32_below(seed: u64, len: usize, below: u32) -> Vec<u32> {
    let below = u64::from(below.max(1));
    (0..len as u64)
        .into_par_iter()
        .map(|i| (((bits(seed, i) >> 32) * below) >> 32) as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        assert_eq!(f32_values(7, 100), f32_values(7, 100));
        assert_ne!(f32_values(7, 100), f32_values(8, 100));
        assert_eq!(&u32_values(3, 50)[..10], &u32_values(3, 10)[..]);
    }

    #[test]
    fn subnormal_streams_hold_subnormals_and_underflow() {
        let sub = |x: &f32| crate::bounds::is_subnormal(*x);
        let x = f32_with_subnormals(5, 4000);
        let count = x.iter().filter(|v| sub(v)).count();
        assert!((800..1200).contains(&count), "{count} subnormals");
        assert!(x.iter().all(|v| v.abs() < 1.0));
        let y = f32_underflowing(5, 4000);
        assert!(y.iter().all(|v| v.abs() < 1.1e-19));
        let underflowing = y.windows(2).filter(|p| sub(&(p[0] * p[1]))).count();
        assert!(underflowing > 2000, "{underflowing} subnormal products");
    }

    #[test]
    fn ranges_hold() {
        assert!(f32_values(1, 10_000)
            .iter()
            .all(|&x| (-1.0..1.0).contains(&x)));
        assert!(u32_below(1, 10_000, 37).iter().all(|&v| v < 37));
        let small = u32_below(2, 10_000, 4);
        for v in 0..4 {
            assert!(small.contains(&v), "value {v} never drawn");
        }
    }
}
