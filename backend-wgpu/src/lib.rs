//! The wgpu backend: the kernels' WGSL versions, compiled by naga, run on
//! every adapter wgpu finds (Vulkan, Metal, DX12, GL), as a
//! [`rosetta_core::Driver`] under rosetta-core's checked layer (which owns
//! handles, checks, the kernel cache, the buffer pool and timing tokens).
//!
//! Modules, each using only those listed before it:
//! - `errors.rs`: error scopes, uncaptured errors and device loss, mapped to
//!   [`rosetta_core::Error`];
//! - `vulkan_facts.rs`: the compute-unit count and device-local memory of
//!   a Vulkan adapter, read from the driver underneath (wgpu reports
//!   neither), the crate's only wgpu-hal access;
//! - `lifecycle.rs`: one wgpu instance created or torn down at a time;
//! - `gpu.rs`: the device and queue, waiting and mapping, and the crate's
//!   only `unsafe` wgpu calls besides that one;
//! - `prelude.rs`: the subgroup helpers appended to kernels that have a
//!   `SUBGROUPS` constant;
//! - `memory.rs`: buffers; `queue.rs`: the in-order command recorder and the
//!   params arena; `timing.rs`: timestamp marks in a query ring;
//! - `pipeline_cache.rs`: the persistent pipeline cache (Vulkan adapters);
//! - `compile.rs`: shader modules, explicit layouts, pipelines;
//! - `bindings.rs`: the bind-group cache; `launch.rs`: one dispatch;
//! - `driver.rs`: the `Driver` impl; `adapter.rs`: discovery and
//!   capabilities.
//!
//! # How the kernel interface maps onto wgpu
//! - Constants are WGSL `override`s, set by name through the pipeline's
//!   compilation options; workgroup arrays are sized by override expressions.
//! - Binding `i` is a storage buffer at `@group(0) @binding(i)`; the params
//!   are a uniform struct at `@binding(bindings.len())`, bound from one
//!   per-device uniform arena with a dynamic offset per launch.
//! - Bind group layouts are built from `KernelDef::bindings` (never derived
//!   from the shader, which would drop bindings a variant does not use).
//!
//! # Timing
//! Where the adapter has `TIMESTAMP_QUERY_INSIDE_ENCODERS` (lavapipe's Vulkan
//! adapter and Mesa's GL adapter both do), timestamps are written between
//! commands into a ring of query slots; `caps.timestamps` is true. Elsewhere
//! there are no device marks and the checked layer times with the host
//! clock.
//!
//! # Persistent cache
//! On adapters with `Features::PIPELINE_CACHE` (Vulkan), pipelines go through
//! a `wgpu::PipelineCache` stored in `kernels/wgpu` of the disk cache
//! (`ROSETTA_CACHE_DIR`; `off` disables it). GL, Metal and DX12 adapters
//! have no pipeline cache in wgpu 30, so their kernels are compiled afresh
//! in every process.
//!
//! # Environment
//! wgpu's own variables apply: `WGPU_BACKEND` narrows the backends searched,
//! `WGPU_VALIDATION` / `WGPU_DEBUG` turn on validation layers.

#![warn(missing_docs)]

mod adapter;
mod bindings;
mod compile;
mod driver;
mod errors;
mod gpu;
mod launch;
mod lifecycle;
mod memory;
mod pipeline_cache;
mod prelude;
mod queue;
#[cfg(test)]
mod tests;
mod timing;
mod vulkan_facts;

pub use adapter::discover;
