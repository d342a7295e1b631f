//! The report `rosetta` writes with no arguments: devices and their
//! capabilities, the conformance matrix, and a quick benchmark, as
//! `results.json` and a self-contained `index.html`.

mod charts;
mod html;

use crate::bench::BenchReport;
use crate::conform;
use crate::error::{Error, Result};
use crate::output;
use serde::Serialize;
use std::path::Path;

/// An API that found no device, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Absent {
    pub api: String,
    pub reason: String,
}

/// Everything the report shows (`results.json`).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub schema: String,
    pub rosetta_version: String,
    pub absent: Vec<Absent>,
    pub conformance: conform::Report,
    pub bench: BenchReport,
}

pub const SCHEMA: &str = "rosetta-report/1";

impl Report {
    pub fn new(absent: Vec<Absent>, conformance: conform::Report, bench: BenchReport) -> Self {
        Report {
            schema: SCHEMA.into(),
            rosetta_version: env!("CARGO_PKG_VERSION").into(),
            absent,
            conformance,
            bench,
        }
    }

    /// Write `results.json` and `index.html` into `dir` (created if missing),
    /// each through [`crate::output`]; errors name the path.
    pub fn write(&self, dir: &Path) -> Result<()> {
        create_dir(dir)?;
        let json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Usage(format!("report does not serialise: {e}")))?;
        output::write(&dir.join("results.json"), json.as_bytes())?;
        output::write(&dir.join("index.html"), html::page(self).as_bytes())
    }
}

/// Write a benchmark-only page (`rosetta bench --html DIR`) and its JSON.
pub fn write_bench_html(dir: &Path, bench: &BenchReport) -> Result<()> {
    create_dir(dir)?;
    let json = serde_json::to_string_pretty(bench)
        .map_err(|e| Error::Usage(format!("benchmark does not serialise: {e}")))?;
    output::write(&dir.join("results.json"), json.as_bytes())?;
    output::write(&dir.join("index.html"), html::bench_page(bench).as_bytes())
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))
}

/// One report from result files of several machines (WIP: being built).
pub fn merge(_inputs: &[&Path]) -> Result<Report> {
    Err(Error::Usage("report --merge is not built yet".into()))
}

impl Report {
    /// The machines the report's results come from.
    pub fn machines(&self) -> Vec<crate::Machine> {
        vec![self.conformance.machine.clone()]
    }
}
