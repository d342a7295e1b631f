//! criterion benches: every op's `small` workloads on every device of every
//! compiled-in API, through the same workloads and checks as `rosetta bench`.
//!
//! ```text
//! cargo bench --bench ops --features cli                      # CPU backend only
//! cargo bench --bench ops --features cli,wgpu,vulkan,opencl,cuda
//! cargo bench --bench ops --features cli -- reduce            # criterion's filter
//! ```
//!
//! Ids are `op/workload/device`. One iteration is one run of the workload
//! plus `finish`: host wall time of a synchronised run, submission included
//! (`rosetta bench` reports the APIs' own timers). Each workload's output is
//! checked once against the host reference before it is timed; a wrong
//! result (or one that cannot run) is not timed, and the bench exits with
//! status 1 at the end.

use criterion::{BenchmarkId, Criterion, Throughput};
use rosetta::kernels::op::Size;
use rosetta::{discover, Api};
use std::time::Duration;

fn main() {
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    let discovery = discover(&Api::ALL);
    let mut failed = Vec::new();
    for op in rosetta::kernels::ops() {
        let mut group = criterion.benchmark_group(op.name());
        group.sample_size(10);
        for device in discovery.devices() {
            let backend = device.backend();
            for workload in op.workloads(Size::Small, device.info()) {
                let id = format!(
                    "{}/{}",
                    workload.label.replace(' ', "-"),
                    device.info().id()
                );
                let mut prepared = match workload.prepare(backend, None) {
                    Ok(p) => p,
                    Err(e) => {
                        failed.push(format!("{id}: {}", e.chain()));
                        continue;
                    }
                };
                let checked = prepared.run().and_then(|()| prepared.verify());
                match checked {
                    Ok(None) => {}
                    Ok(Some(why)) => {
                        failed.push(format!("{id}: wrong result: {why}"));
                        continue;
                    }
                    Err(e) => {
                        failed.push(format!("{id}: {}", e.chain()));
                        continue;
                    }
                }
                group.throughput(Throughput::Bytes(workload.bytes));
                group.bench_function(BenchmarkId::from_parameter(&id), |b| {
                    b.iter(|| {
                        prepared
                            .run()
                            .and_then(|()| backend.finish())
                            .expect("checked above");
                    })
                });
            }
        }
        group.finish();
    }
    criterion.final_summary();
    if !failed.is_empty() {
        eprintln!(
            "{} workloads not timed:\n{}",
            failed.len(),
            failed.join("\n")
        );
        std::process::exit(1);
    }
}
