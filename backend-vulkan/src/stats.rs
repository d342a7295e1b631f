//! Process-wide counters of the persistent caches (what the cache tests and
//! the cold/warm measurements read). A leaf module.

use std::sync::atomic::{AtomicU64, Ordering};

/// What the persistent caches did since the process started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// SPIR-V modules read from the disk cache (glslang skipped).
    pub spirv_hits: u64,
    /// SPIR-V modules compiled by glslang because none was cached.
    pub spirv_misses: u64,
    /// Cached SPIR-V modules rejected (not SPIR-V, or failing the checks)
    /// and compiled again.
    pub spirv_rejected: u64,
    /// Devices opened with pipeline-cache data from disk.
    pub pipeline_data_loaded: u64,
    /// Pipeline-cache data on disk rejected (header of another device or
    /// driver, or refused by Vulkan); those devices started empty.
    pub pipeline_data_rejected: u64,
    /// Pipeline-cache data written to disk.
    pub pipeline_data_saved: u64,
}

pub(crate) static SPIRV_HITS: AtomicU64 = AtomicU64::new(0);
pub(crate) static SPIRV_MISSES: AtomicU64 = AtomicU64::new(0);
pub(crate) static SPIRV_REJECTED: AtomicU64 = AtomicU64::new(0);
pub(crate) static PIPELINE_LOADED: AtomicU64 = AtomicU64::new(0);
pub(crate) static PIPELINE_REJECTED: AtomicU64 = AtomicU64::new(0);
pub(crate) static PIPELINE_SAVED: AtomicU64 = AtomicU64::new(0);

/// Count one event.
pub(crate) fn count(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

/// The counters now.
pub fn cache_stats() -> CacheStats {
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    CacheStats {
        spirv_hits: get(&SPIRV_HITS),
        spirv_misses: get(&SPIRV_MISSES),
        spirv_rejected: get(&SPIRV_REJECTED),
        pipeline_data_loaded: get(&PIPELINE_LOADED),
        pipeline_data_rejected: get(&PIPELINE_REJECTED),
        pipeline_data_saved: get(&PIPELINE_SAVED),
    }
}
