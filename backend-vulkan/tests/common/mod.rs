//! Shared by the device tests: every device `discover()` finds (failing, not
//! skipping, when there is none), and the check that the validation layer
//! (when on) reported nothing.

use rosetta_core::Backend;
use std::sync::{Arc, OnceLock};

/// Every Vulkan device of this machine (discovered once per test binary).
/// Panics, failing the test, when there is none.
pub fn devices() -> &'static [Arc<dyn Backend>] {
    static DEVICES: OnceLock<Vec<Arc<dyn Backend>>> = OnceLock::new();
    DEVICES.get_or_init(|| {
        let found = rosetta_backend_vulkan::discover()
            .unwrap_or_else(|e| panic!("no Vulkan device found: {e}"));
        assert!(!found.is_empty(), "discover() returned no Vulkan device");
        found
    })
}

/// Run `f` on every device, then require that the validation layer (if on)
/// reported nothing.
pub fn on_every_device(f: impl Fn(&Arc<dyn Backend>)) {
    for device in devices() {
        f(device);
        assert_clean(device);
    }
}

pub fn assert_clean(device: &Arc<dyn Backend>) {
    let diagnostics = device.take_diagnostics();
    assert!(
        diagnostics.is_empty(),
        "{}: the validation layer reported:\n{}",
        device.info().name,
        diagnostics.join("\n")
    );
}
