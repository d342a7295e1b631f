//! What the Khronos validation layer said: with `ROSETTA_VULKAN_VALIDATION=1`
//! the instance enables VK_LAYER_KHRONOS_validation and a VK_EXT_debug_utils
//! messenger (`vk::messenger`), whose callback stores every message of
//! warning or error severity here until the driver's `diagnostics()` drains
//! them. Also the environment flags of the backend. A leaf module.

use std::sync::Mutex;

/// The environment variable that turns the validation layer on.
pub const VALIDATION_ENV: &str = "ROSETTA_VULKAN_VALIDATION";

/// The environment variable that forces staging transfers even on
/// unified-memory devices (to test the discrete-GPU path on lavapipe).
pub const STAGING_ENV: &str = "ROSETTA_VULKAN_STAGING";

/// The environment variable that asks drivers for each pipeline's
/// statistics (VK_KHR_pipeline_executable_properties, where the device has
/// it: register count, spills, shared memory, ...), logged at `info` level
/// with the kernel's label when the pipeline is built.
pub const STATISTICS_ENV: &str = "ROSETTA_VULKAN_STATISTICS";

/// The environment variable that creates the device with robust buffer
/// access (robustBufferAccess, and robustBufferAccess2 where
/// VK_EXT_robustness2 has it), as wgpu always does: a diagnostic, to measure
/// what the driver's bounds checks cost a kernel. rosetta's kernels stay in
/// bounds by construction and do not need it.
pub const ROBUSTNESS_ENV: &str = "ROSETTA_VULKAN_ROBUSTNESS";

/// The environment variable that folds each spec's constants into the GLSL
/// before glslang (`fold.rs`): a diagnostic, to compare a driver's code for
/// specialization constants with its code for plain constants.
pub const FOLD_ENV: &str = "ROSETTA_VULKAN_FOLD_CONSTANTS";

/// An environment flag: set, and not empty, `0` or `false`.
pub(crate) fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| {
        let v = v.trim();
        !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
    })
}

/// Messages the layer reported, oldest first.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics {
    messages: Mutex<Vec<String>>,
}

impl Diagnostics {
    /// Keep one message (called from the messenger, on any thread).
    pub(crate) fn push(&self, message: String) {
        self.messages
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(message);
    }

    /// Every message since the last call.
    pub(crate) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.messages.lock().unwrap_or_else(|p| p.into_inner()))
    }
}
