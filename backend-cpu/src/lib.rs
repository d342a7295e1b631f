//! The CPU backend: the kernels' Rust versions run workgroup by workgroup,
//! workgroups in parallel on rayon's pool, under the workgroup model of
//! `rosetta_core::workgroup` (shared memory as a per-group scratch array,
//! barriers as phase boundaries, global atomics as std atomics).
//!
//! Files, as in every backend: `adapter.rs` (device discovery and
//! capabilities), `buffers.rs`, `compile.rs` (kernel cache), `launch.rs`,
//! `timing.rs`; `device.rs` ties them into the `Backend` impl.

mod adapter;
mod buffers;
mod compile;
mod device;
mod launch;
mod timing;

pub use adapter::discover;
pub use device::CpuDevice;
