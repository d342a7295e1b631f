//! A compiled kernel of one device: its function, how it takes shared
//! memory, and its current limit on dynamic shared memory.

use crate::gpu::Function;
use crate::sys::driver::CUfunction_attribute;
use rosetta_core::{Error, KernelDef, Result};
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
    /// Wrap a loaded function of `def`, checking its parameters against
    /// `def`'s interface and reading its dynamic shared memory limit.
    pub(crate) fn new(function: Function, def: &KernelDef, label: String) -> Result<Self> {
        check_parameters(&function, def, &label)?;
        let limit = function
            .attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?;
        Ok(CudaKernel {
            function,
            dynamic_shared: def.dynamic_shared(),
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

/// A launch passes one 8-byte pointer per buffer binding, then one 32-bit
/// word per param: a kernel whose parameters differ (a param more or less,
/// a 64-bit one) would read its arguments as something else, silently. So
/// where the driver lists a kernel's parameters, they must be exactly that.
fn check_parameters(function: &Function, def: &KernelDef, label: &str) -> Result<()> {
    let Some(sizes) = function.parameter_sizes()? else {
        tracing::debug!(kernel = %label, "cuda: the driver cannot list parameters; unchecked");
        return Ok(());
    };
    let expected: Vec<usize> = std::iter::repeat_n(8, def.bindings().len())
        .chain(std::iter::repeat_n(4, def.params().len()))
        .collect();
    if sizes != expected {
        return Err(Error::InvalidArgument(format!(
            "kernel '{label}' takes {} parameters of {sizes:?} bytes; its interface has {} \
             buffers and {} params, passed as {expected:?} (a pointer per buffer, then a \
             32-bit word per param)",
            sizes.len(),
            def.bindings().len(),
            def.params().len()
        )));
    }
    Ok(())
}
