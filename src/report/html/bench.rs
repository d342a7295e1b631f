//! The benchmark part of the page: charts (one series per device of each
//! machine), each physical device through its APIs side by side, runs
//! compared across machines, and every result with the plan variant that ran.

use super::devices::{chip, shade};
use super::text::{escape, seconds};
use crate::bench::{BenchResult, Change, Status};
use crate::report::charts::{self, Chart, Series};
use crate::report::compare::{compare_across, device_map};
use crate::report::model::Report;
use rosetta_core::Clock;
use rosetta_kernels::op::Metric;
use std::fmt::Write as _;

/// The whole benchmark section.
pub fn section(report: &Report) -> String {
    let mut html = String::from("<h2 id=\"benchmark\">Benchmark</h2>");
    let series = series(report);
    if series.iter().all(|s| s.results.is_empty()) {
        html.push_str("<p class=\"note\">No benchmark results.</p>");
        return html;
    }
    html.push_str(&legend(report));
    html.push_str(&charts_part(&series));
    html.push_str(&per_physical(report));
    html.push_str(&across_runs(report));
    html.push_str(&results_table(report));
    html
}

/// One chart series per benchmarked column.
fn series(report: &Report) -> Vec<Series<'_>> {
    report
        .bench_columns()
        .into_iter()
        .map(|i| {
            let c = &report.columns[i];
            Series {
                label: c.label.clone(),
                name: c.info.name.clone(),
                api: c.info.api.name().to_string(),
                shade: shade(report, i),
                group: c.physical,
                results: report.results_of(i),
            }
        })
        .collect()
}

fn legend(report: &Report) -> String {
    let mut html = String::from("<p class=\"note\">Colours by API, one shade per device:");
    for i in report.bench_columns() {
        let _ = write!(
            html,
            "{}{}",
            chip(report, i),
            escape(&report.columns[i].label)
        );
    }
    html.push_str(
        "<span class=\"chip host\" style=\"background:#666\"></span>lighter: timed with the host clock \
         (the API has no device timer there), so submission and synchronisation are included.</p>",
    );
    html
}

fn figure(chart: &Chart) -> String {
    // The SVG is plotters' output (its text escaped by plotters) or our own
    // fallback; it is inlined as is, with the title for screen readers.
    format!(
        "<figure role=\"img\" aria-label=\"{}\">{}</figure>",
        escape(&chart.title),
        chart.svg
    )
}

fn charts_part(series: &[Series<'_>]) -> String {
    let mut html = String::from("<h3 id=\"charts\">By op</h3>");
    let bars = charts::bar_charts(series);
    if bars.is_empty() {
        html.push_str("<p class=\"note\">No benchmark results to chart.</p>");
        return html;
    }
    html.push_str(
        "<p class=\"note\">Each device's largest workload of the op, in the metric the workload declares: \
         GB/s (the least bytes the op must move over the median device time), GFLOP/s, or the median time \
         itself for latency-bound workloads (lower is better). Devices of one physical device sit together \
         between rules. Only results that matched the host reference are drawn.</p><div class=\"charts\">",
    );
    for chart in &bars {
        html.push_str(&figure(chart));
    }
    html.push_str("</div>");
    let lines = charts::size_charts(series);
    if !lines.is_empty() {
        html.push_str(
            "<h3>Against size</h3><p class=\"note\">Workload series measured at several sizes, one line per \
             device; on bandwidth charts the dashed line is the device's copy bandwidth through the same API \
             (its roofline).</p><div class=\"charts wide\">",
        );
        for chart in &lines {
            html.push_str(&figure(chart));
        }
        html.push_str("</div>");
    }
    html
}

/// A result's value in its own metric, with the unit (`—` when not `ok`).
fn headline_value(r: &BenchResult) -> Option<(f64, String)> {
    let v = charts::value(r.metric, r)?;
    let text = match r.metric {
        Metric::Time => seconds(v),
        Metric::Bandwidth => format!("{} GB/s", charts::format_rate(v)),
        Metric::Flops => format!("{} GFLOP/s", charts::format_rate(v)),
    };
    Some((v, text))
}

fn better(metric: Metric, a: f64, b: f64) -> bool {
    match metric {
        Metric::Time => a < b,
        Metric::Bandwidth | Metric::Flops => a > b,
    }
}

fn variant(r: &BenchResult) -> String {
    match (r.variant.as_str(), r.tuned) {
        ("", _) => String::new(),
        (v, true) => format!("{v} (tuned)"),
        (v, false) => v.to_string(),
    }
}

/// For each physical device reached through two or more benchmarked APIs:
/// its workloads × those APIs.
fn per_physical(report: &Report) -> String {
    let mut html = String::new();
    for p in &report.physical {
        let members: Vec<usize> = p
            .members
            .iter()
            .map(|m| m.column)
            .filter(|&c| report.columns.get(c).is_some_and(|c| !c.bench.is_empty()))
            .collect();
        if members.len() < 2 {
            continue;
        }
        let results: Vec<Vec<&BenchResult>> =
            members.iter().map(|&c| report.results_of(c)).collect();
        // Workloads in first-seen order: (op, label).
        let mut workloads: Vec<(&str, &str, Metric)> = Vec::new();
        for r in results.iter().flatten() {
            if !workloads
                .iter()
                .any(|w| w.0 == r.op && w.1 == r.label && w.2 == r.metric)
            {
                workloads.push((&r.op, &r.label, r.metric));
            }
        }
        let _ = write!(
            html,
            "<h4>{}</h4><div class=\"scroll\"><table><tr><th>op</th><th>workload</th>",
            escape(&p.label)
        );
        for &c in &members {
            let _ = write!(
                html,
                "<th>{}{}</th>",
                chip(report, c),
                escape(&report.columns[c].label)
            );
        }
        html.push_str("</tr>");
        for (op, label, metric) in workloads {
            let cells: Vec<Option<&&BenchResult>> = results
                .iter()
                .map(|rs| {
                    rs.iter()
                        .find(|r| r.op == op && r.label == label && r.metric == metric)
                })
                .collect();
            let values: Vec<Option<f64>> = cells
                .iter()
                .map(|r| r.and_then(|r| headline_value(r)).map(|v| v.0))
                .collect();
            let best =
                values
                    .iter()
                    .flatten()
                    .copied()
                    .reduce(|a, b| if better(metric, b, a) { b } else { a });
            let _ = write!(
                html,
                "<tr><td>{}</td><td class=\"nw\">{}</td>",
                escape(op),
                escape(label)
            );
            for (cell, value) in cells.iter().zip(&values) {
                let text = cell.and_then(|r| headline_value(r)).map(|v| v.1);
                match (cell, text) {
                    (None, _) => html.push_str("<td class=\"muted\">—</td>"),
                    (Some(r), None) => {
                        let _ = write!(
                            html,
                            "<td class=\"fail\" title=\"{}\">{}</td>",
                            escape(&r.detail),
                            status_name(r.status)
                        );
                    }
                    (Some(r), Some(text)) => {
                        let class = if *value == best && best.is_some() {
                            "num best"
                        } else {
                            "num"
                        };
                        let _ = write!(
                            html,
                            "<td class=\"{class}\" title=\"variant {}\">{}</td>",
                            escape(&variant(r)),
                            escape(&text)
                        );
                    }
                }
            }
            html.push_str("</tr>");
        }
        html.push_str("</table></div>");
    }
    if html.is_empty() {
        return html;
    }
    format!(
        "<h3 id=\"per-physical\">Each physical device through its APIs</h3><p class=\"note\">The same \
         device, the same workloads, one column per API (see <a href=\"#physical\">physical devices</a> for \
         how they were matched); the best of each row in bold. Hover a value for the plan variant that \
         ran.</p>{html}"
    )
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Ok => "no time",
        Status::Wrong => "wrong",
        Status::Error => "error",
    }
}

/// Every later benchmark run against the first, `bench --compare` style,
/// with devices matched across machines.
fn across_runs(report: &Report) -> String {
    let Some((base, rest)) = report.bench.split_first() else {
        return String::new();
    };
    if rest.is_empty() {
        return String::new();
    }
    let label = |b: &crate::report::model::BenchRun| {
        let machine = report
            .machines
            .get(b.machine)
            .map(|m| m.label.as_str())
            .unwrap_or("?");
        match &b.source {
            Some(s) => format!("{machine} ({s})"),
            None => machine.to_string(),
        }
    };
    let mut html = format!(
        "<h3 id=\"compare\">Runs compared</h3><p class=\"note\">Each later run against the first, \
         <b>{}</b>, as <code>rosetta bench --compare</code> does: a change counts when the medians differ by \
         more than the larger spread of the two (and at least 1%). Devices are matched by id and name, or \
         across machines by API and name when each side has exactly one such device.</p>",
        escape(&label(base))
    );
    for run in rest {
        let _ = write!(html, "<h4>{}</h4>", escape(&label(run)));
        let map = device_map(&base.run, &run.run);
        match compare_across(&base.run, &run.run) {
            Err(e) => {
                let _ = write!(
                    html,
                    "<p class=\"note\">Cannot compare: {}</p>",
                    escape(&e.to_string())
                );
            }
            Ok(list) if list.is_empty() => {
                html.push_str("<p class=\"note\">No device and workload in common.</p>");
            }
            Ok(list) => {
                let count = |c: Change| list.iter().filter(|x| x.change == c).count();
                let _ = write!(
                    html,
                    "<p class=\"note\">{} faster, {} slower, {} within the noise.</p>\
                     <div class=\"scroll\"><table><tr><th>baseline device</th><th>device</th><th>workload</th>\
                     <th>baseline</th><th>this run</th><th>ratio</th><th>threshold</th><th>change</th></tr>",
                    count(Change::Faster),
                    count(Change::Slower),
                    count(Change::Same)
                );
                for c in &list {
                    let from = map
                        .iter()
                        .find(|(_, to)| *to == c.device)
                        .map(|(from, _)| from.as_str())
                        .unwrap_or("?");
                    let (class, word) = match c.change {
                        Change::Faster => ("pass", "faster"),
                        Change::Slower => ("fail", "slower"),
                        Change::Same => ("", "same"),
                    };
                    let _ = write!(
                        html,
                        "<tr><td class=\"id\">{}</td><td class=\"id\">{}</td><td class=\"nw\">{}</td>\
                         <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                         <td class=\"num\">{}</td><td class=\"{class}\">{word}</td></tr>",
                        escape(from),
                        escape(&c.device),
                        escape(&c.label),
                        seconds(c.baseline_s),
                        seconds(c.current_s),
                        if c.ratio.is_finite() {
                            format!("{:.2}×", c.ratio)
                        } else {
                            "—".into()
                        },
                        if c.threshold.is_finite() {
                            format!("{:.1}%", c.threshold * 100.0)
                        } else {
                            "—".into()
                        },
                    );
                }
                html.push_str("</table></div>");
            }
        }
    }
    html
}

fn rate(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map(charts::format_rate)
        .unwrap_or_default()
}

fn results_table(report: &Report) -> String {
    let columns = report.bench_columns();
    let all: Vec<(usize, &BenchResult)> = columns
        .iter()
        .flat_map(|&c| report.results_of(c).into_iter().map(move |r| (c, r)))
        .collect();
    let mut html = String::from("<h3 id=\"results\">Every result</h3>");
    let failed = all.iter().filter(|(_, r)| r.status != Status::Ok).count();
    if failed > 0 {
        let _ = write!(
            html,
            "<p><span class=\"badge fail\">{failed} of {} result(s) failed</span> — shown in red below, \
             with what went wrong.</p>",
            all.len()
        );
    }
    html.push_str(
        "<p class=\"note\">Value = the workload's own metric at the median. Device time is the API's own \
         timer (timestamp queries, events, profiling info) unless the clock column says host. Spread = \
         (p90 − min) / median. % copy = GB/s as a share of the device's copy bandwidth through the same API. \
         Variant = the plan's variant that ran, “tuned” when it came from the tuning cache. A result that \
         did not match the host reference is a failure, never a time.</p>",
    );
    html.push_str(
        "<div class=\"scroll\"><table><tr><th>device</th><th>op</th><th>workload</th><th>value</th>\
         <th>median</th><th>min</th><th>p90</th><th>spread</th><th>host</th><th>GB/s</th><th>GFLOP/s</th>\
         <th>% copy</th><th>variant</th><th>clock</th><th>samples</th><th>status</th></tr>",
    );
    for (c, r) in all {
        html.push_str(&result_row(report, c, r));
    }
    html.push_str("</table></div>");
    html
}

fn result_row(report: &Report, column: usize, r: &BenchResult) -> String {
    let head = format!(
        "<td class=\"id\" title=\"{}\">{}{}</td><td>{}</td><td class=\"nw\">{}</td>",
        escape(&r.device_name),
        chip(report, column),
        escape(&report.columns[column].label),
        escape(&r.op),
        escape(&r.label)
    );
    match (r.status, r.device_time) {
        (Status::Ok, Some(t)) => {
            let clock = match r.clock {
                Some(Clock::Device) => "device",
                Some(Clock::Host) => "<b>host</b>",
                None => "",
            };
            let value = headline_value(r).map(|v| v.1).unwrap_or_else(|| "—".into());
            format!(
                "<tr>{head}<td class=\"num\"><b>{}</b></td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"nw\">{}</td><td>{clock}</td>\
                 <td class=\"num\">{}</td><td class=\"status\">ok</td></tr>",
                escape(&value),
                seconds(t.median_s),
                seconds(t.min_s),
                seconds(t.p90_s),
                if t.spread.is_finite() {
                    format!("{:.1}%", t.spread * 100.0)
                } else {
                    "—".into()
                },
                r.host_time.map(|h| seconds(h.median_s)).unwrap_or_default(),
                rate(r.gbps),
                rate(r.gflops),
                r.copy_fraction
                    .filter(|f| f.is_finite())
                    .map(|f| format!("{:.0}%", f * 100.0))
                    .unwrap_or_default(),
                escape(&variant(r)),
                r.samples
            )
        }
        (status, _) => format!(
            "<tr class=\"failed\">{head}<td colspan=\"12\"><pre class=\"detail\">{}</pre></td>\
             <td class=\"status\">{}</td></tr>",
            escape(if r.detail.is_empty() {
                "(no detail)"
            } else {
                &r.detail
            }),
            status_name(status)
        ),
    }
}
