//! Where a GPU sits on the machine, in the forms reports group by: the PCI
//! address as `dddd:bb:dd.f` (lower-case hex) and the UUID as 32 hex digits;
//! and the kernel module's version, for the device's driver text.

/// The PCI address `cuDeviceGetPCIBusId` wrote (`0000:1B:00.0`, or with an
/// 8-digit domain) as `dddd:bb:dd.f`; `None` when it does not parse.
pub(crate) fn pci_bus_id(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let (rest, function) = raw.rsplit_once('.')?;
    let mut parts = rest.rsplitn(3, ':');
    let device = parts.next()?;
    let bus = parts.next()?;
    let domain = parts.next().unwrap_or("0");
    let hex = |text: &str, max: u32| {
        u32::from_str_radix(text, 16)
            .ok()
            .filter(|&v| v <= max && !text.is_empty() && text.len() <= 8)
    };
    let (domain, bus, device, function) = (
        hex(domain, u32::MAX)?,
        hex(bus, 0xff)?,
        hex(device, 0x1f)?,
        hex(function, 0x7)?,
    );
    Some(format!("{domain:04x}:{bus:02x}:{device:02x}.{function:x}"))
}

/// A UUID's 16 bytes as 32 lower-case hex digits.
pub(crate) fn uuid_hex(bytes: &[u8; 16]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The NVIDIA kernel module's version ("580.65.06") from the text of
/// `/proc/driver/nvidia/version`.
pub(crate) fn module_version(text: &str) -> Option<String> {
    let line = text.lines().next()?;
    let rest = line.split("Kernel Module").nth(1)?;
    rest.split_whitespace()
        .find(|word| word.starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_addresses_are_normalised() {
        assert_eq!(pci_bus_id("0000:1B:00.0").as_deref(), Some("0000:1b:00.0"));
        assert_eq!(
            pci_bus_id("00000000:C1:00.0").as_deref(),
            Some("0000:c1:00.0")
        );
        assert_eq!(
            pci_bus_id("0001:3b:1f.7\n").as_deref(),
            Some("0001:3b:1f.7")
        );
        assert_eq!(pci_bus_id("1b:00.0").as_deref(), Some("0000:1b:00.0"));
        assert_eq!(
            pci_bus_id("10000:01:00.0").as_deref(),
            Some("10000:01:00.0")
        );
        for bad in [
            "",
            "garbage",
            "0000:1b:00",
            "0000:1g:00.0",
            "0000:100:00.0",
            "0000:1b:20.0",
            "0000:1b:00.8",
            "0:0:0:0.0",
        ] {
            assert_eq!(pci_bus_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn uuids_are_32_hex_digits() {
        let mut bytes = [0u8; 16];
        bytes[0] = 0xAB;
        bytes[15] = 0x01;
        let hex = uuid_hex(&bytes);
        assert_eq!(hex.len(), 32);
        assert_eq!(hex, "ab000000000000000000000000000001");
    }

    #[test]
    fn module_versions_are_read_from_proc() {
        let proprietary = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:31 UTC 2025\nGCC version: gcc";
        assert_eq!(module_version(proprietary).as_deref(), Some("580.65.06"));
        let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.82.07  Release Build  (dvs-builder@U16-I3-B03-4-3)";
        assert_eq!(module_version(open).as_deref(), Some("580.82.07"));
        assert_eq!(module_version("something else"), None);
        assert_eq!(module_version(""), None);
    }
}
