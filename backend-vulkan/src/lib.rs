//! rosetta's Vulkan backend: ash with the loader opened at run time (no
//! link-time Vulkan dependency), the kernels' GLSL versions compiled to
//! SPIR-V with glslang at run time, as a [`rosetta_core::Driver`] under
//! rosetta-core's checked layer (which owns handles, checks, the kernel
//! cache, the buffer pool and timing tokens).
//!
//! Modules, each using only those listed before it:
//! - `validation`: the validation layer's messages, environment flags;
//!   `stats`: cache counters;
//! - `vk`: every raw Vulkan call, behind owned handles whose `Drop` is
//!   correct, and `unsafe fn`s where validity rests on the caller;
//! - `spirv`: what a SPIR-V module must pass before Vulkan sees it;
//!   `glsl`: glslang and the SPIR-V disk cache; `fold`: constants folded
//!   into the GLSL (a diagnostic);
//! - `queue`: the in-order queue as command batches; `transfer`: buffers
//!   and data movement; `timing`: timestamps as a ring of query slots;
//! - `pipeline_store`: the pipeline cache on disk; `compile`: specs to
//!   pipelines;
//! - `driver`: the `Driver` impl; `adapter`: discovery and capabilities.
//!
//! # How the kernel interface maps onto Vulkan
//! - Constants are specialization constants (`constant_id` = position,
//!   `GROUP_SIZE` also `local_size_x_id = 0`): one shader module per source,
//!   one compute pipeline per spec. Devices with subgroup arithmetic in
//!   compute shaders compile with `HAVE_SUBGROUPS=1` defined.
//! - Binding `i` is a storage buffer at `set = 0, binding = i`; the params
//!   are push constants (32-bit words in order).
//! - Memory: buffers are sub-allocated by gpu-allocator. Where device-local
//!   memory is host-visible (lavapipe, integrated GPUs), the host reads and
//!   writes it directly once no queued command uses the buffer; elsewhere
//!   data moves through staging buffers.
//!
//! # Timing
//! Timestamps are written at the bottom of the pipe into a ring of 4096
//! query slots; a mark whose slot was reused is refused, never misread.
//!
//! # Persistent caches
//! In rosetta's disk cache (`ROSETTA_CACHE_DIR`; `off` disables it):
//! `kernels/vulkan/spirv` keeps glslang's output by source text and defines
//! (glslang's start-up dominates a cold first compile on lavapipe);
//! `kernels/vulkan/pipelines` keeps the `VkPipelineCache` data of each
//! device and driver. Both are checked before use and rebuilt when rejected.
//!
//! # Several devices in one process
//! Discovery, and the creation and destruction of instances and devices,
//! run one at a time process-wide. NVIDIA devices run every call that way:
//! driver 580.159 deadlocked (in about half of the runs of the contract
//! suite's parallel tests on an H200) when devices of one process were used,
//! opened and closed from several threads at once; serialised, 0 of 12 runs
//! did. Other drivers' devices run in parallel.
//!
//! # Environment
//! `ROSETTA_VULKAN_VALIDATION=1` enables VK_LAYER_KHRONOS_validation (its
//! messages come back through `take_diagnostics`);
//! `ROSETTA_VULKAN_STAGING=1` forces the staging path on unified memory;
//! `ROSETTA_VULKAN_FOLD_CONSTANTS=1` compiles each spec with its constants
//! folded into the GLSL (one module per spec; a diagnostic, `fold.rs`).

#![warn(missing_docs)]

mod adapter;
mod compile;
mod driver;
mod fold;
mod glsl;
mod pipeline_store;
mod queue;
mod spirv;
mod stats;
mod timing;
mod transfer;
mod validation;
mod vk;

pub use adapter::{discover, discover_with, Options};
pub use stats::{cache_stats, CacheStats};
pub use validation::{ROBUSTNESS_ENV, STAGING_ENV, STATISTICS_ENV, VALIDATION_ENV};
pub use vk::live::{allocation_counts, live_objects, AllocationCounts, LiveObjects};

/// Compile a GLSL compute shader to SPIR-V words the way the backend does
/// (target Vulkan 1.1 / SPIR-V 1.3, `HAVE_SUBGROUPS=1` defined when
/// `subgroups`), without a device and without the disk cache. `Err` carries
/// glslang's log. For tools and tests that check kernel sources.
pub fn compile_glsl(source: &str, subgroups: bool) -> Result<Vec<u32>, String> {
    glsl::compile(source, subgroups)
}
