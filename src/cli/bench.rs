//! `rosetta bench`: time the ops on the selected devices.

use super::out::{note, Failure, Out};
use super::out::{write_json, Outcome};
use super::progress;
use super::select::{check_ops, check_shapes, select};
use rosetta::bench::{self, BenchReport, Change, CompareError, Options, Status};
use rosetta::kernels::op::Size;
use std::path::{Path, PathBuf};

pub struct Args {
    pub backends: Vec<String>,
    pub ops: Vec<String>,
    pub size: Size,
    pub shapes: Vec<String>,
    pub json: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub compare: Option<PathBuf>,
}

pub fn run(out: &mut Out, args: Args) -> Result<Outcome, Failure> {
    // Before any work: a bad baseline or op is a usage error, an output path
    // that cannot be written a failure.
    let ops = check_ops(&args.ops)?;
    let shapes = check_shapes(&ops, &args.shapes)?;
    let baseline = match args.compare.as_deref() {
        Some(path) => Some((path, read_baseline(path)?)),
        None => None,
    };
    if let Some(path) = &args.json {
        rosetta::output::check_file(path)?;
    }
    if let Some(dir) = &args.html {
        rosetta::output::check_dir(dir)?;
    }
    let (_, devices) = select(&args.backends)?;
    let report = measure(
        &devices,
        Options {
            shapes,
            ..Options::new(args.size, ops)
        },
    )?;
    write!(out, "{}", bench::render_table(&report))?;
    if let Some(path) = &args.json {
        write_json(path, &report)?;
        note(format_args!("wrote {}", rosetta::core::shown_path(path)));
    }
    if let Some(dir) = &args.html {
        rosetta::report::write_bench_html(dir, &report)?;
        note(format_args!(
            "wrote {}",
            rosetta::core::shown_path(&dir.join("index.html"))
        ));
        note(format_args!(
            "wrote {}",
            rosetta::core::shown_path(&dir.join("results.json"))
        ));
    }
    if let Some((baseline_path, baseline)) = &baseline {
        let comparisons = bench::compare(baseline, &report).map_err(|e| match e {
            CompareError::Baseline(why) => Failure::Usage(why),
            CompareError::Current(why) => Failure::Failed(format!("cannot compare: {why}")),
        })?;
        let count = |change: Change| comparisons.iter().filter(|c| c.change == change).count();
        let (slower, faster) = (count(Change::Slower), count(Change::Faster));
        for c in comparisons.iter() {
            if c.change != Change::Same {
                writeln!(
                    out,
                    "{:?}: {} {} {:.2}x ({} -> {}, threshold {:.1}%)",
                    c.change,
                    c.device,
                    c.label,
                    c.ratio,
                    bench::format_seconds(c.baseline_s),
                    bench::format_seconds(c.current_s),
                    c.threshold * 100.0
                )?;
            }
        }
        // Always a line: a baseline whose devices or workloads match none of
        // this run's compares nothing, and says so.
        if comparisons.is_empty() {
            writeln!(
                out,
                "compared nothing: no result of {} has this run's device and workload",
                rosetta::core::shown_path(baseline_path)
            )?;
        } else {
            writeln!(
                out,
                "compared {} of {} results with {}: {slower} slower, {faster} faster, {} within \
                 their noise",
                comparisons.len(),
                report.results.len(),
                rosetta::core::shown_path(baseline_path),
                comparisons.len() - slower - faster
            )?;
        }
    }
    let failed = report.results.iter().any(|r| r.status != Status::Ok);
    Ok(if failed {
        Outcome::Failed
    } else {
        Outcome::Success
    })
}

/// Run the benchmark with a progress bar.
pub fn measure(devices: &[rosetta::Device], options: Options) -> rosetta::Result<BenchReport> {
    let bar = progress::bar(0, "bench");
    let report = bench::run(devices, &options, &|p| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        bar.set_message(format!("{} on {}", p.label, p.device));
    });
    bar.finish_and_clear();
    report
}

/// A benchmark JSON file that can be compared with (usage errors naming the
/// path otherwise).
fn read_baseline(path: &Path) -> Result<BenchReport, Failure> {
    let bad = |why: String| Failure::Usage(format!("{}: {why}", rosetta::core::shown_path(path)));
    let text =
        std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read the baseline: {e}")))?;
    let report = BenchReport::from_json(path, &text)?;
    bench::validate(&report)
        .map_err(|why| bad(format!("cannot compare with this baseline: {why}")))?;
    Ok(report)
}
