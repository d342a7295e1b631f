//! The conformance suite: identical seeded inputs on every device, each result
//! compared with the host reference within its bound (never with another
//! backend). `rosetta conform` and the tests in `tests/` run the same cases.

mod cases;
mod checks;

pub use cases::cases;

use crate::device::Device;
use rosetta_core::{Api, DeviceInfo, Error, Result};
use serde::Serialize;
use std::time::Instant;

/// One conformance case: how to make its inputs and reference, and how to
/// check a device against them.
pub struct Case {
    pub name: String,
    pub op: &'static str,
    /// Part of `--quick` (small inputs, every op and path).
    pub quick: bool,
    /// Runs per device; results must be bit-identical across runs.
    pub repeat: usize,
    make: Box<dyn Fn() -> Box<dyn Check> + Send + Sync>,
}

impl Case {
    fn new<C: Check + 'static>(
        name: impl Into<String>,
        op: &'static str,
        quick: bool,
        make: impl Fn() -> C + Send + Sync + 'static,
    ) -> Self {
        Case {
            name: name.into(),
            op,
            quick,
            repeat: 1,
            make: Box::new(move || Box::new(make())),
        }
    }

    fn repeated(mut self, times: usize) -> Self {
        self.repeat = times;
        self
    }
}

/// A case's prepared inputs and reference.
trait Check: Send + Sync {
    fn run(&self, device: &Device) -> Result<Verdict>;
}

/// What one run of a case on one device gave.
#[derive(Debug, Clone)]
struct Verdict {
    passed: bool,
    /// Worst |error| / bound over the outputs (floating-point ops).
    error_ratio: Option<f64>,
    detail: String,
    /// Hash of the result's bits, for the repeat check.
    fingerprint: u64,
}

/// One case on one device.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub device: String,
    pub passed: bool,
    /// Worst |error| / bound (≤ 1 passes); absent for exact ops.
    pub error_ratio: Option<f64>,
    /// Why it failed, or a note.
    pub detail: String,
    pub seconds: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseReport {
    pub name: String,
    pub op: &'static str,
    /// One per device, in the order of [`Report::devices`].
    pub results: Vec<Outcome>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DeviceSummary {
    pub device: String,
    pub name: String,
    pub passed: usize,
    pub failed: usize,
}

/// The conformance matrix: cases × devices.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub devices: Vec<DeviceInfo>,
    pub cases: Vec<CaseReport>,
    pub summary: Vec<DeviceSummary>,
    /// Required APIs that found no device (each fails the run).
    pub missing: Vec<String>,
    pub passed: bool,
}

impl Report {
    /// One line per failing (case, device): `case on device: detail`.
    pub fn failures(&self) -> Vec<String> {
        self.cases
            .iter()
            .flat_map(|c| {
                c.results
                    .iter()
                    .filter(|o| !o.passed)
                    .map(move |o| format!("{} on {}: {}", c.name, o.device, o.detail))
            })
            .collect()
    }
}

/// Progress of a run, for progress bars.
pub struct Progress<'a> {
    pub done: usize,
    pub total: usize,
    pub case: &'a str,
    pub device: &'a str,
}

/// Run `cases` on `devices`. Missing `required` APIs fail the report.
pub fn run(
    devices: &[Device],
    cases: &[Case],
    missing: Vec<String>,
    mut progress: impl FnMut(Progress<'_>),
) -> Report {
    let total = cases.len() * devices.len();
    let mut done = 0;
    let mut reports = Vec::with_capacity(cases.len());
    for case in cases {
        let check = (case.make)();
        let mut results = Vec::with_capacity(devices.len());
        for device in devices {
            let id = device.info().id();
            progress(Progress {
                done,
                total,
                case: &case.name,
                device: &id,
            });
            let outcome = run_one(case, check.as_ref(), device);
            if !outcome.passed {
                tracing::warn!(case = %case.name, device = %id, detail = %outcome.detail, "case failed");
            }
            results.push(outcome);
            done += 1;
        }
        reports.push(CaseReport {
            name: case.name.clone(),
            op: case.op,
            results,
        });
    }
    let summary: Vec<DeviceSummary> = devices
        .iter()
        .enumerate()
        .map(|(i, device)| {
            let passed = reports.iter().filter(|c| c.results[i].passed).count();
            DeviceSummary {
                device: device.info().id(),
                name: device.info().name.clone(),
                passed,
                failed: reports.len() - passed,
            }
        })
        .collect();
    let passed = missing.is_empty() && !devices.is_empty() && summary.iter().all(|s| s.failed == 0);
    Report {
        devices: devices.iter().map(|d| d.info().clone()).collect(),
        cases: reports,
        summary,
        missing,
        passed,
    }
}

fn run_one(case: &Case, check: &dyn Check, device: &Device) -> Outcome {
    let started = Instant::now();
    let mut first: Option<Verdict> = None;
    let mut failure: Option<String> = None;
    for attempt in 0..case.repeat.max(1) {
        match check.run(device) {
            Ok(verdict) if !verdict.passed => {
                failure = Some(verdict.detail.clone());
                first.get_or_insert(verdict);
                break;
            }
            Ok(verdict) => match &first {
                Some(f) if f.fingerprint != verdict.fingerprint => {
                    failure = Some(format!(
                        "run {} differs from run 1 (results must be bit-identical)",
                        attempt + 1
                    ));
                    break;
                }
                Some(_) => {}
                None => first = Some(verdict),
            },
            Err(e) => {
                failure = Some(format!("error: {e}"));
                break;
            }
        }
    }
    let diagnostics = device.backend().take_diagnostics();
    if !diagnostics.is_empty() && failure.is_none() {
        failure = Some(format!(
            "{} validation message(s): {}",
            diagnostics.len(),
            diagnostics.join(" | ")
        ));
    }
    let error_ratio = first.as_ref().and_then(|v| v.error_ratio);
    Outcome {
        device: device.info().id(),
        passed: failure.is_none(),
        error_ratio,
        detail: failure.unwrap_or_else(|| first.map(|v| v.detail).unwrap_or_default()),
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// APIs listed in `ROSETTA_REQUIRE` (comma-separated), if set.
pub fn required_apis() -> Result<Option<Vec<Api>>> {
    let Ok(text) = std::env::var("ROSETTA_REQUIRE") else {
        return Ok(None);
    };
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|name| {
            Api::from_name(name).ok_or_else(|| {
                Error::InvalidArgument(format!("ROSETTA_REQUIRE names unknown API '{name}'"))
            })
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// For each required API without a device among `devices`, a line saying why
/// (from the discovery, when it knows).
pub fn missing_required(
    required: &[Api],
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
