//! Where the commands print: stdout through a writer that returns errors
//! (never `println!`, which panics on a closed or full stdout), stderr notes
//! that never fail, and how each kind of failure ends the process.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

/// What a process killed by SIGPIPE reports (128 + 13), so that pipelines
/// under `set -o pipefail` notice.
pub const BROKEN_PIPE_EXIT: u8 = 141;

/// stdout, with `write!` / `writeln!` returning [`StdoutError`].
pub struct Out {
    stdout: io::Stdout,
}

impl Out {
    /// The process's stdout.
    pub fn stdout() -> Self {
        Out {
            stdout: io::stdout(),
        }
    }

    /// What `write!(out, ...)` calls.
    pub fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> Result<(), StdoutError> {
        self.stdout.write_fmt(args).map_err(StdoutError)
    }

    pub fn flush(&mut self) -> Result<(), StdoutError> {
        self.stdout.flush().map_err(StdoutError)
    }
}

/// stdout could not be written.
#[derive(Debug)]
pub struct StdoutError(pub io::Error);

/// Why a command did not end normally.
#[derive(Debug)]
pub enum Failure {
    /// A library error: exit 2 when it is a usage error, else 1.
    Rosetta(rosetta::Error),
    /// Something the user gave that the CLI itself rejects (exit 2).
    Usage(String),
    /// Something that failed (exit 1).
    Failed(String),
    /// stdout could not be written: quiet exit 141 on a broken pipe, else 1.
    Stdout(io::Error),
}

impl From<rosetta::Error> for Failure {
    fn from(e: rosetta::Error) -> Self {
        Failure::Rosetta(e)
    }
}

impl From<rosetta::core::Error> for Failure {
    fn from(e: rosetta::core::Error) -> Self {
        Failure::Rosetta(e.into())
    }
}

impl From<StdoutError> for Failure {
    fn from(e: StdoutError) -> Self {
        Failure::Stdout(e.0)
    }
}

impl Failure {
    /// Print the failure's line (if any) on stderr and give the exit code.
    pub fn exit(self) -> ExitCode {
        let (text, code) = match self {
            Failure::Stdout(e) => return stdout_failed(&e),
            // An output written in place (`-o /dev/stdout`, a pipe) whose
            // reader went away: as a closed stdout.
            Failure::Rosetta(rosetta::Error::Io { source, .. })
                if source.kind() == io::ErrorKind::BrokenPipe =>
            {
                return ExitCode::from(BROKEN_PIPE_EXIT)
            }
            Failure::Usage(text) => (text, 2),
            Failure::Failed(text) => (text, 1),
            Failure::Rosetta(error) => {
                let code = if error.is_usage() { 2 } else { 1 };
                (error.chain(), code)
            }
        };
        let mut lines = text.lines();
        note(format_args!(
            "error: {}",
            lines.next().unwrap_or("unknown error")
        ));
        let rest: Vec<&str> = lines.collect();
        if !rest.is_empty() {
            tracing::debug!("{}", rest.join("\n"));
        }
        ExitCode::from(code)
    }
}

/// The end of a process whose stdout failed.
pub fn stdout_failed(e: &io::Error) -> ExitCode {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return ExitCode::from(BROKEN_PIPE_EXIT);
    }
    note(format_args!("error: writing to stdout: {e}"));
    ExitCode::from(1)
}

/// One line on stderr; a stderr that cannot be written is ignored (there is
/// nowhere left to report it).
pub fn note(args: fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr(), "{args}");
}

/// How a command ended, when it did not fail outright.
pub enum Outcome {
    Success,
    /// Ran to the end, but something failed (exit 1).
    Failed,
}

/// Write `value` as pretty JSON to `path`, through `rosetta::output`.
pub fn write_json(path: &std::path::Path, value: &impl serde::Serialize) -> rosetta::Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| rosetta::Error::Usage(format!("cannot serialise: {e}")))?;
    rosetta::output::write(path, text.as_bytes())
}
