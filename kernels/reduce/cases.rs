//! Reduce's conformance cases. Inputs are seeded by the case name.

use super::plan::reduce_slice;
use super::plan::{ReducePlan, ReduceVariant};
use super::spec::{min_max_f32, reduce_int, sum_bound, sum_f32, IntElem, ReduceOp, ReduceSpec};
use crate::op::random::{self, Draw};
use crate::op::{
    compare_bounded, compare_exact, fingerprint, seed, Case, CaseGroup, Check, Context, Rejects,
    Verdict,
};
use crate::op::{padding, Exact};
use rosetta_core::{inputs, Buffer, Elem, Element, Error, Result};

/// Largest input of the `--quick` subset (elements).
const QUICK_MAX: usize = 70_000;

/// Sizes around the workgroup (256) and vector-tile (1024) boundaries, primes,
/// and one past 2^24 that needs several passes.
const SIZES: [usize; 9] = [1, 255, 256, 257, 1023, 1025, 7919, 1_000_003, (1 << 24) + 3];

/// A seeded input generator: `(seed, len) -> words`.
type Values = fn(u64, usize) -> Vec<u32>;

/// Run through the plan, with `variant` forced when given.
fn run<T: Element>(
    ctx: &Context<'_>,
    x: &[T],
    op: ReduceOp,
    variant: Option<ReduceVariant>,
) -> Result<T> {
    match variant {
        None => reduce_slice(ctx.backend, x, op),
        Some(variant) => {
            let spec = ReduceSpec {
                elem: T::ELEM,
                op,
                len: x.len(),
            };
            let plan = ReducePlan::with_variant(ctx.backend, &spec, variant)?;
            let input = Buffer::from_slice(ctx.backend, x)?;
            let output = ctx.backend.alloc(4)?;
            plan.encode(&input, &output)?;
            Ok(output.read::<T>(1)?[0])
        }
    }
}

struct ReduceF32 {
    x: Vec<f32>,
    op: ReduceOp,
    variant: Option<ReduceVariant>,
    sum: Exact,
    min_max: Option<f32>,
}

impl Check for ReduceF32 {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let got = run(ctx, &self.x, self.op, self.variant)?;
        Ok(judge_f32(&self.x, self.op, &self.sum, self.min_max, got))
    }
}

/// An f32 result of `op` over `x` against its reference: a sum within its
/// bound (`sum`), min / max (`min_max`) bit for bit.
fn judge_f32(x: &[f32], op: ReduceOp, sum: &Exact, min_max: Option<f32>, got: f32) -> Verdict {
    match op {
        ReduceOp::Sum => {
            let n = x.len();
            let v = compare_bounded(&[got], &[*sum], |_, e| sum_bound(n, e));
            // Zeros only: the sum is exact in any order and its sign
            // defined — −0 where every value is −0 (x + −0 == x, +0 +
            // −0 == +0), else +0, and +0 for no values (as numpy).
            if !x.iter().all(|x| *x == 0.0) {
                return v;
            }
            let negative = n > 0 && x.iter().all(|x| x.is_sign_negative());
            let expected = if negative { -0.0f32 } else { 0.0 };
            if got.to_bits() == expected.to_bits() {
                v
            } else {
                let mut v = Verdict::fail(format!(
                    "got {got:e}, expected {expected:e} (the sign of a sum of zeros)"
                ));
                v.fingerprint = fingerprint(&[got]);
                v
            }
        }
        ReduceOp::Min | ReduceOp::Max => {
            let expected = min_max.unwrap_or(f32::NAN);
            // Exact bits: −0 orders below +0, so the sign of a zero
            // result is defined too, and a NaN result is the quiet NaN
            // 0x7fc00000 whatever NaN came in (mod.rs, "Semantics of
            // combine").
            let same = got.to_bits() == expected.to_bits();
            let mut v = if same {
                Verdict::pass("")
            } else {
                // The bits too: two NaNs (or zeros) print alike.
                Verdict::fail(format!(
                    "got {got:e} ({:#010x}), expected {expected:e} ({:#010x})",
                    got.to_bits(),
                    expected.to_bits()
                ))
            };
            v.fingerprint = fingerprint(&[got]);
            v
        }
    }
}

struct ReduceInt<T> {
    x: Vec<T>,
    op: ReduceOp,
    variant: Option<ReduceVariant>,
    expected: Option<T>,
}

impl<T: Element + IntElem> Check for ReduceInt<T> {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let got = run(ctx, &self.x, self.op, self.variant)?;
        let expected = self
            .expected
            .ok_or_else(|| Error::Internal("reference of an empty min/max".into()))?;
        Ok(compare_exact(&[got], &[expected]))
    }
}

fn case(
    elem: Elem,
    op: ReduceOp,
    len: usize,
    label: &str,
    values: Values,
    variant: Option<ReduceVariant>,
) -> Case {
    let variant_label = variant
        .map(|v| format!(" {}", v.name()))
        .unwrap_or_default();
    let name = format!("reduce {elem} {op} n={len}{label}{variant_label}");
    let s = seed(&name);
    let quick = len <= QUICK_MAX;
    match elem {
        Elem::F32 => Case::new(name, "reduce", CaseGroup::Ops, quick, move || {
            let x: Vec<f32> = bytemuck::cast_vec(values(s, len));
            let (sum, min_max) = match op {
                ReduceOp::Sum => (sum_f32(&x), None),
                _ => (Exact::default(), min_max_f32(&x, op)),
            };
            ReduceF32 {
                x,
                op,
                variant,
                sum,
                min_max,
            }
        }),
        Elem::I32 => Case::new(name, "reduce", CaseGroup::Ops, quick, move || {
            let x: Vec<i32> = bytemuck::cast_vec(values(s, len));
            let expected = reduce_int(&x, op);
            ReduceInt {
                x,
                op,
                variant,
                expected,
            }
        }),
        _ => Case::new(name, "reduce", CaseGroup::Ops, quick, move || {
            let x = values(s, len);
            let expected = reduce_int(&x, op);
            ReduceInt {
                x,
                op,
                variant,
                expected,
            }
        }),
    }
}

fn f32_words(seed: u64, len: usize) -> Vec<u32> {
    bytemuck::cast_vec(inputs::f32_values(seed, len))
}

/// Random 32-bit words with only the bits of `keep` left random and those
/// of `set` set: `(bits & keep) | set`.
fn masked_bits(seed: u64, len: usize, keep: u32, set: u32) -> Vec<u32> {
    inputs::u32_values(seed, len)
        .into_iter()
        .map(|bits| (bits & keep) | set)
        .collect()
}

/// Random subnormal f32 values (and ±0) of both signs.
fn subnormals(seed: u64, len: usize) -> Vec<u32> {
    masked_bits(seed, len, 0x807f_ffff, 0)
}

/// A NaN with the sign bit set and the quiet bit clear.
const NEGATIVE_SIGNALLING_NAN: u32 = 0xff80_0001;
/// A quiet NaN with a payload (not the canonical `0x7fc00000`).
const PAYLOAD_NAN: u32 = 0x7fc0_0123;

fn with_special(seed: u64, len: usize, at: usize, value: f32) -> Vec<u32> {
    bytemuck::cast_vec(inputs::f32_with_value_at(seed, len, at, value))
}

/// Every reduce case.
pub fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    for elem in [Elem::F32, Elem::I32, Elem::U32] {
        let values: Values = if elem == Elem::F32 {
            f32_words
        } else {
            inputs::u32_values
        };
        // Empty: the sum is 0 (min/max of nothing is an error case below).
        all.push(case(elem, ReduceOp::Sum, 0, "", values, None));
        for len in SIZES {
            for op in ReduceOp::ALL {
                // One large case per element type and op keeps CI time sane.
                if len > 2_000_000 && !matches!((elem, op), (Elem::F32, _) | (_, ReduceOp::Sum)) {
                    continue;
                }
                all.push(case(elem, op, len, "", values, None));
            }
        }
        // Every variant, forced, whatever the device would choose.
        for variant in ReduceVariant::ALL {
            for op in ReduceOp::ALL {
                all.push(case(elem, op, 65_537, "", values, Some(variant)));
            }
        }
    }
    // Special values: NaN propagates through min and max, infinities win;
    // sums with subnormals stay within the bound whether a device keeps or
    // flushes them.
    let specials: [(&str, ReduceOp, Values); 13] = [
        (" NaN inside", ReduceOp::Min, |s, n| {
            with_special(s, n, 4_321, f32::NAN)
        }),
        (" NaN inside", ReduceOp::Max, |s, n| {
            with_special(s, n, 4_321, f32::NAN)
        }),
        (" NaN in the tail", ReduceOp::Max, |s, n| {
            with_special(s, n, n - 1, f32::from_bits(PAYLOAD_NAN))
        }),
        (" NaN first", ReduceOp::Min, |s, n| {
            with_special(s, n, 0, f32::from_bits(NEGATIVE_SIGNALLING_NAN))
        }),
        (" -Inf", ReduceOp::Min, |s, n| {
            with_special(s, n, 777, f32::NEG_INFINITY)
        }),
        (" +Inf", ReduceOp::Max, |s, n| {
            with_special(s, n, 5_000, f32::INFINITY)
        }),
        // Only subnormals and zeros of both signs: exact only where min / max
        // don't go through float comparisons that flush subnormals to zero.
        (" subnormals", ReduceOp::Min, subnormals),
        (" subnormals", ReduceOp::Max, subnormals),
        (" subnormals", ReduceOp::Sum, subnormals),
        (" with subnormals", ReduceOp::Sum, |s, n| {
            bytemuck::cast_vec(inputs::f32_with_subnormals(s, n))
        }),
        // Sums: NaN propagates, an infinity wins, +Inf + -Inf is NaN.
        (" NaN inside", ReduceOp::Sum, |s, n| {
            with_special(s, n, 4_321, f32::NAN)
        }),
        (" +Inf", ReduceOp::Sum, |s, n| {
            with_special(s, n, 5_000, f32::INFINITY)
        }),
        (" +Inf and -Inf", ReduceOp::Sum, |s, n| {
            let mut x: Vec<u32> = with_special(s, n, 17, f32::INFINITY);
            x[n - 17] = f32::NEG_INFINITY.to_bits();
            x
        }),
    ];
    for (label, op, values) in specials {
        all.push(case(Elem::F32, op, 10_007, label, values, None));
    }
    // Min and max of NaNs that are not the quiet NaN 0x7fc00000 give exactly
    // that NaN on every variant (the tree's combine and the subgroup
    // reductions alike), wherever the NaN lies.
    let odd_nans: [(&str, Values); 2] = [
        (" negative signalling NaN", |s, n| {
            let mut x = with_special(s, n, 3, f32::from_bits(NEGATIVE_SIGNALLING_NAN));
            x[n / 2] = NEGATIVE_SIGNALLING_NAN;
            x
        }),
        (" NaN with a payload last", |s, n| {
            with_special(s, n, n - 1, f32::from_bits(PAYLOAD_NAN))
        }),
    ];
    for variant in ReduceVariant::ALL {
        for (label, values) in odd_nans {
            for op in [ReduceOp::Min, ReduceOp::Max] {
                all.push(case(Elem::F32, op, 4_099, label, values, Some(variant)));
            }
        }
    }
    // A lone odd NaN is never combined with another value, and still comes
    // back as the quiet NaN (the reference once gave it back as it came, and
    // failed the one-launch tree, which was right).
    let lone_nans: [(&str, Values); 2] = [
        (" lone negative signalling NaN", |_, n| {
            vec![NEGATIVE_SIGNALLING_NAN; n]
        }),
        (" lone NaN with a payload", |_, n| vec![PAYLOAD_NAN; n]),
    ];
    for variant in ReduceVariant::ALL.map(Some).into_iter().chain([None]) {
        for (label, values) in lone_nans {
            for op in [ReduceOp::Min, ReduceOp::Max] {
                all.push(case(Elem::F32, op, 1, label, values, variant));
            }
        }
    }
    // Zeros of both signs through every variant: the min of −0 and +0 is −0
    // and the max +0 in any order, the max of −0s is −0 (the subgroup
    // variants once mapped every zero to +0); the sum of −0s is −0 (the
    // sum's identity was +0, which made it +0), of −0s and +0s +0.
    let zeros: [(&str, Values); 2] = [
        (" all -0", |_, n| vec![0x8000_0000; n]),
        (" -0 and +0", |s, n| masked_bits(s, n, 0x8000_0000, 0)),
    ];
    let (all_negative, values) = zeros[0];
    all.push(case(
        Elem::F32,
        ReduceOp::Sum,
        1,
        all_negative,
        values,
        None,
    ));
    for (label, values) in zeros {
        for op in [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max] {
            all.push(case(Elem::F32, op, 10_007, label, values, None));
            for variant in ReduceVariant::ALL {
                all.push(case(Elem::F32, op, 10_007, label, values, Some(variant)));
            }
        }
    }
    // Values of one sign at a size no workgroup divides, through every
    // variant: the padding of a partial group must be the op's identity
    // (+Inf, i32::MAX or u32::MAX for min, -Inf or i32::MIN for max).
    // Random values span zero, so a padding of 0 would pass them unseen;
    // the infinities and the u32 values past i32::MAX catch an identity
    // one step short (f32::MAX for +Inf, i32::MAX for u32::MAX), which a
    // kernel passed when no case held values beyond it.
    let one_signed: [(&str, Elem, ReduceOp, Values); 7] = [
        (" all in [1, 2)", Elem::F32, ReduceOp::Min, |s, n| {
            masked_bits(s, n, 0x007f_ffff, 0x3f80_0000)
        }),
        (" all in (-2, -1]", Elem::F32, ReduceOp::Max, |s, n| {
            masked_bits(s, n, 0x007f_ffff, 0xbf80_0000)
        }),
        (" all positive", Elem::I32, ReduceOp::Min, |s, n| {
            masked_bits(s, n, 0x7fff_ffff, 1)
        }),
        (" all negative", Elem::I32, ReduceOp::Max, |s, n| {
            masked_bits(s, n, 0xffff_ffff, 0x8000_0000)
        }),
        (" all +Inf", Elem::F32, ReduceOp::Min, |_, n| {
            bytemuck::cast_vec(vec![f32::INFINITY; n])
        }),
        (" all -Inf", Elem::F32, ReduceOp::Max, |_, n| {
            bytemuck::cast_vec(vec![f32::NEG_INFINITY; n])
        }),
        (" all >= 2^31", Elem::U32, ReduceOp::Min, |s, n| {
            masked_bits(s, n, 0x7fff_ffff, 0x8000_0000)
        }),
    ];
    for (label, elem, op, values) in one_signed {
        all.push(case(elem, op, 4_099, label, values, None));
        for variant in ReduceVariant::ALL {
            all.push(case(elem, op, 4_099, label, values, Some(variant)));
        }
    }
    // Integer sums that wrap, bit-identical over 20 runs.
    all.push(
        case(
            Elem::I32,
            ReduceOp::Sum,
            100_003,
            " all i32::MAX (wraps)",
            |_, n| vec![i32::MAX as u32; n],
            None,
        )
        .repeated(20),
    );
    all.push(
        case(
            Elem::U32,
            ReduceOp::Sum,
            1_000_003,
            " x20 bit-identical",
            inputs::u32_values,
            None,
        )
        .repeated(20),
    );
    all.push(
        case(
            Elem::I32,
            ReduceOp::Min,
            65_537,
            " x20 bit-identical",
            inputs::u32_values,
            None,
        )
        .repeated(20),
    );
    // One plan, many launches back to back without a wait between them:
    // the one-launch variants' arrival counter must be back at zero for
    // each next launch.
    for variant in ReduceVariant::ALL {
        for len in [65_537, 1_000_003] {
            let name = format!(
                "reduce u32 sum n={len} one plan x6 back to back {}",
                variant.name()
            );
            let s = seed(&name);
            all.push(Case::new(
                name,
                "reduce",
                CaseGroup::Ops,
                len < QUICK_MAX,
                move || BackToBack::new(s, len, variant),
            ));
        }
    }
    all.extend(error_cases());
    all.extend(limits_cases());
    all
}

/// One plan encoded on several inputs in a row, all results read after the
/// last launch, each checked exactly.
struct BackToBack {
    inputs: Vec<Vec<u32>>,
    variant: ReduceVariant,
}

impl BackToBack {
    const RUNS: usize = 6;

    fn new(seed: u64, len: usize, variant: ReduceVariant) -> Self {
        let inputs = (0..Self::RUNS as u64)
            .map(|run| inputs::u32_values(seed ^ run, len))
            .collect();
        BackToBack { inputs, variant }
    }
}

impl Check for BackToBack {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let len = self.inputs[0].len();
        let spec = ReduceSpec {
            elem: Elem::U32,
            op: ReduceOp::Sum,
            len,
        };
        let plan = ReducePlan::with_variant(ctx.backend, &spec, self.variant)?;
        let mut outputs = Vec::new();
        for x in &self.inputs {
            let input = Buffer::from_slice(ctx.backend, x)?;
            let output = ctx.backend.alloc(4)?;
            plan.encode(&input, &output)?;
            outputs.push((input, output));
        }
        let mut got = Vec::new();
        for (_, output) in &outputs {
            got.push(output.read::<u32>(1)?[0]);
        }
        let expected = self
            .inputs
            .iter()
            .map(|x| reduce_int(x, ReduceOp::Sum))
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(|| Error::Internal("reference of a sum".into()))?;
        let mut verdict = compare_exact(&got, &expected);
        if verdict.status != crate::op::Status::Passed {
            return Ok(verdict);
        }
        if let Some(fail) = scratch_left(ctx, &plan)? {
            return Ok(fail);
        }
        verdict.detail = format!("{} launch(es) per run", plan.launches());
        Ok(verdict)
    }
}

/// The failure when a one-launch plan's scratch is not clean once its
/// launches are done; `None` when it is, or the plan has none.
fn scratch_left(ctx: &Context<'_>, plan: &ReducePlan) -> Result<Option<Verdict>> {
    // A one-launch plan leaves its scratch clean for the next launch
    // (the arrival counter; in WGSL the published words too: one left
    // behind could pass for the next launch's on a GPU that shows a
    // group's ticket before its word, which no CPU driver does).
    let Some(words) = plan.scratch_after()? else {
        return Ok(None);
    };
    let wgsl = ctx.backend.info().api.language() == rosetta_core::Language::Wgsl;
    let dirty = if wgsl { words.len() } else { 1 };
    Ok(words[..dirty].iter().position(|&w| w != 0).map(|i| {
        Verdict::fail(format!(
            "scratch word {i} is {:#x} after the last launch, not 0",
            words[i]
        ))
    }))
}

/// A u32 reduction of `len` generated values, uploaded in chunks (no host
/// copy of the whole input), checked exactly.
struct Generated {
    len: u64,
    op: ReduceOp,
    value: fn(u64) -> u32,
    expected: u32,
    /// Skip on CPU-type devices (too slow or too large for CI's machines).
    gpu_only: bool,
}

impl Check for Generated {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let caps = &backend.info().caps;
        let bytes = self.len * 4;
        if self.gpu_only && caps.device_type.is_cpu() {
            return Ok(Verdict::skip(format!(
                "{} MiB of input is too slow for a CPU-type device",
                bytes >> 20
            )));
        }
        if bytes > caps.max_buffer_bytes {
            return Ok(Verdict::skip(format!(
                "needs a buffer of {bytes} bytes; the device allows {}",
                caps.max_buffer_bytes
            )));
        }
        if caps.memory_bytes > 0 && bytes + (bytes >> 3) > caps.memory_bytes {
            return Ok(Verdict::skip(format!(
                "needs {} MiB; the device has {} MiB",
                bytes >> 20,
                caps.memory_bytes >> 20
            )));
        }
        let len = usize::try_from(self.len).map_err(|_| Error::InvalidArgument("length".into()))?;
        let spec = ReduceSpec {
            elem: Elem::U32,
            op: self.op,
            len,
        };
        let plan = ReducePlan::new(backend, &spec)?;
        let input = backend.alloc(bytes)?;
        const CHUNK: u64 = 1 << 24;
        let mut start = 0;
        while start < self.len {
            let end = (start + CHUNK).min(self.len);
            let words: Vec<u32> = (start..end).map(self.value).collect();
            backend.write(&input, start * 4, bytemuck::cast_slice(&words))?;
            start = end;
        }
        let output = backend.alloc(4)?;
        plan.encode(&input, &output)?;
        let got = output.read::<u32>(1)?[0];
        Ok(compare_exact(&[got], &[self.expected]))
    }
}

/// Values whose sum is exact in f32 in any order: 0s and 1s, at most 2^24.
struct ExactF32Sum {
    x: Vec<f32>,
}

impl Check for ExactF32Sum {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let got = reduce_slice(ctx.backend, &self.x, ReduceOp::Sum)?;
        let expected = self.x.iter().filter(|&&v| v == 1.0).count() as f32;
        Ok(compare_exact(&[got.to_bits()], &[expected.to_bits()]))
    }
}

/// Cases that dropped or repeated work would fail *visibly* (exact sums, not
/// random data under an error bound), and index arithmetic past 2^31.
fn limits_cases() -> Vec<Case> {
    let mut all = Vec::new();
    let ones = |n: u64| {
        Case::new(
            format!("reduce u32 sum of ones n={n} (long loops, exact)"),
            "reduce",
            CaseGroup::Limits,
            n < 1 << 21,
            move || Generated {
                len: n,
                op: ReduceOp::Sum,
                value: |_| 1,
                expected: n as u32,
                gpu_only: false,
            },
        )
    };
    all.push(ones((1 << 20) + 5));
    all.push(ones((1 << 26) + 5));
    all.push(Case::new(
        "reduce f32 sum of 0/1 values n=4194307 (exact in any order)",
        "reduce",
        CaseGroup::Limits,
        false,
        || {
            let s = seed("reduce f32 0/1");
            ExactF32Sum {
                x: (0..(1u64 << 22) + 3)
                    .map(|i| (inputs::bits(s, i) & 1) as f32)
                    .collect(),
            }
        },
    ));
    // Past 2^31 elements: u32 index arithmetic in every language (a wrapped
    // counter re-reads or skips elements; the sum of i and the max, the last
    // element, show it).
    let big: u64 = (1 << 31) + 7;
    let sum_of_indices = ((big * (big - 1) / 2) & 0xffff_ffff) as u32;
    all.push(Case::new(
        format!("reduce u32 sum of indices n={big} (past 2^31)"),
        "reduce",
        CaseGroup::Limits,
        false,
        move || Generated {
            len: big,
            op: ReduceOp::Sum,
            value: |i| i as u32,
            expected: sum_of_indices,
            gpu_only: true,
        },
    ));
    all.push(Case::new(
        format!("reduce u32 max of indices n={big} (the last element wins)"),
        "reduce",
        CaseGroup::Limits,
        false,
        move || Generated {
            len: big,
            op: ReduceOp::Max,
            value: |i| i as u32,
            expected: (big - 1) as u32,
            gpu_only: true,
        },
    ));
    all
}

fn error_cases() -> Vec<Case> {
    let rejects = |name: &str, expected, call, is_expected| {
        Case::new(
            format!("reduce rejects {name}"),
            "reduce",
            CaseGroup::Errors,
            true,
            move || Rejects {
                expected,
                call,
                is_expected,
            },
        )
    };
    vec![
        rejects(
            "min of an empty slice",
            "EmptyReduction",
            |ctx| reduce_slice::<f32>(ctx.backend, &[], ReduceOp::Min).map(drop),
            |e| matches!(e, Error::EmptyReduction { .. }),
        ),
        rejects(
            "max of an empty slice",
            "EmptyReduction",
            |ctx| reduce_slice::<u32>(ctx.backend, &[], ReduceOp::Max).map(drop),
            |e| matches!(e, Error::EmptyReduction { .. }),
        ),
        rejects(
            "an input buffer shorter than its length",
            "ShapeMismatch",
            |ctx| {
                let spec = ReduceSpec {
                    elem: Elem::F32,
                    op: ReduceOp::Sum,
                    len: 1000,
                };
                let plan = ReducePlan::new(ctx.backend, &spec)?;
                let short = ctx.backend.alloc(999 * 4)?;
                let out = ctx.backend.alloc(4)?;
                plan.encode(&short, &out)
            },
            |e| matches!(e, Error::ShapeMismatch(_)),
        ),
    ]
}

/// The values a drawn reduction takes (f32 unless said).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// f32 uniform in [−1, 1); i32 and u32 over their whole range.
    Random,
    /// Integers in [−k, k] with n·k ≤ 2^24: every partial sum is exact, so
    /// a sum must be too, bit for bit.
    Integers,
    /// Random values with the NaN `bits` at `at`.
    Nan { bits: u32, at: usize },
    /// Random values with an infinity at `at`.
    Inf { negative: bool, at: usize },
    /// Random values with +Inf at `at` and −Inf at `n − 1 − at` (a sum is
    /// NaN).
    BothInf { at: usize },
    /// Subnormals and zeros of both signs, nothing else.
    Subnormals,
    /// Random values, every fourth a subnormal or zero.
    WithSubnormals,
    /// −0 everywhere.
    AllNegativeZero,
    /// −0 and +0 at random.
    SignedZeros,
    /// Values of one sign, so a partial group padded with anything but the
    /// op's identity shows: f32 in [1, 2) or (−2, −1], i32 positive or
    /// negative, u32 below 2^31 or at and above it.
    OneSign { negative: bool },
    /// +Inf or −Inf everywhere.
    AllInf { negative: bool },
    /// i32::MAX or u32::MAX everywhere (sums wrap).
    AllMax,
}

/// NaNs a drawn case puts in its values: the quiet NaN the kernels give
/// for min and max, quiet ones with a payload or the sign set, signalling
/// ones of both signs.
const NANS: [u32; 5] = [
    0x7fc0_0000,
    PAYLOAD_NAN,
    0xffc0_0000,
    0x7f80_0001,
    NEGATIVE_SIGNALLING_NAN,
];

impl Kind {
    /// The kinds `elem` takes.
    fn all(elem: Elem) -> &'static [Kind] {
        use Kind::*;
        // Positions and signs are placeholders (`draw` draws them): these
        // lists say which kinds each type has.
        const F32: [Kind; 11] = [
            Random,
            Integers,
            Nan { bits: 0, at: 0 },
            Inf {
                negative: false,
                at: 0,
            },
            BothInf { at: 0 },
            Subnormals,
            WithSubnormals,
            AllNegativeZero,
            SignedZeros,
            OneSign { negative: false },
            AllInf { negative: false },
        ];
        const INT: [Kind; 3] = [Random, OneSign { negative: false }, AllMax];
        if elem == Elem::F32 {
            &F32
        } else {
            &INT
        }
    }

    /// A kind for `len` values of `elem`, its positions and signs drawn.
    fn draw(draw: &mut Draw, elem: Elem, len: usize) -> Kind {
        if len == 0 {
            return Kind::Random;
        }
        // First, last, or anywhere.
        let at = |draw: &mut Draw| match draw.below(3) {
            0 => 0,
            1 => len - 1,
            _ => draw.below(len),
        };
        match *draw.pick(Kind::all(elem)) {
            Kind::Nan { .. } => Kind::Nan {
                bits: *draw.pick(&NANS),
                at: at(draw),
            },
            Kind::Inf { .. } => Kind::Inf {
                negative: draw.chance(50),
                at: at(draw),
            },
            Kind::BothInf { .. } if len >= 2 => Kind::BothInf {
                at: draw.below(len / 2),
            },
            Kind::BothInf { .. } => Kind::Inf {
                negative: draw.chance(50),
                at: 0,
            },
            Kind::OneSign { .. } => Kind::OneSign {
                negative: draw.chance(50),
            },
            Kind::AllInf { .. } => Kind::AllInf {
                negative: draw.chance(50),
            },
            other => other,
        }
    }

    /// Its words in case names.
    fn label(self, elem: Elem, len: usize) -> String {
        let sign = |negative| if negative { '-' } else { '+' };
        match self {
            Kind::Random => "random".into(),
            Kind::Integers => "exact integers".into(),
            Kind::Nan { bits, at } => format!("NaN {bits:#010x} at {at}"),
            Kind::Inf { negative, at } => format!("{}Inf at {at}", sign(negative)),
            Kind::BothInf { at } => format!("+Inf at {at}, -Inf at {}", len - 1 - at),
            Kind::Subnormals => "subnormals and zeros".into(),
            Kind::WithSubnormals => "with subnormals".into(),
            Kind::AllNegativeZero => "all -0".into(),
            Kind::SignedZeros => "-0 and +0".into(),
            Kind::OneSign { negative } => match (elem, negative) {
                (Elem::F32, false) => "all in [1, 2)".into(),
                (Elem::F32, true) => "all in (-2, -1]".into(),
                (Elem::I32, false) => "all positive".into(),
                (Elem::I32, true) => "all negative".into(),
                (_, false) => "all < 2^31".into(),
                (_, true) => "all >= 2^31".into(),
            },
            Kind::AllInf { negative } => format!("all {}Inf", sign(negative)),
            Kind::AllMax => format!("all {elem}::MAX"),
        }
    }

    /// `len` values of `elem` (as words) from `seed`.
    fn words(self, elem: Elem, seed: u64, len: usize) -> Vec<u32> {
        let random = || {
            if elem == Elem::F32 {
                f32_words(seed, len)
            } else {
                inputs::u32_values(seed, len)
            }
        };
        let infinity = |negative| {
            if negative {
                f32::NEG_INFINITY.to_bits()
            } else {
                f32::INFINITY.to_bits()
            }
        };
        let with = |at: &[(usize, u32)]| {
            let mut x = random();
            for &(i, bits) in at {
                x[i] = bits;
            }
            x
        };
        match self {
            Kind::Random => random(),
            Kind::Integers => {
                let k = ((1usize << 24) / len.max(1)).clamp(1, 1000) as u32;
                inputs::u32_below(seed, len, 2 * k + 1)
                    .into_iter()
                    .map(|v| (f64::from(v) - f64::from(k)) as f32)
                    .map(f32::to_bits)
                    .collect()
            }
            Kind::Nan { bits, at } => with(&[(at, bits)]),
            Kind::Inf { negative, at } => with(&[(at, infinity(negative))]),
            Kind::BothInf { at } => with(&[(at, infinity(false)), (len - 1 - at, infinity(true))]),
            Kind::Subnormals => subnormals(seed, len),
            Kind::WithSubnormals => bytemuck::cast_vec(inputs::f32_with_subnormals(seed, len)),
            Kind::AllNegativeZero => vec![0x8000_0000; len],
            Kind::SignedZeros => masked_bits(seed, len, 0x8000_0000, 0),
            Kind::OneSign { negative } => match (elem, negative) {
                (Elem::F32, false) => masked_bits(seed, len, 0x007f_ffff, 0x3f80_0000),
                (Elem::F32, true) => masked_bits(seed, len, 0x007f_ffff, 0xbf80_0000),
                (Elem::I32, false) => masked_bits(seed, len, 0x7fff_ffff, 1),
                (Elem::I32, true) => masked_bits(seed, len, 0xffff_ffff, 0x8000_0000),
                (_, false) => masked_bits(seed, len, 0x7fff_ffff, 0),
                (_, true) => masked_bits(seed, len, 0x7fff_ffff, 0x8000_0000),
            },
            Kind::AllInf { negative } => vec![infinity(negative); len],
            Kind::AllMax if elem == Elem::I32 => vec![i32::MAX as u32; len],
            Kind::AllMax => vec![u32::MAX; len],
        }
    }
}

/// Everything a drawn reduce case is made of.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Drawn {
    elem: Elem,
    op: ReduceOp,
    len: usize,
    kind: Kind,
    /// Forced, or the plan's own choice (`None`).
    variant: Option<ReduceVariant>,
    /// Junk past the input, the sentinel past the output word.
    padded: bool,
    /// Inputs one plan reduces back to back (each its own values).
    runs: usize,
    /// Runs per device, bit-identical.
    repeat: usize,
    /// Seeds the values.
    seed: u64,
}

impl Drawn {
    fn draw(draw: &mut Draw) -> Drawn {
        let elem = *draw.pick(&[Elem::F32, Elem::I32, Elem::U32]);
        let op = *draw.pick(&ReduceOp::ALL);
        // The sum of nothing is +0; min and max of nothing are refused.
        let len = if op == ReduceOp::Sum && draw.chance(3) {
            0
        } else {
            draw.length(random::MAX_LEN)
        };
        let kind = Kind::draw(draw, elem, len);
        let variant = *draw.pick(&[
            None,
            Some(ReduceVariant::Tree),
            Some(ReduceVariant::Subgroups),
            Some(ReduceVariant::TreeOneLaunch),
            Some(ReduceVariant::SubgroupsOneLaunch),
        ]);
        let padded = draw.chance(30);
        let runs = if draw.chance(25) {
            draw.between(2, 4)
        } else {
            1
        };
        let repeat = if draw.chance(10) { 3 } else { 1 };
        Drawn {
            elem,
            op,
            len,
            kind,
            variant,
            padded,
            runs,
            repeat,
            seed: draw.seed(),
        }
    }

    fn name(&self) -> String {
        let variant = self.variant.map_or("own choice", ReduceVariant::name);
        let mut name = format!(
            "reduce {} {} n={} {} {variant}",
            self.elem,
            self.op,
            self.len,
            self.kind.label(self.elem, self.len)
        );
        if self.padded {
            name += " padded";
        }
        if self.runs > 1 {
            name += &format!(" one plan x{} back to back", self.runs);
        }
        if self.repeat > 1 {
            name += &format!(" x{} bit-identical", self.repeat);
        }
        name
    }

    /// The inputs and their references.
    fn check(&self) -> DrawnCheck {
        let runs = (0..self.runs as u64)
            .map(|run| {
                let x = self.kind.words(self.elem, self.seed ^ run, self.len);
                let expected = self.expected(&x);
                (x, expected)
            })
            .collect();
        DrawnCheck {
            elem: self.elem,
            op: self.op,
            variant: self.variant,
            padded: self.padded,
            runs,
        }
    }

    /// `None` for min and max of nothing (never drawn).
    fn expected(&self, x: &[u32]) -> Option<Expected> {
        Some(match self.elem {
            Elem::F32 => {
                let values: &[f32] = bytemuck::cast_slice(x);
                match self.op {
                    ReduceOp::Sum if self.kind == Kind::Integers => {
                        Expected::Bits((sum_f32(values).value as f32).to_bits())
                    }
                    ReduceOp::Sum => Expected::F32 {
                        sum: sum_f32(values),
                        min_max: None,
                    },
                    op => Expected::F32 {
                        sum: Exact::default(),
                        min_max: min_max_f32(values, op),
                    },
                }
            }
            Elem::I32 => {
                Expected::Bits(reduce_int::<i32>(bytemuck::cast_slice(x), self.op)? as u32)
            }
            _ => Expected::Bits(reduce_int(x, self.op)?),
        })
    }

    fn case(self) -> Case {
        Case::new(self.name(), "reduce", CaseGroup::Random, true, move || {
            self.check()
        })
        .repeated(self.repeat)
    }
}

/// What a drawn reduction's result must be.
enum Expected {
    /// An f32 result judged as [`ReduceF32`] judges it.
    F32 { sum: Exact, min_max: Option<f32> },
    /// These bits exactly: integers, and f32 sums of exact integers.
    Bits(u32),
}

/// A drawn reduction: one plan (the drawn variant, or the plan's own
/// choice) encoded on each input in a row, through buffers padded past the
/// data where drawn ([`padding`]: past the input words that would change
/// the result if read, past the output word the sentinel); the results are
/// read after the last launch, each judged as the fixed cases judge it,
/// and a one-launch plan's scratch must then be clean (as [`BackToBack`]).
struct DrawnCheck {
    elem: Elem,
    op: ReduceOp,
    variant: Option<ReduceVariant>,
    padded: bool,
    /// Each run's input words and what its result must be.
    runs: Vec<(Vec<u32>, Option<Expected>)>,
}

impl DrawnCheck {
    /// A word past the input that a read would show in the result: NaN for
    /// f32, a value past every other for integer min and max, 1 for sums.
    fn junk(&self) -> u32 {
        match (self.elem, self.op) {
            (Elem::F32, _) => f32::NAN.to_bits(),
            (_, ReduceOp::Sum) => 1,
            (Elem::I32, ReduceOp::Min) => i32::MIN as u32,
            (Elem::I32, ReduceOp::Max) => i32::MAX as u32,
            (_, ReduceOp::Min) => 0,
            (_, ReduceOp::Max) => u32::MAX,
        }
    }

    fn judge(&self, x: &[u32], expected: &Expected, got: u32) -> Verdict {
        match expected {
            Expected::F32 { sum, min_max } => judge_f32(
                bytemuck::cast_slice(x),
                self.op,
                sum,
                *min_max,
                f32::from_bits(got),
            ),
            Expected::Bits(bits) if self.elem == Elem::I32 => {
                compare_exact(&[got as i32], &[*bits as i32])
            }
            Expected::Bits(bits) => {
                let mut v = compare_exact(&[got], &[*bits]);
                if !v.passed() && self.elem == Elem::F32 {
                    v.detail = format!(
                        "got {:e} ({got:#x}), expected {:e} ({bits:#x})",
                        f32::from_bits(got),
                        f32::from_bits(*bits)
                    );
                }
                v
            }
        }
    }
}

impl Check for DrawnCheck {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        let backend = ctx.backend;
        let spec = ReduceSpec {
            elem: self.elem,
            op: self.op,
            len: self.runs[0].0.len(),
        };
        let plan = match self.variant {
            Some(v) => ReducePlan::with_variant(backend, &spec, v)?,
            None => ReducePlan::new(backend, &spec)?,
        };
        let mut buffers = Vec::new();
        for (x, _) in &self.runs {
            let (input, output) = if self.padded {
                let mut padded = x.clone();
                padded.extend([self.junk(); padding::PADDING]);
                (
                    Buffer::from_slice(backend, &padded)?,
                    Buffer::from_slice(backend, &padding::sentinel_output(1))?,
                )
            } else {
                (Buffer::from_slice(backend, x)?, backend.alloc(4)?)
            };
            plan.encode(&input, &output)?;
            buffers.push((input, output));
        }
        let runs = self.runs.len();
        let which = |run: usize| {
            if runs > 1 {
                format!("run {} of {runs}: ", run + 1)
            } else {
                String::new()
            }
        };
        let mut got = Vec::new();
        for (run, (_, output)) in buffers.iter().enumerate() {
            let words: Vec<u32> =
                output.read(if self.padded { 1 + padding::PADDING } else { 1 })?;
            if let Some(mut fail) = padding::sentinel_changed(bytemuck::cast_slice(&words), 1) {
                fail.detail = which(run) + &fail.detail;
                return Ok(fail);
            }
            got.push(words[0]);
        }
        let mut worst = None::<f64>;
        for (run, ((x, expected), &g)) in self.runs.iter().zip(&got).enumerate() {
            let expected = expected
                .as_ref()
                .ok_or_else(|| Error::Internal("reference of an empty min/max".into()))?;
            let mut v = self.judge(x, expected, g);
            if !v.passed() {
                v.detail = which(run) + &v.detail;
                return Ok(v);
            }
            if let Some(r) = v.error_ratio {
                worst = Some(worst.map_or(r, |w| w.max(r)));
            }
        }
        if let Some(fail) = scratch_left(ctx, &plan)? {
            return Ok(fail);
        }
        let mut verdict = Verdict::pass(format!(
            "{} ({} launch(es) per run)",
            plan.variant().name(),
            plan.launches()
        ));
        verdict.error_ratio = worst;
        verdict.fingerprint = fingerprint(&got);
        Ok(verdict)
    }
}

/// A case of the `random` group (see `Op::random_case`): an element type,
/// op, length, kind of values and variant drawn from `draw`, plain or
/// padded, one run or a few back to back.
pub(super) fn drawn_case(draw: &mut Draw) -> Case {
    Drawn::draw(draw).case()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Status;
    use std::collections::BTreeSet;
    use std::mem::discriminant;

    fn draws(seed: u64, count: u64) -> Vec<Drawn> {
        crate::op::random::testing::draws("reduce", seed, count, Drawn::draw)
    }

    #[test]
    fn draws_cover_every_variant_op_type_and_kind_within_limits() {
        let all = draws(1, 600);
        let mut variants = BTreeSet::new();
        let mut ops = BTreeSet::new();
        let mut kinds = BTreeSet::new();
        for d in &all {
            assert!(d.len <= random::MAX_LEN, "{d:?}");
            assert!(d.len > 0 || d.op == ReduceOp::Sum, "{d:?}");
            let spec = ReduceSpec {
                elem: d.elem,
                op: d.op,
                len: d.len,
            };
            assert!(spec.validate().is_ok(), "{d:?}");
            assert!(
                Kind::all(d.elem)
                    .iter()
                    .any(|k| discriminant(k) == discriminant(&d.kind))
                    || d.kind == Kind::Random,
                "{d:?}"
            );
            match d.kind {
                Kind::Nan { at, .. } | Kind::Inf { at, .. } => assert!(at < d.len, "{d:?}"),
                Kind::BothInf { at } => assert!(at < d.len - 1 - at, "{d:?}"),
                _ => {}
            }
            assert!((1..=4).contains(&d.runs) && (1..=3).contains(&d.repeat));
            variants.insert(d.variant.map(ReduceVariant::name));
            ops.insert((d.elem.name(), d.op.name()));
            let index = Kind::all(d.elem)
                .iter()
                .position(|k| discriminant(k) == discriminant(&d.kind))
                .unwrap();
            kinds.insert((d.elem.name(), index));
        }
        assert_eq!(variants.len(), 1 + ReduceVariant::ALL.len(), "{variants:?}");
        assert_eq!(ops.len(), 9, "{ops:?}");
        assert_eq!(kinds.len(), 11 + 3 + 3, "{kinds:?}");
        let any = |f: &dyn Fn(&Drawn) -> bool| all.iter().any(f);
        assert!(any(&|d| d.padded) && any(&|d| !d.padded));
        assert!(any(&|d| d.runs > 1) && any(&|d| d.repeat > 1));
        assert!(any(&|d| d.len == 0));
        assert!(any(&|d| d.len > 1 << 16 && (d.len - 1).is_power_of_two()));
        assert!(any(&|d| d.len > 1 << 16 && (d.len + 1).is_power_of_two()));
        // NaNs of every kind, at the first and last position and inside.
        let nans: BTreeSet<u32> = all
            .iter()
            .filter_map(|d| match d.kind {
                Kind::Nan { bits, .. } => Some(bits),
                _ => None,
            })
            .collect();
        assert_eq!(nans.len(), NANS.len());
        assert!(any(
            &|d| matches!(d.kind, Kind::Nan { at: 0, .. }) && d.len > 1
        ));
        assert!(any(
            &|d| matches!(d.kind, Kind::Inf { at, .. } if at == d.len - 1 && at > 0)
        ));
    }

    #[test]
    fn draws_repeat_for_their_seed() {
        let (a, b) = (draws(5, 50), draws(5, 50));
        assert_eq!(a, b);
        let names: BTreeSet<String> = a.iter().map(Drawn::name).collect();
        assert!(names.len() > 45, "{names:?}");
        assert_ne!(draws(6, 50), a);
        let d = a[0];
        assert_eq!(
            d.kind.words(d.elem, d.seed, d.len),
            d.kind.words(d.elem, d.seed, d.len)
        );
    }

    #[test]
    fn values_are_what_their_kind_says() {
        let len = 5_000;
        let mut draw = Draw::new(3, "reduce", 0);
        for elem in [Elem::F32, Elem::I32, Elem::U32] {
            for _ in 0..200 {
                let kind = Kind::draw(&mut draw, elem, len);
                let x = kind.words(elem, 9, len);
                assert_eq!(x.len(), len);
                let f: Vec<f32> = x.iter().map(|&w| f32::from_bits(w)).collect();
                let ok = match kind {
                    Kind::Random => true,
                    Kind::Integers => {
                        f.iter().all(|v| v.fract() == 0.0)
                            && f.iter().map(|v| f64::from(v.abs())).sum::<f64>() <= 16_777_216.0
                    }
                    Kind::Nan { bits, at } => {
                        x[at] == bits && f.iter().filter(|v| v.is_nan()).count() == 1
                    }
                    Kind::Inf { negative, at } => {
                        f[at].is_infinite() && f[at].is_sign_negative() == negative
                    }
                    Kind::BothInf { at } => {
                        f[at] == f32::INFINITY && f[len - 1 - at] == f32::NEG_INFINITY
                    }
                    Kind::Subnormals => f.iter().all(|v| v.abs() < f32::MIN_POSITIVE),
                    Kind::WithSubnormals => {
                        f.iter().any(|v| rosetta_core::bounds::is_subnormal(*v))
                    }
                    Kind::AllNegativeZero => x.iter().all(|&w| w == 0x8000_0000),
                    Kind::SignedZeros => f.iter().all(|v| *v == 0.0),
                    Kind::OneSign { negative } => match elem {
                        Elem::F32 => f.iter().all(|v| {
                            (1.0..2.0).contains(&v.abs()) && v.is_sign_negative() == negative
                        }),
                        Elem::I32 => x.iter().all(|&w| (w as i32 > 0) != negative),
                        _ => x.iter().all(|&w| (w >= 1 << 31) == negative),
                    },
                    Kind::AllInf { negative } => f
                        .iter()
                        .all(|v| v.is_infinite() && v.is_sign_negative() == negative),
                    Kind::AllMax => x.iter().all(|&w| {
                        w == if elem == Elem::I32 {
                            i32::MAX as u32
                        } else {
                            u32::MAX
                        }
                    }),
                };
                assert!(ok, "{elem} {kind:?}");
            }
        }
    }

    /// The words past a padded input change the result of every op and
    /// element type, so a kernel that read them would show.
    #[test]
    fn the_junk_past_an_input_would_show_in_its_result() {
        for elem in [Elem::F32, Elem::I32, Elem::U32] {
            for op in ReduceOp::ALL {
                let d = Drawn {
                    elem,
                    op,
                    len: 1000,
                    kind: Kind::Random,
                    variant: None,
                    padded: true,
                    runs: 1,
                    repeat: 1,
                    seed: 4,
                };
                let check = d.check();
                let x = &check.runs[0].0;
                let mut read_past = x.clone();
                read_past.push(check.junk());
                let (plain, past) = (d.expected(x).unwrap(), d.expected(&read_past).unwrap());
                let differ = match (plain, past) {
                    (Expected::Bits(a), Expected::Bits(b)) => a != b,
                    (
                        Expected::F32 { sum: a, min_max: m },
                        Expected::F32 { sum: b, min_max: n },
                    ) => {
                        a.value.is_nan() != b.value.is_nan()
                            || m.map(f32::to_bits) != n.map(f32::to_bits)
                    }
                    _ => false,
                };
                assert!(differ, "{elem} {op}");
            }
        }
    }

    fn cpu() -> std::sync::Arc<dyn rosetta_core::Backend> {
        rosetta_backend_cpu::discover().unwrap().remove(0)
    }

    #[test]
    fn drawn_cases_pass_on_the_cpu_backend() {
        let verdicts = random::testing::drawn_on_cpu("reduce", 11, 40, drawn_case);
        let mut passed = 0;
        for (name, v) in &verdicts {
            match v.status {
                Status::Passed => passed += 1,
                // Subgroup variants on a device without subgroups.
                Status::Unsupported => assert!(name.contains("subgroups"), "{name}"),
                _ => panic!("{name}: {:?} {}", v.status, v.detail),
            }
        }
        assert!(passed >= 15, "{passed}");
    }

    #[test]
    fn a_wrong_reference_fails() {
        let backend = cpu();
        let ctx = Context {
            backend: &backend,
            quick: true,
            budget: std::time::Duration::from_millis(100),
        };
        for (elem, op, kind) in [
            (Elem::U32, ReduceOp::Sum, Kind::Random),
            (Elem::F32, ReduceOp::Sum, Kind::Integers),
            (Elem::F32, ReduceOp::Max, Kind::Random),
            (Elem::F32, ReduceOp::Sum, Kind::Random),
        ] {
            let d = Drawn {
                elem,
                op,
                len: 4099,
                kind,
                variant: Some(ReduceVariant::TreeOneLaunch),
                padded: true,
                runs: 2,
                repeat: 1,
                seed: 8,
            };
            let mut check = d.check();
            assert!(check.run(&ctx).unwrap().passed(), "{}", d.name());
            // The second run's reference one step off.
            check.runs[1].1 = Some(match check.runs[1].1.take().unwrap() {
                Expected::Bits(b) => Expected::Bits(b ^ 1),
                Expected::F32 { sum, min_max } => Expected::F32 {
                    sum: Exact {
                        value: sum.value + 1.0,
                        ..sum
                    },
                    min_max: min_max.map(|m| f32::from_bits(m.to_bits() ^ 1)),
                },
            });
            let v = check.run(&ctx).unwrap();
            assert!(
                !v.passed() && v.detail.starts_with("run 2 of 2"),
                "{}",
                v.detail
            );
        }
    }
}
