//! Driver errors as typed `rosetta_core::Error`s.
//!
//! Errors that leave the context unusable (a faulting kernel, an ECC error, a
//! lost device) are `DeviceLost`: CUDA reports them from every later call on
//! the context, so the device is gone for this process. Everything else is
//! `Backend`, with the call that failed and the driver's name and text.

use cudarc::driver::sys::CUresult;
use cudarc::driver::DriverError;
use rosetta_core::{Api, Error};

/// The driver's name and text for an error: `CUDA_ERROR_X (text)`.
pub fn describe(e: DriverError) -> String {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{name} ({text})")
}

/// Turn a failed driver call into a typed error.
pub fn driver(call: &str, e: DriverError) -> Error {
    let message = format!("{call}: {}", describe(e));
    if is_sticky(e.0) {
        tracing::error!(%message, "cuda: the context is unusable");
        Error::DeviceLost {
            api: Api::Cuda,
            message,
        }
    } else {
        tracing::warn!(%message, "cuda: driver call failed");
        Error::Backend {
            api: Api::Cuda,
            message,
        }
    }
}

/// Errors after which the context can't be used any more.
fn is_sticky(code: CUresult) -> bool {
    matches!(
        code,
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS
            | CUresult::CUDA_ERROR_LAUNCH_FAILED
            | CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUresult::CUDA_ERROR_MISALIGNED_ADDRESS
            | CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUresult::CUDA_ERROR_INVALID_PC
            | CUresult::CUDA_ERROR_LAUNCH_TIMEOUT
            | CUresult::CUDA_ERROR_ECC_UNCORRECTABLE
            | CUresult::CUDA_ERROR_NVLINK_UNCORRECTABLE
            | CUresult::CUDA_ERROR_DEVICE_UNAVAILABLE
            | CUresult::CUDA_ERROR_DEINITIALIZED
            | CUresult::CUDA_ERROR_CONTEXT_IS_DESTROYED
    )
}

/// Shorthand for an error of this backend that is no driver call's.
pub fn backend(message: impl std::fmt::Display) -> Error {
    Error::backend(Api::Cuda, message)
}
