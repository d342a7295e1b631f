//! Reference values accumulated in f64, with the scale of their error bound.

use rosetta_core::bounds::{self, is_subnormal};

/// A reference value, the sum of the absolute values of its terms, and the
/// part of that sum from terms with a subnormal input.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Exact {
    /// The f64 result.
    pub value: f64,
    /// Σ|terms|: what the op's relative error bound scales with.
    pub abs: f64,
    /// Σ|terms| over the terms with a subnormal input, which a device may
    /// flush to zero ([`rosetta_core::bounds::underflow_bound`]).
    pub tiny: f64,
}

impl Exact {
    /// A value whose terms are exact and normal (`abs` = Σ|terms|).
    pub fn normal(value: f64, abs: f64) -> Exact {
        Exact {
            value,
            abs,
            tiny: 0.0,
        }
    }

    /// Add one f32 value (a sum's term).
    pub fn add_value(&mut self, x: f32) {
        self.add_term(f64::from(x), is_subnormal(x));
    }

    /// Add the product `x·w`.
    pub fn add_product(&mut self, x: f32, w: f32) {
        self.add_term(
            f64::from(x) * f64::from(w),
            is_subnormal(x) || is_subnormal(w),
        );
    }

    fn add_term(&mut self, term: f64, subnormal_input: bool) {
        self.value += term;
        self.abs += term.abs();
        if subnormal_input {
            self.tiny += term.abs();
        }
    }

    /// The bound of a `k`-term dot product with this reference (any
    /// summation order, with or without fused multiply-add): γ_k·Σ|terms|,
    /// plus what underflow may lose over its 2k operations
    /// ([`bounds::underflow_bound`]).
    pub fn dot_bound(&self, k: usize) -> f64 {
        bounds::dot_bound(k, self.abs) + bounds::underflow_bound(k.saturating_mul(2), self.tiny)
    }

    /// The bound of an `n`-term sum with this reference: (n − 1)·2⁻²⁴·Σ|x|,
    /// plus what underflow may lose (the subnormal terms, and 2⁻¹²⁶ for
    /// each of the n − 1 additions).
    pub fn sum_bound(&self, n: usize) -> f64 {
        bounds::sum_bound(n, self.abs) + bounds::underflow_bound(n.saturating_sub(1), self.tiny)
    }

    /// Combine two partial sums.
    pub fn merge(self, other: Exact) -> Exact {
        Exact {
            value: self.value + other.value,
            abs: self.abs + other.abs,
            tiny: self.tiny + other.tiny,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dot product's allowance counts 2k operations, a sum's n − 1
    /// additions; a subnormal input puts its whole term in `tiny`.
    #[test]
    fn bounds_add_the_underflow_allowance() {
        let mut dot = Exact::default();
        dot.add_product(0.5, 2.0);
        dot.add_product(1e-40, 3.0);
        assert_eq!(dot.tiny, f64::from(1e-40f32) * 3.0);
        assert_eq!(
            dot.dot_bound(2),
            bounds::dot_bound(2, dot.abs) + dot.tiny + 4.0 * bounds::MIN_NORMAL
        );
        let mut sum = Exact::default();
        for x in [1.0f32, -2.0, 1e-41] {
            sum.add_value(x);
        }
        assert_eq!(
            sum.sum_bound(3),
            bounds::sum_bound(3, sum.abs) + sum.tiny + 2.0 * bounds::MIN_NORMAL
        );
        assert_eq!(Exact::normal(1.0, 1.0).sum_bound(1), 0.0);
    }
}
