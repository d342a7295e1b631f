//! A compiled kernel of one device: its function, how it takes shared
//! memory, and its current limit on dynamic shared memory.

use crate::gpu::Function;
use crate::sys::driver::CUfunction_attribute;
use rosetta_core::{Error, Result};
use std::sync::atomic::{AtomicU32, Ordering};

/// What the driver's `compile` returns and `launch` runs.
pub(crate) struct CudaKernel {
    pub(crate) function: Function,
    /// The kernel takes its workgroup memory as `extern __shared__` memory
    /// of the launch's `shared_bytes`; otherwise its arrays are static and
    /// launches pass no dynamic shared memory.
    pub(crate) dynamic_shared: bool,
    /// `name C=v ...`, for logs.
    pub(crate) label: String,
    /// The kernel's `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` (48 KiB
    /// less its static shared memory, until raised), raised (never lowered)
    /// by launches that need more.
    dynamic_limit: AtomicU32,
}

impl CudaKernel {
    /// Wrap a loaded function, reading its dynamic shared memory limit.
    pub(crate) fn new(function: Function, dynamic_shared: bool, label: String) -> Result<Self> {
        let limit = function
            .attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?;
        Ok(CudaKernel {
            function,
            dynamic_shared,
            label,
            dynamic_limit: AtomicU32::new(u32::try_from(limit).unwrap_or(0)),
        })
    }

    /// The dynamic shared memory a launch with `shared_bytes` passes: all of
    /// it for a `dynamic_shared` kernel, none for one with static arrays.
    pub(crate) fn dynamic_bytes(&self, shared_bytes: u32) -> u32 {
        if self.dynamic_shared {
            shared_bytes
        } else {
            0
        }
    }

    /// Let the kernel use `bytes` of dynamic shared memory: past its current
    /// limit (48 KiB for a kernel without static shared memory) the limit is
    /// raised with `cuFuncSetAttribute` (the launch was checked against the
    /// device's opt-in maximum; the driver refuses more than the kernel can
    /// have).
    pub(crate) fn reserve_dynamic_shared(&self, bytes: u32) -> Result<()> {
        if bytes <= self.dynamic_limit.load(Ordering::Relaxed) {
            return Ok(());
        }
        let value = i32::try_from(bytes)
            .map_err(|_| Error::Internal(format!("cuda: {bytes} bytes of shared memory")))?;
        tracing::debug!(kernel = %self.label, bytes, "cuda: raising the dynamic shared memory limit");
        self.function.set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            value,
        )?;
        self.dynamic_limit.fetch_max(bytes, Ordering::Relaxed);
        Ok(())
    }
}
