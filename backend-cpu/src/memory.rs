//! Buffers: host vectors of 32-bit words, each behind a lock so a launch can
//! hold read-only bindings shared and writable bindings exclusively.

use rosetta_core::{Api, Error, Result};
use std::sync::atomic::AtomicU32;
use std::sync::RwLock;

/// One allocation.
pub(crate) struct CpuBuffer {
    pub(crate) words: RwLock<Vec<u32>>,
}

impl CpuBuffer {
    /// `bytes` (a multiple of 16) of zeroed memory; a failed reservation is
    /// out of memory, not an abort.
    pub(crate) fn zeroed(bytes: u64) -> Result<Self> {
        let words = usize::try_from(bytes / 4).map_err(|_| {
            Error::out_of_memory(
                Api::Cpu,
                format!("{bytes} bytes exceed the address space"),
                None,
            )
        })?;
        let mut data = Vec::new();
        data.try_reserve_exact(words).map_err(|e| {
            Error::out_of_memory(
                Api::Cpu,
                format!("allocating {bytes} bytes"),
                Some(Box::new(e)),
            )
        })?;
        data.resize(words, 0);
        Ok(CpuBuffer {
            words: RwLock::new(data),
        })
    }
}

/// A lock poisoned by a kernel that panicked while holding it.
pub(crate) fn poisoned<T>(_: T) -> Error {
    Error::Internal("a cpu buffer's lock was poisoned by a panic".into())
}

/// Writable words seen as atomics, so workgroups on several threads can write
/// and atomically update one buffer, as GPU global memory allows.
pub(crate) fn as_atomics(words: &mut [u32]) -> &[AtomicU32] {
    const _: () = assert!(std::mem::align_of::<AtomicU32>() == std::mem::align_of::<u32>());
    // SAFETY: AtomicU32 has the same size and bit validity as u32, and (checked
    // above) the same alignment on this target; the exclusive borrow guarantees
    // no non-atomic access to these words while the returned slice lives.
    unsafe { std::slice::from_raw_parts(words.as_mut_ptr().cast::<AtomicU32>(), words.len()) }
}
