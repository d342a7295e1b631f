//! Validation: with `ROSETTA_VULKAN_VALIDATION=1` the instance enables
//! VK_LAYER_KHRONOS_validation and a VK_EXT_debug_utils messenger. Every
//! message of warning or error severity is logged through `tracing` and kept
//! until [`rosetta_core::Backend::take_diagnostics`] drains it.

use ash::vk;
use std::ffi::{c_void, CStr};
use std::sync::Mutex;

/// The environment variable that turns validation on.
pub const VALIDATION_ENV: &str = "ROSETTA_VULKAN_VALIDATION";

/// The environment variable that forces staging transfers (testing).
pub const STAGING_ENV: &str = "ROSETTA_VULKAN_STAGING";

/// Whether the environment asks for the validation layer.
pub fn requested() -> bool {
    flag(VALIDATION_ENV)
}

/// An environment flag: set, and not empty, `0` or `false`.
pub(crate) fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| {
        let v = v.trim();
        !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
    })
}

/// Messages the layer reported, oldest first.
#[derive(Default)]
pub(crate) struct Diagnostics {
    messages: Mutex<Vec<String>>,
}

impl Diagnostics {
    pub(crate) fn push(&self, message: String) {
        self.messages
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(message);
    }

    pub(crate) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.messages.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// The messenger's create info: warnings and errors of every type, delivered
/// to [`callback`] with `diagnostics` as user data.
pub(crate) fn messenger_info(
    diagnostics: &Diagnostics,
) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(callback))
        .user_data(diagnostics as *const Diagnostics as *mut c_void)
}

/// Called by the layer (on any thread) for each message.
unsafe extern "system" fn callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    let text = if data.is_null() {
        String::from("(no message)")
    } else {
        // SAFETY: the layer passes a valid callback-data struct whose strings
        // are NUL-terminated (or null) for the duration of the call.
        let data = unsafe { &*data };
        let id = if data.p_message_id_name.is_null() {
            String::new()
        } else {
            // SAFETY: as above.
            unsafe { CStr::from_ptr(data.p_message_id_name) }
                .to_string_lossy()
                .into_owned()
        };
        let message = if data.p_message.is_null() {
            String::new()
        } else {
            // SAFETY: as above.
            unsafe { CStr::from_ptr(data.p_message) }
                .to_string_lossy()
                .into_owned()
        };
        format!("[{kind:?}] {id}: {message}")
    };
    let error = severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR);
    if error {
        tracing::error!(target: "rosetta::vulkan::validation", "{text}");
    } else {
        tracing::warn!(target: "rosetta::vulkan::validation", "{text}");
    }
    if !user.is_null() {
        // SAFETY: the user data is the instance's `Diagnostics`, which lives
        // until after the messenger is destroyed (gpu::Instance's Drop).
        let diagnostics = unsafe { &*(user as *const Diagnostics) };
        let level = if error { "error" } else { "warning" };
        diagnostics.push(format!("{level}: {text}"));
    }
    vk::FALSE
}
