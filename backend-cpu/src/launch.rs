//! Launch: bind buffers (read-only shared, writable as atomics), then run
//! every workgroup on rayon's pool, each with its own shared-memory scratch.
//! A kernel that panics (an out-of-range index in a user's kernel, say) is
//! caught and reported as an error, never a crash.

use crate::memory::{as_atomics, poisoned, CpuBuffer};
use rayon::prelude::*;
use rosetta_core::workgroup::{Binding, Bindings, Group};
use rosetta_core::{Access, Api, CpuKernel, Error, Launch, Result};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{RwLockReadGuard, RwLockWriteGuard};

/// A kernel "compiled" for the CPU: its closure and constants.
pub(crate) struct Compiled {
    pub(crate) name: String,
    pub(crate) run: CpuKernel,
    pub(crate) constants: Vec<u32>,
    pub(crate) bindings: Vec<Access>,
}

/// A binding's lock: shared for read-only buffers, exclusive for writable ones.
enum Guard<'a> {
    Read(RwLockReadGuard<'a, Vec<u32>>),
    Write(RwLockWriteGuard<'a, Vec<u32>>),
}

pub(crate) fn run(
    kernel: &Compiled,
    launch: &Launch,
    buffers: &[&CpuBuffer],
    params: &[u32],
) -> Result<()> {
    // One lock per buffer: the checked layer lets a buffer fill several
    // bindings where all of them are read-only, and those share its read
    // guard (taking a second read lock on the same thread may deadlock).
    let mut guards = Vec::with_capacity(buffers.len());
    let mut guard_of = Vec::with_capacity(buffers.len());
    for (i, (buffer, access)) in buffers.iter().zip(&kernel.bindings).enumerate() {
        if let Some(j) = (0..i).find(|&j| std::ptr::eq(buffers[j], *buffer)) {
            guard_of.push(guard_of[j]);
            continue;
        }
        guard_of.push(guards.len());
        guards.push(match access {
            Access::Read => Guard::Read(buffer.words.read().map_err(poisoned)?),
            Access::ReadWrite => Guard::Write(buffer.words.write().map_err(poisoned)?),
        });
    }
    let views: Vec<Binding<'_>> = guards
        .iter_mut()
        .map(|guard| match guard {
            Guard::Read(words) => Binding::Read(&words[..]),
            Guard::Write(words) => Binding::ReadWrite(as_atomics(&mut words[..])),
        })
        .collect();
    let slots = guard_of.iter().map(|&g| views[g]).collect();
    let bindings = Bindings::new(slots);

    let [gx, gy, gz] = launch.groups.map(u64::from);
    let shared_words = (launch.shared_bytes as usize).div_ceil(4);
    let constants = &kernel.constants[..];
    let body = &kernel.run;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        (0..gx * gy * gz).into_par_iter().for_each_init(
            || vec![0u32; shared_words],
            |shared, flat| {
                let id = [
                    (flat % gx) as u32,
                    ((flat / gx) % gy) as u32,
                    (flat / (gx * gy)) as u32,
                ];
                let mut group = Group {
                    id,
                    count: launch.groups,
                    size: launch.group_size,
                    constants,
                    params,
                    shared,
                };
                body(&mut group, &bindings);
            },
        );
    }));
    outcome.map_err(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Error::device(
            Api::Cpu,
            format!("running kernel '{}'", kernel.name),
            format!("the kernel panicked: {message}"),
        )
    })
}
