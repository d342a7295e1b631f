//! Workload sizes by preset and device.

use super::workload::Size;
use rosetta_core::DeviceInfo;

/// `log2` of a preset's largest 1-D workload: 2^28 on GPUs at `large`,
/// smaller on CPU-type devices (the CPU backend, lavapipe, PoCL).
pub fn big_log2(size: Size, device: &DeviceInfo) -> u32 {
    match (size, device.caps.device_type.is_cpu()) {
        (Size::Small, _) => 20,
        (Size::Medium, false) => 24,
        (Size::Medium, true) => 22,
        (Size::Large, false) => 28,
        (Size::Large, true) => 26,
    }
}

/// Words of the copy roofline for a size preset on a device (the largest
/// single-array workload of the preset).
pub fn roofline_words(size: Size, device: &DeviceInfo) -> u64 {
    1 << big_log2(size, device)
}
