//! The `rosetta` command line (see `rosetta --help` and DESIGN.md's contract).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
