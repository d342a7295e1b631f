//! Reading result files for `rosetta report --merge`: a report
//! (`rosetta-report/2`), a conformance run (`rosetta-conform/2`) or a
//! benchmark run (`rosetta-bench/2`), told apart by their `schema` id. Any
//! other file — not JSON, not a rosetta result, another version of a schema,
//! a run whose parts contradict each other — is an [`Error::BadFile`]
//! naming the file (a usage error), never a panic.

use super::model::{Absent, SCHEMA};
use crate::bench::{self, BenchReport};
use crate::conform;
use crate::error::{Error, Result};
use crate::machine::Machine;
use serde::Deserialize;
use std::collections::HashSet;
use std::path::Path;

/// A conformance or benchmark run, with the file it was first read from.
#[derive(Debug, Clone)]
pub struct Sourced<T> {
    /// The file; `None` for results measured by the run that wrote them.
    pub source: Option<String>,
    /// The run.
    pub run: T,
}

/// What one file holds, as runs.
#[derive(Debug, Clone, Default)]
pub struct Input {
    /// Machines in the order the file names them, with their absent APIs.
    pub machines: Vec<(Machine, Vec<Absent>)>,
    /// Conformance runs.
    pub conformance: Vec<Sourced<conform::Report>>,
    /// Benchmark runs.
    pub bench: Vec<Sourced<BenchReport>>,
}

/// The parts of a `rosetta-report/2` file that merging reads (the rest is
/// derived again).
#[derive(Deserialize)]
struct StoredReport {
    machines: Vec<StoredMachine>,
    conformance: Vec<StoredRun>,
    bench: Vec<StoredRun>,
}

#[derive(Deserialize)]
struct StoredMachine {
    machine: Machine,
    #[serde(default)]
    absent: Vec<Absent>,
}

#[derive(Deserialize)]
struct StoredRun {
    source: Option<String>,
    run: serde_json::Value,
}

/// The families of schema ids, for telling "another version" from "not ours".
const FAMILIES: [&str; 3] = ["rosetta-report/", "rosetta-conform/", "rosetta-bench/"];

/// Read and check one result file.
pub fn read(path: &Path) -> Result<Input> {
    let bad = |reason: String| Error::BadFile {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| bad("not JSON: not UTF-8 text (not a rosetta result)".into()))?;
    parse(path, text)
}

/// Check the text of one result file (`path` names it in errors and is the
/// runs' source).
pub fn parse(path: &Path, text: &str) -> Result<Input> {
    let bad = |reason: String| Error::BadFile {
        path: path.to_path_buf(),
        reason,
    };
    let source = path.display().to_string();
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| bad(format!("not JSON ({e}): not a rosetta result")))?;
    match schema_of(&value).map_err(&bad)? {
        Kind::Conform => {
            let run = conformance(value).map_err(&bad)?;
            Ok(Input {
                machines: vec![(run.machine.clone(), Vec::new())],
                conformance: vec![Sourced {
                    source: Some(source),
                    run,
                }],
                bench: Vec::new(),
            })
        }
        Kind::Bench => {
            let run = benchmark(value).map_err(&bad)?;
            Ok(Input {
                machines: vec![(run.machine.clone(), Vec::new())],
                conformance: Vec::new(),
                bench: vec![Sourced {
                    source: Some(source),
                    run,
                }],
            })
        }
        Kind::Report => {
            let stored: StoredReport = serde_json::from_value(value)
                .map_err(|e| bad(format!("not a {SCHEMA} report: {e}")))?;
            let mut input = Input {
                machines: stored
                    .machines
                    .into_iter()
                    .map(|m| (m.machine, m.absent))
                    .collect(),
                ..Input::default()
            };
            // Results the report measured itself came from this file.
            let from = |s: Option<String>| Some(s.unwrap_or_else(|| source.clone()));
            for (i, r) in stored.conformance.into_iter().enumerate() {
                let run = nested(r.run, Kind::Conform)
                    .and_then(conformance)
                    .map_err(|why| bad(format!("conformance run {i}: {why}")))?;
                input.conformance.push(Sourced {
                    source: from(r.source),
                    run,
                });
            }
            for (i, r) in stored.bench.into_iter().enumerate() {
                let run = nested(r.run, Kind::Bench)
                    .and_then(benchmark)
                    .map_err(|why| bad(format!("bench run {i}: {why}")))?;
                input.bench.push(Sourced {
                    source: from(r.source),
                    run,
                });
            }
            Ok(input)
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Report,
    Conform,
    Bench,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Report => "report",
            Kind::Conform => "conformance run",
            Kind::Bench => "benchmark run",
        }
    }
}

/// Which result `value` is, from its schema id.
fn schema_of(value: &serde_json::Value) -> std::result::Result<Kind, String> {
    let Some(object) = value.as_object() else {
        return Err(format!(
            "not a rosetta result (JSON {}, not an object)",
            json_type(value)
        ));
    };
    let schema = match object.get("schema") {
        None => {
            return Err(
                "no schema id: not a rosetta result (or one written before schema ids; \
                 re-run it with this rosetta)"
                    .into(),
            )
        }
        Some(serde_json::Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(format!(
                "not a rosetta result (its schema is JSON {}, not a string)",
                json_type(other)
            ))
        }
    };
    match schema {
        SCHEMA => Ok(Kind::Report),
        conform::SCHEMA => Ok(Kind::Conform),
        bench::SCHEMA => Ok(Kind::Bench),
        other if FAMILIES.iter().any(|f| other.starts_with(f)) => Err(format!(
            "schema '{}' is not one this rosetta reads ({SCHEMA}, {}, {}); \
             re-run it with this version",
            other.escape_debug(),
            conform::SCHEMA,
            bench::SCHEMA
        )),
        other => Err(format!(
            "schema '{}' is not a rosetta result",
            other.escape_debug()
        )),
    }
}

fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// A run inside a report must be of the kind its list holds.
fn nested(value: serde_json::Value, kind: Kind) -> std::result::Result<serde_json::Value, String> {
    let found = schema_of(&value)?;
    if found != kind {
        return Err(format!("a {} in the wrong list", found.name()));
    }
    Ok(value)
}

/// A conformance run whose parts agree: unique device ids, unique case
/// names, every outcome naming one of the run's devices at most once.
fn conformance(value: serde_json::Value) -> std::result::Result<conform::Report, String> {
    let run: conform::Report =
        serde_json::from_value(value).map_err(|e| format!("not a {} run: {e}", conform::SCHEMA))?;
    let ids = unique_ids(run.devices.iter().map(|d| d.id()))?;
    let mut names = HashSet::new();
    for case in &run.cases {
        if !names.insert(case.name.as_str()) {
            return Err(format!(
                "case '{}' is listed twice",
                case.name.escape_debug()
            ));
        }
        let mut seen = HashSet::new();
        for o in &case.results {
            if !ids.contains(o.device.as_str()) {
                return Err(format!(
                    "case '{}' has a result for {}, which is not among its devices",
                    case.name.escape_debug(),
                    o.device.escape_debug()
                ));
            }
            if !seen.insert(o.device.as_str()) {
                return Err(format!(
                    "case '{}' has two results for {}",
                    case.name.escape_debug(),
                    o.device.escape_debug()
                ));
            }
            if let Some(why) = contradiction(o) {
                return Err(format!(
                    "case '{}' passed on {} {why}",
                    case.name.escape_debug(),
                    o.device.escape_debug()
                ));
            }
        }
    }
    Ok(run)
}

/// Why a passed outcome contradicts itself, if it does: an error past its
/// bound (a ratio above 1, or none that compares), or a forbidden weak
/// outcome that was seen. A merge re-derives verdicts from cells, so a cell
/// must not say `passed` over its own numbers.
fn contradiction(o: &conform::Outcome) -> Option<String> {
    use rosetta_kernels::op::Status;
    if o.status != Status::Passed {
        return None;
    }
    if let Some(ratio) = o.error_ratio.filter(|r| r.is_nan() || *r > 1.0) {
        return Some(format!("with an error ratio of {ratio}, past its bound"));
    }
    let weak = o.counts.get("weak").copied().unwrap_or(0);
    (o.detail.contains("forbidden weak outcome") && weak > 0)
        .then(|| format!("with a forbidden weak outcome seen {weak} times"))
}

/// A benchmark run whose times can be compared and whose results name its
/// devices.
fn benchmark(value: serde_json::Value) -> std::result::Result<BenchReport, String> {
    let run: BenchReport =
        serde_json::from_value(value).map_err(|e| format!("not a {} run: {e}", bench::SCHEMA))?;
    // The rule `bench --compare` applies to its baseline, devices included.
    bench::validate(&run)?;
    Ok(run)
}

fn unique_ids(ids: impl Iterator<Item = String>) -> std::result::Result<HashSet<String>, String> {
    let mut set = HashSet::new();
    for id in ids {
        if set.contains(&id) {
            return Err(format!("device {id} is listed twice"));
        }
        set.insert(id);
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures;

    fn refused(text: &str) -> String {
        let path = Path::new("dir/results.json");
        let e = parse(path, text).expect_err(text);
        assert!(e.is_usage(), "{e}");
        let line = e.to_string();
        assert!(line.starts_with("dir/results.json: "), "{line}");
        assert_eq!(line.lines().count(), 1, "{line}");
        line
    }

    fn conform_json() -> serde_json::Value {
        let devices = fixtures::gpu_machine_devices();
        serde_json::to_value(fixtures::conformance(
            "m",
            &devices,
            &["matmul 17x33x9"],
            false,
        ))
        .unwrap()
    }

    #[test]
    fn other_files_are_refused_naming_them() {
        assert!(refused("").contains("not JSON"));
        assert!(refused("<html>").contains("not JSON"));
        assert!(refused("[1, 2]").contains("not a rosetta result (JSON array"));
        assert!(refused("{}").contains("no schema id"));
        assert!(refused(r#"{"schema": 2}"#).contains("not a string"));
        assert!(refused(r#"{"schema": "npm-lock/3"}"#).contains("is not a rosetta result"));
        for old in [
            "rosetta-report/1",
            "rosetta-bench/1",
            "rosetta-conform/1",
            "rosetta-bench/3",
        ] {
            let why = refused(&format!(r#"{{"schema": "{old}", "devices": []}}"#));
            assert!(why.contains(old) && why.contains("re-run"), "{why}");
        }
        // The right schema id on the wrong content.
        assert!(
            refused(r#"{"schema": "rosetta-conform/2"}"#).contains("not a rosetta-conform/2 run")
        );
        assert!(
            refused(r#"{"schema": "rosetta-bench/2", "results": 3}"#).contains("rosetta-bench/2")
        );
        assert!(refused(r#"{"schema": "rosetta-report/2"}"#).contains("rosetta-report/2"));
        let quoted = refused("{\"schema\": \"x\\ny\"}");
        assert!(quoted.contains("x\\ny"), "{quoted}");
    }

    #[test]
    fn runs_must_agree_with_themselves() {
        let mut v = conform_json();
        v["cases"][0]["results"][0]["device"] = "cuda:7".into();
        assert!(refused(&v.to_string()).contains("cuda:7, which is not among its devices"));
        let mut v = conform_json();
        let first = v["cases"][0].clone();
        v["cases"].as_array_mut().unwrap().push(first);
        assert!(refused(&v.to_string()).contains("listed twice"));
        let devices = fixtures::gpu_machine_devices();
        let mut b = serde_json::to_value(fixtures::bench("m", &devices, 1.0)).unwrap();
        b["results"][0]["device_time"]["median_s"] = (-1.0).into();
        assert!(refused(&b.to_string()).contains("median"));
        let mut b = serde_json::to_value(fixtures::bench("m", &devices, 1.0)).unwrap();
        b["results"][0]["device"] = "wgpu:9".into();
        assert!(refused(&b.to_string()).contains("wgpu:9"));
        // A report whose runs are not what their lists say.
        let report = serde_json::json!({
            "schema": "rosetta-report/2",
            "machines": [],
            "conformance": [{"source": null, "run": b}],
            "bench": [],
        });
        assert!(refused(&report.to_string()).contains("conformance run 0"));
        // A cell that says `passed` over its own numbers (a merge re-derives
        // verdicts from cells, and took these as green).
        let mut v = conform_json();
        v["cases"][0]["results"][0]["error_ratio"] = 5.0.into();
        assert!(refused(&v.to_string()).contains("error ratio of 5"));
        let devices = fixtures::gpu_machine_devices();
        let litmus = |weak: u64| {
            let mut v = serde_json::to_value(fixtures::conformance(
                "m",
                &devices,
                &["litmus mp workgroup sync"],
                false,
            ))
            .unwrap();
            let cell = &mut v["cases"][0]["results"][0];
            assert_eq!(cell["status"], "passed");
            assert!(cell["detail"]
                .as_str()
                .unwrap()
                .contains("forbidden weak outcome"));
            cell["counts"]["weak"] = weak.into();
            v.to_string()
        };
        assert!(parse(Path::new("c.json"), &litmus(0)).is_ok());
        assert!(refused(&litmus(7)).contains("forbidden weak outcome seen 7 times"));
    }

    #[test]
    fn each_kind_is_read() {
        let path = Path::new("c.json");
        let input = parse(path, &conform_json().to_string()).unwrap();
        assert_eq!(input.conformance.len(), 1);
        assert_eq!(input.conformance[0].source.as_deref(), Some("c.json"));
        assert_eq!(input.machines[0].0.host, "m");
        let devices = fixtures::gpu_machine_devices();
        let b = serde_json::to_string(&fixtures::bench("m", &devices, 1.0)).unwrap();
        assert_eq!(parse(path, &b).unwrap().bench.len(), 1);
    }
}
