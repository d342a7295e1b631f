//! The persistent compiled-kernel cache: one `wgpu::PipelineCache` per
//! device, seeded at open from the disk cache (`kernels/wgpu` under
//! [`rosetta_core::disk_cache::root`]) and written back after compiles and
//! when the device closes.
//!
//! - **Where it exists:** devices with `Features::PIPELINE_CACHE`, which in
//!   wgpu 30 means Vulkan adapters. GL, Metal and DX12 adapters have none;
//!   their kernels are compiled afresh by every process (the drivers may
//!   keep caches of their own).
//! - **Key:** one entry per device and driver: a fingerprint of
//!   `wgpu::util::pipeline_cache_key` (backend, vendor and device id), the
//!   adapter's name, its driver and driver version. The data covers every
//!   pipeline the device has built, so no per-kernel key is needed; a new
//!   kernel, constant or source only adds to it.
//! - **Never trusted blindly:** the disk cache checks each entry's key and
//!   checksum; wgpu checks its header (format, adapter, the driver's cache
//!   UUID) and, with `fallback`, starts empty on data it cannot use; the
//!   driver checks its own. A rejected entry costs a normal compile.
//! - **When saved:** after a compile, at most every [`SAVE_INTERVAL`] (the
//!   data holds every pipeline so far, so saving after each would write
//!   quadratically), and on close when anything is unsaved. Entries are
//!   written atomically; two processes saving one key leave one whole entry.

use crate::gpu::{save_pipeline_cache, Gpu};
use rosetta_core::disk_cache::DiskCache;
use rosetta_core::{Api, Fingerprint};
use std::time::{Duration, Instant};

/// Least time between two saves after compiles.
pub(crate) const SAVE_INTERVAL: Duration = Duration::from_secs(2);

/// One device's pipeline cache and where it is stored.
pub(crate) struct PersistentCache {
    cache: wgpu::PipelineCache,
    disk: DiskCache,
    key: Fingerprint,
    /// Pipelines built since the last save.
    unsaved: u32,
    last_saved: Option<Instant>,
    /// Bytes of stored data handed to wgpu at open (0: none stored, or
    /// refused even with `fallback`).
    seeded: usize,
}

impl PersistentCache {
    /// The device's cache, seeded from `disk`; `None` where the device has
    /// no pipeline caches or `disk` is off.
    pub(crate) fn open(gpu: &Gpu, adapter: &wgpu::AdapterInfo, disk: DiskCache) -> Option<Self> {
        if !disk.enabled()
            || !gpu
                .device
                .features()
                .contains(wgpu::Features::PIPELINE_CACHE)
        {
            return None;
        }
        let adapter_key = wgpu::util::pipeline_cache_key(adapter)?;
        let key = Fingerprint::default()
            .str("rosetta pipeline cache v1")
            .str(Api::Wgpu.name())
            .str(&adapter_key)
            .str(&adapter.name)
            .str(&adapter.driver)
            .str(&adapter.driver_info);
        let (cache, seeded) = gpu.load_pipeline_cache(&disk, &key)?;
        Some(PersistentCache {
            cache,
            disk,
            key,
            unsaved: 0,
            last_saved: None,
            seeded,
        })
    }

    /// The cache to pass to pipeline creation.
    pub(crate) fn cache(&self) -> &wgpu::PipelineCache {
        &self.cache
    }

    /// Bytes of stored data handed to wgpu at open (wgpu may still have
    /// dropped them: with `fallback` it says nothing).
    pub(crate) fn seeded(&self) -> usize {
        self.seeded
    }

    /// Overwrite the stored entry with `payload` (tests of damaged data).
    #[cfg(test)]
    pub(crate) fn store_raw(&self, payload: &[u8]) {
        self.disk.put(&crate::gpu::entry_key(&self.key), payload);
    }

    /// A pipeline was built with the cache: save if the last save is old.
    pub(crate) fn built(&mut self) {
        self.unsaved += 1;
        if self
            .last_saved
            .is_none_or(|at| at.elapsed() >= SAVE_INTERVAL)
        {
            self.save();
        }
    }

    /// Write the cache's data to disk if pipelines were built since the
    /// last save.
    pub(crate) fn save(&mut self) {
        if self.unsaved == 0 {
            return;
        }
        let bytes = save_pipeline_cache(&self.cache, &self.disk, &self.key);
        tracing::debug!(
            bytes,
            pipelines = self.unsaved,
            "wgpu: pipeline cache saved"
        );
        self.unsaved = 0;
        self.last_saved = Some(Instant::now());
    }
}

impl Drop for PersistentCache {
    fn drop(&mut self) {
        self.save();
    }
}
