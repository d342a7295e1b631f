//! The narrow layer each backend implements: its API calls and nothing else.
//!
//! A backend crate implements [`Driver`] for one opened device and hands it
//! to [`crate::checked::open`], which wraps it in the checked layer and
//! returns it as an `Arc<dyn Backend>`. The checked layer owns everything
//! that is the same for every API — handle identity (device tags), the kernel
//! cache, the buffer pool, every size, range and launch check, timing tokens,
//! and the one lock that serialises calls — so a driver only translates.
//!
//! # The contract
//! The checked layer calls a driver from one thread at a time (`&mut self`
//! behind one mutex) and guarantees each method's preconditions below; a
//! driver may rely on them and need not check them again. In return a driver
//! keeps queue order: every call takes effect after the calls made before it,
//! as if on one in-order queue (a write to a buffer that a recorded launch
//! still reads must wait for, or be ordered after, that launch).
//!
//! Errors: an out-of-memory condition is [`crate::Error::OutOfMemory`], a lost
//! device [`crate::Error::DeviceLost`], another failed call
//! [`crate::Error::Device`] keeping the API's error as its source, a kernel
//! that fails to build [`crate::Error::Compile`] with the compiler's log.

use crate::error::Result;
use crate::kernel::{KernelSpec, Source};
use crate::launch::Launch;
use std::time::Duration;

/// One opened device of one API (see the module docs for the contract).
pub trait Driver: Send + 'static {
    /// A device allocation.
    type Buffer: Send + Sync + 'static;
    /// A compiled kernel (pipeline, function, program) for one spec.
    type Kernel: Send + Sync + 'static;
    /// A timestamp in queue order. May be dropped at any time, also after
    /// the driver.
    type Mark: Send + Sync + 'static;

    /// Allocate `bytes` of **zeroed** memory.
    ///
    /// Preconditions: `bytes` is a multiple of 16, at least 16, and at most
    /// the device's `max_buffer_bytes`.
    fn alloc(&mut self, bytes: u64) -> Result<Self::Buffer>;

    /// Release a buffer. Work already enqueued may still use it: the driver
    /// keeps the memory valid until that work has completed.
    fn free(&mut self, buffer: Self::Buffer);

    /// Copy `data` into `buffer` at `offset`, in queue order.
    ///
    /// Preconditions: `buffer` came from this driver; `offset` and
    /// `data.len()` are multiples of 4; `data` is not empty; the range lies
    /// inside the allocation.
    fn write(&mut self, buffer: &Self::Buffer, offset: u64, data: &[u8]) -> Result<()>;

    /// Copy bytes from `offset` into `out` once everything enqueued before
    /// has completed. Preconditions as [`Driver::write`].
    fn read(&mut self, buffer: &Self::Buffer, offset: u64, out: &mut [u8]) -> Result<()>;

    /// Zero the whole allocation, in queue order.
    fn zero(&mut self, buffer: &Self::Buffer) -> Result<()>;

    /// Copy `bytes` between two different buffers, in queue order.
    /// Preconditions: both from this driver and distinct; offsets and
    /// `bytes` multiples of 4, `bytes > 0`; both ranges inside their
    /// allocations.
    fn copy(
        &mut self,
        src: &Self::Buffer,
        src_offset: u64,
        dst: &Self::Buffer,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()>;

    /// Build the kernel of `spec` from `source` (the spec's version in this
    /// API's language; a [`Source::Rust`] closure only for the CPU driver).
    /// The checked layer caches the result; a driver may keep its own caches
    /// of intermediate objects (modules, programs) and persistent caches.
    fn compile(&mut self, spec: &KernelSpec, source: Source<'_>) -> Result<Self::Kernel>;

    /// Destroy a kernel (the checked layer calls this when the device closes;
    /// nothing uses the kernel any more).
    fn release_kernel(&mut self, kernel: Self::Kernel) {
        drop(kernel);
    }

    /// Enqueue one dispatch of `kernel` with `buffers` bound in order and
    /// `params` as its param words.
    ///
    /// # Safety
    /// The checked layer guarantees: `kernel` and every buffer came from this
    /// driver and are live; `buffers.len()` and `params.len()` match the
    /// kernel's bindings and params; a buffer fills two bindings only where
    /// both are read-only; the launch is
    /// within the device's limits, not empty, and its `group_size` is the
    /// kernel's `GROUP_SIZE`. Its caller (ultimately an `unsafe` launch of the
    /// program) guarantees that the kernel stays inside the bound buffers'
    /// allocations and its shared memory, and terminates. The driver must
    /// pass `shared_bytes` of dynamic shared memory where the kernel is
    /// `dynamic_shared` and the API has it.
    unsafe fn launch(
        &mut self,
        kernel: &Self::Kernel,
        launch: &Launch,
        buffers: &[&Self::Buffer],
        params: &[u32],
    ) -> Result<()>;

    /// Submit recorded work without waiting.
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }

    /// Wait until everything enqueued has completed.
    fn finish(&mut self) -> Result<()>;

    /// Record a timestamp in queue order, or `None` where the device has no
    /// timer (the checked layer then uses the host clock after `finish`).
    fn timestamp(&mut self) -> Result<Option<Self::Mark>>;

    /// Device time from `begin` to `end` (both from this driver, `begin`
    /// recorded first or the same mark: the checked layer refuses the
    /// other order). Waits until `end` has been reached.
    fn elapsed(&mut self, begin: &Self::Mark, end: &Self::Mark) -> Result<Duration>;

    /// Validation-layer messages since the last call (drained).
    fn diagnostics(&mut self) -> Vec<String> {
        Vec::new()
    }
}
