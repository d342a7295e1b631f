//! Shared helpers of the OpenCL backend's integration tests: every test runs
//! on every device `discover()` finds, and fails (never skips) when there is
//! none.

#![allow(dead_code)]

use rosetta_core::reference::Exact;
use rosetta_core::{bounds, Backend, Buffer, DeviceInfo};
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

/// Every element within γ_k·Σ|terms| of the exact value; panics naming the
/// first element that is not.
pub fn check_bounded(what: &str, got: &[f32], exact: &[Exact], terms: usize) {
    assert_eq!(got.len(), exact.len(), "{what}: length");
    for (i, (&g, e)) in got.iter().zip(exact).enumerate() {
        let bound = bounds::dot_bound(terms, e.abs);
        assert!(
            bounds::within(g, e.value, bound),
            "{what}: element {i} is {g}, exact {} (bound {bound:e}, error {:e})",
            e.value,
            (f64::from(g) - e.value).abs()
        );
    }
}

/// Exact equality, naming the first difference.
pub fn check_exact<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], expected: &[T]) {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    if let Some(i) = got.iter().zip(expected).position(|(g, e)| g != e) {
        panic!(
            "{what}: first difference at {i}: got {:?}, expected {:?}",
            got[i], expected[i]
        );
    }
}
