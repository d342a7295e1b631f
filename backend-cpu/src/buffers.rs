//! Buffers: host vectors of 32-bit words, each behind a lock so a launch can
//! hold read-only bindings shared and writable bindings exclusively.

use rosetta_core::{check_byte_range, Api, BufferId, Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

pub type Words = Arc<RwLock<Vec<u32>>>;

#[derive(Default)]
pub struct Buffers {
    next: AtomicU64,
    map: Mutex<HashMap<BufferId, Words>>,
}

impl Buffers {
    pub fn alloc(&self, bytes: u64) -> Result<BufferId> {
        // Round up to 16 bytes, as every backend does (vector bindings).
        let words = usize::try_from(bytes.div_ceil(16) * 4)
            .map_err(|_| Error::backend(Api::Cpu, format!("cannot allocate {bytes} bytes")))?;
        let mut data = Vec::new();
        data.try_reserve_exact(words)
            .map_err(|e| Error::backend(Api::Cpu, format!("allocating {bytes} bytes: {e}")))?;
        data.resize(words, 0);
        let id = BufferId(self.next.fetch_add(1, Ordering::Relaxed));
        self.lock().insert(id, Arc::new(RwLock::new(data)));
        Ok(id)
    }

    pub fn free(&self, id: BufferId) {
        self.lock().remove(&id);
    }

    pub fn get(&self, id: BufferId) -> Result<Words> {
        self.lock()
            .get(&id)
            .cloned()
            .ok_or_else(|| Error::InvalidArgument(format!("unknown cpu buffer {}", id.0)))
    }

    pub fn write(&self, id: BufferId, offset: u64, data: &[u8]) -> Result<()> {
        let words = self.get(id)?;
        let mut words = words.write().map_err(poisoned)?;
        let range = byte_range(offset, data.len(), words.len())?;
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        bytes[range].copy_from_slice(data);
        Ok(())
    }

    pub fn read(&self, id: BufferId, offset: u64, out: &mut [u8]) -> Result<()> {
        let words = self.get(id)?;
        let words = words.read().map_err(poisoned)?;
        let range = byte_range(offset, out.len(), words.len())?;
        out.copy_from_slice(&bytemuck::cast_slice::<u32, u8>(&words)[range]);
        Ok(())
    }

    pub fn zero(&self, id: BufferId) -> Result<()> {
        self.get(id)?.write().map_err(poisoned)?.fill(0);
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<BufferId, Words>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn byte_range(offset: u64, len: usize, words: usize) -> Result<std::ops::Range<usize>> {
    let end = check_byte_range(offset, len, words as u64 * 4)?;
    // Inside a host allocation, so both ends fit in usize.
    Ok(offset as usize..end as usize)
}

fn poisoned<T>(_: T) -> Error {
    Error::backend(Api::Cpu, "a buffer lock was poisoned by a panicking kernel")
}

/// Writable words seen as atomics, so workgroups on several threads can write
/// and atomically update one buffer, as GPU global memory allows.
pub fn as_atomics(words: &mut [u32]) -> &[AtomicU32] {
    const _: () = assert!(std::mem::align_of::<AtomicU32>() == std::mem::align_of::<u32>());
    // SAFETY: AtomicU32 has the same size and bit validity as u32, and (checked
    // above) the same alignment on this target; the exclusive borrow guarantees
    // no non-atomic access to these words while the returned slice lives.
    unsafe { std::slice::from_raw_parts(words.as_mut_ptr().cast::<AtomicU32>(), words.len()) }
}
