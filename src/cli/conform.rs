//! `rosetta conform`: the conformance matrix (cases × devices).

use super::out::{note, Failure, Out};
use super::out::{write_json, Outcome};
use super::progress;
use super::select::select;
use rosetta::conform::{self, Report};
use rosetta::kernels::op::{CaseGroup, Status};
use rosetta::Selector;
use std::path::PathBuf;

pub struct Args {
    pub backends: Vec<String>,
    pub quick: bool,
    pub json: bool,
    pub cases: Vec<String>,
    pub groups: Vec<String>,
    pub seed: Option<u64>,
    pub random_cases: Option<usize>,
    pub out: Option<PathBuf>,
}

/// Most random cases per op `--random-cases` takes (each case's inputs are
/// made when it runs, but its name and draw are made up front).
const MAX_RANDOM_CASES: usize = 1_000_000;

pub fn run(out: &mut Out, args: Args) -> Result<Outcome, Failure> {
    if let Some(path) = &args.out {
        rosetta::output::check_file(path)?;
    }
    let groups = args
        .groups
        .iter()
        .map(|g| {
            CaseGroup::ALL
                .into_iter()
                .find(|c| c.name().eq_ignore_ascii_case(g.trim()))
                .ok_or_else(|| {
                    let names: Vec<&str> = CaseGroup::ALL.iter().map(|g| g.name()).collect();
                    Failure::Usage(format!(
                        "unknown group '{g}' (groups: {})",
                        names.join(", ")
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let random = random_cases(&args, &groups)?;
    let (discovery, devices) = select(&args.backends)?;
    let required = required_selected(&args.backends)?;
    let missing = conform::missing_required(&required, &devices, &discovery);
    let cases: Vec<_> = conform::suite(&random)
        .into_iter()
        .filter(|c| !args.quick || c.quick)
        .filter(|c| groups.is_empty() || groups.contains(&c.group))
        .filter(|c| args.cases.is_empty() || args.cases.iter().any(|f| contains_text(&c.name, f)))
        .collect();
    if cases.is_empty() {
        let groups = if args.groups.is_empty() {
            "any group".to_string()
        } else {
            format!("groups {:?}", args.groups)
        };
        let quick = if args.quick { " (--quick cases)" } else { "" };
        let random = match args.random_cases {
            Some(0) => " (--random-cases 0)",
            _ => "",
        };
        return Err(Failure::Usage(if args.cases.is_empty() {
            format!("no case in {groups}{quick}{random}")
        } else {
            format!(
                "no case matches {:?} in {groups}{quick}{random}",
                args.cases
            )
        }));
    }
    let options = conform::Options {
        quick: args.quick,
        ..Default::default()
    };
    let report = measure(&devices, &cases, missing, &options);
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        )?;
    } else {
        write!(out, "{}", render(&report))?;
    }
    if let Some(path) = &args.out {
        write_json(path, &report)?;
        note(format_args!("wrote {}", rosetta::core::shown_path(path)));
    }
    Ok(if report.passed {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

/// The random group `--seed` and `--random-cases` ask for; a usage error
/// when they are given to a run whose groups leave it out, or ask for more
/// than [`MAX_RANDOM_CASES`].
fn random_cases(args: &Args, groups: &[CaseGroup]) -> Result<conform::RandomCases, Failure> {
    if args.seed.is_none() && args.random_cases.is_none() {
        return Ok(conform::RandomCases::default());
    }
    if !groups.is_empty() && !groups.contains(&CaseGroup::Random) {
        return Err(Failure::Usage(
            "--seed and --random-cases choose the random group's cases, and --group leaves it out"
                .into(),
        ));
    }
    if let Some(n) = args.random_cases.filter(|&n| n > MAX_RANDOM_CASES) {
        return Err(Failure::Usage(format!(
            "--random-cases {n} is more than {MAX_RANDOM_CASES}"
        )));
    }
    let default = conform::RandomCases::default();
    Ok(match args.random_cases {
        Some(n) => conform::RandomCases::new(args.seed.unwrap_or(default.seed), n),
        None => conform::RandomCases {
            seed: args.seed.unwrap_or(default.seed),
            ..default
        },
    })
}

/// Run the suite with a progress bar.
pub fn measure(
    devices: &[rosetta::Device],
    cases: &[rosetta::kernels::op::Case],
    missing: Vec<String>,
    options: &conform::Options,
) -> Report {
    let bar = progress::bar(cases.len() * devices.len(), "conform");
    let report = conform::run(devices, cases, missing, options, &|p| {
        bar.set_position(p.done as u64);
        bar.set_message(p.case.to_string());
    });
    bar.finish_and_clear();
    report
}

/// The matrix as text: one row per case, one column per device (`ok` with the
/// worst error/bound ratio for floating-point cases, `skip`, `unsup`,
/// `FAIL`), then every failure in full, then a summary line per device.
pub fn render(report: &Report) -> String {
    let ids: Vec<String> = report.devices.iter().map(|d| d.id()).collect();
    let name_width = report
        .cases
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let widths: Vec<usize> = ids.iter().map(|id| id.len().max(9)).collect();
    let mut out = format!("{:<name_width$}", "case");
    for (id, w) in ids.iter().zip(&widths) {
        out.push_str(&format!("  {id:<w$}"));
    }
    out.push('\n');
    for case in &report.cases {
        out.push_str(&format!("{:<name_width$}", case.name));
        for (o, w) in case.results.iter().zip(&widths) {
            let cell = match (o.status, o.error_ratio) {
                (Status::Passed, Some(r)) if r > 0.0 => format!("ok {r:.0e}"),
                (Status::Passed, _) => "ok".into(),
                (Status::Skipped, _) => "skip".into(),
                (Status::Unsupported, _) => "unsup".into(),
                (Status::Failed, _) => "FAIL".into(),
            };
            out.push_str(&format!("  {cell:<w$}"));
        }
        out.push('\n');
    }
    let failures = report.failures();
    if !failures.is_empty() {
        out.push('\n');
        for f in failures {
            out.push_str("FAIL ");
            out.push_str(&f);
            out.push('\n');
        }
    }
    // Litmus counts (information: weak outcomes the model allows).
    for case in report
        .cases
        .iter()
        .filter(|c| c.results.iter().any(|o| !o.counts.is_empty()))
    {
        for o in case.results.iter().filter(|o| !o.counts.is_empty()) {
            let counts: Vec<String> = o.counts.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out.push_str(&format!(
                "{} on {}: {}\n",
                case.name,
                o.device,
                counts.join(" ")
            ));
        }
    }
    out.push('\n');
    for s in &report.summary {
        let mut extra = String::new();
        if s.skipped > 0 {
            extra.push_str(&format!(", {} skipped", s.skipped));
        }
        if s.unsupported > 0 {
            extra.push_str(&format!(", {} unsupported", s.unsupported));
        }
        out.push_str(&format!(
            "{}: {}/{} passed{extra} ({})\n",
            s.device,
            s.passed,
            s.passed + s.failed + s.skipped + s.unsupported,
            s.name
        ));
    }
    for m in &report.missing {
        out.push_str(&format!("FAIL {m}\n"));
    }
    out.push_str(&format!("wall time {:.1} s\n", report.seconds));
    out.push_str(if report.passed {
        "conformance: PASS (errors shown as worst |error| / bound)\n"
    } else {
        "conformance: FAIL\n"
    });
    out
}

/// Whether a case name holds `text`, whatever the case of either (as `--op`
/// and `--group` match).
fn contains_text(name: &str, text: &str) -> bool {
    name.to_lowercase().contains(&text.to_lowercase())
}

/// The APIs of `ROSETTA_REQUIRE` that this run selected (`--backend`; all
/// without one): a required API the run does not select is not its to find.
pub(super) fn required_selected(backends: &[String]) -> Result<Vec<rosetta::Api>, Failure> {
    let parsed: Vec<Selector> = if backends.is_empty() {
        vec![Selector::All]
    } else {
        backends
            .iter()
            .map(|s| Selector::parse(s))
            .collect::<rosetta::Result<_>>()?
    };
    let selected_apis = Selector::apis(&parsed);
    Ok(conform::required_apis()?
        .into_iter()
        .filter(|api| selected_apis.contains(api))
        .collect())
}
