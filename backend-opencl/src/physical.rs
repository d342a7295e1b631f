//! Where the device sits on the machine, from whatever the driver reports:
//! `cl_khr_device_uuid` (the UUID CUDA and Vulkan report too),
//! `cl_khr_pci_bus_info`, or NVIDIA's `cl_nv_device_attribute_query` PCI
//! bus / slot / domain. Nothing is guessed: without a domain there is no PCI
//! bus id.

use crate::info::{self, Query};
use rosetta_core::PhysicalId;

/// The device's PCI bus id and UUID, where its driver reports them.
pub(crate) fn physical(q: &Query, has: impl Fn(&str) -> bool) -> PhysicalId {
    let uuid = if has("cl_khr_device_uuid") {
        q.bytes(info::CL_DEVICE_UUID_KHR, 16).map(|b| uuid_hex(&b))
    } else {
        None
    };
    let khr = if has("cl_khr_pci_bus_info") {
        q.u32s(info::CL_DEVICE_PCI_BUS_INFO_KHR)
            .and_then(|v| match v[..] {
                [domain, bus, device, function] => Some(pci_bus_id(domain, bus, device, function)),
                _ => None,
            })
    } else {
        None
    };
    let nvidia = || {
        if !has("cl_nv_device_attribute_query") {
            return None;
        }
        let bus = q.u32(info::CL_DEVICE_PCI_BUS_ID_NV)?;
        let slot = q.u32(info::CL_DEVICE_PCI_SLOT_ID_NV)?;
        // Older drivers lack the domain query: then the id is ambiguous on
        // multi-domain machines, and left out.
        let domain = q.u32(info::CL_DEVICE_PCI_DOMAIN_ID_NV)?;
        Some(nvidia_pci_bus_id(domain, bus, slot))
    };
    PhysicalId {
        pci_bus_id: khr.or_else(nvidia),
        uuid: uuid.filter(|u| u.bytes().any(|c| c != b'0')),
    }
}

/// `dddd:bb:dd.f`, lower-case hex, as CUDA and Vulkan report it.
fn pci_bus_id(domain: u32, bus: u32, device: u32, function: u32) -> String {
    format!("{domain:04x}:{bus:02x}:{device:02x}.{function:x}")
}

/// NVIDIA's slot id packs device and function as PCI's `devfn` does
/// (`device << 3 | function`).
fn nvidia_pci_bus_id(domain: u32, bus: u32, slot: u32) -> String {
    pci_bus_id(domain, bus & 0xff, (slot >> 3) & 0x1f, slot & 7)
}

/// 16 bytes as 32 lower-case hex digits.
fn uuid_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_formatted_as_cuda_and_vulkan_do() {
        assert_eq!(pci_bus_id(0, 0x1b, 0, 0), "0000:1b:00.0");
        assert_eq!(nvidia_pci_bus_id(1, 0x41, (3 << 3) | 1), "0001:41:03.1");
        assert_eq!(
            uuid_hex(&[0xab; 16]),
            "abababababababababababababababab".to_string()
        );
    }
}
