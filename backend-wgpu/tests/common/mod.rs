//! Shared by the integration tests: the devices under test.

use rosetta_core::Backend;
use std::sync::{Arc, OnceLock};

/// Every device `discover()` finds, opened once per test binary.
///
/// Panics (failing the test, never skipping it) when wgpu finds no adapter:
/// CI requires the wgpu backend to be there (lavapipe on machines without a
/// GPU).
pub fn devices() -> &'static [Arc<dyn Backend>] {
    static DEVICES: OnceLock<Vec<Arc<dyn Backend>>> = OnceLock::new();
    DEVICES.get_or_init(|| {
        let devices = rosetta_backend_wgpu::discover()
            .unwrap_or_else(|e| panic!("wgpu must find at least one adapter here: {e}"));
        assert!(!devices.is_empty(), "discover() returned no device");
        for d in &devices {
            let info = d.info();
            eprintln!(
                "testing {} {} [{}]: {:?}",
                info.id(),
                info.name,
                info.driver,
                info.caps
            );
        }
        devices
    })
}

/// Run `f` on every device, naming the device in any failure.
pub fn each_device(mut f: impl FnMut(&Arc<dyn Backend>)) {
    for device in devices() {
        f(device);
        let diagnostics = device.take_diagnostics();
        assert!(
            diagnostics.is_empty(),
            "{}: wgpu reported errors outside any scope: {diagnostics:?}",
            device.info().name
        );
    }
}
