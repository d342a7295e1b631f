//! What a 1-D convolution takes, its validation, host reference and error
//! bound.

use crate::op::Exact;
use rayon::prelude::*;
use rosetta_core::{Error, Result};
use serde::Serialize;

/// `out[i] = Σ_j taps[j] · x[i + j − taps/2]`, zero outside the signal
/// (cross-correlation, centred, same-size output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Conv1dSpec {
    /// Elements of the signal (and of the output).
    pub len: usize,
    /// Filter taps (odd, at least 1).
    pub taps: usize,
}

impl Conv1dSpec {
    /// Refuse a filter with an even or zero number of taps
    /// ([`Error::InvalidFilter`]).
    pub fn validate(&self) -> Result<()> {
        if self.taps.is_multiple_of(2) {
            return Err(Error::InvalidFilter(format!(
                "conv1d needs an odd number of taps (centred filter), got {}",
                self.taps
            )));
        }
        Ok(())
    }

    /// Bytes of the signal (and of the output): 4 per element, checked.
    pub fn signal_bytes(&self) -> Result<u64> {
        words_bytes("conv1d signal", self.len)
    }

    /// Bytes of the taps: 4 per tap, checked.
    pub fn taps_bytes(&self) -> Result<u64> {
        words_bytes("conv1d filter", self.taps)
    }
}

fn words_bytes(what: &str, len: usize) -> Result<u64> {
    (len as u64).checked_mul(4).ok_or_else(|| {
        Error::ShapeMismatch(format!(
            "{what} of {len} f32 values overflows a buffer size"
        ))
    })
}

/// The error bound of one output: γ_k·Σ|x·w| with `k` the number of taps
/// (any summation order, with or without fused multiply-add), plus what
/// underflow may lose ([`Exact::dot_bound`]).
pub fn conv1d_bound(taps: usize, exact: &Exact) -> f64 {
    exact.dot_bound(taps)
}

/// One output of the convolution, accumulated in f64 (with Σ|x·w|). Taps
/// over the zero border multiply a zero, as the contract's formula says:
/// 0 · ±Inf and 0 · NaN are NaN there, as in numpy.
pub fn conv1d_at(x: &[f32], taps: &[f32], i: usize) -> Exact {
    let radius = taps.len() / 2;
    let mut acc = Exact::default();
    for (j, &w) in taps.iter().enumerate() {
        // The sample under tap j, if 0 <= i + j − radius < len.
        let sample = (i + j)
            .checked_sub(radius)
            .and_then(|at| x.get(at))
            .copied()
            .unwrap_or(0.0);
        acc.add_product(sample, w);
    }
    acc
}

/// Every output of the convolution (the host reference).
pub fn conv1d_reference(x: &[f32], taps: &[f32]) -> Vec<Exact> {
    (0..x.len())
        .into_par_iter()
        .map(|i| conv1d_at(x, taps, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_is_a_centred_cross_correlation() {
        let out = conv1d_reference(&[1.0, 2.0, 3.0], &[1.0, 10.0, 100.0]);
        let values: Vec<f64> = out.iter().map(|e| e.value).collect();
        assert_eq!(values, vec![210.0, 321.0, 32.0]);
        // More taps than samples: only the ones over the signal count.
        let out = conv1d_reference(&[1.0, 1.0], &[1.0; 7]);
        assert_eq!(out[0].value, 2.0);
        assert_eq!(out[1].abs, 2.0);
        assert!(conv1d_reference(&[], &[1.0]).is_empty());
        // A tap over the border multiplies a zero: 0 · Inf is NaN there.
        let out = conv1d_reference(&[1.0, 2.0, 3.0], &[f32::INFINITY, 1.0, 1.0]);
        assert!(out[0].value.is_nan());
        assert_eq!(out[1].value, f64::INFINITY);
        assert_eq!(out[2].value, f64::INFINITY);
    }

    #[test]
    fn even_and_empty_filters_are_refused() {
        let spec = |taps| Conv1dSpec { len: 8, taps };
        assert!(matches!(spec(0).validate(), Err(Error::InvalidFilter(_))));
        assert!(matches!(spec(2).validate(), Err(Error::InvalidFilter(_))));
        assert!(spec(1).validate().is_ok());
        let huge = Conv1dSpec {
            len: usize::MAX,
            taps: 1,
        };
        assert!(matches!(huge.signal_bytes(), Err(Error::ShapeMismatch(_))));
    }
}
