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
        let (line, rest) = one_line(&text);
        note(format_args!("error: {line}"));
        if !rest.is_empty() {
            tracing::debug!("{}", rest.join("\n"));
        }
        ExitCode::from(code)
    }
}

/// An error's one line, and the lines logged at debug level. A first line
/// that ends in a colon (a failed compile: the compiler's log follows)
/// takes the next line that says something, and a line with more behind
/// it says where the rest is.
fn one_line(text: &str) -> (String, Vec<&str>) {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let mut line = lines
        .next()
        .unwrap_or("unknown error")
        .trim_end()
        .to_string();
    let mut rest: Vec<&str> = lines.collect();
    if line.ends_with(':') && !rest.is_empty() {
        line = format!("{line} {}", rest.remove(0).trim());
    }
    if !rest.is_empty() {
        let more = if rest.len() == 1 { "line" } else { "lines" };
        line = format!("{line} (and {} more {more}: RUST_LOG=debug)", rest.len());
    }
    (line, rest)
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

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn an_error_is_one_line_that_says_what_failed() {
        assert_eq!(one_line("bad shape"), ("bad shape".to_string(), vec![]));
        // A compile error's first log line joins its heading.
        assert_eq!(
            one_line("kernel 'k' failed to compile:\nInvalid build option: -x\n"),
            (
                "kernel 'k' failed to compile: Invalid build option: -x".to_string(),
                vec![]
            )
        );
        let (line, rest) = one_line("failed to compile:\n\nerror A\nerror B\nerror C");
        assert_eq!(
            line,
            "failed to compile: error A (and 2 more lines: RUST_LOG=debug)"
        );
        assert_eq!(rest, ["error B", "error C"]);
        assert_eq!(one_line("").0, "unknown error");
    }
}
