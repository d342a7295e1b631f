//! A made-up but realistic report (eight devices of five APIs on one GPU
//! machine, with host-timed results, wrong results and failing cases), to
//! check that the pages render every kind of content without panicking.
//!
//! `ROSETTA_SAMPLE_REPORT=DIR cargo test -p rosetta --lib sample` also writes
//! it to `DIR/index.html` (and the bench-only page to `DIR/bench/index.html`)
//! for a look in a browser.

use super::{html, Absent, Report};
use crate::bench::{self, BenchReport, BenchResult, Op, Size, Stats, Status};
use crate::conform;
use rosetta_core::{Api, Capabilities, Clock, DeviceInfo, DeviceType};

fn device(api: Api, index: usize, name: &str, gpu: bool, timestamps: bool) -> DeviceInfo {
    DeviceInfo {
        api,
        index,
        name: name.into(),
        driver: if gpu {
            "NVIDIA 580.95.05".into()
        } else {
            "Mesa 25.0.7 / PoCL 6.0 (software)".into()
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
            timestamps,
            max_buffer_bytes: if gpu { 140 << 30 } else { 4 << 30 },
            memory_bytes: if gpu { 141 << 30 } else { 24 << 30 },
            compute_units: if gpu { 132 } else { 2 },
        },
    }
}

/// (device, copy GB/s, efficiency of the other ops relative to copy, timestamps)
fn devices() -> Vec<(DeviceInfo, f64, f64)> {
    vec![
        (
            device(Api::Cuda, 0, "NVIDIA H200", true, true),
            4180.0,
            0.97,
        ),
        (
            device(Api::Vulkan, 0, "NVIDIA H200", true, true),
            4120.0,
            0.93,
        ),
        (
            device(Api::Opencl, 0, "NVIDIA H200", true, true),
            4050.0,
            0.9,
        ),
        (
            device(Api::Wgpu, 0, "NVIDIA H200 (Vulkan)", true, true),
            3900.0,
            0.8,
        ),
        (
            device(
                Api::Vulkan,
                1,
                "llvmpipe (LLVM 15.0.6, 256 bits)",
                false,
                true,
            ),
            9.5,
            0.6,
        ),
        (
            device(
                Api::Opencl,
                1,
                "cpu-haswell-Intel(R) Xeon(R) Processor",
                false,
                true,
            ),
            11.0,
            0.7,
        ),
        (
            device(
                Api::Wgpu,
                1,
                "llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan)",
                false,
                false,
            ),
            7.0,
            0.5,
        ),
        (
            device(
                Api::Cpu,
                0,
                "Intel(R) Xeon(R) Processor (2 threads)",
                false,
                false,
            ),
            8.0,
            0.9,
        ),
    ]
}

fn bench_report() -> BenchReport {
    let mut results = Vec::new();
    for (info, copy, eff) in devices() {
        let list = bench::workloads(Size::Large, info.caps.device_type, &Op::SELECTABLE);
        for w in list {
            let gpu = !info.caps.device_type.is_cpu();
            // Bandwidth: copy for copy, smaller sizes slower (launch overhead).
            let small = (w.elements as f64 / (1u64 << 26) as f64)
                .min(1.0)
                .powf(0.25);
            let gbps = match w.op {
                Op::Copy => copy,
                Op::Reduce => copy * eff * small,
                Op::Histogram => copy * eff * 0.3,
                _ => 0.0,
            };
            let seconds = match w.op {
                Op::Conv1d | Op::Conv2d | Op::Matmul => {
                    let peak = if gpu { 40_000.0 } else { 30.0 };
                    w.flops.unwrap_or(1) as f64
                        / (peak * eff * if w.op == Op::Matmul { 1.0 } else { 0.1 } * 1e9)
                }
                _ => w.bytes as f64 / (gbps * 1e9),
            };
            let t = Stats {
                median_s: seconds,
                min_s: seconds * 0.97,
                p90_s: seconds * 1.04,
                spread: 0.07,
            };
            let host = Stats {
                median_s: seconds + 12e-6,
                min_s: seconds + 9e-6,
                p90_s: seconds + 20e-6,
                spread: 0.1,
            };
            let mut r = BenchResult {
                device: info.id(),
                device_name: info.name.clone(),
                api: info.api.name().into(),
                op: w.op.name().into(),
                label: w.label.clone(),
                series: w.series.clone(),
                elements: w.elements,
                bytes: w.bytes,
                flops: w.flops,
                status: Status::Ok,
                detail: String::new(),
                clock: Some(if info.caps.timestamps {
                    Clock::Device
                } else {
                    Clock::Host
                }),
                samples: 40,
                device_time: Some(t),
                host_time: Some(host),
                gbps: Some(w.bytes as f64 / seconds / 1e9),
                gflops: w.flops.map(|f| f as f64 / seconds / 1e9),
                copy_fraction: None,
            };
            if w.op != Op::Copy {
                r.copy_fraction = r.gbps.map(|g| g / copy);
            }
            let fail = |r: &mut BenchResult, status: Status, detail: &str| {
                r.status = status;
                r.detail = detail.into();
                r.clock = None;
                r.samples = 0;
                r.device_time = None;
                r.host_time = None;
                r.gbps = None;
                r.gflops = None;
                r.copy_fraction = None;
            };
            if info.id() == "opencl:1" && w.op == Op::Conv2d {
                fail(
                    &mut r,
                    Status::Wrong,
                    "wrong result: output 4097: got 0.25, expected 1.5 (bound 2.4e-6)",
                );
            }
            if info.id() == "wgpu:1" && w.op == Op::Matmul {
                fail(
                    &mut r,
                    Status::Error,
                    "kernel matmul failed to compile:\nerror: workgroup storage exceeds 16384 bytes\n  ┌─ matmul.wgsl:12:1",
                );
            }
            results.push(r);
        }
    }
    BenchReport {
        schema: bench::SCHEMA.into(),
        size: Size::Large.name().into(),
        devices: devices()
            .iter()
            .map(|(d, _, _)| bench::device_json(d))
            .collect(),
        results,
    }
}

fn conformance() -> conform::Report {
    let infos: Vec<DeviceInfo> = devices().into_iter().map(|(d, _, _)| d).collect();
    let cases: Vec<conform::CaseReport> = conform::cases()
        .iter()
        .enumerate()
        .map(|(n, case)| conform::CaseReport {
            name: case.name.clone(),
            op: case.op,
            results: infos
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    let exact = matches!(case.op, "histogram")
                        || case.name.contains("i32")
                        || case.name.contains("u32");
                    let failing = d.id() == "wgpu:1" && n % 37 == 5;
                    conform::Outcome {
                        device: d.id(),
                        passed: !failing,
                        error_ratio: (!exact).then_some(if failing {
                            3.7
                        } else {
                            1e-3 * (1 + (n + i) % 9) as f64
                        }),
                        detail: if failing {
                            "output 12: got 3.0001, expected 3 (|error| 1.2e-4 > bound 3.2e-5)"
                                .into()
                        } else {
                            String::new()
                        },
                        seconds: 0.01,
                    }
                })
                .collect(),
        })
        .collect();
    let summary = infos
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let passed = cases.iter().filter(|c| c.results[i].passed).count();
            conform::DeviceSummary {
                device: d.id(),
                name: d.name.clone(),
                passed,
                failed: cases.len() - passed,
            }
        })
        .collect();
    conform::Report {
        devices: infos,
        cases,
        summary,
        missing: Vec::new(),
        passed: false,
    }
}

pub fn report() -> Report {
    Report::new(
        vec![Absent {
            api: "metal".into(),
            reason: "not an API rosetta speaks (listed to show the row)".into(),
        }],
        conformance(),
        bench_report(),
    )
}

#[test]
fn sample_pages_render() {
    let report = report();
    let page = html::page(&report);
    let bench_page = html::bench_page(&report.bench);
    for text in [&page, &bench_page] {
        assert!(text.contains("<svg"));
        assert!(!text.contains("<script"));
        assert!(text.contains("vulkan:1") && text.contains("(host clock)"));
        assert!(text.contains("WRONG — output 4097"));
    }
    assert!(page.contains("Conformance") && page.contains("✗ FAIL"));
    if let Ok(dir) = std::env::var("ROSETTA_SAMPLE_REPORT") {
        let dir = std::path::Path::new(&dir);
        report.write(dir).unwrap();
        super::write_bench_html(&dir.join("bench"), &report.bench).unwrap();
    }
}
