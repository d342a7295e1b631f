//! What the integration tests share: the devices of each API, with the APIs
//! a test must find (`ROSETTA_REQUIRE`). Not every test file uses every
//! function here.
#![allow(dead_code)]

use rosetta::{conform, discover, Api, ApiStatus, Device};

/// Whether a test must find `api`: listed in `ROSETTA_REQUIRE` (read by the
/// library, as `rosetta conform` reads it; an unknown name fails the test),
/// or, without it, every compiled-in API but CUDA, which is tested on the
/// GPU machine.
pub fn required(api: Api) -> bool {
    match std::env::var("ROSETTA_REQUIRE") {
        Ok(_) => conform::required_apis()
            .expect("ROSETTA_REQUIRE must name known APIs")
            .contains(&api),
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
pub fn all_devices() -> Vec<Device> {
    Api::ALL.into_iter().flat_map(devices_of).collect()
}

/// The host's "same"-size correlation of `x` with `taps` (odd length),
/// zero past both ends, summed in tap order: the conv1d contract.
pub fn correlate(x: &[f32], taps: &[f32]) -> Vec<f32> {
    let half = taps.len() / 2;
    (0..x.len())
        .map(|i| {
            (0..taps.len())
                .filter_map(|t| {
                    (i + t)
                        .checked_sub(half)
                        .and_then(|j| x.get(j))
                        .map(|v| v * taps[t])
                })
                .sum()
        })
        .collect()
}
