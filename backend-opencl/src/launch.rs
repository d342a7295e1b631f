//! One dispatch: the buffers as the first arguments (in binding order), the
//! params as 32-bit scalars after them, the trailing `__local` argument of
//! `dynamic_shared` kernels, and `groups × GROUP_SIZE` work-items (global
//! sizes are always whole groups: PoCL has no non-uniform work-groups).

use crate::memory::ClBuffer;
use crate::program::Compiled;
use crate::status::Failure;
use crate::sys::{self, Queue};
use rosetta_core::{Error, Launch, Result};

/// Set the arguments of `compiled` and enqueue `launch`.
///
/// The checked layer has checked the launch against the device's limits
/// and the kernel's interface; one limit it cannot see is left here: a
/// dynamic-shared kernel's own `__local` arrays plus its `__local` argument
/// must fit the device's local memory (`local_budget`).
///
/// # Safety
/// The promise of `rosetta_core::Driver::launch`: the buffers and params
/// match the kernel's interface, and the kernel, run over this launch,
/// stays inside the bound buffers and its `__local` memory and terminates.
pub(crate) unsafe fn enqueue(
    queue: &Queue,
    compiled: &Compiled,
    launch: &Launch,
    buffers: &[&ClBuffer],
    params: &[u32],
    local_budget: u64,
) -> Result<()> {
    // A zero-sized `__local` argument is invalid; kernels read no more than
    // the launch asked for.
    let local_bytes = launch.shared_bytes.max(4);
    if compiled.dynamic_shared {
        let total = compiled.static_local_bytes + u64::from(local_bytes);
        if total > local_budget {
            return Err(Error::ExceedsLimit {
                what: "workgroup shared memory (bytes; the kernel's __local arrays included)",
                requested: total,
                limit: local_budget,
            });
        }
    }
    let group = launch.group_size as usize;
    let [gx, gy, gz] = launch.groups.map(|g| g as usize);
    let global_x = gx.checked_mul(group).ok_or(Error::ExceedsLimit {
        what: "work-items along x",
        requested: launch.groups[0] as u64 * u64::from(launch.group_size),
        limit: usize::MAX as u64,
    })?;
    let dims = if gz > 1 {
        3
    } else if gy > 1 {
        2
    } else {
        1
    };

    let mut kernel = compiled
        .kernel
        .lock()
        .map_err(|_| Error::Internal("an OpenCL kernel's lock is poisoned".into()))?;
    let mut index = 0u32;
    for buffer in buffers {
        sys::set_arg_mem(&mut kernel, index, &buffer.mem).map_err(Failure::error)?;
        index += 1;
    }
    for &word in params {
        sys::set_arg_word(&mut kernel, index, word).map_err(Failure::error)?;
        index += 1;
    }
    if compiled.dynamic_shared {
        sys::set_arg_local(&mut kernel, index, local_bytes as usize).map_err(Failure::error)?;
    }
    // SAFETY: every argument was just set (buffers, params and the `__local`
    // block, in the order of the kernel interface the checked layer
    // verified), the buffers are borrowed for this call and OpenCL keeps
    // them alive until the command completes; what the kernel does over this
    // range is our caller's promise (this function's contract).
    unsafe { sys::enqueue_kernel(queue, &kernel, dims, [global_x, gy, gz], [group, 1, 1]) }
        .map_err(Failure::error)
}
