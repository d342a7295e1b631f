//! Parser errors on one line (`--help` and `--version` printed as they are).

use super::out;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::process::ExitCode;

/// The subcommands, for "see 'rosetta SUB --help'".
const SUBCOMMANDS: [&str; 7] = [
    "devices", "conform", "bench", "tune", "run", "report", "help",
];

/// `--help` and `--version` print to stdout (exit 0); any other parser error
/// is one line on stderr (exit 2).
pub fn parse_error(e: &clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            use std::io::Write;
            match e.print().and_then(|()| std::io::stdout().flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => out::stdout_failed(&e),
            }
        }
        _ => {
            out::note(format_args!("{}", one_line(e, "rosetta")));
            ExitCode::from(2)
        }
    }
}

/// clap's message on one line: its first paragraph joined (the list of
/// missing arguments, the possible values), a "similar name" tip, and where
/// to find help, e.g. `error: unexpected argument '--bogus' found (see
/// 'rosetta bench --help')`.
pub fn one_line(e: &clap::Error, fallback: &str) -> String {
    let rendered = e.render().to_string();
    let mut paragraphs = rendered.split("\n\n");
    let mut line = String::new();
    for part in paragraphs.next().unwrap_or_default().lines() {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if !line.is_empty() {
            // A list after "...:" is joined with commas; "[possible values:
            // ...]" follows with a space.
            line.push_str(if line.ends_with(':') || part.starts_with('[') {
                " "
            } else {
                ", "
            });
        }
        line.push_str(part);
    }
    if !line.starts_with("error:") {
        line = format!("error: {line}");
    }
    for tip in paragraphs.flat_map(str::lines).map(str::trim) {
        if tip.starts_with("tip:") && tip.contains("similar") {
            line.push_str("; ");
            line.push_str(tip);
        }
    }
    // The command whose help to suggest: from the usage line when clap gives
    // one, else the subcommand named on the command line.
    let from_usage = match e.get(ContextKind::Usage) {
        Some(ContextValue::StyledStr(usage)) => usage
            .to_string()
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("Usage:")
            .split_whitespace()
            .take_while(|w| !w.starts_with(['[', '<', '-']))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    };
    let command = if from_usage.is_empty() {
        let named = std::env::args_os()
            .nth(1)
            .and_then(|arg| arg.into_string().ok())
            .filter(|arg| SUBCOMMANDS.contains(&arg.as_str()));
        match named {
            Some(sub) if fallback == "rosetta" => format!("rosetta {sub}"),
            _ => fallback.to_string(),
        }
    } else {
        from_usage
    };
    format!("{line} (see '{command} --help')")
}
