//! What a reduction takes, its validation, host reference and error bound.

use crate::op::Exact;
use rayon::prelude::*;
use rosetta_core::{Elem, Error, Result};
use serde::Serialize;
use std::fmt;

/// Sum, min or max.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReduceOp {
    /// Sum (integers wrap mod 2^32).
    Sum,
    /// Minimum (f32: NaN propagates).
    Min,
    /// Maximum (f32: NaN propagates).
    Max,
}

impl ReduceOp {
    /// Every reduction.
    pub const ALL: [ReduceOp; 3] = [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max];

    /// Value of the kernels' `OP` constant.
    pub fn code(self) -> u32 {
        match self {
            ReduceOp::Sum => 0,
            ReduceOp::Min => 1,
            ReduceOp::Max => 2,
        }
    }

    /// `sum`, `min`, `max`.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
        }
    }

    /// The reduction called `name`.
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

/// A reduction of `len` elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ReduceSpec {
    /// f32, i32 or u32.
    pub elem: Elem,
    /// Sum, min or max.
    pub op: ReduceOp,
    /// Elements.
    pub len: usize,
}

impl ReduceSpec {
    /// Refuse what has no answer: min/max of nothing, u8 elements.
    pub fn validate(&self) -> Result<()> {
        if self.elem == Elem::U8 {
            return Err(Error::InvalidArgument(
                "reduce takes f32, i32 or u32".into(),
            ));
        }
        if self.len == 0 && self.op != ReduceOp::Sum {
            return Err(Error::EmptyReduction { op: self.op.name() });
        }
        Ok(())
    }
}

/// The bound on an f32 sum of `n` terms: (n − 1)·2⁻²⁴·Σ|x|, plus what
/// underflow may lose ([`Exact::sum_bound`]: the subnormal terms and
/// 2⁻¹²⁶ per addition, n − 1 of them).
pub fn sum_bound(n: usize, exact: &Exact) -> f64 {
    exact.sum_bound(n)
}

/// f64 sum of f32 values, with Σ|x|.
pub fn sum_f32(x: &[f32]) -> Exact {
    x.par_chunks(1 << 16)
        .map(|chunk| {
            chunk.iter().fold(Exact::default(), |mut acc, &v| {
                acc.add_value(v);
                acc
            })
        })
        .reduce(Exact::default, Exact::merge)
}

/// Min or max of f32 values; NaN propagates (as numpy and torch) as the
/// one quiet NaN `0x7fc00000`, whatever NaN came in — a lone value too —
/// and −0 orders below +0 (IEEE 754's minimum / maximum: the min of −0 and
/// +0 is −0 whatever their order). `None` when empty.
pub fn min_max_f32(x: &[f32], op: ReduceOp) -> Option<f32> {
    let pick = |a: f32, b: f32| -> f32 {
        if a.is_nan() || b.is_nan() {
            f32::NAN
        } else if (op == ReduceOp::Min) == a.total_cmp(&b).is_le() {
            a
        } else {
            b
        }
    };
    x.par_chunks(1 << 16)
        .map(|chunk| chunk.iter().copied().reduce(pick))
        .reduce(
            || None,
            |a, b| match (a, b) {
                (Some(a), Some(b)) => Some(pick(a, b)),
                (a, None) => a,
                (None, b) => b,
            },
        )
        // `pick` makes every NaN it sees the quiet one; a lone value is
        // never picked.
        .map(|m| if m.is_nan() { f32::NAN } else { m })
}

/// Integers with wrapping addition (i32, u32).
pub trait IntElem: Copy + Ord + Send + Sync {
    /// 0.
    const ZERO: Self;
    /// Addition mod 2^32.
    fn wrapping_add(self, other: Self) -> Self;
}

impl IntElem for i32 {
    const ZERO: Self = 0;
    fn wrapping_add(self, other: Self) -> Self {
        i32::wrapping_add(self, other)
    }
}

impl IntElem for u32 {
    const ZERO: Self = 0;
    fn wrapping_add(self, other: Self) -> Self {
        u32::wrapping_add(self, other)
    }
}

/// Exact integer reduction: wrapping sum, min or max. `None` for an empty
/// min/max.
pub fn reduce_int<T: IntElem>(x: &[T], op: ReduceOp) -> Option<T> {
    match op {
        ReduceOp::Sum => Some(
            x.par_chunks(1 << 16)
                .map(|c| c.iter().fold(T::ZERO, |a, &b| a.wrapping_add(b)))
                .reduce(|| T::ZERO, |a, b| a.wrapping_add(b)),
        ),
        ReduceOp::Min => x.par_iter().copied().min(),
        ReduceOp::Max => x.par_iter().copied().max(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_and_max_order_negative_zero_below_positive_zero() {
        for x in [[-0.0f32, 0.0], [0.0, -0.0]] {
            let min = min_max_f32(&x, ReduceOp::Min).unwrap();
            let max = min_max_f32(&x, ReduceOp::Max).unwrap();
            assert_eq!((min.to_bits(), max.to_bits()), ((-0.0f32).to_bits(), 0));
        }
        let zeros = [-0.0f32; 5];
        assert_eq!(
            min_max_f32(&zeros, ReduceOp::Max).unwrap().to_bits(),
            (-0.0f32).to_bits()
        );
        assert_eq!(min_max_f32(&[3.0, -1.0, 2.0], ReduceOp::Min), Some(-1.0));
        assert_eq!(min_max_f32(&[3.0, -1.0, 2.0], ReduceOp::Max), Some(3.0));
    }

    #[test]
    fn nan_propagates_through_min_and_max() {
        let x = [1.0, f32::NAN, -3.0];
        assert!(min_max_f32(&x, ReduceOp::Min).unwrap().is_nan());
        assert!(min_max_f32(&x, ReduceOp::Max).unwrap().is_nan());
        assert_eq!(
            min_max_f32(&[2.0, f32::NEG_INFINITY], ReduceOp::Min),
            Some(f32::NEG_INFINITY)
        );
        assert_eq!(min_max_f32(&[], ReduceOp::Max), None);
    }

    /// Any NaN gives the one quiet NaN, a lone one too (the reference gave
    /// a lone signalling NaN back as it came, and the kernels that did the
    /// same passed against it).
    #[test]
    fn every_nan_result_is_the_quiet_nan() {
        for bits in [0xff80_0001u32, 0x7f80_0001, 0xffc0_0000, 0x7fc0_1234] {
            let nan = f32::from_bits(bits);
            for x in [&[nan][..], &[nan, 1.0], &[1.0, nan], &[nan, nan]] {
                for op in [ReduceOp::Min, ReduceOp::Max] {
                    let got = min_max_f32(x, op).unwrap();
                    assert_eq!(got.to_bits(), 0x7fc0_0000, "{bits:#x} {x:?} {op:?}");
                }
            }
        }
    }

    #[test]
    fn integer_sums_wrap() {
        assert_eq!(reduce_int(&[u32::MAX, 2], ReduceOp::Sum), Some(1));
        assert_eq!(reduce_int(&[i32::MAX, 1], ReduceOp::Sum), Some(i32::MIN));
        assert_eq!(reduce_int(&[5i32, -7, 3], ReduceOp::Min), Some(-7));
        assert_eq!(reduce_int::<u32>(&[], ReduceOp::Sum), Some(0));
    }

    #[test]
    fn empty_min_max_and_u8_are_refused() {
        let spec = |elem, op, len| ReduceSpec { elem, op, len };
        assert!(spec(Elem::F32, ReduceOp::Sum, 0).validate().is_ok());
        assert!(matches!(
            spec(Elem::F32, ReduceOp::Min, 0).validate(),
            Err(Error::EmptyReduction { .. })
        ));
        assert!(spec(Elem::U8, ReduceOp::Sum, 4).validate().is_err());
    }
}
