//! Conv1d's conformance cases. Inputs are seeded by the case name. Random
//! values are checked under the error bound; small integers and ones (whose
//! every partial sum is exact in f32) are checked exactly, so dropped or
//! repeated work shows.

use super::plan::conv1d_f32;
use super::plan::{
    conv1d_slice, geometry, max_taps, Conv1dPlan, Conv1dVariant, MAX_DIRECT_LAUNCHES,
    MAX_WINDOW_TAPS,
};
use super::spec::{conv1d_bound, conv1d_reference, Conv1dSpec};
use crate::op::random::{self, largest, largest_odd, least_device, Draw};
use crate::op::{
    compare_bounded, padding, preferred_group_size, seed, ArrayData, Case, CaseGroup, Check,
    Context, Exact, GeometryAudit, HostArray, Options, Rejects, Verdict,
};
use rayon::prelude::*;
use rosetta_core::{inputs, Backend, Buffer, Capabilities, Error, Result};
use std::sync::Arc;

const OP: &str = "conv1d";

/// Largest signal of the `--quick` subset.
const QUICK_MAX: usize = 70_000;

/// A seeded generator: `(seed, len) -> values`.
type Values = fn(u64, usize) -> Vec<f32>;

/// Uniform in [-1, 1): checked under the bound.
fn random(seed: u64, len: usize) -> Vec<f32> {
    inputs::f32_values(seed, len)
}

/// Integers −4..=4: every partial sum exact for fewer than 2^20 taps.
fn small_ints(seed: u64, len: usize) -> Vec<f32> {
    inputs::u32_below(seed, len, 9)
        .into_iter()
        .map(|v| v as f32 - 4.0)
        .collect()
}

/// A convolution of prepared values against the reference.
struct Conv {
    x: Vec<f32>,
    taps: Vec<f32>,
    variant: Option<Conv1dVariant>,
    reference: Vec<Exact>,
    /// Every partial sum is exact: compare exactly, not under the bound.
    exact: bool,
}

impl Conv {
    fn new(x: Vec<f32>, taps: Vec<f32>, variant: Option<Conv1dVariant>, exact: bool) -> Self {
        let reference = conv1d_reference(&x, &taps);
        Conv {
            x,
            taps,
            variant,
            reference,
            exact,
        }
    }

    /// All-ones signal and taps: output i counts the taps over the signal
    /// (the reference without the O(len · taps) work).
    fn ones(len: usize, taps: usize) -> Self {
        let radius = taps / 2;
        let reference = (0..len)
            .into_par_iter()
            .map(|i| {
                let count = ((len + radius - i).min(taps) - radius.saturating_sub(i)) as f64;
                Exact::normal(count, count)
            })
            .collect();
        Conv {
            x: vec![1.0; len],
            taps: vec![1.0; taps],
            variant: None,
            reference,
            exact: true,
        }
    }

    fn compare(&self, got: &[f32]) -> Verdict {
        let k = self.taps.len();
        let exact = self.exact;
        compare_bounded(got, &self.reference, |_, e| {
            if exact {
                0.0
            } else {
                conv1d_bound(k, e)
            }
        })
    }
}

impl Check for Conv {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let got = conv1d_slice(ctx.backend, &self.x, &self.taps, self.variant)?;
        Ok(self.compare(&got))
    }
}

fn name(len: usize, taps: usize, label: &str, variant: Option<Conv1dVariant>) -> String {
    let variant = variant
        .map(|v| format!(" {}", v.name()))
        .unwrap_or_default();
    format!("conv1d n={len} taps={taps}{label}{variant}")
}

/// A case of `len` outputs and `taps` taps: signal and taps from generators,
/// checked exactly when `exact`.
#[allow(clippy::too_many_arguments)]
fn case(
    group: CaseGroup,
    len: usize,
    taps: usize,
    label: &str,
    signal: Values,
    filter: Values,
    exact: bool,
    variant: Option<Conv1dVariant>,
) -> Case {
    let name = name(len, taps, label, variant);
    let s = seed(&name);
    let quick = len <= QUICK_MAX && len * taps <= 1 << 26;
    Case::new(name, OP, group, quick, move || {
        Conv::new(signal(s, len), filter(s ^ 1, taps), variant, exact)
    })
}

/// Every conv1d case.
pub fn cases() -> Vec<Case> {
    let ops = CaseGroup::Ops;
    let mut all = Vec::new();
    // Lengths around the tile (256 · items) boundaries and primes; filters
    // from 1 tap to more taps than samples.
    for (len, taps) in [
        (0, 1),
        (0, 3),
        (1, 1),
        (1, 3),
        (2, 5),
        (17, 101),
        (1_000, 1),
        (1_000, 3),
        (1_023, 9),
        (1_025, 9),
        (65_537, 31),
        (4_099, 257),
        (1_000_003, 9),
    ] {
        all.push(case(ops, len, taps, "", random, random, false, None));
    }
    // Every variant, forced, whatever the device would choose: ragged
    // lengths, short signals under long filters (the longest a window
    // holds, for the windows; more than shared memory holds on a 32 KiB
    // device, for the direct sum), and exact sums.
    for variant in Conv1dVariant::ALL {
        let (long, exact_taps) = if variant.window() {
            (MAX_WINDOW_TAPS as usize, MAX_WINDOW_TAPS as usize)
        } else if variant.direct() {
            (4_097, 1_025)
        } else {
            (257, 63)
        };
        // Vector and window edges: lengths of every remainder mod 4, radii
        // of every remainder mod 4 (0 to 16), signals shorter than a window.
        for (len, taps) in [
            (9, 9),
            (12, 9),
            (1_026, 1),
            (1_027, 7),
            (4_096, 11),
            (4_101, 13),
            (3, 7),
            (4_099, long),
            (70_001, 9),
        ] {
            all.push(case(
                ops,
                len,
                taps,
                "",
                random,
                random,
                false,
                Some(variant),
            ));
        }
        let name = format!(
            "conv1d taps=9 5 tiles + 7 on 3 workgroups {}",
            variant.name()
        );
        let s = seed(&name);
        all.push(Case::new(name, OP, ops, true, move || StridedTiles {
            variant,
            seed: s,
        }));
        // Buffers longer than the signal, NaN past its end and a sentinel
        // past the output's: reads and writes must stop at n.
        for (len, taps) in [(9, 9), (1_027, 13), (4_101, 9)] {
            let name = format!(
                "conv1d n={len} taps={taps} NaN past the signal, output kept past n {}",
                variant.name()
            );
            let s = seed(&name);
            all.push(Case::new(name, OP, ops, true, move || Padded {
                conv: Conv::new(random(s, len), random(s ^ 1, taps), Some(variant), false),
            }));
        }
        for (label, filter) in INFINITE_TAPS {
            all.push(case(
                ops,
                1_027,
                9,
                label,
                random,
                filter,
                false,
                Some(variant),
            ));
        }
        all.push(case(
            ops,
            65_537,
            exact_taps,
            " small integers (exact)",
            small_ints,
            small_ints,
            true,
            Some(variant),
        ));
    }
    all.extend(direct_cases());
    all.push(case(
        ops,
        1_000_003,
        101,
        " small integers (exact)",
        small_ints,
        small_ints,
        true,
        None,
    ));
    // Subnormal inputs and products that underflow: within the bound
    // whether a device keeps or flushes subnormals.
    all.push(case(
        ops,
        10_007,
        9,
        " with subnormals",
        inputs::f32_with_subnormals,
        random,
        false,
        None,
    ));
    all.push(case(
        ops,
        10_007,
        31,
        " underflowing",
        inputs::f32_underflowing,
        inputs::f32_underflowing,
        false,
        None,
    ));
    // NaN and infinities in the signal reach the outputs whose window holds
    // them (+Inf and -Inf in one window: NaN).
    all.push(case(
        ops,
        10_007,
        9,
        " with NaN and Inf",
        inputs::f32_with_nonfinite,
        random,
        false,
        None,
    ));
    all.push(
        case(
            ops,
            100_003,
            9,
            " x10 bit-identical",
            random,
            random,
            false,
            None,
        )
        .repeated(10),
    );
    all.extend(limits_cases());
    all.extend(error_cases());
    all
}

/// Filters with an infinite first or last tap: over the zero border it
/// multiplies a zero, so the outputs there are NaN (0 · Inf), the others
/// ±Inf; a kernel that skipped the border's taps would give finite values.
const INFINITE_TAPS: [(&str, Values); 2] = [
    (" +Inf first tap", |s, n| {
        inputs::f32_with_value_at(s, n, 0, f32::INFINITY)
    }),
    (" -Inf last tap", |s, n| {
        inputs::f32_with_value_at(s, n, n - 1, f32::NEG_INFINITY)
    }),
];

/// The direct sum, forced, beyond what every variant gets: single values,
/// primes, filters longer than the signal, filters past what shared memory
/// holds on a 32 KiB device (about 4 080 taps on lavapipe), and filters the
/// loop budget splits over several launches (16 382 taps a launch on
/// lavapipe: 32 765 taps make three), with random values under the bound,
/// padded buffers, infinite taps over the border and exact sums.
fn direct_cases() -> Vec<Case> {
    let ops = CaseGroup::Ops;
    let direct = Some(Conv1dVariant::Direct);
    let mut all = Vec::new();
    for (len, taps) in [
        (1, 1),
        (1, 3),
        (2, 5),
        (17, 101),
        (10_007, 1),
        (10_007, 20_001),
        (50_021, 8_193),
        (1_027, 32_765),
    ] {
        all.push(case(ops, len, taps, "", random, random, false, direct));
    }
    for (len, taps) in [(1_027, 4_097), (1_027, 32_765)] {
        let name =
            format!("conv1d n={len} taps={taps} NaN past the signal, output kept past n direct");
        let s = seed(&name);
        all.push(Case::new(name, OP, ops, true, move || Padded {
            conv: Conv::new(random(s, len), random(s ^ 1, taps), direct, false),
        }));
    }
    for (label, filter) in INFINITE_TAPS {
        all.push(case(
            ops, 10_007, 8_193, label, random, filter, false, direct,
        ));
    }
    all.push(case(
        ops,
        20_011,
        20_001,
        " small integers (exact)",
        small_ints,
        small_ints,
        true,
        direct,
    ));
    for (len, taps) in [(1, 45), (1_001, 45), (2_053, 257)] {
        let name = format!("conv1d n={len} taps={taps} in chunks of 1, 7, 44 taps direct");
        let s = seed(&name);
        all.push(Case::new(name, OP, ops, true, move || Chunked {
            conv: Conv::new(random(s, len), random(s ^ 1, taps), direct, false),
            chunks: vec![1, 7, 44],
        }));
    }
    all
}

/// `direct` in chunks of at most each of `chunks` taps (more launches than
/// the plan's own, so every later launch's path runs on devices without a
/// loop cap too): the same sums in the same order, so the same bits as the
/// plan's own launches, which are checked against the reference.
struct Chunked {
    conv: Conv,
    chunks: Vec<u64>,
}

impl Chunked {
    fn run_plan(&self, backend: &Arc<dyn Backend>, plan: &Conv1dPlan) -> Result<Vec<f32>> {
        let input = Buffer::from_slice(backend, &self.conv.x)?;
        let filter = Buffer::from_slice(backend, &self.conv.taps)?;
        let out = backend.alloc(plan.spec().signal_bytes()?)?;
        plan.encode(&input, &filter, &out)?;
        out.read(self.conv.x.len())
    }
}

impl Check for Chunked {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let spec = Conv1dSpec {
            len: self.conv.x.len(),
            taps: self.conv.taps.len(),
        };
        let plan = Conv1dPlan::with_variant(ctx.backend, &spec, Conv1dVariant::Direct)?;
        let own = self.run_plan(ctx.backend, &plan)?;
        let v = self.conv.compare(&own);
        if !v.passed() {
            return Ok(v);
        }
        let mut launches = vec![plan.geometry().launches];
        for &chunk in &self.chunks {
            let chunked = Conv1dPlan::direct_in_chunks(ctx.backend, &spec, chunk)?;
            let got = self.run_plan(ctx.backend, &chunked)?;
            launches.push(chunked.geometry().launches);
            if let Some(i) = (0..got.len()).find(|&i| got[i].to_bits() != own[i].to_bits()) {
                return Ok(Verdict::fail(format!(
                    "chunks of {chunk} ({} launches): output {i} is {}, {} in the plan's {} launches",
                    chunked.geometry().launches,
                    got[i],
                    own[i],
                    launches[0]
                )));
            }
        }
        Ok(Verdict::pass(format!(
            "the same bits in {launches:?} launches"
        )))
    }
}

/// The `limits` group: the most taps shared memory holds (and one more,
/// through the direct sum), the direct sum over several launches, long
/// loops with exact sums, more than 65 535 workgroups, more than 2^31
/// elements, and every geometry against the loop budget.
fn limits_cases() -> Vec<Case> {
    let limits = CaseGroup::Limits;
    let mut all = vec![
        Case::new(
            "conv1d taps as many as shared memory holds n=4099 (ones, exact)",
            OP,
            limits,
            true,
            || MaxTaps { over: false },
        ),
        Case::new(
            "conv1d taps one more than shared memory holds runs through direct n=4099 (ones, exact)",
            OP,
            limits,
            true,
            || MaxTaps { over: true },
        ),
        Case::new(
            "conv1d direct over several launches where loops are capped (ones, exact)",
            OP,
            limits,
            true,
            || DirectLaunches,
        ),
    ];
    // Long loops: all-ones signal and filter, so every interior output is
    // the tap count, exactly; dropped iterations (llvmpipe stops loops
    // silently) make them smaller. The larger one is what a grid-stride
    // plan of a few hundred workgroups got wrong on lavapipe.
    for (len, taps, quick) in [
        (65_539, 2_047, true),
        ((1 << 18) + 3, 1_025, false),
        ((1 << 22) + 3, 4_097, false),
    ] {
        let name = name(len, taps, " ones (long loops, exact)", None);
        let flops = 2 * len as u64 * taps as u64;
        all.push(Case::new(name, OP, limits, quick, move || CpuSkip {
            flops,
            inner: Conv::ones(len, taps),
        }));
    }
    all.push(Case::new(
        "conv1d more than 65535 workgroups (items1, exact)",
        OP,
        limits,
        false,
        || ManyGroups,
    ));
    all.push(Case::new(
        "conv1d n=2147483653 taps=3 (past 2^31, exact)",
        OP,
        limits,
        false,
        || Huge { len: (1 << 31) + 5 },
    ));
    all.push(Case::new(
        "conv1d geometries keep every invocation within the loop budget",
        OP,
        limits,
        true,
        || GridBudget,
    ));
    all
}

/// A convolution whose signal buffer holds NaN past the signal and whose
/// output buffer holds a sentinel past it ([`padding`]): a kernel that reads
/// a word at or past n (a vector load across the end, say) turns outputs
/// into NaN, one that writes there changes the sentinel.
struct Padded {
    conv: Conv,
}

impl Check for Padded {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let spec = Conv1dSpec {
            len: self.conv.x.len(),
            taps: self.conv.taps.len(),
        };
        let plan = match self.conv.variant {
            Some(v) => Conv1dPlan::with_variant(backend, &spec, v)?,
            None => Conv1dPlan::new(backend, &spec)?,
        };
        run_padded(backend, &plan, &self.conv)
    }
}

/// Run `plan` on the convolution's values through padded buffers (NaN past
/// the signal, a sentinel past the output) and compare: the sentinel must
/// be kept and the outputs match the reference.
fn run_padded(backend: &Arc<dyn Backend>, plan: &Conv1dPlan, conv: &Conv) -> Result<Verdict> {
    let len = conv.x.len();
    let input = Buffer::from_slice(backend, &padding::nan_padded(&conv.x))?;
    let filter = Buffer::from_slice(backend, &conv.taps)?;
    let out = Buffer::from_slice(backend, &padding::sentinel_output(len))?;
    plan.encode(&input, &filter, &out)?;
    let got: Vec<f32> = out.read(len + padding::PADDING)?;
    if let Some(fail) = padding::sentinel_changed(&got, len) {
        return Ok(fail);
    }
    Ok(conv.compare(&got[..len]))
}

/// A convolution on a grid of three workgroups, over enough tiles that each
/// strides over two or three of them (the kernels' tile loop, which no
/// input reaches on most devices: one workgroup per tile up to
/// `max_groups[0] · max_groups[1]` tiles). A barrier missing at the end of
/// a tile let the next tile's loads overwrite what the last was reading,
/// and no case ran that path.
struct StridedTiles {
    variant: Conv1dVariant,
    seed: u64,
}

impl Check for StridedTiles {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let taps = 9;
        // The tile does not depend on the length: a first plan finds it.
        let probe = Conv1dSpec { len: 1, taps };
        let (_, tile) = Conv1dPlan::with_grid(ctx.backend, &probe, self.variant, 3)?;
        let len = (5 * tile + 7) as usize;
        let spec = Conv1dSpec { len, taps };
        let (plan, _) = Conv1dPlan::with_grid(ctx.backend, &spec, self.variant, 3)?;
        let conv = Conv::new(
            random(self.seed, len),
            random(self.seed ^ 1, taps),
            Some(self.variant),
            false,
        );
        let input = Buffer::from_slice(ctx.backend, &conv.x)?;
        let filter = Buffer::from_slice(ctx.backend, &conv.taps)?;
        let out = ctx.backend.alloc(len as u64 * 4)?;
        plan.encode(&input, &filter, &out)?;
        Ok(conv.compare(&out.read(len)?))
    }
}

/// Skipped on CPU-type devices when the work is over 2^33 flops (tens of
/// seconds on two cores).
struct CpuSkip<C> {
    flops: u64,
    inner: C,
}

impl<C: Check> Check for CpuSkip<C> {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        if ctx.backend.info().caps.device_type.is_cpu() && self.flops > 1 << 33 {
            return Ok(Verdict::skip(format!(
                "{:.1} GFLOP: too slow for a CPU-type device",
                self.flops as f64 * 1e-9
            )));
        }
        self.inner.run(ctx)
    }
}

/// The most taps the device's shared memory (and loop budget) allows the
/// variants that keep the filter on chip, all ones over a signal of ones,
/// checked exactly; or one more, which the plan must run through the direct
/// sum (checked exactly too).
struct MaxTaps {
    over: bool,
}

impl Check for MaxTaps {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let caps = &ctx.backend.info().caps;
        let max = max_taps(caps);
        if max == 0 {
            return Ok(Verdict::fail("not even one tap fits"));
        }
        let len = 4099;
        let taps = if self.over { max + 2 } else { max } as usize;
        let plan = Conv1dPlan::new(ctx.backend, &Conv1dSpec { len, taps })?;
        if plan.variant().direct() != self.over {
            return Ok(Verdict::fail(format!(
                "{taps} taps planned as {}; the variants on chip hold at most {max}, so expected {}",
                plan.variant().name(),
                if self.over { "direct" } else { "one of them" }
            )));
        }
        let conv = Conv::ones(len, taps);
        let got = encode_and_read(ctx.backend, &plan, &conv)?;
        let mut v = conv.compare(&got);
        if v.passed() {
            v.detail = format!(
                "{taps} taps ({}, workgroups of {}, {} loop iterations per invocation, launches: {})",
                plan.variant().name(),
                plan.launch().group_size,
                plan.geometry().loops,
                plan.geometry().launches
            );
        }
        Ok(v)
    }
}

/// Run `plan` on the convolution's signal and taps; the outputs.
fn encode_and_read(backend: &Arc<dyn Backend>, plan: &Conv1dPlan, conv: &Conv) -> Result<Vec<f32>> {
    let input = Buffer::from_slice(backend, &conv.x)?;
    let filter = Buffer::from_slice(backend, &conv.taps)?;
    let out = backend.alloc(plan.spec().signal_bytes()?)?;
    plan.encode(&input, &filter, &out)?;
    out.read(conv.x.len())
}

/// The direct sum of a filter the loop budget splits over at least three
/// launches where the device caps loops (lavapipe: 16 382 taps a launch, so
/// 32 765 taps), over a signal 1 001 values longer: all ones, checked
/// exactly, so every interior output is the tap count and a dropped
/// iteration, a skipped launch or a launch that restarts the sum shows.
/// Where loops are not capped the same filter runs in one launch, checked
/// the same way.
struct DirectLaunches;

impl Check for DirectLaunches {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let caps = &ctx.backend.info().caps;
        let budget = caps.loop_budget();
        // One tile per workgroup here: a launch takes budget − 1 taps.
        let per_launch = budget - 1;
        let taps = if per_launch < 1 << 15 {
            2 * per_launch + 1
        } else {
            32_765
        };
        let len = taps as usize + 1_001;
        let spec = Conv1dSpec {
            len,
            taps: taps as usize,
        };
        let plan = Conv1dPlan::with_variant(ctx.backend, &spec, Conv1dVariant::Direct)?;
        let g = *plan.geometry();
        let expected = taps.div_ceil(per_launch);
        if g.launches != expected || (caps.loop_limit.is_some() && g.launches < 3) {
            return Ok(Verdict::fail(format!(
                "{taps} taps planned as {} launches of {}; expected {expected} (a loop budget of {budget})",
                g.launches, g.chunk
            )));
        }
        let conv = Conv::ones(len, taps as usize);
        let got = encode_and_read(ctx.backend, &plan, &conv)?;
        let mut v = conv.compare(&got);
        if v.passed() {
            v.detail = format!(
                "{taps} taps, launches: {} of at most {} taps ({} loop iterations per invocation)",
                g.launches, g.chunk, g.loops
            );
        }
        Ok(v)
    }
}

/// A filter past what the direct sum takes on a loop-capped device, more
/// than [`MAX_DIRECT_LAUNCHES`] launches' worth: the plan refuses it with
/// `ExceedsLimit` (forced to `direct`, and choosing itself). Where loops are
/// not capped it is one launch, and planned (no data is run).
struct TooManyLaunches;

impl Check for TooManyLaunches {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let caps = &ctx.backend.info().caps;
        let per_launch = caps.loop_budget().saturating_sub(1).max(1);
        let taps = match caps.loop_limit {
            Some(_) => MAX_DIRECT_LAUNCHES * per_launch + 1,
            None => MAX_DIRECT_LAUNCHES * 16_382 + 1,
        };
        let spec = Conv1dSpec {
            len: 4099,
            taps: taps as usize,
        };
        if caps.loop_limit.is_none() {
            let plan = Conv1dPlan::with_variant(ctx.backend, &spec, Conv1dVariant::Direct)?;
            return Ok(match plan.geometry().launches {
                1 => Verdict::pass(format!(
                    "no loop cap: {taps} taps plan as one direct launch"
                )),
                n => Verdict::fail(format!(
                    "no loop cap, yet {taps} taps plan as {n} direct launches"
                )),
            });
        }
        for (how, plan) in [
            (
                "direct",
                Conv1dPlan::with_variant(ctx.backend, &spec, Conv1dVariant::Direct),
            ),
            ("the plan's choice", Conv1dPlan::new(ctx.backend, &spec)),
        ] {
            match plan {
                Err(Error::ExceedsLimit { what, .. }) if what.contains("launches") => {}
                Ok(plan) => {
                    return Ok(Verdict::fail(format!(
                        "{taps} taps accepted ({how}: {}, {} launches)",
                        plan.variant().name(),
                        plan.geometry().launches
                    )))
                }
                Err(e) => {
                    return Ok(Verdict::fail(format!(
                        "{taps} taps ({how}): got '{e}', expected ExceedsLimit on the launches"
                    )))
                }
            }
        }
        Ok(Verdict::pass(format!(
            "{taps} taps refused: more than {MAX_DIRECT_LAUNCHES} launches of {per_launch}"
        )))
    }
}

/// x[i] = i mod 251, for signals generated on the fly.
fn ramp(i: u64) -> f32 {
    (i % 251) as f32
}

/// Taps [1, 2, 3] over the ramp: out[i] = x[i−1] + 2·x[i] + 3·x[i+1], zero
/// outside, exact (at most 1500).
fn ramp_output(i: u64, len: u64) -> f32 {
    let at = |j: Option<u64>| j.filter(|&j| j < len).map_or(0.0, ramp);
    at(i.checked_sub(1)) + 2.0 * at(Some(i)) + 3.0 * at(Some(i + 1))
}

const RAMP_TAPS: [f32; 3] = [1.0, 2.0, 3.0];

/// More tiles than 65 535: the smallest tiles (`items1`) over a signal of
/// 65 536 tiles and a bit, so the grid needs a second axis where the device
/// allows 65 535 groups per axis.
struct ManyGroups;

impl Check for ManyGroups {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let gs = preferred_group_size(&ctx.backend.info().caps) as usize;
        let len = 65_536 * gs + 3;
        let spec = Conv1dSpec { len, taps: 3 };
        let plan = Conv1dPlan::with_variant(ctx.backend, &spec, Conv1dVariant::Items1)?;
        let x: Vec<f32> = (0..len as u64).into_par_iter().map(ramp).collect();
        let input = Buffer::from_slice(ctx.backend, &x)?;
        drop(x);
        let filter = Buffer::from_slice(ctx.backend, &RAMP_TAPS)?;
        let out = ctx.backend.alloc(spec.signal_bytes()?)?;
        plan.encode(&input, &filter, &out)?;
        let got: Vec<f32> = out.read(len)?;
        let mut v = compare_generated(&got, 0, len as u64);
        if v.passed() {
            v.detail = format!(
                "{} tiles on a grid of {:?}",
                plan.geometry().tiles,
                plan.launch().groups
            );
        }
        Ok(v)
    }
}

/// Compare outputs `from..` of the ramp convolution exactly.
fn compare_generated(got: &[f32], from: u64, len: u64) -> Verdict {
    let wrong = got
        .par_iter()
        .enumerate()
        .filter(|&(i, &g)| g != ramp_output(from + i as u64, len))
        .map(|(i, _)| i)
        .min();
    let mut v = match wrong {
        None => Verdict::pass(""),
        Some(i) => Verdict::fail(format!(
            "output {}: got {}, expected {}",
            from + i as u64,
            got[i],
            ramp_output(from + i as u64, len)
        )),
    };
    v.fingerprint = crate::op::fingerprint(&got[..got.len().min(1 << 16)]);
    v
}

/// More than 2^31 elements: u32 index arithmetic in every language. The
/// signal is generated and checked in chunks; GPUs with room only.
struct Huge {
    len: u64,
}

impl Check for Huge {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let caps = &backend.info().caps;
        let bytes = self.len * 4;
        if caps.device_type.is_cpu() {
            return Ok(Verdict::skip(format!(
                "{} elements ({} GiB in and out) are too slow for a CPU-type device",
                self.len,
                (2 * bytes) >> 30
            )));
        }
        if bytes > caps.max_buffer_bytes {
            return Ok(Verdict::skip(format!(
                "needs buffers of {bytes} bytes; the device allows {}",
                caps.max_buffer_bytes
            )));
        }
        if caps.memory_bytes > 0 && 2 * bytes + (bytes >> 2) > caps.memory_bytes {
            return Ok(Verdict::skip(format!(
                "needs {} MiB; the device has {} MiB",
                (2 * bytes) >> 20,
                caps.memory_bytes >> 20
            )));
        }
        let spec = Conv1dSpec {
            len: self.len as usize,
            taps: 3,
        };
        let plan = Conv1dPlan::new(backend, &spec)?;
        let input = backend.alloc(bytes)?;
        const CHUNK: u64 = 1 << 24;
        for start in (0..self.len).step_by(CHUNK as usize) {
            let end = (start + CHUNK).min(self.len);
            let x: Vec<f32> = (start..end).into_par_iter().map(ramp).collect();
            backend.write(&input, start * 4, bytemuck::cast_slice(&x))?;
        }
        let filter = Buffer::from_slice(backend, &RAMP_TAPS)?;
        let out = backend.alloc(bytes)?;
        plan.encode(&input, &filter, &out)?;
        drop(input);
        read_and_compare(backend, &out, self.len)
    }
}

/// Read `len` outputs in chunks and compare them with the ramp convolution.
fn read_and_compare(backend: &Arc<dyn Backend>, out: &Buffer, len: u64) -> Result<Verdict> {
    const CHUNK: u64 = 1 << 24;
    let mut got = vec![0f32; CHUNK as usize];
    for start in (0..len).step_by(CHUNK as usize) {
        let end = (start + CHUNK).min(len);
        let chunk = &mut got[..(end - start) as usize];
        // Whole words: f32 outputs.
        backend.read(out, start * 4, bytemuck::cast_slice_mut(chunk))?;
        let v = compare_generated(chunk, start, len);
        if !v.passed() {
            return Ok(v);
        }
    }
    Ok(Verdict::pass(format!("{len} outputs")))
}

/// Loop iterations of one invocation, counted from the kernels' loops as
/// written (independently of the plan's own count): the taps load, and per
/// tile the tile loop, the halo load, the taps × items products, the
/// accumulators' set-up and stores.
fn kernel_loops(taps: u64, items: u64, group_size: u64, tiles_per_group: u64) -> u64 {
    let tile = group_size * items;
    let per_tile = 1 + (tile + taps - 1).div_ceil(group_size) + taps * items + 2 * items;
    taps.div_ceil(group_size) + tiles_per_group * per_tile
}

/// Loop iterations of one invocation of the window kernel, counted from its
/// loops as written: the taps load, and per tile the tile loop and per
/// vector the word-by-word window (the border's, longer than the vector
/// load), the taps × 4 products and the four stores.
fn window_kernel_loops(taps: u64, items: u64, tiles_per_group: u64) -> u64 {
    let halo = (taps / 2).div_ceil(4);
    let per_vector = 1 + 4 * (2 * halo + 1) + taps * 4 + 4;
    taps + tiles_per_group * (1 + items / 4 * per_vector)
}

/// Loop iterations of one invocation of the direct kernel in the launch of
/// taps `[begin, end)`, counted from its loops as written: per tile the tile
/// loop and the chunk's taps.
fn direct_kernel_loops(begin: u64, end: u64, tiles_per_group: u64) -> u64 {
    tiles_per_group * (1 + (end - begin))
}

/// Every plan's geometry within the device's loop budget, for signals up to
/// 2^32 − 1 and filters up to the most shared memory holds and, for the
/// direct sum, past it up to more launches than it takes: every launch of
/// its chunks, which must cover the filter in order (no data: the geometry
/// only).
struct GridBudget;

impl Check for GridBudget {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let caps = &ctx.backend.info().caps;
        let most = max_taps(caps) as usize;
        let per_launch = caps.loop_budget().saturating_sub(1).clamp(1, 1 << 20);
        let past = (MAX_DIRECT_LAUNCHES * per_launch + 1) as usize;
        let mut audit = GeometryAudit::new(caps);
        for len in [
            1usize,
            4099,
            1 << 24,
            (1 << 26) + 3,
            (1 << 31) + 5,
            u32::MAX as usize - (1 << 20),
        ] {
            for taps in [1usize, 9, 257, 4097, most, most + 2, 32_765, past] {
                for v in Conv1dVariant::ALL {
                    let spec = Conv1dSpec { len, taps };
                    let g = match geometry(caps, &spec, v) {
                        Ok(g) => g,
                        // Refused is fine (typed, before running).
                        Err(Error::ExceedsLimit { .. }) => continue,
                        Err(e) => return Err(e),
                    };
                    let total = g.total_groups();
                    let what = || format!("n={len} taps={taps} ({})", v.name());
                    if v.direct() {
                        let per_group = g.tiles.div_ceil(total);
                        let mut next = 0;
                        for (begin, end) in g.chunks(taps as u64) {
                            if begin != next || end <= begin {
                                return Ok(Verdict::fail(format!(
                                    "{}: chunk [{begin}, {end}) after {next}",
                                    what()
                                )));
                            }
                            next = end;
                            let loops = direct_kernel_loops(begin, end, per_group);
                            debug_assert!(loops <= g.loops);
                            if let Some(fail) = audit.check(what, loops, g.groups) {
                                return Ok(fail);
                            }
                        }
                        if next != taps as u64 {
                            return Ok(Verdict::fail(format!(
                                "{}: the chunks end at tap {next}",
                                what()
                            )));
                        }
                        continue;
                    }
                    let loops = if v.window() {
                        window_kernel_loops(
                            taps as u64,
                            u64::from(g.items),
                            g.tiles.div_ceil(total),
                        )
                    } else {
                        kernel_loops(
                            taps as u64,
                            u64::from(g.items),
                            u64::from(g.group_size),
                            g.tiles.div_ceil(total),
                        )
                    };
                    debug_assert_eq!(loops, g.loops);
                    if let Some(fail) = audit.check(what, loops, g.groups) {
                        return Ok(fail);
                    }
                }
            }
        }
        Ok(audit.verdict())
    }
}

fn vector(v: Vec<f32>) -> HostArray {
    HostArray::vector(ArrayData::F32(v))
}

/// `rosetta run conv1d` with these arrays.
fn cli(ctx: &Context<'_>, signal: HostArray, taps: HostArray) -> Result<()> {
    super::cli::run(ctx.backend, &Options::default(), vec![signal, taps]).map(drop)
}

/// A plan for `len` outputs and `taps` taps, encoded with buffers of the
/// given lengths (f32 values).
fn encode_with(ctx: &Context<'_>, len: usize, taps: usize, sizes: [u64; 3]) -> Result<()> {
    let plan = Conv1dPlan::new(ctx.backend, &Conv1dSpec { len, taps })?;
    let [x, w, out] = sizes.map(|n| ctx.backend.alloc(n * 4));
    plan.encode(&x?, &w?, &out?)
}

fn error_cases() -> Vec<Case> {
    let rejects = |name: &str, expected, call, is_expected| {
        Case::new(
            format!("conv1d rejects {name}"),
            OP,
            CaseGroup::Errors,
            true,
            move || Rejects {
                expected,
                call,
                is_expected,
            },
        )
    };
    let shape = |e: &Error| matches!(e, Error::ShapeMismatch(_));
    let filter = |e: &Error| matches!(e, Error::InvalidFilter(_));
    let limit = |e: &Error| matches!(e, Error::ExceedsLimit { .. });
    vec![
        rejects(
            "an even filter",
            "InvalidFilter",
            |ctx| conv1d_f32(ctx.backend, &[1.0; 8], &[1.0, 2.0]).map(drop),
            filter,
        ),
        rejects(
            "an empty filter",
            "InvalidFilter",
            |ctx| conv1d_f32(ctx.backend, &[1.0; 8], &[]).map(drop),
            filter,
        ),
        // Issue 10: `rosetta run conv1d` flattened a 2-D signal silently.
        rejects(
            "a 2-D signal (run)",
            "ShapeMismatch",
            |ctx| {
                let matrix = HostArray::new(vec![4, 4], ArrayData::F32(vec![1.0; 16]))?;
                cli(ctx, matrix, vector(vec![1.0; 3]))
            },
            shape,
        ),
        rejects(
            "a 2-D filter (run)",
            "ShapeMismatch",
            |ctx| {
                let matrix = HostArray::new(vec![1, 3], ArrayData::F32(vec![1.0; 3]))?;
                cli(ctx, vector(vec![1.0; 16]), matrix)
            },
            shape,
        ),
        rejects(
            "a uint8 signal (run)",
            "InvalidArgument",
            |ctx| {
                cli(
                    ctx,
                    HostArray::vector(ArrayData::U8(vec![1; 8])),
                    vector(vec![1.0]),
                )
            },
            |e| matches!(e, Error::InvalidArgument(_)),
        ),
        rejects(
            "a signal longer than a u32 counts",
            "ExceedsLimit",
            |ctx| {
                Conv1dPlan::new(
                    ctx.backend,
                    &Conv1dSpec {
                        len: 1 << 32,
                        taps: 3,
                    },
                )
                .map(drop)
            },
            limit,
        ),
        rejects(
            "more taps than a u32 counts",
            "ExceedsLimit",
            |ctx| {
                Conv1dPlan::new(
                    ctx.backend,
                    &Conv1dSpec {
                        len: 8,
                        taps: (1 << 32) + 1,
                    },
                )
                .map(drop)
            },
            limit,
        ),
        rejects(
            "more taps than a register window holds (window4)",
            "ExceedsLimit",
            |ctx| {
                let spec = Conv1dSpec {
                    len: 100,
                    taps: MAX_WINDOW_TAPS as usize + 2,
                };
                Conv1dPlan::with_variant(ctx.backend, &spec, Conv1dVariant::Window4).map(drop)
            },
            limit,
        ),
        Case::new(
            "conv1d direct refuses more launches than it takes where loops are capped",
            OP,
            CaseGroup::Errors,
            true,
            || TooManyLaunches,
        ),
        rejects(
            "a signal buffer shorter than its length",
            "ShapeMismatch",
            |ctx| encode_with(ctx, 1000, 3, [999, 3, 1000]),
            shape,
        ),
        rejects(
            "a taps buffer shorter than the filter",
            "ShapeMismatch",
            |ctx| encode_with(ctx, 1000, 9, [1000, 8, 1000]),
            shape,
        ),
        rejects(
            "an output buffer shorter than the signal",
            "ShapeMismatch",
            |ctx| encode_with(ctx, 1000, 3, [1000, 3, 999]),
            shape,
        ),
    ]
}

/// The longest filter a random case draws for `direct` (and the plan's own
/// choice, which runs such filters through it): eight launches of
/// lavapipe's 16 382 taps, past the three the fixed cases split into;
/// longer ones only add launches.
const DRAWN_DIRECT_TAPS: usize = 1 << 17;

/// The most launches a drawn chunk size gives `direct` (each a launch on
/// every device: a case stays fast).
const DRAWN_CHUNK_LAUNCHES: usize = 64;

/// How a drawn case plans its convolution: every way the fixed cases force
/// one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// The plan's own choice (tuned, or the device's default order).
    Own,
    /// A variant, forced.
    Forced(Conv1dVariant),
    /// A variant on a grid of at most this many workgroups, which then
    /// stride over the tiles ([`Conv1dPlan::with_grid`]).
    Grid(Conv1dVariant, u32),
    /// `direct` in chunks of at most this many taps, compared bit for bit
    /// with the plan's own launches ([`Chunked`]).
    Chunks(u64),
}

impl How {
    /// The variant it forces, if any.
    fn variant(self) -> Option<Conv1dVariant> {
        match self {
            How::Own => None,
            How::Forced(v) | How::Grid(v, _) => Some(v),
            How::Chunks(_) => Some(Conv1dVariant::Direct),
        }
    }
}

/// The values of a drawn case: each kind a fixed case checks, with its
/// label in case names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Uniform in [-1, 1), under the bound.
    Random,
    /// Integers −4..=4, exactly.
    SmallInts,
    /// A quarter of the signal subnormal, under the bound.
    Subnormals,
    /// Signal and taps whose products underflow, under the bound.
    Underflowing,
    /// A NaN, a +Inf and a −Inf in the signal.
    NonFinite,
    /// +Inf as the first tap (NaN over the zero border).
    InfFirstTap,
    /// −Inf as the last tap.
    InfLastTap,
}

impl Kind {
    const ALL: [Kind; 7] = [
        Kind::Random,
        Kind::SmallInts,
        Kind::Subnormals,
        Kind::Underflowing,
        Kind::NonFinite,
        Kind::InfFirstTap,
        Kind::InfLastTap,
    ];

    /// Draw a kind: random values three times in ten, small integers two,
    /// each other kind one (the infinite taps make every output ±Inf or
    /// NaN, so they check the border's terms and nothing else).
    fn draw(draw: &mut Draw) -> Kind {
        const WEIGHTS: [usize; 7] = [3, 2, 1, 1, 1, 1, 1];
        let mut at = draw.below(WEIGHTS.iter().sum());
        let mut i = 0;
        while at >= WEIGHTS[i] {
            at -= WEIGHTS[i];
            i += 1;
        }
        Kind::ALL[i]
    }

    /// The generators of the signal and the taps, and whether the sums are
    /// exact.
    fn values(self) -> (Values, Values, bool) {
        match self {
            Kind::Random => (random, random, false),
            Kind::SmallInts => (small_ints, small_ints, true),
            Kind::Subnormals => (inputs::f32_with_subnormals, random, false),
            Kind::Underflowing => (inputs::f32_underflowing, inputs::f32_underflowing, false),
            Kind::NonFinite => (inputs::f32_with_nonfinite, random, false),
            Kind::InfFirstTap => (random, INFINITE_TAPS[0].1, false),
            Kind::InfLastTap => (random, INFINITE_TAPS[1].1, false),
        }
    }

    /// What case names say of it (as the fixed cases do).
    fn label(self) -> &'static str {
        match self {
            Kind::Random => "",
            Kind::SmallInts => " small integers (exact)",
            Kind::Subnormals => " with subnormals",
            Kind::Underflowing => " underflowing",
            Kind::NonFinite => " with NaN and Inf",
            Kind::InfFirstTap => INFINITE_TAPS[0].0,
            Kind::InfLastTap => INFINITE_TAPS[1].0,
        }
    }
}

/// Everything a random case drew, before anything is made.
#[derive(Debug, Clone, PartialEq)]
struct Drawn {
    len: usize,
    taps: usize,
    how: How,
    kind: Kind,
    /// NaN past the signal, a sentinel past the output ([`padding`]).
    padded: bool,
    /// Seeds the signal (and, xor 1, the taps).
    seed: u64,
}

/// Whether a `len`-long signal under `taps` taps planned `how` fits `caps`
/// (the plan's own choice: `direct`, which takes what no other does).
fn fits(caps: &Capabilities, how: How, len: usize, taps: usize) -> bool {
    let spec = Conv1dSpec { len, taps };
    match how {
        How::Own | How::Chunks(_) => geometry(caps, &spec, Conv1dVariant::Direct).is_ok(),
        How::Forced(v) => geometry(caps, &spec, v).is_ok(),
        How::Grid(v, groups) => {
            let mut capped = caps.clone();
            capped.max_groups = [groups, 1, 1];
            geometry(&capped, &spec, v).is_ok()
        }
    }
}

impl Drawn {
    /// Draw a case: the variant (the plan's own choice or one forced, each
    /// equally likely; a forced one a quarter of the time on a grid of 1 to
    /// 5 workgroups, and `direct` a quarter of the time in drawn chunks),
    /// the values ([`Kind::draw`]), the taps (1 a tenth of the time, else
    /// odd up to what the variant takes on the least device), the length
    /// (up to [`random::MAX_LEN`], what the taps leave of
    /// [`random::MAX_WORK`] and the loop budget; shorter than the filter a
    /// sixth of the time, around the capped grid's tiles half the time) and
    /// padded buffers (a third of the time).
    fn draw(draw: &mut Draw) -> Drawn {
        let caps = least_device();
        let variant = Conv1dVariant::ALL
            .get(draw.below(Conv1dVariant::ALL.len() + 1))
            .copied();
        let mut how = match variant {
            None => How::Own,
            Some(v) if v.direct() && draw.chance(25) => How::Chunks(1),
            Some(v) if draw.chance(25) => How::Grid(v, draw.between(1, 5) as u32),
            Some(v) => How::Forced(v),
        };
        let kind = Kind::draw(draw);
        let longest = match how.variant() {
            Some(v) if !v.direct() => random::MAX_WORK,
            _ => DRAWN_DIRECT_TAPS,
        };
        let most_taps = largest_odd(longest, |taps| fits(&caps, how, 1, taps));
        let taps = if draw.chance(10) {
            1
        } else {
            draw.odd(most_taps)
        };
        let most_len = largest(1, random::MAX_LEN.min(random::MAX_WORK / taps), |len| {
            fits(&caps, how, len, taps)
        });
        let len = match how {
            _ if taps > 1 && draw.chance(17) => draw.length(most_len.min(taps - 1)),
            How::Grid(v, groups) if draw.chance(50) => {
                // Around the tiles the grid strides over: 1 to 3 per group.
                let g = geometry(&caps, &Conv1dSpec { len: 1, taps }, v)
                    .expect("the taps fit a one-tile signal");
                let tile = (g.group_size * g.items) as usize;
                let tiles = draw.between(1, 3 * groups as usize);
                (tile * tiles + draw.between(0, 2))
                    .saturating_sub(1)
                    .clamp(1, most_len)
            }
            _ => draw.length(most_len),
        };
        if let How::Chunks(_) = how {
            let fewest = taps.div_ceil(DRAWN_CHUNK_LAUNCHES);
            how = How::Chunks(draw.length(taps).max(fewest) as u64);
        }
        let padded = !matches!(how, How::Chunks(_)) && draw.chance(33);
        Drawn {
            len,
            taps,
            how,
            kind,
            padded,
            seed: draw.seed(),
        }
    }

    /// The case's name: the shape, the values and how it is planned.
    fn name(&self) -> String {
        let mut name = name(self.len, self.taps, self.kind.label(), self.how.variant());
        match self.how {
            How::Own => name.push_str(" (the plan's choice)"),
            How::Forced(_) => {}
            How::Grid(_, 1) => name.push_str(" on 1 workgroup"),
            How::Grid(_, groups) => name.push_str(&format!(" on {groups} workgroups")),
            How::Chunks(chunk) => name.push_str(&format!(" in chunks of {chunk} taps")),
        }
        if self.padded {
            name.push_str(", NaN past the signal, output kept past n");
        }
        name
    }

    /// The case (inputs are made when it is prepared).
    fn case(self) -> Case {
        Case::new(self.name(), OP, CaseGroup::Random, true, move || {
            let (signal, filter, exact) = self.kind.values();
            let conv = Conv::new(
                signal(self.seed, self.len),
                filter(self.seed ^ 1, self.taps),
                self.how.variant(),
                exact,
            );
            match self.how {
                How::Chunks(chunk) => Either::Chunked(Chunked {
                    conv,
                    chunks: vec![chunk],
                }),
                How::Grid(_, groups) => Either::Through(Through {
                    conv,
                    grid: Some(groups),
                    padded: self.padded,
                }),
                How::Own | How::Forced(_) => Either::Through(Through {
                    conv,
                    grid: None,
                    padded: self.padded,
                }),
            }
        })
    }
}

/// The check of a drawn case.
enum Either {
    Through(Through),
    Chunked(Chunked),
}

impl Check for Either {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        match self {
            Either::Through(check) => check.run(ctx),
            Either::Chunked(check) => check.run(ctx),
        }
    }
}

/// A convolution through the plan its case drew (the plan's own choice, a
/// forced variant, or one on a grid of `grid` workgroups) and through
/// buffers of just the data or padded ones.
struct Through {
    conv: Conv,
    grid: Option<u32>,
    padded: bool,
}

impl Check for Through {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let spec = Conv1dSpec {
            len: self.conv.x.len(),
            taps: self.conv.taps.len(),
        };
        let plan = match (self.conv.variant, self.grid) {
            (Some(v), Some(groups)) => Conv1dPlan::with_grid(backend, &spec, v, groups)?.0,
            (Some(v), None) => Conv1dPlan::with_variant(backend, &spec, v)?,
            (None, _) => Conv1dPlan::new(backend, &spec)?,
        };
        if self.padded {
            return run_padded(backend, &plan, &self.conv);
        }
        Ok(self
            .conv
            .compare(&encode_and_read(backend, &plan, &self.conv)?))
    }
}

/// A case of the `random` group (see [`crate::op::Op::random_case`]).
pub(super) fn drawn_case(draw: &mut Draw) -> Case {
    Drawn::draw(draw).case()
}

#[cfg(test)]
mod tests {
    use super::super::plan::default_variant;
    use super::*;
    use crate::op::test_device;
    use rosetta_core::Api;

    fn draws(seed: u64, count: u64) -> Vec<Drawn> {
        crate::op::random::testing::draws(OP, seed, count, Drawn::draw)
    }

    /// Whether the plan a drawn case makes takes its shape on `caps`, asked
    /// the way each plan asks (not through [`fits`]).
    fn planned_on(caps: &Capabilities, d: &Drawn) -> bool {
        let spec = Conv1dSpec {
            len: d.len,
            taps: d.taps,
        };
        match d.how {
            How::Own => default_variant(&test_device(Api::Vulkan, caps.clone()), &spec).is_some(),
            How::Forced(v) => geometry(caps, &spec, v).is_ok(),
            How::Grid(v, groups) => {
                let mut capped = caps.clone();
                capped.max_groups[0] = capped.max_groups[0].min(groups);
                capped.max_groups[1] = 1;
                geometry(&capped, &spec, v).is_ok()
            }
            // Chunks of at most `chunk` taps and of at most the budget's:
            // as many launches as the more of the two counts.
            How::Chunks(chunk) => {
                d.taps.div_ceil(chunk as usize) <= MAX_DIRECT_LAUNCHES as usize
                    && geometry(caps, &spec, Conv1dVariant::Direct).is_ok()
            }
        }
    }

    #[test]
    fn drawn_shapes_stay_within_the_limits_and_fit_every_device() {
        for d in draws(11, 3000) {
            let name = d.name();
            assert!((1..=random::MAX_LEN).contains(&d.len), "{name}");
            assert!(d.len * d.taps <= random::MAX_WORK, "{name}");
            assert!(d.taps % 2 == 1, "{name}");
            if let How::Chunks(chunk) = d.how {
                assert!(chunk >= 1, "{name}");
                assert!(
                    d.taps.div_ceil(chunk as usize) <= DRAWN_CHUNK_LAUNCHES,
                    "{name}"
                );
                assert!(!d.padded, "{name}");
            }
            if matches!(
                d.how,
                How::Own | How::Chunks(_) | How::Forced(Conv1dVariant::Direct)
            ) {
                assert!(d.taps <= DRAWN_DIRECT_TAPS, "{name}");
            }
            for caps in random::testing::devices() {
                assert!(planned_on(&caps, &d), "{name} on {caps:?}");
            }
        }
    }

    #[test]
    fn draws_cover_every_variant_value_kind_and_edge() {
        let drawn = draws(3, 800);
        let any = |f: &dyn Fn(&Drawn) -> bool| drawn.iter().any(f);
        assert!(any(&|d| d.how == How::Own));
        for v in Conv1dVariant::ALL {
            assert!(any(&|d| d.how == How::Forced(v)), "{v:?}");
            assert!(
                any(&|d| matches!(d.how, How::Grid(g, _) if g == v)),
                "{v:?}"
            );
        }
        for groups in 1..=5 {
            assert!(any(&|d| matches!(d.how, How::Grid(_, g) if g == groups)));
        }
        // A grid strided: more tiles (of the least device) than workgroups.
        assert!(any(&|d| match d.how {
            How::Grid(v, groups) => {
                let spec = Conv1dSpec {
                    len: d.len,
                    taps: d.taps,
                };
                geometry(&least_device(), &spec, v).unwrap().tiles >= 2 * u64::from(groups)
            }
            _ => false,
        }));
        assert!(any(
            &|d| matches!(d.how, How::Chunks(c) if d.taps.div_ceil(c as usize) > 2)
        ));
        for kind in Kind::ALL {
            assert!(any(&|d| d.kind == kind), "{kind:?}");
        }
        assert!(any(&|d| d.padded) && any(&|d| !d.padded));
        assert!(any(&|d| d.taps == 1));
        assert!(any(&|d| d.taps > d.len));
        // The longest filters each kind of variant takes, and then some.
        let longest = |pick: &dyn Fn(Conv1dVariant) -> bool| {
            drawn
                .iter()
                .filter(|d| d.how.variant().is_some_and(pick))
                .map(|d| d.taps)
                .max()
                .unwrap()
        };
        assert_eq!(longest(&|v| v.window()), MAX_WINDOW_TAPS as usize);
        assert!(longest(&|v| !v.window() && !v.direct()) > 1000);
        assert!(longest(&|v| v.direct()) > 2 * 16_382);
        // Lengths at and around powers of two past a tile, and long ones.
        for around in [-1i64, 0, 1] {
            assert!(any(&|d| {
                let n = d.len as i64 - around;
                n >= 256 && (n as u64).is_power_of_two()
            }));
        }
        assert!(any(&|d| d.len > random::MAX_LEN / 2));
    }

    #[test]
    fn draws_repeat_for_a_seed_and_name_what_they_drew() {
        assert_eq!(draws(5, 50), draws(5, 50));
        assert_ne!(draws(5, 50), draws(6, 50));
        let d = Drawn {
            len: 1027,
            taps: 33,
            how: How::Grid(Conv1dVariant::Window8, 3),
            kind: Kind::SmallInts,
            padded: true,
            seed: 1,
        };
        assert_eq!(
            d.name(),
            "conv1d n=1027 taps=33 small integers (exact) window8 on 3 workgroups, NaN past the signal, output kept past n"
        );
        let own = Drawn {
            how: How::Own,
            padded: false,
            ..d.clone()
        };
        assert!(
            own.name().ends_with("(exact) (the plan's choice)"),
            "{}",
            own.name()
        );
        let chunks = Drawn {
            how: How::Chunks(7),
            padded: false,
            ..d
        };
        assert!(chunks.name().ends_with("direct in chunks of 7 taps"));
    }

    #[test]
    fn drawn_cases_pass_on_the_cpu_backend() {
        let verdicts = random::testing::drawn_on_cpu(OP, 1, 24, drawn_case);
        let failed = random::testing::not_passed(&verdicts);
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }
}
