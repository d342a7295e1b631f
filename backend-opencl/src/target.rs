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
    /// Where the subgroup built-ins come from (`None`: the device has none).
    pub(crate) subgroups: Option<Subgroups>,
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
    /// Builds take `-w` (no warnings): PoCL's compiler writes a count of
    /// them to the process's stderr (`1 warning generated.` where clang
    /// could not fully unroll `conv2d_global` with a 31-row filter), output
    /// rosetta cannot catch, while the warnings themselves only reach the
    /// build log. Errors and their log are unchanged.
    pub(crate) quiet: bool,
    /// The inline PTX features the probe found (none until it ran); their
    /// defines go into every build.
    pub(crate) ptx: Ptx,
}

/// Where a device's subgroup built-ins (`sub_group_reduce_add`, ...) come
/// from, as `adapter.rs` decided. Builds define `ROSETTA_SUBGROUPS_INTEL`
/// or `ROSETTA_SUBGROUPS_KHR` so that a kernel enables that extension's
/// pragma and no other: a compiler that knows an extension the device does
/// not list warns on stderr when a kernel enables it (PoCL 5 about
/// `cl_khr_subgroups`, where it takes `cl_intel_subgroups`), output
/// rosetta cannot catch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subgroups {
    /// `cl_intel_subgroups` (OpenCL C 1.2 and later).
    Intel,
    /// `cl_khr_subgroups` (OpenCL C 2.0, or 3.0 without the feature).
    Khr,
    /// OpenCL C 3.0's `__opencl_c_subgroups` feature: no pragma.
    Feature,
}

impl Subgroups {
    /// The build option that tells kernels which pragma to enable.
    pub(crate) fn define(self) -> Option<&'static str> {
        match self {
            Subgroups::Intel => Some("-DROSETTA_SUBGROUPS_INTEL=1"),
            Subgroups::Khr => Some("-DROSETTA_SUBGROUPS_KHR=1"),
            Subgroups::Feature => None,
        }
    }
}
