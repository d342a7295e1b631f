//! Shared by the OpenCL backend's own tests: the devices to run on, with
//! the contract suite's policy (no device: a loud skip, or a failure when
//! `ROSETTA_REQUIRE` names opencl).

use rosetta_core::{Api, Backend};
use std::sync::Arc;

/// Every OpenCL device; empty (after saying so) when there is none and
/// OpenCL is not required.
pub fn devices(test: &str) -> Vec<Arc<dyn Backend>> {
    let required = rosetta_core::contract::required_apis()
        .expect("ROSETTA_REQUIRE parses")
        .contains(&Api::Opencl);
    match rosetta_backend_opencl::discover() {
        Ok(devices) if !devices.is_empty() => devices,
        Ok(_) if required => panic!("opencl is required but has no device"),
        Err(e) if required => panic!("opencl is required but failed: {}", e.chain()),
        Ok(_) => {
            eprintln!("SKIPPED {test}: no opencl device");
            Vec::new()
        }
        Err(e) => {
            eprintln!("SKIPPED {test}: opencl unavailable: {}", e.chain());
            Vec::new()
        }
    }
}
