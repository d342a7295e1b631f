//! Launch: buffers (device pointers) in the kernel's binding order, then the
//! params as 32-bit scalar arguments; dynamic shared memory sized by the
//! launch (raised past 48 KB per kernel when needed); one `cuLaunchKernel`
//! on the device's stream.

use crate::compile::Kernel;
use crate::errors;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{result, CudaStream};
use rosetta_core::{Launch, Result};
use std::ffi::c_void;

/// Enqueue one launch. The caller has validated the launch and the
/// arguments against the kernel and bound the context.
pub fn enqueue(
    stream: &CudaStream,
    kernel: &Kernel,
    launch: &Launch,
    pointers: &[CUdeviceptr],
    params: &[u32],
) -> Result<()> {
    // Static shared arrays (reduce) are sized at compile time; only kernels
    // with dynamic shared memory get the launch's byte count.
    let dynamic_shared = if kernel.def.dynamic_shared {
        launch.shared_bytes
    } else {
        0
    };
    kernel.reserve_dynamic_shared(dynamic_shared)?;
    // cuLaunchKernel reads each argument through a pointer to its value, at
    // the call: the values live in these vectors until it returns.
    let mut pointers: Vec<CUdeviceptr> = pointers.to_vec();
    let mut params: Vec<u32> = params.to_vec();
    let mut args: Vec<*mut c_void> = pointers
        .iter_mut()
        .map(|p| (p as *mut CUdeviceptr).cast::<c_void>())
        .chain(params.iter_mut().map(|p| (p as *mut u32).cast::<c_void>()))
        .collect();
    let [gx, gy, gz] = launch.groups;
    // SAFETY: `function` is a live kernel whose parameters are, in order, one
    // pointer per binding and one 32-bit word per param (checked by the
    // caller against its KernelDef); every pointer is a live allocation of
    // this context; `args` points at values that outlive the call; the
    // geometry and shared bytes were validated against the device's limits.
    unsafe {
        result::launch_kernel(
            kernel.function,
            (gx, gy, gz),
            (launch.group_size, 1, 1),
            dynamic_shared,
            stream.cu_stream(),
            &mut args,
        )
    }
    .map_err(|e| errors::driver(&format!("cuLaunchKernel({})", kernel.key), e))
}
