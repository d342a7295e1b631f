//! The benchmark: each op on each device, timed with the API's own timers,
//! every timed result checked against the host reference.
//!
//! Per workload: prepare (upload, compile), one warm-up run outside the
//! timing, then samples until there are at least [`Options::min_samples`] and
//! about [`Options::target_seconds`] have passed, capped at
//! [`Options::max_seconds`]. Each sample is one `encode` between
//! `begin_timer` / `end_timer` (device time) with host wall time around it
//! (end-to-end, submission and synchronisation included). The output of the
//! last timed run is then checked; a wrong result is a failure, never a time.
//!
//! The JSON form of [`BenchReport`] is documented in `docs/bench-json.md`.

mod compare;
mod runners;
mod table;
mod workloads;

pub use compare::{compare, Change, Comparison};
pub use runners::{prepare, Runner};
pub use table::{format_seconds, render_table};
pub use workloads::{workloads, Op, Params, Size, Workload};

use crate::device::Device;
use rosetta_core::{Clock, DeviceInfo, Result};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// How long and how often to sample.
#[derive(Debug, Clone)]
pub struct Options {
    pub size: Size,
    pub ops: Vec<Op>,
    pub min_samples: usize,
    pub target_seconds: f64,
    pub max_seconds: f64,
    pub max_samples: usize,
}

impl Options {
    pub fn new(size: Size, ops: Vec<Op>) -> Self {
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
    pub median_s: f64,
    pub min_s: f64,
    pub p90_s: f64,
    /// (p90 − min) / median: how much the samples vary.
    pub spread: f64,
}

impl Stats {
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
    pub device: String,
    pub device_name: String,
    pub api: String,
    pub op: String,
    pub label: String,
    pub series: String,
    pub elements: u64,
    pub bytes: u64,
    pub flops: Option<u64>,
    pub status: Status,
    pub detail: String,
    /// Which clock `device_time` came from.
    pub clock: Option<Clock>,
    pub samples: usize,
    /// The API's own timer (or the host clock where the device has none).
    pub device_time: Option<Stats>,
    /// Host wall clock around each sample (end to end).
    pub host_time: Option<Stats>,
    /// `bytes` / median device time.
    pub gbps: Option<f64>,
    /// `flops` / median device time.
    pub gflops: Option<f64>,
    /// `gbps` as a fraction of this device's copy bandwidth through the same API.
    pub copy_fraction: Option<f64>,
}

/// A whole benchmark run (JSON schema `rosetta-bench/1`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchReport {
    pub schema: String,
    pub size: String,
    pub devices: Vec<serde_json::Value>,
    pub results: Vec<BenchResult>,
}

pub const SCHEMA: &str = "rosetta-bench/1";

/// Progress of a run, for progress bars.
pub struct Progress<'a> {
    pub done: usize,
    pub total: usize,
    pub device: &'a str,
    pub label: &'a str,
}

/// Benchmark `options.ops` on every device.
pub fn run(
    devices: &[Device],
    options: &Options,
    mut progress: impl FnMut(Progress<'_>),
) -> BenchReport {
    let plans: Vec<(&Device, Vec<Workload>)> = devices
        .iter()
        .map(|d| {
            (
                d,
                workloads(options.size, d.info().caps.device_type, &options.ops),
            )
        })
        .collect();
    let total = plans.iter().map(|(_, w)| w.len()).sum();
    let mut done = 0;
    let mut results = Vec::with_capacity(total);
    for (device, list) in &plans {
        let id = device.info().id();
        let mut copy_gbps = None;
        for workload in list {
            progress(Progress {
                done,
                total,
                device: &id,
                label: &workload.label,
            });
            let mut result = run_workload(device, workload, options);
            if workload.op == Op::Copy {
                copy_gbps = result.gbps;
            } else {
                result.copy_fraction = result.gbps.zip(copy_gbps).map(|(g, c)| g / c);
            }
            if result.status != Status::Ok {
                tracing::warn!(device = %id, workload = %workload.label, detail = %result.detail, "benchmark failed");
            }
            results.push(result);
            done += 1;
        }
    }
    BenchReport {
        schema: SCHEMA.into(),
        size: options.size.name().into(),
        devices: devices.iter().map(|d| device_json(d.info())).collect(),
        results,
    }
}

/// Device info as JSON (kept as a value so reports read back across versions).
pub fn device_json(info: &DeviceInfo) -> serde_json::Value {
    serde_json::to_value(info).unwrap_or(serde_json::Value::Null)
}

fn run_workload(device: &Device, workload: &Workload, options: &Options) -> BenchResult {
    let info = device.info();
    let mut result = BenchResult {
        device: info.id(),
        device_name: info.name.clone(),
        api: info.api.name().into(),
        op: workload.op.name().into(),
        label: workload.label.clone(),
        series: workload.series.clone(),
        elements: workload.elements,
        bytes: workload.bytes,
        flops: workload.flops,
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
    match sample(device, workload, options) {
        Err(e) => result.detail = e.to_string(),
        Ok(Sampled::Wrong(why)) => {
            result.status = Status::Wrong;
            result.detail = format!("wrong result: {why}");
        }
        Ok(Sampled::Timed {
            device_times,
            host_times,
            clock,
        }) => {
            let device_time = Stats::from_samples(&device_times);
            result.status = Status::Ok;
            result.clock = Some(clock);
            result.samples = device_times.len();
            result.host_time = Stats::from_samples(&host_times);
            if let Some(t) = device_time.filter(|t| t.median_s > 0.0) {
                result.gbps = Some(workload.bytes as f64 / t.median_s / 1e9);
                result.gflops = workload.flops.map(|f| f as f64 / t.median_s / 1e9);
            }
            result.device_time = device_time;
        }
    }
    result
}

enum Sampled {
    Timed {
        device_times: Vec<Duration>,
        host_times: Vec<Duration>,
        clock: Clock,
    },
    Wrong(String),
}

fn sample(device: &Device, workload: &Workload, options: &Options) -> Result<Sampled> {
    let backend = device.backend();
    let runner = runners::prepare(device, workload)?;
    // Warm-up, outside the timing (the plan compiled in `prepare`).
    runner.encode()?;
    backend.finish()?;
    let mut device_times = Vec::new();
    let mut host_times = Vec::new();
    let mut clocks = Vec::new();
    let started = Instant::now();
    loop {
        let host_start = Instant::now();
        backend.begin_timer()?;
        runner.encode()?;
        let (elapsed, used) = backend.end_timer()?;
        host_times.push(host_start.elapsed());
        device_times.push(elapsed);
        clocks.push(used);
        let spent = started.elapsed().as_secs_f64();
        let enough = device_times.len() >= options.min_samples && spent >= options.target_seconds;
        let capped = spent >= options.max_seconds && device_times.len() >= 3;
        if enough || capped || device_times.len() >= options.max_samples {
            break;
        }
    }
    // The output now holds the last timed run's result.
    if let Some(why) = runner.verify()? {
        return Ok(Sampled::Wrong(why));
    }
    Ok(Sampled::Timed {
        device_times,
        host_times,
        // Host if any sample fell back to the host clock.
        clock: if clocks.contains(&Clock::Host) {
            Clock::Host
        } else {
            Clock::Device
        },
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
