//! `rosetta` with no command: devices, conformance matrix and a quick
//! benchmark, written to a directory as index.html and results.json; and
//! `rosetta report --merge`: one page from result files of several machines.

use super::out::Outcome;
use super::out::{Failure, Out};
use super::select::select;
use rosetta::bench::Options;
use rosetta::kernels::op::Size;
use rosetta::report::{Absent, Report};
use rosetta::{conform, ApiStatus};
use std::path::{Path, PathBuf};

pub fn run(
    out: &mut Out,
    dir: PathBuf,
    backends: Vec<String>,
    size: Size,
    full: bool,
) -> Result<Outcome, Failure> {
    // Before any work: the folder must be writable (or creatable).
    rosetta::output::check_dir(&dir)?;
    let (discovery, devices) = select(&backends)?;
    let absent: Vec<Absent> = discovery
        .apis
        .iter()
        .filter_map(|entry| {
            let reason = match &entry.status {
                ApiStatus::NotCompiled => {
                    format!("not compiled in (build with --features {})", entry.api)
                }
                ApiStatus::Unavailable(reason) => format!("unavailable: {reason}"),
                ApiStatus::Devices(d) if d.is_empty() => "no devices".into(),
                ApiStatus::Devices(_) => return None,
            };
            Some(Absent {
                api: entry.api.to_string(),
                reason,
            })
        })
        .collect();
    for device in &devices {
        writeln!(out, "device {} {}", device.info().id(), device.info().name)?;
    }
    // ROSETTA_REQUIRE applies to the APIs this run selected, as in `conform`.
    let required = super::conform::required_selected(&backends)?;
    let missing = conform::missing_required(&required, &devices, &discovery);
    // The quick cases of every group (the whole suite with --full).
    let cases: Vec<_> = conform::all_cases()
        .into_iter()
        .filter(|c| full || c.quick)
        .collect();
    let conformance = super::conform::measure(
        &devices,
        &cases,
        missing,
        &conform::Options {
            quick: !full,
            ..Default::default()
        },
    );
    write!(out, "{}", super::conform::render(&conformance))?;
    let bench = super::bench::measure(&devices, Options::new(size, Vec::new()))?;
    write!(out, "{}", rosetta::bench::render_table(&bench))?;
    let passed = conformance.passed;
    Report::new(absent, conformance, bench).write(&dir)?;
    written(out, &dir)?;
    Ok(if passed {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

pub fn merge(out: &mut Out, dir: PathBuf, inputs: &[PathBuf]) -> Result<Outcome, Failure> {
    rosetta::output::check_dir(&dir)?;
    // Every input is read and checked before anything is written.
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let merged = rosetta::report::merge(&inputs)?;
    merged.write(&dir)?;
    // Labels, not bare host names: two machines called `vm` are `vm` and
    // `vm #2`, as on the page; free text from the files, so control
    // characters escaped.
    let hosts: Vec<String> = merged
        .machines
        .iter()
        .map(|m| rosetta::core::escape_controls(&m.label))
        .collect();
    writeln!(
        out,
        "merged {} file(s) from {} machine(s): {}",
        inputs.len(),
        hosts.len(),
        hosts.join(", ")
    )?;
    written(out, &dir)?;
    Ok(Outcome::Success)
}

/// The page and the data a report wrote into `dir`.
fn written(out: &mut Out, dir: &Path) -> Result<(), Failure> {
    let shown = |name: &str| rosetta::core::shown_path(&dir.join(name)).to_string();
    writeln!(out, "report: {}", shown("index.html"))?;
    writeln!(out, "data:   {}", shown("results.json"))?;
    Ok(())
}
