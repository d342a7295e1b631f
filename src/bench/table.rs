//! The terminal table of a benchmark run.

use super::result::{BenchReport, Status};

/// Seconds in a readable unit.
pub fn format_seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

/// One row per result: device, workload, median / min / p90 / spread of the
/// device time, host time, GB/s, GFLOP/s, % of copy bandwidth, clock.
pub fn render_table(report: &BenchReport) -> String {
    let header = [
        "device", "op", "workload", "median", "min", "p90", "spread", "host", "GB/s", "GFLOP/s",
        "% copy", "clock",
    ];
    let mut rows: Vec<Vec<String>> = Vec::new();
    for r in &report.results {
        let mut row = vec![r.device.clone(), r.op.clone(), r.label.clone()];
        match (r.status, r.device_time) {
            (Status::Ok, Some(t)) => {
                row.extend([
                    format_seconds(t.median_s),
                    format_seconds(t.min_s),
                    format_seconds(t.p90_s),
                    format!("{:.1}%", t.spread * 100.0),
                    r.host_time
                        .map(|h| format_seconds(h.median_s))
                        .unwrap_or_default(),
                    r.gbps.map(|g| format!("{g:.1}")).unwrap_or_default(),
                    r.gflops.map(|g| format!("{g:.1}")).unwrap_or_default(),
                    r.copy_fraction
                        .map(|f| format!("{:.0}%", f * 100.0))
                        .unwrap_or_default(),
                    r.clock
                        .map(|c| format!("{c:?}").to_lowercase())
                        .unwrap_or_default(),
                ]);
            }
            (status, _) => {
                let what = if status == Status::Wrong {
                    "WRONG"
                } else {
                    "ERROR"
                };
                row.push(format!("{what}: {}", r.detail.lines().next().unwrap_or("")));
            }
        }
        rows.push(row);
    }
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        // A failure's message spans the remaining columns; don't widen them.
        if row.len() == header.len() {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        } else {
            for (w, cell) in widths.iter_mut().zip(row.iter().take(3)) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let text: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let pad = widths
                    .get(i)
                    .copied()
                    .unwrap_or(0)
                    .saturating_sub(c.chars().count());
                if i >= 3 && cells.len() == header.len() {
                    format!("{}{c}", " ".repeat(pad))
                } else {
                    format!("{c}{}", " ".repeat(pad))
                }
            })
            .collect();
        out.push_str(text.join("  ").trim_end());
        out.push('\n');
    };
    line(&header.map(String::from));
    for row in &rows {
        line(row);
    }
    out
}
