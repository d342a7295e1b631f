//! Driver and NVRTC failures as `rosetta_core::Error`s.
//!
//! - `CUDA_ERROR_OUT_OF_MEMORY` is [`Error::OutOfMemory`].
//! - Errors after which the context is unusable (a faulting kernel, an ECC
//!   error, a lost device: CUDA reports them from every later call on the
//!   context) are [`Error::DeviceLost`].
//! - A module the driver cannot load, or without the kernel's entry point,
//!   is [`Error::Compile`], with the driver's error and NVRTC's log.
//! - A launch the device cannot make with the kernel's resources is
//!   [`Error::Unsupported`].
//! - Everything else is [`Error::Device`] naming the call, with the driver's
//!   error as its source.

use crate::nvrtc::CompileError;
use crate::sys::driver::{CUresult, CuError};
use rosetta_core::{Api, Error};
use std::fmt;

/// A failed driver call as a typed error.
pub(crate) fn driver(e: CuError) -> Error {
    let code = e.code();
    if code == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        Error::out_of_memory(Api::Cuda, e.call(), Some(Box::new(e)))
    } else if is_lost(code) {
        tracing::error!(call = e.call(), "cuda: {e}; the context is unusable");
        Error::lost(Api::Cuda, During(e))
    } else {
        Error::device(Api::Cuda, e.call(), e)
    }
}

/// A failed `cuLaunchKernel`: a launch the kernel cannot make on this
/// device (too many registers for its block size, say) is unsupported.
pub(crate) fn launch(e: CuError) -> Error {
    match e.code() {
        CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => {
            Error::unsupported(Api::Cuda, format!("{}: {e}", e.call()))
        }
        _ => driver(e),
    }
}

/// A failed allocation of `bytes`: out of memory says how much.
pub(crate) fn alloc(e: CuError, bytes: u64) -> Error {
    if e.code() == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        let what = format!("{} of {bytes} bytes", e.call());
        Error::out_of_memory(Api::Cuda, what, Some(Box::new(e)))
    } else {
        driver(e)
    }
}

/// A module of kernel `label` that failed to load (`cuModuleLoadData`) or
/// lacks its entry point (`cuModuleGetFunction`); `log` is NVRTC's.
pub(crate) fn load(label: String, name: &str, log: &str, e: CuError) -> Error {
    use CUresult::*;
    let hint = match e.code() {
        // The entry point is the def's name: a source without it is the
        // caller's mistake (one line, a usage error), as on every API.
        CUDA_ERROR_NOT_FOUND => {
            return Error::InvalidArgument(format!(
                "kernel '{label}': the CUDA C has no kernel named '{name}' (a kernel's entry \
                 point is its name, declared extern \"C\" __global__)"
            ))
        }
        CUDA_ERROR_INVALID_IMAGE
        | CUDA_ERROR_INVALID_PTX
        | CUDA_ERROR_UNSUPPORTED_PTX_VERSION
        | CUDA_ERROR_NO_BINARY_FOR_GPU
        | CUDA_ERROR_JIT_COMPILER_NOT_FOUND
        | CUDA_ERROR_JIT_COMPILATION_DISABLED
        | CUDA_ERROR_INVALID_SOURCE
        | CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND
        | CUDA_ERROR_SHARED_OBJECT_INIT_FAILED => String::new(),
        _ => return driver(e),
    };
    Error::Compile {
        api: Api::Cuda,
        kernel: label,
        log: format!("{}: {e}{hint}\n{log}", e.call()).trim().to_string(),
    }
}

/// A failed NVRTC compile of kernel `label`.
pub(crate) fn compile(label: String, e: CompileError) -> Error {
    match e {
        CompileError::Log(log) => {
            // The log travels in the error; the CLI shows its first line.
            tracing::debug!(kernel = %label, "cuda: NVRTC failed:\n{log}");
            Error::Compile {
                api: Api::Cuda,
                kernel: label,
                log,
            }
        }
        CompileError::Call(e) => Error::device(Api::Cuda, e.call(), e),
    }
}

/// CUDA cannot be used on this machine, and why.
pub(crate) fn unavailable(reason: impl Into<String>) -> Error {
    Error::Unavailable {
        api: Api::Cuda,
        reason: reason.into(),
    }
}

/// Errors after which the context cannot be used any more.
pub(crate) fn is_lost(code: CUresult) -> bool {
    use CUresult::*;
    matches!(
        code,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_TENSOR_MEMORY_LEAK
            | CUDA_ERROR_ECC_UNCORRECTABLE
            | CUDA_ERROR_NVLINK_UNCORRECTABLE
            | CUDA_ERROR_CONTAINED
            | CUDA_ERROR_EXTERNAL_DEVICE
            | CUDA_ERROR_KEY_ROTATION
            | CUDA_ERROR_DEVICE_UNAVAILABLE
            | CUDA_ERROR_DEINITIALIZED
            | CUDA_ERROR_CONTEXT_IS_DESTROYED
    )
}

/// The source of a lost-device error: names the call that saw it.
#[derive(Debug)]
struct During(CuError);

impl fmt::Display for During {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in {}", self.0.call())
    }
}

impl std::error::Error for During {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rosetta_core::ErrorKind;

    fn bare(call: &'static str, code: CUresult) -> CuError {
        CuError::bare(call, code)
    }

    #[test]
    fn out_of_memory_is_typed() {
        let e = driver(bare("cuMemAllocAsync", CUresult::CUDA_ERROR_OUT_OF_MEMORY));
        assert!(
            matches!(e, Error::OutOfMemory { api: Api::Cuda, .. }),
            "{e:?}"
        );
        assert_eq!(e.kind(), ErrorKind::Device);
        let e = alloc(
            bare("cuMemAllocAsync", CUresult::CUDA_ERROR_OUT_OF_MEMORY),
            1 << 40,
        );
        assert!(e.chain().contains("1099511627776 bytes"), "{}", e.chain());
        assert!(
            e.chain().contains("CUDA_ERROR_OUT_OF_MEMORY"),
            "{}",
            e.chain()
        );
        let e = alloc(
            bare("cuMemAllocAsync", CUresult::CUDA_ERROR_INVALID_VALUE),
            16,
        );
        assert!(matches!(e, Error::Device { .. }), "{e:?}");
    }

    #[test]
    fn faults_lose_the_device() {
        for code in [
            CUresult::CUDA_ERROR_LAUNCH_FAILED,
            CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
            CUresult::CUDA_ERROR_ECC_UNCORRECTABLE,
            CUresult::CUDA_ERROR_ASSERT,
        ] {
            let e = driver(bare("cuStreamSynchronize", code));
            assert!(
                matches!(e, Error::DeviceLost { api: Api::Cuda, .. }),
                "{e:?}"
            );
            let chain = e.chain();
            assert!(chain.contains("cuStreamSynchronize"), "{chain}");
            assert!(chain.contains(&format!("{code:?}")), "{chain}");
        }
    }

    #[test]
    fn other_failures_name_the_call_and_keep_the_source() {
        let e = driver(bare("cuLaunchKernel", CUresult::CUDA_ERROR_INVALID_VALUE));
        match &e {
            Error::Device { api, call, .. } => {
                assert_eq!(*api, Api::Cuda);
                assert_eq!(call, "cuLaunchKernel");
            }
            other => panic!("{other:?}"),
        }
        assert!(std::error::Error::source(&e).is_some());
        assert_eq!(
            e.chain(),
            "cuda: cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE"
        );
        assert!(!is_lost(CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES));
        assert!(!is_lost(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
    }

    #[test]
    fn launches_the_device_cannot_make_are_unsupported() {
        let e = launch(bare(
            "cuLaunchKernel",
            CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        ));
        assert!(
            matches!(e, Error::Unsupported { api: Api::Cuda, .. }),
            "{e:?}"
        );
        assert!(
            e.to_string().contains("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
            "{e}"
        );
        let e = launch(bare("cuLaunchKernel", CUresult::CUDA_ERROR_LAUNCH_FAILED));
        assert!(matches!(e, Error::DeviceLost { .. }), "{e:?}");
    }

    #[test]
    fn modules_the_driver_refuses_are_compile_errors() {
        // A missing entry point is the caller's mistake: one line.
        let e = load(
            "k GROUP_SIZE=64".into(),
            "k",
            "nvrtc log",
            bare("cuModuleGetFunction", CUresult::CUDA_ERROR_NOT_FOUND),
        );
        match e {
            Error::InvalidArgument(text) => {
                assert!(text.contains("kernel 'k GROUP_SIZE=64'"), "{text}");
                assert!(text.contains("no kernel named 'k'"), "{text}");
                assert!(!text.contains('\n'), "{text}");
            }
            other => panic!("{other:?}"),
        }
        let e = load(
            "k".into(),
            "k",
            "",
            bare(
                "cuModuleLoadData",
                CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
            ),
        );
        assert!(matches!(e, Error::Compile { .. }), "{e:?}");
        let e = load(
            "k".into(),
            "k",
            "",
            bare("cuModuleLoadData", CUresult::CUDA_ERROR_OUT_OF_MEMORY),
        );
        assert!(matches!(e, Error::OutOfMemory { .. }), "{e:?}");
    }

    #[test]
    fn nvrtc_logs_become_compile_errors() {
        let e = compile(
            "k GROUP_SIZE=64".into(),
            CompileError::Log("error: x".into()),
        );
        assert!(
            matches!(&e, Error::Compile { log, kernel, .. } if log == "error: x" && kernel == "k GROUP_SIZE=64"),
            "{e:?}"
        );
        let e = unavailable("no libcuda");
        assert!(matches!(e, Error::Unavailable { api: Api::Cuda, .. }));
    }
}
