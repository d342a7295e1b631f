//! Device allocations: plain device memory (never managed memory), used
//! only through the stream it was allocated for.
//!
//! Freeing is in the stream's order, so memory dropped while enqueued work
//! still uses it stays valid until the stream has passed that work: where
//! the device has memory pools, the allocation comes from
//! `cuMemAllocAsync` and goes back with `cuMemFreeAsync` on the stream;
//! where it has not, `cuMemAlloc`'d memory is freed after the stream has
//! been synchronised.

use super::stream::Stream;
use crate::errors;
use crate::sys::driver::{self, CUdeviceptr};
use rosetta_core::{Error, Result};
use std::sync::Arc;

/// One allocation, used only by work enqueued on its stream.
pub(crate) struct DeviceMemory {
    stream: Arc<Stream>,
    pointer: CUdeviceptr,
    bytes: u64,
    /// Allocated by `cuMemAllocAsync` (freed by `cuMemFreeAsync`).
    ordered: bool,
}

impl DeviceMemory {
    /// `bytes` (a positive multiple of 4) of zeroed memory for work on
    /// `stream`; `ordered` where the device has memory pools.
    pub(crate) fn zeroed(stream: &Arc<Stream>, bytes: u64, ordered: bool) -> Result<Self> {
        if bytes == 0 || !bytes.is_multiple_of(4) {
            return Err(Error::Internal(format!(
                "cuda: an allocation of {bytes} bytes (not a positive multiple of 4)"
            )));
        }
        let size = usize::try_from(bytes).map_err(|_| {
            Error::Internal(format!("cuda: {bytes} bytes do not fit this host's usize"))
        })?;
        stream.bind()?;
        let pointer = if ordered {
            // SAFETY: the stream is live (held by `stream`) and its context
            // current; the memory is used only by work enqueued on this
            // stream after this call (every use goes through this value).
            unsafe { driver::mem_alloc_async(size, stream.raw()) }
        } else {
            driver::mem_alloc(size)
        }
        .map_err(|e| errors::alloc(e, bytes))?;
        // Owned from here: an error below frees it in Drop.
        let memory = DeviceMemory {
            stream: Arc::clone(stream),
            pointer,
            bytes,
            ordered,
        };
        memory.zero()?;
        Ok(memory)
    }

    /// The device address, for kernel arguments. Valid for work enqueued on
    /// [`DeviceMemory::stream`] while `self` lives.
    pub(crate) fn pointer(&self) -> CUdeviceptr {
        self.pointer
    }

    /// The stream every use of the memory is enqueued on.
    pub(crate) fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// The device address of `offset .. offset + len`, if inside.
    fn range(&self, offset: u64, len: u64) -> Result<CUdeviceptr> {
        match offset.checked_add(len) {
            Some(end) if end <= self.bytes => Ok(self.pointer + offset),
            _ => Err(Error::Internal(format!(
                "cuda: byte range {offset}+{len} outside an allocation of {} bytes",
                self.bytes
            ))),
        }
    }

    /// Zero every byte, in the stream's order.
    pub(crate) fn zero(&self) -> Result<()> {
        self.stream.bind()?;
        let words = usize::try_from(self.bytes / 4)
            .map_err(|_| Error::Internal("cuda: allocation size over usize".into()))?;
        // SAFETY: the whole allocation (a multiple of 4 bytes), live until
        // the stream has passed this memset (it is freed in stream order);
        // the stream is live and its context current.
        unsafe { driver::memset_d32_async(self.pointer, 0, words, self.stream.raw()) }
            .map_err(errors::driver)
    }

    /// Copy `data` in at `offset`, after the work enqueued before; returns
    /// once the copy has completed.
    pub(crate) fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        let destination = self.range(offset, data.len() as u64)?;
        self.stream.bind()?;
        // SAFETY: the destination range is inside the allocation (checked
        // above), which is freed only in stream order; `data` is borrowed
        // until this function returns, after the synchronisation below, so
        // it outlives the copy (when that synchronisation fails the context
        // is unusable and runs nothing more); the stream is live and its
        // context current.
        unsafe { driver::memcpy_htod_async(destination, data, self.stream.raw()) }
            .map_err(errors::driver)?;
        self.stream.synchronize()
    }

    /// Copy from `offset` into `out`, after the work enqueued before; returns
    /// once the copy has completed.
    pub(crate) fn read(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        let source = self.range(offset, out.len() as u64)?;
        self.stream.bind()?;
        // SAFETY: the source range is inside the allocation (checked above),
        // freed only in stream order; `out` is borrowed exclusively until
        // this function returns, after the synchronisation below, so no one
        // touches it during the copy (when that synchronisation fails the
        // context is unusable and runs nothing more); the stream is live and
        // its context current.
        unsafe { driver::memcpy_dtoh_async(out, source, self.stream.raw()) }
            .map_err(errors::driver)?;
        self.stream.synchronize()
    }

    /// Copy `bytes` from `offset` to `destination` at `destination_offset`,
    /// in the stream's order (both allocations on one stream).
    pub(crate) fn copy_to(
        &self,
        offset: u64,
        destination: &DeviceMemory,
        destination_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        if !Arc::ptr_eq(&self.stream, &destination.stream) {
            return Err(Error::Internal(
                "cuda: a copy between allocations of different streams".into(),
            ));
        }
        if self.pointer == destination.pointer {
            return Err(Error::Internal("cuda: a copy within one allocation".into()));
        }
        let source = self.range(offset, bytes)?;
        let target = destination.range(destination_offset, bytes)?;
        let size = usize::try_from(bytes)
            .map_err(|_| Error::Internal("cuda: copy size over usize".into()))?;
        self.stream.bind()?;
        // SAFETY: both ranges lie inside their allocations (checked above),
        // which are distinct (so the ranges do not overlap) and freed only in
        // the order of this same stream; the stream is live and its context
        // current.
        unsafe { driver::memcpy_dtod_async(target, source, size, self.stream.raw()) }
            .map_err(errors::driver)
    }
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        if let Err(e) = self.stream.bind() {
            tracing::warn!("cuda: {} bytes leaked: {}", self.bytes, e.chain());
            return;
        }
        let freed = if self.ordered {
            // SAFETY: the pointer came from cuMemAllocAsync in this stream's
            // context and is freed once, here; every use of it was enqueued
            // on this stream (all go through this value or its `pointer`,
            // which launches use on the same stream) before now, and none
            // comes after; the stream is live and its context current.
            unsafe { driver::mem_free_async(self.pointer, self.stream.raw()) }
        } else {
            // Not stream ordered: wait for the stream to pass every use.
            if let Err(e) = self.stream.synchronize() {
                tracing::warn!("cuda: {} bytes leaked: {}", self.bytes, e.chain());
                return;
            }
            // SAFETY: the pointer came from cuMemAlloc in the current
            // context and is freed once, here; the stream, where all its
            // uses were enqueued, has completed them, and none comes after.
            unsafe { driver::mem_free(self.pointer) }
        };
        if let Err(e) = freed {
            tracing::warn!("cuda: {}: {e}", e.call());
        }
    }
}
