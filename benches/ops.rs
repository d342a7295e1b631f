//! criterion benches: each op on every device of every compiled-in API, on
//! device-resident buffers, through the same plans and checks as
//! `rosetta bench` (`rosetta::bench::prepare`).
//!
//! ```text
//! cargo bench --bench ops                         # CPU backend only (default features)
//! cargo bench --bench ops --features wgpu,vulkan,opencl,cuda
//! cargo bench --bench ops -- reduce               # one op (criterion's filter)
//! cargo bench --bench ops -- --quick              # a fast pass
//! ```
//!
//! Ids are `op/workload/device`, e.g. `reduce/sum-f32-n=2^22/cpu:0`. One
//! iteration is the plan's `encode` plus `finish`: host wall time of a
//! synchronised run, submission included (`rosetta bench` reports the APIs'
//! own GPU timers). Throughput is in bytes (the least the op must move) for
//! reduce and histogram, and in elements = floating-point operations for
//! conv1d, conv2d and matmul, so criterion's "elem/s" reads as FLOP/s there.
//!
//! Each op's output on each device is checked once against the host reference
//! before timing; a device that gives a wrong result (or cannot run the op)
//! is not timed, and the bench exits with status 1 at the end.

use criterion::{BenchmarkId, Criterion, Throughput};
use rosetta::bench::{prepare, Params, Runner, Workload};
use rosetta::{Border, Device, ReduceOp};
use std::time::Duration;

/// Modest sizes: a few milliseconds per run on the CPU backend.
fn workloads() -> Vec<Workload> {
    [
        Params::Reduce {
            len: 1 << 22,
            op: ReduceOp::Sum,
        },
        Params::Histogram {
            len: 1 << 22,
            bins: 256,
        },
        Params::Conv1d {
            len: 1 << 20,
            taps: 9,
        },
        Params::Conv2d {
            height: 1024,
            width: 1024,
            kh: 5,
            kw: 5,
            border: Border::Zero,
        },
        Params::Matmul {
            m: 512,
            n: 512,
            k: 512,
        },
    ]
    .into_iter()
    .map(Workload::new)
    .collect()
}

/// Prepare, run once, check against the reference: ready to time, or why not.
fn ready(device: &Device, workload: &Workload) -> Result<Box<dyn Runner>, String> {
    let runner = prepare(device, workload).map_err(|e| format!("cannot run: {e}"))?;
    runner
        .encode()
        .and_then(|()| device.backend().finish())
        .map_err(|e| format!("run failed: {e}"))?;
    match runner.verify() {
        Ok(None) => Ok(runner),
        Ok(Some(why)) => Err(format!("wrong result: {why}")),
        Err(e) => Err(format!("cannot read the result: {e}")),
    }
}

/// Bench every workload on every device; returns the failures.
fn bench_all(c: &mut Criterion) -> Vec<String> {
    let discovery = rosetta::discover(&rosetta::Api::ALL);
    for entry in &discovery.apis {
        if let rosetta::ApiStatus::Unavailable(reason) = &entry.status {
            eprintln!("{}: unavailable ({reason}); not benchmarked", entry.api);
        }
    }
    let mut failures = Vec::new();
    for workload in workloads() {
        let mut group = c.benchmark_group(workload.op.name());
        group.throughput(match workload.flops {
            Some(flops) => Throughput::Elements(flops),
            None => Throughput::Bytes(workload.bytes),
        });
        let name = workload.label.replace(' ', "-");
        for device in discovery.devices() {
            let id = device.info().id();
            let runner = match ready(device, &workload) {
                Ok(runner) => runner,
                Err(why) => {
                    let line = format!("{}/{name}/{id}: {why}", workload.op);
                    eprintln!("not timed: {line}");
                    failures.push(line);
                    continue;
                }
            };
            let backend = device.backend();
            group.bench_function(BenchmarkId::new(&name, &id), |b| {
                b.iter(|| {
                    runner.encode().expect("encode failed after a checked run");
                    backend.finish().expect("finish failed after a checked run");
                })
            });
        }
        group.finish();
    }
    failures
}

fn main() {
    // Short defaults (every device × every op); the command line overrides them.
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let failures = bench_all(&mut c);
    c.final_summary();
    if !failures.is_empty() {
        eprintln!("{} workload(s) were not timed:", failures.len());
        for f in &failures {
            eprintln!("  {f}");
        }
        std::process::exit(1);
    }
}
