//! Argument parsing and dispatch. Exit codes: 0 success, 1 failure (a failing
//! case, a wrong benchmark result, a device error, an output that cannot be
//! written), 2 usage error (bad arguments or input, a selector naming no
//! device), 141 when stdout is a closed pipe; one line on stderr for any error.

mod bench;
mod conform;
mod devices;
mod out;
mod parse_error;
mod progress;
mod report;
mod run;
mod runtime_dir;
mod select;
mod tune;

use clap::{Parser, Subcommand, ValueEnum};
use out::{Failure, Out, Outcome};
use parse_error::parse_error;
use rosetta::kernels::op::Size;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rosetta",
    // Usage hints name the program as the rest of its messages do, whatever
    // the binary is called.
    bin_name = "rosetta",
    version,
    about = "One set of shared-memory GPU kernels in WGSL, CUDA, GLSL, OpenCL C and Rust: \
             conformance across every device, and benchmarks across APIs.",
    long_about = "With no command, writes a report (devices, conformance matrix, quick benchmark) \
                  to rosetta-report/index.html and rosetta-report/results.json.\n\n\
                  SEL is an API name (cpu, wgpu, vulkan, opencl, cuda), optionally with :N (index \
                  in `rosetta devices`) or :text (device-name substring), or `all`.\n\
                  Logs: RUST_LOG (e.g. RUST_LOG=debug). Caches: ROSETTA_CACHE_DIR (`off` disables)."
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
        /// Only the quick cases (every op and path), with short litmus budgets.
        #[arg(long)]
        quick: bool,
        /// Print the report as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Only cases whose name contains this text (repeatable).
        #[arg(long = "case", value_name = "TEXT")]
        cases: Vec<String>,
        /// Only these groups: ops, errors, limits, memory-model, random (repeatable).
        #[arg(long = "group", value_name = "GROUP")]
        groups: Vec<String>,
        /// The random group's seed (default 1): the same seed draws the same cases.
        #[arg(long, value_name = "N")]
        seed: Option<u64>,
        /// Random cases per op (default 24, 6 of them with --quick; this many with or without; at most 1000000).
        #[arg(long = "random-cases", value_name = "N")]
        random_cases: Option<usize>,
        /// Also write the report as JSON to this file.
        #[arg(long = "out", value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Benchmark ops on the selected devices with each API's own timers.
    Bench {
        /// Devices to benchmark (default: all).
        #[arg(long = "backend", value_name = "SEL")]
        backends: Vec<String>,
        /// Ops to benchmark, or `chain` for the op chains (default: all ops and the chains); the copy roofline and the launch floor always run.
        #[arg(long = "op", value_name = "OP")]
        ops: Vec<String>,
        /// Size preset: large is the reference table on GPUs.
        #[arg(long, value_enum, default_value_t = SizeArg::Medium)]
        size: SizeArg,
        /// Run the one --op at this shape instead of the preset's (repeatable): sides joined
        /// by x, e.g. matmul MxKxN 512x768x1024, scan N 2^20; a shape of the wrong form is
        /// refused with the op's forms.
        #[arg(long = "shape", value_name = "SHAPE")]
        shapes: Vec<String>,
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
    /// Measure every variant of each op's plans and keep the fastest in the tuning cache.
    Tune {
        /// Devices to tune (default: all).
        #[arg(long = "backend", value_name = "SEL")]
        backends: Vec<String>,
        /// Ops to tune (default: all).
        #[arg(long = "op", value_name = "OP")]
        ops: Vec<String>,
        /// Size preset of the workloads tuned on.
        #[arg(long, value_enum, default_value_t = SizeArg::Medium)]
        size: SizeArg,
        /// Tune the one --op at this shape's class instead of the preset's shapes
        /// (repeatable): sides joined by x, as `rosetta bench --shape` takes them.
        #[arg(long = "shape", value_name = "SHAPE")]
        shapes: Vec<String>,
    },
    /// Run one op on .npy inputs (`rosetta run OP --help` for its arguments).
    #[command(disable_help_flag = true)]
    Run {
        /// The op, its options and inputs.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "OP ARGS"
        )]
        args: Vec<std::ffi::OsString>,
    },
    /// Write the report (what `rosetta` with no command does), or merge result files.
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
        /// Run every conformance case (default: the quick cases of every group).
        #[arg(long)]
        full: bool,
        /// Merge these result files (report, conform or bench JSON, from any machines)
        /// into one page instead of running anything.
        #[arg(long, value_name = "JSON", num_args = 1.., conflicts_with_all = ["backends", "size", "full"])]
        merge: Vec<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum SizeArg {
    Small,
    Medium,
    Large,
}

impl SizeArg {
    fn size(self) -> Size {
        match self {
            SizeArg::Small => Size::Small,
            SizeArg::Medium => Size::Medium,
            SizeArg::Large => Size::Large,
        }
    }
}

/// The `rosetta` binary's entry point.
pub fn main() -> ExitCode {
    runtime_dir::ensure();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return parse_error(&e),
    };
    init_logging();
    let mut out = Out::stdout();
    let result = dispatch(cli, &mut out);
    // Output still buffered (a last line without a newline) must reach stdout.
    let result = match (result, out.flush()) {
        (Ok(_), Err(e)) => Err(e.into()),
        (result, _) => result,
    };
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(failure) => failure.exit(),
    }
}

fn dispatch(cli: Cli, out: &mut Out) -> Result<Outcome, Failure> {
    match cli.command {
        None => report::run(
            out,
            PathBuf::from("rosetta-report"),
            Vec::new(),
            Size::Small,
            false,
        ),
        Some(Command::Report {
            out: dir, merge, ..
        }) if !merge.is_empty() => report::merge(out, dir, &merge),
        Some(Command::Report {
            out: dir,
            backends,
            size,
            full,
            ..
        }) => report::run(out, dir, backends, size.size(), full),
        Some(Command::Devices { json }) => devices::run(out, json),
        Some(Command::Conform {
            backends,
            quick,
            json,
            cases,
            groups,
            seed,
            random_cases,
            out: file,
        }) => conform::run(
            out,
            conform::Args {
                backends,
                quick,
                json,
                cases,
                groups,
                seed,
                random_cases,
                out: file,
            },
        ),
        Some(Command::Bench {
            backends,
            ops,
            size,
            shapes,
            json,
            html,
            compare,
        }) => bench::run(
            out,
            bench::Args {
                backends,
                ops,
                size: size.size(),
                shapes,
                json,
                html,
                compare,
            },
        ),
        Some(Command::Tune {
            backends,
            ops,
            size,
            shapes,
        }) => tune::run(out, backends, ops, size.size(), &shapes),
        Some(Command::Run { args }) => run::run(out, args),
    }
}

/// Warnings and errors unless `RUST_LOG` says otherwise; by default without
/// wgpu's own error lines (`wgpu::backend::wgpu_core`): it logs a shader
/// translation failure, which the wgpu backend also returns as an error
/// (NVIDIA's GL adapter, probed and skipped at every discovery, printed two
/// ERROR lines on every successful run).
const DEFAULT_LOG_FILTER: &str = "warn,wgpu::backend::wgpu_core=off";

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG_FILTER));
    // Colours only on a terminal: logs piped to a file or a CI log stay
    // plain text.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

#[cfg(test)]
mod tests {
    use super::DEFAULT_LOG_FILTER;
    use std::sync::{Arc, Mutex};

    /// A writer into a shared buffer.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_default_filter_keeps_warnings_and_drops_wgpu_core_errors() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(DEFAULT_LOG_FILTER))
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::error!(target: "wgpu::backend::wgpu_core", "shader translation error");
            tracing::warn!(target: "wgpu_hal::vulkan", "a wgpu-hal warning");
            tracing::warn!(target: "rosetta_backend_wgpu::adapter", "a rosetta warning");
            tracing::info!(target: "rosetta_backend_wgpu::adapter", "an info line");
        });
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert!(!text.contains("shader translation error"), "{text}");
        assert!(!text.contains("an info line"), "{text}");
        assert!(text.contains("a wgpu-hal warning"), "{text}");
        assert!(text.contains("a rosetta warning"), "{text}");
    }
}
