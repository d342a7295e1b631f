//! What a benchmark run produces (the JSON of `docs/bench-json.md`).

use crate::error::{Error, Result};
use crate::machine::Machine;
use rosetta_core::{Clock, DeviceInfo};
use rosetta_kernels::op::Metric;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The JSON schema id of [`BenchReport`].
pub const SCHEMA: &str = "rosetta-bench/2";

/// Order statistics of a set of samples, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Median.
    pub median_s: f64,
    /// Fastest.
    pub min_s: f64,
    /// 90th percentile.
    pub p90_s: f64,
    /// (p90 − min) / median: how much the samples vary.
    pub spread: f64,
}

impl Stats {
    /// Statistics of `samples` (`None` when empty).
    pub fn from_samples(samples: &[Duration]) -> Option<Stats> {
        if samples.is_empty() {
            return None;
        }
        let mut s: Vec<f64> = samples.iter().map(Duration::as_secs_f64).collect();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            (s[n / 2 - 1] + s[n / 2]) / 2.0
        };
        let p90 = s[((n as f64 * 0.9).ceil() as usize).clamp(1, n) - 1];
        Some(Stats {
            median_s: median,
            min_s: s[0],
            p90_s: p90,
            spread: if median > 0.0 {
                (p90 - s[0]) / median
            } else {
                0.0
            },
        })
    }
}

/// How a workload ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Timed, and the result matched the reference.
    Ok,
    /// Ran, but the result was wrong: no time is reported.
    Wrong,
    /// Could not run on this device (the error is in `detail`).
    Error,
}

/// One workload on one device.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchResult {
    /// `api:index`.
    pub device: String,
    /// The device's name.
    pub device_name: String,
    /// The API.
    pub api: String,
    /// The op.
    pub op: String,
    /// The workload's label.
    pub label: String,
    /// The chart series.
    pub series: String,
    /// What the chart shows.
    pub metric: Metric,
    /// Elements of the main input.
    pub elements: u64,
    /// The least bytes moved.
    pub bytes: u64,
    /// Floating-point operations, where meaningful.
    pub flops: Option<u64>,
    /// The plan's variant that ran.
    #[serde(default)]
    pub variant: String,
    /// Whether the variant came from the tuning cache.
    #[serde(default)]
    pub tuned: bool,
    /// How it ended.
    pub status: Status,
    /// Why it failed.
    pub detail: String,
    /// Which clock `device_time` came from.
    pub clock: Option<Clock>,
    /// Samples taken.
    pub samples: usize,
    /// The API's own timer (or the host clock where the device has none).
    pub device_time: Option<Stats>,
    /// Host wall clock around each sample (end to end).
    pub host_time: Option<Stats>,
    /// `bytes` / median device time, in GB/s.
    pub gbps: Option<f64>,
    /// `flops` / median device time, in GFLOP/s.
    pub gflops: Option<f64>,
    /// `gbps` as a fraction of this device's copy bandwidth through the same API.
    pub copy_fraction: Option<f64>,
}

/// A whole benchmark run (JSON schema [`SCHEMA`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchReport {
    /// [`SCHEMA`].
    pub schema: String,
    /// Where the run happened.
    pub machine: Machine,
    /// The size preset.
    pub size: String,
    /// The devices.
    pub devices: Vec<DeviceInfo>,
    /// One per (device, workload).
    pub results: Vec<BenchResult>,
}

/// The least time a result may hold: nothing is measured below a
/// picosecond, and ratios of such times overflow (5e-324 s made a
/// comparison print `infx`).
pub const MIN_TIME_S: f64 = 1e-12;

/// The most time a result may hold: a day per sample is past anything the
/// benchmark measures, and times and spreads near f64's range made a
/// comparison's noise threshold infinite (`threshold inf%`).
pub const MAX_TIME_S: f64 = 86_400.0;

/// The largest relative spread a result may hold (10^6 %).
pub const MAX_SPREAD: f64 = 1e4;

/// Check that `report` can be compared or merged: its schema id is the one
/// this build writes ([`SCHEMA`]), every `ok` result has a device time, and
/// every time a result holds (device or host; median, min, p90) is from
/// [`MIN_TIME_S`] to [`MAX_TIME_S`] with min ≤ median ≤ p90, every spread
/// from 0 to [`MAX_SPREAD`]; its devices are listed once each, and every
/// result names one of them. The error is the reason, e.g. `schema is
/// 'rosetta-bench/2', not 'rosetta-bench/1'`.
pub fn validate(report: &BenchReport) -> Result<(), String> {
    if report.schema != SCHEMA {
        return Err(format!(
            "schema is '{}', not '{SCHEMA}' (the schema this build reads and writes)",
            report.schema.escape_debug()
        ));
    }
    let mut ids = std::collections::HashSet::new();
    for id in report.devices.iter().map(DeviceInfo::id) {
        if !ids.insert(id.clone()) {
            return Err(format!("device {} is listed twice", id.escape_debug()));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for r in &report.results {
        let what = || {
            format!(
                "result '{}' on {}",
                r.label.escape_debug(),
                r.device.escape_debug()
            )
        };
        // One result per device and workload: with two, which one a
        // comparison took was the order of the file's.
        if !seen.insert((r.device.as_str(), r.label.as_str())) {
            return Err(format!("{} is listed twice", what()));
        }
        if r.status == Status::Ok && r.device_time.is_none() {
            return Err(format!("{} is ok but has no device_time", what()));
        }
        // Every time given, whatever the status: positive and finite.
        for (clock, stats) in [("device_time", r.device_time), ("host_time", r.host_time)] {
            let Some(t) = stats else { continue };
            for (name, v) in [
                ("median_s", t.median_s),
                ("min_s", t.min_s),
                ("p90_s", t.p90_s),
            ] {
                if !((MIN_TIME_S..=MAX_TIME_S).contains(&v)) {
                    return Err(format!(
                        "{} has {clock}.{name} {v:e}; a time must be at least {MIN_TIME_S:e} s \
                         (1 ps) and at most {MAX_TIME_S} s (a day)",
                        what()
                    ));
                }
            }
            // Order statistics of one set of samples.
            if !(t.min_s <= t.median_s && t.median_s <= t.p90_s) {
                return Err(format!(
                    "{} has {clock} min_s {:e}, median_s {:e} and p90_s {:e}, which are \
                     not in order (min ≤ median ≤ p90)",
                    what(),
                    t.min_s,
                    t.median_s,
                    t.p90_s
                ));
            }
            if !((0.0..=MAX_SPREAD).contains(&t.spread)) {
                return Err(format!(
                    "{} has {clock}.spread {:e}; a spread must be from 0 to {MAX_SPREAD}",
                    what(),
                    t.spread
                ));
            }
        }
        if !ids.contains(&r.device) {
            return Err(format!(
                "result '{}' is for {}, which is not among its devices",
                r.label.escape_debug(),
                r.device.escape_debug()
            ));
        }
    }
    Ok(())
}

impl BenchReport {
    /// Read a report, refusing other schemas and impossible times.
    pub fn from_json(path: &std::path::Path, text: &str) -> Result<Self> {
        let bad = |reason: String| Error::BadFile {
            path: path.to_path_buf(),
            reason,
        };
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        match value.get("schema").and_then(|s| s.as_str()) {
            Some(SCHEMA) => {}
            Some(other) => {
                return Err(bad(format!(
                    "schema '{other}' is not '{SCHEMA}' (re-run the benchmark with this version)"
                )))
            }
            None => return Err(bad("no schema id: not a rosetta benchmark".into())),
        }
        let report: BenchReport = serde_json::from_value(value)
            .map_err(|e| bad(format!("not a {SCHEMA} report: {e}")))?;
        // The same rule `report --merge` applies (one function for both).
        validate(&report).map_err(bad)?;
        Ok(report)
    }
}

// The fixtures live with the report, which is the `cli` feature's.
#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;

    /// Reports written before `Capabilities::device_fence` and `async_copy`
    /// existed still load, with both `false`; later ones keep what the
    /// devices reported.
    #[test]
    fn capabilities_added_later_default_to_false_in_older_reports() {
        let devices = crate::report::fixtures::gpu_machine_devices();
        let report = crate::report::fixtures::bench("gpu", &devices, 1.0);
        let path = std::path::Path::new("bench.json");
        let text = serde_json::to_string(&report).unwrap();
        let again = BenchReport::from_json(path, &text).unwrap();
        let caps = |r: &BenchReport| -> Vec<rosetta_core::Capabilities> {
            r.devices.iter().map(|d| d.caps.clone()).collect()
        };
        assert_eq!(caps(&again), caps(&report));
        assert!(report.devices.iter().any(|d| d.caps.device_fence));
        // The same report as a version without the fields wrote it.
        let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
        for device in value["devices"].as_array_mut().unwrap() {
            let caps = device["caps"].as_object_mut().unwrap();
            assert!(caps.remove("device_fence").is_some());
            assert!(caps.remove("async_copy").is_some());
        }
        let old = BenchReport::from_json(path, &value.to_string()).unwrap();
        assert_eq!(old.devices.len(), report.devices.len());
        assert!(old
            .devices
            .iter()
            .all(|d| !d.caps.device_fence && !d.caps.async_copy));
    }

    /// What `report --merge` refuses, `bench --compare` refuses too (one
    /// rule): results for a device the run does not list, a device listed
    /// twice, and order statistics out of order.
    #[test]
    fn baselines_name_their_devices_and_order_their_times() {
        let devices = crate::report::fixtures::gpu_machine_devices();
        let good = crate::report::fixtures::bench("gpu", &devices, 1.0);
        validate(&good).unwrap();
        let refused = |edit: &dyn Fn(&mut BenchReport)| {
            let mut report = good.clone();
            edit(&mut report);
            validate(&report).unwrap_err()
        };
        let why = refused(&|r| r.devices.clear());
        assert!(why.contains("which is not among its devices"), "{why}");
        let why = refused(&|r| r.results[0].device = "cuda:7".into());
        assert!(
            why.contains("cuda:7, which is not among its devices"),
            "{why}"
        );
        let why = refused(&|r| {
            let first = r.devices[0].clone();
            r.devices.push(first);
        });
        assert!(why.contains("is listed twice"), "{why}");
        let why = refused(&|r| {
            let t = r.results[0].device_time.as_mut().unwrap();
            t.min_s = t.median_s * 2.0;
        });
        assert!(why.contains("not in order"), "{why}");
        let why = refused(&|r| {
            let t = r.results[0].device_time.as_mut().unwrap();
            t.p90_s = t.median_s / 2.0;
        });
        assert!(why.contains("not in order"), "{why}");
    }

    #[test]
    fn stats_of_known_samples() {
        let samples: Vec<Duration> = (1..=10).map(Duration::from_millis).collect();
        let s = Stats::from_samples(&samples).unwrap();
        assert_eq!(s.min_s, 0.001);
        assert!((s.median_s - 0.0055).abs() < 1e-12);
        assert_eq!(s.p90_s, 0.009);
        assert!((s.spread - (0.009 - 0.001) / 0.0055).abs() < 1e-9);
        assert!(Stats::from_samples(&[]).is_none());
    }
}
