//! Scan's conformance cases: lengths around every group-size and pass
//! boundary for each variant, wrapping integers, and long exact scans.

use super::plan::{scan_slice, ScanPlan, ScanVariant};
use super::spec::{prefix_bound, prefix_f32, prefix_words, ScanSpec};
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
        }
    }
}

impl Check for ScanCheck {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let got: Vec<u32> = match self.variant {
            None => match self.elem {
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
            Some(variant) => {
                let spec = ScanSpec {
                    elem: self.elem,
                    len: self.words.len(),
                };
                let plan = ScanPlan::with_variant(ctx.backend, &spec, variant)?;
                let input = Buffer::from_slice(ctx.backend, &self.words)?;
                let output = ctx.backend.alloc(self.words.len() as u64 * 4)?;
                plan.encode(&input, &output)?;
                output.read(self.words.len())?
            }
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
        ScanCheck {
            elem: Elem::F32,
            words: bytemuck::cast_vec(values),
            variant,
            exact: Vec::new(),
            expected,
        }
    })
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
