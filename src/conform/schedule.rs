//! Which devices may run at the same time: one group per physical device.

use crate::device::Device;

/// Devices that share one physical device (run one after another).
#[derive(Debug, Clone)]
pub struct PhysicalGroup {
    /// The physical device's key (`pci:...`, `uuid:...`, `host-cpu`, or the
    /// device id when the API says nothing).
    pub key: String,
    /// Indices into the device list.
    pub members: Vec<usize>,
}

/// The key of a device's physical device: its PCI bus id or UUID where the
/// API reports one; every CPU-type device shares `host-cpu` (they compete
/// for the same cores); otherwise the device alone.
pub fn physical_key(device: &Device) -> String {
    let info = device.info();
    if info.caps.device_type.is_cpu() {
        return "host-cpu".into();
    }
    info.physical.key().unwrap_or_else(|| info.id())
}

/// Group devices by physical device, in first-appearance order.
pub fn physical_groups(devices: &[Device]) -> Vec<PhysicalGroup> {
    let mut groups: Vec<PhysicalGroup> = Vec::new();
    for (i, device) in devices.iter().enumerate() {
        let key = physical_key(device);
        match groups.iter_mut().find(|g| g.key == key) {
            Some(g) => g.members.push(i),
            None => groups.push(PhysicalGroup {
                key,
                members: vec![i],
            }),
        }
    }
    groups
}
