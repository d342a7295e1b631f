//! The report's data (`results.json`, schema [`SCHEMA`]): the runs it was
//! made from, kept whole, and what the page shows derived from them — one
//! column per device of each machine, the physical devices those columns
//! share, and the conformance matrix over every column.
//!
//! The runs are the source of truth: merging a report again reads only
//! `machines`, `conformance` and `bench` and derives the rest anew. The form
//! is documented in `docs/report-json.md`.

use crate::bench::{BenchReport, BenchResult};
use crate::conform;
use crate::machine::Machine;
use rosetta_core::DeviceInfo;
use rosetta_kernels::op::CaseGroup;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The JSON schema id of [`Report`].
pub const SCHEMA: &str = "rosetta-report/2";

/// An API that found no device on a machine, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Absent {
    /// The API's name.
    pub api: String,
    /// Why it has no device (not compiled in, unavailable, no devices).
    pub reason: String,
}

/// One machine the results come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineEntry {
    /// Short unique label: the host name (`host #2` when two machines share one).
    pub label: String,
    /// The machine's identity, as its runs carry it.
    pub machine: Machine,
    /// APIs that found no device there (known only from `rosetta report`).
    #[serde(default)]
    pub absent: Vec<Absent>,
}

/// One conformance run, as it was read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConformRun {
    /// The file it was read from; `null` for results measured by the run
    /// that wrote the report.
    pub source: Option<String>,
    /// Index into [`Report::machines`].
    #[serde(default)]
    pub machine: usize,
    /// The run (`rosetta-conform/2`).
    pub run: conform::Report,
}

/// One benchmark run, as it was read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchRun {
    /// The file it was read from; `null` for results measured by the run
    /// that wrote the report.
    pub source: Option<String>,
    /// Index into [`Report::machines`].
    #[serde(default)]
    pub machine: usize,
    /// The run (`rosetta-bench/2`).
    pub run: BenchReport,
}

/// One device of one machine: a column of the conformance matrix and a
/// series of the charts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Column {
    /// Unique label: `api:index`, prefixed with the machine's label when the
    /// report has several machines, `#2` appended where a second run of the
    /// same device repeats cases or workloads of the first.
    pub label: String,
    /// Index into [`Report::machines`].
    pub machine: usize,
    /// `api:index` on that machine.
    pub device: String,
    /// The device, as its run reported it.
    pub info: DeviceInfo,
    /// Index into [`Report::physical`].
    pub physical: usize,
    /// Indices into [`Report::conformance`] of the runs that tested it (no
    /// two with a case in common).
    pub conformance: Vec<usize>,
    /// Indices into [`Report::bench`] of the runs that timed it (no two with
    /// a workload in common).
    pub bench: Vec<usize>,
}

/// How a column was recognised as part of its physical device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Matched {
    /// By the PCI bus id its API reported.
    Pci,
    /// By the device UUID its API reported (no PCI bus id).
    Uuid,
    /// A CPU-type device: every one is the machine's CPU.
    Cpu,
    /// Its API reported no id; the only physical device of the machine with
    /// this name.
    Name,
    /// No id, and no other device of the machine has its name.
    Alone,
    /// No id, and several physical devices of the machine have its name:
    /// kept apart.
    Ambiguous,
}

/// One column of a physical device.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Member {
    /// Index into [`Report::columns`].
    pub column: usize,
    /// How it was matched.
    pub matched: Matched,
    /// The match in words (for the page).
    pub note: String,
}

/// One physical device of one machine, seen through one or more APIs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PhysicalDevice {
    /// Unique label (the machine's label and the device's name).
    pub label: String,
    /// Index into [`Report::machines`].
    pub machine: usize,
    /// The device's name (without an API's suffix such as ` (Vulkan)`).
    pub name: String,
    /// `pci:…`, `uuid:…` or `host-cpu`; `null` when no API said.
    pub key: Option<String>,
    /// Its columns, in column order.
    pub members: Vec<Member>,
}

/// A cell of the merged conformance matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellStatus {
    /// Matched the reference.
    Passed,
    /// Wrong, an unexpected error, or a forbidden outcome.
    Failed,
    /// The device cannot hold the case (the detail says why).
    Skipped,
    /// The device or backend cannot run it.
    Unsupported,
    /// No run of this device has the case (another machine's run, or a
    /// filtered run): never counted as passed.
    NotRun,
}

impl CellStatus {
    /// Every status, in the order tables count them.
    pub const ALL: [CellStatus; 5] = [
        CellStatus::Passed,
        CellStatus::Failed,
        CellStatus::Skipped,
        CellStatus::Unsupported,
        CellStatus::NotRun,
    ];

    /// The name used in JSON and on the page.
    pub fn name(self) -> &'static str {
        match self {
            CellStatus::Passed => "passed",
            CellStatus::Failed => "failed",
            CellStatus::Skipped => "skipped",
            CellStatus::Unsupported => "unsupported",
            CellStatus::NotRun => "not run",
        }
    }
}

impl From<rosetta_kernels::op::Status> for CellStatus {
    fn from(s: rosetta_kernels::op::Status) -> Self {
        use rosetta_kernels::op::Status;
        match s {
            Status::Passed => CellStatus::Passed,
            Status::Failed => CellStatus::Failed,
            Status::Skipped => CellStatus::Skipped,
            Status::Unsupported => CellStatus::Unsupported,
        }
    }
}

/// One case on one column.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cell {
    /// What happened.
    pub status: CellStatus,
    /// Worst |error| / bound, where measured.
    pub error_ratio: Option<f64>,
    /// Why it failed, was skipped or not run, or a note.
    pub detail: String,
    /// Wall time on the device; `null` when not run.
    pub seconds: Option<f64>,
    /// Named counts (litmus outcomes).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counts: BTreeMap<String, u64>,
}

/// One case across every column.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MatrixCase {
    /// The case's name (how runs are matched).
    pub name: String,
    /// The op (or `memory-model`).
    pub op: String,
    /// The suite's part.
    pub group: CaseGroup,
    /// One per column, in [`Report::columns`] order.
    pub cells: Vec<Cell>,
}

/// Everything the report shows (`results.json`, schema [`SCHEMA`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA`].
    pub schema: String,
    /// The rosetta version that wrote the report.
    pub rosetta_version: String,
    /// The machines, in the order their results were given.
    pub machines: Vec<MachineEntry>,
    /// Every device of every machine, grouped by physical device.
    pub columns: Vec<Column>,
    /// The physical devices behind the columns.
    pub physical: Vec<PhysicalDevice>,
    /// The conformance runs.
    pub conformance: Vec<ConformRun>,
    /// The benchmark runs.
    pub bench: Vec<BenchRun>,
    /// The merged conformance matrix: every case of every run × every column.
    pub matrix: Vec<MatrixCase>,
    /// Every conformance run passed (no failure, no required API missing);
    /// `null` without conformance runs.
    pub passed: Option<bool>,
}

impl Report {
    /// The machines the report's results come from.
    pub fn machines(&self) -> Vec<Machine> {
        self.machines.iter().map(|m| m.machine.clone()).collect()
    }

    /// The benchmark results of a column (empty when it was not timed).
    pub fn results_of(&self, column: usize) -> Vec<&BenchResult> {
        let Some(col) = self.columns.get(column) else {
            return Vec::new();
        };
        col.bench
            .iter()
            .filter_map(|&b| self.bench.get(b))
            .flat_map(|b| b.run.results.iter().filter(|r| r.device == col.device))
            .collect()
    }

    /// Columns with a conformance run, in column order.
    pub fn conformance_columns(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| !self.columns[i].conformance.is_empty())
            .collect()
    }

    /// Columns with a benchmark run, in column order.
    pub fn bench_columns(&self) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&i| !self.columns[i].bench.is_empty())
            .collect()
    }

    /// How `column` was matched to its physical device.
    pub fn member(&self, column: usize) -> Option<&Member> {
        let col = self.columns.get(column)?;
        self.physical
            .get(col.physical)?
            .members
            .iter()
            .find(|m| m.column == column)
    }
}
