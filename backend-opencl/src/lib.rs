//! The OpenCL backend: OpenCL C built at run time through the ICD loader
//! (`ocl`), one profiling-enabled in-order queue per device, `__local` memory
//! both as kernel-declared arrays and as a trailing `__local` argument, and
//! profiling events for device-side timing.
//!
//! Every device of every platform is one rosetta device (PoCL's CPU device on
//! machines without a GPU; NVIDIA's platform and PoCL on the GPU machine).
//!
//! Files, as in every backend: `adapter.rs` (device discovery and
//! capabilities), `buffers.rs`, `compile.rs` (program build + cache),
//! `launch.rs`, `timing.rs`; `device.rs` ties them into the `Backend` impl.
//! Two small extra modules hold the API boundary: `cl.rs` (the calls this
//! backend makes, as safe functions, and an owner type that releases API
//! objects) and `info.rs` (platform and device info queries), so that no
//! driver reply can make the backend panic or stall. Every `unsafe` block is
//! in those two files, each behind a `// SAFETY:` comment. `errors.rs` maps
//! OpenCL status codes to rosetta's typed errors.

mod adapter;
mod buffers;
mod cl;
mod compile;
mod device;
mod errors;
mod info;
mod launch;
mod timing;

pub use adapter::discover;
pub use device::OpenClDevice;
