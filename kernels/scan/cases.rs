//! Scan's conformance cases: lengths around every group-size and pass
//! boundary for each variant, wrapping integers, and long exact scans.

use super::plan::{scan_slice, ScanPlan, ScanVariant};
use super::spec::{prefix_bound, prefix_f32, prefix_words, ScanSpec};
use crate::op::random::{self, Draw};
use crate::op::{
    checked_indices, compare_bounded, compare_exact, padding, preferred_group_size, seed, Case,
    CaseGroup, Check, Context, Exact, Rejects, Verdict,
};
use rosetta_core::{inputs, Buffer, Elem, Error, Result};

/// Largest input of the `--quick` subset (elements).
const QUICK_MAX: usize = 70_000;

/// A scan of given values, with its reference.
struct ScanCheck {
    elem: Elem,
    words: Vec<u32>,
    variant: Option<ScanVariant>,
    /// f32: the f64 prefix sums; integers: unused.
    exact: Vec<Exact>,
    /// Integers (and exact f32 inputs): the expected words.
    expected: Vec<u32>,
    /// Every level's grid at most this many workgroups wide
    /// ([`ScanPlan::with_grid`]; with a variant only).
    max_x: Option<u32>,
    /// Through buffers longer than the data, as [`PaddedScan`]: junk past
    /// the input, the sentinel past the output.
    padded: bool,
}

impl ScanCheck {
    fn new(elem: Elem, words: Vec<u32>, variant: Option<ScanVariant>, exact_f32: bool) -> Self {
        let (exact, expected) = if elem == Elem::F32 && !exact_f32 {
            (prefix_f32(bytemuck::cast_slice(&words)), Vec::new())
        } else if elem == Elem::F32 {
            let sums = prefix_f32(bytemuck::cast_slice(&words));
            (
                Vec::new(),
                sums.iter().map(|e| (e.value as f32).to_bits()).collect(),
            )
        } else {
            (Vec::new(), prefix_words(&words))
        };
        ScanCheck {
            elem,
            words,
            variant,
            exact,
            expected,
            max_x: None,
            padded: false,
        }
    }

    /// The words of the plan's output (`len` of them), through padded
    /// buffers and a narrowed grid where asked; `Err(verdict)` where a word
    /// past the output changed.
    fn scan(&self, ctx: &Context<'_>) -> Result<std::result::Result<Vec<u32>, Verdict>> {
        let backend = ctx.backend;
        let len = self.words.len();
        let spec = ScanSpec {
            elem: self.elem,
            len,
        };
        let plan = match self.variant {
            Some(variant) => ScanPlan::with_grid(backend, &spec, variant, self.max_x)?,
            None => ScanPlan::new(backend, &spec)?,
        };
        if !self.padded {
            let input = Buffer::from_slice(backend, &self.words)?;
            let output = backend.alloc(len as u64 * 4)?;
            plan.encode(&input, &output)?;
            return Ok(Ok(output.read(len)?));
        }
        let mut words = self.words.clone();
        words.extend([f32::NAN.to_bits(); padding::PADDING]);
        let input = Buffer::from_slice(backend, &words)?;
        let output = Buffer::from_slice(backend, &padding::sentinel_output(len))?;
        plan.encode(&input, &output)?;
        let mut got: Vec<u32> = output.read(len + padding::PADDING)?;
        if let Some(fail) = padding::sentinel_changed(bytemuck::cast_slice(&got), len) {
            return Ok(Err(fail));
        }
        got.truncate(len);
        Ok(Ok(got))
    }
}

impl Check for ScanCheck {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let got: Vec<u32> = match self.variant {
            None if !self.padded => match self.elem {
                Elem::F32 => bytemuck::cast_vec(scan_slice::<f32>(
                    ctx.backend,
                    bytemuck::cast_slice(&self.words),
                )?),
                Elem::I32 => bytemuck::cast_vec(scan_slice::<i32>(
                    ctx.backend,
                    bytemuck::cast_slice(&self.words),
                )?),
                _ => scan_slice::<u32>(ctx.backend, &self.words)?,
            },
            _ => match self.scan(ctx)? {
                Ok(got) => got,
                Err(fail) => return Ok(fail),
            },
        };
        Ok(if self.expected.is_empty() && self.elem == Elem::F32 {
            compare_bounded(bytemuck::cast_slice(&got), &self.exact, prefix_bound)
        } else {
            compare_exact(&got, &self.expected)
        })
    }
}

/// An f32 scan through buffers longer than the data ([`padding`]): the
/// input followed by NaN, the output by a sentinel, which a write at or
/// past n (a 16-byte store across the end, say) changes. (A read past n
/// feeds only outputs past n, which no case can see; a write is what
/// matters.)
struct PaddedScan {
    values: Vec<f32>,
    variant: ScanVariant,
}

impl Check for PaddedScan {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let len = self.values.len();
        let spec = ScanSpec {
            elem: Elem::F32,
            len,
        };
        let plan = ScanPlan::with_variant(ctx.backend, &spec, self.variant)?;
        let input = Buffer::from_slice(ctx.backend, &padding::nan_padded(&self.values))?;
        let output = Buffer::from_slice(ctx.backend, &padding::sentinel_output(len))?;
        plan.encode(&input, &output)?;
        let got: Vec<f32> = output.read(len + padding::PADDING)?;
        if let Some(fail) = padding::sentinel_changed(&got, len) {
            return Ok(fail);
        }
        Ok(compare_bounded(
            &got[..len],
            &prefix_f32(&self.values),
            prefix_bound,
        ))
    }
}

/// A u32 scan of ones over five tiles and a bit on a grid three workgroups
/// wide, so the tiles past the third lie along y (`out[i] = i + 1`): a
/// kernel that took its tile from x alone passed every case a device could
/// hold (the grid reaches y only past 65 535 tiles).
struct NarrowGrid {
    variant: ScanVariant,
}

impl Check for NarrowGrid {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let tile =
            preferred_group_size(&ctx.backend.info().caps) as usize * self.variant.items as usize;
        let len = 5 * tile + 7;
        let spec = ScanSpec {
            elem: Elem::U32,
            len,
        };
        let plan = ScanPlan::with_grid(ctx.backend, &spec, self.variant, Some(3))?;
        let input = Buffer::from_slice(ctx.backend, &vec![1u32; len])?;
        let output = ctx.backend.alloc(len as u64 * 4)?;
        plan.encode(&input, &output)?;
        let expected: Vec<u32> = (1..=len as u32).collect();
        Ok(compare_exact(&output.read::<u32>(len)?, &expected))
    }
}

/// `scan ELEM n=LEN LABEL VARIANT`.
fn case_name(elem: Elem, len: usize, label: &str, variant: Option<ScanVariant>) -> String {
    let variant_label = variant
        .map(|v| format!(" {}", v.name()))
        .unwrap_or_default();
    format!("scan {elem} n={len}{label}{variant_label}")
}

fn case(
    elem: Elem,
    len: usize,
    label: &str,
    variant: Option<ScanVariant>,
    values: fn(u64, usize) -> Vec<u32>,
) -> Case {
    let name = case_name(elem, len, label, variant);
    let s = seed(&name);
    Case::new(name, "scan", CaseGroup::Ops, len <= QUICK_MAX, move || {
        ScanCheck::new(elem, values(s, len), variant, false)
    })
}

/// Two thirds −0, then ones, +0s and −0s, against the prefix sums added
/// one after another from −0 (exact: every sum is a small integer or a
/// zero).
fn signed_zeros_case(len: usize, variant: Option<ScanVariant>) -> Case {
    let name = case_name(Elem::F32, len, " signed zeros", variant);
    Case::new(name, "scan", CaseGroup::Ops, true, move || {
        // The drawn kind's own check (its values take no seed).
        Kind::SignedZeros.check(Elem::F32, 0, len, variant)
    })
}

/// The values of [`signed_zeros_case`] and their prefix sums (bits).
fn signed_zeros(len: usize) -> (Vec<u32>, Vec<u32>) {
    let values: Vec<f32> = (0..len)
        .map(|i| match (i < len * 2 / 3, i % 3) {
            (true, _) | (false, 2) => -0.0,
            (false, 0) => 1.0,
            _ => 0.0,
        })
        .collect();
    let mut sum = -0.0f32;
    let expected = values
        .iter()
        .map(|&x| {
            sum += x;
            sum.to_bits()
        })
        .collect();
    (bytemuck::cast_vec(values), expected)
}

fn f32_words(seed: u64, len: usize) -> Vec<u32> {
    bytemuck::cast_vec(inputs::f32_values(seed, len))
}

fn values_for(elem: Elem) -> fn(u64, usize) -> Vec<u32> {
    if elem == Elem::F32 {
        f32_words
    } else {
        inputs::u32_values
    }
}

/// Every scan case.
pub fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    for elem in [Elem::F32, Elem::I32, Elem::U32] {
        let values = values_for(elem);
        // The default plan (8 per invocation, 2048-element tiles at 256
        // invocations): around 1, a vector, a group, a tile, two levels
        // (2048² = 4 194 304) and three.
        for len in [
            0, 1, 3, 4, 5, 255, 256, 257, 2047, 2048, 2049, 4097, 65_537, 1_000_003, 4_194_304,
            4_194_305,
        ] {
            all.push(case(elem, len, "", None, values));
        }
        // Each variant at its own tile boundaries (tile = 256·items).
        for variant in ScanVariant::ALL {
            let tile = 256 * variant.items as usize;
            for len in [tile - 1, tile, tile + 1, 3 * tile + 5] {
                all.push(case(elem, len, "", Some(variant), values));
            }
        }
    }
    all.push(
        case(Elem::I32, 100_003, " all i32::MAX (wraps)", None, |_, n| {
            vec![i32::MAX as u32; n]
        })
        .repeated(5),
    );
    all.push(case(Elem::F32, 1_000_003, " x20 bit-identical", None, f32_words).repeated(20));
    // Subnormal terms: within the bound whether a device keeps or flushes
    // them.
    all.push(case(Elem::F32, 65_537, " with subnormals", None, |s, n| {
        bytemuck::cast_vec(inputs::f32_with_subnormals(s, n))
    }));
    // NaN and infinities propagate to every later output.
    all.push(case(
        Elem::F32,
        65_537,
        " with NaN and Inf",
        None,
        |s, n| bytemuck::cast_vec(inputs::f32_with_nonfinite(s, n)),
    ));
    all.push(
        case(
            Elem::U32,
            65_537,
            " x20 bit-identical",
            None,
            inputs::u32_values,
        )
        .repeated(20),
    );
    // Signed zeros, bit-exact: the sums stay −0 while only −0s have been
    // added (numpy.cumsum; every tile once started from +0 and made them +0).
    for variant in std::iter::once(None).chain(ScanVariant::ALL.map(Some)) {
        let len = 3 * 256 * variant.map_or(8, |v| v.items as usize) + 5;
        all.push(signed_zeros_case(len, variant));
    }
    for variant in ScanVariant::ALL {
        let name = format!(
            "scan u32 of ones, 5 tiles + 7 on a grid 3 wide {}",
            variant.name()
        );
        all.push(Case::new(name, "scan", CaseGroup::Ops, true, move || {
            NarrowGrid { variant }
        }));
    }
    // Writes stop at n: a length no vector or tile divides, every variant.
    for variant in ScanVariant::ALL {
        for len in [
            3,
            256 * variant.items as usize + 1,
            3 * 256 * variant.items as usize + 5,
        ] {
            let name = case_name(
                Elem::F32,
                len,
                " NaN past the input, output kept past n",
                Some(variant),
            );
            let s = seed(&name);
            all.push(Case::new(name, "scan", CaseGroup::Ops, true, move || {
                PaddedScan {
                    values: inputs::f32_values(s, len),
                    variant,
                }
            }));
        }
    }
    all.extend(limits_cases());
    all.extend(error_cases());
    all
}

/// A u32 scan of generated values, uploaded in chunks and checked at sampled
/// outputs (plus both ends), for sizes too large to hold twice on the host.
struct LargeScan {
    len: u64,
    value: fn(u64) -> u32,
    /// The expected prefix at `i`.
    prefix: fn(u64) -> u32,
    reason_on_cpu: Option<&'static str>,
}

impl Check for LargeScan {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let caps = &backend.info().caps;
        let bytes = self.len * 4;
        if let (true, Some(why)) = (caps.device_type.is_cpu(), self.reason_on_cpu) {
            return Ok(Verdict::skip(why));
        }
        if bytes > caps.max_buffer_bytes
            || (caps.memory_bytes > 0 && 2 * bytes + (bytes >> 3) > caps.memory_bytes)
        {
            return Ok(Verdict::skip(format!(
                "needs two buffers of {} MiB; the device allows {} MiB each, has {} MiB",
                bytes >> 20,
                caps.max_buffer_bytes >> 20,
                caps.memory_bytes >> 20
            )));
        }
        let len = usize::try_from(self.len).map_err(|_| Error::InvalidArgument("length".into()))?;
        let plan = ScanPlan::new(
            backend,
            &ScanSpec {
                elem: Elem::U32,
                len,
            },
        )?;
        let input = backend.alloc(bytes)?;
        const CHUNK: u64 = 1 << 24;
        let mut start = 0;
        while start < self.len {
            let end = (start + CHUNK).min(self.len);
            let words: Vec<u32> = (start..end).map(self.value).collect();
            backend.write(&input, start * 4, bytemuck::cast_slice(&words))?;
            start = end;
        }
        let output = backend.alloc(bytes)?;
        plan.encode(&input, &output)?;
        for i in checked_indices(len) {
            let mut word = [0u8; 4];
            backend.read(&output, i as u64 * 4, &mut word)?;
            let (got, want) = (u32::from_le_bytes(word), (self.prefix)(i as u64));
            if got != want {
                return Ok(Verdict::fail(format!(
                    "output {i}: got {got}, expected {want}"
                )));
            }
        }
        Ok(Verdict::pass(format!("{} passes", plan.passes())))
    }
}

/// Long scans whose every output is exact, so dropped or repeated work shows
/// (random data would hide it under the error bound), and index arithmetic
/// past 2^31.
fn limits_cases() -> Vec<Case> {
    let mut all = vec![
        Case::new(
            "scan f32 of 0/1 values n=4194307 (exact in any order)",
            "scan",
            CaseGroup::Limits,
            false,
            || {
                let s = seed("scan f32 0/1");
                let words: Vec<u32> = (0..(1u64 << 22) + 3)
                    .map(|i| ((inputs::bits(s, i) & 1) as f32).to_bits())
                    .collect();
                ScanCheck::new(Elem::F32, words, None, true)
            },
        ),
        Case::new(
            "scan u32 of ones n=67108869 (long, exact)",
            "scan",
            CaseGroup::Limits,
            false,
            || LargeScan {
                len: (1 << 26) + 5,
                value: |_| 1,
                prefix: |i| (i + 1) as u32,
                reason_on_cpu: None,
            },
        ),
    ];
    // More than 65 535 workgroups along x at 16 items per invocation
    // (4096-element tiles): the plan spreads them over x and y.
    all.push(Case::new(
        "scan u32 of ones n=268435457 (over 65535 workgroups)",
        "scan",
        CaseGroup::Limits,
        false,
        || LargeScan {
            len: (1 << 28) + 1,
            value: |_| 1,
            prefix: |i| (i + 1) as u32,
            reason_on_cpu: Some("2 GiB of scan is too slow for a CPU-type device"),
        },
    ));
    all.push(Case::new(
        "scan u32 of indices n=2147483655 (past 2^31)",
        "scan",
        CaseGroup::Limits,
        false,
        || LargeScan {
            len: (1 << 31) + 7,
            value: |i| i as u32,
            prefix: |i| ((i as u128 * (i as u128 + 1) / 2) & 0xffff_ffff) as u32,
            reason_on_cpu: Some("16 GiB of scan is too slow for a CPU-type device"),
        },
    ));
    all
}

fn error_cases() -> Vec<Case> {
    vec![Case::new(
        "scan rejects an output buffer shorter than its length",
        "scan",
        CaseGroup::Errors,
        true,
        || Rejects {
            expected: "ShapeMismatch",
            is_expected: |e| matches!(e, Error::ShapeMismatch(_)),
            call: |ctx| {
                let plan = ScanPlan::new(
                    ctx.backend,
                    &ScanSpec {
                        elem: Elem::U32,
                        len: 1000,
                    },
                )?;
                let input = ctx.backend.alloc(4000)?;
                let short = ctx.backend.alloc(3996)?;
                plan.encode(&input, &short)
            },
        },
    )]
}

/// The values a drawn scan takes (f32 unless said).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// f32 uniform in [−1, 1); i32 and u32 over their whole range (sums
    /// wrap).
    Random,
    /// Integers in [−k, k] with n·k ≤ 2^24: every partial sum is exact, so
    /// every output must be too, bit for bit.
    Integers,
    /// Random values, every fourth a subnormal or zero.
    WithSubnormals,
    /// Random values with one NaN or infinity (`bits`) at `at`: every
    /// later output is NaN or that infinity.
    Special { bits: u32, at: usize },
    /// Random values with +Inf, NaN and −Inf (`inputs::f32_with_nonfinite`).
    NanAndInf,
    /// Two thirds −0, then ones, +0s and −0s ([`signed_zeros_case`]).
    SignedZeros,
    /// i32::MAX or u32::MAX everywhere (sums wrap).
    AllMax,
    /// Integer ones: output `i` is `i + 1`.
    Ones,
}

/// Special values a drawn f32 scan holds one of.
const SPECIALS: [u32; 4] = [0x7fc0_0000, 0xff80_0001, 0x7f80_0000, 0xff80_0000];

impl Kind {
    /// The kinds `elem` takes (positions are drawn by [`Kind::draw`]).
    fn all(elem: Elem) -> &'static [Kind] {
        const F32: [Kind; 6] = [
            Kind::Random,
            Kind::Integers,
            Kind::WithSubnormals,
            Kind::Special { bits: 0, at: 0 },
            Kind::NanAndInf,
            Kind::SignedZeros,
        ];
        const INT: [Kind; 3] = [Kind::Random, Kind::AllMax, Kind::Ones];
        if elem == Elem::F32 {
            &F32
        } else {
            &INT
        }
    }

    fn draw(draw: &mut Draw, elem: Elem, len: usize) -> Kind {
        if len == 0 {
            return Kind::Random;
        }
        match *draw.pick(Kind::all(elem)) {
            Kind::Special { .. } => Kind::Special {
                bits: *draw.pick(&SPECIALS),
                at: match draw.below(3) {
                    0 => 0,
                    1 => len - 1,
                    _ => draw.below(len),
                },
            },
            other => other,
        }
    }

    fn label(self, elem: Elem) -> String {
        match self {
            Kind::Random => "random".into(),
            Kind::Integers => "exact integers".into(),
            Kind::WithSubnormals => "with subnormals".into(),
            Kind::Special { bits, at } if f32::from_bits(bits).is_nan() => {
                format!("NaN {bits:#010x} at {at}")
            }
            Kind::Special { bits, at } => format!("{} at {at}", f32::from_bits(bits)),
            Kind::NanAndInf => "with NaN and Inf".into(),
            Kind::SignedZeros => "signed zeros".into(),
            Kind::AllMax => format!("all {elem}::MAX (wraps)"),
            Kind::Ones => "ones".into(),
        }
    }

    /// The check of `len` values of `elem` from `seed` (plain buffers, the
    /// grid as wide as the device allows).
    fn check(self, elem: Elem, seed: u64, len: usize, variant: Option<ScanVariant>) -> ScanCheck {
        let words = match self {
            Kind::Random => values_for(elem)(seed, len),
            Kind::Integers => {
                let k = ((1usize << 24) / len.max(1)).clamp(1, 1000) as u32;
                inputs::u32_below(seed, len, 2 * k + 1)
                    .into_iter()
                    .map(|v| ((f64::from(v) - f64::from(k)) as f32).to_bits())
                    .collect()
            }
            Kind::WithSubnormals => bytemuck::cast_vec(inputs::f32_with_subnormals(seed, len)),
            Kind::Special { bits, at } => {
                let mut x = f32_words(seed, len);
                x[at] = bits;
                x
            }
            Kind::NanAndInf => bytemuck::cast_vec(inputs::f32_with_nonfinite(seed, len)),
            Kind::SignedZeros => {
                let (words, expected) = signed_zeros(len);
                return ScanCheck {
                    elem,
                    words,
                    variant,
                    exact: Vec::new(),
                    expected,
                    max_x: None,
                    padded: false,
                };
            }
            Kind::AllMax if elem == Elem::I32 => vec![i32::MAX as u32; len],
            Kind::AllMax => vec![u32::MAX; len],
            Kind::Ones => vec![1; len],
        };
        ScanCheck::new(elem, words, variant, self == Kind::Integers)
    }
}

/// How a drawn scan is planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Planned {
    /// The plan's own choice ([`ScanPlan::new`]).
    OwnChoice,
    /// A variant forced.
    Forced(ScanVariant),
    /// A variant forced on a grid at most `max_x` workgroups wide, so tiles
    /// lie along y ([`NarrowGrid`]).
    Narrow(ScanVariant, u32),
}

/// Everything a drawn scan case is made of.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Drawn {
    elem: Elem,
    len: usize,
    kind: Kind,
    planned: Planned,
    /// NaN past the input, the sentinel past the output ([`PaddedScan`]).
    padded: bool,
    /// Runs per device, bit-identical.
    repeat: usize,
    seed: u64,
}

impl Drawn {
    fn draw(draw: &mut Draw) -> Drawn {
        let elem = *draw.pick(&[Elem::F32, Elem::I32, Elem::U32]);
        let len = if draw.chance(3) {
            0
        } else {
            draw.length(random::MAX_LEN)
        };
        let kind = Kind::draw(draw, elem, len);
        let variant = *draw.pick(&ScanVariant::ALL);
        let planned = match draw.below(7) {
            0 => Planned::OwnChoice,
            1..=3 => Planned::Forced(variant),
            // Narrow grids: 1 wide (every tile along y) to 3 (a last row
            // with workgroups past the last tile).
            _ => Planned::Narrow(variant, draw.between(1, 3) as u32),
        };
        Drawn {
            elem,
            len,
            kind,
            planned,
            padded: draw.chance(30),
            repeat: if draw.chance(10) { 3 } else { 1 },
            seed: draw.seed(),
        }
    }

    fn name(&self) -> String {
        let planned = match self.planned {
            Planned::OwnChoice => "own choice".to_string(),
            Planned::Forced(v) => v.name(),
            Planned::Narrow(v, x) => format!("{} on a grid {x} wide", v.name()),
        };
        let mut name = format!(
            "scan {} n={} {} {planned}",
            self.elem,
            self.len,
            self.kind.label(self.elem)
        );
        if self.padded {
            name += " padded";
        }
        if self.repeat > 1 {
            name += &format!(" x{} bit-identical", self.repeat);
        }
        name
    }

    fn check(&self) -> ScanCheck {
        let (variant, max_x) = match self.planned {
            Planned::OwnChoice => (None, None),
            Planned::Forced(v) => (Some(v), None),
            Planned::Narrow(v, x) => (Some(v), Some(x)),
        };
        let mut check = self.kind.check(self.elem, self.seed, self.len, variant);
        check.max_x = max_x;
        check.padded = self.padded;
        check
    }

    fn case(self) -> Case {
        Case::new(self.name(), "scan", CaseGroup::Random, true, move || {
            self.check()
        })
        .repeated(self.repeat)
    }
}

/// A case of the `random` group (see `Op::random_case`): an element type,
/// length, kind of values and plan (its own choice, a forced variant, or
/// one on a narrow grid) drawn from `draw`, plain or padded.
pub(super) fn drawn_case(draw: &mut Draw) -> Case {
    Drawn::draw(draw).case()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::mem::discriminant;

    fn draws(seed: u64, count: u64) -> Vec<Drawn> {
        crate::op::random::testing::draws("scan", seed, count, Drawn::draw)
    }

    #[test]
    fn draws_cover_every_plan_type_and_kind_within_limits() {
        let all = draws(1, 500);
        let mut plans = BTreeSet::new();
        let mut kinds = BTreeSet::new();
        for d in &all {
            assert!(d.len <= random::MAX_LEN, "{d:?}");
            let index = Kind::all(d.elem)
                .iter()
                .position(|k| discriminant(k) == discriminant(&d.kind))
                .unwrap_or_else(|| panic!("{d:?}"));
            kinds.insert((d.elem.name(), index));
            if let Kind::Special { at, .. } = d.kind {
                assert!(at < d.len, "{d:?}");
            }
            plans.insert(match d.planned {
                Planned::OwnChoice => "own".to_string(),
                Planned::Forced(v) => v.name(),
                Planned::Narrow(v, x) => {
                    assert!((1..=3).contains(&x), "{d:?}");
                    format!("{} {x} wide", v.name())
                }
            });
            let check = d.check();
            assert_eq!(check.words.len(), d.len);
            assert_eq!(check.padded, d.padded);
        }
        // Own choice, 3 variants, 3 variants on grids 1, 2 and 3 wide.
        assert_eq!(plans.len(), 1 + 3 + 9, "{plans:?}");
        assert_eq!(kinds.len(), 6 + 3 + 3, "{kinds:?}");
        let any = |f: &dyn Fn(&Drawn) -> bool| all.iter().any(f);
        assert!(any(&|d| d.padded) && any(&|d| !d.padded) && any(&|d| d.repeat > 1));
        assert!(any(&|d| d.len == 0));
        assert!(any(&|d| d.len > 1 << 12 && (d.len - 1).is_power_of_two()));
        let specials: BTreeSet<u32> = all
            .iter()
            .filter_map(|d| match d.kind {
                Kind::Special { bits, .. } => Some(bits),
                _ => None,
            })
            .collect();
        assert_eq!(specials.len(), SPECIALS.len());
        assert_eq!(draws(1, 500), all);
    }

    #[test]
    fn exact_kinds_are_checked_bit_for_bit() {
        for (elem, kind) in [
            (Elem::F32, Kind::Integers),
            (Elem::F32, Kind::SignedZeros),
            (Elem::U32, Kind::Ones),
            (Elem::I32, Kind::AllMax),
        ] {
            let check = kind.check(elem, 3, 70_001, None);
            assert_eq!(check.expected.len(), 70_001, "{elem} {kind:?}");
            assert!(check.exact.is_empty());
        }
        // Exact integers: no partial sum in any order passes 2^24.
        let check = Kind::Integers.check(Elem::F32, 3, 70_001, None);
        let values: &[f32] = bytemuck::cast_slice(&check.words);
        let total: f64 = values.iter().map(|v| f64::from(v.abs())).sum();
        assert!(total <= 16_777_216.0 && values.iter().all(|v| v.fract() == 0.0));
        let random = Kind::Random.check(Elem::F32, 3, 1000, None);
        assert!(random.expected.is_empty() && random.exact.len() == 1000);
    }

    #[test]
    fn drawn_cases_pass_on_the_cpu_backend() {
        let verdicts = random::testing::drawn_on_cpu("scan", 11, 40, drawn_case);
        let failed = random::testing::not_passed(&verdicts);
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }

    #[test]
    fn a_wrong_output_fails() {
        random::testing::on_cpu(|ctx| {
            let d = Drawn {
                elem: Elem::U32,
                len: 3 * 1024 + 5,
                kind: Kind::Ones,
                planned: Planned::Narrow(ScanVariant { items: 4 }, 2),
                padded: true,
                repeat: 1,
                seed: 1,
            };
            let mut check = d.check();
            assert!(check.run(ctx).unwrap().passed());
            check.expected[3000] += 1;
            let v = check.run(ctx).unwrap();
            assert!(
                !v.passed() && v.detail.contains("first at 3000"),
                "{}",
                v.detail
            );
        });
    }
}
