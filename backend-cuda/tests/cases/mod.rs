//! The conformance cases, over any backend: each plan against the host
//! reference (`rosetta_core::reference`) under `rosetta_core::bounds`.

use rosetta_core::bounds::{dot_bound, sum_bound, within};
use rosetta_core::inputs::{f32_values, f32_values_in, i32_values, u32_below, u32_values};
use rosetta_core::ops::{
    histogram_edges, Border, Conv1dSpec, Conv2dSpec, Elem, Element, HistogramInput, HistogramSpec,
    MatmulSpec, ReduceOp, ReduceSpec,
};
use rosetta_core::reference::{self, Exact};
use rosetta_core::{Backend, Buffer, Clock, Error, KernelSpec, Launch};
use rosetta_kernels::conv1d::Conv1dPlan;
use rosetta_kernels::conv2d::Conv2dPlan;
use rosetta_kernels::copy::CopyPlan;
use rosetta_kernels::histogram::{HistogramPath, HistogramPlan};
use rosetta_kernels::matmul::{MatmulPlan, TILINGS};
use rosetta_kernels::reduce::ReducePlan;
use std::sync::Arc;

/// How far a run goes: `Quick` for the CPU self-check, `Full` on GPUs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Quick,
    Full,
}

impl Size {
    /// `Full`, or `Quick` when `ROSETTA_QUICK` is set (for runs under
    /// compute-sanitizer, which are much slower).
    pub fn on_gpu() -> Size {
        if std::env::var_os("ROSETTA_QUICK").is_some() {
            Size::Quick
        } else {
            Size::Full
        }
    }
}

fn pick<T: Copy>(size: Size, quick: &[T], full: &[T]) -> Vec<T> {
    match size {
        Size::Quick => quick.to_vec(),
        Size::Full => full.to_vec(),
    }
}

fn name(d: &Arc<dyn Backend>) -> String {
    d.info().id()
}

fn upload<T: bytemuck::Pod>(d: &Arc<dyn Backend>, data: &[T]) -> Buffer {
    Buffer::from_slice(d, data)
        .unwrap_or_else(|e| panic!("{}: upload of {} values: {e}", name(d), data.len()))
}

/// Check computed f32 values against exact ones, element by element.
fn check_dots(d: &Arc<dyn Backend>, what: &str, got: &[f32], exact: &[Exact], k: usize) {
    assert_eq!(got.len(), exact.len());
    let mut bad = Vec::new();
    for (i, (&g, e)) in got.iter().zip(exact).enumerate() {
        let bound = dot_bound(k, e.abs);
        if !within(g, e.value, bound) {
            bad.push(format!(
                "[{i}] got {g:e}, exact {:e}, bound {bound:e}",
                e.value
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{}: {what}: {} of {} elements out of bounds, first: {:?}",
        name(d),
        bad.len(),
        got.len(),
        &bad[..bad.len().min(5)]
    );
}

// ---------------------------------------------------------------- reduce

fn run_reduce<T: Element>(
    d: &Arc<dyn Backend>,
    op: ReduceOp,
    data: &[T],
) -> rosetta_core::Result<T> {
    let spec = ReduceSpec {
        elem: T::ELEM,
        op,
        len: data.len(),
    };
    let plan = ReducePlan::new(d, &spec)?;
    let input = Buffer::from_slice(d, data)?;
    let output = Buffer::new(d, 4)?;
    plan.encode(&input, &output)?;
    Ok(output.read::<T>(1)?[0])
}

fn same_f32(a: f32, b: f32) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn check_reduce_f32(d: &Arc<dyn Backend>, op: ReduceOp, data: &[f32], what: &str) {
    let got = run_reduce(d, op, data)
        .unwrap_or_else(|e| panic!("{}: reduce {op} f32 {what}: {e}", name(d)));
    match op {
        ReduceOp::Sum => {
            let exact = reference::sum_f32(data);
            let bound = sum_bound(data.len(), exact.abs);
            assert!(
                within(got, exact.value, bound),
                "{}: sum f32 {what}: got {got:e}, exact {:e}, bound {bound:e}",
                name(d),
                exact.value
            );
        }
        _ => {
            let want = reference::min_max_f32(data, op).expect("non-empty");
            assert!(
                same_f32(got, want),
                "{}: {op} f32 {what}: got {got}, want {want}",
                name(d)
            );
        }
    }
}

fn check_reduce_int<T: Element + reference::IntElem + PartialEq + std::fmt::Display>(
    d: &Arc<dyn Backend>,
    op: ReduceOp,
    data: &[T],
) {
    let got = run_reduce(d, op, data)
        .unwrap_or_else(|e| panic!("{}: reduce {op} {}: {e}", name(d), T::ELEM));
    let want = reference::reduce_int(data, op).expect("non-empty or sum");
    assert!(
        got == want,
        "{}: {op} {} of {} values: got {got}, want {want}",
        name(d),
        T::ELEM,
        data.len()
    );
}

pub fn reduce(d: &Arc<dyn Backend>, size: Size) {
    let lens = pick(
        size,
        &[0, 1, 3, 4, 5, 255, 256, 257, 1031, 4099],
        &[
            0,
            1,
            2,
            3,
            4,
            5,
            7,
            255,
            256,
            257,
            1023,
            1024,
            1025,
            4093,
            65537,
            1_000_003,
            (1 << 22) + 3,
            (1 << 25) + 1,
        ],
    );
    for (seed, &len) in lens.iter().enumerate() {
        let seed = seed as u64 + 100;
        for op in ReduceOp::ALL {
            if len == 0 && op != ReduceOp::Sum {
                for elem in [Elem::F32, Elem::I32, Elem::U32] {
                    let spec = ReduceSpec { elem, op, len };
                    assert!(
                        matches!(ReducePlan::new(d, &spec), Err(Error::EmptyReduction { .. })),
                        "{}: empty {op} must be an error",
                        name(d)
                    );
                }
                continue;
            }
            check_reduce_f32(d, op, &f32_values(seed, len), &format!("of {len} values"));
            check_reduce_int(d, op, &i32_values(seed, len));
            check_reduce_int(d, op, &u32_values(seed, len));
        }
        if len == 0 {
            assert_eq!(
                run_reduce::<f32>(d, ReduceOp::Sum, &[]).expect("empty sum"),
                0.0
            );
            assert_eq!(
                run_reduce::<u32>(d, ReduceOp::Sum, &[]).expect("empty sum"),
                0
            );
        }
    }
    // Extremes: wrapping sums, the identities as values.
    let extremes = [i32::MAX, i32::MIN, -1, 0, 1, i32::MAX, i32::MIN + 1];
    for op in ReduceOp::ALL {
        check_reduce_int(d, op, &extremes);
        check_reduce_int(d, op, &[u32::MAX, 0, u32::MAX, 1, 2]);
        check_reduce_int(d, op, &[i32::MIN; 9]);
        check_reduce_int(d, op, &[u32::MAX; 9]);
    }
    // NaN anywhere (vector part, scalar tail, first, last) propagates
    // through min and max; infinities are ordinary extremes.
    let nan_lens = pick(size, &[1, 5, 257, 4099], &[1, 5, 257, 4099, (1 << 20) + 3]);
    for &len in &nan_lens {
        let base = f32_values(7, len);
        let mut positions = vec![0, len / 2, len - 1];
        positions.dedup();
        for &at in &positions {
            for nan in [
                f32::NAN,
                f32::from_bits(0xffc0_0001),
                f32::from_bits(0x7f80_0001),
            ] {
                let mut data = base.clone();
                data[at] = nan;
                for op in [ReduceOp::Min, ReduceOp::Max] {
                    check_reduce_f32(d, op, &data, &format!("with NaN at {at} of {len}"));
                }
            }
            let mut data = base.clone();
            data[at] = f32::INFINITY;
            data[len - 1 - at] = f32::NEG_INFINITY;
            for op in [ReduceOp::Min, ReduceOp::Max] {
                check_reduce_f32(d, op, &data, &format!("with ±Inf at {at} of {len}"));
            }
        }
        check_reduce_f32(d, ReduceOp::Min, &vec![f32::INFINITY; len], "all +Inf");
        check_reduce_f32(d, ReduceOp::Max, &vec![f32::NEG_INFINITY; len], "all -Inf");
    }
}

// ------------------------------------------------------------- histogram

fn run_histogram(
    d: &Arc<dyn Backend>,
    spec: &HistogramSpec,
    path: HistogramPath,
    words: &[u32],
) -> rosetta_core::Result<Vec<u32>> {
    let plan = HistogramPlan::new(d, spec, path)?;
    let values = Buffer::from_slice(d, words)?;
    let counts = Buffer::new(d, u64::from(spec.bins) * 4)?;
    // Garbage first: the plan must zero the counts itself.
    counts.write(&vec![0xdead_beefu32; spec.bins as usize])?;
    plan.encode(&values, &counts)?;
    counts.read::<u32>(spec.bins as usize)
}

fn check_histogram(d: &Arc<dyn Backend>, spec: &HistogramSpec, words: &[u32], want: &[u32]) {
    for path in [
        HistogramPath::Auto,
        HistogramPath::Privatized,
        HistogramPath::GlobalAtomics,
    ] {
        match run_histogram(d, spec, path, words) {
            Ok(got) => {
                if got != want {
                    let diff: Vec<String> = got
                        .iter()
                        .zip(want)
                        .enumerate()
                        .filter(|(_, (g, w))| g != w)
                        .take(5)
                        .map(|(i, (g, w))| format!("bin {i}: got {g}, want {w}"))
                        .collect();
                    panic!("{}: histogram {spec:?} {path:?}: {diff:?}", name(d));
                }
            }
            Err(Error::ExceedsLimit { what, .. })
                if path == HistogramPath::Privatized
                    && u64::from(spec.bins) * 4 > u64::from(d.info().caps.max_shared_bytes) =>
            {
                assert!(what.contains("shared"), "{what}");
            }
            Err(e) => panic!("{}: histogram {spec:?} {path:?}: {e}", name(d)),
        }
    }
}

pub fn histogram(d: &Arc<dyn Backend>, size: Size) {
    let bins_list = pick(
        size,
        &[1, 7, 256, 4096, 65536],
        &[1, 7, 256, 4096, 16384, 49152, 65536],
    );
    let lens = pick(
        size,
        &[0, 1, 1000, 4099],
        &[0, 1, 5, 1000, 65537, (1 << 20) + 3, 1 << 24],
    );
    for &bins in &bins_list {
        for (seed, &len) in lens.iter().enumerate() {
            let seed = seed as u64 + 1000 * u64::from(bins);
            // u32: some values at or past `bins` (not counted).
            let mut words = u32_below(seed, len, bins + bins / 4 + 1);
            if len > 3 {
                words[len / 3] = u32::MAX;
                words[len - 1] = bins - 1;
            }
            let spec = HistogramSpec {
                input: HistogramInput::U32,
                len,
                bins,
            };
            check_histogram(d, &spec, &words, &reference::histogram_u32(&words, bins));

            // f32 over a range, with the edges themselves, NaN, ±Inf, -0 and
            // values just outside.
            for (lo, hi) in [(-1.0f64, 1.0f64), (-3.3, 7.7)] {
                let mut values = f32_values_in(seed + 1, len, lo as f32 - 0.5, hi as f32 + 0.5);
                let edges = histogram_edges(lo, hi, bins);
                let specials = [
                    f32::NAN,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                    -0.0,
                    lo as f32,
                    hi as f32,
                ];
                for (i, v) in values.iter_mut().enumerate() {
                    match i % 7 {
                        0 => *v = edges[(i / 7) % edges.len()],
                        1 => *v = specials[(i / 7) % specials.len()],
                        2 => {
                            *v = f32::from_bits(
                                edges[(i / 7) % edges.len()].to_bits().wrapping_sub(1),
                            )
                        }
                        _ => {}
                    }
                }
                let spec = HistogramSpec {
                    input: HistogramInput::F32 { lo, hi },
                    len,
                    bins,
                };
                let words: Vec<u32> = values.iter().map(|v| v.to_bits()).collect();
                check_histogram(
                    d,
                    &spec,
                    &words,
                    &reference::histogram_f32(&values, bins, lo, hi),
                );
            }
        }
    }
}

// ---------------------------------------------------------------- conv1d

pub fn conv1d(d: &Arc<dyn Backend>, size: Size) {
    let lens = pick(
        size,
        &[1, 2, 255, 257, 1021],
        &[1, 2, 3, 255, 256, 257, 1021, 4096, 65537, (1 << 20) + 7],
    );
    for (seed, &len) in lens.iter().enumerate() {
        let seed = seed as u64 + 2000;
        let mut taps_list = vec![1, 3, 5, 9, 31, 101];
        taps_list.push(2 * len + 1); // wider than the signal
        taps_list.retain(|&t| size == Size::Full || t <= 257);
        for taps in taps_list {
            let spec = Conv1dSpec { len, taps };
            let x = f32_values(seed, len);
            let w = f32_values(seed + 1, taps);
            let plan = match Conv1dPlan::new(d, &spec) {
                Ok(plan) => plan,
                // Even the smallest tile's halo does not fit in shared memory.
                Err(Error::Unsupported(_))
                    if (2 * taps as u64 + 31) * 4 > u64::from(d.info().caps.max_shared_bytes) =>
                {
                    continue;
                }
                Err(e) => panic!("{}: conv1d {spec:?}: {e}", name(d)),
            };
            let (xb, wb) = (upload(d, &x), upload(d, &w));
            let out = Buffer::new(d, len as u64 * 4).expect("output");
            plan.encode(&xb, &wb, &out).expect("conv1d encode");
            let got = out.read::<f32>(len).expect("read");
            check_dots(
                d,
                &format!("conv1d {spec:?}"),
                &got,
                &reference::conv1d(&x, &w),
                taps,
            );
        }
    }
    assert!(matches!(
        Conv1dPlan::new(d, &Conv1dSpec { len: 10, taps: 4 }),
        Err(Error::InvalidFilter(_))
    ));
}

// ---------------------------------------------------------------- conv2d

pub fn conv2d(d: &Arc<dyn Backend>, size: Size) {
    let images = pick(
        size,
        &[(1, 1), (1, 17), (17, 1), (31, 33), (64, 64)],
        &[
            (1, 1),
            (1, 17),
            (17, 1),
            (31, 33),
            (64, 64),
            (100, 257),
            (513, 300),
            (1024, 1024),
        ],
    );
    for (seed, &(h, w)) in images.iter().enumerate() {
        let seed = seed as u64 + 3000;
        let mut filters = vec![(1, 1), (3, 3), (5, 5), (7, 9), (9, 7), (1, 5), (5, 1)];
        filters.push((2 * h + 1, 2 * w + 1)); // larger than the image
        filters.retain(|&(kh, kw)| kh * kw <= 10_000);
        for (kh, kw) in filters {
            for border in [Border::Zero, Border::Clamp] {
                let spec = Conv2dSpec {
                    height: h,
                    width: w,
                    kh,
                    kw,
                    border,
                };
                let image = f32_values(seed, h * w);
                let filter = f32_values(seed + 1, kh * kw);
                let plan = Conv2dPlan::new(d, &spec)
                    .unwrap_or_else(|e| panic!("{}: conv2d {spec:?}: {e}", name(d)));
                let (ib, fb) = (upload(d, &image), upload(d, &filter));
                let out = Buffer::new(d, (h * w) as u64 * 4).expect("output");
                plan.encode(&ib, &fb, &out).expect("conv2d encode");
                let got = out.read::<f32>(h * w).expect("read");
                check_dots(
                    d,
                    &format!("conv2d {spec:?}"),
                    &got,
                    &reference::conv2d(&image, &filter, &spec),
                    kh * kw,
                );
            }
        }
    }
}

// ---------------------------------------------------------------- matmul

fn check_matmul(d: &Arc<dyn Backend>, spec: &MatmulSpec, plan: &MatmulPlan, seed: u64) {
    let a = f32_values(seed, spec.m * spec.k);
    let b = f32_values(seed + 1, spec.k * spec.n);
    let (ab, bb) = (upload(d, &a), upload(d, &b));
    let c = Buffer::new(d, (spec.m * spec.n) as u64 * 4).expect("output");
    plan.encode(&ab, &bb, &c).expect("matmul encode");
    let got = c.read::<f32>(spec.m * spec.n).expect("read");
    check_dots(
        d,
        &format!("matmul {spec:?} {:?}", plan.tiling()),
        &got,
        &reference::matmul(&a, &b, spec),
        spec.k,
    );
}

pub fn matmul(d: &Arc<dyn Backend>, size: Size) {
    let dims = pick(size, &[1, 7, 17, 65], &[1, 7, 16, 17, 63, 65, 129, 513]);
    let mut seed = 4000;
    for &m in &dims {
        for &n in &dims {
            for &k in &dims {
                let spec = MatmulSpec { m, k, n };
                let plan = MatmulPlan::new(d, &spec)
                    .unwrap_or_else(|e| panic!("{}: matmul {spec:?}: {e}", name(d)));
                check_matmul(d, &spec, &plan, seed);
                seed += 2;
            }
        }
    }
    // Every tiling on ragged shapes.
    let ragged = pick(size, &[1, 17, 65], &[1, 17, 65, 129, 300]);
    for tiling in TILINGS {
        for &m in &ragged {
            for &n in &ragged {
                for &k in &[1, 9, 129] {
                    let spec = MatmulSpec { m, k, n };
                    match MatmulPlan::with_tiling(d, &spec, Some(tiling)) {
                        Ok(plan) => check_matmul(d, &spec, &plan, seed),
                        Err(Error::ExceedsLimit { .. }) => {} // a device too small for this tiling
                        Err(e) => panic!("{}: matmul {spec:?} {tiling:?}: {e}", name(d)),
                    }
                    seed += 2;
                }
            }
        }
    }
    assert!(matches!(
        MatmulSpec::from_shapes([2, 3], [4, 5]),
        Err(Error::ShapeMismatch(_))
    ));
}

// ------------------------------------------------------------------ copy

pub fn copy(d: &Arc<dyn Backend>, size: Size) {
    let lens = pick(
        size,
        &[0, 1, 3, 4, 5, 1023],
        &[0, 1, 3, 4, 5, 1023, 65537, (1 << 22) + 1],
    );
    for &words in &lens {
        let src = u32_values(words as u64, words);
        let plan = CopyPlan::new(d, words).expect("copy plan");
        let sb = upload(d, &src);
        let dst = Buffer::new(d, words as u64 * 4).expect("dst");
        plan.encode(&sb, &dst).expect("copy encode");
        assert_eq!(
            dst.read::<u32>(words).expect("read"),
            src,
            "{}: copy of {words} words",
            name(d)
        );
    }
}

// ------------------------------------------------------- backend contract

/// The `Backend` trait's promises, and typed errors for bad requests.
pub fn backend_contract(d: &Arc<dyn Backend>) {
    let caps = d.info().caps.clone();
    let n = name(d);

    // Allocations are rounded up to 16 bytes and zeroed, even when reused.
    for round in 0..3 {
        let ids: Vec<_> = [0u64, 1, 4, 17, 1000, 1 << 20]
            .iter()
            .map(|&bytes| (bytes, d.alloc(bytes).expect("alloc")))
            .collect();
        for &(bytes, id) in &ids {
            let rounded = bytes.div_ceil(16).max(1) * 16;
            let mut out = vec![0xffu8; rounded as usize];
            d.read(id, 0, &mut out).expect("read the rounded size");
            assert!(
                out.iter().all(|&b| b == 0),
                "{n}: alloc({bytes}) not zeroed (round {round})"
            );
            d.write(id, 0, &vec![0xabu8; rounded as usize])
                .expect("fill");
        }
        for (_, id) in ids {
            d.free(id);
        }
    }

    // Offsets and lengths.
    let id = d.alloc(64).expect("alloc");
    d.write(id, 8, &[1, 0, 0, 0, 2, 0, 0, 0])
        .expect("write at 8");
    let mut out = [0u8; 16];
    d.read(id, 4, &mut out).expect("read at 4");
    assert_eq!(out, [0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]);
    for (offset, len) in [(2u64, 4usize), (0, 3), (60, 8), (64, 4), (u64::MAX - 3, 4)] {
        assert!(
            matches!(
                d.write(id, offset, &vec![0; len]),
                Err(Error::InvalidArgument(_))
            ),
            "{n}: write at {offset} of {len} must be refused"
        );
        let mut out = vec![0u8; len];
        assert!(matches!(
            d.read(id, offset, &mut out),
            Err(Error::InvalidArgument(_))
        ));
    }
    d.zero(id).expect("zero");
    let mut out = [1u8; 64];
    d.read(id, 0, &mut out).expect("read");
    assert!(out.iter().all(|&b| b == 0));
    d.free(id);
    assert!(matches!(
        d.alloc(caps.max_buffer_bytes + 1),
        Err(Error::ExceedsLimit { .. })
    ));

    // Launches over the limits are refused before the API.
    let spec =
        KernelSpec::new(&rosetta_kernels::copy::KERNEL, &[("GROUP_SIZE", 256)]).expect("spec");
    let kernel = d.compile(&spec).expect("compile copy");
    assert_eq!(
        d.compile(&spec).expect("cached"),
        kernel,
        "{n}: compile must be cached"
    );
    let (src, dst) = (d.alloc(4096).expect("src"), d.alloc(4096).expect("dst"));
    let bad = [
        Launch {
            groups: [1, 1, 1],
            group_size: 256,
            shared_bytes: caps.max_shared_bytes + 4,
        },
        Launch {
            groups: [caps.max_groups[0].saturating_add(1).max(1), 1, 1],
            group_size: 256,
            shared_bytes: 0,
        },
        Launch {
            groups: [1, 1, 1],
            group_size: caps.max_group_invocations + 1,
            shared_bytes: 0,
        },
    ];
    for launch in bad {
        match d.launch(kernel, &launch, &[src, dst], &[1024]) {
            Err(Error::ExceedsLimit { .. }) => {}
            // max_groups[0] may be u32::MAX, where saturating_add can't exceed it.
            Ok(()) if launch.groups[0] == caps.max_groups[0] => {}
            other => panic!("{n}: {launch:?} must exceed a limit, got {other:?}"),
        }
    }
    let empty = Launch {
        groups: [0, 1, 1],
        group_size: 256,
        shared_bytes: 0,
    };
    assert!(matches!(
        d.launch(kernel, &empty, &[src, dst], &[1024]),
        Err(Error::InvalidArgument(_))
    ));
    let ok = Launch::linear(4, 256, 0);
    assert!(matches!(
        d.launch(kernel, &ok, &[src], &[1024]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        d.launch(kernel, &ok, &[src, dst], &[]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        d.launch(kernel, &ok, &[src, src], &[1024]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        d.launch(kernel, &Launch::linear(4, 128, 0), &[src, dst], &[1024]),
        Err(Error::InvalidArgument(_))
    ));

    // Timing with the device clock, in stream order.
    let words = 1 << 24;
    let big_src = d.alloc(words * 4).expect("big src");
    let big_dst = d.alloc(words * 4).expect("big dst");
    d.begin_timer().expect("begin");
    d.launch(
        kernel,
        &Launch::linear(1024, 256, 0),
        &[big_src, big_dst],
        &[words as u32],
    )
    .expect("launch");
    let (elapsed, clock) = d.end_timer().expect("end");
    assert_eq!(clock, Clock::Device);
    assert!(elapsed.as_nanos() > 0, "{n}: a 64 MiB copy took no time");
    assert!(
        d.end_timer().is_err(),
        "{n}: end_timer without begin_timer must fail"
    );
    d.finish().expect("finish");
    for id in [src, dst, big_src, big_dst] {
        d.free(id);
    }
    eprintln!(
        "{n}: 64 MiB copy in {elapsed:?} ({:.0} GB/s)",
        (2 * words * 4) as f64 / elapsed.as_secs_f64() / 1e9
    );

    // A kernel that does not build: Error::Compile with the compiler's log.
    static BROKEN: rosetta_core::KernelDef = rosetta_core::KernelDef {
        name: "broken",
        constants: &["GROUP_SIZE"],
        bindings: &[],
        params: &[],
        dynamic_shared: false,
        sources: rosetta_core::Sources {
            wgsl: "",
            cuda: "extern \"C\" __global__ void broken() { this_is_not_defined(); }",
            glsl: "",
            opencl: "",
        },
        cpu: |_, _| {},
    };
    let spec = KernelSpec::new(&BROKEN, &[("GROUP_SIZE", 32)]).expect("spec");
    match d.compile(&spec) {
        Err(Error::Compile { log, .. }) => assert!(log.contains("this_is_not_defined"), "{log}"),
        other => panic!("{n}: a broken kernel must be a compile error, got {other:?}"),
    }
}
