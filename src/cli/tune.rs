//! `rosetta tune`: measure every variant of each op's tunable workloads on
//! each device and keep the fastest in the tuning cache, which plans use
//! from then on.

use super::out::Outcome;
use super::out::{Failure, Out};
use super::progress;
use super::select::{check_ops, select};
use rosetta::bench::{run_workload, Options, Status};
use rosetta::kernels::op::{Size, TuningCache, TuningChoice};
use std::collections::BTreeMap;

pub fn run(
    out: &mut Out,
    backends: Vec<String>,
    ops: Vec<String>,
    size: Size,
) -> Result<Outcome, Failure> {
    check_ops(&ops)?;
    let (_, devices) = select(&backends)?;
    let options = Options {
        min_samples: 5,
        target_seconds: 0.2,
        max_seconds: 3.0,
        ..Options::new(size, ops)
    };
    let mut jobs = Vec::new();
    for device in &devices {
        for workload in rosetta::bench::workloads(device.info(), &options)? {
            if workload.tune_class.is_some() && !workload.variants.is_empty() {
                jobs.push((device, workload));
            }
        }
    }
    let total: usize = jobs.iter().map(|(_, w)| w.variants.len()).sum();
    let bar = progress::bar(total, "tune");
    let mut failed = false;
    let mut done = 0;
    for (device, workload) in &jobs {
        let class = workload.tune_class.clone().unwrap_or_default();
        let mut measured = BTreeMap::new();
        for variant in &workload.variants {
            bar.set_message(format!(
                "{} {} on {}",
                workload.label,
                variant,
                device.info().id()
            ));
            let result = run_workload(device, workload, &options, Some(variant));
            match (result.status, result.device_time) {
                (Status::Ok, Some(t)) => {
                    measured.insert(variant.clone(), t.median_s);
                }
                (Status::Wrong, _) => {
                    failed = true;
                    writeln!(
                        out,
                        "WRONG {} {} on {}: {}",
                        workload.label,
                        variant,
                        device.info().id(),
                        result.detail
                    )?;
                }
                _ => {
                    tracing::debug!(variant = %variant, detail = %result.detail, "variant not run")
                }
            }
            done += 1;
            bar.set_position(done);
        }
        let Some((best, &median)) = measured.iter().min_by(|a, b| a.1.total_cmp(b.1)) else {
            writeln!(
                out,
                "{:<10} {:<28} no variant ran",
                device.info().id(),
                workload.label
            )?;
            continue;
        };
        let summary: Vec<String> = measured
            .iter()
            .map(|(v, t)| format!("{v} {}", rosetta::bench::format_seconds(*t)))
            .collect();
        writeln!(
            out,
            "{:<10} {:<28} -> {best}   ({})",
            device.info().id(),
            workload.label,
            summary.join(", ")
        )?;
        TuningCache::for_device(device.info()).store(
            device.info(),
            workload.op,
            &class,
            TuningChoice {
                variant: best.clone(),
                median_s: median,
                measured: measured.clone(),
            },
        );
    }
    bar.finish_and_clear();
    if let Some(device) = devices.first() {
        if let Some(path) = TuningCache::for_device(device.info()).path() {
            writeln!(
                out,
                "tuning cache: {}",
                path.parent()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            )?;
        }
    }
    Ok(if failed {
        Outcome::Failed
    } else {
        Outcome::Success
    })
}
