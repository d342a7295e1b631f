//! Platform and device info: the parameters this backend reads, typed
//! readers over [`sys::device_info`], and the parsing of version strings.
//! A device that does not answer a query gets `None`, never a panic.

use crate::sys::{self, DeviceId, PlatformId};

// Info parameters (cl.h, cl_ext.h). Vendor queries are only made when the
// device lists the extension that defines them.
pub(crate) const CL_PLATFORM_VERSION: u32 = 0x0901;
pub(crate) const CL_PLATFORM_NAME: u32 = 0x0902;
pub(crate) const CL_DEVICE_TYPE: u32 = 0x1000;
pub(crate) const CL_DEVICE_MAX_COMPUTE_UNITS: u32 = 0x1002;
pub(crate) const CL_DEVICE_MAX_WORK_GROUP_SIZE: u32 = 0x1004;
pub(crate) const CL_DEVICE_MAX_WORK_ITEM_SIZES: u32 = 0x1005;
pub(crate) const CL_DEVICE_MAX_MEM_ALLOC_SIZE: u32 = 0x1010;
pub(crate) const CL_DEVICE_GLOBAL_MEM_SIZE: u32 = 0x101F;
pub(crate) const CL_DEVICE_LOCAL_MEM_TYPE: u32 = 0x1022;
pub(crate) const CL_DEVICE_LOCAL_MEM_SIZE: u32 = 0x1023;
pub(crate) const CL_DEVICE_PROFILING_TIMER_RESOLUTION: u32 = 0x1025;
pub(crate) const CL_DEVICE_AVAILABLE: u32 = 0x1027;
pub(crate) const CL_DEVICE_COMPILER_AVAILABLE: u32 = 0x1028;
pub(crate) const CL_DEVICE_QUEUE_PROPERTIES: u32 = 0x102A;
pub(crate) const CL_DEVICE_NAME: u32 = 0x102B;
pub(crate) const CL_DEVICE_VERSION: u32 = 0x102F;
pub(crate) const CL_DEVICE_EXTENSIONS: u32 = 0x1030;
pub(crate) const CL_DRIVER_VERSION: u32 = 0x102D;
pub(crate) const CL_DEVICE_HOST_UNIFIED_MEMORY: u32 = 0x1035;
pub(crate) const CL_DEVICE_OPENCL_C_VERSION: u32 = 0x103D;
pub(crate) const CL_DEVICE_OPENCL_C_ALL_VERSIONS: u32 = 0x1066;
pub(crate) const CL_DEVICE_OPENCL_C_FEATURES: u32 = 0x106F;
pub(crate) const CL_DEVICE_WARP_SIZE_NV: u32 = 0x4003;
pub(crate) const CL_DEVICE_WAVEFRONT_WIDTH_AMD: u32 = 0x4043;
pub(crate) const CL_DEVICE_SUB_GROUP_SIZES_INTEL: u32 = 0x4108;
pub(crate) const CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT: u32 = 0x4231;

pub(crate) const CL_DEVICE_TYPE_CPU: u64 = 1 << 1;
pub(crate) const CL_DEVICE_TYPE_GPU: u64 = 1 << 2;
pub(crate) const CL_QUEUE_PROFILING_ENABLE: u64 = 1 << 1;
/// `CL_DEVICE_GLOBAL_FP_ATOMIC_ADD_EXT` in the fp-atomic capabilities.
pub(crate) const CL_FP_ATOMIC_GLOBAL_ADD: u64 = 1 << 1;
pub(crate) const CL_DEVICE_ADDRESS_BITS: u32 = 0x100D;
pub(crate) const CL_DEVICE_UUID_KHR: u32 = 0x106A;
pub(crate) const CL_DEVICE_PCI_BUS_ID_NV: u32 = 0x4008;
pub(crate) const CL_DEVICE_PCI_SLOT_ID_NV: u32 = 0x4009;
pub(crate) const CL_DEVICE_PCI_DOMAIN_ID_NV: u32 = 0x400A;
pub(crate) const CL_DEVICE_PCI_BUS_INFO_KHR: u32 = 0x410F;

/// A platform info string (empty when the platform does not answer).
pub(crate) fn platform_string(platform: PlatformId, param: u32) -> String {
    sys::platform_info(platform, param)
        .map(|b| sys::c_string(&b))
        .unwrap_or_default()
}

/// Typed device info queries; `None` when the device does not answer.
pub(crate) struct Query(pub(crate) DeviceId);

impl Query {
    fn raw(&self, param: u32) -> Option<Vec<u8>> {
        sys::device_info(self.0, param).ok()
    }

    /// A string.
    pub(crate) fn string(&self, param: u32) -> Option<String> {
        self.raw(param).map(|b| sys::c_string(&b))
    }

    /// A `cl_uint` (or `cl_bool`).
    pub(crate) fn u32(&self, param: u32) -> Option<u32> {
        let b = self.raw(param)?;
        Some(u32::from_ne_bytes(b.get(..4)?.try_into().ok()?))
    }

    /// A `cl_ulong` (or bitfield).
    pub(crate) fn u64(&self, param: u32) -> Option<u64> {
        let b = self.raw(param)?;
        Some(u64::from_ne_bytes(b.get(..8)?.try_into().ok()?))
    }

    /// A `size_t` value.
    pub(crate) fn size(&self, param: u32) -> Option<u64> {
        self.sizes(param)?.first().copied()
    }

    /// An array of `size_t`.
    pub(crate) fn sizes(&self, param: u32) -> Option<Vec<u64>> {
        const W: usize = std::mem::size_of::<usize>();
        let b = self.raw(param)?;
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

    /// An array of `cl_uint`.
    pub(crate) fn u32s(&self, param: u32) -> Option<Vec<u32>> {
        let b = self.raw(param)?;
        Some(
            b.chunks_exact(4)
                .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )
    }

    /// Raw bytes, exactly `len` of them.
    pub(crate) fn bytes(&self, param: u32, len: usize) -> Option<Vec<u8>> {
        self.raw(param).filter(|b| b.len() == len)
    }

    /// An array of `cl_name_version` (OpenCL 3.0): (version, name).
    pub(crate) fn name_versions(&self, param: u32) -> Option<Vec<(u32, String)>> {
        const NAME: usize = 64;
        let b = self.raw(param)?;
        Some(
            b.chunks_exact(4 + NAME)
                .map(|c| {
                    let version = u32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
                    (version, sys::c_string(&c[4..]))
                })
                .collect(),
        )
    }
}

/// `(major, minor)` from "OpenCL 3.0 …" or "OpenCL C 1.2 …".
pub(crate) fn parse_version(text: &str) -> Option<(u32, u32)> {
    let rest = text.strip_prefix("OpenCL")?.trim_start();
    let rest = rest.strip_prefix("C ").unwrap_or(rest);
    let number = rest.split_whitespace().next()?;
    let (major, minor) = number.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// `(major, minor)` of a packed `cl_version` (major:10 | minor:10 | patch:12).
pub(crate) fn unpack_version(v: u32) -> (u32, u32) {
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
        assert_eq!(sys::c_string(b"abc \0\0"), "abc");
    }
}
