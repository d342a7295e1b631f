//! OpenCL status codes: their names, and the typed rosetta error a failed
//! call becomes.
//!
//! - `CL_MEM_OBJECT_ALLOCATION_FAILURE`, `CL_OUT_OF_RESOURCES` and
//!   `CL_OUT_OF_HOST_MEMORY` from an allocation or a transfer are
//!   [`Error::OutOfMemory`] ([`Failure::memory_error`]): NVIDIA's driver
//!   reports a transfer it cannot stage, and a lazily made allocation it
//!   cannot back, as `CL_OUT_OF_RESOURCES`.
//! - A command that failed while running (`CL_OUT_OF_RESOURCES` from
//!   `clFinish` or `clWaitForEvents`, which is how NVIDIA reports a faulting
//!   kernel; a failed command in a wait list; NVIDIA's invalid memory
//!   access; an unavailable device) is [`Error::DeviceLost`].
//! - Anything else is [`Error::Device`] naming the call, the status code as
//!   its source.

use rosetta_core::{Api, Error};
use std::fmt;

/// The API of every error this crate makes.
pub(crate) const API: Api = Api::Opencl;

pub(crate) const CL_DEVICE_NOT_AVAILABLE: i32 = -2;
pub(crate) const CL_MEM_OBJECT_ALLOCATION_FAILURE: i32 = -4;
pub(crate) const CL_OUT_OF_RESOURCES: i32 = -5;
pub(crate) const CL_OUT_OF_HOST_MEMORY: i32 = -6;
pub(crate) const CL_BUILD_PROGRAM_FAILURE: i32 = -11;
pub(crate) const CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: i32 = -14;
pub(crate) const CL_INVALID_BUILD_OPTIONS: i32 = -43;
pub(crate) const CL_NV_INVALID_MEM_ACCESS: i32 = -9999;

/// Calls that wait for the device: a resource failure they report is a
/// command that failed while it ran.
const WAITING_CALLS: [&str; 2] = ["clFinish", "clWaitForEvents"];

/// A failed API call: which one, and the status it returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Failure {
    /// The call (`clEnqueueWriteBuffer`, ...).
    pub(crate) call: &'static str,
    /// Its status code.
    pub(crate) code: i32,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.code == 0 {
            write!(f, "{} reported success but returned no object", self.call)
        } else {
            write!(f, "{} returned {}", self.call, name(self.code))
        }
    }
}

impl std::error::Error for Failure {}

/// A status code on its own: the source of an [`Error::Device`], whose
/// message already names the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Status(pub(crate) i32);

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&name(self.0))
    }
}

impl std::error::Error for Status {}

impl Failure {
    /// The error for this failure outside allocations and transfers.
    pub(crate) fn error(self) -> Error {
        match self.code {
            CL_OUT_OF_HOST_MEMORY => Error::out_of_memory(
                API,
                format!("host memory for {}", self.call),
                Some(Box::new(self)),
            ),
            CL_DEVICE_NOT_AVAILABLE
            | CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
            | CL_NV_INVALID_MEM_ACCESS => Error::lost(API, self),
            CL_OUT_OF_RESOURCES if WAITING_CALLS.contains(&self.call) => Error::lost(API, self),
            code => Error::device(API, self.call, Status(code)),
        }
    }

    /// The error for this failure while allocating or moving memory
    /// (`what`, e.g. "writing 8589934592 bytes"): resource exhaustion is out
    /// of memory, anything else as [`Failure::error`].
    pub(crate) fn memory_error(self, what: impl FnOnce() -> String) -> Error {
        match self.code {
            CL_MEM_OBJECT_ALLOCATION_FAILURE | CL_OUT_OF_RESOURCES | CL_OUT_OF_HOST_MEMORY => {
                Error::out_of_memory(API, what(), Some(Box::new(self)))
            }
            _ => self.error(),
        }
    }
}

/// The name of an OpenCL status code, or its number when it has none.
pub(crate) fn name(code: i32) -> String {
    let name = match code {
        0 => "CL_SUCCESS",
        -1 => "CL_DEVICE_NOT_FOUND",
        -2 => "CL_DEVICE_NOT_AVAILABLE",
        -3 => "CL_COMPILER_NOT_AVAILABLE",
        -4 => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        -5 => "CL_OUT_OF_RESOURCES",
        -6 => "CL_OUT_OF_HOST_MEMORY",
        -7 => "CL_PROFILING_INFO_NOT_AVAILABLE",
        -8 => "CL_MEM_COPY_OVERLAP",
        -11 => "CL_BUILD_PROGRAM_FAILURE",
        -12 => "CL_MAP_FAILURE",
        -14 => "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
        -30 => "CL_INVALID_VALUE",
        -31 => "CL_INVALID_DEVICE_TYPE",
        -32 => "CL_INVALID_PLATFORM",
        -33 => "CL_INVALID_DEVICE",
        -34 => "CL_INVALID_CONTEXT",
        -35 => "CL_INVALID_QUEUE_PROPERTIES",
        -36 => "CL_INVALID_COMMAND_QUEUE",
        -38 => "CL_INVALID_MEM_OBJECT",
        -42 => "CL_INVALID_BINARY",
        -43 => "CL_INVALID_BUILD_OPTIONS",
        -44 => "CL_INVALID_PROGRAM",
        -45 => "CL_INVALID_PROGRAM_EXECUTABLE",
        -46 => "CL_INVALID_KERNEL_NAME",
        -47 => "CL_INVALID_KERNEL_DEFINITION",
        -48 => "CL_INVALID_KERNEL",
        -49 => "CL_INVALID_ARG_INDEX",
        -50 => "CL_INVALID_ARG_VALUE",
        -51 => "CL_INVALID_ARG_SIZE",
        -52 => "CL_INVALID_KERNEL_ARGS",
        -53 => "CL_INVALID_WORK_DIMENSION",
        -54 => "CL_INVALID_WORK_GROUP_SIZE",
        -55 => "CL_INVALID_WORK_ITEM_SIZE",
        -56 => "CL_INVALID_GLOBAL_OFFSET",
        -57 => "CL_INVALID_EVENT_WAIT_LIST",
        -58 => "CL_INVALID_EVENT",
        -59 => "CL_INVALID_OPERATION",
        -61 => "CL_INVALID_BUFFER_SIZE",
        -63 => "CL_INVALID_GLOBAL_WORK_SIZE",
        -64 => "CL_INVALID_PROPERTY",
        -66 => "CL_INVALID_COMPILER_OPTIONS",
        -1001 => "CL_PLATFORM_NOT_FOUND_KHR",
        -9999 => "CL_NV_INVALID_MEM_ACCESS",
        _ => return format!("OpenCL status {code}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(call: &'static str, code: i32) -> Failure {
        Failure { call, code }
    }

    #[test]
    fn names_and_kinds() {
        assert_eq!(name(-54), "CL_INVALID_WORK_GROUP_SIZE");
        assert_eq!(name(-12345), "OpenCL status -12345");
        assert!(matches!(
            failure("clFinish", -5).error(),
            Error::DeviceLost { .. }
        ));
        assert!(matches!(
            failure("clEnqueueNDRangeKernel", -9999).error(),
            Error::DeviceLost { .. }
        ));
        let e = failure("clEnqueueNDRangeKernel", -54).error();
        assert!(matches!(e, Error::Device { .. }));
        assert_eq!(
            e.chain(),
            "opencl: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE"
        );
    }

    #[test]
    fn exhausted_transfers_and_allocations_are_out_of_memory() {
        // NVIDIA's answer to an 8 GiB clEnqueueWriteBuffer.
        for (call, code) in [
            ("clEnqueueWriteBuffer", CL_OUT_OF_RESOURCES),
            ("clCreateBuffer", CL_MEM_OBJECT_ALLOCATION_FAILURE),
            ("clWaitForEvents", CL_OUT_OF_RESOURCES),
            ("clEnqueueReadBuffer", CL_OUT_OF_HOST_MEMORY),
        ] {
            let e = failure(call, code).memory_error(|| "writing 8 GiB".into());
            assert!(matches!(e, Error::OutOfMemory { .. }), "{call}: {e:?}");
            assert!(e.chain().contains(call), "{}", e.chain());
        }
        let e = failure("clEnqueueWriteBuffer", -38).memory_error(|| "x".into());
        assert!(matches!(e, Error::Device { .. }), "{e:?}");
    }
}
