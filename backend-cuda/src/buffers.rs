//! Buffers: plain device allocations (`cuMemAlloc`, never managed memory),
//! rounded up to 16 bytes and zeroed in stream order.
//!
//! Copies and memsets run on the device's one stream, so they are ordered with
//! the launches. A freed allocation may still be in use by work already on the
//! stream, so `free` only parks it: the device frees parked allocations after
//! its next synchronisation (`read`, `write`, `finish`, `end_timer`), or when
//! an allocation runs out of memory.

use crate::errors;
use cudarc::driver::sys::{CUdeviceptr, CUresult};
use cudarc::driver::{result, CudaStream};
use rosetta_core::{BufferId, Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// One device allocation.
#[derive(Debug, Clone, Copy)]
pub struct Allocation {
    pub ptr: CUdeviceptr,
    /// Bytes allocated (the request rounded up to 16, at least 16).
    pub bytes: u64,
}

#[derive(Default)]
pub struct Buffers {
    next: AtomicU64,
    map: Mutex<HashMap<BufferId, Allocation>>,
    /// Freed allocations waiting for the stream to pass their last use.
    parked: Mutex<Vec<Allocation>>,
}

impl Buffers {
    /// A zeroed allocation of at least `bytes` bytes. The caller has bound
    /// the context and checked the device's limit.
    pub fn alloc(
        &self,
        stream: &CudaStream,
        bytes: u64,
        on_oom: impl FnOnce() -> Result<()>,
    ) -> Result<BufferId> {
        let rounded = bytes.div_ceil(16).max(1) * 16;
        let size = usize::try_from(rounded)
            .map_err(|_| errors::backend(format!("cannot allocate {bytes} bytes on this host")))?;
        // SAFETY: cuMemAlloc writes one device pointer; the memory is zeroed
        // below before anything reads it.
        let ptr = match unsafe { result::malloc_sync(size) } {
            Ok(ptr) => ptr,
            Err(e) if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY && self.has_parked() => {
                tracing::debug!(
                    bytes,
                    "cuda: out of memory; freeing parked buffers and retrying"
                );
                on_oom()?;
                // SAFETY: as above.
                unsafe { result::malloc_sync(size) }.map_err(|e| errors::driver("cuMemAlloc", e))?
            }
            Err(e) => return Err(errors::driver("cuMemAlloc", e)),
        };
        // SAFETY: `ptr` is a fresh allocation of `size` bytes; the memset is
        // ordered before every later use on this stream.
        if let Err(e) = unsafe { result::memset_d8_async(ptr, 0, size, stream.cu_stream()) } {
            // SAFETY: nothing else knows `ptr`; it is freed once.
            let _ = unsafe { result::free_sync(ptr) };
            return Err(errors::driver("cuMemsetD8Async", e));
        }
        let id = BufferId(self.next.fetch_add(1, Ordering::Relaxed));
        self.lock().insert(
            id,
            Allocation {
                ptr,
                bytes: rounded,
            },
        );
        Ok(id)
    }

    /// Park the allocation until the stream has passed its last use.
    pub fn free(&self, id: BufferId) {
        match self.lock().remove(&id) {
            Some(allocation) => self.parked().push(allocation),
            None => tracing::warn!(buffer = id.0, "cuda: free of an unknown buffer"),
        }
    }

    pub fn get(&self, id: BufferId) -> Result<Allocation> {
        self.lock()
            .get(&id)
            .copied()
            .ok_or_else(|| Error::InvalidArgument(format!("unknown cuda buffer {}", id.0)))
    }

    /// The allocation and the byte range `offset..offset + len` inside it.
    pub fn range(&self, id: BufferId, offset: u64, len: usize) -> Result<Allocation> {
        let allocation = self.get(id)?;
        rosetta_core::check_byte_range(offset, len, allocation.bytes)?;
        Ok(allocation)
    }

    fn has_parked(&self) -> bool {
        !self.parked().is_empty()
    }

    /// Take the parked allocations (before a synchronisation: only these are
    /// known to be unused once it returns).
    pub fn take_parked(&self) -> Vec<Allocation> {
        std::mem::take(&mut *self.parked())
    }

    /// Put back allocations whose synchronisation failed.
    pub fn repark(&self, allocations: Vec<Allocation>) {
        self.parked().extend(allocations);
    }

    /// Free allocations whose last use has completed. The caller has bound
    /// the context.
    pub fn release(&self, allocations: Vec<Allocation>) {
        for allocation in allocations {
            // SAFETY: the allocation came from cuMemAlloc, was removed from
            // the map (no new use can be enqueued) and the stream has been
            // synchronised past its last use; it is freed once.
            if let Err(e) = unsafe { result::free_sync(allocation.ptr) } {
                tracing::warn!(error = %errors::describe(e), "cuda: cuMemFree failed");
            }
        }
    }

    /// Every allocation, live or parked (the device's teardown).
    pub fn drain_all(&self) -> Vec<Allocation> {
        let mut all: Vec<Allocation> = self.lock().drain().map(|(_, a)| a).collect();
        all.extend(self.take_parked());
        all
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<BufferId, Allocation>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn parked(&self) -> std::sync::MutexGuard<'_, Vec<Allocation>> {
        self.parked.lock().unwrap_or_else(|p| p.into_inner())
    }
}
