//! The error bounds every result is checked under. Every backend's result is compared with the
//! host reference under these, never with another backend.

/// Unit roundoff of f32: u = 2⁻²⁴.
pub const UNIT_ROUNDOFF: f64 = 1.0 / 16_777_216.0;

/// γ_k = k·u / (1 − k·u): the bound on the relative error of a k-term dot
/// product in f32, in any summation order, with or without fused multiply-add.
pub fn gamma(k: usize) -> f64 {
    let ku = k as f64 * UNIT_ROUNDOFF;
    if ku >= 1.0 {
        f64::INFINITY
    } else {
        ku / (1.0 - ku)
    }
}

/// Bound on |computed − exact| for an f32 sum of `n` terms: (n − 1)·u·Σ|x|.
pub fn sum_bound(n: usize, abs_sum: f64) -> f64 {
    n.saturating_sub(1) as f64 * UNIT_ROUNDOFF * abs_sum
}

/// Bound on |computed − exact| for one output of a `k`-term dot product
/// (convolution taps or matmul inner dimension): γ_k·Σ|x·w|.
pub fn dot_bound(k: usize, abs_sum: f64) -> f64 {
    gamma(k) * abs_sum
}

/// Does an f32 result lie within `bound` of the exact value?
pub fn within(computed: f32, exact: f64, bound: f64) -> bool {
    (f64::from(computed) - exact).abs() <= bound
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_grows_with_k_and_diverges() {
        assert_eq!(gamma(0), 0.0);
        assert!(gamma(1) > UNIT_ROUNDOFF && gamma(1) < 1.000_001 * UNIT_ROUNDOFF);
        assert!(gamma(1000) > gamma(10));
        assert_eq!(gamma(1 << 24), f64::INFINITY);
    }

    #[test]
    fn sum_bound_is_exact_for_single_terms() {
        assert_eq!(sum_bound(0, 5.0), 0.0);
        assert_eq!(sum_bound(1, 5.0), 0.0);
        assert_eq!(sum_bound(3, 4.0), 2.0 * UNIT_ROUNDOFF * 4.0);
    }

    #[test]
    fn one_rounding_of_a_two_term_sum_fits_the_bound() {
        let (a, b) = (1.0f32, 3.0e-8f32);
        let exact = f64::from(a) + f64::from(b);
        assert!(within(a + b, exact, sum_bound(2, 1.0 + 3.0e-8)));
        assert!(!within(a + 1.0e-3, exact, sum_bound(2, 1.0 + 3.0e-8)));
    }
}
