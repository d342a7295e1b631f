//! Conformance cases: seeded inputs, the host reference, and the comparison
//! of a device's result with it (never with another device).

use super::exact::Exact;
use rosetta_core::{Backend, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// Which part of the suite a case belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseGroup {
    /// What an op computes, on ordinary and edge-case inputs.
    Ops,
    /// Bad input that must be refused with a typed error.
    Errors,
    /// Device limits: many workgroups, long loops, huge buffers, the largest
    /// filters; skipped (with the reason) where a device cannot hold them.
    Limits,
    /// Memory-model litmus tests.
    MemoryModel,
    /// Variants, shapes and values drawn from a seed ([`super::random`]).
    Random,
}

impl CaseGroup {
    /// Every group.
    pub const ALL: [CaseGroup; 5] = [
        CaseGroup::Ops,
        CaseGroup::Errors,
        CaseGroup::Limits,
        CaseGroup::MemoryModel,
        CaseGroup::Random,
    ];

    /// The name used by `--group` and JSON.
    pub fn name(self) -> &'static str {
        match self {
            CaseGroup::Ops => "ops",
            CaseGroup::Errors => "errors",
            CaseGroup::Limits => "limits",
            CaseGroup::MemoryModel => "memory-model",
            CaseGroup::Random => "random",
        }
    }
}

/// What a run of a case on a device found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Matches the reference.
    Passed,
    /// Wrong, an unexpected error, or a forbidden outcome.
    Failed,
    /// Not run on this device (it cannot hold the case); the detail says why.
    Skipped,
    /// The device or backend cannot run the op (e.g. no source in its
    /// language); never counted as passed.
    Unsupported,
}

/// The outcome of one run of a case.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// Passed, failed, skipped or unsupported.
    pub status: Status,
    /// Worst |error| / bound over the outputs (floating-point results).
    pub error_ratio: Option<f64>,
    /// Why it failed or was skipped, or a note.
    pub detail: String,
    /// Hash of the result's bits, for the repeat (determinism) check.
    #[serde(skip)]
    pub fingerprint: u64,
    /// Named counts (litmus outcomes, ...), reported as they are.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub counts: BTreeMap<String, u64>,
}

impl Verdict {
    /// A verdict with nothing but a status and detail.
    pub fn new(status: Status, detail: impl Into<String>) -> Self {
        Verdict {
            status,
            error_ratio: None,
            detail: detail.into(),
            fingerprint: 0,
            counts: BTreeMap::new(),
        }
    }

    /// Passed.
    pub fn pass(detail: impl Into<String>) -> Self {
        Verdict::new(Status::Passed, detail)
    }

    /// Failed, saying why.
    pub fn fail(detail: impl Into<String>) -> Self {
        Verdict::new(Status::Failed, detail)
    }

    /// Skipped on this device, saying why.
    pub fn skip(detail: impl Into<String>) -> Self {
        Verdict::new(Status::Skipped, detail)
    }

    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.status == Status::Passed
    }
}

/// What a check runs with.
pub struct Context<'a> {
    /// The device.
    pub backend: &'a Arc<dyn Backend>,
    /// `--quick`: keep long-running checks (litmus stress) short.
    pub quick: bool,
    /// Time a check that runs until a budget is spent may take.
    pub budget: Duration,
}

/// A case's prepared inputs and reference.
pub trait Check: Send + Sync {
    /// Run on one device and compare with the reference.
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict>;
}

type MakeCheck = Box<dyn Fn() -> Box<dyn Check> + Send + Sync>;

/// One conformance case: how to make its inputs and reference, and how to
/// check a device against them. Inputs are made once per case and shared by
/// every device.
pub struct Case {
    /// Unique across the suite; seeds the inputs.
    pub name: String,
    /// The op (or `memory-model`) it exercises.
    pub op: &'static str,
    /// The part of the suite.
    pub group: CaseGroup,
    /// Part of `--quick`.
    pub quick: bool,
    /// Runs per device; results must be bit-identical across runs.
    pub repeat: usize,
    make: MakeCheck,
}

impl Case {
    /// A case of `group`; `make` prepares inputs and reference.
    pub fn new<C: Check + 'static>(
        name: impl Into<String>,
        op: &'static str,
        group: CaseGroup,
        quick: bool,
        make: impl Fn() -> C + Send + Sync + 'static,
    ) -> Self {
        Case {
            name: name.into(),
            op,
            group,
            quick,
            repeat: 1,
            make: Box::new(move || Box::new(make())),
        }
    }

    /// Run `times` times per device, requiring bit-identical results.
    pub fn repeated(mut self, times: usize) -> Self {
        self.repeat = times;
        self
    }

    /// Prepare the inputs and reference.
    pub fn prepare(&self) -> Box<dyn Check> {
        (self.make)()
    }

    /// Run a prepared check on one device [`Case::repeat`] times: results
    /// must be bit-identical across runs; validation-layer messages fail the
    /// case. Errors become verdicts: [`rosetta_core::Error::Unsupported`] is
    /// `Unsupported`; a device limit or out-of-memory in the `limits` group
    /// is `Skipped`; anything else is `Failed`.
    pub fn run_on(&self, check: &dyn Check, ctx: &Context<'_>) -> Verdict {
        let mut first: Option<Verdict> = None;
        for attempt in 0..self.repeat.max(1) {
            let verdict = match check.run(ctx) {
                Ok(v) => v,
                Err(e) => error_verdict(self.group, &e),
            };
            if verdict.status != Status::Passed {
                first = Some(verdict);
                break;
            }
            match &first {
                Some(f) if f.fingerprint != verdict.fingerprint => {
                    first = Some(Verdict::fail(format!(
                        "run {} differs from run 1 (results must be bit-identical)",
                        attempt + 1
                    )));
                    break;
                }
                Some(_) => {}
                None => first = Some(verdict),
            }
        }
        let mut verdict = first.unwrap_or_else(|| Verdict::fail("no run"));
        let diagnostics = ctx.backend.take_diagnostics();
        if !diagnostics.is_empty() && verdict.status == Status::Passed {
            verdict = Verdict::fail(format!(
                "{} validation message(s): {}",
                diagnostics.len(),
                diagnostics.join(" | ")
            ));
        }
        verdict
    }
}

/// The verdict for an error a check returned.
fn error_verdict(group: CaseGroup, e: &rosetta_core::Error) -> Verdict {
    use rosetta_core::Error;
    match e {
        Error::Unsupported { .. } => Verdict::new(Status::Unsupported, e.chain()),
        Error::ExceedsLimit { .. } | Error::OutOfMemory { .. } if group == CaseGroup::Limits => {
            Verdict::skip(e.chain())
        }
        _ => Verdict::fail(format!("error: {}", e.chain())),
    }
}

/// A call that must be refused with a given typed error (the `errors`
/// group): it passes with the error's message, fails when the call is
/// accepted or refused with another error.
pub struct Rejects {
    /// The expected error, for the failure message (`ShapeMismatch`).
    pub expected: &'static str,
    /// The call.
    pub call: fn(&Context<'_>) -> Result<()>,
    /// Whether an error is the expected one.
    pub is_expected: fn(&rosetta_core::Error) -> bool,
}

impl Check for Rejects {
    fn run(&self, ctx: &Context<'_>) -> Result<Verdict> {
        Ok(match (self.call)(ctx) {
            Ok(()) => Verdict::fail(format!("accepted; expected {}", self.expected)),
            Err(e) if (self.is_expected)(&e) => Verdict::pass(e.to_string()),
            Err(e) => Verdict::fail(format!("got '{e}', expected {}", self.expected)),
        })
    }
}

/// A stable seed from a case name (FNV-1a), so every device, run and machine
/// sees identical inputs.
pub fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Hash of a result's bits.
pub fn fingerprint<T: bytemuck::Pod>(values: &[T]) -> u64 {
    seed_bytes(bytemuck::cast_slice(values))
}

fn seed_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Plan geometries checked, without running them, against a device's loop
/// budget and grid limits (the `limits` cases that sweep shapes up to the
/// largest a device accepts).
pub struct GeometryAudit<'a> {
    caps: &'a rosetta_core::Capabilities,
    budget: u64,
    checked: usize,
}

impl<'a> GeometryAudit<'a> {
    /// An audit against `caps` (its loop budget and largest grid).
    pub fn new(caps: &'a rosetta_core::Capabilities) -> Self {
        GeometryAudit {
            caps,
            budget: caps.loop_budget(),
            checked: 0,
        }
    }

    /// Check one geometry: `loops` iterations per invocation on a grid of
    /// `groups`. A failing verdict names the geometry by `what`.
    pub fn check(
        &mut self,
        what: impl Fn() -> String,
        loops: u64,
        groups: [u32; 3],
    ) -> Option<Verdict> {
        let budget = self.budget;
        if loops > budget {
            return Some(Verdict::fail(format!(
                "{}: {loops} loop iterations per invocation on a grid of {groups:?}, over the budget of {budget}",
                what()
            )));
        }
        if groups.iter().zip(&self.caps.max_groups).any(|(g, m)| g > m) {
            return Some(Verdict::fail(format!(
                "{}: grid {groups:?} over the device's {:?}",
                what(),
                self.caps.max_groups
            )));
        }
        self.checked += 1;
        None
    }

    /// Passed, with how many geometries were checked.
    pub fn verdict(self) -> Verdict {
        let (checked, budget) = (self.checked, self.budget);
        Verdict::pass(match self.caps.loop_limit {
            Some(_) => format!("{checked} geometries within {budget} iterations per invocation"),
            None => format!("{checked} geometries (no loop cap on this device)"),
        })
    }
}

/// Compare f32 outputs with exact references under per-element bounds.
/// Where the reference is not finite (a NaN or infinite input reached it),
/// the output must be NaN where it is NaN and the same infinity where it is
/// infinite, exactly: IEEE arithmetic gives those in any order of operations.
pub fn compare_bounded(
    got: &[f32],
    exact: &[Exact],
    bound: impl Fn(usize, &Exact) -> f64,
) -> Verdict {
    let print = fingerprint(got);
    if got.len() != exact.len() {
        let mut v = Verdict::fail(format!("{} outputs, expected {}", got.len(), exact.len()));
        v.fingerprint = print;
        return v;
    }
    let mut worst = 0.0f64;
    let mut worst_at = 0;
    for (i, (&g, e)) in got.iter().zip(exact).enumerate() {
        let err = (f64::from(g) - e.value).abs();
        let b = bound(i, e);
        let ratio = if !e.value.is_finite() {
            let same = if e.value.is_nan() {
                g.is_nan()
            } else {
                f64::from(g) == e.value
            };
            if same {
                0.0
            } else {
                f64::INFINITY
            }
        } else if err == 0.0 {
            0.0
        } else if b > 0.0 {
            err / b
        } else {
            f64::INFINITY
        };
        // A NaN output (NaN error) fails.
        if ratio.is_nan() || ratio > worst {
            worst = if ratio.is_nan() { f64::INFINITY } else { ratio };
            worst_at = i;
        }
    }
    let mut v = if worst <= 1.0 {
        Verdict::pass("")
    } else {
        Verdict::fail(format!(
            "output {worst_at}: got {} expected {} (error {:.3e} > bound {:.3e})",
            got[worst_at],
            exact[worst_at].value,
            (f64::from(got[worst_at]) - exact[worst_at].value).abs(),
            bound(worst_at, &exact[worst_at])
        ))
    };
    v.error_ratio = Some(worst);
    v.fingerprint = print;
    v
}

/// Compare exact outputs (integers, counts, min/max by bits).
pub fn compare_exact<T: bytemuck::Pod + PartialEq + std::fmt::Debug>(
    got: &[T],
    expected: &[T],
) -> Verdict {
    let print = fingerprint(got);
    let mut v = if got.len() != expected.len() {
        Verdict::fail(format!(
            "{} outputs, expected {}",
            got.len(),
            expected.len()
        ))
    } else {
        let wrong: Vec<usize> = (0..got.len()).filter(|&i| got[i] != expected[i]).collect();
        match wrong.first() {
            None => Verdict::pass(""),
            Some(&i) => Verdict::fail(format!(
                "{} of {} differ; first at {i}: got {:?}, expected {:?}",
                wrong.len(),
                got.len(),
                got[i],
                expected[i]
            )),
        }
    };
    v.fingerprint = print;
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_comparison_catches_errors_and_nan() {
        let exact = [Exact::normal(1.0, 1.0)];
        assert!(compare_bounded(&[1.0], &exact, |_, _| 0.0).passed());
        assert!(!compare_bounded(&[1.001], &exact, |_, _| 1e-6).passed());
        assert!(!compare_bounded(&[f32::NAN], &exact, |_, _| 1.0).passed());
        assert!(compare_bounded(&[1.000_000_1], &exact, |_, _| 1e-6).passed());
        assert!(!compare_bounded(&[1.0, 1.0], &exact, |_, _| 1.0).passed());
    }

    #[test]
    fn geometry_audit_fails_over_the_budget_or_the_grid() {
        let mut caps = rosetta_core::Capabilities::software_device();
        caps.loop_limit = Some(65_535);
        let budget = caps.loop_budget();
        let what = || "shape".to_string();
        let mut audit = GeometryAudit::new(&caps);
        assert!(audit.check(what, budget, [1, 1, 1]).is_none());
        let over = audit.check(what, budget + 1, [1, 1, 1]).unwrap();
        assert!(
            !over.passed() && over.detail.starts_with("shape: "),
            "{}",
            over.detail
        );
        let wide = [caps.max_groups[0] + 1, 1, 1];
        assert!(!audit.check(what, 1, wide).unwrap().passed());
        let done = audit.verdict();
        assert!(
            done.passed() && done.detail.starts_with("1 geometries"),
            "{}",
            done.detail
        );
    }

    #[test]
    fn non_finite_references_are_matched_exactly() {
        let refs = [
            Exact::normal(f64::NAN, f64::INFINITY),
            Exact::normal(f64::INFINITY, f64::INFINITY),
            Exact::normal(f64::NEG_INFINITY, f64::INFINITY),
        ];
        let any = |_: usize, _: &Exact| f64::INFINITY;
        let ok = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
        assert!(compare_bounded(&ok, &refs, any).passed());
        for wrong in [
            [0.0, f32::INFINITY, f32::NEG_INFINITY],
            [f32::NAN, f32::NAN, f32::NEG_INFINITY],
            [f32::NAN, f32::INFINITY, f32::INFINITY],
            [f32::NAN, f32::MAX, f32::NEG_INFINITY],
        ] {
            assert!(!compare_bounded(&wrong, &refs, any).passed(), "{wrong:?}");
        }
    }

    #[test]
    fn exact_comparison_reports_first_difference() {
        let v = compare_exact(&[1u32, 2, 3], &[1, 5, 3]);
        assert!(!v.passed());
        assert!(v.detail.contains("first at 1"), "{}", v.detail);
        assert!(compare_exact(&[7i32], &[7]).passed());
    }
}
