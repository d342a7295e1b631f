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
    let runs = std::cell::RefCell::new(RunCount::default());
    let mut failed = false;
    for job in 0..tuner.jobs() {
        let tuned = tuner.tune(job, &|p| {
            let (grown, position) = runs.borrow_mut().report(p.done, p.total);
            bar.inc_length(grown);
            bar.set_message(format!(
                "{} {} on {} (round {}/{ROUNDS})",
                p.label, p.variant, p.device, p.round
            ));
            bar.set_position(position);
        });
        let tuned = match tuned {
            Ok(tuned) => tuned,
            Err(e) => {
                bar.finish_and_clear();
                return Err(e.into());
            }
        };
        bar.set_position(runs.borrow_mut().end_job());
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

/// The bar's count of variant runs over the jobs: a job's runs are known
/// from its progress reports and grow when its second stage starts.
#[derive(Default)]
struct RunCount {
    /// Runs of the jobs finished.
    finished: u64,
    /// Runs of the job under way, as its last report said.
    job: Option<usize>,
}

impl RunCount {
    /// A report of run `done` of `total` in the job under way: by how much
    /// the bar's length grows, and its position (runs before this one).
    fn report(&mut self, done: usize, total: usize) -> (u64, u64) {
        let known = self.job.unwrap_or(total);
        self.job = Some(total.max(known));
        (
            total.saturating_sub(known) as u64,
            self.finished + done.saturating_sub(1) as u64,
        )
    }

    /// The job under way is over: its runs count as finished; the position.
    fn end_job(&mut self) -> u64 {
        self.finished += self.job.take().unwrap_or(0) as u64;
        self.finished
    }
}

#[cfg(test)]
mod tests {
    use super::RunCount;

    /// The bar follows the jobs' runs, a job's second stage included (a
    /// first form never grew the bar and counted no finished job).
    #[test]
    fn the_bar_counts_each_jobs_runs_and_its_second_stage() {
        let mut runs = RunCount::default();
        // A job of 10 first-stage runs, then 4 more.
        assert_eq!(runs.report(1, 10), (0, 0));
        assert_eq!(runs.report(10, 10), (0, 9));
        assert_eq!(runs.report(11, 14), (4, 10));
        assert_eq!(runs.report(14, 14), (0, 13));
        assert_eq!(runs.end_job(), 14);
        // The next job starts after it; one that reported nothing adds 0.
        assert_eq!(runs.report(1, 6), (0, 14));
        assert_eq!(runs.end_job(), 20);
        assert_eq!(runs.end_job(), 20);
    }
}
