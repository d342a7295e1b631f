//! What a scan takes, its validation, host reference and error bound.

use crate::op::Exact;
use rosetta_core::{Elem, Error, Result};
use serde::Serialize;

/// An inclusive prefix sum (numpy.cumsum) of `len` elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ScanSpec {
    /// f32, i32 or u32.
    pub elem: Elem,
    /// Elements.
    pub len: usize,
}

impl ScanSpec {
    /// Refuse element types the scan does not take.
    pub fn validate(&self) -> Result<()> {
        if self.elem == Elem::U8 {
            return Err(Error::InvalidArgument("scan takes f32, i32 or u32".into()));
        }
        Ok(())
    }
}

/// The f64 prefix sums of f32 values, each with Σ_{j≤i}|x_j|.
pub fn prefix_f32(x: &[f32]) -> Vec<Exact> {
    let mut acc = Exact::default();
    x.iter()
        .map(|&v| {
            acc.add_value(v);
            acc
        })
        .collect()
}

/// The bound on output `i` (0-based, `i + 1` terms): i·2⁻²⁴·Σ_{j≤i}|x_j|,
/// plus what underflow may lose ([`Exact::sum_bound`]).
pub fn prefix_bound(i: usize, exact: &Exact) -> f64 {
    exact.sum_bound(i + 1)
}

/// Exact wrapping prefix sums of 32-bit integers (i32 by its bits).
pub fn prefix_words(x: &[u32]) -> Vec<u32> {
    let mut acc = 0u32;
    x.iter()
        .map(|&v| {
            acc = acc.wrapping_add(v);
            acc
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_match_numpy_cumsum() {
        assert_eq!(prefix_words(&[1, 2, u32::MAX]), vec![1, 3, 2]);
        let f = prefix_f32(&[1.0, -2.0, 0.5]);
        assert_eq!(
            f.iter().map(|e| e.value).collect::<Vec<_>>(),
            vec![1.0, -1.0, -0.5]
        );
        assert_eq!(f[2].abs, 3.5);
        assert_eq!(prefix_bound(0, &f[0]), 0.0);
        assert!(ScanSpec {
            elem: Elem::U8,
            len: 1
        }
        .validate()
        .is_err());
    }
}
