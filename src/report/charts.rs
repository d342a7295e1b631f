//! The report's charts, drawn with plotters' SVG backend into strings that
//! the HTML page inlines (no scripts, no fonts, no external files: the SVG
//! backend writes `<text>` elements and the browser picks the font).
//!
//! - [`op_charts`]: one horizontal bar chart per op, one bar per device, for
//!   the op's headline workload (the largest of its results on that device):
//!   GB/s for the memory-bound ops, GFLOP/s for convolution and matmul.
//! - [`size_charts`]: one line chart per series measured at two or more
//!   sizes (the reduce sweep), one line per device over a log₂ size axis,
//!   with each device's copy bandwidth as a dashed reference line.
//!
//! Only [`Status::Ok`] results with a finite, positive rate are drawn; a
//! headline that failed is written in red where its bar would be. Results
//! timed with the host clock get a lighter bar and a "host clock" note.
//! Nothing here panics on odd content: empty reports, failed results, NaN or
//! infinite rates all end up as "no data" rather than as a chart error.

use crate::bench::{BenchReport, BenchResult, Status};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use rosetta_core::Clock;
#[cfg(test)]
use rosetta_kernels::op::Metric as WorkloadMetric;

/// One chart: its title (for the page's headings and alt text) and SVG.
#[derive(Debug, Clone)]
pub struct Chart {
    pub title: String,
    pub svg: String,
}

/// What a chart's values are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// GB/s: the least bytes the op must move over the median device time.
    Bandwidth,
    /// GFLOP/s: 2 per multiply-add over the median device time.
    Flops,
}

impl Metric {
    /// The chart metric of a workload's declared metric (latency-bound
    /// workloads are charted by bandwidth too, next to their times).
    pub fn of(metric: rosetta_kernels::op::Metric) -> Metric {
        match metric {
            rosetta_kernels::op::Metric::Flops => Metric::Flops,
            _ => Metric::Bandwidth,
        }
    }

    /// The metric an op's results declare (the first result's).
    pub fn of_op(bench: &BenchReport, op: &str) -> Metric {
        bench
            .results
            .iter()
            .find(|r| r.op == op)
            .map(|r| Metric::of(r.metric))
            .unwrap_or(Metric::Bandwidth)
    }

    /// The unit shown on axes.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Bandwidth => "GB/s",
            Metric::Flops => "GFLOP/s",
        }
    }

    /// The result's rate in this metric, if it is a drawable number.
    pub fn value(self, r: &BenchResult) -> Option<f64> {
        if r.status != Status::Ok {
            return None;
        }
        let v = match self {
            Metric::Bandwidth => r.gbps,
            Metric::Flops => r.gflops,
        }?;
        // Finite, positive and below any real device (1e15 GB/s): axes stay sane.
        (v.is_finite() && v > 0.0 && v < 1e15).then_some(v)
    }
}

/// The order ops appear in: the list of ops (copy, the roofline, first).
fn op_order() -> Vec<&'static str> {
    rosetta_kernels::ops().iter().map(|o| o.name()).collect()
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

/// The colour as CSS `#rrggbb` (for HTML legends next to the charts).
pub fn css_color(api: &str) -> String {
    let RGBColor(r, g, b) = api_color(api);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A rate in three significant digits.
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
    if v >= 1.0 && v.fract() == 0.0 {
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

/// `text` cut to `max` characters (with an ellipsis).
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

/// Device ids in the order they first appear among `results`.
fn device_order<'a>(results: impl IntoIterator<Item = &'a BenchResult>) -> Vec<&'a BenchResult> {
    let mut seen: Vec<&BenchResult> = Vec::new();
    for r in results {
        if !seen.iter().any(|s| s.device == r.device) {
            seen.push(r);
        }
    }
    seen
}

/// Op names present in the report: the known ones in [`OP_ORDER`], then any others.
fn ops_in(bench: &BenchReport) -> Vec<String> {
    let mut ops: Vec<String> = op_order()
        .iter()
        .filter(|op| bench.results.iter().any(|r| r.op == **op))
        .map(|op| op.to_string())
        .collect();
    for r in &bench.results {
        if !ops.contains(&r.op) {
            ops.push(r.op.clone());
        }
    }
    ops
}

/// The op's headline result on a device: its largest workload (most
/// elements, then most bytes), whatever its status.
pub fn headline<'a>(bench: &'a BenchReport, op: &str, device: &str) -> Option<&'a BenchResult> {
    bench
        .results
        .iter()
        .filter(|r| r.op == op && r.device == device)
        .max_by_key(|r| (r.elements, r.bytes))
}

/// The device's copy bandwidth (GB/s) and whether it was host-timed.
pub fn copy_bandwidth(bench: &BenchReport, device: &str) -> Option<(f64, bool)> {
    let r = headline(bench, "copy", device)?;
    Metric::Bandwidth.value(r).map(|v| (v, host_timed(r)))
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

/// One bar chart per op (see the module docs).
pub fn op_charts(bench: &BenchReport) -> Vec<Chart> {
    ops_in(bench)
        .into_iter()
        .map(|op| {
            let metric = Metric::of_op(bench, &op);
            let title = format!("{op} — {} (largest workload per device)", metric.unit());
            let svg =
                bar_chart(bench, &op, metric, &title).unwrap_or_else(|e| fallback_svg(&title, &e));
            Chart { title, svg }
        })
        .collect()
}

/// A row of a bar chart.
struct Bar<'a> {
    device: &'a str,
    api: &'a str,
    result: &'a BenchResult,
    value: Option<f64>,
}

const BAR_WIDTH: u32 = 640;
const ROW_HEIGHT: u32 = 38;

fn bar_chart(bench: &BenchReport, op: &str, metric: Metric, title: &str) -> DrawResult<String> {
    let rows: Vec<Bar<'_>> = device_order(bench.results.iter().filter(|r| r.op == op))
        .into_iter()
        .filter_map(|first| {
            let result = headline(bench, op, &first.device)?;
            Some(Bar {
                device: &first.device,
                api: &first.api,
                result,
                value: metric.value(result),
            })
        })
        .collect();
    if rows.is_empty() {
        return Ok(fallback_svg(title, "no results"));
    }
    let n = rows.len();
    let max = rows.iter().filter_map(|r| r.value).fold(0.0f64, f64::max);
    let x_max = if max > 0.0 { max * 1.04 } else { 1.0 };
    let label_width = rows
        .iter()
        .map(|r| text_width(r.device, LABEL_SIZE).max(text_width(&r.result.label, SMALL_SIZE)))
        .max()
        .unwrap_or(60)
        .clamp(60, 210) as u32
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
        let unit = metric.unit();
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
            // First device on top.
            let y = (n - 1 - i) as f64 + 0.5;
            let color = device_color(bench, row.device, row.api);
            let host = host_timed(row.result);
            let (left, y_px) = chart.backend_coord(&(0.0, y));
            // Device id and workload label, right-aligned left of the axis.
            root.draw(&Text::new(
                row.device.to_string(),
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
            let Some(v) = row.value else {
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
            let drawn = v.max(x_max * 0.004);
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
            let text = if host {
                format!("{} {unit} (host clock)", format_rate(v))
            } else {
                format!("{} {unit}", format_rate(v))
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

/// A series measured at several sizes on at least one device.
struct SizeSeries<'a> {
    op: &'a str,
    series: &'a str,
    metric: Metric,
}

fn sized_series(bench: &BenchReport) -> Vec<SizeSeries<'_>> {
    let mut found: Vec<SizeSeries<'_>> = Vec::new();
    for op in ops_in(bench) {
        let metric = Metric::of_op(bench, &op);
        for r in bench
            .results
            .iter()
            .filter(|r| r.op == op && r.op != "copy")
        {
            if found.iter().any(|s| s.op == r.op && s.series == r.series) {
                continue;
            }
            // Several sizes on one device (not one size each on several).
            let several = device_order(
                bench
                    .results
                    .iter()
                    .filter(|o| o.op == r.op && o.series == r.series),
            )
            .into_iter()
            .any(|d| {
                let mut sizes: Vec<u64> = bench
                    .results
                    .iter()
                    .filter(|o| {
                        o.op == r.op
                            && o.series == r.series
                            && o.device == d.device
                            && metric.value(o).is_some()
                    })
                    .map(|o| o.elements)
                    .filter(|&e| e > 0)
                    .collect();
                sizes.sort_unstable();
                sizes.dedup();
                sizes.len() >= 2
            });
            if several {
                found.push(SizeSeries {
                    op: &r.op,
                    series: &r.series,
                    metric,
                });
            }
        }
    }
    found
}

/// One line chart per series with two or more sizes (see the module docs).
pub fn size_charts(bench: &BenchReport) -> Vec<Chart> {
    sized_series(bench)
        .into_iter()
        .map(|s| {
            let title = format!("{} {} — {} against size", s.op, s.series, s.metric.unit());
            let svg = line_chart(bench, &s, &title).unwrap_or_else(|e| fallback_svg(&title, &e));
            Chart { title, svg }
        })
        .collect()
}

/// One device's line.
struct Line<'a> {
    device: &'a str,
    device_name: &'a str,
    api: &'a str,
    host: bool,
    points: Vec<(f64, f64)>,
    copy: Option<(f64, bool)>,
}

const LINE_WIDTH: u32 = 1000;
const LINE_HEIGHT: u32 = 430;
const LEGEND_WIDTH: u32 = 330;

/// Subscript-free log₂ label: 2 with a superscript exponent.
fn pow2_label(log2: f64) -> String {
    if (log2 - log2.round()).abs() > 1e-6 {
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

fn line_chart(bench: &BenchReport, s: &SizeSeries<'_>, title: &str) -> DrawResult<String> {
    let results: Vec<&BenchResult> = bench
        .results
        .iter()
        .filter(|r| r.op == s.op && r.series == s.series)
        .collect();
    let lines: Vec<Line<'_>> = device_order(results.iter().copied())
        .into_iter()
        .map(|first| {
            let mut points: Vec<(f64, f64)> = results
                .iter()
                .filter(|r| r.device == first.device && r.elements > 0)
                .filter_map(|r| Some(((r.elements as f64).log2(), s.metric.value(r)?)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Line {
                device: &first.device,
                device_name: &first.device_name,
                api: &first.api,
                host: results
                    .iter()
                    .any(|r| r.device == first.device && r.status == Status::Ok && host_timed(r)),
                points,
                copy: if s.metric == Metric::Bandwidth {
                    copy_bandwidth(bench, &first.device)
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

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (LINE_WIDTH, LINE_HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend) = root.split_horizontally(LINE_WIDTH - LEGEND_WIDTH);
        let mut builder = ChartBuilder::on(&plot);
        builder
            .caption(title, (FONT, TITLE_SIZE).into_font().color(&INK))
            .margin(10)
            .x_label_area_size(44)
            .y_label_area_size(64);
        let plot = Plot {
            bench,
            lines: &lines,
            x: (x_lo, x_hi),
            unit: s.metric.unit(),
            // What `elements` counts for the op (see `bench::Workload`).
            x_desc: match s.op {
                "matmul" => "output elements M·N (log₂ scale)",
                "conv2d" => "pixels H·W (log₂ scale)",
                _ => "elements (log₂ scale)",
            },
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
            let color = device_color(bench, line.device, line.api);
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
                    format!("{}{host}", line.device),
                    (44, y),
                    style(LABEL_SIZE, &INK, HPos::Left, VPos::Center),
                ))
                .map_err(err)?;
            y += 17;
            let note = match line.copy {
                Some((c, host)) => format!(
                    "{} · copy {} GB/s{}",
                    truncate(line.device_name, 26),
                    format_rate(c),
                    if host { " (host)" } else { "" }
                ),
                None if s.metric == Metric::Bandwidth => {
                    format!("{} · no copy figure", truncate(line.device_name, 26))
                }
                None => truncate(line.device_name, 44),
            };
            legend
                .draw(&Text::new(
                    note,
                    (44, y),
                    style(SMALL_SIZE, &MUTED, HPos::Left, VPos::Center),
                ))
                .map_err(err)?;
            y += 26;
            if y > LINE_HEIGHT as i32 - 20 && i + 1 < lines.len() {
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
    bench: &'a BenchReport,
    lines: &'a [Line<'a>],
    x: (f64, f64),
    unit: &'static str,
    x_desc: &'static str,
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
            .x_desc(self.x_desc)
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
            let color = device_color(self.bench, line.device, line.api);
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

/// A device's colour: its API's, darker or lighter for each device of the
/// same API before it in the report (so `vulkan:0` and `vulkan:1` stay apart
/// and keep their colours in every chart).
pub fn device_color(bench: &BenchReport, device: &str, api: &str) -> RGBColor {
    let nth = device_order(&bench.results)
        .iter()
        .take_while(|r| r.device != device)
        .filter(|r| r.api == api)
        .count();
    let RGBColor(r, g, b) = api_color(api);
    // As is, then alternately darker and lighter.
    const SHADES: [f64; 6] = [0.0, -0.4, 0.4, -0.65, 0.6, -0.2];
    let f = SHADES[nth % SHADES.len()];
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

/// A marker's outline in pixels around its point; the shape cycles with the
/// device's position (circle, triangle, square, diamond), so lines of one
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
    use crate::bench::{Stats, SCHEMA};

    fn result(device: &str, op: &str, series: &str, log2: u32, gbps: f64) -> BenchResult {
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
            elements: 1 << log2,
            bytes: 4 << log2,
            flops: Metric::of_op(op).eq(&Metric::Flops).then_some(2 << log2),
            status: Status::Ok,
            detail: String::new(),
            clock: Some(Clock::Device),
            samples: 10,
            device_time: Some(t),
            host_time: Some(t),
            gbps: Some(gbps),
            gflops: Some(gbps / 2.0),
            copy_fraction: None,
        }
    }

    fn report(results: Vec<BenchResult>) -> BenchReport {
        BenchReport {
            schema: SCHEMA.into(),
            size: "small".into(),
            devices: Vec::new(),
            results,
        }
    }

    #[test]
    fn empty_report_has_no_charts() {
        let bench = report(Vec::new());
        assert!(op_charts(&bench).is_empty());
        assert!(size_charts(&bench).is_empty());
    }

    #[test]
    fn one_bar_chart_per_op_and_one_line_chart_per_sweep() {
        let mut results = Vec::new();
        for device in [
            "cuda:0", "vulkan:0", "vulkan:1", "opencl:1", "wgpu:0", "cpu:0", "opencl:0", "wgpu:1",
        ] {
            results.push(result(device, "copy", "copy", 26, 900.0));
            for log2 in (16..=26).step_by(2) {
                results.push(result(
                    device,
                    "reduce",
                    "sum f32",
                    log2,
                    30.0 * f64::from(log2),
                ));
            }
            results.push(result(device, "matmul", "square", 20, 1000.0));
        }
        results[1].clock = Some(Clock::Host);
        results[2].status = Status::Wrong;
        results[2].detail = "got 1 <expected> 2 & more".into();
        let bench = report(results);
        let bars = op_charts(&bench);
        assert_eq!(bars.len(), 3);
        assert!(bars.iter().all(|c| c.svg.starts_with("<svg")));
        assert!(bars[1].svg.contains("cuda:0") && bars[1].svg.contains("wgpu:1"));
        assert!(bars[2].title.contains("GFLOP/s"));
        let lines = size_charts(&bench);
        assert_eq!(lines.len(), 1, "only the reduce sweep has several sizes");
        assert!(lines[0].svg.contains("copy 900 GB/s"));
        assert!(lines[0].svg.contains("2¹⁶"));
    }

    #[test]
    fn failed_headline_is_written_not_drawn() {
        let mut r = result("cpu:0", "histogram", "256 bins", 20, 1.0);
        r.status = Status::Error;
        r.detail = "device lost".into();
        r.gbps = None;
        let charts = op_charts(&report(vec![r]));
        assert!(charts[0].svg.contains("ERROR — device lost"));
    }

    #[test]
    fn odd_numbers_do_not_panic() {
        let mut results = Vec::new();
        for (i, v) in [f64::NAN, f64::INFINITY, 0.0, -1.0, 1e-30, 1e30]
            .into_iter()
            .enumerate()
        {
            let device = format!("cpu:{i}");
            results.push(result(&device, "copy", "copy", 20, v));
            results.push(result(&device, "reduce", "sum f32", 16, v));
            results.push(result(&device, "reduce", "sum f32", 18, v));
        }
        results.push(result("cpu:9", "reduce", "sum f32", 0, 1.0));
        results.push(result("cpu:9", "conv2d", "filter 5x5", 20, 1.0));
        let bench = report(results);
        for chart in op_charts(&bench).into_iter().chain(size_charts(&bench)) {
            assert!(chart.svg.contains("<svg"), "{}", chart.title);
        }
    }

    #[test]
    fn labels() {
        assert_eq!(pow2_label(16.0), "2¹⁶");
        assert_eq!(pow2_label(16.5), "");
        assert_eq!(format_rate(4187.3), "4187");
        assert_eq!(format_rate(12.34), "12.3");
        assert_eq!(format_rate(0.5), "0.50");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(format_tick(1000.0), "1000");
        assert_eq!(format_tick(0.1), "0.1");
        assert_eq!(format_tick(5.0), "5");
        assert_eq!(log_ticks(0.6, 60.0), vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0]);
        assert_eq!(log_ticks(1.0, 1e6).len(), 7);
        assert!(log_ticks(1e-30, 1e30).len() <= 10);
        assert!(log_ticks(f64::NAN, 1.0).is_empty());
    }
}
