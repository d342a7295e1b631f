//! Reduce's conformance cases. Inputs are seeded by the case name.

use super::plan::reduce_slice;
use super::plan::{ReducePlan, ReduceVariant};
use super::spec::{min_max_f32, reduce_int, sum_bound, sum_f32, IntElem, ReduceOp, ReduceSpec};
use crate::op::Exact;
use crate::op::{
    compare_bounded, compare_exact, fingerprint, seed, Case, CaseGroup, Check, Context, Rejects,
    Verdict,
};
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
        Ok(match self.op {
            ReduceOp::Sum => {
                let n = self.x.len();
                let v = compare_bounded(&[got], &[self.sum], |_, e| sum_bound(n, e));
                // Zeros only: the sum is exact in any order and its sign
                // defined — −0 where every value is −0 (x + −0 == x, +0 +
                // −0 == +0), else +0, and +0 for no values (as numpy).
                if !self.x.iter().all(|x| *x == 0.0) {
                    return Ok(v);
                }
                let negative = n > 0 && self.x.iter().all(|x| x.is_sign_negative());
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
                let expected = self.min_max.unwrap_or(f32::NAN);
                // Exact bits: −0 orders below +0, so the sign of a zero
                // result is defined too, and a NaN result is the quiet NaN
                // 0x7fc00000 whatever NaN came in (mod.rs, "Semantics of
                // combine").
                let same = got.to_bits() == expected.to_bits();
                let mut v = if same {
                    Verdict::pass("")
                } else {
                    Verdict::fail(format!("got {got:e}, expected {expected:e}"))
                };
                v.fingerprint = fingerprint(&[got]);
                v
            }
        })
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
        // A one-launch plan leaves its scratch clean for the next launch
        // (the arrival counter; in WGSL the published words too: one left
        // behind could pass for the next launch's on a GPU that shows a
        // group's ticket before its word, which no CPU driver does).
        if let Some(words) = plan.scratch_after()? {
            let wgsl = ctx.backend.info().api.language() == rosetta_core::Language::Wgsl;
            let dirty = if wgsl { words.len() } else { 1 };
            if let Some(i) = words[..dirty].iter().position(|&w| w != 0) {
                return Ok(Verdict::fail(format!(
                    "scratch word {i} is {:#x} after the last launch, not 0",
                    words[i]
                )));
            }
        }
        verdict.detail = format!("{} launch(es) per run", plan.launches());
        Ok(verdict)
    }
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
