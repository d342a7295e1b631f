//! The OpenCL backend: OpenCL C built at run time (with `-D` constants)
//! through the ICD loader, one in-order profiling queue per device,
//! `__local` memory both as kernel-declared arrays and as a trailing
//! `__local` argument, profiling events as timestamps, and program binaries
//! cached on disk.
//!
//! Every device of every platform is one rosetta device (PoCL's CPU device
//! on machines without a GPU; NVIDIA's platform and PoCL on a GPU machine).
//! The backend is its API calls and nothing else; handles, checks, the
//! kernel cache, the buffer pool and timing tokens are the checked layer of
//! `rosetta-core`. Modules (each uses only those listed before it):
//! - `status.rs`: status codes, and the typed error each failed call becomes;
//! - `sys.rs`: every raw OpenCL call, and owned handles (the only `unsafe`
//!   FFI in the crate);
//! - `ptx.rs`: NVIDIA's inline PTX (device fence, asynchronous copies),
//!   probed by running it;
//! - `target.rs`: build settings and identity of a device;
//! - `info.rs`, `physical.rs`: device info queries, PCI bus id and UUID;
//! - `memory.rs`: buffers and chunked transfers;
//! - `timing.rs`: timestamps (markers, or stand-in copies);
//! - `program.rs`: builds and the persistent program-binary cache;
//! - `launch.rs`: one dispatch;
//! - `driver.rs`: the [`rosetta_core::Driver`] implementation;
//! - `adapter.rs`: discovery and capabilities.
//!
//! Environment: `ROSETTA_OPENCL_OPTIONS`, extra build options appended to
//! every build (e.g. `-cl-nv-maxrregcount=128`; macro definitions and
//! relaxed math are refused, `rosetta_core::options_from_env`);
//! `ROSETTA_CACHE_DIR`, where
//! program binaries persist (`kernels/opencl/` below it; `off` disables).

#![warn(missing_docs)]

mod adapter;
mod driver;
mod info;
mod launch;
mod memory;
mod physical;
mod program;
mod ptx;
mod status;
mod sys;
mod target;
mod timing;

pub use adapter::discover;
pub use program::OPTIONS_ENV;
