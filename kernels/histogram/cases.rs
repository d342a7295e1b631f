//! Histogram's conformance cases. Inputs are seeded by the case name; counts
//! are compared exactly, so dropped or repeated work always shows.

use super::plan::{
    histogram_bytes, histogram_f32, histogram_u32, histogram_u8, workgroups, HistogramPlan,
    HistogramVariant,
};
use super::spec::{
    count_f32, count_u32, count_u8, histogram_edges, search_steps, HistogramInput, HistogramSpec,
    U8_BINS,
};
use crate::op::random::{self, Draw};
use crate::op::{
    compare_exact, padding, preferred_group_size, seed, Case, CaseGroup, Check, Context,
    GeometryAudit, Verdict,
};
use rayon::prelude::*;
use rosetta_core::{inputs, Buffer, Capabilities, Error, Result};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Largest input of the `--quick` subset (values).
const QUICK_MAX: usize = 70_000;

/// Values as the host holds them: u32 / f32 words, or u8 bytes.
enum Data {
    Words(Vec<u32>),
    Bytes(Vec<u8>),
}

impl Data {
    fn bytes(&self) -> &[u8] {
        match self {
            Data::Words(w) => bytemuck::cast_slice(w),
            Data::Bytes(b) => b,
        }
    }
}

/// A seeded input generator: `(seed, len) -> values`.
type Values = Arc<dyn Fn(u64, usize) -> Data + Send + Sync>;

const OPS: &str = "histogram";

fn words(words: Vec<u32>) -> Data {
    Data::Words(words)
}

/// The host reference for the first `spec.len` values.
fn reference(data: &Data, spec: &HistogramSpec) -> Vec<u32> {
    match (data, spec.input) {
        (Data::Bytes(b), _) => count_u8(&b[..spec.len], spec.bins),
        (Data::Words(w), HistogramInput::F32 { lo, hi }) => {
            count_f32(bytemuck::cast_slice(&w[..spec.len]), spec.bins, lo, hi)
        }
        (Data::Words(w), _) => count_u32(&w[..spec.len], spec.bins),
    }
}

/// Counts of prepared values against the reference.
struct Counts {
    data: Data,
    spec: HistogramSpec,
    variant: Option<HistogramVariant>,
    expected: Vec<u32>,
    /// Counts into a buffer longer than the bins, every word [`padding::SENTINEL`]
    /// first: the plan zeroes the whole buffer and counts into the first
    /// `bins` words only, so the words past them must read 0.
    padded: bool,
}

impl Check for Counts {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        if !self.padded {
            let got = histogram_bytes(ctx.backend, self.data.bytes(), &self.spec, self.variant)?;
            return Ok(compare_exact(&got, &self.expected));
        }
        let plan = match self.variant {
            Some(v) => HistogramPlan::with_variant(ctx.backend, &self.spec, v)?,
            None => HistogramPlan::new(ctx.backend, &self.spec)?,
        };
        let bins = self.spec.bins as usize;
        let values = Buffer::from_slice(ctx.backend, self.data.bytes())?;
        let counts = Buffer::from_slice(ctx.backend, &padding::sentinel_output(bins))?;
        plan.encode(&values, &counts)?;
        let got: Vec<u32> = counts.read(bins + padding::PADDING)?;
        let mut expected = self.expected.clone();
        expected.extend([0; padding::PADDING]);
        Ok(compare_exact(&got, &expected))
    }
}

fn name(spec: &HistogramSpec, label: &str, variant: Option<HistogramVariant>) -> String {
    let variant = variant
        .map(|v| format!(" {}", v.name()))
        .unwrap_or_default();
    format!(
        "histogram {} bins={} n={}{label}{variant}",
        spec.input, spec.bins, spec.len
    )
}

/// A case counting `values(seed, len)`; the bytes may run past the `len`
/// values (the kernel must not count them).
fn case(
    group: CaseGroup,
    spec: HistogramSpec,
    label: &str,
    variant: Option<HistogramVariant>,
    values: Values,
) -> Case {
    let name = name(&spec, label, variant);
    let s = seed(&name);
    Case::new(name, OPS, group, spec.len <= QUICK_MAX, move || {
        let data = values(s, spec.len);
        let expected = reference(&data, &spec);
        Counts {
            data,
            spec,
            variant,
            expected,
            padded: false,
        }
    })
}

fn u32_spec(len: usize, bins: u32) -> HistogramSpec {
    HistogramSpec {
        input: HistogramInput::U32,
        len,
        bins,
    }
}

fn u8_spec(len: usize, bins: u32) -> HistogramSpec {
    HistogramSpec {
        input: HistogramInput::U8,
        len,
        bins,
    }
}

fn f32_spec(len: usize, bins: u32, lo: f64, hi: f64) -> HistogramSpec {
    HistogramSpec {
        input: HistogramInput::F32 { lo, hi },
        len,
        bins,
    }
}

/// u32 values uniform below `bins`.
fn uniform(bins: u32) -> Values {
    Arc::new(move |s, n| words(inputs::u32_below(s, n, bins)))
}

/// u8 values uniform below `below`.
fn bytes_below(below: u32) -> Values {
    Arc::new(move |s, n| {
        Data::Bytes(
            inputs::u32_below(s, n, below)
                .into_iter()
                .map(|v| v as u8)
                .collect(),
        )
    })
}

/// Runs of equal values (lengths 1 to 24, so some 4-word vectors are all one
/// value, some words are four equal bytes, and many are neither): the
/// kernels' one-atomic paths for equal values, and their edges.
fn runs(bins: u32, bytes: bool) -> Values {
    Arc::new(move |s, n| {
        let mut out = Vec::with_capacity(n);
        let mut run = 0u64;
        while out.len() < n {
            let r = inputs::bits(s, run);
            let len = (r % 24 + 1) as usize;
            let value = ((r >> 32) % u64::from(bins)) as u32;
            out.extend(std::iter::repeat_n(value, len.min(n - out.len())));
            run += 1;
        }
        if bytes {
            Data::Bytes(out.into_iter().map(|v| v as u8).collect())
        } else {
            words(out)
        }
    })
}

/// f32 values for a range: every edge exactly and the floats either side of
/// it (where an f32 first guess is most often off by one), both ends, NaN,
/// −0 and +0 (which count alike, in one bin: a kernel that ordered −0 below
/// +0 dropped them from a range starting at 0, and no case saw it), and
/// uniform values over the range and a quarter beyond each end (within the
/// finite floats).
fn edge_values(lo: f64, hi: f64, bins: u32) -> Values {
    Arc::new(move |s, n| {
        let edges = histogram_edges(lo, hi, bins);
        let max = f64::from(f32::MAX);
        let from = (lo - 0.25 * (hi - lo)).max(-max);
        let to = (hi + 0.25 * (hi - lo)).min(max);
        let x: Vec<f32> = (0..n)
            .map(|i| {
                let edge = edges[(i / 50) % edges.len()];
                match i % 50 {
                    0 => edge,
                    1 => edge.next_up(),
                    2 => edge.next_down(),
                    3 => f32::NAN,
                    4 => hi as f32,
                    5 => lo as f32,
                    6 => -0.0,
                    7 => 0.0,
                    _ => {
                        let unit = (inputs::bits(s, i as u64) >> 11) as f64 / (1u64 << 53) as f64;
                        (from + (to - from) * unit) as f32
                    }
                }
            })
            .collect();
        Data::Words(bytemuck::cast_vec(x))
    })
}

/// Every histogram case.
pub fn cases() -> Vec<Case> {
    use HistogramVariant::{GlobalAtomics, Shared};
    let mut all = Vec::new();
    let ops = CaseGroup::Ops;

    // u32 values: sizes around the vector and workgroup boundaries, bins
    // from one to more than shared memory holds, every variant forced.
    for (len, bins, variant) in [
        (0, 256, None),
        (1, 256, None),
        (3, 256, None),
        (5, 256, None),
        (1_023, 256, None),
        (65_537, 256, Some(Shared)),
        (65_537, 256, Some(GlobalAtomics)),
        (1_000_003, 256, None),
        (65_537, 1, None),
        (65_537, 1, Some(GlobalAtomics)),
        (65_537, 4096, Some(Shared)),
        (65_537, 4096, Some(GlobalAtomics)),
        (1_000_003, 65_536, None),
        (65_537, 65_536, Some(GlobalAtomics)),
        ((1 << 24) + 3, 256, None),
    ] {
        all.push(case(ops, u32_spec(len, bins), "", variant, uniform(bins)));
    }
    // Values >= bins are not counted.
    all.push(case(
        ops,
        u32_spec(65_537, 1000),
        " values up to 2x bins",
        None,
        uniform(2000),
    ));
    all.push(case(
        ops,
        u32_spec(65_537, 4096),
        " full u32 range",
        None,
        Arc::new(|s, n| words(inputs::u32_values(s, n))),
    ));
    for variant in [Shared, GlobalAtomics] {
        all.push(case(
            ops,
            u32_spec(65_539, 64),
            " runs of equal values",
            Some(variant),
            runs(80, false),
        ));
    }
    all.push(
        case(
            ops,
            u32_spec(1_000_003, 256),
            " x20 bit-identical",
            None,
            uniform(256),
        )
        .repeated(20),
    );

    // u8 values: every length mod 4 and mod 16 (tail words, partial word),
    // fewer bins than values, every variant forced.
    for len in [
        0, 1, 2, 3, 4, 5, 6, 7, 15, 17, 18, 19, 1_023, 65_537, 65_538, 65_539,
    ] {
        all.push(case(ops, u8_spec(len, U8_BINS), "", None, bytes_below(256)));
    }
    all.push(case(
        ops,
        u8_spec(1_000_003, U8_BINS),
        "",
        None,
        bytes_below(256),
    ));
    for variant in [Shared, GlobalAtomics] {
        all.push(case(
            ops,
            u8_spec(65_539, U8_BINS),
            "",
            Some(variant),
            bytes_below(256),
        ));
        all.push(case(
            ops,
            u8_spec(65_538, 100),
            " runs of equal values",
            Some(variant),
            runs(256, true),
        ));
        // Sixteen bytes whose four words are equal but whose bytes are not
        // (a solid RGBA8 image): a fast path for sixteen equal bytes that
        // compared only the words counted all 16 in the first byte's bin.
        all.push(case(
            ops,
            u8_spec(65_539, U8_BINS),
            " one 4-byte pattern repeated",
            Some(variant),
            Arc::new(|_, n| Data::Bytes((0..n).map(|i| [10u8, 20, 30, 40][i % 4]).collect())),
        ));
        all.push(case(
            ops,
            u8_spec(65_539, U8_BINS),
            " a 4-byte pattern per 64 bytes",
            Some(variant),
            Arc::new(|s, n| {
                let seeds = inputs::u32_below(s, n.div_ceil(64), 256);
                Data::Bytes(
                    (0..n)
                        .map(|i| (seeds[i / 64] as usize + 37 * (i % 4)) as u8)
                        .collect(),
                )
            }),
        ));
    }
    all.push(case(ops, u8_spec(65_537, 16), "", None, bytes_below(256)));
    all.push(case(ops, u8_spec(65_539, 1), "", None, bytes_below(4)));
    // The bytes after the last value (in its word and the next ones) are
    // 255s and must not be counted.
    for len in [1, 2, 3, 5, 65_537, 65_538, 65_539] {
        all.push(case(
            ops,
            u8_spec(len, U8_BINS),
            " 255s after the values",
            None,
            Arc::new(|s, n| {
                let mut b: Vec<u8> = inputs::u32_below(s, n, 255)
                    .into_iter()
                    .map(|v| v as u8)
                    .collect();
                b.extend([255u8; 7]);
                Data::Bytes(b)
            }),
        ));
    }
    all.push(
        case(
            ops,
            u8_spec(1_000_003, U8_BINS),
            " x20 bit-identical",
            None,
            bytes_below(256),
        )
        .repeated(20),
    );

    // f32 values over a range, numpy.histogram's rules: values on every
    // edge and either side of it, at the ends, outside the range, and NaN.
    for (lo, hi, bins, variant) in [
        (-1.0, 1.0, 256, None),
        (-1.0, 1.0, 256, Some(Shared)),
        (-1.0, 1.0, 256, Some(GlobalAtomics)),
        (0.0, 3.7, 100, None),
        (-0.3, 0.7, 1, None),
        (-1.0, 1.0, 4096, Some(Shared)),
        (-5000.0, -1000.0, 1000, None),
        (1e6, 1e6 + 512.0, 16, None),
        // x − lo overflows f32: the guess saturates, the search settles it.
        (-3.0e38, 3.0e38, 1000, None),
        // One f32 value per bin: every value is an edge or between two.
        (1.0, f64::from(1.0f32 + 64.0 * f32::EPSILON), 64, None),
        // Subnormal range: scale overflows f32 (or the difference flushes to
        // zero), so every value's bin comes from the search.
        (0.0, 1e-38, 256, None),
        (-1e-39, 1e-39, 7, Some(GlobalAtomics)),
    ] {
        all.push(case(
            ops,
            f32_spec(65_537, bins, lo, hi),
            " edges and their neighbours, outside, NaN",
            variant,
            edge_values(lo, hi, bins),
        ));
    }

    all.extend(limits_cases());
    all.extend(error_cases());
    all
}

/// The `limits` group: shared-memory-sized bins, constant input, more than
/// 2^31 values, long searches, the grid against the loop budget.
///
/// Not here: more than 65 535 workgroups. The plan is grid-stride and never
/// launches more than `max(saturating_groups, the loop budget's need)`
/// groups, a few thousand at most (`plan::workgroups` refuses more than the
/// device's `max_groups[0]` with `ExceedsLimit`).
fn limits_cases() -> Vec<Case> {
    use HistogramVariant::{GlobalAtomics, Shared};
    let limits = CaseGroup::Limits;
    let mut all = Vec::new();

    // Bins sized by the device's shared memory: the most the `shared`
    // variant holds, and one more (global atomics, forced and chosen).
    for (over, variant) in [
        (false, Some(Shared)),
        (true, None),
        (true, Some(GlobalAtomics)),
    ] {
        let label = if over { "one over" } else { "as many as" };
        let name = format!(
            "histogram u32 bins={label} shared memory holds n=1000003{}",
            variant
                .map(|v| format!(" {}", v.name()))
                .unwrap_or_default()
        );
        let s = seed(&name);
        all.push(Case::new(name, OPS, limits, true, move || SharedBins {
            seed: s,
            over,
            variant,
        }));
    }

    // Every value in one bin: the worst case for atomic contention, every
    // input type, every variant.
    for variant in [Shared, GlobalAtomics] {
        for len in [1_000_003, (1 << 26) + 3] {
            all.push(case(
                limits,
                u32_spec(len, 256),
                " constant",
                Some(variant),
                Arc::new(|_, n| words(vec![17; n])),
            ));
            all.push(case(
                limits,
                u8_spec(len, U8_BINS),
                " constant",
                Some(variant),
                Arc::new(|_, n| Data::Bytes(vec![200; n])),
            ));
            all.push(case(
                limits,
                f32_spec(len, 256, -1.0, 1.0),
                " constant on an edge",
                Some(variant),
                Arc::new(|_, n| Data::Words(bytemuck::cast_vec(vec![0.25f32; n]))),
            ));
        }
    }

    // More than 2^31 values: u32 index arithmetic in every language.
    for spec in [
        u8_spec((1 << 31) + 7, U8_BINS),
        u32_spec((1 << 31) + 5, 256),
    ] {
        let name = name(&spec, "", None);
        let s = seed(&name);
        all.push(Case::new(name, OPS, limits, false, move || Huge {
            spec,
            seed: s,
        }));
    }

    // Every value's bin from the search (in a subnormal range the guess is
    // useless: scale overflows f32, or the difference flushes to zero), over
    // 2^25 − 5 values (just under lavapipe's 128 MiB buffers): the old
    // kernels' linear walk from the guess ran ~128 iterations per value and
    // lost about half the counts to llvmpipe's silent loop cap here.
    for len in [(1 << 22) + 3, (1 << 25) - 5] {
        all.push(case(
            limits,
            f32_spec(len, 256, 0.0, 1e-38),
            " subnormal range",
            None,
            Arc::new(|s, n| {
                Data::Words(bytemuck::cast_vec(inputs::f32_values_in(s, n, 0.0, 1e-38)))
            }),
        ));
    }

    // 2^24 + 4 bins over [−(2^23 + 2), 2^23 + 2] (every edge an integer):
    // the top value's guess is BINS, and f32(BINS − 1) = f32(2^24 + 3)
    // rounds up to BINS, so only an integer clamp keeps it in the last bin
    // (the old WGSL and GLSL kernels dropped it).
    let (lo, hi, bins) = (-8_388_610.0, 8_388_610.0, (1 << 24) + 4);
    all.push(case(
        limits,
        f32_spec(65_537, bins, lo, hi),
        " top edge of 2^24+4 bins",
        Some(GlobalAtomics),
        edge_values(lo, hi, bins),
    ));

    // The plan's grid against the device's loop budget, for every input
    // type and variant up to 2^32 − 1 values (no data: the geometry only).
    all.push(Case::new(
        "histogram grids keep every invocation within the loop budget",
        OPS,
        limits,
        true,
        || GridBudget,
    ));
    all
}

/// Bins as many as shared memory holds, or one more.
struct SharedBins {
    seed: u64,
    over: bool,
    variant: Option<HistogramVariant>,
}

impl Check for SharedBins {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let caps = &ctx.backend.info().caps;
        let bins = u32::try_from(u64::from(caps.max_shared_bytes) / 4 + u64::from(self.over))
            .map_err(|_| Error::Internal("shared memory of 2^34 bytes".into()))?;
        let spec = u32_spec(1_000_003, bins);
        let values = inputs::u32_below(self.seed, spec.len, bins);
        let expected = count_u32(&values, bins);
        let got = histogram_bytes(
            ctx.backend,
            bytemuck::cast_slice(&values),
            &spec,
            self.variant,
        )?;
        let mut v = compare_exact(&got, &expected);
        if v.passed() {
            v.detail = format!("{bins} bins");
        }
        Ok(v)
    }
}

/// More than 2^31 values, made only where the device can hold them.
struct Huge {
    spec: HistogramSpec,
    seed: u64,
}

impl Check for Huge {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let spec = &self.spec;
        let bytes = spec.value_bytes()?;
        if ctx.backend.info().caps.device_type.is_cpu() {
            return Ok(Verdict::skip(format!(
                "{} values ({:.1} GiB) are too slow for a CPU-type device",
                spec.len,
                bytes as f64 / f64::from(1 << 30)
            )));
        }
        // Refused (and skipped) before any host memory is used where the
        // device's buffers or memory are too small.
        let plan = HistogramPlan::new(ctx.backend, spec)?;
        let (values, expected) = match spec.input {
            HistogramInput::U8 => {
                let mut v = vec![0u8; spec.len];
                v.par_chunks_mut(8).enumerate().for_each(|(i, chunk)| {
                    let r = inputs::bits(self.seed, i as u64).to_le_bytes();
                    chunk.copy_from_slice(&r[..chunk.len()]);
                });
                let expected = count_u8(&v, spec.bins);
                (Buffer::from_slice(ctx.backend, &v)?, expected)
            }
            _ => {
                let v = inputs::u32_below(self.seed, spec.len, spec.bins + spec.bins / 4);
                let expected = count_u32(&v, spec.bins);
                (Buffer::from_slice(ctx.backend, &v)?, expected)
            }
        };
        let counts = ctx.backend.alloc(spec.counts_bytes())?;
        plan.encode(&values, &counts)?;
        Ok(compare_exact(
            &counts.read::<u32>(spec.bins as usize)?,
            &expected,
        ))
    }
}

/// Loop iterations one invocation of a plan's grid runs at most, counted as
/// `plan::workgroups` counts them (zero / merge loops, vectors, searches).
fn iterations(
    caps: &Capabilities,
    spec: &HistogramSpec,
    variant: HistogramVariant,
    groups: u32,
) -> u64 {
    let gs = u64::from(preferred_group_size(caps));
    let invocations = u64::from(groups) * gs;
    let words = spec.len as u64
        / if spec.input == HistogramInput::U8 {
            4
        } else {
            1
        };
    let search = match spec.input {
        HistogramInput::F32 { .. } => u64::from(search_steps(spec.bins)),
        _ => 0,
    };
    let merge = match variant {
        HistogramVariant::Shared => 2 * u64::from(spec.bins).div_ceil(gs),
        HistogramVariant::GlobalAtomics => 0,
    };
    merge + (words / 4).div_ceil(invocations) * (1 + 4 * search) + search
}

/// Every plan's grid within the device's loop budget.
struct GridBudget;

impl Check for GridBudget {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let caps = &ctx.backend.info().caps;
        let gs = preferred_group_size(caps);
        let mut audit = GeometryAudit::new(caps);
        for input in [
            HistogramInput::U32,
            HistogramInput::U8,
            HistogramInput::F32 { lo: -1.0, hi: 1.0 },
        ] {
            for len in [1usize << 20, 1 << 26, (1 << 31) + 5, u32::MAX as usize] {
                for bins in [1, 256, 4096] {
                    let spec = HistogramSpec { input, len, bins };
                    for variant in HistogramVariant::ALL {
                        let groups = match workgroups(caps, &spec, variant, gs) {
                            Ok(g) => g,
                            // Refused is fine (typed, before running).
                            Err(Error::ExceedsLimit { .. }) => continue,
                            Err(e) => return Err(e),
                        };
                        let loops = iterations(caps, &spec, variant, groups);
                        let what = || {
                            format!(
                                "{} values of {} in {bins} bins ({})",
                                spec.len,
                                spec.input,
                                variant.name()
                            )
                        };
                        if let Some(fail) = audit.check(what, loops, [groups, 1, 1]) {
                            return Ok(fail);
                        }
                    }
                }
            }
        }
        Ok(audit.verdict())
    }
}

/// A call that must fail with a given typed error; with `fast`, within a
/// second and without allocating device memory.
struct Rejects {
    expected: &'static str,
    fast: bool,
    call: fn(&Context<'_>) -> Result<()>,
    is_expected: fn(&Error) -> bool,
}

impl Check for Rejects {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        Ok(refused(
            ctx,
            || (self.call)(ctx),
            self.expected,
            self.fast,
            self.is_expected,
        ))
    }
}

/// Judge a call that must be refused (see [`Rejects`]).
fn refused(
    ctx: &Context<'_>,
    call: impl FnOnce() -> Result<()>,
    expected: &str,
    fast: bool,
    is_expected: fn(&Error) -> bool,
) -> Verdict {
    let buffers = || {
        let stats = ctx.backend.pool_stats();
        stats.allocated + stats.reused
    };
    let before = buffers();
    let started = Instant::now();
    let outcome = call();
    let took = started.elapsed();
    let allocated = buffers() - before;
    match outcome {
        Ok(()) => Verdict::fail(format!("accepted; expected {expected}")),
        Err(e) if is_expected(&e) => {
            if fast && took > Duration::from_secs(1) {
                Verdict::fail(format!("refused after {took:?}, not at once: {e}"))
            } else if fast && allocated > 0 {
                Verdict::fail(format!(
                    "{allocated} buffer(s) allocated before refusing: {e}"
                ))
            } else {
                Verdict::pass(e.to_string())
            }
        }
        Err(e) => Verdict::fail(format!("got '{e}', expected {expected}")),
    }
}

/// Bins over the device's largest buffer: refused at once, before anything
/// is allocated (the old plan allocated gigabytes first).
struct BinsOverBufferLimit;

impl Check for BinsOverBufferLimit {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let limit = ctx.backend.info().caps.max_buffer_bytes;
        let Ok(bins) = u32::try_from(limit / 4 + 1) else {
            return Ok(Verdict::skip(format!(
                "no u32 bin count exceeds the device's largest buffer ({limit} bytes)"
            )));
        };
        Ok(refused(
            ctx,
            || histogram_u32(ctx.backend, &[1, 2, 3], bins).map(drop),
            "ExceedsLimit",
            true,
            |e| matches!(e, Error::ExceedsLimit { .. }),
        ))
    }
}

fn error_cases() -> Vec<Case> {
    let rejects = |name: &str, expected, fast, call, is_expected| {
        Case::new(
            format!("histogram rejects {name}"),
            OPS,
            CaseGroup::Errors,
            true,
            move || Rejects {
                expected,
                fast,
                call,
                is_expected,
            },
        )
    };
    let too_narrow =
        |e: &Error| matches!(e, Error::InvalidRange { why, .. } if why.contains("too narrow"));
    vec![
        rejects(
            "bins = 0",
            "ZeroBins",
            true,
            |ctx| histogram_u32(ctx.backend, &[1, 2, 3], 0).map(drop),
            |e| matches!(e, Error::ZeroBins),
        ),
        rejects(
            "u8 values with bins = 0",
            "ZeroBins",
            true,
            |ctx| histogram_u8(ctx.backend, &[1, 2, 3], 0).map(drop),
            |e| matches!(e, Error::ZeroBins),
        ),
        rejects(
            "u8 values with 257 bins",
            "InvalidArgument",
            true,
            |ctx| histogram_u8(ctx.backend, &[1, 2, 3], 257).map(drop),
            |e| matches!(e, Error::InvalidArgument(_)),
        ),
        // An empty range widens by a half each way (numpy); where that is
        // still one f32 value, nothing is left to count over.
        rejects(
            "an empty range that stays empty as f32",
            "InvalidRange",
            true,
            |ctx| histogram_f32(ctx.backend, &[1.0], 8, (1e8, 1e8)).map(drop),
            |e| matches!(e, Error::InvalidRange { .. }),
        ),
        rejects(
            "a reversed range",
            "InvalidRange",
            true,
            |ctx| histogram_f32(ctx.backend, &[1.0], 8, (2.0, 1.0)).map(drop),
            |e| matches!(e, Error::InvalidRange { .. }),
        ),
        rejects(
            "a range with an infinite end",
            "InvalidRange",
            true,
            |ctx| histogram_f32(ctx.backend, &[1.0], 8, (0.0, f64::INFINITY)).map(drop),
            |e| matches!(e, Error::InvalidRange { .. }),
        ),
        // numpy: "Too many bins for data range" (8 bins need 9 distinct f32
        // edges; [1, 1 + 1e-7] holds 2 f32 values).
        rejects(
            "a range too narrow for its bins",
            "InvalidRange (too narrow)",
            true,
            |ctx| histogram_f32(ctx.backend, &[1.0], 8, (1.0, 1.000_000_1)).map(drop),
            too_narrow,
        ),
        // [0.5, 2] holds 2^24 f32 values, enough for 2^24 edges, but the
        // step (1.5 / 2^24) is below the ulp of [1, 2), so some edges round
        // to equal values: only a look at the edges tells.
        rejects(
            "a range whose f32 edges round to equal values",
            "InvalidRange (too narrow)",
            true,
            |ctx| histogram_f32(ctx.backend, &[1.0], (1 << 24) - 1, (0.5, 2.0)).map(drop),
            too_narrow,
        ),
        // The old plan built 16 GiB of edges on the host here, and aborted.
        rejects(
            "4294967295 bins over [0, 1]",
            "InvalidRange (too narrow)",
            true,
            |ctx| histogram_f32(ctx.backend, &[0.5], u32::MAX, (0.0, 1.0)).map(drop),
            too_narrow,
        ),
        Case::new(
            "histogram rejects bins over the device's largest buffer",
            OPS,
            CaseGroup::Errors,
            true,
            || BinsOverBufferLimit,
        ),
        rejects(
            "more values than a u32 counts",
            "ExceedsLimit",
            true,
            |ctx| HistogramPlan::new(ctx.backend, &u32_spec(1 << 32, 256)).map(drop),
            |e| matches!(e, Error::ExceedsLimit { .. }),
        ),
        rejects(
            "the shared variant with bins over shared memory",
            "ExceedsLimit",
            true,
            |ctx| {
                let caps = &ctx.backend.info().caps;
                let bins = (caps.max_shared_bytes / 4).saturating_add(1);
                HistogramPlan::with_variant(
                    ctx.backend,
                    &u32_spec(1000, bins),
                    HistogramVariant::Shared,
                )
                .map(drop)
            },
            |e| matches!(e, Error::ExceedsLimit { .. }),
        ),
        rejects(
            "a values buffer shorter than its length",
            "ShapeMismatch",
            false,
            |ctx| {
                let plan = HistogramPlan::new(ctx.backend, &u32_spec(1000, 256))?;
                let short = ctx.backend.alloc(999 * 4)?;
                let counts = ctx.backend.alloc(256 * 4)?;
                plan.encode(&short, &counts)
            },
            |e| matches!(e, Error::ShapeMismatch(_)),
        ),
        rejects(
            "a u8 values buffer shorter than its length",
            "ShapeMismatch",
            false,
            |ctx| {
                let plan = HistogramPlan::new(ctx.backend, &u8_spec(1001, 256))?;
                let short = ctx.backend.alloc(1000)?;
                let counts = ctx.backend.alloc(256 * 4)?;
                plan.encode(&short, &counts)
            },
            |e| matches!(e, Error::ShapeMismatch(_)),
        ),
        rejects(
            "a counts buffer shorter than its bins",
            "ShapeMismatch",
            false,
            |ctx| {
                let plan = HistogramPlan::new(ctx.backend, &u32_spec(1000, 256))?;
                let values = ctx.backend.alloc(1000 * 4)?;
                let counts = ctx.backend.alloc(255 * 4)?;
                plan.encode(&values, &counts)
            },
            |e| matches!(e, Error::ShapeMismatch(_)),
        ),
    ]
}

/// Most bins a drawn case gives the `shared` variant: 16 KiB of shared
/// memory, what every device holds (Vulkan's and WebGPU's minimum), so the
/// variant accepts the case everywhere.
const SHARED_MAX_BINS: u32 = 4096;

/// Most bins any other drawn case has.
const MAX_BINS: u32 = 1 << 20;

/// Bin counts a drawn case takes half the time (those within its limit):
/// the edges of vectors, workgroups and shared memory, and common choices.
/// Each bin count is a kernel of its own, built on first use (a few hundred
/// milliseconds on lavapipe and PoCL for f32): drawn cases that share these
/// share their kernels.
const COMMON_BINS: [u32; 16] = [
    1, 2, 3, 4, 7, 16, 64, 100, 255, 256, 257, 1000, 1024, 4096, 4097, 65_536,
];

/// Bins up to `max`: half the time one of [`COMMON_BINS`], else
/// [`Draw::length`]'s.
fn draw_bins(draw: &mut Draw, max: u32) -> u32 {
    let common: Vec<u32> = COMMON_BINS.into_iter().filter(|&b| b <= max).collect();
    if draw.chance(50) {
        *draw.pick(&common)
    } else {
        draw.length(max as usize) as u32
    }
}

/// The values a drawn histogram counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// u32 below the bins; u8 any byte.
    Uniform,
    /// u32 below twice the bins: half not counted.
    Beyond,
    /// u32 over the whole range (at and above 2^31 too).
    FullRange,
    /// Runs of equal values, 1 to 24 long ([`runs`]): u32 up to a quarter
    /// past the bins, u8 any byte.
    Runs,
    /// Every value in one bin: `v` (u32, u8), or f32 edge `v`.
    Constant(u32),
    /// u32 skewed towards bin 0 ([`zipf_values`](super::zipf_values)).
    Zipf,
    /// u8: one 4-byte pattern (a solid RGBA8 image) repeated.
    Pattern([u8; 4]),
    /// u8: a 4-byte pattern per 64 bytes (words equal, bytes not).
    PatternPer64,
    /// f32: every edge and its neighbours, the ends, NaN, ±0, and values
    /// over the range and a quarter beyond each end ([`edge_values`]).
    Edges,
    /// f32 uniform over the range.
    Inside,
    /// f32 uniform over five times the range: most values outside.
    Wide,
    /// f32: NaNs, infinities, zeros, subnormals, the largest and smallest
    /// normals, the ends and their neighbours, among values in the range.
    Specials,
}

impl Kind {
    /// The kinds `input` takes (constants' values are drawn by
    /// [`Kind::draw`]).
    fn all(input: HistogramInput) -> &'static [Kind] {
        match input {
            HistogramInput::U32 => &[
                Kind::Uniform,
                Kind::Beyond,
                Kind::FullRange,
                Kind::Runs,
                Kind::Constant(0),
                Kind::Zipf,
            ],
            HistogramInput::U8 => &[
                Kind::Uniform,
                Kind::Runs,
                Kind::Constant(0),
                Kind::Pattern([0; 4]),
                Kind::PatternPer64,
            ],
            HistogramInput::F32 { .. } => &[
                Kind::Edges,
                Kind::Inside,
                Kind::Wide,
                Kind::Specials,
                Kind::Constant(0),
            ],
        }
    }

    fn draw(draw: &mut Draw, input: HistogramInput, bins: u32) -> Kind {
        match *draw.pick(Kind::all(input)) {
            // f32: any of the bins + 1 edges (the last, hi, counts in the
            // last bin).
            Kind::Constant(_) if matches!(input, HistogramInput::F32 { .. }) => {
                Kind::Constant(draw.below(bins as usize + 1) as u32)
            }
            Kind::Constant(_) => Kind::Constant(draw.below(bins as usize) as u32),
            Kind::Pattern(_) => {
                let b = draw.next_u64().to_le_bytes();
                Kind::Pattern([b[0], b[1], b[2], b[3]])
            }
            other => other,
        }
    }

    fn label(self, input: HistogramInput) -> String {
        match self {
            Kind::Uniform => "uniform".into(),
            Kind::Beyond => "values up to 2x bins".into(),
            Kind::FullRange => "full u32 range".into(),
            Kind::Runs => "runs of equal values".into(),
            Kind::Constant(e) if matches!(input, HistogramInput::F32 { .. }) => {
                format!("all on edge {e}")
            }
            Kind::Constant(v) => format!("all {v}"),
            Kind::Zipf => "skewed".into(),
            Kind::Pattern(p) => format!("4-byte pattern {p:?} repeated"),
            Kind::PatternPer64 => "a 4-byte pattern per 64 bytes".into(),
            Kind::Edges => "edges and their neighbours, outside, NaN".into(),
            Kind::Inside => "inside the range".into(),
            Kind::Wide => "mostly outside the range".into(),
            Kind::Specials => "NaN, Inf, zeros, subnormals, ends".into(),
        }
    }

    /// `spec.len` values from `seed`.
    fn values(self, spec: &HistogramSpec, seed: u64) -> Data {
        let (n, bins) = (spec.len, spec.bins);
        let floats = |x: Vec<f32>| Data::Words(bytemuck::cast_vec(x));
        match (spec.input, self) {
            (HistogramInput::U32, Kind::Beyond) => uniform(bins.saturating_mul(2))(seed, n),
            (HistogramInput::U32, Kind::FullRange) => words(inputs::u32_values(seed, n)),
            (HistogramInput::U32, Kind::Runs) => runs(bins + bins / 4 + 1, false)(seed, n),
            (HistogramInput::U32, Kind::Constant(v)) => words(vec![v; n]),
            (HistogramInput::U32, Kind::Zipf) => words(super::zipf_values(seed, n, bins)),
            (HistogramInput::U32, _) => uniform(bins)(seed, n),
            (HistogramInput::U8, Kind::Runs) => runs(256, true)(seed, n),
            (HistogramInput::U8, Kind::Constant(v)) => Data::Bytes(vec![v as u8; n]),
            (HistogramInput::U8, Kind::Pattern(p)) => {
                Data::Bytes((0..n).map(|i| p[i % 4]).collect())
            }
            (HistogramInput::U8, Kind::PatternPer64) => {
                let seeds = inputs::u32_below(seed, n.div_ceil(64), 256);
                Data::Bytes(
                    (0..n)
                        .map(|i| (seeds[i / 64] as usize + 37 * (i % 4)) as u8)
                        .collect(),
                )
            }
            (HistogramInput::U8, _) => bytes_below(256)(seed, n),
            (HistogramInput::F32 { lo, hi }, kind) => match kind {
                Kind::Constant(e) => floats(vec![histogram_edges(lo, hi, bins)[e as usize]; n]),
                Kind::Inside => floats(uniform_f32(seed, n, lo, hi)),
                Kind::Wide => {
                    let w = hi - lo;
                    floats(uniform_f32(seed, n, lo - 2.0 * w, hi + 2.0 * w))
                }
                Kind::Specials => floats(specials(seed, n, lo, hi)),
                _ => edge_values(lo, hi, bins)(seed, n),
            },
        }
    }
}

/// `len` f32 values uniform over `[from, to]`, computed in f64 (an f32
/// `to − from` may overflow) and kept within the finite floats.
fn uniform_f32(seed: u64, len: usize, from: f64, to: f64) -> Vec<f32> {
    let max = f64::from(f32::MAX);
    let (from, to) = (from.max(-max), to.min(max));
    (0..len as u64)
        .map(|i| {
            let unit = (inputs::bits(seed, i) >> 11) as f64 / (1u64 << 53) as f64;
            (from + (to - from) * unit) as f32
        })
        .collect()
}

/// `len` f32 values, half of them special: NaNs (quiet, with a payload,
/// negative, signalling), ±Inf, ±0, subnormals of both signs, ±f32::MAX,
/// ±MIN_POSITIVE, the ends and the floats next to them; the rest uniform
/// over the range. Each has one bin under numpy's rules, or none.
fn specials(seed: u64, len: usize, lo: f64, hi: f64) -> Vec<f32> {
    let (lo32, hi32) = (lo as f32, hi as f32);
    let inside = uniform_f32(seed ^ 0x5bec, len, lo, hi);
    (0..len)
        .map(|i| {
            let b = inputs::bits(seed, i as u64);
            let subnormal = f32::from_bits((b >> 32) as u32 & 0x807f_ffff);
            let special = [
                f32::NAN,
                f32::from_bits(0x7fc0_0123),
                f32::from_bits(0xffc0_0000),
                f32::from_bits(0xff80_0001),
                f32::INFINITY,
                f32::NEG_INFINITY,
                0.0,
                -0.0,
                subnormal,
                f32::MAX,
                f32::MIN,
                f32::MIN_POSITIVE,
                -f32::MIN_POSITIVE,
                lo32,
                hi32,
                lo32.next_down(),
                lo32.next_up(),
                hi32.next_down(),
                hi32.next_up(),
            ];
            if b & 1 == 0 {
                special[((b >> 1) % special.len() as u64) as usize]
            } else {
                inside[i]
            }
        })
        .collect()
}

/// An f32 range: ordinary ones at scales from 10^−3 to 10^7 (around zero,
/// of one sign, far from zero so the f32 step is coarse), a few ulps wide,
/// subnormal, and nearly as wide as the finite floats.
fn draw_range(draw: &mut Draw) -> (f64, f64) {
    let unit = |draw: &mut Draw| draw.below(1 << 20) as f64 / f64::from(1 << 20);
    match draw.below(6) {
        0 | 1 => {
            let width = 10f64.powi(draw.between(0, 10) as i32 - 3) * (0.5 + unit(draw));
            let lo = width * (4.0 * unit(draw) - 2.0);
            (lo, lo + width)
        }
        2 => {
            // Far from zero: [1e6, 1e6 + 512] and the like.
            let lo =
                10f64.powi(draw.between(3, 7) as i32) * if draw.chance(50) { 1.0 } else { -1.0 };
            (lo, lo + f64::from(1u32 << draw.between(0, 12)))
        }
        3 => {
            // 1 to 64 ulps: every value is an edge or between two.
            let lo = (2f64.powi(draw.between(0, 40) as i32 - 20) * (1.0 + unit(draw))) as f32;
            let lo = if draw.chance(50) { lo } else { -lo };
            let mut hi = lo;
            for _ in 0..draw.between(1, 64) {
                hi = hi.next_up();
            }
            (f64::from(lo), f64::from(hi))
        }
        4 => {
            // Subnormal: scale overflows f32 or the difference flushes.
            let a = *draw.pick(&[1e-38, 1e-39, 1e-42]);
            let t = *draw.pick(&[0.0, 0.5, 1.0]);
            (-a * t, a * (1.0 - t))
        }
        _ => {
            // x − lo overflows f32.
            let lo = -(1.0 + 2.4 * unit(draw)) * 1e38;
            let hi = if draw.chance(50) {
                (1.0 + 2.4 * unit(draw)) * 1e38
            } else {
                1.0
            };
            (lo, hi)
        }
    }
}

/// Everything a drawn histogram case is made of.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Drawn {
    spec: HistogramSpec,
    kind: Kind,
    /// Forced, or the plan's own choice (`None`).
    variant: Option<HistogramVariant>,
    /// Values past the input that would be counted, and counts past the
    /// bins that must stay 0.
    padded: bool,
    seed: u64,
}

impl Drawn {
    fn draw(draw: &mut Draw) -> Drawn {
        let variant = *draw.pick(&[
            None,
            Some(HistogramVariant::Shared),
            Some(HistogramVariant::GlobalAtomics),
        ]);
        let max_bins = if variant == Some(HistogramVariant::Shared) {
            SHARED_MAX_BINS
        } else {
            MAX_BINS
        };
        let len = if draw.chance(3) {
            0
        } else {
            draw.length(random::MAX_LEN)
        };
        let (input, bins) = match draw.below(3) {
            0 => (HistogramInput::U32, draw_bins(draw, max_bins)),
            1 => (HistogramInput::U8, draw_bins(draw, U8_BINS)),
            _ => {
                let (lo, hi) = draw_range(draw);
                let input = HistogramInput::F32 { lo, hi };
                // Halved until the range holds distinct f32 edges for them.
                let mut bins = draw_bins(draw, max_bins);
                while bins > 1 && (HistogramSpec { input, len, bins }).validate().is_err() {
                    bins /= 2;
                }
                (input, bins)
            }
        };
        let spec = HistogramSpec { input, len, bins };
        let kind = Kind::draw(draw, input, bins);
        Drawn {
            spec,
            kind,
            variant,
            padded: draw.chance(30),
            seed: draw.seed(),
        }
    }

    fn name(&self) -> String {
        let mut label = format!(" {}", self.kind.label(self.spec.input));
        if self.variant.is_none() {
            label += " own choice";
        }
        let mut name = name(&self.spec, &label, self.variant);
        if self.padded {
            name += " padded";
        }
        name
    }

    /// A value past the input that the kernel would count if it read it:
    /// the last bin's (u32, u8), the range's low end (f32).
    fn junk(&self) -> Data {
        let bins = self.spec.bins;
        match self.spec.input {
            HistogramInput::U32 => words(vec![bins - 1; padding::PADDING]),
            HistogramInput::U8 => Data::Bytes(vec![(bins - 1) as u8; padding::PADDING]),
            HistogramInput::F32 { lo, .. } => {
                Data::Words(vec![(lo as f32).to_bits(); padding::PADDING])
            }
        }
    }

    fn check(&self) -> Counts {
        let mut data = self.kind.values(&self.spec, self.seed);
        let expected = reference(&data, &self.spec);
        if self.padded {
            data = match (data, self.junk()) {
                (Data::Words(mut w), Data::Words(junk)) => {
                    w.extend(junk);
                    Data::Words(w)
                }
                (Data::Bytes(mut b), Data::Bytes(junk)) => {
                    b.extend(junk);
                    Data::Bytes(b)
                }
                (data, _) => data,
            };
        }
        Counts {
            data,
            spec: self.spec,
            variant: self.variant,
            expected,
            padded: self.padded,
        }
    }

    fn case(self) -> Case {
        Case::new(self.name(), OPS, CaseGroup::Random, true, move || {
            self.check()
        })
    }
}

/// A case of the `random` group (see `Op::random_case`): an input type,
/// bins (and an f32 range), length, kind of values and variant drawn from
/// `draw`, plain or padded.
pub(super) fn drawn_case(draw: &mut Draw) -> Case {
    Drawn::draw(draw).case()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::mem::discriminant;

    fn draws(seed: u64, count: u64) -> Vec<Drawn> {
        crate::op::random::testing::draws(OPS, seed, count, Drawn::draw)
    }

    fn input_name(input: HistogramInput) -> &'static str {
        input.elem().name()
    }

    #[test]
    fn draws_cover_every_variant_input_and_kind_within_limits() {
        let all = draws(1, 600);
        let mut seen = BTreeSet::new();
        let mut kinds = BTreeSet::new();
        let mut ranges = [false; 4];
        for d in &all {
            let spec = &d.spec;
            assert!(spec.len <= random::MAX_LEN, "{d:?}");
            assert!(spec.validate().is_ok(), "{d:?}");
            assert!(spec.bins >= 1 && spec.bins <= MAX_BINS, "{d:?}");
            if d.variant == Some(HistogramVariant::Shared) {
                assert!(spec.bins <= SHARED_MAX_BINS, "{d:?}");
            }
            let index = Kind::all(spec.input)
                .iter()
                .position(|k| discriminant(k) == discriminant(&d.kind))
                .unwrap_or_else(|| panic!("{d:?}"));
            kinds.insert((input_name(spec.input), index));
            seen.insert((
                input_name(spec.input),
                d.variant.map(HistogramVariant::name),
            ));
            match (spec.input, d.kind) {
                (HistogramInput::F32 { .. }, Kind::Constant(e)) => assert!(e <= spec.bins),
                (_, Kind::Constant(v)) => assert!(v < spec.bins, "{d:?}"),
                _ => {}
            }
            if let HistogramInput::F32 { lo, hi } = spec.input {
                let f32s = crate::reduce::ordered_key((hi as f32).to_bits())
                    - crate::reduce::ordered_key((lo as f32).to_bits());
                ranges[0] |= hi - lo > 1e38;
                ranges[1] |= hi.abs().max(lo.abs()) < 1e-37;
                ranges[2] |= f32s <= 64;
                ranges[3] |= lo.abs() >= 1e3 && hi - lo < 1e4;
            }
        }
        // Every input type with the plan's own choice and each variant.
        assert_eq!(seen.len(), 9, "{seen:?}");
        assert_eq!(kinds.len(), 6 + 5 + 5, "{kinds:?}");
        assert_eq!(ranges, [true; 4]);
        let any = |f: &dyn Fn(&Drawn) -> bool| all.iter().any(f);
        assert!(any(&|d| d.padded) && any(&|d| !d.padded));
        assert!(any(&|d| d.spec.len == 0));
        assert!(any(&|d| d.spec.bins == 1) && any(&|d| d.spec.bins > SHARED_MAX_BINS));
        assert!(any(
            &|d| d.spec.input == HistogramInput::U8 && d.spec.bins == U8_BINS
        ));
        assert!(any(
            &|d| d.spec.input == HistogramInput::U8 && d.spec.bins < 100
        ));
        assert!(any(
            &|d| matches!(d.spec.input, HistogramInput::F32 { .. }) && d.spec.bins > 1000
        ));
        assert_eq!(draws(1, 600), all);
    }

    /// The values past a padded input would be counted, so a kernel that
    /// read them would show.
    #[test]
    fn the_values_past_a_padded_input_would_be_counted() {
        for d in draws(2, 200).into_iter().filter(|d| d.padded) {
            let check = d.check();
            let longer = HistogramSpec {
                len: d.spec.len + padding::PADDING,
                ..d.spec
            };
            let counted = reference(&check.data, &longer);
            let total = |c: &[u32]| c.iter().map(|&c| u64::from(c)).sum::<u64>();
            assert_eq!(
                total(&counted),
                total(&check.expected) + padding::PADDING as u64,
                "{}",
                d.name()
            );
        }
    }

    #[test]
    fn drawn_cases_pass_on_the_cpu_backend() {
        let verdicts = random::testing::drawn_on_cpu(OPS, 11, 40, drawn_case);
        let failed = random::testing::not_passed(&verdicts);
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }

    #[test]
    fn a_wrong_count_fails_inside_and_past_the_bins() {
        random::testing::on_cpu(|ctx| {
            let d = Drawn {
                spec: u32_spec(10_001, 300),
                kind: Kind::Uniform,
                variant: Some(HistogramVariant::Shared),
                padded: true,
                seed: 3,
            };
            let mut check = d.check();
            assert!(check.run(ctx).unwrap().passed());
            check.expected[299] -= 1;
            let v = check.run(ctx).unwrap();
            assert!(
                !v.passed() && v.detail.contains("first at 299"),
                "{}",
                v.detail
            );
            // A count past the bins (as a kernel writing counts[bins] would
            // leave) fails too: the reference expects 0 there.
            check.expected[299] += 1;
            check.expected.push(1);
            let v = check.run(ctx).unwrap();
            assert!(!v.passed(), "{}", v.detail);
        });
    }
}
