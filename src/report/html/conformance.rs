//! The conformance part of the page: counts per group and per op, the
//! memory-model litmus results, the matrix of every case on every column,
//! and the failures in full. Skipped, unsupported and not-run cells are
//! shown as such and never counted as passed.

use super::devices::chip;
use super::text::{badge, escape, first_line, rate_of, ratio};
use crate::report::model::{Cell, CellStatus, MatrixCase, Report};
use rosetta_kernels::op::CaseGroup;
use std::fmt::Write as _;

/// The whole conformance section.
pub fn section(report: &Report) -> String {
    let mut html = String::from("<h2 id=\"conformance\">Conformance</h2>");
    let columns = report.conformance_columns();
    let failures = report
        .matrix
        .iter()
        .flat_map(|c| c.cells.iter())
        .filter(|c| c.status == CellStatus::Failed)
        .count();
    let _ = write!(
        html,
        "<p>{} — {} case(s) × {} device(s), {} failure(s). Each device is compared with the host reference \
         (f64 accumulation, exact integers), never with another device. Cases are matched by name across \
         runs; a case a device's run did not include is <span class=\"notrun\">not run</span>, never passed. \
         <span class=\"skip\">Skipped</span> (the device cannot hold the case) and \
         <span class=\"unsup\">unsupported</span> (the API cannot express it) are not passes either.</p>",
        badge(report.passed),
        report.matrix.len(),
        columns.len(),
        failures
    );
    for run in &report.conformance {
        let machine = report
            .machines
            .get(run.machine)
            .map(|m| m.label.as_str())
            .unwrap_or("");
        if !run.run.missing.is_empty() {
            html.push_str("<ul class=\"failures\">");
            for m in &run.run.missing {
                let _ = write!(
                    html,
                    "<li class=\"fail\">{}: {}</li>",
                    escape(machine),
                    escape(m)
                );
            }
            html.push_str("</ul>");
        }
    }
    if columns.is_empty() || report.matrix.is_empty() {
        html.push_str("<p class=\"note\">No conformance results.</p>");
        return html;
    }
    let others: Vec<&str> = report
        .columns
        .iter()
        .filter(|c| c.conformance.is_empty())
        .map(|c| c.label.as_str())
        .collect();
    if !others.is_empty() {
        let _ = write!(
            html,
            "<p class=\"note\">Benchmarked but not tested (no column here): {}.</p>",
            escape(&others.join(", "))
        );
    }
    html.push_str(&groups_table(report, &columns));
    html.push_str(&ops_table(report, &columns));
    html.push_str(&litmus_table(report, &columns));
    for group in CaseGroup::ALL {
        let cases: Vec<&MatrixCase> = report.matrix.iter().filter(|c| c.group == group).collect();
        if !cases.is_empty() {
            html.push_str(&matrix(report, &columns, group, &cases));
        }
    }
    html.push_str(&failures_list(report));
    html
}

/// The header row: one cell per column, physical devices told by a chip.
fn header(report: &Report, columns: &[usize], first: &str) -> String {
    let mut row = format!("<tr class=\"top\"><th>{first}</th>");
    for &i in columns {
        let c = &report.columns[i];
        let physical = report
            .physical
            .get(c.physical)
            .map(|p| p.label.as_str())
            .unwrap_or("");
        let _ = write!(
            row,
            "<th title=\"{}\">{}{}</th>",
            escape(&format!("{} — {physical}", c.info.name)),
            chip(report, i),
            escape(&c.label)
        );
    }
    row.push_str("</tr>");
    row
}

/// Counts of each status among `cells`.
fn tally<'a>(cells: impl Iterator<Item = &'a Cell>) -> [usize; 5] {
    let mut n = [0; 5];
    for c in cells {
        if let Some(k) = CellStatus::ALL.iter().position(|s| *s == c.status) {
            n[k] += 1;
        }
    }
    n
}

/// `passed/ran`, with what did not pass spelled out.
fn tally_cell(n: [usize; 5]) -> String {
    let [passed, failed, skipped, unsupported, not_run] = n;
    let ran = passed + failed + skipped + unsupported;
    let class = if failed > 0 {
        "fail"
    } else if ran == 0 {
        "notrun"
    } else if passed == ran {
        "pass"
    } else {
        "partial"
    };
    let mut extra = Vec::new();
    for (k, what) in [
        (failed, "failed"),
        (skipped, "skipped"),
        (unsupported, "unsupported"),
        (not_run, "not run"),
    ] {
        if k > 0 {
            extra.push(format!("{k} {what}"));
        }
    }
    let extra = if extra.is_empty() {
        String::new()
    } else {
        format!("<small>{}</small>", extra.join(" · "))
    };
    if ran == 0 {
        format!("<td class=\"num {class}\">not run{extra}</td>")
    } else {
        format!("<td class=\"num {class}\">{passed}/{ran}{extra}</td>")
    }
}

fn groups_table(report: &Report, columns: &[usize]) -> String {
    let mut html = String::from(
        "<h3>By group</h3><p class=\"note\">Passed out of the cases that ran on the device; what did not \
         pass is listed below the count.</p><div class=\"scroll\"><table>",
    );
    html.push_str(&header(report, columns, "group"));
    let groups: Vec<Option<CaseGroup>> = CaseGroup::ALL
        .into_iter()
        .filter(|g| report.matrix.iter().any(|c| c.group == *g))
        .map(Some)
        .chain([None])
        .collect();
    for group in groups {
        let _ = write!(
            html,
            "<tr><td class=\"nw\">{}</td>",
            group
                .map(|g| escape(g.name()))
                .unwrap_or_else(|| "<b>all</b>".into())
        );
        for &i in columns {
            let cells = report
                .matrix
                .iter()
                .filter(|c| group.is_none_or(|g| c.group == g))
                .filter_map(|c| c.cells.get(i));
            html.push_str(&tally_cell(tally(cells)));
        }
        html.push_str("</tr>");
    }
    html.push_str("</table></div>");
    html
}

fn ops_table(report: &Report, columns: &[usize]) -> String {
    let mut ops: Vec<&str> = Vec::new();
    for case in &report.matrix {
        if !ops.contains(&case.op.as_str()) {
            ops.push(&case.op);
        }
    }
    let mut html = String::from("<h3>By op</h3><div class=\"scroll\"><table>");
    html.push_str(&header(report, columns, "op"));
    for op in ops {
        let _ = write!(html, "<tr><td class=\"nw\">{}</td>", escape(op));
        for &i in columns {
            let cells = report
                .matrix
                .iter()
                .filter(|c| c.op == op)
                .filter_map(|c| c.cells.get(i));
            html.push_str(&tally_cell(tally(cells)));
        }
        html.push_str("</tr>");
    }
    html.push_str("</table></div>");
    html
}

/// What the API's memory model says about a litmus case's weak outcome, as
/// the case's verdict states it (`… forbidden weak outcome …`, `… allowed
/// weak outcome …`, possibly after a prefix such as `OpenCL C 1.2: `).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expectation {
    Forbidden,
    Allowed,
    Unknown,
}

fn expectation(cell: &Cell) -> Expectation {
    if cell.detail.contains("forbidden weak outcome") {
        Expectation::Forbidden
    } else if cell.detail.contains("allowed weak outcome") {
        Expectation::Allowed
    } else {
        Expectation::Unknown
    }
}

fn litmus_cell(cell: &Cell) -> String {
    let title = escape(&cell.detail);
    let weak = cell.counts.get("weak").copied();
    let total = cell.counts.get("total").copied().unwrap_or(0);
    let launches = cell.counts.get("launches").copied();
    let of = |w: u64| {
        format!(
            "{w} / {total}<small>rate {}{}</small>",
            rate_of(w, total),
            launches
                .map(|l| format!(" · {l} launches"))
                .unwrap_or_default()
        )
    };
    match (cell.status, expectation(cell), weak) {
        (CellStatus::Passed, Expectation::Forbidden, Some(w)) => {
            format!(
                "<td class=\"num pass\" title=\"{title}\">forbidden: {}</td>",
                of(w)
            )
        }
        (CellStatus::Failed, Expectation::Forbidden, Some(w)) => {
            format!(
                "<td class=\"num fail\" title=\"{title}\">✗ FORBIDDEN seen: {}</td>",
                of(w)
            )
        }
        (CellStatus::Passed | CellStatus::Failed, Expectation::Allowed, Some(w)) => {
            let class = if cell.status == CellStatus::Failed {
                "fail"
            } else {
                "allowed"
            };
            format!(
                "<td class=\"num {class}\" title=\"{title}\">allowed: {}</td>",
                of(w)
            )
        }
        (CellStatus::Passed | CellStatus::Failed, Expectation::Unknown, Some(w)) => {
            let class = if cell.status == CellStatus::Failed {
                "fail"
            } else {
                "pass"
            };
            format!(
                "<td class=\"num {class}\" title=\"{title}\">weak: {}</td>",
                of(w)
            )
        }
        _ => matrix_cell(cell),
    }
}

fn litmus_table(report: &Report, columns: &[usize]) -> String {
    let cases: Vec<&MatrixCase> = report
        .matrix
        .iter()
        .filter(|c| c.group == CaseGroup::MemoryModel)
        .collect();
    if cases.is_empty() {
        return String::new();
    }
    let mut html = String::from(
        "<h3 id=\"memory-model\">Memory model</h3><p class=\"note\">Litmus tests: how often the weak outcome \
         was seen among the instances run. Where the API's memory model <b>forbids</b> it, the count must \
         be 0 (anything else fails); where it <b>allows</b> it, the count and rate are reported as \
         observed. Hover a cell for the rule and the other outcomes' counts.</p>\
         <div class=\"matrix\"><table>",
    );
    html.push_str(&header(report, columns, "litmus test"));
    for case in cases {
        let _ = write!(html, "<tr><td class=\"nw\">{}</td>", escape(&case.name));
        for &i in columns {
            match case.cells.get(i) {
                Some(cell) => html.push_str(&litmus_cell(cell)),
                None => html.push_str("<td class=\"notrun\">not run</td>"),
            }
        }
        html.push_str("</tr>");
    }
    html.push_str("</table></div>");
    html
}

fn matrix_cell(cell: &Cell) -> String {
    let title = escape(&match cell.seconds {
        Some(s) if s.is_finite() => format!("{s:.3} s {}", cell.detail),
        _ => cell.detail.clone(),
    });
    let why = format!(
        "<span class=\"why\">{}</span>",
        escape(&first_line(&cell.detail, 90))
    );
    match cell.status {
        CellStatus::Passed => {
            let text = cell
                .error_ratio
                .map(ratio)
                .unwrap_or_else(|| "exact".into());
            format!("<td class=\"num pass\" title=\"{title}\">✓ {text}</td>")
        }
        CellStatus::Failed => {
            let worst = cell
                .error_ratio
                .filter(|r| r.is_finite())
                .map(|r| format!(" {}", ratio(r)))
                .unwrap_or_default();
            format!("<td class=\"fail\" title=\"{title}\">✗ FAIL{worst}{why}</td>")
        }
        CellStatus::Skipped => format!("<td class=\"skip\" title=\"{title}\">skipped{why}</td>"),
        CellStatus::Unsupported => {
            format!("<td class=\"unsup\" title=\"{title}\">unsupported{why}</td>")
        }
        CellStatus::NotRun => format!("<td class=\"notrun\" title=\"{title}\">not run</td>"),
    }
}

fn matrix(report: &Report, columns: &[usize], group: CaseGroup, cases: &[&MatrixCase]) -> String {
    let mut html = format!(
        "<h3 id=\"cases-{0}\">Cases: {0}</h3><p class=\"note\">A passing cell shows the worst |error| / \
         bound over the outputs (≤ 1 passes), or “exact”.</p><div class=\"matrix\"><table>",
        escape(group.name())
    );
    html.push_str(&header(report, columns, "case"));
    for case in cases {
        let _ = write!(html, "<tr><td class=\"nw\">{}</td>", escape(&case.name));
        for &i in columns {
            match case.cells.get(i) {
                Some(cell) => html.push_str(&matrix_cell(cell)),
                None => html.push_str("<td class=\"notrun\">not run</td>"),
            }
        }
        html.push_str("</tr>");
    }
    html.push_str("</table></div>");
    html
}

fn failures_list(report: &Report) -> String {
    let mut items = String::new();
    for case in &report.matrix {
        for (i, cell) in case.cells.iter().enumerate() {
            if cell.status == CellStatus::Failed {
                let label = report
                    .columns
                    .get(i)
                    .map(|c| c.label.as_str())
                    .unwrap_or("?");
                let _ = write!(
                    items,
                    "<li><b>{}</b> on <b>{}</b><pre class=\"detail\">{}</pre></li>",
                    escape(&case.name),
                    escape(label),
                    escape(&cell.detail)
                );
            }
        }
    }
    if items.is_empty() {
        String::new()
    } else {
        format!("<h3 id=\"failures\">Failures</h3><ul class=\"failures\">{items}</ul>")
    }
}
