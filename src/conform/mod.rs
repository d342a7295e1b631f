//! The conformance suite's runner: identical seeded inputs on every device,
//! each result compared with the host reference within its bound (never with
//! another device). The cases come from the ops (`rosetta_kernels::ops()`):
//! each op's fixed cases, the memory-model litmus tests, and the random
//! group, which each op draws from a seed ([`RandomCases`]).
//!
//! Devices on different physical devices run concurrently; devices that share
//! one (the same GPU through several APIs, or every CPU-type device) run one
//! after another. Each case's inputs and reference are made once and shared.

mod schedule;

pub use schedule::{physical_groups, PhysicalGroup};

use crate::device::Device;
use crate::machine::Machine;
use rosetta_core::DeviceInfo;
use rosetta_kernels::op::random::Draw;
use rosetta_kernels::op::{Case, CaseGroup, Context, Status};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The JSON schema id of [`Report`].
pub const SCHEMA: &str = "rosetta-conform/2";

/// One case on one device.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Outcome {
    /// `api:index`.
    pub device: String,
    /// Passed, failed, skipped or unsupported.
    pub status: Status,
    /// Worst |error| / bound (≤ 1 passes); absent for exact results.
    pub error_ratio: Option<f64>,
    /// Why it failed or was skipped, or a note.
    pub detail: String,
    /// Wall time of the case on this device.
    pub seconds: f64,
    /// Named counts (litmus outcomes).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub counts: std::collections::BTreeMap<String, u64>,
}

/// One case on every device.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseReport {
    /// The case's name.
    pub name: String,
    /// The op (or `memory-model`).
    pub op: String,
    /// The suite's part.
    pub group: CaseGroup,
    /// One per device, in the order of [`Report::devices`].
    pub results: Vec<Outcome>,
}

/// Counts per device.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DeviceSummary {
    /// `api:index`.
    pub device: String,
    /// The device's name.
    pub name: String,
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed.
    pub failed: usize,
    /// Cases skipped (the device cannot hold them).
    pub skipped: usize,
    /// Cases the device or backend cannot run.
    pub unsupported: usize,
}

/// The conformance matrix: cases × devices.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA`].
    pub schema: String,
    /// Where the run happened.
    pub machine: Machine,
    /// The devices, in column order.
    pub devices: Vec<DeviceInfo>,
    /// The cases, in row order.
    pub cases: Vec<CaseReport>,
    /// Counts per device.
    pub summary: Vec<DeviceSummary>,
    /// Required APIs that found no device (each fails the run).
    pub missing: Vec<String>,
    /// No failure and nothing missing.
    pub passed: bool,
    /// Wall time of the whole run.
    pub seconds: f64,
}

impl Report {
    /// One line per failing (case, device): `case on device: detail`.
    pub fn failures(&self) -> Vec<String> {
        self.cases
            .iter()
            .flat_map(|c| {
                c.results
                    .iter()
                    .filter(|o| o.status == Status::Failed)
                    .map(move |o| format!("{} on {}: {}", c.name, o.device, o.detail))
            })
            .collect()
    }
}

/// How to run the suite.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--quick`: the quick cases, and short litmus budgets.
    pub quick: bool,
    /// Time budget of each budgeted check (litmus stress) per device.
    pub budget: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quick: false,
            budget: Duration::from_secs(2),
        }
    }
}

/// Progress of a run, for progress bars.
pub struct Progress<'a> {
    /// (case, device) pairs done.
    pub done: usize,
    /// (case, device) pairs in all.
    pub total: usize,
    /// The case now running.
    pub case: &'a str,
}

/// What the `random` group draws: `per_op` cases of every op from `seed`,
/// the first `quick_per_op` of them part of `--quick`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomCases {
    /// The suite seed: the same seed draws the same cases everywhere.
    pub seed: u64,
    /// Cases per op.
    pub per_op: usize,
    /// Of those, how many `--quick` runs (the first ones).
    pub quick_per_op: usize,
}

impl RandomCases {
    /// The seed when none is given.
    pub const DEFAULT_SEED: u64 = 1;

    /// `per_op` cases of every op from `seed`, all of them quick: what
    /// `--seed` and `--random-cases` ask for.
    pub fn new(seed: u64, per_op: usize) -> Self {
        RandomCases {
            seed,
            per_op,
            quick_per_op: per_op,
        }
    }

    /// Case `index` of `op`: drawn by the op, named with the seed and index
    /// (`random matmul #3 (seed 1): ...`), in the random group.
    /// A draw that panics (a bug in the op's `random_case`) is that case's
    /// failure, not the end of the run.
    fn case(&self, op: &dyn rosetta_kernels::op::Op, index: usize) -> Case {
        let mut draw = Draw::new(self.seed, op.name(), index as u64);
        let drawn =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| op.random_case(&mut draw)));
        let mut case = drawn.unwrap_or_else(|panic| {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let detail = format!("drawing the case panicked (a bug in rosetta): {why}");
            Case::new("(no draw)", op.name(), CaseGroup::Random, true, move || {
                DrawPanicked(detail.clone())
            })
        });
        case.name = format!(
            "random {} #{index} (seed {}): {}",
            op.name(),
            self.seed,
            case.name
        );
        case.group = CaseGroup::Random;
        case.quick = index < self.quick_per_op;
        case
    }
}

impl Default for RandomCases {
    /// 24 cases per op from [`RandomCases::DEFAULT_SEED`], 6 of them quick.
    fn default() -> Self {
        RandomCases {
            seed: Self::DEFAULT_SEED,
            per_op: rosetta_kernels::op::random::DEFAULT_PER_OP,
            quick_per_op: rosetta_kernels::op::random::DEFAULT_QUICK_PER_OP,
        }
    }
}

/// The check of a random case whose draw panicked: it fails, saying so.
struct DrawPanicked(String);

impl rosetta_kernels::op::Check for DrawPanicked {
    fn run(&self, _: &Context<'_>) -> rosetta_core::Result<rosetta_kernels::op::Verdict> {
        Ok(rosetta_kernels::op::Verdict::fail(self.0.clone()))
    }
}

/// Every case of every op, the memory-model group, and the default random
/// group ([`RandomCases::default`]).
pub fn all_cases() -> Vec<Case> {
    suite(&RandomCases::default())
}

/// Every case of every op, the memory-model group, and the random group
/// that `random` draws.
pub fn suite(random: &RandomCases) -> Vec<Case> {
    let ops = rosetta_kernels::ops();
    let mut cases: Vec<Case> = ops.iter().flat_map(|op| op.cases()).collect();
    cases.extend(rosetta_kernels::litmus::cases());
    for op in ops {
        cases.extend((0..random.per_op).map(|i| random.case(*op, i)));
    }
    cases
}

/// Run `cases` on `devices`. Missing `required` APIs fail the report.
pub fn run(
    devices: &[Device],
    cases: &[Case],
    missing: Vec<String>,
    options: &Options,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Report {
    let started = Instant::now();
    let total = cases.len() * devices.len();
    let done = AtomicUsize::new(0);
    let groups = physical_groups(devices);
    let mut reports = Vec::with_capacity(cases.len());
    for case in cases {
        progress(Progress {
            done: done.load(Ordering::Relaxed),
            total,
            case: &case.name,
        });
        let check = case.prepare();
        let mut results: Vec<Option<Outcome>> = vec![None; devices.len()];
        let per_group: Vec<Vec<(usize, Outcome)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = groups
                .iter()
                .map(|group| {
                    let check = check.as_ref();
                    let done = &done;
                    scope.spawn(move || {
                        group
                            .members
                            .iter()
                            .map(|&i| {
                                let outcome = run_one(case, check, &devices[i], options);
                                let now = done.fetch_add(1, Ordering::Relaxed) + 1;
                                progress(Progress {
                                    done: now,
                                    total,
                                    case: &case.name,
                                });
                                (i, outcome)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        for (i, outcome) in per_group.into_iter().flatten() {
            results[i] = Some(outcome);
        }
        let results = results
            .into_iter()
            .zip(devices)
            .map(|(o, d)| {
                o.unwrap_or_else(|| Outcome {
                    device: d.info().id(),
                    status: Status::Failed,
                    error_ratio: None,
                    detail: "the case panicked (a bug in rosetta)".into(),
                    seconds: 0.0,
                    counts: Default::default(),
                })
            })
            .collect();
        reports.push(CaseReport {
            name: case.name.clone(),
            op: case.op.to_string(),
            group: case.group,
            results,
        });
    }
    let summary: Vec<DeviceSummary> = devices
        .iter()
        .enumerate()
        .map(|(i, device)| {
            let mut s = DeviceSummary {
                device: device.info().id(),
                name: device.info().name.clone(),
                ..Default::default()
            };
            for c in &reports {
                match c.results[i].status {
                    Status::Passed => s.passed += 1,
                    Status::Failed => s.failed += 1,
                    Status::Skipped => s.skipped += 1,
                    Status::Unsupported => s.unsupported += 1,
                }
            }
            s
        })
        .collect();
    let passed = missing.is_empty() && !devices.is_empty() && summary.iter().all(|s| s.failed == 0);
    Report {
        schema: SCHEMA.into(),
        machine: Machine::this(),
        devices: devices.iter().map(|d| d.info().clone()).collect(),
        cases: reports,
        summary,
        missing,
        passed,
        seconds: started.elapsed().as_secs_f64(),
    }
}

fn run_one(
    case: &Case,
    check: &dyn rosetta_kernels::op::Check,
    device: &Device,
    options: &Options,
) -> Outcome {
    let started = Instant::now();
    let ctx = Context {
        backend: device.backend(),
        quick: options.quick,
        budget: options.budget,
    };
    let verdict = case.run_on(check, &ctx);
    if verdict.status == Status::Failed {
        tracing::warn!(case = %case.name, device = %device.info().id(), detail = %verdict.detail, "case failed");
    }
    Outcome {
        device: device.info().id(),
        status: verdict.status,
        error_ratio: verdict.error_ratio,
        detail: verdict.detail,
        seconds: started.elapsed().as_secs_f64(),
        counts: verdict.counts,
    }
}

/// APIs listed in `ROSETTA_REQUIRE` (comma-separated), if set.
pub fn required_apis() -> crate::Result<Vec<rosetta_core::Api>> {
    Ok(rosetta_core::contract::required_apis()?)
}

/// For each required API without a device among `devices`, a line saying why
/// (from the discovery, when it knows).
pub fn missing_required(
    required: &[rosetta_core::Api],
    devices: &[Device],
    discovery: &crate::Discovery,
) -> Vec<String> {
    required
        .iter()
        .filter(|api| !devices.iter().any(|d| d.info().api == **api))
        .map(|api| {
            let why = match discovery.entry(*api).map(|e| &e.status) {
                Some(crate::ApiStatus::NotCompiled) => "not compiled into this build".to_string(),
                Some(crate::ApiStatus::Unavailable(reason)) => format!("unavailable: {reason}"),
                Some(crate::ApiStatus::Devices(d)) if d.is_empty() => "no devices found".into(),
                Some(crate::ApiStatus::Devices(_)) => "no selected device".into(),
                None => "not probed (not named by --backend)".into(),
            };
            format!("{api} is required (ROSETTA_REQUIRE) but has no device: {why}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rosetta_core::{Backend, DeviceInfo, KernelDef};
    use rosetta_kernels::op::{random, CliSpec, HostArray, Op, Options, Size, Workload};
    use std::sync::Arc;

    /// An op whose draw panics on odd indices.
    struct Clumsy;

    impl Op for Clumsy {
        fn name(&self) -> &'static str {
            "clumsy"
        }
        fn about(&self) -> &'static str {
            "draws badly"
        }
        fn kernels(&self) -> Vec<Arc<KernelDef>> {
            Vec::new()
        }
        fn cases(&self) -> Vec<Case> {
            Vec::new()
        }
        fn random_case(&self, draw: &mut random::Draw) -> Case {
            let n = draw.length(100);
            assert!(draw.below(2) == 0, "odd draw {n}");
            Case::new(format!("n={n}"), "clumsy", CaseGroup::Ops, false, || {
                DrawPanicked("never run".into())
            })
        }
        fn workloads(&self, _: Size, _: &DeviceInfo) -> Vec<Workload> {
            Vec::new()
        }
        fn shape_forms(&self) -> &'static [&'static str] {
            &[]
        }
        fn shaped_workloads(
            &self,
            dims: &[usize],
            _: &DeviceInfo,
        ) -> rosetta_core::Result<Vec<Workload>> {
            Err(rosetta_kernels::op::wrong_form(
                self.name(),
                dims,
                self.shape_forms(),
            ))
        }
        fn cli(&self) -> CliSpec {
            CliSpec {
                inputs: Vec::new(),
                options: Vec::new(),
                about_inputs: "",
            }
        }
        fn run(
            &self,
            _: &Arc<dyn Backend>,
            _: &Options,
            _: Vec<HostArray>,
        ) -> rosetta_core::Result<HostArray> {
            unreachable!("not run")
        }
    }

    /// Random cases are named by seed and index, sit in the random group,
    /// are quick up to `quick_per_op`, and a draw that panics becomes that
    /// case's failure instead of ending the run.
    #[test]
    fn drawn_cases_are_named_grouped_and_survive_a_panicking_draw() {
        let random = RandomCases {
            seed: 9,
            per_op: 12,
            quick_per_op: 3,
        };
        let cases: Vec<Case> = (0..12).map(|i| random.case(&Clumsy, i)).collect();
        let mut panicked = 0;
        for (i, case) in cases.iter().enumerate() {
            assert!(case
                .name
                .starts_with(&format!("random clumsy #{i} (seed 9): ")));
            assert_eq!(case.group, CaseGroup::Random);
            assert_eq!(case.quick, i < 3);
            if case.name.ends_with("(no draw)") {
                panicked += 1;
                let discovery = crate::discover(&[rosetta_core::Api::Cpu]);
                let device = discovery.devices().next().expect("the CPU backend");
                let ctx = Context {
                    backend: device.backend(),
                    quick: true,
                    budget: Duration::from_millis(1),
                };
                let verdict = case.run_on(case.prepare().as_ref(), &ctx);
                assert_eq!(verdict.status, Status::Failed);
                assert!(verdict.detail.contains("odd draw"), "{}", verdict.detail);
            }
        }
        assert!(panicked > 0 && panicked < 12, "{panicked}");
        // The same seed draws the same names.
        let again: Vec<String> = (0..12).map(|i| random.case(&Clumsy, i).name).collect();
        assert_eq!(
            again,
            cases.iter().map(|c| c.name.clone()).collect::<Vec<_>>()
        );
    }
}
