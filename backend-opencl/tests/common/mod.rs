//! Shared helpers of the OpenCL backend's integration tests: every test runs
//! on every device `discover()` finds, and fails (never skips) when there is
//! none.

// Each test binary uses a subset of these helpers.
#![allow(dead_code)]

use rosetta_core::{Backend, Buffer, DeviceInfo};
use std::sync::Arc;

/// Every OpenCL device; panics (failing the test) when there is none.
pub fn devices() -> Vec<Arc<dyn Backend>> {
    match rosetta_backend_opencl::discover() {
        Ok(devices) => {
            assert!(!devices.is_empty(), "discover() returned Ok with no device");
            devices
        }
        Err(err) => panic!("no OpenCL device found: {err}"),
    }
}

pub fn id(info: &DeviceInfo) -> String {
    format!("{} ({})", info.id(), info.name)
}

pub fn upload<T: bytemuck::Pod>(device: &Arc<dyn Backend>, data: &[T]) -> Buffer {
    Buffer::from_slice(device, data).expect("upload")
}

pub fn output(device: &Arc<dyn Backend>, words: usize) -> Buffer {
    Buffer::new(device, (words as u64) * 4).expect("alloc output")
}
