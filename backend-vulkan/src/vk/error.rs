//! Vulkan results as rosetta errors, and text out of Vulkan's fixed-size
//! C strings. A leaf: used by every other module of `vk`.

use ash::vk;
use rosetta_core::{Api, Error};
use std::ffi::c_char;

/// A failed Vulkan call as a typed error: out-of-memory results are
/// [`Error::OutOfMemory`], a lost device [`Error::DeviceLost`], anything
/// else [`Error::Device`] naming the call; the `vk::Result` is the source.
pub(crate) fn vk_error(call: &str, result: vk::Result) -> Error {
    match result {
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => {
            Error::out_of_memory(Api::Vulkan, call, Some(Box::new(result)))
        }
        vk::Result::ERROR_DEVICE_LOST => Error::lost(Api::Vulkan, result),
        _ => Error::device(Api::Vulkan, call, result),
    }
}

/// The loader or driver is not usable on this machine.
pub(crate) fn unavailable(reason: impl Into<String>) -> Error {
    Error::Unavailable {
        api: Api::Vulkan,
        reason: reason.into(),
    }
}

/// A broken invariant of this crate (a bug), not a Vulkan failure.
pub(crate) fn internal(what: impl Into<String>) -> Error {
    Error::Internal(format!("vulkan: {}", what.into()))
}

/// A NUL-terminated string from a fixed-size array of a properties struct
/// (the whole array when it has no NUL).
pub(crate) fn c_text(raw: &[c_char]) -> String {
    let bytes: Vec<u8> = raw
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_map_to_the_error_taxonomy() {
        assert!(matches!(
            vk_error("vkAllocateMemory", vk::Result::ERROR_OUT_OF_DEVICE_MEMORY),
            Error::OutOfMemory { .. }
        ));
        assert!(matches!(
            vk_error("vkQueueSubmit", vk::Result::ERROR_DEVICE_LOST),
            Error::DeviceLost { .. }
        ));
        let e = vk_error("vkQueueSubmit", vk::Result::ERROR_UNKNOWN);
        assert!(matches!(e, Error::Device { .. }));
        assert!(e.chain().contains("vkQueueSubmit failed"));
    }

    #[test]
    fn c_text_stops_at_nul_or_the_end() {
        let raw = [
            b'l' as c_char,
            b'v' as c_char,
            b'p' as c_char,
            0,
            b'x' as c_char,
        ];
        assert_eq!(c_text(&raw), "lvp");
        assert_eq!(c_text(&raw[..2]), "lv");
    }
}
