//! Launch: bind buffers (read-only shared, writable as atomics), then run every
//! workgroup on rayon's pool, each with its own shared-memory scratch.

use crate::buffers::{as_atomics, Buffers};
use crate::compile::Compiled;
use rayon::prelude::*;
use rosetta_core::workgroup::{Binding, Bindings, Group};
use rosetta_core::{Access, BufferId, Error, Launch, Result};
use std::sync::{RwLockReadGuard, RwLockWriteGuard};

/// A binding's lock: shared for read-only buffers, exclusive for writable ones.
enum Guard<'a> {
    Read(RwLockReadGuard<'a, Vec<u32>>),
    Write(RwLockWriteGuard<'a, Vec<u32>>),
}

fn poisoned() -> Error {
    Error::backend(
        rosetta_core::Api::Cpu,
        "a buffer lock was poisoned by a panicking kernel",
    )
}

pub fn run(
    buffers: &Buffers,
    kernel: &Compiled,
    launch: &Launch,
    ids: &[BufferId],
    params: &[u32],
) -> Result<()> {
    let def = kernel.def;
    let words = ids
        .iter()
        .map(|&id| buffers.get(id))
        .collect::<Result<Vec<_>>>()?;
    let mut guards = Vec::with_capacity(words.len());
    for (w, access) in words.iter().zip(def.bindings) {
        guards.push(match access {
            Access::Read => Guard::Read(w.read().map_err(|_| poisoned())?),
            Access::ReadWrite => Guard::Write(w.write().map_err(|_| poisoned())?),
        });
    }
    let slots = guards
        .iter_mut()
        .map(|guard| match guard {
            Guard::Read(words) => Binding::Read(&words[..]),
            Guard::Write(words) => Binding::ReadWrite(as_atomics(&mut words[..])),
        })
        .collect();
    let bindings = Bindings::new(slots);

    let [gx, gy, gz] = launch.groups.map(u64::from);
    let shared_words = (launch.shared_bytes as usize).div_ceil(4);
    let constants = &kernel.constants[..];
    let run = kernel.run;
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
            run(&mut group, &bindings);
        },
    );
    Ok(())
}
