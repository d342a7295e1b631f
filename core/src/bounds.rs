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

/// The smallest normal f32, 2⁻¹²⁶: what flushing one subnormal result to
/// zero can lose.
pub const MIN_NORMAL: f64 = 1.0 / (1u128 << 126) as f64;

/// Bound on what underflow adds to an f32 result of `ops` operations whose
/// terms with a subnormal input sum to `tiny` in magnitude:
/// `tiny + ops·2⁻¹²⁶`.
///
/// The relative bounds above hold only while nothing underflows. Gradual
/// underflow loses up to 2⁻¹⁵⁰ per product, and the APIs allow more: WGSL,
/// Vulkan (without `shaderDenormPreserveFloat32`) and OpenCL (without
/// `CL_FP_DENORM`) may flush subnormal inputs and results to zero. A flushed
/// input drops its terms (at most `tiny`), a flushed result less than 2⁻¹²⁶
/// each. For data without subnormals the allowance is below 10⁻³⁰ for any
/// size a device can hold.
pub fn underflow_bound(ops: usize, tiny: f64) -> f64 {
    tiny + ops as f64 * MIN_NORMAL
}

/// Is `x` subnormal (non-zero and below the smallest normal f32)?
pub fn is_subnormal(x: f32) -> bool {
    x != 0.0 && x.abs() < f32::MIN_POSITIVE
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
    fn gradual_and_flushed_underflow_fit_the_allowance() {
        assert_eq!(MIN_NORMAL, f64::from(f32::MIN_POSITIVE));
        assert!(is_subnormal(1e-40) && is_subnormal(-1e-45));
        assert!(!is_subnormal(0.0) && !is_subnormal(f32::MIN_POSITIVE) && !is_subnormal(1.0));
        // A product rounded into the subnormal range is off by up to half
        // its last place (2⁻¹⁵⁰), outside the relative bound.
        let (x, w) = (-1.0e-40f32, 0.782_415f32);
        let exact = f64::from(x) * f64::from(w);
        let product = x * w;
        assert!(!within(product, exact, dot_bound(1, exact.abs())));
        assert!(within(
            product,
            exact,
            dot_bound(1, exact.abs()) + underflow_bound(2, exact.abs())
        ));
        // Flushing the input to zero loses the whole term: covered by `tiny`.
        assert!(within(0.0, exact, underflow_bound(2, exact.abs())));
        // Flushing a result (here 2⁻¹²⁷, from two normal inputs) to zero.
        let half_min = f64::from(f32::MIN_POSITIVE) / 2.0;
        assert!(within(
            0.0,
            half_min,
            dot_bound(1, half_min) + underflow_bound(2, 0.0)
        ));
        assert!(!within(0.0, half_min, dot_bound(1, half_min)));
    }

    #[test]
    fn one_rounding_of_a_two_term_sum_fits_the_bound() {
        let (a, b) = (1.0f32, 3.0e-8f32);
        let exact = f64::from(a) + f64::from(b);
        assert!(within(a + b, exact, sum_bound(2, 1.0 + 3.0e-8)));
        assert!(!within(a + 1.0e-3, exact, sum_bound(2, 1.0 + 3.0e-8)));
    }
}
