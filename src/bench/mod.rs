//! The benchmark: each op's workloads on each device, timed with the API's
//! own timers, every timed result checked against the host reference.
//!
//! Per workload: prepare (upload, compile), one warm-up run outside the
//! timing, then samples until there are at least [`Options::min_samples`] and
//! about [`Options::target_seconds`] have passed, capped at
//! [`Options::max_seconds`]. Each sample is one run between two timestamps
//! (device time) with host wall time around it (end to end, submission and
//! synchronisation included). The output of the last timed run is then
//! checked; a wrong result is a failure, never a time.
//!
//! Devices on different physical devices are benchmarked concurrently; two
//! devices that share one (the same GPU through two APIs, or any two
//! CPU-type devices) never run at the same time, so no timing shares a GPU.
//!
//! The JSON form of [`BenchReport`] is documented in `docs/bench-json.md`.

mod compare;
mod table;

pub use compare::{compare, validate, Change, CompareError, Comparison};
pub use table::{format_seconds, render_table};

use crate::conform::physical_groups;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::machine::Machine;
use rosetta_core::{Clock, DeviceInfo};
use rosetta_kernels::op::{Metric, Size, Workload};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The JSON schema id of [`BenchReport`].
pub const SCHEMA: &str = "rosetta-bench/2";

/// What to run and how long to sample.
#[derive(Debug, Clone)]
pub struct Options {
    /// Size preset.
    pub size: Size,
    /// Ops to run (names; empty: every op). The copy roofline always runs.
    pub ops: Vec<String>,
    /// Least samples per workload.
    pub min_samples: usize,
    /// Time to sample for, per workload.
    pub target_seconds: f64,
    /// Cap on sampling time per workload.
    pub max_seconds: f64,
    /// Cap on samples per workload.
    pub max_samples: usize,
}

impl Options {
    /// Default sampling for a size and op list.
    pub fn new(size: Size, ops: Vec<String>) -> Self {
        Options {
            size,
            ops,
            min_samples: 10,
            target_seconds: 0.5,
            max_seconds: 10.0,
            max_samples: 1000,
        }
    }
}

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
        for r in &report.results {
            if let Some(t) = r.device_time {
                for (what, v) in [("median", t.median_s), ("min", t.min_s), ("p90", t.p90_s)] {
                    if !(v.is_finite() && v > 0.0) {
                        return Err(bad(format!(
                            "{} on {}: {what} time {v} is not a positive finite number",
                            r.label, r.device
                        )));
                    }
                }
            }
        }
        Ok(report)
    }
}

/// Progress of a run, for progress bars.
pub struct Progress<'a> {
    /// Workloads done.
    pub done: usize,
    /// Workloads in all.
    pub total: usize,
    /// The device now running.
    pub device: &'a str,
    /// Its workload.
    pub label: &'a str,
}

/// The workloads of a preset for one device: the copy roofline first, then
/// each selected op's.
pub fn workloads(device: &DeviceInfo, options: &Options) -> Result<Vec<Workload>> {
    let mut list = vec![rosetta_kernels::copy::workload(
        rosetta_kernels::roofline_words(options.size, device),
    )];
    for op in rosetta_kernels::ops() {
        if op.name() == "copy"
            || !(options.ops.is_empty() || options.ops.iter().any(|o| o == op.name()))
        {
            continue;
        }
        list.extend(op.workloads(options.size, device));
    }
    for name in &options.ops {
        if rosetta_kernels::find(name).is_none() {
            return Err(Error::Usage(format!("unknown op '{name}'")));
        }
    }
    Ok(list)
}

/// Benchmark on every device (see the module docs for concurrency).
pub fn run(
    devices: &[Device],
    options: &Options,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<BenchReport> {
    let lists = devices
        .iter()
        .map(|d| workloads(d.info(), options))
        .collect::<Result<Vec<_>>>()?;
    let total = lists.iter().map(Vec::len).sum();
    let done = AtomicUsize::new(0);
    let groups = physical_groups(devices);
    let mut per_device: Vec<Vec<BenchResult>> = vec![Vec::new(); devices.len()];
    let finished: Vec<Vec<(usize, Vec<BenchResult>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = groups
            .iter()
            .map(|group| {
                let (lists, done) = (&lists, &done);
                scope.spawn(move || {
                    group
                        .members
                        .iter()
                        .map(|&i| {
                            (
                                i,
                                run_device(&devices[i], &lists[i], options, done, total, progress),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    for (i, results) in finished.into_iter().flatten() {
        per_device[i] = results;
    }
    Ok(BenchReport {
        schema: SCHEMA.into(),
        machine: Machine::this(),
        size: options.size.name().into(),
        devices: devices.iter().map(|d| d.info().clone()).collect(),
        results: per_device.into_iter().flatten().collect(),
    })
}

fn run_device(
    device: &Device,
    list: &[Workload],
    options: &Options,
    done: &AtomicUsize,
    total: usize,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Vec<BenchResult> {
    let id = device.info().id();
    let mut copy_gbps = None;
    let mut results = Vec::with_capacity(list.len());
    for workload in list {
        progress(Progress {
            done: done.load(Ordering::Relaxed),
            total,
            device: &id,
            label: &workload.label,
        });
        let mut result = run_workload(device, workload, options, None);
        if workload.op == "copy" {
            copy_gbps = result.gbps;
        } else {
            result.copy_fraction = result.gbps.zip(copy_gbps).map(|(g, c)| g / c);
        }
        if result.status != Status::Ok {
            tracing::warn!(device = %id, workload = %workload.label, detail = %result.detail, "benchmark failed");
        }
        results.push(result);
        done.fetch_add(1, Ordering::Relaxed);
    }
    results
}

/// Time one workload on one device (with `variant` forced when given).
pub fn run_workload(
    device: &Device,
    workload: &Workload,
    options: &Options,
    variant: Option<&str>,
) -> BenchResult {
    let info = device.info();
    let mut result = BenchResult {
        device: info.id(),
        device_name: info.name.clone(),
        api: info.api.name().into(),
        op: workload.op.into(),
        label: workload.label.clone(),
        series: workload.series.clone(),
        metric: workload.metric,
        elements: workload.elements,
        bytes: workload.bytes,
        flops: workload.flops,
        variant: String::new(),
        tuned: false,
        status: Status::Error,
        detail: String::new(),
        clock: None,
        samples: 0,
        device_time: None,
        host_time: None,
        gbps: None,
        gflops: None,
        copy_fraction: None,
    };
    match sample(device, workload, options, variant) {
        Err(e) => result.detail = e.chain(),
        Ok(s) => {
            result.variant = s.variant;
            result.tuned = s.tuned;
            match s.wrong {
                Some(why) => {
                    result.status = Status::Wrong;
                    result.detail = format!("wrong result: {why}");
                }
                None => {
                    let device_time = Stats::from_samples(&s.device_times);
                    result.status = Status::Ok;
                    result.clock = Some(s.clock);
                    result.samples = s.device_times.len();
                    result.host_time = Stats::from_samples(&s.host_times);
                    if let Some(t) = device_time.filter(|t| t.median_s > 0.0) {
                        result.gbps = Some(workload.bytes as f64 / t.median_s / 1e9);
                        result.gflops = workload.flops.map(|f| f as f64 / t.median_s / 1e9);
                    }
                    result.device_time = device_time;
                }
            }
        }
    }
    result
}

struct Sampled {
    device_times: Vec<Duration>,
    host_times: Vec<Duration>,
    clock: Clock,
    variant: String,
    tuned: bool,
    wrong: Option<String>,
}

fn sample(
    device: &Device,
    workload: &Workload,
    options: &Options,
    variant: Option<&str>,
) -> crate::Result<Sampled> {
    let backend = device.backend();
    let mut prepared = workload.prepare(backend, variant)?;
    // Warm-up, outside the timing (the plan compiled in `prepare`).
    prepared.run()?;
    backend.finish()?;
    let mut device_times = Vec::new();
    let mut host_times = Vec::new();
    let mut clock = Clock::Device;
    let started = Instant::now();
    loop {
        let host_start = Instant::now();
        let begin = backend.timestamp()?;
        prepared.run()?;
        let end = backend.timestamp()?;
        let (elapsed, used) = backend.elapsed(&begin, &end)?;
        host_times.push(host_start.elapsed());
        device_times.push(elapsed);
        if used == Clock::Host {
            clock = Clock::Host;
        }
        let spent = started.elapsed().as_secs_f64();
        let enough = device_times.len() >= options.min_samples && spent >= options.target_seconds;
        let capped = spent >= options.max_seconds && device_times.len() >= 3;
        if enough || capped || device_times.len() >= options.max_samples {
            break;
        }
    }
    // The output now holds the last timed run's result.
    let wrong = prepared.verify()?;
    Ok(Sampled {
        device_times,
        host_times,
        clock,
        variant: prepared.variant(),
        tuned: prepared.tuned(),
        wrong,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
