//! Argument parsing and dispatch. Exit codes: 0 success, 1 failure (a failing
//! case, a wrong benchmark result, a device error), 2 usage error (bad
//! arguments or input, a selector naming no device).

mod bench;
mod conform;
mod devices;
mod progress;
mod report;
mod run;

use clap::{Parser, Subcommand, ValueEnum};
use rosetta::Error;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rosetta",
    version,
    about = "One set of shared-memory GPU kernels in WGSL, CUDA, GLSL, OpenCL C and Rust: \
             conformance across every device, and benchmarks across APIs.",
    long_about = "With no command, writes a report (devices, conformance matrix, quick benchmark) \
                  to rosetta-report/index.html and rosetta-report/results.json.\n\n\
                  SEL is an API name (cpu, wgpu, vulkan, opencl, cuda), optionally with :N (index \
                  in `rosetta devices`) or :text (device-name substring), or `all`.\n\
                  Logs: RUST_LOG (e.g. RUST_LOG=debug)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// List every device of every compiled-in API, and APIs that are unavailable.
    Devices {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Run the conformance suite on the selected devices (exit 1 on any failure).
    Conform {
        /// Devices to test (default: all).
        #[arg(long = "backend", value_name = "SEL")]
        backends: Vec<String>,
        /// Only the small cases (every op and path; used under sanitizers).
        #[arg(long)]
        quick: bool,
        /// Print the report as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Only cases whose name contains this text (repeatable).
        #[arg(long = "case", value_name = "TEXT")]
        cases: Vec<String>,
    },
    /// Benchmark ops on the selected devices with each API's own timers.
    Bench {
        /// Devices to benchmark (default: all).
        #[arg(long = "backend", value_name = "SEL")]
        backends: Vec<String>,
        /// Ops to benchmark (default: all); the copy roofline always runs.
        #[arg(long = "op", value_name = "OP")]
        ops: Vec<OpArg>,
        /// Size preset: large is DESIGN.md's reference table on GPUs.
        #[arg(long, value_enum, default_value_t = SizeArg::Medium)]
        size: SizeArg,
        /// Also write the results as JSON (schema in docs/bench-json.md).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Also write a self-contained HTML page with charts into this directory.
        #[arg(long, value_name = "DIR")]
        html: Option<PathBuf>,
        /// Compare with an earlier --json file; flags changes beyond the spread.
        #[arg(long, value_name = "BASELINE")]
        compare: Option<PathBuf>,
    },
    /// Run one op on .npy inputs.
    Run(run::RunArgs),
    /// Write the report (what `rosetta` with no command does).
    Report {
        /// Output directory.
        #[arg(long, default_value = "rosetta-report")]
        out: PathBuf,
        /// Devices to include (default: all).
        #[arg(long = "backend", value_name = "SEL")]
        backends: Vec<String>,
        /// Benchmark size preset.
        #[arg(long, value_enum, default_value_t = SizeArg::Small)]
        size: SizeArg,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum OpArg {
    Reduce,
    Histogram,
    Conv1d,
    Conv2d,
    Matmul,
}

impl OpArg {
    fn op(self) -> rosetta::bench::Op {
        use rosetta::bench::Op;
        match self {
            OpArg::Reduce => Op::Reduce,
            OpArg::Histogram => Op::Histogram,
            OpArg::Conv1d => Op::Conv1d,
            OpArg::Conv2d => Op::Conv2d,
            OpArg::Matmul => Op::Matmul,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum SizeArg {
    Small,
    Medium,
    Large,
}

impl SizeArg {
    fn size(self) -> rosetta::bench::Size {
        use rosetta::bench::Size;
        match self {
            SizeArg::Small => Size::Small,
            SizeArg::Medium => Size::Medium,
            SizeArg::Large => Size::Large,
        }
    }
}

/// How a command ended, when it did not fail outright.
enum Outcome {
    Success,
    /// Ran to the end, but something failed (exit 1).
    Failed,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let result = match cli.command {
        None => report::run(
            PathBuf::from("rosetta-report"),
            Vec::new(),
            SizeArg::Small.size(),
        ),
        Some(Command::Report {
            out,
            backends,
            size,
        }) => report::run(out, backends, size.size()),
        Some(Command::Devices { json }) => devices::run(json),
        Some(Command::Conform {
            backends,
            quick,
            json,
            cases,
        }) => conform::run(backends, quick, json, cases),
        Some(Command::Bench {
            backends,
            ops,
            size,
            json,
            html,
            compare,
        }) => bench::run(bench::Args {
            backends,
            ops: ops.into_iter().map(OpArg::op).collect(),
            size: size.size(),
            json,
            html,
            compare,
        }),
        Some(Command::Run(args)) => run::run(args),
    };
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(error) => {
            let text = error.to_string();
            let mut lines = text.lines();
            eprintln!("error: {}", lines.next().unwrap_or("unknown error"));
            let rest: Vec<&str> = lines.collect();
            if !rest.is_empty() {
                tracing::debug!("{}", rest.join("\n"));
            }
            ExitCode::from(if error.is_usage() { 2 } else { 1 })
        }
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

/// Discover what `selectors` need and select their devices (`all` when empty).
fn select(selectors: &[String]) -> rosetta::Result<(rosetta::Discovery, Vec<rosetta::Device>)> {
    let selectors: Vec<String> = if selectors.is_empty() {
        vec!["all".into()]
    } else {
        selectors.to_vec()
    };
    let parsed = selectors
        .iter()
        .map(|s| rosetta::Selector::parse(s))
        .collect::<rosetta::Result<Vec<_>>>()?;
    let discovery = rosetta::discover(&rosetta::Selector::apis(&parsed));
    let devices = discovery.select(&selectors)?;
    Ok((discovery, devices))
}

fn write_json(path: &std::path::Path, value: &impl serde::Serialize) -> rosetta::Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::InvalidArgument(format!("cannot serialise: {e}")))?;
    std::fs::write(path, text)
        .map_err(|e| Error::InvalidArgument(format!("cannot write {}: {e}", path.display())))
}
