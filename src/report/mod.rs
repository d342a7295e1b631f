//! The report `rosetta` writes with no arguments: devices and their
//! capabilities, the conformance matrix, and a quick benchmark, as
//! `results.json` and a self-contained `index.html`.

mod charts;
mod html;
#[cfg(test)]
mod sample;

use crate::bench::BenchReport;
use crate::conform;
use rosetta_core::{Error, Result};
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

    /// Write `results.json` and `index.html` into `dir` (created if missing).
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        let json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::InvalidArgument(format!("report does not serialise: {e}")))?;
        std::fs::write(dir.join("results.json"), json)?;
        std::fs::write(dir.join("index.html"), html::page(self))?;
        Ok(())
    }
}

/// Write a benchmark-only page (`rosetta bench --html DIR`) and its JSON.
pub fn write_bench_html(dir: &Path, bench: &BenchReport) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let json = serde_json::to_string_pretty(bench)
        .map_err(|e| Error::InvalidArgument(format!("benchmark does not serialise: {e}")))?;
    std::fs::write(dir.join("results.json"), json)?;
    std::fs::write(dir.join("index.html"), html::bench_page(bench))?;
    Ok(())
}
