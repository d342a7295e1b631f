//! What a matrix product takes, its validation, host reference and error
//! bound.

use crate::op::Exact;
use rayon::prelude::*;
use rosetta_core::{Error, Result};
use serde::Serialize;

/// Shared-memory row padding of the kernels' tiles, in floats (keeps
/// 16-byte alignment for vector reads; against bank conflicts).
pub const PAD: u32 = 4;

/// `C (m×n) = A (m×k) · B (k×n)`, row-major f32, every extent at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct MatmulSpec {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of A, rows of B (the inner dimension).
    pub k: usize,
    /// Columns of B and C.
    pub n: usize,
}

impl MatmulSpec {
    /// The spec for `A (a_rows×a_cols) · B (b_rows×b_cols)`: the inner
    /// dimensions must agree, and every extent and element count must be
    /// representable (checked multiplication).
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

    /// Refuse empty extents and element counts that overflow.
    pub fn validate(&self) -> Result<()> {
        if self.m == 0 || self.k == 0 || self.n == 0 {
            return Err(Error::ShapeMismatch(format!(
                "matmul needs M, N, K >= 1 (got M={}, K={}, N={})",
                self.m, self.k, self.n
            )));
        }
        self.elements().map(drop)
    }

    /// Elements of A, B and C, each as `u64` and checked not to overflow
    /// (in elements or in bytes).
    pub fn elements(&self) -> Result<[u64; 3]> {
        let count = |what: &str, rows: usize, cols: usize| -> Result<u64> {
            (rows as u64)
                .checked_mul(cols as u64)
                .filter(|e| e.checked_mul(4).is_some() && usize::try_from(*e).is_ok())
                .ok_or_else(|| {
                    Error::ShapeMismatch(format!(
                        "matmul {what} ({rows}x{cols}) has more elements than can be addressed"
                    ))
                })
        };
        Ok([
            count("A", self.m, self.k)?,
            count("B", self.k, self.n)?,
            count("C", self.m, self.n)?,
        ])
    }

    /// Floating-point operations (a multiply-add counts 2), saturating.
    pub fn flops(&self) -> u64 {
        2u64.saturating_mul(self.m as u64)
            .saturating_mul(self.n as u64)
            .saturating_mul(self.k as u64)
    }

    /// Check that `a` and `b` hold exactly the elements the shapes say.
    pub fn check_lengths(&self, a: usize, b: usize) -> Result<()> {
        let [ea, eb, _] = self.elements()?;
        for (what, got, want) in [("A", a, ea), ("B", b, eb)] {
            if got as u64 != want {
                return Err(Error::ShapeMismatch(format!(
                    "matmul {what} has {got} elements, its shape says {want}"
                )));
            }
        }
        Ok(())
    }
}

/// The bound on one output: γ_k·Σ_p |a_ip·b_pj| (any summation order, split
/// or not, with or without fused multiply-add), plus what underflow may lose
/// ([`Exact::dot_bound`]).
pub fn matmul_bound(spec: &MatmulSpec, exact: &Exact) -> f64 {
    exact.dot_bound(spec.k)
}

/// One output `C[i][j]` in f64, with Σ|a·b|.
pub fn matmul_at(a: &[f32], b: &[f32], spec: &MatmulSpec, i: usize, j: usize) -> Exact {
    let mut acc = Exact::default();
    for p in 0..spec.k {
        acc.add_product(a[i * spec.k + p], b[p * spec.n + j]);
    }
    acc
}

/// Every output in f64, row-major (rows in parallel; each row accumulates
/// along B's rows, so memory is read in order).
pub fn matmul_ref(a: &[f32], b: &[f32], spec: &MatmulSpec) -> Vec<Exact> {
    let (k, n) = (spec.k, spec.n);
    let mut out = vec![Exact::default(); spec.m * n];
    out.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
        for p in 0..k {
            let x = a[i * k + p];
            for (acc, &w) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                acc.add_product(x, w);
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_product_and_abs_sum() {
        let spec = MatmulSpec { m: 2, k: 2, n: 1 };
        let c = matmul_ref(&[1.0, 2.0, 3.0, 4.0], &[5.0, -6.0], &spec);
        assert_eq!(
            c.iter().map(|e| e.value).collect::<Vec<_>>(),
            vec![-7.0, -9.0]
        );
        assert_eq!(c[0].abs, 17.0);
        assert_eq!(
            matmul_at(&[1.0, 2.0, 3.0, 4.0], &[5.0, -6.0], &spec, 1, 0),
            c[1]
        );
    }

    #[test]
    fn shapes_are_checked_without_overflow() {
        assert!(MatmulSpec::from_shapes([2, 3], [3, 4]).is_ok());
        assert!(matches!(
            MatmulSpec::from_shapes([2, 3], [4, 2]),
            Err(Error::ShapeMismatch(_))
        ));
        assert!(matches!(
            MatmulSpec::from_shapes([0, 3], [3, 2]),
            Err(Error::ShapeMismatch(_))
        ));
        let huge = usize::MAX / 2;
        for (a, b) in [
            ([huge, 3], [3, 2]),
            ([2, huge], [huge, 2]),
            ([huge, 1], [1, huge]),
            ([1 << 32, 1 << 31], [1 << 31, 1]),
        ] {
            assert!(
                matches!(MatmulSpec::from_shapes(a, b), Err(Error::ShapeMismatch(_))),
                "{a:?} {b:?}"
            );
        }
        let spec = MatmulSpec { m: 2, k: 3, n: 2 };
        assert!(spec.check_lengths(6, 6).is_ok());
        assert!(spec.check_lengths(6, 5).is_err());
    }
}
