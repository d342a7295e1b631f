//! `rosetta tune`: measure every variant of each op's tunable workloads on
//! each device and keep the fastest in the tuning cache, which plans use
//! from then on.
//!
//! Each workload's variants are measured [`ROUNDS`] times, round-robin,
//! then, in a second stage, the neighbours the workload names around the
//! fastest (`Workload::refined`: matmul's fastest tiling at other chunk
//! counts of k, which around every tiling doubled the tuner's matmul time
//! for nothing on an H100), and
//! each variant keeps its fastest round's median: a slowdown that lasts a
//! few seconds (another process on the GPU, clocks ramping) only inflates
//! the variants measured during it, and noise can only add time. Seen on an
//! H200 with one round: a transient slowdown made the 128×128 matmul tiling
//! measure 2.8 ms at 2048³ (0.51 ms otherwise), and the tuner stored 64×64.

use super::out::Outcome;
use super::out::{Failure, Out};
use super::progress;
use super::select::{check_ops, check_shapes, select};
use rosetta::bench::{run_workload, Options, Status};
use rosetta::kernels::op::{Size, TuningCache, TuningChoice};
use std::collections::BTreeMap;

/// Times each variant is measured (round-robin over the variants).
pub const ROUNDS: usize = 2;

/// The variant with the least time in `measured`, and its time.
fn fastest(measured: &BTreeMap<String, f64>) -> Option<(&String, &f64)> {
    measured.iter().min_by(|a, b| a.1.total_cmp(b.1))
}

/// Each variant's fastest median over the rounds it ran in.
pub fn fastest_rounds(rounds: &BTreeMap<String, Vec<f64>>) -> BTreeMap<String, f64> {
    rounds
        .iter()
        .filter_map(|(variant, medians)| {
            let best = medians.iter().copied().min_by(f64::total_cmp)?;
            Some((variant.clone(), best))
        })
        .collect()
}

pub fn run(
    out: &mut Out,
    backends: Vec<String>,
    ops: Vec<String>,
    size: Size,
    shapes: &[String],
) -> Result<Outcome, Failure> {
    let ops = check_ops(&ops)?;
    let shapes = check_shapes(&ops, shapes)?;
    let (_, devices) = select(&backends)?;
    // The tuner's choices live in the cache: without one it would measure
    // for nothing.
    if let Some(device) = devices.first() {
        if TuningCache::for_device(device.info()).path().is_none() {
            return Err(Failure::Usage(
                "tuning keeps its choices in the cache, and caching is off \
                 (ROSETTA_CACHE_DIR=off, or no home directory): set ROSETTA_CACHE_DIR to a folder"
                    .into(),
            ));
        }
    }
    let options = Options {
        min_samples: 5,
        target_seconds: 0.2,
        max_seconds: 3.0,
        shapes,
        ..Options::new(size, ops.clone())
    };
    let mut jobs = Vec::new();
    for device in &devices {
        for workload in rosetta::bench::workloads(device.info(), &options)? {
            if workload.tune_class.is_some() && !workload.variants.is_empty() {
                jobs.push((device, workload));
            }
        }
    }
    // An op named with --op that has no variants here (copy, chain) is a
    // usage error, not a silent success.
    for op in &ops {
        if !jobs.iter().any(|(_, w)| w.op.eq_ignore_ascii_case(op)) {
            return Err(Failure::Usage(format!(
                "'{op}' has no variants to tune on the selected devices"
            )));
        }
    }
    // A cache it cannot write fails before anything is measured.
    for device in &devices {
        TuningCache::for_device(device.info())
            .check_writable()
            .map_err(unwritable)?;
    }
    let total: usize = jobs.iter().map(|(_, w)| w.variants.len() * ROUNDS).sum();
    let bar = progress::bar(total, "tune");
    let mut failed = false;
    let mut done = 0;
    for (device, workload) in &jobs {
        let class = workload.tune_class.clone().unwrap_or_default();
        let mut tally = Tally::default();
        let mut stage = Stage {
            device,
            workload,
            options: &options,
            bar: &bar,
            done: &mut done,
        };
        stage.measure(&workload.variants, &mut tally, out)?;
        // The second stage: the fastest's neighbours (matmul: its tiling at
        // other chunk counts of k), each not measured yet.
        if let Some((winner, _)) = fastest(&fastest_rounds(&tally.rounds)) {
            let more: Vec<String> = workload
                .refinements(winner)
                .into_iter()
                .filter(|v| !workload.variants.contains(v))
                .collect();
            bar.inc_length((more.len() * ROUNDS) as u64);
            stage.measure(&more, &mut tally, out)?;
        }
        failed |= !tally.wrong.is_empty();
        let measured = fastest_rounds(&tally.rounds);
        let Some((best, &median)) = fastest(&measured) else {
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
        // Stored before it is printed: a closed stdout ends the run (141)
        // after the choice is kept, not before.
        let stored = TuningCache::for_device(device.info()).store(
            device.info(),
            workload.op,
            &class,
            TuningChoice {
                variant: best.clone(),
                median_s: median,
                measured: measured.clone(),
            },
        );
        if let Err(e) = stored {
            // Storing is what tuning is for: stop rather than measure on.
            bar.finish_and_clear();
            return Err(unwritable(e));
        }
        writeln!(
            out,
            "{:<10} {:<28} -> {best}   ({})",
            device.info().id(),
            workload.label,
            summary.join(", ")
        )?;
    }
    bar.finish_and_clear();
    if let Some(device) = devices.first() {
        if let Some(path) = TuningCache::for_device(device.info()).path() {
            writeln!(
                out,
                "tuning cache: {}",
                path.parent()
                    .map(|p| rosetta::core::shown_path(p).to_string())
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

/// What a workload's variants measured: each one's median per round, and
/// the variants whose output was wrong (never chosen, not measured again).
#[derive(Default)]
struct Tally {
    rounds: BTreeMap<String, Vec<f64>>,
    wrong: std::collections::BTreeSet<String>,
}

/// One workload on one device, measured in stages.
struct Stage<'a> {
    device: &'a rosetta::Device,
    workload: &'a rosetta::kernels::op::Workload,
    options: &'a Options,
    bar: &'a indicatif::ProgressBar,
    done: &'a mut u64,
}

impl Stage<'_> {
    /// Each of `variants` [`ROUNDS`] times, round-robin, into `tally`; a
    /// wrong output is reported on `out`.
    fn measure(
        &mut self,
        variants: &[String],
        tally: &mut Tally,
        out: &mut Out,
    ) -> Result<(), Failure> {
        let (device, workload) = (self.device, self.workload);
        for round in 0..ROUNDS {
            for variant in variants {
                *self.done += 1;
                if tally.wrong.contains(variant) {
                    self.bar.set_position(*self.done);
                    continue;
                }
                self.bar.set_message(format!(
                    "{} {} on {} (round {}/{ROUNDS})",
                    workload.label,
                    variant,
                    device.info().id(),
                    round + 1
                ));
                let result = run_workload(device, workload, self.options, Some(variant));
                match (result.status, result.device_time) {
                    (Status::Ok, Some(t)) => {
                        tally
                            .rounds
                            .entry(variant.clone())
                            .or_default()
                            .push(t.median_s);
                    }
                    (Status::Wrong, _) => {
                        tally.wrong.insert(variant.clone());
                        tally.rounds.remove(variant);
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
                self.bar.set_position(*self.done);
            }
        }
        Ok(())
    }
}

/// The failure of a tuning cache that cannot keep a choice.
fn unwritable(e: std::io::Error) -> Failure {
    Failure::Failed(format!("the tuning cache cannot be written: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variant_keeps_its_fastest_round() {
        let rounds: BTreeMap<String, Vec<f64>> = [
            // Slowed down in round 1, the fastest in round 2.
            ("128x128".to_string(), vec![2.8e-3, 0.51e-3]),
            ("64x64".to_string(), vec![0.63e-3, 0.62e-3]),
            ("ran once".to_string(), vec![0.9e-3]),
            ("never ran".to_string(), vec![]),
        ]
        .into_iter()
        .collect();
        let fastest = fastest_rounds(&rounds);
        assert_eq!(fastest.len(), 3);
        assert_eq!(fastest["128x128"], 0.51e-3);
        assert_eq!(fastest["64x64"], 0.62e-3);
        assert_eq!(fastest["ran once"], 0.9e-3);
        let best = fastest.iter().min_by(|a, b| a.1.total_cmp(b.1)).unwrap();
        assert_eq!(best.0, "128x128");
    }
}
