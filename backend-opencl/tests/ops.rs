//! Every op's plan on every OpenCL device, compared with the host reference
//! under the error bounds of DESIGN.md.

mod common;

use common::{check_bounded, check_exact, devices, id, output, upload};
use rosetta_core::ops::{
    histogram_edges, Border, Conv1dSpec, Conv2dSpec, Elem, HistogramInput, HistogramSpec,
    MatmulSpec, ReduceOp, ReduceSpec,
};
use rosetta_core::{bounds, inputs, reference, Backend, Error};
use rosetta_kernels::conv1d::Conv1dPlan;
use rosetta_kernels::conv2d::Conv2dPlan;
use rosetta_kernels::copy::CopyPlan;
use rosetta_kernels::histogram::{HistogramPath, HistogramPlan};
use rosetta_kernels::matmul::{MatmulPlan, TILINGS};
use rosetta_kernels::reduce::ReducePlan;
use std::sync::Arc;

const LARGE: usize = (1 << 24) + 3;
const REDUCE_SIZES: [usize; 10] = [0, 1, 3, 255, 256, 257, 1021, 7919, 1_000_003, LARGE];

/// Run one reduction; the result's bits.
fn reduce_bits(device: &Arc<dyn Backend>, elem: Elem, op: ReduceOp, words: &[u32]) -> u32 {
    let spec = ReduceSpec {
        elem,
        op,
        len: words.len(),
    };
    let plan = ReducePlan::new(device, &spec).expect("reduce plan");
    let input = upload(device, words);
    let out = output(device, 1);
    plan.encode(&input, &out).expect("reduce encode");
    out.read::<u32>(1).expect("read")[0]
}

fn check_reduce_f32(device: &Arc<dyn Backend>, op: ReduceOp, x: &[f32], what: &str) {
    let got = f32::from_bits(reduce_bits(device, Elem::F32, op, bytemuck::cast_slice(x)));
    match op {
        ReduceOp::Sum => {
            let exact = reference::sum_f32(x);
            if !exact.value.is_finite() {
                // NaN or an infinity among the terms decides the sum.
                assert!(
                    (got.is_nan() && exact.value.is_nan()) || f64::from(got) == exact.value,
                    "{what}: sum {got}, exact {}",
                    exact.value
                );
                return;
            }
            let bound = bounds::sum_bound(x.len(), exact.abs);
            assert!(
                bounds::within(got, exact.value, bound),
                "{what}: sum {got}, exact {} (bound {bound:e})",
                exact.value
            );
        }
        _ => {
            let expected = reference::min_max_f32(x, op).expect("non-empty");
            assert!(
                (got.is_nan() && expected.is_nan()) || got == expected,
                "{what}: {op} {got}, expected {expected}"
            );
        }
    }
}

#[test]
fn reduce_every_elem_op_and_size() {
    for device in devices() {
        let dev = id(device.info());
        for len in REDUCE_SIZES {
            for op in ReduceOp::ALL {
                if len == 0 && op != ReduceOp::Sum {
                    continue;
                }
                let seed = 1000 + len as u64;
                // f32
                let x = inputs::f32_values(seed, len);
                check_reduce_f32(&device, op, &x, &format!("{dev} f32 {op} n={len}"));
                // i32
                let xi = inputs::i32_values(seed, len);
                let got = reduce_bits(&device, Elem::I32, op, bytemuck::cast_slice(&xi)) as i32;
                let expected = reference::reduce_int(&xi, op).unwrap_or(0);
                assert_eq!(got, expected, "{dev} i32 {op} n={len}");
                // u32
                let xu = inputs::u32_values(seed, len);
                let got = reduce_bits(&device, Elem::U32, op, &xu);
                let expected = reference::reduce_int(&xu, op).unwrap_or(0);
                assert_eq!(got, expected, "{dev} u32 {op} n={len}");
            }
        }
    }
}

#[test]
fn reduce_special_values() {
    for device in devices() {
        let dev = id(device.info());
        for len in [1usize, 5, 256, 1027, 100_003] {
            for at in [0, len / 2, len - 1] {
                for (name, value) in [
                    ("NaN", f32::NAN),
                    ("-NaN", -f32::NAN),
                    ("+Inf", f32::INFINITY),
                    ("-Inf", f32::NEG_INFINITY),
                ] {
                    let mut x = inputs::f32_values(7 + len as u64, len);
                    x[at] = value;
                    for op in ReduceOp::ALL {
                        check_reduce_f32(
                            &device,
                            op,
                            &x,
                            &format!("{dev} {name} at {at}/{len} {op}"),
                        );
                    }
                }
            }
        }
        // Extremes of the integer ranges.
        let xi = [i32::MIN, -1, 0, i32::MAX, 5];
        for op in ReduceOp::ALL {
            let got = reduce_bits(&device, Elem::I32, op, bytemuck::cast_slice(&xi)) as i32;
            assert_eq!(
                got,
                reference::reduce_int(&xi, op).unwrap(),
                "{dev} i32 extremes {op}"
            );
        }
        let xu = [u32::MAX, 0, 1, u32::MAX - 1];
        for op in ReduceOp::ALL {
            let got = reduce_bits(&device, Elem::U32, op, &xu);
            assert_eq!(
                got,
                reference::reduce_int(&xu, op).unwrap(),
                "{dev} u32 extremes {op}"
            );
        }
        // Empty min/max is an error, before any device work.
        let spec = ReduceSpec {
            elem: Elem::F32,
            op: ReduceOp::Min,
            len: 0,
        };
        assert!(matches!(
            ReducePlan::new(&device, &spec),
            Err(Error::EmptyReduction { .. })
        ));
    }
}

/// Run one histogram plan, or return the plan's error.
fn histogram(
    device: &Arc<dyn Backend>,
    spec: &HistogramSpec,
    path: HistogramPath,
    words: &[u32],
) -> Result<Vec<u32>, Error> {
    let plan = HistogramPlan::new(device, spec, path)?;
    let values = upload(device, words);
    let counts = output(device, spec.bins as usize);
    plan.encode(&values, &counts)?;
    counts.read::<u32>(spec.bins as usize)
}

fn check_histogram(
    device: &Arc<dyn Backend>,
    spec: &HistogramSpec,
    words: &[u32],
    expected: &[u32],
    what: &str,
) {
    let fits = u64::from(spec.bins) * 4 <= u64::from(device.info().caps.max_shared_bytes);
    for path in [
        HistogramPath::Auto,
        HistogramPath::Privatized,
        HistogramPath::GlobalAtomics,
    ] {
        let what = format!("{what} {path:?}");
        match histogram(device, spec, path, words) {
            Ok(got) => check_exact(&what, &got, expected),
            Err(Error::ExceedsLimit { .. }) if path == HistogramPath::Privatized && !fits => {}
            Err(err) => panic!("{what}: {err}"),
        }
    }
}

#[test]
fn histogram_u32_and_f32_every_path() {
    for device in devices() {
        let dev = id(device.info());
        for bins in [1u32, 7, 256, 4096, 65536] {
            for len in [0usize, 1, 255, 1021, 100_003, (1 << 20) + 3] {
                let seed = u64::from(bins) * 31 + len as u64;
                // u32: some values at or past `bins` (not counted).
                let words = inputs::u32_below(seed, len, bins + bins / 4 + 1);
                let spec = HistogramSpec {
                    input: HistogramInput::U32,
                    len,
                    bins,
                };
                let expected = reference::histogram_u32(&words, bins);
                check_histogram(
                    &device,
                    &spec,
                    &words,
                    &expected,
                    &format!("{dev} u32 bins={bins} n={len}"),
                );

                // f32 over [-1, 2): values beyond the range on both sides,
                // every edge, lo, hi, NaN and infinities.
                let (lo, hi) = (-1.0f64, 2.0f64);
                let mut x = inputs::f32_values_in(seed, len, -1.5, 2.5);
                let edges = histogram_edges(lo, hi, bins);
                let specials = edges
                    .iter()
                    .copied()
                    .chain([
                        f32::NAN,
                        f32::INFINITY,
                        f32::NEG_INFINITY,
                        lo as f32,
                        hi as f32,
                    ])
                    .chain(edges.iter().map(|e| f32::from_bits(e.to_bits() - 1)));
                for (slot, v) in x.iter_mut().step_by(3).zip(specials) {
                    *slot = v;
                }
                let spec = HistogramSpec {
                    input: HistogramInput::F32 { lo, hi },
                    len,
                    bins,
                };
                let expected = reference::histogram_f32(&x, bins, lo, hi);
                check_histogram(
                    &device,
                    &spec,
                    bytemuck::cast_slice(&x),
                    &expected,
                    &format!("{dev} f32 bins={bins} n={len}"),
                );
            }
        }
        // An odd range whose edges do not fall on the first guess.
        let (lo, hi, bins) = (0.1f64, 0.7f64, 3u32);
        let x = inputs::f32_values_in(99, 50_000, 0.0, 0.8);
        let spec = HistogramSpec {
            input: HistogramInput::F32 { lo, hi },
            len: x.len(),
            bins,
        };
        let expected = reference::histogram_f32(&x, bins, lo, hi);
        check_histogram(
            &device,
            &spec,
            bytemuck::cast_slice(&x),
            &expected,
            &format!("{dev} f32 [0.1, 0.7]"),
        );
    }
}

#[test]
fn conv1d_filters_and_sizes() {
    for device in devices() {
        let dev = id(device.info());
        for taps in [1usize, 3, 9, 31, 129] {
            for len in [1usize, 2, 5, 255, 1024, 1031, 100_003, (1 << 20) + 3] {
                let seed = taps as u64 * 7 + len as u64;
                let x = inputs::f32_values(seed, len);
                let w = inputs::f32_values(seed + 1, taps);
                let spec = Conv1dSpec { len, taps };
                let plan = Conv1dPlan::new(&device, &spec).expect("conv1d plan");
                let (xb, wb, out) = (
                    upload(&device, &x),
                    upload(&device, &w),
                    output(&device, len),
                );
                plan.encode(&xb, &wb, &out).expect("conv1d encode");
                let got = out.read::<f32>(len).expect("read");
                check_bounded(
                    &format!("{dev} conv1d taps={taps} n={len}"),
                    &got,
                    &reference::conv1d(&x, &w),
                    taps,
                );
            }
        }
        // Even filters are refused.
        let spec = Conv1dSpec { len: 10, taps: 4 };
        assert!(matches!(
            Conv1dPlan::new(&device, &spec),
            Err(Error::InvalidFilter(_))
        ));
    }
}

#[test]
fn conv2d_filters_borders_and_sizes() {
    let shapes = [
        (1usize, 1usize),
        (3, 4),
        (17, 33),
        (64, 64),
        (100, 37),
        (257, 129),
    ];
    let filters = [
        (1usize, 1usize),
        (3, 3),
        (5, 5),
        (7, 9),
        (9, 7),
        (1, 5),
        (15, 15),
    ];
    for device in devices() {
        let dev = id(device.info());
        for (height, width) in shapes {
            for (kh, kw) in filters {
                for border in [Border::Zero, Border::Clamp] {
                    let spec = Conv2dSpec {
                        height,
                        width,
                        kh,
                        kw,
                        border,
                    };
                    let seed = (height * 1000 + width * 10 + kh * kw) as u64;
                    let img = inputs::f32_values(seed, height * width);
                    let f = inputs::f32_values(seed + 1, kh * kw);
                    let plan = Conv2dPlan::new(&device, &spec).expect("conv2d plan");
                    let (ib, fb, out) = (
                        upload(&device, &img),
                        upload(&device, &f),
                        output(&device, height * width),
                    );
                    plan.encode(&ib, &fb, &out).expect("conv2d encode");
                    let got = out.read::<f32>(height * width).expect("read");
                    check_bounded(
                        &format!("{dev} conv2d {height}x{width} * {kh}x{kw} {border:?}"),
                        &got,
                        &reference::conv2d(&img, &f, &spec),
                        kh * kw,
                    );
                }
            }
        }
        // A large image, one launch grid-striding over many tiles.
        let spec = Conv2dSpec {
            height: 1031,
            width: 1500,
            kh: 5,
            kw: 5,
            border: Border::Clamp,
        };
        let img = inputs::f32_values(5, spec.height * spec.width);
        let f = inputs::f32_values(6, 25);
        let plan = Conv2dPlan::new(&device, &spec).expect("conv2d plan");
        let (ib, fb, out) = (
            upload(&device, &img),
            upload(&device, &f),
            output(&device, img.len()),
        );
        plan.encode(&ib, &fb, &out).expect("conv2d encode");
        let got = out.read::<f32>(img.len()).expect("read");
        check_bounded(
            &format!("{dev} conv2d large"),
            &got,
            &reference::conv2d(&img, &f, &spec),
            25,
        );
    }
}

fn check_matmul(device: &Arc<dyn Backend>, spec: MatmulSpec, tiling: Option<usize>) {
    let dev = id(device.info());
    let seed = (spec.m * 1_000_000 + spec.n * 1000 + spec.k) as u64;
    let a = inputs::f32_values(seed, spec.m * spec.k);
    let b = inputs::f32_values(seed + 1, spec.k * spec.n);
    let plan =
        MatmulPlan::with_tiling(device, &spec, tiling.map(|t| TILINGS[t])).expect("matmul plan");
    let (ab, bb, c) = (
        upload(device, &a),
        upload(device, &b),
        output(device, spec.m * spec.n),
    );
    plan.encode(&ab, &bb, &c).expect("matmul encode");
    let got = c.read::<f32>(spec.m * spec.n).expect("read");
    check_bounded(
        &format!(
            "{dev} matmul m={} n={} k={} tiling {:?}",
            spec.m,
            spec.n,
            spec.k,
            plan.tiling()
        ),
        &got,
        &reference::matmul(&a, &b, &spec),
        spec.k,
    );
}

#[test]
fn matmul_ragged_shapes() {
    let sizes = [1usize, 7, 16, 17, 63, 65, 129, 513];
    for device in devices() {
        // Every (M, N, K) from the set, with the plan's own tiling.
        for &m in &sizes {
            for &n in &sizes {
                for &k in &sizes {
                    check_matmul(&device, MatmulSpec { m, n, k }, None);
                }
            }
        }
        // Every tiling, on ragged shapes.
        for t in 0..TILINGS.len() {
            for (m, n, k) in [(1, 1, 1), (65, 17, 63), (129, 257, 33), (300, 200, 100)] {
                check_matmul(&device, MatmulSpec { m, n, k }, Some(t));
            }
        }
        // Mismatched inner dimensions are refused.
        assert!(matches!(
            MatmulSpec::from_shapes([3, 4], [5, 6]),
            Err(Error::ShapeMismatch(_))
        ));
    }
}

#[test]
fn copy_moves_every_word() {
    for device in devices() {
        let dev = id(device.info());
        for len in [0usize, 1, 3, 4, 5, 1023, 1_000_003] {
            let src = inputs::u32_values(len as u64, len);
            let plan = CopyPlan::new(&device, len).expect("copy plan");
            let (sb, db) = (upload(&device, &src), output(&device, len));
            plan.encode(&sb, &db).expect("copy encode");
            check_exact(
                &format!("{dev} copy n={len}"),
                &db.read::<u32>(len).expect("read"),
                &src,
            );
        }
    }
}
