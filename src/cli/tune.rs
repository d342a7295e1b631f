//! `rosetta tune`: the library's tuner ([`rosetta::tune`]) over the selected
//! devices, with a progress bar and one line per workload.

use super::out::Outcome;
use super::out::{Failure, Out};
use super::progress;
use super::select::{check_ops, check_shapes, select};
use rosetta::bench::Options;
use rosetta::kernels::op::{Size, TuningCache};
use rosetta::tune::{Tuner, ROUNDS};

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
    let options = rosetta::tune::options(Options {
        shapes,
        ..Options::new(size, ops)
    });
    let tuner = Tuner::new(&devices, options)?;
    let bar = progress::bar(tuner.first_stage_runs(), "tune");
    // Runs of the jobs finished; a job's runs grow by its second stage
    // (`Progress::total`), and the bar with them.
    let finished = std::cell::Cell::new(0u64);
    let mut failed = false;
    for job in 0..tuner.jobs() {
        let job_runs = std::cell::Cell::new(None::<usize>);
        let tuned = tuner.tune(job, &|p| {
            let known = *job_runs.get().get_or_insert(p.total);
            if p.total > known {
                bar.inc_length((p.total - known) as u64);
                job_runs.set(Some(p.total));
            }
            bar.set_message(format!(
                "{} {} on {} (round {}/{ROUNDS})",
                p.label, p.variant, p.device, p.round
            ));
            bar.set_position(finished.get() + p.done as u64 - 1);
        });
        let tuned = match tuned {
            Ok(tuned) => tuned,
            Err(e) => {
                bar.finish_and_clear();
                return Err(e.into());
            }
        };
        finished.set(finished.get() + job_runs.get().unwrap_or(0) as u64);
        bar.set_position(finished.get());
        for (variant, detail) in &tuned.wrong {
            writeln!(
                out,
                "WRONG {} {} on {}: {}",
                tuned.label, variant, tuned.device, detail
            )?;
        }
        failed |= !tuned.wrong.is_empty();
        let Some((best, _)) = &tuned.choice else {
            writeln!(
                out,
                "{:<10} {:<28} no variant ran",
                tuned.device, tuned.label
            )?;
            continue;
        };
        let summary: Vec<String> = tuned
            .measured
            .iter()
            .map(|(v, t)| format!("{v} {}", rosetta::bench::format_seconds(*t)))
            .collect();
        writeln!(
            out,
            "{:<10} {:<28} -> {best}   ({})",
            tuned.device,
            tuned.label,
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
