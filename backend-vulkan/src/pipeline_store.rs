//! The device's `VkPipelineCache`, persisted in rosetta's disk cache
//! (`kernels/vulkan/pipelines/`).
//!
//! The entry's key is the device's identity as the cache data depends on it
//! — vendorID, deviceID, driverVersion, pipelineCacheUUID — and rosetta's
//! version. The data is loaded when the device opens, after checking its
//! header (`VkPipelineCacheHeaderVersionOne`) against the device ourselves;
//! Vulkan checks it again and starts empty if it disagrees, and if creating
//! the cache with the data fails, an empty cache is created instead. The
//! data is saved after compiles (at most once a second) and when the device
//! closes.

use crate::stats;
use crate::vk::device::Device;
use crate::vk::pipeline::PipelineCache;
use rosetta_core::disk_cache::DiskCache;
use rosetta_core::{Fingerprint, Result};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often compiles may write the data (the device's close always does).
const SAVE_INTERVAL: Duration = Duration::from_secs(1);
/// Size of `VkPipelineCacheHeaderVersionOne`.
const HEADER_BYTES: usize = 32;

/// What the pipeline-cache data of a device depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CacheIdentity {
    /// VkPhysicalDeviceProperties::vendorID.
    pub vendor_id: u32,
    /// VkPhysicalDeviceProperties::deviceID.
    pub device_id: u32,
    /// VkPhysicalDeviceProperties::driverVersion.
    pub driver_version: u32,
    /// VkPhysicalDeviceProperties::pipelineCacheUUID.
    pub uuid: [u8; 16],
    /// Whether the device bounds-checks buffer accesses
    /// (`ROSETTA_VULKAN_ROBUSTNESS`): its pipelines are other code.
    pub robust_buffer_access: bool,
}

impl CacheIdentity {
    fn key(&self) -> Fingerprint {
        Fingerprint::default()
            .str("rosetta vulkan pipeline cache v1")
            .str(env!("CARGO_PKG_VERSION"))
            .u64(self.vendor_id.into())
            .u64(self.device_id.into())
            .u64(self.driver_version.into())
            .bytes(&self.uuid)
            .u64(self.robust_buffer_access.into())
    }

    /// Whether `data` starts with a version-one header of this device
    /// (the header's fields are little-endian whatever the host).
    pub(crate) fn matches(&self, data: &[u8]) -> Result<(), String> {
        let word = |i: usize| -> Option<u32> {
            let bytes = data.get(i * 4..i * 4 + 4)?;
            Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
        };
        let (Some(size), Some(version), Some(vendor), Some(device)) =
            (word(0), word(1), word(2), word(3))
        else {
            return Err(format!("{} bytes: shorter than a header", data.len()));
        };
        if (size as usize) < HEADER_BYTES || size as usize > data.len() {
            return Err(format!("header size {size} in {} bytes", data.len()));
        }
        if version != 1 {
            return Err(format!("header version {version}"));
        }
        if vendor != self.vendor_id || device != self.device_id {
            return Err(format!(
                "made for vendor {vendor:#x} device {device:#x}, this is {:#x} {:#x}",
                self.vendor_id, self.device_id
            ));
        }
        if data[16..HEADER_BYTES] != self.uuid {
            return Err("another pipelineCacheUUID (driver)".into());
        }
        Ok(())
    }
}

/// The pipeline cache of one device and its entry on disk.
pub(crate) struct PipelineStore {
    cache: PipelineCache,
    disk: DiskCache,
    identity: CacheIdentity,
    dirty: bool,
    last_save: Option<Instant>,
}

impl PipelineStore {
    /// The device's pipeline cache, starting from the data on disk where it
    /// is there and checks out.
    pub(crate) fn open(device: &Arc<Device>, identity: CacheIdentity) -> Result<Self> {
        let disk = DiskCache::new("kernels/vulkan/pipelines");
        let key = identity.key();
        let cache = match disk.get(&key) {
            None => {
                tracing::debug!(key = %key.hex(), "vulkan: no pipeline-cache data on disk");
                PipelineCache::empty(device)?
            }
            Some(data) => match identity.matches(&data) {
                Err(why) => {
                    tracing::debug!(key = %key.hex(), "vulkan: pipeline-cache data rejected: {why}");
                    stats::count(&stats::PIPELINE_REJECTED);
                    PipelineCache::empty(device)?
                }
                // SAFETY: `data` is a whole entry of the disk cache (its
                // checksum checked out), which only `save` writes, with
                // the bytes of vkGetPipelineCacheData; its header names this
                // device and driver (checked just now).
                Ok(()) => match unsafe { PipelineCache::with_data(device, &data) } {
                    Ok(cache) => {
                        tracing::debug!(
                            key = %key.hex(),
                            bytes = data.len(),
                            "vulkan: pipeline-cache data loaded"
                        );
                        stats::count(&stats::PIPELINE_LOADED);
                        cache
                    }
                    Err(e) => {
                        tracing::debug!(
                            key = %key.hex(),
                            "vulkan: creating the pipeline cache with the data on disk failed \
                             ({}); starting empty",
                            e.chain()
                        );
                        stats::count(&stats::PIPELINE_REJECTED);
                        PipelineCache::empty(device)?
                    }
                },
            },
        };
        Ok(PipelineStore {
            cache,
            disk,
            identity,
            dirty: false,
            last_save: None,
        })
    }

    /// The cache, for creating pipelines.
    pub(crate) fn cache(&mut self) -> &mut PipelineCache {
        &mut self.cache
    }

    /// A pipeline was created through the cache: save its data unless the
    /// last save was under a second ago.
    pub(crate) fn compiled(&mut self) {
        self.dirty = true;
        if self
            .last_save
            .is_none_or(|at| at.elapsed() >= SAVE_INTERVAL)
        {
            self.save();
        }
    }

    /// Write the cache's data to disk if pipelines were added since the last
    /// save. Failures only cost time later: logged, not returned.
    pub(crate) fn save(&mut self) {
        if !self.dirty || !self.disk.enabled() {
            return;
        }
        self.dirty = false;
        self.last_save = Some(Instant::now());
        match self.cache.data() {
            Ok(data) => match self.identity.matches(&data) {
                Ok(()) => {
                    self.disk.put(&self.identity.key(), &data);
                    stats::count(&stats::PIPELINE_SAVED);
                    tracing::debug!(bytes = data.len(), "vulkan: pipeline-cache data saved");
                }
                Err(why) => {
                    tracing::debug!("vulkan: the driver's pipeline-cache data not saved: {why}");
                }
            },
            Err(e) => tracing::debug!("vulkan: reading pipeline-cache data: {}", e.chain()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> CacheIdentity {
        CacheIdentity {
            vendor_id: 0x10005,
            device_id: 0,
            driver_version: 1,
            uuid: [7; 16],
            robust_buffer_access: false,
        }
    }

    fn header(size: u32, version: u32, vendor: u32, device: u32, uuid: [u8; 16]) -> Vec<u8> {
        let mut data = Vec::new();
        for w in [size, version, vendor, device] {
            data.extend_from_slice(&w.to_le_bytes());
        }
        data.extend_from_slice(&uuid);
        data
    }

    #[test]
    fn headers_are_checked_field_by_field() {
        let id = identity();
        assert!(id.matches(&header(32, 1, 0x10005, 0, [7; 16])).is_ok());
        let mut longer = header(32, 1, 0x10005, 0, [7; 16]);
        longer.extend_from_slice(&[1, 2, 3]);
        assert!(id.matches(&longer).is_ok());
        assert!(id.matches(&header(32, 1, 0x10005, 0, [8; 16])).is_err());
        assert!(id.matches(&header(32, 1, 0x10de, 0, [7; 16])).is_err());
        assert!(id.matches(&header(32, 2, 0x10005, 0, [7; 16])).is_err());
        assert!(id.matches(&header(16, 1, 0x10005, 0, [7; 16])).is_err());
        assert!(id.matches(&header(64, 1, 0x10005, 0, [7; 16])).is_err());
        assert!(id.matches(&[1, 2, 3]).is_err());
        assert_ne!(
            identity().key(),
            CacheIdentity {
                driver_version: 2,
                ..identity()
            }
            .key()
        );
    }
}
