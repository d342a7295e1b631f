//! Made-up but realistic runs for the report's tests: GPU machines whose
//! GPU is reached through four APIs (some reporting PCI bus ids, some UUIDs,
//! wgpu nothing), CPU devices, failing and skipped cases, litmus counts,
//! host-timed and failed benchmark results.
//!
//! `ROSETTA_SAMPLE_REPORT=DIR cargo test --features cli --lib report::html`
//! also writes the merged sample to `DIR/index.html` for a look in a browser.

use crate::bench::{self, BenchReport, BenchResult, Stats, Status};
use crate::conform::{self, CaseReport, DeviceSummary, Outcome};
use crate::machine::Machine;
use rosetta_core::{Api, Capabilities, Clock, DeviceInfo, DeviceType, PhysicalId};
use rosetta_kernels::op::{CaseGroup, Metric, Status as CaseStatus};
use std::collections::BTreeMap;

/// A machine called `host`.
pub fn machine(host: &str) -> Machine {
    Machine {
        host: host.into(),
        os: "Debian GNU/Linux 12 (bookworm)".into(),
        cpu: "AMD EPYC 9654".into(),
        rosetta: "0.1.0".into(),
    }
}

/// A device; `gpu` picks GPU or CPU capabilities.
pub fn device(
    api: Api,
    index: usize,
    name: &str,
    gpu: bool,
    pci: Option<&str>,
    uuid: Option<&str>,
) -> DeviceInfo {
    DeviceInfo {
        api,
        index,
        name: name.into(),
        driver: if gpu {
            "NVIDIA 580.95.05".into()
        } else {
            "Mesa 25.0.7 (software)".into()
        },
        driver_version: "580.95.05".into(),
        physical: PhysicalId {
            pci_bus_id: pci.map(String::from),
            uuid: uuid.map(String::from),
        },
        caps: Capabilities {
            device_type: if gpu {
                DeviceType::DiscreteGpu
            } else {
                DeviceType::Cpu
            },
            max_shared_bytes: if gpu { 232_448 } else { 65_536 },
            max_group_size: [1024, 1024, 64],
            max_group_invocations: 1024,
            max_groups: [i32::MAX as u32, 65_535, 65_535],
            subgroup_sizes: gpu.then_some([32, 32]),
            subgroup_ops: gpu,
            float_atomics: gpu,
            timestamps: gpu,
            max_buffer_bytes: if gpu { 140 << 30 } else { 4 << 30 },
            memory_bytes: if gpu { 141 << 30 } else { 24 << 30 },
            compute_units: if gpu { 132 } else { 2 },
            loop_limit: (!gpu).then_some(65_535),
            device_fence: true,
            async_copy: gpu,
        },
    }
}

const PCI: &str = "0000:1B:00.0";
const UUID: &str = "5d1e8a3f-0c4b-9e2d-7a61-b03c4f2e8d17";

/// One H200 through CUDA (PCI + UUID), Vulkan (PCI), OpenCL (UUID only) and
/// wgpu (nothing), and two CPU devices.
pub fn gpu_machine_devices() -> Vec<DeviceInfo> {
    vec![
        device(Api::Cuda, 0, "NVIDIA H200", true, Some(PCI), Some(UUID)),
        device(
            Api::Vulkan,
            0,
            "NVIDIA H200",
            true,
            Some("0000:1b:00.0"),
            None,
        ),
        device(
            Api::Opencl,
            1,
            "NVIDIA H200",
            true,
            None,
            Some("5D1E8A3F0C4B9E2D7A61B03C4F2E8D17"),
        ),
        device(Api::Wgpu, 0, "NVIDIA H200 (Vulkan)", true, None, None),
        device(
            Api::Vulkan,
            1,
            "llvmpipe (LLVM 15.0.6, 256 bits)",
            false,
            None,
            None,
        ),
        device(Api::Cpu, 0, "AMD EPYC 9654 (2 threads)", false, None, None),
    ]
}

fn outcome(device: &DeviceInfo, status: CaseStatus, detail: &str) -> Outcome {
    Outcome {
        device: device.id(),
        status,
        error_ratio: (status == CaseStatus::Passed).then_some(1e-3),
        detail: detail.into(),
        seconds: 0.01,
        counts: BTreeMap::new(),
    }
}

/// The cases of [`conformance`]: (name, op, group).
pub const CASES: [(&str, &str, CaseGroup); 6] = [
    ("reduce f32 sum n=1000003", "reduce", CaseGroup::Ops),
    ("matmul 17x33x9", "matmul", CaseGroup::Ops),
    (
        "rejects conv1d with an even filter",
        "conv1d",
        CaseGroup::Errors,
    ),
    ("reduce f32 sum n=2^31+5", "reduce", CaseGroup::Limits),
    (
        "litmus mp workgroup sync",
        "memory-model",
        CaseGroup::MemoryModel,
    ),
    (
        "litmus sb device relaxed",
        "memory-model",
        CaseGroup::MemoryModel,
    ),
];

/// A conformance run of `devices` on `host` over `cases` (names from
/// [`CASES`]): wgpu fails the matmul, CPU devices skip the limits case, wgpu
/// cannot run device-scope litmus tests, and a forbidden outcome is seen
/// where `forbidden_seen`.
pub fn conformance(
    host: &str,
    devices: &[DeviceInfo],
    cases: &[&str],
    forbidden_seen: bool,
) -> conform::Report {
    let cases: Vec<CaseReport> = CASES
        .iter()
        .filter(|(name, _, _)| cases.contains(name))
        .map(|&(name, op, group)| CaseReport {
            name: name.into(),
            op: op.into(),
            group,
            results: devices
                .iter()
                .map(|d| {
                    let cpu = d.caps.device_type.is_cpu();
                    let mut o = match (name, d.api) {
                        ("matmul 17x33x9", Api::Wgpu) => outcome(
                            d,
                            CaseStatus::Failed,
                            "output 12: got 3.0001, expected 3 (|error| 1.2e-4 > bound 3.2e-5)",
                        ),
                        ("reduce f32 sum n=2^31+5", _) if cpu => outcome(
                            d,
                            CaseStatus::Skipped,
                            "needs 8 GiB; the device holds 4 GiB",
                        ),
                        ("litmus sb device relaxed", Api::Wgpu) => outcome(
                            d,
                            CaseStatus::Unsupported,
                            "WGSL has no device-scope fence",
                        ),
                        _ => outcome(d, CaseStatus::Passed, ""),
                    };
                    if group == CaseGroup::MemoryModel && o.status != CaseStatus::Unsupported {
                        let forbidden = name.contains("sync");
                        let weak = if forbidden {
                            u64::from(forbidden_seen && d.api == Api::Vulkan) * 3
                        } else {
                            490
                        };
                        o.error_ratio = None;
                        o.detail = format!(
                            "{}{} weak outcome (r0, r1) = (0, 0) seen {weak} times in 235520 instances \
                             over 1840 launches [rule]",
                            if d.api == Api::Opencl { "OpenCL C 1.2: " } else { "" },
                            if forbidden { "forbidden" } else { "allowed" }
                        );
                        if forbidden && weak > 0 {
                            o.status = CaseStatus::Failed;
                        }
                        o.counts = [
                            ("weak", weak),
                            ("seq0", 118_457),
                            ("seq1", 117_063 - weak),
                            ("interleaved", 0),
                            ("total", 235_520),
                            ("launches", 1840),
                        ]
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect();
                    }
                    o
                })
                .collect(),
        })
        .collect();
    let summary = devices
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mut s = DeviceSummary {
                device: d.id(),
                name: d.name.clone(),
                ..Default::default()
            };
            for c in &cases {
                match c.results[i].status {
                    CaseStatus::Passed => s.passed += 1,
                    CaseStatus::Failed => s.failed += 1,
                    CaseStatus::Skipped => s.skipped += 1,
                    CaseStatus::Unsupported => s.unsupported += 1,
                }
            }
            s
        })
        .collect::<Vec<_>>();
    let passed = summary.iter().all(|s| s.failed == 0);
    conform::Report {
        schema: conform::SCHEMA.into(),
        machine: machine(host),
        devices: devices.to_vec(),
        cases,
        summary,
        missing: Vec::new(),
        passed,
        seconds: 1.5,
    }
}

fn stats(median_s: f64) -> Stats {
    Stats {
        median_s,
        min_s: median_s * 0.97,
        p90_s: median_s * 1.04,
        spread: 0.07,
    }
}

/// A benchmark result of `device`: `gbps` sets how fast it is.
pub fn result(
    device: &DeviceInfo,
    op: &str,
    series: &str,
    log2: u32,
    metric: Metric,
    gbps: f64,
) -> BenchResult {
    let elements = 1u64 << log2;
    let bytes = elements * 4;
    let flops = (metric == Metric::Flops).then_some(elements * 64);
    let seconds = bytes as f64 / (gbps * 1e9);
    BenchResult {
        device: device.id(),
        device_name: device.name.clone(),
        api: device.api.name().into(),
        op: op.into(),
        label: format!("{series} n=2^{log2}"),
        series: series.into(),
        metric,
        elements,
        bytes,
        flops,
        variant: if op == "matmul" {
            "tile64x64".into()
        } else {
            "subgroup".into()
        },
        tuned: op == "matmul",
        status: Status::Ok,
        detail: String::new(),
        clock: Some(if device.caps.timestamps {
            Clock::Device
        } else {
            Clock::Host
        }),
        samples: 40,
        device_time: Some(stats(seconds)),
        host_time: Some(stats(seconds + 12e-6)),
        gbps: Some(gbps),
        gflops: flops.map(|f| f as f64 / seconds / 1e9),
        copy_fraction: None,
    }
}

/// A benchmark run of `devices` on `host`; `speed` scales every rate.
pub fn bench(host: &str, devices: &[DeviceInfo], speed: f64) -> BenchReport {
    let mut results = Vec::new();
    for d in devices {
        let gpu = !d.caps.device_type.is_cpu();
        let copy = if gpu { 4000.0 } else { 10.0 } * speed;
        results.push(result(d, "copy", "copy", 26, Metric::Bandwidth, copy));
        for log2 in [16, 18, 20] {
            results.push(result(
                d,
                "reduce",
                "sum f32",
                log2,
                Metric::Time,
                copy * 0.1,
            ));
        }
        for log2 in [24, 26] {
            results.push(result(
                d,
                "reduce",
                "sum f32",
                log2,
                Metric::Bandwidth,
                copy * 0.9,
            ));
        }
        let mut mm = result(d, "matmul", "square", 20, Metric::Flops, copy * 0.5);
        if d.api == Api::Wgpu {
            mm.status = Status::Error;
            mm.detail =
                "kernel matmul failed to compile:\nerror: workgroup storage exceeds 16384 bytes"
                    .into();
            mm.clock = None;
            mm.samples = 0;
            mm.device_time = None;
            mm.host_time = None;
            mm.gbps = None;
            mm.gflops = None;
        }
        results.push(mm);
    }
    BenchReport {
        schema: bench::SCHEMA.into(),
        machine: machine(host),
        size: "small".into(),
        devices: devices.to_vec(),
        results,
    }
}
