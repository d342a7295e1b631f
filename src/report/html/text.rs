//! What every part of the page shares: escaping, the style sheet, number
//! formats.

use crate::bench::format_seconds;

/// `text` safe inside HTML text and attribute values.
pub fn escape(text: &str) -> String {
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
p.meta,p.note{color:#555;margin:4px 0}nav{margin:8px 0}nav a{margin-right:14px;color:#1f5fa8}\
table{border-collapse:collapse;background:#fff;margin:6px 0}\
th,td{border:1px solid #dcdfe4;padding:3px 8px;font-size:13px;text-align:left;vertical-align:top}\
th{background:#eef0f3;font-weight:600;white-space:nowrap}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
td.id,td.nw{white-space:nowrap}table.caps td{min-width:9em;max-width:22em}th.row{text-align:right;font-weight:500}\
th.phys{background:#e3e8f0;text-align:center}\
.matrix{max-height:720px;overflow:auto;width:fit-content;max-width:100%;border:1px solid #dcdfe4}\
.matrix table{margin:0}.matrix tr.top th{position:sticky;top:0;z-index:1}\
.pass{background:#e7f4e8;color:#1b5e20}.fail{background:#fde4e4;color:#a31515}\
.partial{background:#fdf6dc;color:#6d5200}.skip{background:#f4f1e4;color:#6d5a00}\
.unsup{background:#eeeeee;color:#555}.notrun{background:#fafafa;color:#999;font-style:italic}\
.allowed{background:#e6eef9;color:#1f4f8a}\
.muted{color:#888}.scroll{overflow-x:auto;max-width:100%}small{display:block;font-size:11px;color:#666}\
td .why{display:block;font-size:11px;width:16em;white-space:normal}\
span.badge{display:inline-block;padding:1px 8px;border-radius:9px;font-weight:600}\
span.badge.pass{border:1px solid #9bcf9f}span.badge.fail{border:1px solid #eaa}span.badge.unsup{border:1px solid #ccc}\
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(580px,1fr));gap:14px}\
.charts.wide{grid-template-columns:repeat(auto-fill,minmax(760px,1fr))}.charts.wide figure{max-width:1000px}\
figure{margin:0;background:#fff;border:1px solid #dcdfe4;border-radius:4px;padding:6px}\
figure svg{width:100%;height:auto;display:block}\
.chip{display:inline-block;width:12px;height:12px;border-radius:2px;vertical-align:-1px;margin:0 5px 0 2px}p .chip{margin-left:12px}\
.chip.host{opacity:.35;outline:1px solid #666}\
ul.failures{padding-left:18px}ul.failures li{margin:6px 0}\
pre.detail{white-space:pre-wrap;margin:2px 0 0;font-size:12px;background:#fff;border:1px solid #eaa;padding:4px 6px;color:#a31515}\
tr.failed td{background:#fdf1f1}tr.failed td.status{color:#a31515;font-weight:600}\
td.best{font-weight:700}\
";

/// The document's start, up to `<main>`.
pub fn head(title: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body><main>",
        escape(title)
    )
}

/// The document's end.
pub const TAIL: &str = "</main></body></html>\n";

/// A verdict badge.
pub fn badge(passed: Option<bool>) -> &'static str {
    match passed {
        Some(true) => "<span class=\"badge pass\">passed</span>",
        Some(false) => "<span class=\"badge fail\">FAILED</span>",
        None => "<span class=\"badge unsup\">not run</span>",
    }
}

/// Bytes in binary units.
pub fn format_bytes(bytes: u64) -> String {
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
pub fn count(n: u32) -> String {
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
    } else if n >= 1 << 20 && (u64::from(n) + 1).is_power_of_two() {
        format!("{}−1", pow(n.count_ones()))
    } else {
        n.to_string()
    }
}

/// Worst |error| / bound in two significant digits.
pub fn ratio(r: f64) -> String {
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

/// A count out of a total as a rate (`2.1e-3`), `—` without a total.
pub fn rate_of(part: u64, total: u64) -> String {
    if total == 0 {
        "—".into()
    } else {
        let r = part as f64 / total as f64;
        if r == 0.0 {
            "0".into()
        } else {
            format!("{r:.2e}")
        }
    }
}

/// Seconds in a readable unit; `—` for what is not a time.
pub fn seconds(s: f64) -> String {
    if s.is_finite() && s >= 0.0 {
        format_seconds(s)
    } else {
        "—".into()
    }
}

/// `yes` / `no`.
pub fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// The first line of `text`, cut to `max` characters (with an ellipsis).
pub fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() <= max && !text.contains('\n') {
        line.to_string()
    } else {
        let mut cut: String = line.chars().take(max).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(48 << 10), "48 KiB");
        assert_eq!(format_bytes(141 << 30), "141 GiB");
        assert_eq!(format_bytes(1536 << 20), "1.5 GiB");
        assert_eq!(format_bytes(u64::MAX), "16777216 TiB");
        assert_eq!(count(i32::MAX as u32), "2³¹−1");
        assert_eq!(count(u32::MAX), "2³²−1");
        assert_eq!(count(65535), "65535");
        assert_eq!(ratio(f64::NAN), "?");
        assert_eq!(rate_of(1, 0), "—");
        assert_eq!(rate_of(490, 235_520), "2.08e-3");
        assert_eq!(seconds(f64::NAN), "—");
        assert_eq!(
            escape("<a href='x'>&</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;"
        );
        assert_eq!(first_line("abc\ndef", 10), "abc…");
    }
}
