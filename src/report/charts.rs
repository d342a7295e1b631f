//! The report's charts, drawn with plotters' SVG backend into strings that
//! the page inlines (no scripts, no fonts, no external files: the SVG
//! backend writes `<text>` elements and the browser picks the font).
//!
//! A chart draws [`Series`]: one per device of one machine. What a value is
//! comes from each result's own `metric` (GB/s, GFLOP/s, or the median time
//! for latency-bound workloads), never from the op's name.
//!
//! - [`bar_charts`]: per op and metric, one bar per series: its largest
//!   workload of that op with that metric. Bars of one physical device sit
//!   together, between thin rules.
//! - [`size_charts`]: per op, workload series and metric measured at two or
//!   more sizes, one line per series over a log₂ size axis; bandwidth charts
//!   carry each series' copy bandwidth as a dashed line (its roofline).
//!
//! Only `ok` results with a finite, positive value are drawn; a headline
//! that failed is written in red where its bar would be; host-clock results
//! are drawn lighter. Nothing here panics on odd content: empty input, failed
//! results, NaN or infinite rates end up as "no data", not as an error.

use crate::bench::{format_seconds, BenchResult, Status};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use rosetta_core::Clock;
use rosetta_kernels::op::{Metric, Op};

/// One chart: its title (headings, alt text) and SVG.
#[derive(Debug, Clone)]
pub struct Chart {
    /// The title.
    pub title: String,
    /// The SVG document.
    pub svg: String,
}

/// One device of one machine, as charts draw it.
#[derive(Debug, Clone)]
pub struct Series<'a> {
    /// The label (`api:index`, with the machine's label on merged reports).
    pub label: String,
    /// The device's name.
    pub name: String,
    /// The API (the colour).
    pub api: String,
    /// Which series of its API this is (the shade).
    pub shade: usize,
    /// Its physical device (series of one are drawn together).
    pub group: usize,
    /// Its results.
    pub results: Vec<&'a BenchResult>,
}

/// The unit of a metric's values on a chart, and the factor from the
/// result's number (GB/s, GFLOP/s, seconds) to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    /// `GB/s`, `GFLOP/s`, `µs`, `ms` or `s`.
    pub unit: &'static str,
    /// Multiply a value by this.
    pub factor: f64,
}

/// The scale for `metric` with values up to `max` (in the result's unit).
pub fn scale(metric: Metric, max: f64) -> Scale {
    match metric {
        Metric::Bandwidth => Scale {
            unit: "GB/s",
            factor: 1.0,
        },
        Metric::Flops => Scale {
            unit: "GFLOP/s",
            factor: 1.0,
        },
        Metric::Time if max < 1e-3 => Scale {
            unit: "µs",
            factor: 1e6,
        },
        Metric::Time if max < 1.0 => Scale {
            unit: "ms",
            factor: 1e3,
        },
        Metric::Time => Scale {
            unit: "s",
            factor: 1.0,
        },
    }
}

/// What a chart of `metric` shows, in words.
pub fn metric_title(metric: Metric) -> &'static str {
    match metric {
        Metric::Bandwidth => "GB/s",
        Metric::Flops => "GFLOP/s",
        Metric::Time => "median time (lower is better)",
    }
}

/// A result's value in its metric — GB/s, GFLOP/s or median seconds — if it
/// is `ok` and a drawable number.
pub fn value(metric: Metric, r: &BenchResult) -> Option<f64> {
    if r.status != Status::Ok {
        return None;
    }
    let v = match metric {
        Metric::Bandwidth => r.gbps?,
        Metric::Flops => r.gflops?,
        Metric::Time => r.device_time?.median_s,
    };
    // Finite, positive and below any real device: axes stay sane.
    (v.is_finite() && v > 0.0 && v < 1e15).then_some(v)
}

/// The name of the copy op (the roofline).
fn copy_op() -> &'static str {
    rosetta_kernels::copy::Copy.name()
}

/// Fixed colours per API, so a device's API reads the same in every chart.
pub fn api_color(api: &str) -> RGBColor {
    match api {
        "cpu" => RGBColor(0x6b, 0x6e, 0x76),
        "wgpu" => RGBColor(0x8e, 0x44, 0xad),
        "vulkan" => RGBColor(0xc0, 0x39, 0x2b),
        "opencl" => RGBColor(0x1f, 0x6f, 0xb4),
        "cuda" => RGBColor(0x3a, 0x8f, 0x00),
        _ => RGBColor(0xe6, 0x7e, 0x22),
    }
}

/// The API's colour, darker or lighter for its `shade`th series (so
/// `vulkan:0` and `vulkan:1` stay apart and keep their colours everywhere).
pub fn color(api: &str, shade: usize) -> RGBColor {
    let RGBColor(r, g, b) = api_color(api);
    // As is, then alternately darker and lighter.
    const SHADES: [f64; 6] = [0.0, -0.4, 0.4, -0.65, 0.6, -0.2];
    let f = SHADES[shade % SHADES.len()];
    let shade = |c: u8| {
        let c = f64::from(c);
        let v = if f < 0.0 {
            c * (1.0 + f)
        } else {
            c + (255.0 - c) * f
        };
        v.round().clamp(0.0, 255.0) as u8
    };
    RGBColor(shade(r), shade(g), shade(b))
}

/// The colour as CSS `#rrggbb` (legends next to the charts).
pub fn css_color(api: &str, shade: usize) -> String {
    let RGBColor(r, g, b) = color(api, shade);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A value in three significant digits.
pub fn format_rate(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.01 {
        format!("{v:.2}")
    } else {
        format!("{v:.2e}")
    }
}

/// Ticks of a log axis over `[lo, hi]`: 1, 2, 5 × 10ᵏ, or only the powers
/// of ten when that gives too many, at most about ten.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > lo) {
        return Vec::new();
    }
    let (k0, k1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let decades = |mantissas: &[f64]| -> Vec<f64> {
        (k0..=k1)
            .flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k)))
            .filter(|v| (lo..=hi).contains(v))
            .collect()
    };
    let mut ticks = decades(&[1.0, 2.0, 5.0]);
    if ticks.len() > 10 {
        ticks = decades(&[1.0]);
    }
    let step = ticks.len().div_ceil(10).max(1);
    ticks.into_iter().step_by(step).collect()
}

/// An axis tick (5, 10, 0.5, 2.5): no trailing zeros.
fn format_tick(v: f64) -> String {
    if v > 0.0 && v < 0.01 {
        format!("{v:e}")
    } else if v >= 1.0 && v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        let text = format_rate(v);
        if text.contains('.') && !text.contains('e') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    }
}

fn host_timed(r: &BenchResult) -> bool {
    r.clock == Some(Clock::Host)
}

/// The first line of `text` cut to `max` characters (with an ellipsis).
fn truncate(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() <= max {
        line.to_string()
    } else {
        let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// Ops present, in the order of the op list, then any others as first seen.
fn ops_in(series: &[Series<'_>]) -> Vec<String> {
    let all = || series.iter().flat_map(|s| s.results.iter());
    let mut ops: Vec<String> = rosetta_kernels::ops()
        .iter()
        .map(|o| o.name())
        .filter(|op| all().any(|r| r.op == *op))
        .map(String::from)
        .collect();
    for r in all() {
        if !ops.contains(&r.op) {
            ops.push(r.op.clone());
        }
    }
    ops
}

const METRICS: [Metric; 3] = [Metric::Bandwidth, Metric::Flops, Metric::Time];

/// The series' headline result of `op` in `metric`: its largest such
/// workload (most elements, then most bytes), whatever its status.
pub fn headline<'a>(s: &Series<'a>, op: &str, metric: Metric) -> Option<&'a BenchResult> {
    s.results
        .iter()
        .copied()
        .filter(|r| r.op == op && r.metric == metric)
        .max_by_key(|r| (r.elements, r.bytes))
}

/// The series' copy bandwidth (GB/s) and whether it was host-timed.
pub fn copy_bandwidth(s: &Series<'_>) -> Option<(f64, bool)> {
    let r = headline(s, copy_op(), Metric::Bandwidth)?;
    value(Metric::Bandwidth, r).map(|v| (v, host_timed(r)))
}

type DrawResult<T> = Result<T, String>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

const FONT: &str = "sans-serif";
const INK: RGBColor = RGBColor(0x22, 0x22, 0x22);
const MUTED: RGBColor = RGBColor(0x66, 0x66, 0x66);
const FAIL: RGBColor = RGBColor(0xc6, 0x28, 0x28);
const GRID: RGBColor = RGBColor(0xe4, 0xe4, 0xe4);
const RULE: RGBColor = RGBColor(0xb0, 0xb4, 0xba);

/// Font sizes as plotters takes them (its SVG backend writes size / 1.24).
const TITLE_SIZE: f64 = 19.0;
const LABEL_SIZE: f64 = 15.0;
const SMALL_SIZE: f64 = 13.5;

fn style(size: f64, color: &RGBColor, h: HPos, v: VPos) -> TextStyle<'_> {
    TextStyle::from((FONT, size).into_font())
        .color(color)
        .pos(Pos::new(h, v))
}

/// Rough text width in pixels at `size` (plotters' own SVG estimate).
fn text_width(text: &str, size: f64) -> i32 {
    (text.chars().count() as f64 * size / 1.24 * 0.58).ceil() as i32
}

/// One bar chart per op and metric (see the module docs).
pub fn bar_charts(series: &[Series<'_>]) -> Vec<Chart> {
    let mut charts = Vec::new();
    for op in ops_in(series) {
        for metric in METRICS {
            let rows: Vec<Bar<'_, '_>> = series
                .iter()
                .filter_map(|s| {
                    let result = headline(s, &op, metric)?;
                    Some(Bar {
                        series: s,
                        result,
                        value: value(metric, result),
                    })
                })
                .collect();
            if rows.is_empty() {
                continue;
            }
            let title = format!(
                "{op} — {} (largest such workload per device)",
                metric_title(metric)
            );
            let svg = bar_chart(&rows, metric, &title).unwrap_or_else(|e| fallback_svg(&title, &e));
            charts.push(Chart { title, svg });
        }
    }
    charts
}

/// A row of a bar chart.
struct Bar<'s, 'a> {
    series: &'s Series<'a>,
    result: &'a BenchResult,
    value: Option<f64>,
}

const BAR_WIDTH: u32 = 680;
const ROW_HEIGHT: u32 = 38;

fn bar_chart(rows: &[Bar<'_, '_>], metric: Metric, title: &str) -> DrawResult<String> {
    let n = rows.len();
    let max = rows.iter().filter_map(|r| r.value).fold(0.0f64, f64::max);
    let sc = scale(metric, max);
    let max = max * sc.factor;
    let x_max = if max > 0.0 && max.is_finite() {
        max * 1.04
    } else {
        1.0
    };
    let label_width = rows
        .iter()
        .map(|r| {
            text_width(&truncate(&r.series.label, 30), LABEL_SIZE)
                .max(text_width(&truncate(&r.result.label, 30), SMALL_SIZE))
        })
        .max()
        .unwrap_or(60)
        .clamp(60, 240) as u32
        + 14;
    let height = 48 + ROW_HEIGHT * n as u32 + 46;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (BAR_WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, TITLE_SIZE).into_font().color(&INK))
            .margin(10)
            .margin_right(18)
            .x_label_area_size(40)
            .y_label_area_size(label_width)
            .build_cartesian_2d(0f64..x_max, 0f64..n as f64)
            .map_err(err)?;
        let unit = sc.unit;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(6)
            .x_desc(unit)
            .x_label_formatter(&|v| format_tick(*v))
            .light_line_style(TRANSPARENT)
            .bold_line_style(GRID)
            .axis_style(MUTED)
            .label_style((FONT, SMALL_SIZE).into_font().color(&MUTED))
            .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .draw()
            .map_err(err)?;

        for (i, row) in rows.iter().enumerate() {
            // First series on top.
            let y = (n - 1 - i) as f64 + 0.5;
            if i > 0 && rows[i - 1].series.group != row.series.group {
                // A rule between physical devices.
                let edge = (n - i) as f64;
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(0.0, edge), (x_max, edge)],
                        RULE.stroke_width(1),
                    )))
                    .map_err(err)?;
            }
            let color = color(&row.series.api, row.series.shade);
            let host = host_timed(row.result);
            let (left, y_px) = chart.backend_coord(&(0.0, y));
            root.draw(&Text::new(
                truncate(&row.series.label, 30),
                (left - 8, y_px - 8),
                style(LABEL_SIZE, &INK, HPos::Right, VPos::Center),
            ))
            .map_err(err)?;
            root.draw(&Text::new(
                truncate(&row.result.label, 30),
                (left - 8, y_px + 9),
                style(SMALL_SIZE, &MUTED, HPos::Right, VPos::Center),
            ))
            .map_err(err)?;
            let Some(v) = row.value.map(|v| v * sc.factor).filter(|v| v.is_finite()) else {
                let why = match row.result.status {
                    Status::Ok => "no time measured".to_string(),
                    Status::Wrong => format!(
                        "WRONG — {}",
                        row.result.detail.trim_start_matches("wrong result: ")
                    ),
                    Status::Error => format!("ERROR — {}", row.result.detail),
                };
                root.draw(&Text::new(
                    truncate(&why, 70),
                    (left + 6, y_px),
                    style(SMALL_SIZE, &FAIL, HPos::Left, VPos::Center),
                ))
                .map_err(err)?;
                continue;
            };
            let (y0, y1) = (y - 0.3, y + 0.3);
            // At least a sliver, so a slow device's bar is still seen.
            let drawn = v.clamp(x_max * 0.004, x_max);
            let fill = if host {
                color.mix(0.3).filled()
            } else {
                color.filled()
            };
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y0), (drawn, y1)],
                    fill,
                )))
                .map_err(err)?;
            if host {
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(0.0, y0), (drawn, y1)],
                        color.stroke_width(1),
                    )))
                    .map_err(err)?;
            }
            let shown = match metric {
                Metric::Time => format_seconds(v / sc.factor),
                _ => format!("{} {unit}", format_rate(v)),
            };
            let text = if host {
                format!("{shown} (host clock)")
            } else {
                shown
            };
            let (right, _) = chart.backend_coord(&(drawn, y));
            let (plot_right, _) = chart.backend_coord(&(x_max, y));
            let fits_outside = right + 6 + text_width(&text, LABEL_SIZE) <= plot_right;
            let (x, anchor, ink) = if fits_outside {
                (right + 5, HPos::Left, INK)
            } else if host {
                (right - 5, HPos::Right, INK)
            } else {
                (right - 5, HPos::Right, WHITE)
            };
            root.draw(&Text::new(
                text,
                (x, y_px),
                style(LABEL_SIZE, &ink, anchor, VPos::Center),
            ))
            .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// A workload series measured at several sizes on at least one device.
struct Sized {
    op: String,
    series: String,
    metric: Metric,
}

/// Distinct sizes of `op`/`series` in `metric` with a value, on one device.
fn sizes(s: &Series<'_>, op: &str, name: &str, metric: Metric) -> usize {
    let mut sizes: Vec<u64> = s
        .results
        .iter()
        .filter(|r| r.op == op && r.series == name && r.metric == metric && r.elements > 0)
        .filter(|r| value(metric, r).is_some())
        .map(|r| r.elements)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes.len()
}

fn sized_series(series: &[Series<'_>]) -> Vec<Sized> {
    let mut found: Vec<Sized> = Vec::new();
    let mut tried: Vec<(String, String, Metric)> = Vec::new();
    for op in ops_in(series) {
        if op == copy_op() {
            continue;
        }
        for r in series.iter().flat_map(|s| s.results.iter()) {
            if r.op != op {
                continue;
            }
            let key = (r.op.clone(), r.series.clone(), r.metric);
            if tried.contains(&key) {
                continue;
            }
            tried.push(key);
            // Several sizes on one device (not one size each on several).
            if series
                .iter()
                .any(|s| sizes(s, &r.op, &r.series, r.metric) >= 2)
            {
                found.push(Sized {
                    op: r.op.clone(),
                    series: r.series.clone(),
                    metric: r.metric,
                });
            }
        }
    }
    found
}

/// One line chart per workload series with two or more sizes (see the
/// module docs).
pub fn size_charts(series: &[Series<'_>]) -> Vec<Chart> {
    sized_series(series)
        .into_iter()
        .map(|s| {
            let title = format!(
                "{} {} — {} against size",
                s.op,
                s.series,
                metric_title(s.metric)
            );
            let svg = line_chart(series, &s, &title).unwrap_or_else(|e| fallback_svg(&title, &e));
            Chart { title, svg }
        })
        .collect()
}

/// One series' line.
struct Line<'s> {
    label: &'s str,
    name: &'s str,
    api: &'s str,
    shade: usize,
    host: bool,
    points: Vec<(f64, f64)>,
    copy: Option<(f64, bool)>,
}

const LINE_WIDTH: u32 = 1000;
const LINE_HEIGHT: u32 = 430;
const LEGEND_WIDTH: u32 = 330;

/// A log₂ label: 2 with a superscript exponent (empty off the integers).
fn pow2_label(log2: f64) -> String {
    if !log2.is_finite() || (log2 - log2.round()).abs() > 1e-6 {
        return String::new();
    }
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let k = log2.round() as i64;
    let mut s = String::from("2");
    if k < 0 {
        s.push('⁻');
    }
    for d in k.unsigned_abs().to_string().bytes() {
        s.push(SUP[usize::from(d - b'0')]);
    }
    s
}

fn line_chart(series: &[Series<'_>], s: &Sized, title: &str) -> DrawResult<String> {
    let in_series = |r: &BenchResult| r.op == s.op && r.series == s.series && r.metric == s.metric;
    let raw_max = series
        .iter()
        .flat_map(|x| x.results.iter().filter(|r| in_series(r)))
        .filter_map(|r| value(s.metric, r))
        .fold(0.0f64, f64::max);
    let sc = scale(s.metric, raw_max);
    let lines: Vec<Line<'_>> = series
        .iter()
        .filter(|x| x.results.iter().any(|r| in_series(r)))
        .map(|x| {
            let mut points: Vec<(f64, f64)> = x
                .results
                .iter()
                .filter(|r| in_series(r) && r.elements > 0)
                .filter_map(|r| Some(((r.elements as f64).log2(), value(s.metric, r)? * sc.factor)))
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Line {
                label: &x.label,
                name: &x.name,
                api: &x.api,
                shade: x.shade,
                host: x
                    .results
                    .iter()
                    .filter(|r| in_series(r))
                    .any(|r| r.status == Status::Ok && host_timed(r)),
                points,
                copy: if s.metric == Metric::Bandwidth {
                    copy_bandwidth(x)
                } else {
                    None
                },
            }
        })
        .collect();
    let xs = || lines.iter().flat_map(|l| l.points.iter().map(|p| p.0));
    let (Some(x_lo), Some(x_hi)) = (xs().reduce(f64::min), xs().reduce(f64::max)) else {
        return Ok(fallback_svg(title, "no results"));
    };
    let ys = || {
        lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1).chain(l.copy.map(|c| c.0)))
    };
    let y_max = ys().fold(0.0f64, f64::max);
    let y_min = ys().fold(f64::INFINITY, f64::min);
    // Devices that differ by orders of magnitude (a GPU next to lavapipe)
    // share a log axis; otherwise the axis is linear from zero.
    let log_y = y_min > 0.0 && y_max / y_min > 30.0;
    let (x_lo, x_hi) = (x_lo.floor() - 0.4, x_hi.ceil() + 0.4);
    let height = LINE_HEIGHT.max(80 + 43 * lines.len().min(40) as u32);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (LINE_WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend) = root.split_horizontally(LINE_WIDTH - LEGEND_WIDTH);
        let mut builder = ChartBuilder::on(&plot);
        builder
            .caption(title, (FONT, TITLE_SIZE).into_font().color(&INK))
            .margin(10)
            .x_label_area_size(44)
            .y_label_area_size(64);
        let plot = Plot {
            lines: &lines,
            x: (x_lo, x_hi),
            unit: sc.unit,
            log_y,
        };
        if log_y {
            let y = (y_min / 1.6)..(y_max * 1.6);
            let ticks = log_ticks(y.start, y.end);
            plot.draw(
                builder
                    .build_cartesian_2d(x_lo..x_hi, y.log_scale().with_key_points(ticks))
                    .map_err(err)?,
            )?;
        } else {
            let y = 0.0..if y_max > 0.0 { y_max * 1.08 } else { 1.0 };
            plot.draw(builder.build_cartesian_2d(x_lo..x_hi, y).map_err(err)?)?;
        }

        // The legend, beside the plot so it never hides a line.
        let mut y = 44;
        legend
            .draw(&Text::new(
                if s.metric == Metric::Bandwidth {
                    "device (dashed: copy bandwidth)"
                } else {
                    "device"
                }
                .to_string(),
                (8, y),
                style(SMALL_SIZE, &MUTED, HPos::Left, VPos::Center),
            ))
            .map_err(err)?;
        y += 24;
        for (i, line) in lines.iter().enumerate() {
            let color = color(line.api, line.shade);
            legend
                .draw(&PathElement::new(
                    vec![(8, y), (36, y)],
                    color.stroke_width(2),
                ))
                .map_err(err)?;
            legend
                .draw(&(EmptyElement::at((22, y)) + Polygon::new(marker_shape(i), color.filled())))
                .map_err(err)?;
            let host = if line.host { " (host clock)" } else { "" };
            legend
                .draw(&Text::new(
                    format!("{}{host}", truncate(line.label, 34)),
                    (44, y),
                    style(LABEL_SIZE, &INK, HPos::Left, VPos::Center),
                ))
                .map_err(err)?;
            y += 17;
            let note = match line.copy {
                Some((c, host)) => format!(
                    "{} · copy {} GB/s{}",
                    truncate(line.name, 22),
                    format_rate(c),
                    if host { " (host)" } else { "" }
                ),
                None if s.metric == Metric::Bandwidth => {
                    format!("{} · no copy figure", truncate(line.name, 22))
                }
                None => truncate(line.name, 44),
            };
            legend
                .draw(&Text::new(
                    note,
                    (44, y),
                    style(SMALL_SIZE, &MUTED, HPos::Left, VPos::Center),
                ))
                .map_err(err)?;
            y += 26;
            if y > height as i32 - 20 && i + 1 < lines.len() {
                legend
                    .draw(&Text::new(
                        format!("… and {} more", lines.len() - i - 1),
                        (8, y),
                        style(SMALL_SIZE, &MUTED, HPos::Left, VPos::Center),
                    ))
                    .map_err(err)?;
                break;
            }
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The plot part of a line chart, drawn the same on a linear or a log y axis.
struct Plot<'a> {
    lines: &'a [Line<'a>],
    x: (f64, f64),
    unit: &'static str,
    log_y: bool,
}

impl Plot<'_> {
    fn draw<DB, Y>(
        &self,
        mut chart: ChartContext<'_, DB, Cartesian2d<RangedCoordf64, Y>>,
    ) -> DrawResult<()>
    where
        DB: DrawingBackend,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let y_desc = if self.log_y {
            format!("{} (log scale)", self.unit)
        } else {
            self.unit.to_string()
        };
        chart
            .configure_mesh()
            .x_labels(14)
            .y_labels(8)
            .x_desc("elements of the main input (log₂ scale)")
            .y_desc(y_desc)
            .x_label_formatter(&|v| pow2_label(*v))
            .y_label_formatter(&|v| format_tick(*v))
            .light_line_style(TRANSPARENT)
            .bold_line_style(GRID)
            .axis_style(MUTED)
            .label_style((FONT, SMALL_SIZE).into_font().color(&MUTED))
            .axis_desc_style((FONT, LABEL_SIZE).into_font().color(&INK))
            .draw()
            .map_err(err)?;
        let (x_lo, x_hi) = self.x;
        for (i, line) in self.lines.iter().enumerate() {
            let color = color(line.api, line.shade);
            if let Some((copy, _)) = line.copy {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(x_lo, copy), (x_hi, copy)],
                        6,
                        4,
                        color.mix(0.75).stroke_width(1),
                    ))
                    .map_err(err)?;
            }
            let stroke = if line.host {
                color.mix(0.55).stroke_width(2)
            } else {
                color.stroke_width(2)
            };
            chart
                .draw_series(LineSeries::new(line.points.iter().copied(), stroke))
                .map_err(err)?;
            chart
                .draw_series(
                    line.points.iter().map(|&p| {
                        EmptyElement::at(p) + Polygon::new(marker_shape(i), color.filled())
                    }),
                )
                .map_err(err)?;
        }
        Ok(())
    }
}

/// A marker's outline in pixels around its point; the shape cycles with the
/// line's position (circle, triangle, square, diamond), so lines of one
/// colour stay apart. One element type for every shape (a polygon), which
/// plotters' series need.
fn marker_shape(i: usize) -> Vec<(i32, i32)> {
    match i % 4 {
        0 => vec![
            (-2, -5),
            (2, -5),
            (5, -2),
            (5, 2),
            (2, 5),
            (-2, 5),
            (-5, 2),
            (-5, -2),
        ],
        1 => vec![(0, -6), (6, 5), (-6, 5)],
        2 => vec![(-4, -4), (4, -4), (4, 4), (-4, 4)],
        _ => vec![(0, -6), (6, 0), (0, 6), (-6, 0)],
    }
}

/// A small SVG with the title and a note, where a chart has nothing to draw
/// (or could not be drawn).
fn fallback_svg(title: &str, note: &str) -> String {
    let esc = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    format!(
        "<svg width=\"640\" height=\"80\" viewBox=\"0 0 640 80\" xmlns=\"http://www.w3.org/2000/svg\">\
         <rect width=\"640\" height=\"80\" fill=\"#fff\"/>\
         <text x=\"320\" y=\"28\" text-anchor=\"middle\" font-family=\"sans-serif\" font-size=\"15\">{}</text>\
         <text x=\"320\" y=\"56\" text-anchor=\"middle\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#666\">{}</text></svg>",
        esc(title),
        esc(note)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Stats;

    fn result(
        device: &str,
        op: &str,
        series: &str,
        log2: u32,
        v: f64,
        metric: Metric,
    ) -> BenchResult {
        let api = device.split(':').next().unwrap_or("cpu").to_string();
        let t = Stats {
            median_s: 1e-3,
            min_s: 1e-3,
            p90_s: 1e-3,
            spread: 0.0,
        };
        BenchResult {
            device: device.into(),
            device_name: format!("{api} device"),
            api,
            op: op.into(),
            label: format!("{series} n=2^{log2}"),
            series: series.into(),
            metric,
            elements: 1u64 << log2,
            bytes: 4u64 << log2,
            flops: (metric == Metric::Flops).then_some(2u64 << log2),
            variant: "tiled".into(),
            tuned: false,
            status: Status::Ok,
            detail: String::new(),
            clock: Some(Clock::Device),
            samples: 10,
            device_time: Some(Stats {
                median_s: if metric == Metric::Time { v } else { 1e-3 },
                ..t
            }),
            host_time: Some(t),
            gbps: Some(v),
            gflops: Some(v / 2.0),
            copy_fraction: None,
        }
    }

    fn series(results: &[BenchResult]) -> Vec<Series<'_>> {
        let mut out: Vec<Series<'_>> = Vec::new();
        for r in results {
            match out.iter_mut().find(|s| s.label == r.device) {
                Some(s) => s.results.push(r),
                None => {
                    let shade = out.iter().filter(|s| s.api == r.api).count();
                    out.push(Series {
                        label: r.device.clone(),
                        name: r.device_name.clone(),
                        api: r.api.clone(),
                        shade,
                        group: out.len() / 2,
                        results: vec![r],
                    })
                }
            }
        }
        out
    }

    #[test]
    fn empty_input_has_no_charts() {
        assert!(bar_charts(&[]).is_empty());
        assert!(size_charts(&[]).is_empty());
    }

    #[test]
    fn charts_follow_each_results_metric() {
        let mut results = Vec::new();
        for device in [
            "cuda:0", "vulkan:0", "vulkan:1", "opencl:1", "wgpu:0", "cpu:0", "opencl:0", "wgpu:1",
        ] {
            results.push(result(device, "copy", "copy", 26, 900.0, Metric::Bandwidth));
            for log2 in (16..=22).step_by(2) {
                let t = 1e-5 * f64::from(log2);
                results.push(result(device, "reduce", "sum f32", log2, t, Metric::Time));
            }
            for log2 in [24, 26] {
                let v = 30.0 * f64::from(log2);
                results.push(result(
                    device,
                    "reduce",
                    "sum f32",
                    log2,
                    v,
                    Metric::Bandwidth,
                ));
            }
            results.push(result(
                device,
                "matmul",
                "square",
                20,
                1000.0,
                Metric::Flops,
            ));
        }
        results[1].clock = Some(Clock::Host);
        results[2].status = Status::Wrong;
        results[2].detail = "got 1 <expected> 2 & more".into();
        let s = series(&results);
        let bars = bar_charts(&s);
        let titles: Vec<&str> = bars.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(bars.len(), 4, "{titles:?}");
        assert!(bars.iter().all(|c| c.svg.starts_with("<svg")));
        assert!(titles[1].starts_with("reduce — GB/s"), "{titles:?}");
        assert!(titles[2].starts_with("reduce — median time"), "{titles:?}");
        assert!(titles[3].contains("GFLOP/s"));
        assert!(bars[1].svg.contains("cuda:0") && bars[1].svg.contains("wgpu:1"));
        assert!(bars[2].svg.contains("µs"), "reduce times are microseconds");
        assert!(
            bars[2].svg.contains("220.0 µs"),
            "time bars are labelled as times"
        );
        let lines = size_charts(&s);
        assert_eq!(lines.len(), 2, "the reduce sweep in time and in GB/s");
        assert!(lines.iter().any(|c| c.svg.contains("copy 900 GB/s")));
        assert!(lines[1].svg.contains("2²⁴") || lines[0].svg.contains("2²⁴"));
    }

    #[test]
    fn failed_headline_is_written_not_drawn() {
        let mut r = result("cpu:0", "histogram", "256 bins", 20, 1.0, Metric::Bandwidth);
        r.status = Status::Error;
        r.detail = "device lost".into();
        r.gbps = None;
        let results = [r];
        let charts = bar_charts(&series(&results));
        assert!(charts[0].svg.contains("ERROR — device lost"));
    }

    #[test]
    fn odd_numbers_do_not_panic() {
        let mut results = Vec::new();
        for (i, v) in [
            f64::NAN,
            f64::INFINITY,
            0.0,
            -1.0,
            1e-30,
            1e30,
            f64::MIN_POSITIVE,
        ]
        .into_iter()
        .enumerate()
        {
            let device = format!("cpu:{i}");
            for metric in METRICS {
                results.push(result(&device, "copy", "copy", 20, v, metric));
                results.push(result(&device, "reduce", "sum f32", 16, v, metric));
                results.push(result(&device, "reduce", "sum f32", 18, v, metric));
            }
        }
        results.push(result("cpu:9", "reduce", "sum f32", 0, 1.0, Metric::Time));
        results.push(result("cpu:9", "reduce", "sum f32", 63, 1.0, Metric::Time));
        results.push(result(
            "cpu:9",
            "conv2d",
            "filter 5x5",
            20,
            1.0,
            Metric::Flops,
        ));
        let mut odd = result("", "", "", 1, 1.0, Metric::Bandwidth);
        odd.label = "x".repeat(500);
        odd.device_name = "<&>\"".into();
        results.push(odd);
        let s = series(&results);
        for chart in bar_charts(&s).into_iter().chain(size_charts(&s)) {
            assert!(chart.svg.contains("<svg"), "{}", chart.title);
            assert!(!chart.svg.contains("<&>"), "text is escaped");
        }
    }

    #[test]
    fn labels_and_scales() {
        assert_eq!(pow2_label(16.0), "2¹⁶");
        assert_eq!(pow2_label(16.5), "");
        assert_eq!(pow2_label(f64::NAN), "");
        assert_eq!(format_rate(4187.3), "4187");
        assert_eq!(format_rate(12.34), "12.3");
        assert_eq!(format_rate(0.5), "0.50");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(format_tick(1000.0), "1000");
        assert_eq!(format_tick(0.1), "0.1");
        assert_eq!(format_tick(0.001), "1e-3");
        assert_eq!(log_ticks(0.6, 60.0), vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0]);
        assert!(log_ticks(1e-30, 1e30).len() <= 10);
        assert!(log_ticks(f64::NAN, 1.0).is_empty());
        assert_eq!(scale(Metric::Time, 5e-5).unit, "µs");
        assert_eq!(scale(Metric::Time, 0.2).unit, "ms");
        assert_eq!(scale(Metric::Time, f64::NAN).unit, "s");
        assert_eq!(scale(Metric::Flops, 1.0).unit, "GFLOP/s");
        assert_ne!(color("vulkan", 0), color("vulkan", 1));
    }
}
