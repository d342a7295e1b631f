//! The self-contained HTML pages of a report: one file, inline CSS and SVG,
//! no scripts, no network, no external files.
//!
//! - [`page`]: the full report (`rosetta`, `rosetta report`): devices and
//!   their capabilities, APIs without devices, the conformance matrix, the
//!   charts and the benchmark table.
//! - [`bench_page`]: the benchmark only (`rosetta bench --html DIR`).

use super::charts::{self, Chart, Metric};
use super::Report;
use crate::bench::{format_seconds, BenchReport, BenchResult, Status};
use crate::conform;
use rosetta_core::{Clock, DeviceInfo, DeviceType};
use rosetta_kernels::op::Status as CaseStatus;
use std::fmt::Write as _;

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "\
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#222;background:#f6f7f9}\
main{padding:18px 28px 40px;max-width:1560px}\
h1{margin:0 0 4px;font-size:26px}h2{margin:34px 0 10px;font-size:20px;border-bottom:1px solid #d8dbe0;padding-bottom:4px}\
h3{margin:22px 0 8px;font-size:16px}\
p.meta,p.note{color:#555;margin:4px 0}nav a{margin-right:14px;color:#1f5fa8}\
table{border-collapse:collapse;background:#fff;margin:6px 0}\
th,td{border:1px solid #dcdfe4;padding:3px 8px;font-size:13px;text-align:left;vertical-align:top}\
th{background:#eef0f3;font-weight:600;white-space:nowrap}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
td.id,td.nw{white-space:nowrap}table.caps td{min-width:9em;max-width:22em}th.row{text-align:right;font-weight:500}\
.matrix{max-height:720px;overflow:auto;width:fit-content;max-width:100%;border:1px solid #dcdfe4}\
.matrix table{margin:0}.matrix tr.top th{position:sticky;top:0;z-index:1}\
.pass{background:#e7f4e8;color:#1b5e20}.fail{background:#fde4e4;color:#a31515}\
.muted{color:#888}.scroll{overflow-x:auto;max-width:100%}\
td.fail .why{display:block;font-size:11px;width:16em;white-space:normal}\
span.badge{display:inline-block;padding:1px 8px;border-radius:9px;font-weight:600}\
span.badge.pass{border:1px solid #9bcf9f}span.badge.fail{border:1px solid #eaa}\
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:14px}\
.charts.wide{grid-template-columns:repeat(auto-fill,minmax(760px,1fr))}.charts.wide figure{max-width:1000px}\
figure{margin:0;background:#fff;border:1px solid #dcdfe4;border-radius:4px;padding:6px}\
figure svg{width:100%;height:auto;display:block}\
.chip{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin:0 5px 0 2px}p .chip{margin-left:12px}\
.chip.host{opacity:.35;outline:1px solid #666}\
ul.failures{padding-left:18px}ul.failures li{margin:6px 0}\
pre.detail{white-space:pre-wrap;margin:2px 0 0;font-size:12px;background:#fff;border:1px solid #eaa;padding:4px 6px;color:#a31515}\
tr.failed td{background:#fdf1f1}tr.failed td.status{color:#a31515;font-weight:600}\
";

fn head(title: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body><main>",
        escape(title)
    )
}

const TAIL: &str = "</main></body></html>\n";

/// The benchmark-only page (`rosetta bench --html DIR`).
pub fn bench_page(bench: &BenchReport) -> String {
    let mut html = head("rosetta benchmark");
    html.push_str("<h1>rosetta benchmark</h1>");
    let _ = write!(
        html,
        "<p class=\"meta\">size preset <b>{}</b> · {} result(s) on {} device(s) · schema {}</p>",
        escape(&bench.size),
        bench.results.len(),
        bench_devices(bench).len(),
        escape(&bench.schema)
    );
    html.push_str("<nav><a href=\"#devices\">Devices</a><a href=\"#charts\">Charts</a><a href=\"#benchmark\">Benchmark table</a></nav>");
    html.push_str("<h2 id=\"devices\">Devices</h2>");
    html.push_str(&bench_devices_table(bench));
    html.push_str(&charts_section(bench));
    html.push_str(&table_section(bench));
    html.push_str(TAIL);
    html
}

/// The full report page.
pub fn page(report: &Report) -> String {
    let mut html = head("rosetta report");
    html.push_str("<h1>rosetta report</h1>");
    let conf = &report.conformance;
    let _ = write!(
        html,
        "<p class=\"meta\">rosetta {} · {} device(s) · conformance {} · benchmark size preset <b>{}</b></p>",
        escape(&report.rosetta_version),
        conf.devices.len(),
        verdict_badge(conf.passed),
        escape(&report.bench.size)
    );
    html.push_str(
        "<nav><a href=\"#devices\">Devices</a><a href=\"#conformance\">Conformance</a>\
         <a href=\"#charts\">Charts</a><a href=\"#benchmark\">Benchmark table</a></nav>",
    );
    html.push_str(&devices_section(report));
    html.push_str(&conformance_section(conf));
    html.push_str(&charts_section(&report.bench));
    html.push_str(&table_section(&report.bench));
    html.push_str(TAIL);
    html
}

fn verdict_badge(passed: bool) -> &'static str {
    if passed {
        "<span class=\"badge pass\">passed</span>"
    } else {
        "<span class=\"badge fail\">FAILED</span>"
    }
}

fn device_type(t: DeviceType) -> &'static str {
    match t {
        DeviceType::Cpu => "CPU",
        DeviceType::DiscreteGpu => "discrete GPU",
        DeviceType::IntegratedGpu => "integrated GPU",
        DeviceType::VirtualGpu => "virtual GPU",
        DeviceType::Other => "other",
    }
}

fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else if v >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// A limit in a short form: 2³¹−1 rather than 2147483647.
fn count(n: u32) -> String {
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let pow = |k: u32| -> String {
        let digits: String = k
            .to_string()
            .bytes()
            .map(|d| SUP[usize::from(d - b'0')])
            .collect();
        format!("2{digits}")
    };
    if n >= 1 << 20 && n.is_power_of_two() {
        pow(n.trailing_zeros())
    } else if n >= 1 << 20 && n.wrapping_add(1).is_power_of_two() {
        format!("{}−1", pow(n.count_ones()))
    } else {
        n.to_string()
    }
}

/// Worst |error| / bound in two significant digits.
fn ratio(r: f64) -> String {
    if !r.is_finite() {
        "?".into()
    } else if r == 0.0 {
        "0".into()
    } else if r >= 0.01 {
        format!("{r:.2}")
    } else {
        format!("{r:.1e}")
    }
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn devices_section(report: &Report) -> String {
    let mut html = String::from("<h2 id=\"devices\">Devices</h2>");
    let devices = &report.conformance.devices;
    if devices.is_empty() {
        html.push_str("<p class=\"note\">No device was found or selected.</p>");
    } else {
        html.push_str(&capabilities_table(devices));
    }
    html.push_str("<h3>APIs without devices</h3>");
    if report.absent.is_empty() {
        html.push_str("<p class=\"note\">Every API that was probed found a device.</p>");
    } else {
        html.push_str("<table><tr><th>API</th><th>why</th></tr>");
        for a in &report.absent {
            let _ = write!(
                html,
                "<tr><td class=\"id\">{}</td><td>{}</td></tr>",
                escape(&a.api),
                escape(&a.reason)
            );
        }
        html.push_str("</table>");
    }
    html
}

/// Devices as columns, capabilities as rows (readable with 1 to ~8 devices).
fn capabilities_table(devices: &[DeviceInfo]) -> String {
    type Row = (&'static str, fn(&DeviceInfo) -> String);
    let rows: [Row; 14] = [
        ("name", |d| escape(&d.name)),
        ("type", |d| device_type(d.caps.device_type).into()),
        ("driver", |d| escape(&d.driver)),
        ("compute units", |d| match d.caps.compute_units {
            0 => "—".into(),
            n => n.to_string(),
        }),
        ("memory", |d| match d.caps.memory_bytes {
            0 => "—".into(),
            n => format_bytes(n),
        }),
        ("largest buffer", |d| format_bytes(d.caps.max_buffer_bytes)),
        ("shared memory per workgroup", |d| {
            format_bytes(u64::from(d.caps.max_shared_bytes))
        }),
        ("workgroup invocations", |d| {
            d.caps.max_group_invocations.to_string()
        }),
        ("workgroup size per axis", |d| {
            let [x, y, z] = d.caps.max_group_size;
            format!("{x}×{y}×{z}")
        }),
        ("workgroups per axis", |d| {
            let [x, y, z] = d.caps.max_groups;
            format!("{}×{}×{}", count(x), count(y), count(z))
        }),
        ("subgroup sizes", |d| match d.caps.subgroup_sizes {
            Some([lo, hi]) if lo == hi => lo.to_string(),
            Some([lo, hi]) => format!("{lo}–{hi}"),
            None => "—".into(),
        }),
        ("subgroup ops", |d| yes_no(d.caps.subgroup_ops).into()),
        ("float atomics", |d| yes_no(d.caps.float_atomics).into()),
        ("timer", |d| {
            if d.caps.timestamps {
                "device timestamps".into()
            } else {
                "<b>host clock</b>".into()
            }
        }),
    ];
    let mut html = String::from("<div class=\"scroll\"><table class=\"caps\"><tr><th></th>");
    for d in devices {
        let _ = write!(
            html,
            "<th><span class=\"chip\" style=\"background:{}\"></span>{}</th>",
            charts::css_color(d.api.name()),
            escape(&d.id())
        );
    }
    html.push_str("</tr>");
    for (name, cell) in rows {
        let _ = write!(html, "<tr><th class=\"row\">{name}</th>");
        for d in devices {
            let _ = write!(html, "<td>{}</td>", cell(d));
        }
        html.push_str("</tr>");
    }
    html.push_str("</table></div>");
    html
}

/// Devices of a bench report (kept as JSON values): (id, name, type, driver).
fn bench_devices(bench: &BenchReport) -> Vec<[String; 4]> {
    let mut out: Vec<[String; 4]> = Vec::new();
    for d in &bench.devices {
        let kind = serde_json::to_value(d.caps.device_type)
            .ok()
            .and_then(|v| v.as_str().map(|s| s.replace('-', " ")))
            .unwrap_or_default();
        out.push([d.id(), d.name.clone(), kind, d.driver.clone()]);
    }
    // Devices only named by results (a report from an older or trimmed file).
    for r in &bench.results {
        if !out.iter().any(|d| d[0] == r.device) {
            out.push([
                r.device.clone(),
                r.device_name.clone(),
                String::new(),
                String::new(),
            ]);
        }
    }
    out
}

fn bench_devices_table(bench: &BenchReport) -> String {
    let devices = bench_devices(bench);
    if devices.is_empty() {
        return "<p class=\"note\">No device was benchmarked.</p>".into();
    }
    let mut html =
        String::from("<table><tr><th>device</th><th>name</th><th>type</th><th>driver</th></tr>");
    for [id, name, kind, driver] in &devices {
        let _ = write!(
            html,
            "<tr><td class=\"id\">{}</td><td>{}</td><td class=\"nw\">{}</td><td>{}</td></tr>",
            escape(id),
            escape(name),
            escape(kind),
            escape(driver)
        );
    }
    html.push_str("</table>");
    html
}

/// The outcome of `case` on the `i`th device (outcomes are in device order;
/// fall back to matching by id).
fn outcome_of<'a>(
    case: &'a conform::CaseReport,
    i: usize,
    id: &str,
) -> Option<&'a conform::Outcome> {
    case.results
        .get(i)
        .filter(|o| o.device == id)
        .or_else(|| case.results.iter().find(|o| o.device == id))
}

fn conformance_section(conf: &conform::Report) -> String {
    let mut html = String::from("<h2 id=\"conformance\">Conformance</h2>");
    let ids: Vec<String> = conf.devices.iter().map(DeviceInfo::id).collect();
    let failures = conf
        .cases
        .iter()
        .flat_map(|c| c.results.iter())
        .filter(|o| o.status == CaseStatus::Failed)
        .count();
    let _ = write!(
        html,
        "<p>{} — {} case(s) × {} device(s), {} failure(s). Each device is compared with the host reference \
         (f64 accumulation, exact integers), never with another device. In the matrix a passing cell shows \
         the worst |error| / bound over the outputs (≤ 1 passes), or “exact” for exact ops.</p>",
        verdict_badge(conf.passed),
        conf.cases.len(),
        conf.devices.len(),
        failures
    );
    if !conf.missing.is_empty() {
        html.push_str("<ul class=\"failures\">");
        for m in &conf.missing {
            let _ = write!(html, "<li class=\"fail\">{}</li>", escape(m));
        }
        html.push_str("</ul>");
    }
    if conf.devices.is_empty() || conf.cases.is_empty() {
        html.push_str("<p class=\"note\">No conformance results.</p>");
        return html;
    }
    let header = |first: &str| {
        let mut row = format!("<tr class=\"top\"><th>{first}</th>");
        for d in &conf.devices {
            let _ = write!(
                row,
                "<th title=\"{}\">{}</th>",
                escape(&d.name),
                escape(&d.id())
            );
        }
        row.push_str("</tr>");
        row
    };

    // Passed / total per op and device.
    let mut ops: Vec<&str> = Vec::new();
    for case in &conf.cases {
        if !ops.contains(&case.op.as_str()) {
            ops.push(case.op.as_str());
        }
    }
    html.push_str("<h3>By op</h3><div class=\"scroll\"><table>");
    html.push_str(&header("op"));
    let tally = |cases: &mut dyn Iterator<Item = &conform::CaseReport>, i: usize, id: &str| {
        let (mut passed, mut total) = (0, 0);
        for case in cases {
            if let Some(o) = outcome_of(case, i, id) {
                total += 1;
                passed += usize::from(o.status == CaseStatus::Passed);
            }
        }
        let class = if passed == total { "pass" } else { "fail" };
        format!("<td class=\"num {class}\">{passed}/{total}</td>")
    };
    for op in ops.iter().map(|op| Some(*op)).chain([None]) {
        let _ = write!(
            html,
            "<tr><td class=\"nw\">{}</td>",
            op.map(escape).unwrap_or_else(|| "<b>all</b>".into())
        );
        for (i, id) in ids.iter().enumerate() {
            let mut cases = conf.cases.iter().filter(|c| op.is_none_or(|op| c.op == op));
            html.push_str(&tally(&mut cases, i, id));
        }
        html.push_str("</tr>");
    }
    html.push_str("</table></div>");

    html.push_str("<h3>Cases</h3><div class=\"matrix\"><table>");
    html.push_str(&header("case"));
    let mut failed: Vec<(&str, &conform::Outcome)> = Vec::new();
    for case in &conf.cases {
        let _ = write!(html, "<tr><td class=\"nw\">{}</td>", escape(&case.name));
        for (i, id) in ids.iter().enumerate() {
            match outcome_of(case, i, id) {
                None => html.push_str("<td class=\"muted\">—</td>"),
                Some(o) if o.status == CaseStatus::Passed => {
                    let text = o.error_ratio.map(ratio).unwrap_or_else(|| "exact".into());
                    let _ = write!(
                        html,
                        "<td class=\"num pass\" title=\"{}\">✓ {text}</td>",
                        escape(&format!("{:.3} s {}", o.seconds, o.detail))
                    );
                }
                Some(o) => {
                    let worst = o
                        .error_ratio
                        .filter(|r| r.is_finite())
                        .map(|r| format!(" {}", ratio(r)))
                        .unwrap_or_default();
                    let first = o.detail.lines().next().unwrap_or("");
                    let short: String = first.chars().take(90).collect();
                    let more = if short.len() < o.detail.len() {
                        "…"
                    } else {
                        ""
                    };
                    let _ = write!(
                        html,
                        "<td class=\"fail\" title=\"{}\">✗ FAIL{worst}<span class=\"why\">{}{more}</span></td>",
                        escape(&o.detail),
                        escape(&short)
                    );
                    failed.push((&case.name, o));
                }
            }
        }
        html.push_str("</tr>");
    }
    html.push_str("</table></div>");
    if !failed.is_empty() {
        html.push_str("<h3>Failures</h3><ul class=\"failures\">");
        for (case, o) in failed {
            let _ = write!(
                html,
                "<li><b>{}</b> on <b>{}</b><pre class=\"detail\">{}</pre></li>",
                escape(case),
                escape(&o.device),
                escape(&o.detail)
            );
        }
        html.push_str("</ul>");
    }
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

fn api_legend(bench: &BenchReport) -> String {
    let mut apis: Vec<&str> = Vec::new();
    for r in &bench.results {
        if !apis.contains(&r.api.as_str()) {
            apis.push(&r.api);
        }
    }
    let mut html = String::from("<p class=\"note\">Colours by API:");
    for api in apis {
        let _ = write!(
            html,
            "<span class=\"chip\" style=\"background:{}\"></span>{}",
            charts::css_color(api),
            escape(api)
        );
    }
    html.push_str(
        "<span class=\"chip host\" style=\"background:#666\"></span>lighter: timed with the host clock \
         (the API has no device timer there), so submission and synchronisation are included.</p>",
    );
    html
}

fn charts_section(bench: &BenchReport) -> String {
    let mut html = String::from("<h2 id=\"charts\">Charts</h2>");
    let bars = charts::op_charts(bench);
    if bars.is_empty() {
        html.push_str("<p class=\"note\">No benchmark results to chart.</p>");
        return html;
    }
    html.push_str(&api_legend(bench));
    html.push_str(
        "<h3>Throughput by op</h3><p class=\"note\">Each op's largest workload on each device, timed with the \
         API's own timer: GB/s (the least bytes the op must move over the median time) for copy, reduce and \
         histogram; GFLOP/s for conv1d, conv2d and matmul. Only results that matched the host reference are \
         drawn.</p><div class=\"charts\">",
    );
    for chart in &bars {
        html.push_str(&figure(chart));
    }
    html.push_str("</div>");
    let lines = charts::size_charts(bench);
    if !lines.is_empty() {
        html.push_str(
            "<h3>Against size</h3><p class=\"note\">Series measured at several sizes, one line per device; \
             the dashed line is the device's copy bandwidth through the same API (its roofline).</p>\
             <div class=\"charts wide\">",
        );
        for chart in &lines {
            html.push_str(&figure(chart));
        }
        html.push_str("</div>");
    }
    html
}

fn rate(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map(charts::format_rate)
        .unwrap_or_default()
}

fn table_section(bench: &BenchReport) -> String {
    let mut html = format!(
        "<h2 id=\"benchmark\">Benchmark ({})</h2>",
        escape(&bench.size)
    );
    if bench.results.is_empty() {
        html.push_str("<p class=\"note\">No benchmark results.</p>");
        return html;
    }
    let failed = bench
        .results
        .iter()
        .filter(|r| r.status != Status::Ok)
        .count();
    if failed > 0 {
        let _ = write!(
            html,
            "<p><span class=\"badge fail\">{failed} of {} result(s) failed</span> — shown in red below, \
             with what went wrong.</p>",
            bench.results.len()
        );
    }
    html.push_str(
        "<p class=\"note\">Device time is the API's own timer (timestamp queries, events, profiling info) \
         unless the clock column says host. Spread = (p90 − min) / median. % copy = GB/s as a share of the \
         device's copy bandwidth through the same API. A result that did not match the host reference is a \
         failure, never a time.</p>",
    );
    html.push_str(
        "<div class=\"scroll\"><table><tr><th>device</th><th>op</th><th>workload</th><th>median</th><th>min</th>\
         <th>p90</th><th>spread</th><th>host</th><th>GB/s</th><th>GFLOP/s</th><th>% copy</th><th>clock</th>\
         <th>samples</th><th>status</th></tr>",
    );
    for r in &bench.results {
        html.push_str(&result_row(r));
    }
    html.push_str("</table></div>");
    html
}

fn seconds(s: f64) -> String {
    if s.is_finite() && s >= 0.0 {
        format_seconds(s)
    } else {
        "—".into()
    }
}

fn result_row(r: &BenchResult) -> String {
    let head = format!(
        "<td class=\"id\" title=\"{}\">{}</td><td>{}</td><td class=\"nw\">{}</td>",
        escape(&r.device_name),
        escape(&r.device),
        escape(&r.op),
        escape(&r.label)
    );
    match (r.status, r.device_time) {
        (Status::Ok, Some(t)) => {
            let metric = Metric::of(r.metric);
            // The headline metric in bold.
            let (gbps, gflops) = (rate(r.gbps), rate(r.gflops));
            let (gbps, gflops) = match metric {
                Metric::Bandwidth if !gbps.is_empty() => (format!("<b>{gbps}</b>"), gflops),
                Metric::Flops if !gflops.is_empty() => (gbps, format!("<b>{gflops}</b>")),
                _ => (gbps, gflops),
            };
            let clock = match r.clock {
                Some(Clock::Device) => "device",
                Some(Clock::Host) => "<b>host</b>",
                None => "",
            };
            format!(
                "<tr>{head}<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{gbps}</td>\
                 <td class=\"num\">{gflops}</td><td class=\"num\">{}</td><td>{clock}</td><td class=\"num\">{}</td>\
                 <td class=\"status\">ok</td></tr>",
                seconds(t.median_s),
                seconds(t.min_s),
                seconds(t.p90_s),
                if t.spread.is_finite() { format!("{:.1}%", t.spread * 100.0) } else { "—".into() },
                r.host_time.map(|h| seconds(h.median_s)).unwrap_or_default(),
                r.copy_fraction
                    .filter(|f| f.is_finite())
                    .map(|f| format!("{:.0}%", f * 100.0))
                    .unwrap_or_else(|| if r.op == "copy" { "(ref)".into() } else { String::new() }),
                r.samples
            )
        }
        (status, _) => {
            let what = match status {
                Status::Wrong => "wrong",
                Status::Error => "error",
                Status::Ok => "no time",
            };
            format!(
                "<tr class=\"failed\">{head}<td colspan=\"10\"><pre class=\"detail\">{}</pre></td>\
                 <td class=\"status\">{what}</td></tr>",
                escape(if r.detail.is_empty() {
                    "(no detail)"
                } else {
                    &r.detail
                })
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{Stats, SCHEMA};
    use crate::report::Absent;

    fn empty_conformance() -> conform::Report {
        conform::Report {
            devices: Vec::new(),
            cases: Vec::new(),
            summary: Vec::new(),
            missing: vec!["cuda is required but has <no> device".into()],
            passed: false,
        }
    }

    fn bench(results: Vec<BenchResult>) -> BenchReport {
        BenchReport {
            schema: SCHEMA.into(),
            size: "small".into(),
            devices: vec![
                serde_json::json!({"api": "cpu", "index": 0, "name": "host <cpu>", "driver": "rayon",
                "caps": {"device_type": "cpu"}}),
                serde_json::json!("garbage"),
            ],
            results,
        }
    }

    fn failed(status: Status) -> BenchResult {
        BenchResult {
            device: "cpu:0".into(),
            device_name: "host".into(),
            api: "cpu".into(),
            op: "reduce".into(),
            label: "sum f32 n=2^20".into(),
            series: "sum f32".into(),
            elements: 1 << 20,
            bytes: 4 << 20,
            flops: None,
            status,
            detail: "got <1>, expected 2 & \"3\"".into(),
            clock: None,
            samples: 0,
            device_time: None,
            host_time: None,
            gbps: None,
            gflops: None,
            copy_fraction: None,
        }
    }

    #[test]
    fn empty_reports_render() {
        let report = Report::new(Vec::new(), empty_conformance(), bench(Vec::new()));
        let html = page(&report);
        assert!(html.contains("Conformance") && html.contains("No benchmark results"));
        assert!(html.contains("&lt;no&gt;"));
        let html = bench_page(&bench(Vec::new()));
        assert!(html.contains("No benchmark results"));
        assert!(html.contains("host &lt;cpu&gt;"));
    }

    #[test]
    fn failures_are_failures_not_times() {
        let mut ok = failed(Status::Ok);
        let t = Stats {
            median_s: 2e-3,
            min_s: 1e-3,
            p90_s: 3e-3,
            spread: 1.0,
        };
        ok.device_time = Some(t);
        ok.host_time = Some(t);
        ok.clock = Some(Clock::Host);
        ok.gbps = Some(2.1);
        ok.label = "sum f32 n=2^22".into();
        ok.elements = 1 << 22;
        let html = bench_page(&bench(vec![
            failed(Status::Wrong),
            failed(Status::Error),
            ok,
        ]));
        assert!(html.contains("<svg"));
        assert!(html.contains("got &lt;1&gt;, expected 2 &amp; &quot;3&quot;"));
        assert!(
            html.contains("<td class=\"status\">wrong</td>")
                && html.contains("<td class=\"status\">error</td>")
        );
        assert!(html.contains("2.000 ms") && html.contains("<b>host</b>"));
    }

    #[test]
    fn absent_apis_are_listed() {
        let absent = vec![Absent {
            api: "cuda".into(),
            reason: "not compiled in (build with --features cuda)".into(),
        }];
        let html = page(&Report::new(
            absent,
            empty_conformance(),
            bench(vec![failed(Status::Error)]),
        ));
        assert!(html.contains("build with --features cuda"));
        assert!(
            html.contains("ERROR — got &lt;1&gt;"),
            "the failed headline is written in its chart"
        );
    }

    #[test]
    fn byte_units() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(48 << 10), "48 KiB");
        assert_eq!(format_bytes(141 << 30), "141 GiB");
        assert_eq!(format_bytes(1536 << 20), "1.5 GiB");
    }
}
