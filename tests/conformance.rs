//! The conformance suite under `cargo test`: every case on every device of each
//! compiled-in API, compared with the host reference — the same cases as
//! `rosetta conform`.
//!
//! An API listed in `ROSETTA_REQUIRE` (default: every compiled-in API except
//! CUDA, which needs NVIDIA hardware) must find a device, or its test fails.
//! CUDA without a driver checks the unavailable path instead: discovery
//! reports why, and nothing panics.

use rosetta::{conform, discover, Api, ApiStatus};

fn required(api: Api) -> bool {
    match conform::required_apis().expect("ROSETTA_REQUIRE must name known APIs") {
        Some(list) => list.contains(&api),
        None => api != Api::Cuda,
    }
}

fn conform_api(api: Api) {
    let discovery = discover(&[api]);
    let entry = discovery.entry(api).expect("probed");
    let devices = match &entry.status {
        ApiStatus::Devices(devices) if !devices.is_empty() => devices.clone(),
        other => {
            assert!(
                !required(api),
                "{api} is required (ROSETTA_REQUIRE) but has no device: {other:?} — run `make setup`"
            );
            match other {
                ApiStatus::Unavailable(reason) => {
                    assert!(
                        !reason.trim().is_empty(),
                        "{api} unavailable without a reason"
                    );
                    eprintln!("{api}: unavailable ({reason}); not required here");
                }
                _ => eprintln!("{api}: no devices; not required here"),
            }
            return;
        }
    };
    let cases = conform::cases();
    let report = conform::run(&devices, &cases, Vec::new(), |p| {
        if p.done % 25 == 0 {
            eprintln!("{api}: {}/{} {} on {}", p.done, p.total, p.case, p.device);
        }
    });
    let failures = report.failures();
    for s in &report.summary {
        eprintln!(
            "{}: {}/{} passed ({})",
            s.device,
            s.passed,
            s.passed + s.failed,
            s.name
        );
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(report.passed);
    assert!(report.cases.len() >= 60);
}

#[test]
fn cpu() {
    conform_api(Api::Cpu);
}

#[cfg(feature = "wgpu")]
#[test]
fn wgpu() {
    conform_api(Api::Wgpu);
}

#[cfg(feature = "vulkan")]
#[test]
fn vulkan() {
    conform_api(Api::Vulkan);
}

#[cfg(feature = "opencl")]
#[test]
fn opencl() {
    conform_api(Api::Opencl);
}

#[cfg(feature = "cuda")]
#[test]
fn cuda() {
    conform_api(Api::Cuda);
}
