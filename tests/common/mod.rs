//! What the integration tests share: the devices of each API, with the APIs
//! a test must find (`ROSETTA_REQUIRE`, as `tests/conformance.rs` reads it).

use rosetta::{discover, Api, ApiStatus, Device};

/// Whether a test must find `api` (`ROSETTA_REQUIRE`, or every compiled-in
/// API but CUDA, which is tested on the GPU machine).
pub fn required(api: Api) -> bool {
    match std::env::var("ROSETTA_REQUIRE") {
        Ok(list) => list.split(',').any(|name| name.trim() == api.name()),
        Err(_) => api != Api::Cuda,
    }
}

/// The devices of `api`; none (and the test goes on) only where the API
/// is not required.
pub fn devices_of(api: Api) -> Vec<Device> {
    let found = discover(&[api]);
    match &found.entry(api).expect("probed").status {
        ApiStatus::Devices(devices) if !devices.is_empty() => devices.clone(),
        other => {
            assert!(
                !required(api),
                "{api} is required but has no device: {other:?}"
            );
            Vec::new()
        }
    }
}

/// The devices of every API, each required one found.
#[allow(dead_code)] // (not every test file uses it)
pub fn all_devices() -> Vec<Device> {
    Api::ALL.into_iter().flat_map(devices_of).collect()
}
