//! rosetta's Vulkan backend: ash with the loader opened at run time (no
//! link-time Vulkan dependency), GLSL compiled to SPIR-V at run time with
//! glslang, constants as specialization constants, params as push constants,
//! device-local storage buffers, batched command buffers, timestamp queries.
//!
//! Files, as in every backend: `adapter.rs` (device discovery and
//! capabilities), `buffers.rs`, `compile.rs` (GLSL → SPIR-V → pipelines, with
//! a cache), `launch.rs`, `timing.rs`; `device.rs` ties them into the
//! `Backend` impl. Vulkan needs a few more: `gpu.rs` (the thin wrappers that
//! hold every `unsafe` Vulkan call), `memory.rs` (memory types, allocations,
//! mapping), `queue.rs` (batches, barriers, fences) and `validation.rs`
//! (`ROSETTA_VULKAN_VALIDATION=1`: the Khronos layer and a debug messenger).

mod adapter;
mod buffers;
mod compile;
mod device;
mod gpu;
mod launch;
mod memory;
mod queue;
mod timing;
mod validation;

pub use adapter::{discover, discover_devices, discover_devices_with, Options};
pub use device::VulkanDevice;
pub use gpu::LiveObjects;
pub use validation::{STAGING_ENV, VALIDATION_ENV};

/// Compile a GLSL compute shader to SPIR-V the way the backend does (with
/// `HAVE_SUBGROUPS` defined when `subgroups`); `Err` carries glslang's log.
/// For tests and tools that check kernel sources without a device.
pub fn compile_glsl(source: &str, subgroups: bool) -> Result<Vec<u32>, String> {
    compile::glsl_to_spirv(source, subgroups)
}
