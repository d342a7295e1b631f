//! `rosetta conform`: the conformance matrix (cases × devices).

use super::{progress, select, Outcome};
use rosetta::conform::{self, Report};
use rosetta::{Error, Selector};

pub fn run(
    backends: Vec<String>,
    quick: bool,
    json: bool,
    filters: Vec<String>,
) -> rosetta::Result<Outcome> {
    let (discovery, devices) = select(&backends)?;
    // ROSETTA_REQUIRE applies to the APIs this run selected.
    let selected_apis = {
        let parsed: Vec<Selector> = if backends.is_empty() {
            vec![Selector::All]
        } else {
            backends
                .iter()
                .map(|s| Selector::parse(s))
                .collect::<rosetta::Result<_>>()?
        };
        Selector::apis(&parsed)
    };
    let required: Vec<_> = conform::required_apis()?
        .unwrap_or_default()
        .into_iter()
        .filter(|api| selected_apis.contains(api))
        .collect();
    let missing = conform::missing_required(&required, &devices, &discovery);
    let cases: Vec<_> = conform::cases()
        .into_iter()
        .filter(|c| !quick || c.quick)
        .filter(|c| filters.is_empty() || filters.iter().any(|f| c.name.contains(f.as_str())))
        .collect();
    if cases.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "no case matches {filters:?}"
        )));
    }
    let bar = progress::bar(cases.len() * devices.len(), "conform");
    let report = conform::run(&devices, &cases, missing, |p| {
        bar.set_position(p.done as u64);
        bar.set_message(format!("{} on {}", p.case, p.device));
    });
    bar.finish_and_clear();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        print!("{}", render(&report));
    }
    Ok(if report.passed {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

/// The matrix as text: one row per case, one column per device (`ok` with the
/// worst error/bound ratio for floating-point cases), then every failure in
/// full, then a summary line per device.
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
            let cell = match (o.passed, o.error_ratio) {
                (true, Some(r)) if r > 0.0 => format!("ok {r:.0e}"),
                (true, _) => "ok".into(),
                (false, _) => "FAIL".into(),
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
    out.push('\n');
    for s in &report.summary {
        out.push_str(&format!(
            "{}: {}/{} passed ({})\n",
            s.device,
            s.passed,
            s.passed + s.failed,
            s.name
        ));
    }
    for m in &report.missing {
        out.push_str(&format!("FAIL {m}\n"));
    }
    out.push_str(if report.passed {
        "conformance: PASS (errors shown as worst |error| / bound)\n"
    } else {
        "conformance: FAIL\n"
    });
    out
}
