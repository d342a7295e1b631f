//! One dispatch: the buffers' device addresses in binding order, then the
//! params as 32-bit scalar arguments; dynamic shared memory for
//! `dynamic_shared` kernels only (the limit raised past 48 KiB); one
//! `cuLaunchKernel` on the device's stream.

use crate::gpu::DeviceMemory;
use crate::kernel::CudaKernel;
use rosetta_core::{Error, Launch, Result};
use std::sync::Arc;

/// Enqueue one launch of `kernel`.
///
/// # Safety
/// The preconditions of `rosetta_core::Driver::launch`: the launch was
/// checked against the device and the kernel's interface (one buffer per
/// binding, one word per param, which is what the CUDA source declares:
/// pointers, then `unsigned int`s), and the kernel, so launched, stays inside
/// the bound buffers and its shared memory, and terminates.
pub(crate) unsafe fn enqueue(
    kernel: &CudaKernel,
    launch: &Launch,
    buffers: &[&DeviceMemory],
    params: &[u32],
) -> Result<()> {
    let stream = kernel.function.stream();
    if buffers.iter().any(|b| !Arc::ptr_eq(b.stream(), stream)) {
        return Err(Error::Internal(format!(
            "cuda: kernel '{}' launched with a buffer of another stream",
            kernel.label
        )));
    }
    let dynamic = kernel.dynamic_bytes(launch.shared_bytes);
    kernel.reserve_dynamic_shared(dynamic)?;
    let pointers: Vec<_> = buffers.iter().map(|b| b.pointer()).collect();
    // SAFETY: every pointer is a live allocation of the kernel's own stream
    // (checked above), freed only in that stream's order; the parameter
    // list, the memory behaviour and termination are the caller's promise;
    // a static-shared kernel gets no dynamic memory, a dynamic one the
    // launch's bytes, within the limit reserved above.
    unsafe {
        kernel
            .function
            .launch(launch.groups, launch.group_size, dynamic, &pointers, params)
    }
    .map_err(|e| {
        // Returned, not also warned about: an error is one line.
        tracing::debug!(kernel = %kernel.label, "cuda: launch failed: {}", e.chain());
        match e {
            Error::Unsupported { api, what } => Error::Unsupported {
                api,
                what: format!("kernel '{}': {what}", kernel.label),
            },
            other => other,
        }
    })
}
