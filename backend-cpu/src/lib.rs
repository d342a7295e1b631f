//! The CPU backend: the kernels' Rust versions run workgroup by workgroup,
//! workgroups in parallel on rayon's pool, under the workgroup model of
//! `rosetta_core::workgroup` (shared memory as a per-group scratch array,
//! barriers as phase boundaries, global atomics as std atomics).
//!
//! A backend is its API calls and nothing else; for the CPU those are plain
//! memory and a thread pool:
//! - `adapter.rs`: discovery and capabilities (read from the machine);
//! - `memory.rs`: buffers (word vectors behind read/write locks);
//! - `driver.rs`: the [`rosetta_core::Driver`] implementation;
//! - `launch.rs`: running one dispatch.
//!
//! Everything else (handles, checks, cache, pool, timing) is the checked
//! layer of `rosetta-core`.

#![warn(missing_docs)]

mod adapter;
mod driver;
mod launch;
mod memory;

pub use adapter::discover;
