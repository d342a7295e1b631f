//! The host reference: what every backend is compared with.
//!
//! Floating-point results are accumulated in f64 (and come with Σ|terms|, the
//! scale of their error bound); integer results are exact (sums wrap mod 2³²).

use crate::ops::{histogram_edges, Border, Conv2dSpec, MatmulSpec, ReduceOp};
use rayon::prelude::*;

/// A reference value and the sum of the absolute values of its terms.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Exact {
    pub value: f64,
    pub abs: f64,
}

impl Exact {
    fn add_product(&mut self, x: f32, w: f32) {
        let p = f64::from(x) * f64::from(w);
        self.value += p;
        self.abs += p.abs();
    }
}

/// f64 sum of f32 values, with Σ|x|.
pub fn sum_f32(x: &[f32]) -> Exact {
    x.par_chunks(1 << 16)
        .map(|chunk| {
            chunk.iter().fold(Exact::default(), |acc, &v| Exact {
                value: acc.value + f64::from(v),
                abs: acc.abs + f64::from(v).abs(),
            })
        })
        .reduce(Exact::default, |a, b| Exact {
            value: a.value + b.value,
            abs: a.abs + b.abs,
        })
}

/// Min or max of f32 values; NaN propagates (as numpy and torch). `None` when empty.
pub fn min_max_f32(x: &[f32], op: ReduceOp) -> Option<f32> {
    let pick = |a: f32, b: f32| -> f32 {
        if a.is_nan() || b.is_nan() {
            f32::NAN
        } else if op == ReduceOp::Min {
            a.min(b)
        } else {
            a.max(b)
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
}

/// Exact integer reduction: wrapping sum, min or max. `None` for an empty min/max.
pub fn reduce_int<T>(x: &[T], op: ReduceOp) -> Option<T>
where
    T: IntElem,
{
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

/// Integers with wrapping addition (i32, u32).
pub trait IntElem: Copy + Ord + Send + Sync {
    const ZERO: Self;
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

/// Counts of u32 values; values `>= bins` are not counted.
pub fn histogram_u32(values: &[u32], bins: u32) -> Vec<u32> {
    let mut counts = vec![0u32; bins as usize];
    for &v in values {
        if v < bins {
            counts[v as usize] += 1;
        }
    }
    counts
}

/// The bin of an f32 value under [`histogram_edges`]'s rules, if counted.
pub fn histogram_f32_bin(x: f32, edges: &[f32]) -> Option<usize> {
    let bins = edges.len() - 1;
    if !(x >= edges[0] && x <= edges[bins]) {
        return None;
    }
    // Last bin i with edges[i] <= x, capped at the last bin (x == hi).
    let upper = edges.partition_point(|&e| e <= x);
    Some((upper - 1).min(bins - 1))
}

/// numpy.histogram of f32 values with `bins` equal bins over `[lo, hi]`.
pub fn histogram_f32(values: &[f32], bins: u32, lo: f64, hi: f64) -> Vec<u32> {
    let edges = histogram_edges(lo, hi, bins);
    let mut counts = vec![0u32; bins as usize];
    for &x in values {
        if let Some(bin) = histogram_f32_bin(x, &edges) {
            counts[bin] += 1;
        }
    }
    counts
}

/// One output of the zero-border 1-D convolution.
pub fn conv1d_at(x: &[f32], taps: &[f32], i: usize) -> Exact {
    let radius = taps.len() / 2;
    let mut acc = Exact::default();
    for (j, &w) in taps.iter().enumerate() {
        let src = i as isize + j as isize - radius as isize;
        if src >= 0 && (src as usize) < x.len() {
            acc.add_product(x[src as usize], w);
        }
    }
    acc
}

pub fn conv1d(x: &[f32], taps: &[f32]) -> Vec<Exact> {
    (0..x.len())
        .into_par_iter()
        .map(|i| conv1d_at(x, taps, i))
        .collect()
}

/// One output pixel of the 2-D convolution.
pub fn conv2d_at(image: &[f32], filter: &[f32], spec: &Conv2dSpec, y: usize, x: usize) -> Exact {
    let (h, w) = (spec.height as isize, spec.width as isize);
    let (ry, rx) = ((spec.kh / 2) as isize, (spec.kw / 2) as isize);
    let mut acc = Exact::default();
    for i in 0..spec.kh {
        for j in 0..spec.kw {
            let (mut sy, mut sx) = (y as isize + i as isize - ry, x as isize + j as isize - rx);
            match spec.border {
                Border::Zero => {
                    if sy < 0 || sy >= h || sx < 0 || sx >= w {
                        continue;
                    }
                }
                Border::Clamp => {
                    sy = sy.clamp(0, h - 1);
                    sx = sx.clamp(0, w - 1);
                }
            }
            acc.add_product(image[(sy * w + sx) as usize], filter[i * spec.kw + j]);
        }
    }
    acc
}

pub fn conv2d(image: &[f32], filter: &[f32], spec: &Conv2dSpec) -> Vec<Exact> {
    (0..spec.height * spec.width)
        .into_par_iter()
        .map(|p| conv2d_at(image, filter, spec, p / spec.width, p % spec.width))
        .collect()
}

/// One element of C = A·B.
pub fn matmul_at(a: &[f32], b: &[f32], spec: &MatmulSpec, i: usize, j: usize) -> Exact {
    let mut acc = Exact::default();
    for p in 0..spec.k {
        acc.add_product(a[i * spec.k + p], b[p * spec.n + j]);
    }
    acc
}

pub fn matmul(a: &[f32], b: &[f32], spec: &MatmulSpec) -> Vec<Exact> {
    (0..spec.m * spec.n)
        .into_par_iter()
        .map(|e| matmul_at(a, b, spec, e / spec.n, e % spec.n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn integer_sums_wrap() {
        assert_eq!(reduce_int(&[u32::MAX, 2], ReduceOp::Sum), Some(1));
        assert_eq!(reduce_int(&[i32::MAX, 1], ReduceOp::Sum), Some(i32::MIN));
        assert_eq!(reduce_int(&[5i32, -7, 3], ReduceOp::Min), Some(-7));
        assert_eq!(reduce_int::<u32>(&[], ReduceOp::Sum), Some(0));
    }

    #[test]
    fn histogram_rules_match_numpy() {
        // numpy.histogram([0, 0.5, 1, 1.5, 2, -1, nan], bins=2, range=(0, 2)) -> [2, 3]
        let x = [0.0, 0.5, 1.0, 1.5, 2.0, -1.0, f32::NAN];
        assert_eq!(histogram_f32(&x, 2, 0.0, 2.0), vec![2, 3]);
        assert_eq!(histogram_u32(&[0, 1, 1, 5, 9], 6), vec![1, 2, 0, 0, 0, 1]);
    }

    #[test]
    fn convolution_is_centred_cross_correlation() {
        let out = conv1d(&[1.0, 2.0, 3.0], &[1.0, 10.0, 100.0]);
        let values: Vec<f64> = out.iter().map(|e| e.value).collect();
        assert_eq!(values, vec![210.0, 321.0, 32.0]);
        let spec = Conv2dSpec {
            height: 2,
            width: 2,
            kh: 3,
            kw: 1,
            border: Border::Clamp,
        };
        let img = [1.0, 2.0, 3.0, 4.0];
        // column filter [1, 0, 0] reads the pixel above, clamped at the top row.
        let out = conv2d(&img, &[1.0, 0.0, 0.0], &spec);
        let values: Vec<f64> = out.iter().map(|e| e.value).collect();
        assert_eq!(values, vec![1.0, 2.0, 1.0, 2.0]);
    }

    #[test]
    fn matmul_small() {
        let spec = MatmulSpec { m: 2, k: 2, n: 1 };
        let c = matmul(&[1.0, 2.0, 3.0, 4.0], &[5.0, -6.0], &spec);
        assert_eq!(
            c.iter().map(|e| e.value).collect::<Vec<_>>(),
            vec![-7.0, -9.0]
        );
        assert_eq!(c[0].abs, 17.0);
    }
}
