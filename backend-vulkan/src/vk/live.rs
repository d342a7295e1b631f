//! Process-wide state: counters of live Vulkan objects (incremented where an
//! object is created, decremented in its owner's `Drop`) and of memory
//! allocations, which the leak tests and the allocation report read; and the
//! lock that serialises setting up and destroying instances and devices (and
//! every call of drivers that must run alone).

use rosetta_core::process_lock::ProcessLock;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// Held while instances and devices are set up (discovery) or destroyed,
/// and across every call of a driver that runs exclusively (NVIDIA's, see
/// `driver`). NVIDIA's driver (580.159) deadlocked — one thread spinning
/// inside the driver, another blocked on one of its locks — when devices of
/// one process were opened, used and closed from several threads at once.
/// Re-entrant within one thread: a discovery that fails drops what it made,
/// a driver call destroys buffers.
static EXCLUSIVE: ProcessLock = ProcessLock::new();

/// Run `f` while no other thread of the process is inside a serialized
/// section (re-entrant within one thread).
pub(crate) fn serialized<T>(f: impl FnOnce() -> T) -> T {
    EXCLUSIVE.run(f)
}

/// How many Vulkan objects of each kind exist in this process right now,
/// over every device rosetta opened. All zero once every device is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LiveObjects {
    /// `VkInstance`s (with their debug messengers).
    pub instances: i64,
    /// `VkDevice`s.
    pub devices: i64,
    /// `VkBuffer`s.
    pub buffers: i64,
    /// `VkDeviceMemory` blocks (gpu-allocator's; many buffers share one).
    pub memory_blocks: i64,
    /// `VkPipeline`s.
    pub pipelines: i64,
    /// `VkPipelineCache`s.
    pub pipeline_caches: i64,
    /// `VkShaderModule`s.
    pub shader_modules: i64,
    /// `VkDescriptorSetLayout`s and `VkPipelineLayout`s.
    pub layouts: i64,
    /// Command batches: a `VkCommandPool` (with its command buffer), a
    /// `VkFence` and a `VkDescriptorPool` each.
    pub batches: i64,
    /// `VkQueryPool`s.
    pub query_pools: i64,
}

/// Memory traffic since the process started (cumulative, never decreasing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AllocationCounts {
    /// Buffers created (storage and staging): without sub-allocation, each
    /// would have been one `vkAllocateMemory`.
    pub buffers: u64,
    /// `vkAllocateMemory` calls made (gpu-allocator's memory blocks).
    pub memory_blocks: u64,
}

/// One kind of live object.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    Instance,
    Device,
    Buffer,
    MemoryBlock,
    Pipeline,
    PipelineCache,
    ShaderModule,
    Layout,
    Batch,
    QueryPool,
}

const KINDS: usize = 10;
static LIVE: [AtomicI64; KINDS] = [const { AtomicI64::new(0) }; KINDS];
static BUFFERS_CREATED: AtomicU64 = AtomicU64::new(0);
static BLOCKS_CREATED: AtomicU64 = AtomicU64::new(0);

/// One object of `kind` was created.
pub(crate) fn created(kind: Kind) {
    LIVE[kind as usize].fetch_add(1, Ordering::Relaxed);
    match kind {
        Kind::Buffer => BUFFERS_CREATED.fetch_add(1, Ordering::Relaxed),
        Kind::MemoryBlock => BLOCKS_CREATED.fetch_add(1, Ordering::Relaxed),
        _ => 0,
    };
}

/// One object of `kind` was destroyed.
pub(crate) fn destroyed(kind: Kind) {
    LIVE[kind as usize].fetch_sub(1, Ordering::Relaxed);
}

/// The live objects now.
pub fn live_objects() -> LiveObjects {
    let get = |kind: Kind| LIVE[kind as usize].load(Ordering::Relaxed);
    LiveObjects {
        instances: get(Kind::Instance),
        devices: get(Kind::Device),
        buffers: get(Kind::Buffer),
        memory_blocks: get(Kind::MemoryBlock),
        pipelines: get(Kind::Pipeline),
        pipeline_caches: get(Kind::PipelineCache),
        shader_modules: get(Kind::ShaderModule),
        layouts: get(Kind::Layout),
        batches: get(Kind::Batch),
        query_pools: get(Kind::QueryPool),
    }
}

/// Buffers and memory blocks created since the process started.
pub fn allocation_counts() -> AllocationCounts {
    AllocationCounts {
        buffers: BUFFERS_CREATED.load(Ordering::Relaxed),
        memory_blocks: BLOCKS_CREATED.load(Ordering::Relaxed),
    }
}
