//! Reference values accumulated in f64, with the scale of their error bound.

use rosetta_core::bounds::is_subnormal;

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

    /// Combine two partial sums.
    pub fn merge(self, other: Exact) -> Exact {
        Exact {
            value: self.value + other.value,
            abs: self.abs + other.abs,
            tiny: self.tiny + other.tiny,
        }
    }
}
