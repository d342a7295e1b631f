//! The wgpu backend: the kernels' WGSL versions, compiled by naga, run on
//! every adapter wgpu finds (Vulkan, Metal, DX12, GL).
//!
//! Files, as in every backend: `adapter.rs` (device discovery and
//! capabilities), `buffers.rs`, `compile.rs` (shader modules, explicit bind
//! group layouts, pipelines per constants), `launch.rs`, `timing.rs`;
//! `device.rs` ties them into the `Backend` impl. wgpu needs three more small
//! modules: `queue.rs` (the in-order command recorder that batches work into
//! command buffers), `errors.rs` (error scopes and the mapping of wgpu's
//! errors to typed [`rosetta_core::Error`]s) and `prelude.rs` (the subgroup
//! helpers appended to kernels that have a `SUBGROUPS` constant).
//!
//! # How the kernel interface maps onto wgpu
//! - Constants are WGSL `override`s, set by name through the pipeline's
//!   compilation options; workgroup arrays are sized by override expressions.
//! - Binding `i` is a storage buffer at `@group(0) @binding(i)`; the params
//!   are a uniform struct at `@binding(bindings.len())`, bound from one
//!   per-device uniform arena with a dynamic offset per launch.
//! - Bind group layouts are built from `KernelDef::bindings` (never derived
//!   from the shader, which would drop bindings a variant does not use).
//! - Timing uses timestamp queries (written between commands where the
//!   adapter allows it, else at the start and end of each compute pass), and
//!   the host clock only on adapters without timestamps.

mod adapter;
mod buffers;
mod compile;
mod device;
mod errors;
mod launch;
mod prelude;
mod queue;
mod timing;

pub use adapter::discover;
pub use device::WgpuDevice;
