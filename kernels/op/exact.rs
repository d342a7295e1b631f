//! Reference values accumulated in f64, with the scale of their error bound.

/// A reference value and the sum of the absolute values of its terms.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Exact {
    /// The f64 result.
    pub value: f64,
    /// Σ|terms|: what the op's error bound scales with.
    pub abs: f64,
}

impl Exact {
    /// Add one term.
    pub fn add(&mut self, term: f64) {
        self.value += term;
        self.abs += term.abs();
    }

    /// Add the product `x·w`.
    pub fn add_product(&mut self, x: f32, w: f32) {
        self.add(f64::from(x) * f64::from(w));
    }

    /// Combine two partial sums.
    pub fn merge(self, other: Exact) -> Exact {
        Exact {
            value: self.value + other.value,
            abs: self.abs + other.abs,
        }
    }
}
