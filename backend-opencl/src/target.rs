//! What the driver needs to know about its device beyond the
//! [`rosetta_core::Capabilities`]: build settings, API version features and
//! the identity compiled-program caches are keyed on. Read by `adapter.rs`,
//! completed by `driver.rs` (the PTX probe), used by `driver.rs` and
//! `program.rs`.

use crate::ptx::Ptx;

/// One device's build settings and identity.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// `-cl-std=` for program builds (`None` for pre-1.2 compilers).
    pub(crate) cl_std: Option<&'static str>,
    /// OpenCL 1.2 calls exist: `clEnqueueFillBuffer`,
    /// `clEnqueueMarkerWithWaitList`.
    pub(crate) version_1_2: bool,
    /// The device's queues can profile (`CL_QUEUE_PROFILING_ENABLE`).
    pub(crate) profiling: bool,
    /// `CL_DEVICE_LOCAL_MEM_SIZE` as reported (0 where there is none): the
    /// budget of a kernel's static `__local` arrays plus its dynamic one.
    pub(crate) local_bytes: u64,
    /// Platform name and version, device name and driver version: what a
    /// program binary is valid for.
    pub(crate) identity: String,
    /// The device lists `cl_nv_device_attribute_query`: NVIDIA's OpenCL,
    /// whose inline PTX `ptx.rs` probes.
    pub(crate) nvidia: bool,
    /// The inline PTX features the probe found (none until it ran); their
    /// defines go into every build.
    pub(crate) ptx: Ptx,
}
