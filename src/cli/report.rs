//! `rosetta` with no command: devices, conformance matrix and a quick benchmark,
//! written to a directory as index.html and results.json.

use super::{progress, select, Outcome};
use rosetta::bench::{Op, Options, Size};
use rosetta::report::{Absent, Report};
use rosetta::{conform, ApiStatus};
use std::path::PathBuf;

pub fn run(out: PathBuf, backends: Vec<String>, size: Size) -> rosetta::Result<Outcome> {
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
        eprintln!("device {} {}", device.info().id(), device.info().name);
    }
    let cases = conform::cases();
    let bar = progress::bar(cases.len() * devices.len(), "conform");
    let conformance = conform::run(&devices, &cases, Vec::new(), |p| {
        bar.set_position(p.done as u64);
        bar.set_message(format!("{} on {}", p.case, p.device));
    });
    bar.finish_and_clear();
    print!("{}", super::conform::render(&conformance));
    let bench = super::bench::measure(&devices, Options::new(size, Op::SELECTABLE.to_vec()));
    print!("{}", rosetta::bench::render_table(&bench));
    let passed = conformance.passed;
    Report::new(absent, conformance, bench).write(&out)?;
    println!("report: {}", out.join("index.html").display());
    println!("data:   {}", out.join("results.json").display());
    Ok(if passed {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}
