//! Every op plan on every wgpu device, compared with the host reference under
//! the error bounds of DESIGN.md.

mod common;

use common::each_device;
use rosetta_core::ops::{
    histogram_edges, Border, Conv1dSpec, Conv2dSpec, Elem, HistogramInput, HistogramSpec,
    MatmulSpec, ReduceOp, ReduceSpec,
};
use rosetta_core::{bounds, inputs, reference, Backend, Buffer, Error};
use rosetta_kernels::conv1d::Conv1dPlan;
use rosetta_kernels::conv2d::Conv2dPlan;
use rosetta_kernels::copy::CopyPlan;
use rosetta_kernels::histogram::{HistogramPath, HistogramPlan};
use rosetta_kernels::matmul::{MatmulPlan, TILINGS};
use rosetta_kernels::reduce::ReducePlan;
use std::sync::Arc;

/// 2^24 + 3: past the f32 integer range and not a multiple of 4.
const LARGE: usize = (1 << 24) + 3;

fn name(device: &Arc<dyn Backend>) -> String {
    device.info().name.clone()
}

// ---------------------------------------------------------------- reduce

fn run_reduce<T: rosetta_core::ops::Element>(
    device: &Arc<dyn Backend>,
    op: ReduceOp,
    data: &[T],
) -> T {
    let spec = ReduceSpec {
        elem: T::ELEM,
        op,
        len: data.len(),
    };
    let plan = ReducePlan::new(device, &spec)
        .unwrap_or_else(|e| panic!("{}: {spec:?}: {e}", name(device)));
    let input = Buffer::from_slice(device, data).unwrap();
    let output = Buffer::new(device, 4).unwrap();
    plan.encode(&input, &output).unwrap();
    output.read::<T>(1).unwrap()[0]
}

fn check_reduce_f32(device: &Arc<dyn Backend>, op: ReduceOp, data: &[f32]) {
    let got = run_reduce(device, op, data);
    let what = format!("{}: f32 {op} of {} values", name(device), data.len());
    match op {
        ReduceOp::Sum => {
            let exact = reference::sum_f32(data);
            let bound = bounds::sum_bound(data.len(), exact.abs);
            assert!(
                bounds::within(got, exact.value, bound),
                "{what}: got {got}, exact {}, bound {bound}",
                exact.value
            );
        }
        _ => {
            let want = reference::min_max_f32(data, op).unwrap();
            assert!(
                (want.is_nan() && got.is_nan()) || want == got,
                "{what}: got {got}, want {want}"
            );
        }
    }
}

fn check_reduce_int<T>(device: &Arc<dyn Backend>, op: ReduceOp, data: &[T])
where
    T: rosetta_core::ops::Element + reference::IntElem + PartialEq,
{
    let got = run_reduce(device, op, data);
    let want = reference::reduce_int(data, op).unwrap();
    assert!(
        got == want,
        "{}: {} {op} of {} values: got {got:?}, want {want:?}",
        name(device),
        T::ELEM,
        data.len()
    );
}

const REDUCE_SIZES: [usize; 14] = [
    1, 2, 3, 4, 5, 255, 256, 257, 1021, 4093, 65_537, 262_147, 1_000_003, LARGE,
];

#[test]
fn reduce_every_elem_and_op() {
    each_device(|device| {
        for (seed, &len) in REDUCE_SIZES.iter().enumerate() {
            let seed = seed as u64;
            let floats = inputs::f32_values(seed, len);
            let ints = inputs::i32_values(seed + 100, len);
            let uints = inputs::u32_values(seed + 200, len);
            for op in ReduceOp::ALL {
                check_reduce_f32(device, op, &floats);
                check_reduce_int(device, op, &ints);
                check_reduce_int(device, op, &uints);
            }
        }
    });
}

#[test]
fn reduce_small_ints_sum_exactly_and_extremes_win() {
    each_device(|device| {
        // Sums that do not wrap, and extremes at the first, a middle and the
        // last (tail) position.
        for len in [7usize, 256, 1029] {
            let small: Vec<i32> = (0..len as i32).map(|i| i % 13 - 6).collect();
            check_reduce_int(device, ReduceOp::Sum, &small);
            for at in [0, len / 2, len - 1] {
                let mut v = small.clone();
                v[at] = i32::MIN;
                check_reduce_int(device, ReduceOp::Min, &v);
                v[at] = i32::MAX;
                check_reduce_int(device, ReduceOp::Max, &v);
                let mut u: Vec<u32> = small.iter().map(|&x| (x + 6) as u32).collect();
                u[at] = u32::MAX;
                check_reduce_int(device, ReduceOp::Max, &u);
                u[at] = 0;
                u.iter_mut()
                    .enumerate()
                    .filter(|(i, _)| *i != at)
                    .for_each(|(_, x)| *x += 1);
                check_reduce_int(device, ReduceOp::Min, &u);
            }
        }
    });
}

#[test]
fn reduce_empty() {
    each_device(|device| {
        let empty_f32: [f32; 0] = [];
        assert_eq!(run_reduce(device, ReduceOp::Sum, &empty_f32), 0.0);
        let empty_u32: [u32; 0] = [];
        assert_eq!(run_reduce(device, ReduceOp::Sum, &empty_u32), 0);
        for op in [ReduceOp::Min, ReduceOp::Max] {
            let spec = ReduceSpec {
                elem: Elem::F32,
                op,
                len: 0,
            };
            assert!(matches!(
                ReducePlan::new(device, &spec),
                Err(Error::EmptyReduction { .. })
            ));
        }
    });
}

#[test]
fn reduce_nan_and_infinities() {
    each_device(|device| {
        for len in [1usize, 5, 256, 1027, 100_003] {
            let base = inputs::f32_values(len as u64, len);
            for at in [0, len / 3, len - 1] {
                for special in [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                    let mut data = base.clone();
                    data[at] = special;
                    for op in ReduceOp::ALL {
                        if op == ReduceOp::Sum {
                            let got = run_reduce(device, op, &data);
                            assert!(
                                (special.is_nan() && got.is_nan()) || got == special,
                                "{}: sum with {special} at {at}/{len}: {got}",
                                name(device)
                            );
                        } else {
                            check_reduce_f32(device, op, &data);
                        }
                    }
                }
            }
            // +Inf and -Inf together: the sum is NaN, min and max are the infinities.
            let mut data = base.clone();
            data[0] = f32::INFINITY;
            data[len - 1] = f32::NEG_INFINITY;
            if len > 1 {
                assert!(run_reduce(device, ReduceOp::Sum, &data).is_nan());
            }
            check_reduce_f32(device, ReduceOp::Min, &data);
            check_reduce_f32(device, ReduceOp::Max, &data);
        }
    });
}

// ---------------------------------------------------------------- histogram

fn check_histogram(
    device: &Arc<dyn Backend>,
    spec: HistogramSpec,
    path: HistogramPath,
    words: &[u32],
) {
    let what = format!("{}: {spec:?} {path:?}", name(device));
    let plan = match HistogramPlan::new(device, &spec, path) {
        Ok(plan) => plan,
        Err(Error::ExceedsLimit { .. }) if path == HistogramPath::Privatized => {
            // Bins that don't fit the device's shared memory are refused.
            assert!(
                u64::from(spec.bins) * 4 > u64::from(device.info().caps.max_shared_bytes),
                "{what}"
            );
            return;
        }
        Err(e) => panic!("{what}: {e}"),
    };
    match path {
        HistogramPath::Privatized => assert!(plan.privatized()),
        HistogramPath::GlobalAtomics => assert!(!plan.privatized()),
        HistogramPath::Auto => {}
    }
    let values = Buffer::from_slice(device, words).unwrap();
    let counts = Buffer::new(device, u64::from(spec.bins) * 4).unwrap();
    // Encode twice: the plan zeroes its counts before counting.
    plan.encode(&values, &counts).unwrap();
    plan.encode(&values, &counts).unwrap();
    let got = counts.read::<u32>(spec.bins as usize).unwrap();
    let want = match spec.input {
        HistogramInput::U32 => reference::histogram_u32(words, spec.bins),
        HistogramInput::F32 { lo, hi } => {
            let floats: &[f32] = bytemuck::cast_slice(words);
            reference::histogram_f32(floats, spec.bins, lo, hi)
        }
    };
    if got != want {
        let first = got.iter().zip(&want).position(|(a, b)| a != b).unwrap();
        panic!(
            "{what}: {} values: bin {first}: got {}, want {} (totals {} vs {})",
            words.len(),
            got[first],
            want[first],
            got.iter().map(|&c| u64::from(c)).sum::<u64>(),
            want.iter().map(|&c| u64::from(c)).sum::<u64>()
        );
    }
}

/// f32 values spread over a range a quarter wider than [lo, hi] on each
/// side, with NaN, infinities, the range ends, bin edges and their f32
/// neighbours sprinkled in.
fn float_histogram_input(seed: u64, len: usize, lo: f64, hi: f64, bins: u32) -> Vec<f32> {
    let margin = (hi - lo) / 4.0;
    let mut values = inputs::f32_values_in(seed, len, (lo - margin) as f32, (hi + margin) as f32);
    let edges = histogram_edges(lo, hi, bins);
    let up = |x: f32| {
        f32::from_bits(if x >= 0.0 {
            x.to_bits() + 1
        } else {
            x.to_bits() - 1
        })
    };
    let down = |x: f32| {
        f32::from_bits(if x > 0.0 {
            x.to_bits() - 1
        } else {
            x.to_bits() + 1
        })
    };
    let mut specials = vec![
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        lo as f32,
        hi as f32,
    ];
    specials.extend([
        up(hi as f32),
        down(lo as f32),
        down(hi as f32),
        up(lo as f32),
    ]);
    for (k, &e) in edges.iter().enumerate().step_by((bins as usize / 7).max(1)) {
        specials.extend([e, up(e), down(e)]);
        if k > 64 {
            break;
        }
    }
    for (slot, special) in values.iter_mut().step_by(13).zip(specials.iter().cycle()) {
        *slot = *special;
    }
    values
}

const PATHS: [HistogramPath; 3] = [
    HistogramPath::Auto,
    HistogramPath::Privatized,
    HistogramPath::GlobalAtomics,
];

#[test]
fn histogram_u32_bins_and_paths() {
    each_device(|device| {
        for bins in [1u32, 256, 4096, 65_536] {
            for (seed, len) in [0usize, 1, 3, 257, 4099, 1_000_003].into_iter().enumerate() {
                // Values up to twice the bins (half not counted), and a few huge ones.
                let mut words = inputs::u32_below(seed as u64, len, bins.saturating_mul(2));
                for w in words.iter_mut().step_by(17) {
                    *w = u32::MAX;
                }
                let spec = HistogramSpec {
                    input: HistogramInput::U32,
                    len,
                    bins,
                };
                for path in PATHS {
                    check_histogram(device, spec, path, &words);
                }
            }
        }
    });
}

#[test]
fn histogram_f32_bins_and_paths() {
    each_device(|device| {
        for bins in [1u32, 256, 4096, 65_536] {
            for (lo, hi) in [(-1.0, 1.0), (0.1, 7.3), (-1000.0, -999.5)] {
                for (seed, len) in [0usize, 1, 257, 1_000_003].into_iter().enumerate() {
                    let floats =
                        float_histogram_input(seed as u64 + u64::from(bins), len, lo, hi, bins);
                    let spec = HistogramSpec {
                        input: HistogramInput::F32 { lo, hi },
                        len,
                        bins,
                    };
                    for path in PATHS {
                        check_histogram(device, spec, path, bytemuck::cast_slice(&floats));
                    }
                }
            }
        }
    });
}

#[test]
fn histogram_large_input() {
    each_device(|device| {
        let words = inputs::u32_below(7, LARGE, 300);
        let spec = HistogramSpec {
            input: HistogramInput::U32,
            len: LARGE,
            bins: 256,
        };
        for path in PATHS {
            check_histogram(device, spec, path, &words);
        }
        let floats = float_histogram_input(8, LARGE, -1.0, 1.0, 4096);
        let spec = HistogramSpec {
            input: HistogramInput::F32 { lo: -1.0, hi: 1.0 },
            len: LARGE,
            bins: 4096,
        };
        check_histogram(
            device,
            spec,
            HistogramPath::Auto,
            bytemuck::cast_slice(&floats),
        );
    });
}

// ---------------------------------------------------------------- conv1d

fn check_conv1d(device: &Arc<dyn Backend>, len: usize, taps: usize, seed: u64) {
    let spec = Conv1dSpec { len, taps };
    let what = format!("{}: {spec:?}", name(device));
    let plan = Conv1dPlan::new(device, &spec).unwrap_or_else(|e| panic!("{what}: {e}"));
    let x = inputs::f32_values(seed, len);
    let w = inputs::f32_values(seed + 1, taps);
    let x_buf = Buffer::from_slice(device, &x).unwrap();
    let w_buf = Buffer::from_slice(device, &w).unwrap();
    let out = Buffer::new(device, len as u64 * 4).unwrap();
    plan.encode(&x_buf, &w_buf, &out).unwrap();
    let got = out.read::<f32>(len).unwrap();
    let want = reference::conv1d(&x, &w);
    for (i, (g, e)) in got.iter().zip(&want).enumerate() {
        let bound = bounds::dot_bound(taps, e.abs);
        assert!(
            bounds::within(*g, e.value, bound),
            "{what}: out[{i}] = {g}, exact {}, bound {bound}",
            e.value
        );
    }
}

#[test]
fn conv1d_sizes_and_taps() {
    each_device(|device| {
        for (seed, len) in [0usize, 1, 2, 5, 255, 256, 257, 1021, 4099, 65_537]
            .into_iter()
            .enumerate()
        {
            for taps in [1usize, 3, 9, 31] {
                check_conv1d(device, len, taps, seed as u64);
            }
        }
        // Filters longer than the signal.
        check_conv1d(device, 3, 9, 50);
        check_conv1d(device, 5, 63, 51);
        check_conv1d(device, 1, 255, 52);
        check_conv1d(device, LARGE, 9, 53);
    });
}

#[test]
fn conv1d_rejects_even_filters() {
    each_device(|device| {
        for taps in [0usize, 2, 8] {
            let spec = Conv1dSpec { len: 10, taps };
            assert!(matches!(
                Conv1dPlan::new(device, &spec),
                Err(Error::InvalidFilter(_))
            ));
        }
    });
}

// ---------------------------------------------------------------- conv2d

fn check_conv2d(device: &Arc<dyn Backend>, spec: Conv2dSpec, seed: u64) {
    let what = format!("{}: {spec:?}", name(device));
    let plan = Conv2dPlan::new(device, &spec).unwrap_or_else(|e| panic!("{what}: {e}"));
    let pixels = spec.height * spec.width;
    let image = inputs::f32_values(seed, pixels);
    let filter = inputs::f32_values(seed + 1, spec.kh * spec.kw);
    let image_buf = Buffer::from_slice(device, &image).unwrap();
    let filter_buf = Buffer::from_slice(device, &filter).unwrap();
    let out = Buffer::new(device, pixels as u64 * 4).unwrap();
    plan.encode(&image_buf, &filter_buf, &out).unwrap();
    let got = out.read::<f32>(pixels).unwrap();
    let want = reference::conv2d(&image, &filter, &spec);
    for (p, (g, e)) in got.iter().zip(&want).enumerate() {
        let bound = bounds::dot_bound(spec.kh * spec.kw, e.abs);
        assert!(
            bounds::within(*g, e.value, bound),
            "{what}: out[{}][{}] = {g}, exact {}, bound {bound}",
            p / spec.width,
            p % spec.width,
            e.value
        );
    }
}

#[test]
fn conv2d_filters_borders_and_sizes() {
    each_device(|device| {
        let mut seed = 0;
        for border in [Border::Zero, Border::Clamp] {
            for (height, width) in [
                (1usize, 1usize),
                (3, 4),
                (17, 33),
                (64, 64),
                (100, 37),
                (257, 513),
            ] {
                for (kh, kw) in [
                    (1usize, 1usize),
                    (3, 3),
                    (5, 5),
                    (7, 9),
                    (9, 7),
                    (1, 5),
                    (3, 1),
                ] {
                    seed += 2;
                    check_conv2d(
                        device,
                        Conv2dSpec {
                            height,
                            width,
                            kh,
                            kw,
                            border,
                        },
                        seed,
                    );
                }
            }
            // Filters larger than the image.
            check_conv2d(
                device,
                Conv2dSpec {
                    height: 3,
                    width: 4,
                    kh: 7,
                    kw: 9,
                    border,
                },
                1000,
            );
            check_conv2d(
                device,
                Conv2dSpec {
                    height: 1,
                    width: 2,
                    kh: 5,
                    kw: 5,
                    border,
                },
                1001,
            );
            check_conv2d(
                device,
                Conv2dSpec {
                    height: 2,
                    width: 30,
                    kh: 9,
                    kw: 3,
                    border,
                },
                1002,
            );
        }
        // Empty images produce nothing.
        let spec = Conv2dSpec {
            height: 0,
            width: 5,
            kh: 3,
            kw: 3,
            border: Border::Zero,
        };
        check_conv2d(device, spec, 1003);
        // A large image.
        check_conv2d(
            device,
            Conv2dSpec {
                height: 2049,
                width: 2051,
                kh: 5,
                kw: 5,
                border: Border::Clamp,
            },
            1004,
        );
    });
}

#[test]
fn conv2d_rejects_even_filters() {
    each_device(|device| {
        let spec = Conv2dSpec {
            height: 4,
            width: 4,
            kh: 2,
            kw: 3,
            border: Border::Zero,
        };
        assert!(matches!(
            Conv2dPlan::new(device, &spec),
            Err(Error::InvalidFilter(_))
        ));
    });
}

// ---------------------------------------------------------------- matmul

fn check_matmul(
    device: &Arc<dyn Backend>,
    spec: MatmulSpec,
    tiling: Option<rosetta_kernels::matmul::Tiling>,
    seed: u64,
) {
    let what = format!("{}: {spec:?} {tiling:?}", name(device));
    let plan =
        MatmulPlan::with_tiling(device, &spec, tiling).unwrap_or_else(|e| panic!("{what}: {e}"));
    let a = inputs::f32_values(seed, spec.m * spec.k);
    let b = inputs::f32_values(seed + 1, spec.k * spec.n);
    let a_buf = Buffer::from_slice(device, &a).unwrap();
    let b_buf = Buffer::from_slice(device, &b).unwrap();
    let c_buf = Buffer::new(device, (spec.m * spec.n) as u64 * 4).unwrap();
    plan.encode(&a_buf, &b_buf, &c_buf).unwrap();
    let got = c_buf.read::<f32>(spec.m * spec.n).unwrap();
    let want = reference::matmul(&a, &b, &spec);
    for (e_idx, (g, e)) in got.iter().zip(&want).enumerate() {
        let bound = bounds::dot_bound(spec.k, e.abs);
        assert!(
            bounds::within(*g, e.value, bound),
            "{what}: c[{}][{}] = {g}, exact {}, bound {bound}",
            e_idx / spec.n,
            e_idx % spec.n,
            e.value
        );
    }
}

const DIMS: [usize; 8] = [1, 7, 16, 17, 63, 65, 129, 513];

#[test]
fn matmul_shapes() {
    each_device(|device| {
        let mut seed = 0;
        for m in DIMS {
            for n in DIMS {
                for k in DIMS {
                    seed += 2;
                    check_matmul(device, MatmulSpec { m, k, n }, None, seed);
                }
            }
        }
    });
}

#[test]
fn matmul_every_tiling() {
    each_device(|device| {
        let mut seed = 10_000;
        for tiling in TILINGS {
            for (m, k, n) in [
                (1, 1, 1),
                (17, 65, 7),
                (129, 63, 130),
                (256, 8, 128),
                (300, 257, 131),
            ] {
                seed += 2;
                check_matmul(device, MatmulSpec { m, k, n }, Some(tiling), seed);
            }
        }
    });
}

#[test]
fn matmul_rejects_mismatched_shapes() {
    assert!(matches!(
        MatmulSpec::from_shapes([3, 4], [5, 6]),
        Err(Error::ShapeMismatch(_))
    ));
    each_device(|device| {
        let spec = MatmulSpec { m: 0, k: 4, n: 4 };
        assert!(matches!(
            MatmulPlan::new(device, &spec),
            Err(Error::ShapeMismatch(_))
        ));
    });
}

// ---------------------------------------------------------------- copy

#[test]
fn copy_sizes() {
    each_device(|device| {
        for (seed, len) in [0usize, 1, 2, 3, 4, 5, 255, 1023, 65_539, 1_000_003, LARGE]
            .into_iter()
            .enumerate()
        {
            let words = inputs::u32_values(seed as u64, len);
            let plan = CopyPlan::new(device, len).unwrap();
            let src = Buffer::from_slice(device, &words).unwrap();
            let dst = Buffer::new(device, len as u64 * 4).unwrap();
            // A canary past the end of the data must survive.
            let padded = (len as u64 * 4).div_ceil(16) * 16;
            let canary_words = ((padded / 4) as usize).max(4);
            let canary = vec![0xdead_beef_u32; canary_words];
            let dst_canary = Buffer::new(device, canary_words as u64 * 4).unwrap();
            dst_canary.write(&canary).unwrap();
            plan.encode(&src, &dst).unwrap();
            plan.encode(&src, &dst_canary).unwrap();
            assert_eq!(
                dst.read::<u32>(len).unwrap(),
                words,
                "{}: copy of {len}",
                name(device)
            );
            let after = dst_canary.read::<u32>(canary_words).unwrap();
            assert_eq!(&after[..len], &words[..], "{}: copy of {len}", name(device));
            assert!(
                after[len..].iter().all(|&w| w == 0xdead_beef),
                "{}: copy of {len} wrote past n",
                name(device)
            );
        }
    });
}
