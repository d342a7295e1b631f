//! Launch (checked against the kernel by the caller): bind the buffers (in
//! `KernelDef::bindings` order), then the params as 32-bit scalars, then the
//! trailing `__local` argument of `dynamic_shared` kernels, and enqueue
//! `groups × group_size` work-items (global sizes are always whole groups, as
//! PoCL has no non-uniform work-groups).

use crate::buffers::{Allocation, Queue};
use crate::cl::{self, Arg};
use crate::compile::Compiled;
use rosetta_core::{Error, Launch, Result};
use std::sync::Arc;

pub fn run(
    q: &Queue<'_>,
    compiled: &Compiled,
    launch: &Launch,
    buffers: &[Arc<Allocation>],
    params: &[u32],
    max_shared_bytes: u32,
) -> Result<()> {
    let def = compiled.def;
    if u64::from(launch.group_size) > compiled.max_group_size {
        return Err(Error::ExceedsLimit {
            what: "workgroup size (this kernel on this device)",
            requested: launch.group_size.into(),
            limit: compiled.max_group_size,
        });
    }
    // A zero-sized `__local` argument is invalid; the kernels never read
    // past what the plan asked for.
    let local_bytes = launch.shared_bytes.max(4);
    if def.dynamic_shared {
        let total = compiled.static_local_bytes + u64::from(local_bytes);
        if total > u64::from(max_shared_bytes) {
            return Err(Error::ExceedsLimit {
                what: "workgroup shared memory (bytes)",
                requested: total,
                limit: max_shared_bytes.into(),
            });
        }
    }

    let [gx, gy, gz] = launch.groups.map(|g| g as usize);
    let global = [gx * launch.group_size as usize, gy, gz];
    let local = [launch.group_size as usize, 1, 1];
    let dims = if gz > 1 {
        3
    } else if gy > 1 {
        2
    } else {
        1
    };

    let kernel = compiled.kernel.lock().unwrap_or_else(|p| p.into_inner());
    let mut index = 0u32;
    for buffer in buffers {
        cl::set_arg(&kernel, index, Arg::Mem(&buffer.mem))?;
        index += 1;
    }
    for &word in params {
        cl::set_arg(&kernel, index, Arg::Word(word))?;
        index += 1;
    }
    if def.dynamic_shared {
        cl::set_arg(&kernel, index, Arg::Local(local_bytes as usize))?;
    }
    q.timer
        .enqueue(|event| cl::enqueue_kernel(q.queue, &kernel, dims, global, local, event))
}
