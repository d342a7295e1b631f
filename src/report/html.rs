//! The self-contained HTML page of a report (no scripts, no network).

use super::Report;
use crate::bench::{render_table, BenchReport};

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const HEAD: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>rosetta report</title>\
     <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}\
     td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}.pass{background:#dfd}\
     .fail{background:#fdd}pre{font-size:12px}</style></head><body><h1>rosetta report</h1>";

/// A benchmark-only page.
pub fn bench_page(bench: &BenchReport) -> String {
    format!("{HEAD}{}</body></html>\n", bench_section(bench))
}

pub fn page(report: &Report) -> String {
    let mut html = String::from(HEAD);
    html.push_str("<h2>Devices</h2><table><tr><th>device</th><th>name</th><th>type</th><th>shared bytes</th><th>max invocations</th><th>subgroups</th><th>timestamps</th><th>memory</th><th>driver</th></tr>");
    for d in &report.conformance.devices {
        html.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{:?}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1} GiB</td><td>{}</td></tr>",
            d.id(),
            escape(&d.name),
            d.caps.device_type,
            d.caps.max_shared_bytes,
            d.caps.max_group_invocations,
            d.caps.subgroup_sizes.map(|[a, b]| format!("{a}–{b}")).unwrap_or_else(|| "—".into()),
            d.caps.timestamps,
            d.caps.memory_bytes as f64 / (1u64 << 30) as f64,
            escape(&d.driver)
        ));
    }
    html.push_str("</table>");
    for absent in &report.absent {
        html.push_str(&format!("<p>{}: {}</p>", absent.api, escape(&absent.reason)));
    }
    html.push_str("<h2>Conformance</h2><table><tr><th>case</th>");
    for d in &report.conformance.devices {
        html.push_str(&format!("<th>{}</th>", d.id()));
    }
    html.push_str("</tr>");
    for case in &report.conformance.cases {
        html.push_str(&format!("<tr><td>{}</td>", escape(&case.name)));
        for o in &case.results {
            let class = if o.passed { "pass" } else { "fail" };
            let text = match (o.passed, o.error_ratio) {
                (true, Some(r)) => format!("ok {r:.2e}"),
                (true, None) => "ok".into(),
                (false, _) => "FAIL".into(),
            };
            html.push_str(&format!("<td class=\"{class}\" title=\"{}\">{text}</td>", escape(&o.detail)));
        }
        html.push_str("</tr>");
    }
    html.push_str("</table>");
    html.push_str(&bench_section(&report.bench));
    html.push_str("</body></html>\n");
    html
}

fn bench_section(bench: &BenchReport) -> String {
    format!("<h2>Benchmark ({})</h2><pre>{}</pre>", bench.size, escape(&render_table(bench)))
}
