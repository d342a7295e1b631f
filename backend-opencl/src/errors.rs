//! OpenCL status codes → rosetta's typed errors.
//!
//! Every API call that fails ends here: a failure of the device while it runs
//! our commands becomes [`Error::DeviceLost`], anything else
//! [`Error::Backend`] with the call's name and the status code's name.

use rosetta_core::{Api, Error};

pub const API: Api = Api::Opencl;

/// `CL_OUT_OF_RESOURCES` from a call that waits for the device means a
/// command failed while running (NVIDIA reports kernel faults this way);
/// from an enqueue it only means the launch could not be set up.
const WAITING_CALLS: [&str; 4] = [
    "clFinish",
    "clEnqueueReadBuffer",
    "clEnqueueWriteBuffer",
    "clWaitForEvents",
];

/// The name of an OpenCL status code, or its number when it has none.
pub fn status_name(code: i32) -> String {
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

/// Does this status from this call mean the device (or its context) is gone?
fn is_lost(call: &str, code: i32) -> bool {
    match code {
        // Device unavailable, a failed command in the queue, NVIDIA's
        // out-of-bounds access.
        -2 | -14 | -9999 => true,
        -5 => WAITING_CALLS.contains(&call),
        _ => false,
    }
}

/// The error for API call `call` returning status `code`.
pub fn status(call: &str, code: i32) -> Error {
    let message = format!("{call} failed: {}", status_name(code));
    tracing::debug!(%message, "opencl call failed");
    if is_lost(call, code) {
        Error::DeviceLost { api: API, message }
    } else {
        Error::Backend { api: API, message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_kinds() {
        assert_eq!(status_name(-54), "CL_INVALID_WORK_GROUP_SIZE");
        assert_eq!(status_name(-12345), "OpenCL status -12345");
        assert!(matches!(status("clFinish", -5), Error::DeviceLost { .. }));
        assert!(matches!(
            status("clEnqueueNDRangeKernel", -5),
            Error::Backend { .. }
        ));
        assert!(matches!(
            status("clEnqueueNDRangeKernel", -9999),
            Error::DeviceLost { .. }
        ));
    }
}
