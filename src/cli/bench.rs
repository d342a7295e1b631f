//! `rosetta bench`: time the ops on the selected devices.

use super::{progress, select, write_json, Outcome};
use rosetta::bench::{self, BenchReport, Change, Op, Options, Size, Status};
use rosetta::Error;
use std::path::PathBuf;

pub struct Args {
    pub backends: Vec<String>,
    pub ops: Vec<Op>,
    pub size: Size,
    pub json: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub compare: Option<PathBuf>,
}

pub fn run(args: Args) -> rosetta::Result<Outcome> {
    // Read the baseline first: a bad path is a usage error before any work.
    let baseline = args.compare.as_deref().map(read_baseline).transpose()?;
    let (_, devices) = select(&args.backends)?;
    let ops = if args.ops.is_empty() {
        Op::SELECTABLE.to_vec()
    } else {
        args.ops
    };
    let report = measure(&devices, Options::new(args.size, ops));
    print!("{}", bench::render_table(&report));
    if let Some(path) = &args.json {
        write_json(path, &report)?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(dir) = &args.html {
        rosetta::report::write_bench_html(dir, &report)?;
        eprintln!("wrote {}", dir.join("index.html").display());
    }
    if let Some(baseline) = &baseline {
        for c in bench::compare(baseline, &report) {
            if c.change != Change::Same {
                println!(
                    "{:?}: {} {} {:.2}x ({} -> {}, threshold {:.1}%)",
                    c.change,
                    c.device,
                    c.label,
                    c.ratio,
                    bench::format_seconds(c.baseline_s),
                    bench::format_seconds(c.current_s),
                    c.threshold * 100.0
                );
            }
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
pub fn measure(devices: &[rosetta::Device], options: Options) -> BenchReport {
    let bar = progress::bar(0, "bench");
    let report = bench::run(devices, &options, |p| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        bar.set_message(format!("{} on {}", p.label, p.device));
    });
    bar.finish_and_clear();
    report
}

fn read_baseline(path: &std::path::Path) -> rosetta::Result<BenchReport> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::InvalidArgument(format!("cannot read baseline {}: {e}", path.display()))
    })?;
    serde_json::from_str(&text).map_err(|e| {
        Error::InvalidArgument(format!(
            "{} is not a rosetta bench JSON file: {e}",
            path.display()
        ))
    })
}
