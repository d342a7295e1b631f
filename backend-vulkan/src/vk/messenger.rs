//! The VK_EXT_debug_utils messenger's create info and its callback, which
//! logs each message through `tracing` and keeps it in a [`Diagnostics`].

use crate::validation::Diagnostics;
use ash::vk;
use std::ffi::{c_void, CStr};

/// Create info for a messenger of warnings and errors of every type,
/// delivered to [`callback`] with `diagnostics` as its user data.
///
/// The returned struct carries a raw pointer to `diagnostics`: whoever
/// creates a messenger (or an instance) with it must keep `diagnostics`
/// alive until that messenger (or instance) is destroyed.
pub(crate) fn create_info(
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

/// A NUL-terminated string from the layer, or "" for null.
///
/// # Safety
/// `text` is null or points to a NUL-terminated string that stays valid for
/// the returned borrow.
unsafe fn text_of<'a>(text: *const std::ffi::c_char) -> std::borrow::Cow<'a, str> {
    if text.is_null() {
        std::borrow::Cow::Borrowed("")
    } else {
        // SAFETY: non-null, and NUL-terminated and valid for 'a by this
        // function's contract.
        unsafe { CStr::from_ptr(text) }.to_string_lossy()
    }
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
        // SAFETY: the layer passes a valid callback-data struct for the
        // duration of the call (VkDebugUtilsMessengerCallbackDataEXT).
        let data = unsafe { &*data };
        // SAFETY: the struct's strings are null or NUL-terminated, valid
        // during the call; the borrows end before we return.
        let (id, message) = unsafe { (text_of(data.p_message_id_name), text_of(data.p_message)) };
        format!("[{kind:?}] {id}: {message}")
    };
    let error = severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR);
    if error {
        tracing::error!(target: "rosetta::vulkan::validation", "{text}");
    } else {
        tracing::warn!(target: "rosetta::vulkan::validation", "{text}");
    }
    if !user.is_null() {
        // SAFETY: the user data is the `Diagnostics` passed to
        // `create_info`; the instance that owns it keeps it alive until
        // after the messenger and the instance are destroyed
        // (vk::instance::Instance's Drop), and `Diagnostics` is Sync.
        let diagnostics = unsafe { &*(user as *const Diagnostics) };
        let level = if error { "error" } else { "warning" };
        diagnostics.push(format!("{level}: {text}"));
    }
    vk::FALSE
}
