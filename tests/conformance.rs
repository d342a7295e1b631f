//! The conformance suite under `cargo test`: every case (ops, errors, limits,
//! memory-model) on every device of each compiled-in API, compared with the
//! host reference — the same cases as `rosetta conform`.
//!
//! `ROSETTA_CONFORM=ci` (what `make test` sets) runs the quick cases of every
//! group plus the whole `limits` group — at the sizes lavapipe and PoCL can
//! hold on a 2-core machine; the default (`full`) runs every case.
//! `ROSETTA_RANDOM_SEED` is the random group's seed (`make test
//! RANDOM_SEED=N`; 1 when unset, as `rosetta conform`).
//!
//! An API listed in `ROSETTA_REQUIRE` (default: every compiled-in API except
//! CUDA, which needs NVIDIA hardware) must find a device, or its test fails.
//! CUDA without a driver checks the unavailable path instead: discovery
//! reports why, and nothing panics.

mod common;

use common::required;
use rosetta::kernels::op::Status;
use rosetta::{conform, discover, Api, ApiStatus};

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
    let ci = std::env::var("ROSETTA_CONFORM").is_ok_and(|v| v == "ci");
    let random = match std::env::var("ROSETTA_RANDOM_SEED") {
        Ok(seed) if !seed.trim().is_empty() => conform::RandomCases {
            seed: seed
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("ROSETTA_RANDOM_SEED={seed:?} is not a u64")),
            ..Default::default()
        },
        _ => conform::RandomCases::default(),
    };
    eprintln!("{api}: random group seed {}", random.seed);
    let cases: Vec<_> = conform::suite(&random)
        .into_iter()
        .filter(|c| !ci || c.quick || c.group == rosetta::kernels::op::CaseGroup::Limits)
        .collect();
    let options = conform::Options {
        quick: ci,
        budget: std::time::Duration::from_millis(500),
    };
    let report = conform::run(&devices, &cases, Vec::new(), &options, &|p| {
        if p.done % 50 == 0 {
            eprintln!("{api}: {}/{} {}", p.done, p.total, p.case);
        }
    });
    for s in &report.summary {
        eprintln!(
            "{}: {} passed, {} failed, {} skipped, {} unsupported ({})",
            s.device, s.passed, s.failed, s.skipped, s.unsupported, s.name
        );
        // Skipped and unsupported are never counted as passed, and most of
        // the suite runs everywhere: at most a tenth of the cases need a
        // feature the device lacks (wgpu's GL adapter, without subgroups or
        // device-scope fences, had 75 of 892), and at least nine tenths of
        // the rest pass (the others are skipped).
        assert!(
            s.unsupported <= cases.len() / 10,
            "{}: {} of {} cases unsupported",
            s.device,
            s.unsupported,
            cases.len()
        );
        let supported = cases.len() - s.unsupported;
        assert!(
            s.passed >= supported * 9 / 10,
            "{}: only {} of {} supported cases passed",
            s.device,
            s.passed,
            supported
        );
    }
    let failures = report.failures();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(report.passed);
    // Every group is there.
    for group in rosetta::kernels::op::CaseGroup::ALL {
        assert!(
            report.cases.iter().any(|c| c.group == group),
            "no {group:?} case ran"
        );
    }
    // Every op, and the memory model, ran at least one case that passed on
    // every device.
    for op in rosetta::kernels::ops()
        .iter()
        .map(|o| o.name())
        .chain(["memory-model"])
    {
        assert!(
            report
                .cases
                .iter()
                .any(|c| c.op == op && c.results.iter().all(|o| o.status == Status::Passed)),
            "no {op} case passed everywhere"
        );
    }
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

/// wgpu does not report compute units; its backend reads them from the
/// Vulkan driver under a Vulkan adapter, so one GPU through wgpu and through
/// the Vulkan backend gets the same count (and the same grids). Compared
/// where both APIs name the device's PCI bus (VK_EXT_pci_bus_info: discrete
/// GPUs; lavapipe has none).
#[cfg(all(feature = "wgpu", feature = "vulkan"))]
#[test]
fn wgpu_and_vulkan_agree_on_compute_units() {
    let discovery = discover(&[Api::Vulkan, Api::Wgpu]);
    let devices = |api| match discovery.entry(api).map(|e| &e.status) {
        Some(ApiStatus::Devices(devices)) => devices.clone(),
        _ => Vec::new(),
    };
    let vulkan = devices(Api::Vulkan);
    for w in devices(Api::Wgpu) {
        let Some(bus) = w.info().physical.pci_bus_id.clone() else {
            continue;
        };
        for v in vulkan
            .iter()
            .filter(|v| v.info().physical.pci_bus_id.as_ref() == Some(&bus))
        {
            assert_eq!(
                w.info().caps.compute_units,
                v.info().caps.compute_units,
                "{} and {} (PCI {bus})",
                w.info().id(),
                v.info().id()
            );
        }
    }
}
