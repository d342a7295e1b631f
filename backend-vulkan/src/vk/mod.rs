//! Every raw Vulkan call of the crate, behind owned handles.
//!
//! Each Vulkan object is a Rust value whose `Drop` destroys it, and whose
//! owners make that correct: children hold an `Arc` of their device (and the
//! device of its instance), so parents outlive children; command batches hold
//! an `Arc` of every buffer, pipeline and query pool they record until their
//! fence has signalled, so nothing is destroyed while the device may use it.
//! Where a call's validity depends on facts the wrappers cannot check (valid
//! SPIR-V, a shader that stays inside its buffers), the wrapper is an
//! `unsafe fn` with a `# Safety` section; everything else is checked at run
//! time and refused as [`rosetta_core::Error::Internal`].
//!
//! - [`instance`]: the loader, the `VkInstance`, physical devices;
//! - [`messenger`]: the validation layer's debug-utils callback;
//! - [`device`]: the `VkDevice` and its queue;
//! - [`memory`]: gpu-allocator and buffers, host access to mapped memory;
//! - [`pipeline`]: shader modules, layouts, pipelines, the pipeline cache;
//! - [`batch`]: command buffers with their fence and descriptor pool;
//! - [`query`]: timestamp query pools;
//! - [`error`]: `VkResult` → [`rosetta_core::Error`]; [`live`]: counters.

pub(crate) mod batch;
pub(crate) mod device;
pub(crate) mod error;
pub(crate) mod instance;
pub(crate) mod live;
pub(crate) mod memory;
pub(crate) mod messenger;
pub(crate) mod pipeline;
pub(crate) mod query;
