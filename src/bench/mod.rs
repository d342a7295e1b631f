//! The benchmark: each op's workloads on each device, timed with the API's
//! own timers, every timed result checked against the host reference.
//!
//! Per workload: prepare (upload, compile), warm-up runs outside the timing
//! for [`Options::warmup_seconds`] (a GPU left idle while the host prepared
//! the workload runs at a fraction of its clock until it ramps back: an
//! H100 sat at 345 MHz between workloads and took up to seconds to return to
//! 1980, and the tuner stored a tiling 3× slower than the one it measured
//! slow), then samples until there are at least [`Options::min_samples`] and
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

mod chain;
mod compare;
mod result;
mod table;

pub use compare::{compare, Change, CompareError, Comparison};
pub use result::{
    validate, BenchReport, BenchResult, Stats, Status, MAX_SPREAD, MAX_TIME_S, MIN_TIME_S, SCHEMA,
};
pub use table::{format_seconds, render_table};

use crate::conform::physical_groups;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::machine::Machine;
use rosetta_core::{Clock, DeviceInfo};
use rosetta_kernels::op::{Metric, Size, Workload};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What to run and how long to sample.
#[derive(Debug, Clone)]
pub struct Options {
    /// Size preset.
    pub size: Size,
    /// Ops to run (names; empty: every op). The copy roofline and the
    /// launch floor always run.
    pub ops: Vec<String>,
    /// Shapes of the user's (sides from [`rosetta_kernels::op::parse_shape`])
    /// at which the one op in `ops` runs instead of the preset's shapes;
    /// empty: the preset's. The preset still sizes the copy roofline.
    pub shapes: Vec<Vec<usize>>,
    /// Least samples per workload.
    pub min_samples: usize,
    /// Time to sample for, per workload.
    pub target_seconds: f64,
    /// Cap on sampling time per workload.
    pub max_seconds: f64,
    /// Cap on samples per workload.
    pub max_samples: usize,
    /// Back-to-back warm-up runs before sampling, for at least this long
    /// (and at least one run).
    pub warmup_seconds: f64,
}

impl Options {
    /// Default sampling for a size and op list.
    pub fn new(size: Size, ops: Vec<String>) -> Self {
        Options {
            size,
            ops,
            shapes: Vec::new(),
            min_samples: 10,
            target_seconds: 0.5,
            max_seconds: 10.0,
            max_samples: 1000,
            // The small preset is the quick look (`make run`), not a
            // reference: a shorter warm-up.
            warmup_seconds: if size == Size::Small { 0.02 } else { 0.2 },
        }
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

/// `--op chain`: the op chains (device buffers against host slices), which
/// run with every op when no `--op` is given.
pub const CHAIN: &str = "chain";

/// The name an `--op` selects, as the op spells it (names match whatever
/// their case: `MATMUL` is `matmul`), or [`CHAIN`]; else the message that
/// names them all.
pub fn op_name(name: &str) -> std::result::Result<&'static str, String> {
    if name.eq_ignore_ascii_case(CHAIN) {
        return Ok(CHAIN);
    }
    rosetta_kernels::find_op(name)
        .map(|op| op.name())
        .map_err(|why| format!("{why}, or {CHAIN} for the op chains"))
}

/// The workloads of a preset for one device: the copy roofline and the
/// launch floor first, then each selected op's.
pub fn workloads(device: &DeviceInfo, options: &Options) -> Result<Vec<Workload>> {
    let mut list = vec![
        rosetta_kernels::copy::workload(rosetta_kernels::roofline_words(options.size, device)),
        rosetta_kernels::copy::floor_workload(),
    ];
    // Names match whatever their case, as `rosetta_kernels::find` does.
    let selected = |name: &str| {
        options.ops.is_empty() || options.ops.iter().any(|o| o.eq_ignore_ascii_case(name))
    };
    for name in &options.ops {
        op_name(name).map_err(Error::Usage)?;
    }
    if !options.shapes.is_empty() {
        list.extend(shaped_workloads(device, options)?);
        return Ok(list);
    }
    for op in rosetta_kernels::ops() {
        if op.name() != "copy" && selected(op.name()) {
            list.extend(op.workloads(options.size, device));
        }
    }
    if selected(CHAIN) {
        list.extend(chain::workloads(options.size, device));
    }
    Ok(list)
}

/// The op that shapes of the user's are for: a shape means something to
/// one op only, so `ops` naming none, several or the chains is a usage
/// error.
pub fn shaped_op(ops: &[String]) -> Result<&'static dyn rosetta_kernels::op::Op> {
    match ops {
        [name] if !name.eq_ignore_ascii_case(CHAIN) => {
            rosetta_kernels::find_op(name).map_err(Error::Usage)
        }
        _ => Err(Error::Usage(
            "a shape is one op's: name exactly one --op (not chain) with --shape".into(),
        )),
    }
}

/// The one op of `options.ops` ([`shaped_op`]) at each of `options.shapes`.
fn shaped_workloads(device: &DeviceInfo, options: &Options) -> Result<Vec<Workload>> {
    let op = shaped_op(&options.ops)?;
    let mut list = Vec::new();
    for dims in &options.shapes {
        list.extend(op.shaped_workloads(dims, device)?);
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
                let handle = scope.spawn(move || {
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
                });
                (group, handle)
            })
            .collect();
        // A thread that panicked loses its results: each of its workloads
        // becomes an error, so the run fails rather than report less.
        handles
            .into_iter()
            .map(|(group, h)| {
                h.join().unwrap_or_else(|_| {
                    group
                        .members
                        .iter()
                        .map(|&i| {
                            let lost = |w| {
                                let why = "the benchmark's thread panicked (RUST_LOG=debug)";
                                untimed(devices[i].info(), w, why.into())
                            };
                            (i, lists[i].iter().map(lost).collect())
                        })
                        .collect()
                })
            })
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
            // The roofline, not the launch floor (a time, one word).
            if workload.metric == Metric::Bandwidth {
                copy_gbps = result.gbps;
            }
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
    let mut result = untimed(device.info(), workload, String::new());
    match sample(device, workload, options, variant) {
        Err(e) => result.detail = e.chain(),
        Ok(s) => {
            result.variant = s.variant.clone();
            result.tuned = s.tuned;
            match &s.wrong {
                Some(why) => {
                    result.status = Status::Wrong;
                    result.detail = format!("wrong result: {why}");
                }
                None => timed(&mut result, workload.bytes, workload.flops, &s),
            }
        }
    }
    result
}

/// A result of `workload` with no time: status error, `detail` saying why.
fn untimed(info: &rosetta_core::DeviceInfo, workload: &Workload, detail: String) -> BenchResult {
    BenchResult {
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
        detail,
        clock: None,
        samples: 0,
        device_time: None,
        host_time: None,
        gbps: None,
        gflops: None,
        copy_fraction: None,
    }
}

/// Fill in the times of a checked run. An interval under [`MIN_TIME_S`]
/// is a timer's glitch, not a measurement (wgpu and OpenCL read timestamps
/// out of order as 0): it is left out and the detail says so; with none
/// left the result is an error. (One such sample made a file that
/// `--compare` and `report --merge` refuse.)
fn timed(result: &mut BenchResult, bytes: u64, flops: Option<u64>, s: &Sampled) {
    let usable = |times: &[Duration]| -> Vec<Duration> {
        times
            .iter()
            .copied()
            .filter(|t| t.as_secs_f64() >= MIN_TIME_S)
            .collect()
    };
    let (device_times, host_times) = (usable(&s.device_times), usable(&s.host_times));
    let dropped = s.device_times.len() - device_times.len();
    if device_times.is_empty() {
        result.detail = format!(
            "the device's timer read every one of {} intervals as 0",
            s.device_times.len()
        );
        return;
    }
    if dropped > 0 {
        result.detail = format!(
            "{dropped} of {} intervals read 0 (a timer glitch) and are left out",
            s.device_times.len()
        );
    }
    let device_time = Stats::from_samples(&device_times);
    result.status = Status::Ok;
    result.clock = Some(s.clock);
    result.samples = device_times.len();
    result.host_time = Stats::from_samples(&host_times);
    if let Some(t) = device_time {
        result.gbps = Some(bytes as f64 / t.median_s / 1e9);
        result.gflops = flops.map(|f| f as f64 / t.median_s / 1e9);
    }
    result.device_time = device_time;
}

/// Runs `run` back to back until `seconds` have passed (at least once):
/// the device's clocks reach their loaded speed before anything is timed.
/// Returns the runs made.
fn warm_up(
    mut run: impl FnMut() -> rosetta_core::Result<()>,
    seconds: f64,
) -> rosetta_core::Result<usize> {
    let started = Instant::now();
    let mut runs = 0;
    loop {
        run()?;
        runs += 1;
        if started.elapsed().as_secs_f64() >= seconds {
            return Ok(runs);
        }
    }
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
    warm_up(
        || {
            prepared.run()?;
            backend.finish()
        },
        options.warmup_seconds,
    )?;
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
    use super::{timed, warm_up, BenchResult, Sampled, Status};
    use rosetta_core::Clock;
    use std::time::{Duration, Instant};

    /// Intervals a timer read as 0 are left out (one made `min_s` 0, and
    /// the file unreadable by `--compare` and `report --merge`); with none
    /// left the result is an error, not a time.
    #[test]
    fn zero_intervals_are_glitches_not_times() {
        let ms = Duration::from_millis;
        let sampled = |device_times: Vec<Duration>| Sampled {
            host_times: device_times.iter().map(|_| ms(5)).collect(),
            device_times,
            clock: Clock::Device,
            variant: "v".into(),
            tuned: false,
            wrong: None,
        };
        let blank = || -> BenchResult {
            serde_json::from_value(serde_json::json!({
                "device": "cpu:0", "device_name": "cpu", "api": "cpu", "op": "copy",
                "label": "copy n=2^10", "series": "copy", "metric": "bandwidth",
                "elements": 1024, "bytes": 8192, "flops": null, "status": "error",
                "detail": "", "samples": 0, "device_time": null, "host_time": null,
                "gbps": null, "gflops": null, "copy_fraction": null, "clock": null,
            }))
            .unwrap()
        };
        let mut r = blank();
        timed(
            &mut r,
            8192,
            None,
            &sampled(vec![ms(0), ms(2), Duration::ZERO, ms(1), ms(3)]),
        );
        assert_eq!(r.status, Status::Ok);
        assert_eq!(r.samples, 3);
        let t = r.device_time.unwrap();
        assert_eq!((t.min_s, t.median_s), (0.001, 0.002));
        assert!(r.detail.contains("2 of 5 intervals read 0"), "{}", r.detail);
        let mut r = blank();
        timed(&mut r, 8192, None, &sampled(vec![Duration::ZERO; 4]));
        assert_eq!(r.status, Status::Error);
        assert!(r.device_time.is_none() && r.gbps.is_none());
        assert!(r.detail.contains("every one of 4"), "{}", r.detail);
    }

    #[test]
    fn warm_up_runs_for_its_time_and_at_least_once() {
        let started = Instant::now();
        let mut calls = 0;
        let runs = warm_up(
            || {
                calls += 1;
                std::thread::sleep(Duration::from_millis(5));
                Ok(())
            },
            0.05,
        )
        .unwrap();
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert_eq!(runs, calls);
        assert!(runs >= 2, "{runs} runs");
        // No time asked: one run.
        assert_eq!(warm_up(|| Ok(()), 0.0).unwrap(), 1);
        // An error stops it and is returned.
        let failed = warm_up(|| Err(rosetta_core::Error::Internal("boom".into())), 1.0);
        assert!(failed.is_err());
    }
}
