//! Writing a report: `results.json` and `index.html` into a folder, each
//! through [`crate::output`] (nothing half-written; errors name the path).

use super::html;
use super::model::Report;
use crate::bench::BenchReport;
use crate::error::{Error, Result};
use crate::output;
use std::path::Path;

impl Report {
    /// Write `results.json` (this report) and `index.html` into `dir`
    /// (created if missing).
    pub fn write(&self, dir: &Path) -> Result<()> {
        create_dir(dir)?;
        let json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Usage(format!("the report does not serialise: {e}")))?;
        output::write(&dir.join("results.json"), json.as_bytes())?;
        output::write(&dir.join("index.html"), html::page(self).as_bytes())
    }
}

/// Write a benchmark-only page (`rosetta bench --html DIR`): `index.html`,
/// and the run itself as `results.json` (`rosetta-bench/2`).
pub fn write_bench_html(dir: &Path, bench: &BenchReport) -> Result<()> {
    create_dir(dir)?;
    let json = serde_json::to_string_pretty(bench)
        .map_err(|e| Error::Usage(format!("the benchmark does not serialise: {e}")))?;
    output::write(&dir.join("results.json"), json.as_bytes())?;
    let page = html::page(&Report::from_bench(bench.clone()));
    output::write(&dir.join("index.html"), page.as_bytes())
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))
}
