//! Every plan on every CUDA device, compared with the host reference under
//! the error bounds of DESIGN.md; and the unavailable path on machines
//! without a driver.
//!
//! Without a CUDA driver (or NVRTC) the device cases find no device and
//! pass vacuously, and `discovery_never_panics` checks that the reason names
//! what is missing. The same cases also run on the CPU backend at small sizes
//! (`harness_agrees_on_the_cpu_backend`), which checks the harness itself on
//! machines without a GPU. `ROSETTA_QUICK=1` runs the GPU cases at the small
//! sizes (for compute-sanitizer).

mod cases;

use rosetta_core::{Api, Backend, Error};
use std::sync::Arc;

fn cuda_devices() -> Vec<Arc<dyn Backend>> {
    match rosetta_backend_cuda::discover() {
        Ok(devices) => devices,
        Err(Error::Unavailable {
            api: Api::Cuda,
            reason,
        }) => {
            eprintln!("no CUDA device (cases skipped): {reason}");
            Vec::new()
        }
        Err(e) => panic!("CUDA discovery failed: {e}"),
    }
}

#[test]
fn discovery_never_panics() {
    for _ in 0..2 {
        match rosetta_backend_cuda::discover() {
            Ok(devices) => {
                for (i, d) in devices.iter().enumerate() {
                    let info = d.info();
                    if i > 0 {
                        assert!(
                            info.index > devices[i - 1].info().index,
                            "index is the CUDA ordinal"
                        );
                    }
                    eprintln!("{}: {} — {}", info.id(), info.name, info.driver);
                    assert_eq!(info.api, Api::Cuda);
                    let caps = &info.caps;
                    assert!(caps.max_shared_bytes >= 48 * 1024, "{caps:?}");
                    assert!(caps.max_group_invocations >= 256, "{caps:?}");
                    assert!(caps.compute_units > 0 && caps.memory_bytes > 0, "{caps:?}");
                    let warp = caps.subgroup_sizes.expect("warp size")[0];
                    assert!(warp.is_power_of_two(), "{caps:?}");
                    assert!(caps.timestamps && caps.float_atomics && caps.subgroup_ops);
                }
            }
            Err(Error::Unavailable {
                api: Api::Cuda,
                reason,
            }) => {
                eprintln!("cuda unavailable: {reason}");
                assert!(
                    reason.contains("libcuda")
                        || reason.contains("NVRTC")
                        || reason.contains("cuInit"),
                    "the reason should name what is missing: {reason}"
                );
                if !std::path::Path::new("/proc/driver/nvidia").exists() && !any_driver_library() {
                    assert!(reason.contains("libcuda.so.1 not found"), "{reason}");
                }
            }
            Err(e) => panic!("discover must return devices or Unavailable, got {e:?}"),
        }
    }
}

/// Whether a driver library exists in the usual places (then the reason may
/// be another one than a missing libcuda).
fn any_driver_library() -> bool {
    let dirs = [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/lib/wsl/lib",
        "/usr/local/cuda/compat",
    ];
    dirs.iter()
        .any(|d| std::path::Path::new(d).join("libcuda.so.1").exists())
}

#[test]
fn reduce() {
    for device in cuda_devices() {
        cases::reduce(&device, cases::Size::on_gpu());
    }
}

#[test]
fn histogram() {
    for device in cuda_devices() {
        cases::histogram(&device, cases::Size::on_gpu());
    }
}

#[test]
fn conv1d() {
    for device in cuda_devices() {
        cases::conv1d(&device, cases::Size::on_gpu());
    }
}

#[test]
fn conv2d() {
    for device in cuda_devices() {
        cases::conv2d(&device, cases::Size::on_gpu());
    }
}

#[test]
fn matmul() {
    for device in cuda_devices() {
        cases::matmul(&device, cases::Size::on_gpu());
    }
}

#[test]
fn copy() {
    for device in cuda_devices() {
        cases::copy(&device, cases::Size::on_gpu());
    }
}

#[test]
fn backend_contract() {
    for device in cuda_devices() {
        cases::backend_contract(&device);
    }
}

#[test]
fn harness_agrees_on_the_cpu_backend() {
    let cpu = rosetta_backend_cpu::discover()
        .expect("the CPU backend")
        .remove(0);
    cases::reduce(&cpu, cases::Size::Quick);
    cases::histogram(&cpu, cases::Size::Quick);
    cases::conv1d(&cpu, cases::Size::Quick);
    cases::conv2d(&cpu, cases::Size::Quick);
    cases::matmul(&cpu, cases::Size::Quick);
    cases::copy(&cpu, cases::Size::Quick);
}

/// The full-size cases on the CPU backend: a slow check of the harness
/// (`cargo test --release -p rosetta-backend-cuda -- --ignored`).
#[test]
#[ignore]
fn harness_full_size_on_the_cpu_backend() {
    let cpu = rosetta_backend_cpu::discover()
        .expect("the CPU backend")
        .remove(0);
    cases::reduce(&cpu, cases::Size::Full);
    cases::histogram(&cpu, cases::Size::Full);
    cases::conv1d(&cpu, cases::Size::Full);
    cases::conv2d(&cpu, cases::Size::Full);
    cases::matmul(&cpu, cases::Size::Full);
    cases::copy(&cpu, cases::Size::Full);
}
