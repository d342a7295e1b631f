//! Platform and device info, read with the raw API calls.
//!
//! `ocl::core`'s own info wrappers retry `clGetPlatformIDs` for ten seconds
//! when no driver is installed and panic on replies they do not expect; the
//! two-call queries below do neither, so discovery always returns.

use ocl::core::ffi;
use ocl::core::{ClDeviceIdPtr, DeviceId, PlatformId};
use std::ptr;

// Info parameters (cl.h, cl_ext.h). Vendor queries are only made when the
// device lists the extension that defines them.
pub const CL_PLATFORM_VERSION: u32 = 0x0901;
pub const CL_PLATFORM_NAME: u32 = 0x0902;
pub const CL_DEVICE_TYPE: u32 = 0x1000;
pub const CL_DEVICE_MAX_COMPUTE_UNITS: u32 = 0x1002;
pub const CL_DEVICE_MAX_WORK_GROUP_SIZE: u32 = 0x1004;
pub const CL_DEVICE_MAX_WORK_ITEM_SIZES: u32 = 0x1005;
pub const CL_DEVICE_MAX_MEM_ALLOC_SIZE: u32 = 0x1010;
pub const CL_DEVICE_GLOBAL_MEM_SIZE: u32 = 0x101F;
pub const CL_DEVICE_LOCAL_MEM_TYPE: u32 = 0x1022;
pub const CL_DEVICE_LOCAL_MEM_SIZE: u32 = 0x1023;
pub const CL_DEVICE_PROFILING_TIMER_RESOLUTION: u32 = 0x1025;
pub const CL_DEVICE_AVAILABLE: u32 = 0x1027;
pub const CL_DEVICE_COMPILER_AVAILABLE: u32 = 0x1028;
pub const CL_DEVICE_QUEUE_PROPERTIES: u32 = 0x102A;
pub const CL_DEVICE_NAME: u32 = 0x102B;
pub const CL_DEVICE_VERSION: u32 = 0x102F;
pub const CL_DEVICE_EXTENSIONS: u32 = 0x1030;
pub const CL_DRIVER_VERSION: u32 = 0x102D;
pub const CL_DEVICE_HOST_UNIFIED_MEMORY: u32 = 0x1035;
pub const CL_DEVICE_OPENCL_C_VERSION: u32 = 0x103D;
pub const CL_DEVICE_OPENCL_C_ALL_VERSIONS: u32 = 0x1066;
pub const CL_DEVICE_OPENCL_C_FEATURES: u32 = 0x106F;
pub const CL_DEVICE_WARP_SIZE_NV: u32 = 0x4003;
pub const CL_DEVICE_WAVEFRONT_WIDTH_AMD: u32 = 0x4043;
pub const CL_DEVICE_SUB_GROUP_SIZES_INTEL: u32 = 0x4108;
pub const CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT: u32 = 0x4231;

pub const CL_DEVICE_TYPE_CPU: u64 = 1 << 1;
pub const CL_DEVICE_TYPE_GPU: u64 = 1 << 2;
pub const CL_DEVICE_TYPE_ALL: u64 = 0xFFFF_FFFF;
pub const CL_QUEUE_PROFILING_ENABLE: u64 = 1 << 1;
/// `CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT` in the fp-atomic capabilities.
pub const CL_FP_ATOMIC_GLOBAL_ADD: u64 = 1 << 1;
const CL_DEVICE_NOT_FOUND: i32 = -1;
const CL_PLATFORM_NOT_FOUND_KHR: i32 = -1001;

/// Every platform the ICD loader knows, or why there is none.
pub fn platform_ids() -> Result<Vec<PlatformId>, String> {
    let mut count: ffi::cl_uint = 0;
    // SAFETY: a count query: no output array, `count` outlives the call.
    let code = unsafe { ffi::clGetPlatformIDs(0, ptr::null_mut(), &mut count) };
    if code == CL_PLATFORM_NOT_FOUND_KHR || (code == 0 && count == 0) {
        return Err(
            "the ICD loader found no OpenCL platform (no driver is registered in \
             /etc/OpenCL/vendors or $OCL_ICD_VENDORS; install one, e.g. pocl-opencl-icd)"
                .into(),
        );
    }
    if code != 0 {
        return Err(format!(
            "clGetPlatformIDs failed: {}",
            crate::errors::status_name(code)
        ));
    }
    let mut raw: Vec<ffi::cl_platform_id> = vec![ptr::null_mut(); count as usize];
    // SAFETY: `raw` has room for exactly `count` platform handles.
    let code = unsafe { ffi::clGetPlatformIDs(count, raw.as_mut_ptr(), ptr::null_mut()) };
    if code != 0 {
        return Err(format!(
            "clGetPlatformIDs failed: {}",
            crate::errors::status_name(code)
        ));
    }
    Ok(raw
        .into_iter()
        .filter(|p| !p.is_null())
        // SAFETY: non-null handles the API just returned; platform ids are
        // never released.
        .map(|p| unsafe { PlatformId::from_raw(p) })
        .collect())
}

/// The devices of one platform (all types); none is not an error.
pub fn device_ids(platform: &PlatformId) -> Result<Vec<DeviceId>, i32> {
    let mut count: ffi::cl_uint = 0;
    // SAFETY: a count query: no output array, `count` outlives the call.
    let code = unsafe {
        ffi::clGetDeviceIDs(
            platform.as_ptr(),
            CL_DEVICE_TYPE_ALL,
            0,
            ptr::null_mut(),
            &mut count,
        )
    };
    if code == CL_DEVICE_NOT_FOUND || (code == 0 && count == 0) {
        return Ok(Vec::new());
    }
    if code != 0 {
        return Err(code);
    }
    let mut raw: Vec<ffi::cl_device_id> = vec![ptr::null_mut(); count as usize];
    // SAFETY: `raw` has room for exactly `count` device handles.
    let code = unsafe {
        ffi::clGetDeviceIDs(
            platform.as_ptr(),
            CL_DEVICE_TYPE_ALL,
            count,
            raw.as_mut_ptr(),
            ptr::null_mut(),
        )
    };
    if code != 0 {
        return Err(code);
    }
    Ok(raw
        .into_iter()
        .filter(|d| !d.is_null())
        // SAFETY: non-null handles the API just returned; root devices are
        // never released.
        .map(|d| unsafe { DeviceId::from_raw(d) })
        .collect())
}

/// A platform info string.
pub fn platform_string(platform: &PlatformId, param: u32) -> Option<String> {
    let mut size: usize = 0;
    // SAFETY: a size query: no output buffer, `size` outlives the call.
    let code =
        unsafe { ffi::clGetPlatformInfo(platform.as_ptr(), param, 0, ptr::null_mut(), &mut size) };
    if code != 0 {
        return None;
    }
    let mut bytes = vec![0u8; size];
    if size > 0 {
        // SAFETY: `bytes` has exactly `size` writable bytes.
        let code = unsafe {
            ffi::clGetPlatformInfo(
                platform.as_ptr(),
                param,
                size,
                bytes.as_mut_ptr().cast(),
                ptr::null_mut(),
            )
        };
        if code != 0 {
            return None;
        }
    }
    Some(c_string(&bytes))
}

/// Typed device info queries; `None` when the device does not answer.
pub struct Query<'a>(pub &'a DeviceId);

impl Query<'_> {
    pub fn raw(&self, param: u32) -> Result<Vec<u8>, i32> {
        let mut size: usize = 0;
        // SAFETY: a size query: no output buffer, `size` outlives the call.
        let code =
            unsafe { ffi::clGetDeviceInfo(self.0.as_ptr(), param, 0, ptr::null_mut(), &mut size) };
        if code != 0 {
            return Err(code);
        }
        let mut bytes = vec![0u8; size];
        if size > 0 {
            // SAFETY: `bytes` has exactly `size` writable bytes.
            let code = unsafe {
                ffi::clGetDeviceInfo(
                    self.0.as_ptr(),
                    param,
                    size,
                    bytes.as_mut_ptr().cast(),
                    ptr::null_mut(),
                )
            };
            if code != 0 {
                return Err(code);
            }
        }
        Ok(bytes)
    }

    pub fn string(&self, param: u32) -> Option<String> {
        self.raw(param).ok().map(|b| c_string(&b))
    }

    pub fn u32(&self, param: u32) -> Option<u32> {
        let b = self.raw(param).ok()?;
        Some(u32::from_ne_bytes(b.get(..4)?.try_into().ok()?))
    }

    pub fn u64(&self, param: u32) -> Option<u64> {
        let b = self.raw(param).ok()?;
        Some(u64::from_ne_bytes(b.get(..8)?.try_into().ok()?))
    }

    /// A `size_t` value.
    pub fn size(&self, param: u32) -> Option<u64> {
        self.sizes(param)?.first().copied()
    }

    /// An array of `size_t`.
    pub fn sizes(&self, param: u32) -> Option<Vec<u64>> {
        const W: usize = std::mem::size_of::<usize>();
        let b = self.raw(param).ok()?;
        Some(
            b.chunks_exact(W)
                .map(|c| {
                    let mut word = [0u8; W];
                    word.copy_from_slice(c);
                    usize::from_ne_bytes(word) as u64
                })
                .collect(),
        )
    }

    /// An array of `cl_name_version` (OpenCL 3.0): (version, name).
    pub fn name_versions(&self, param: u32) -> Option<Vec<(u32, String)>> {
        const NAME: usize = 64;
        let b = self.raw(param).ok()?;
        Some(
            b.chunks_exact(4 + NAME)
                .map(|c| {
                    let version = u32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
                    (version, c_string(&c[4..]))
                })
                .collect(),
        )
    }
}

/// A NUL-terminated (or not) byte string, trimmed.
fn c_string(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).trim().to_string()
}

/// `(major, minor)` from "OpenCL 3.0 …" or "OpenCL C 1.2 …".
pub fn parse_version(text: &str) -> Option<(u32, u32)> {
    let rest = text.strip_prefix("OpenCL")?.trim_start();
    let rest = rest.strip_prefix("C ").unwrap_or(rest);
    let number = rest.split_whitespace().next()?;
    let (major, minor) = number.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// `(major, minor)` of a packed `cl_version` (major:10 | minor:10 | patch:12).
pub fn unpack_version(v: u32) -> (u32, u32) {
    (v >> 22, (v >> 12) & 0x3ff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version("OpenCL 3.0 PoCL HSTR: x"), Some((3, 0)));
        assert_eq!(parse_version("OpenCL C 1.2 PoCL"), Some((1, 2)));
        assert_eq!(parse_version("OpenCL C 3.0 "), Some((3, 0)));
        assert_eq!(parse_version("CUDA 12"), None);
        assert_eq!(unpack_version((3 << 22) | (1 << 12) | 7), (3, 1));
        assert_eq!(c_string(b"abc \0\0"), "abc");
    }
}
