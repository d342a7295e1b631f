//! `--compare BASELINE.json`: which results moved by more than they vary.

use super::{BenchReport, BenchResult, Status};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Faster,
    Slower,
    Same,
}

/// One result next to its baseline.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub device: String,
    pub label: String,
    pub baseline_s: f64,
    pub current_s: f64,
    /// current / baseline median time.
    pub ratio: f64,
    /// The larger relative spread of the two, the noise threshold.
    pub threshold: f64,
    pub change: Change,
}

/// Match results by device id, device name and workload label, and flag each
/// whose median moved by more than the larger of the two measured spreads
/// (and at least 1%).
pub fn compare(baseline: &BenchReport, current: &BenchReport) -> Vec<Comparison> {
    let timed = |r: &BenchResult| match (r.status, r.device_time) {
        (Status::Ok, Some(t)) => Some(t),
        _ => None,
    };
    current
        .results
        .iter()
        .filter_map(|cur| {
            let base = baseline.results.iter().find(|b| {
                b.device == cur.device && b.device_name == cur.device_name && b.label == cur.label
            })?;
            let (b, c) = (timed(base)?, timed(cur)?);
            let ratio = c.median_s / b.median_s;
            let threshold = b.spread.max(c.spread).max(0.01);
            let change = if ratio > 1.0 + threshold {
                Change::Slower
            } else if ratio < 1.0 / (1.0 + threshold) {
                Change::Faster
            } else {
                Change::Same
            };
            Some(Comparison {
                device: cur.device.clone(),
                label: cur.label.clone(),
                baseline_s: b.median_s,
                current_s: c.median_s,
                ratio,
                threshold,
                change,
            })
        })
        .collect()
}
