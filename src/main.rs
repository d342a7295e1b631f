//! The `rosetta` command line (see `rosetta --help` and README.md).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
