//! The device API every plan and user program calls — [`Backend`] — and the
//! handles it gives out: [`Buffer`], [`Kernel`], [`Timestamp`].
//!
//! `Backend` is sealed: its only implementation is the checked layer
//! ([`crate::checked`]) over a backend's [`crate::Driver`], so every call a
//! program makes has been checked before it reaches an API. Handles carry the
//! device they were made on; using one on another device is
//! [`Error::ForeignHandle`], never a silent mix-up.
//!
//! Ordering: calls on one device take effect in call order, as if on one
//! in-order queue. `write`, `zero`, `copy`, `launch` and `timestamp` may be
//! deferred (recorded into a command buffer); `read`, `finish` and `elapsed`
//! wait for what they depend on.

use crate::caps::DeviceInfo;
use crate::elem::Element;
use crate::error::{Error, Result};
use crate::kernel::KernelSpec;
use crate::launch::Launch;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A driver's own object behind a handle (its buffer, kernel or mark type).
pub(crate) type Raw = Box<dyn Any + Send + Sync>;

/// Identifies one opened device for the life of the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeviceTag(u64);

/// `#N`: what tells two openings of one device apart in messages.
impl std::fmt::Display for DeviceTag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}

impl DeviceTag {
    /// A tag no other device of this process has.
    pub(crate) fn fresh() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        DeviceTag(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// Which clock a measured duration came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// The API's own device timer (timestamp queries, events, profiling info).
    Device,
    /// Host wall clock around a synchronised region.
    Host,
}

pub(crate) mod sealed {
    /// Only the checked layer implements [`super::Backend`].
    pub trait Sealed {}
}

/// A compute device behind one API, every call checked (see the module docs).
///
/// Buffers hold bytes; offsets and lengths passed to `write`, `read` and
/// `copy` are multiples of 4. Fresh buffers are zeroed.
pub trait Backend: sealed::Sealed + Send + Sync {
    /// What the device is and what it can do.
    fn info(&self) -> &DeviceInfo;

    /// This device's identity within the process.
    fn tag(&self) -> DeviceTag;

    /// Allocate `bytes` of zeroed memory (refused over
    /// [`crate::Capabilities::max_buffer_bytes`]). May reuse memory of
    /// buffers dropped earlier (see [`PoolStats`]).
    fn alloc(&self, bytes: u64) -> Result<Buffer>;

    /// Copy `data` into `buffer` at byte `offset`, in queue order.
    fn write(&self, buffer: &Buffer, offset: u64, data: &[u8]) -> Result<()>;

    /// Copy bytes of `buffer` from `offset` into `out`, after everything
    /// enqueued before.
    fn read(&self, buffer: &Buffer, offset: u64, out: &mut [u8]) -> Result<()>;

    /// Set every byte of `buffer` to zero, in queue order.
    fn zero(&self, buffer: &Buffer) -> Result<()>;

    /// Copy `bytes` from `src` at `src_offset` to `dst` at `dst_offset`
    /// (two different buffers), in queue order.
    fn copy(
        &self,
        src: &Buffer,
        src_offset: u64,
        dst: &Buffer,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()>;

    /// Build the kernel for these constants, or fetch it from the cache
    /// (keyed by the kernel's interface, its source in this API's language
    /// and the constants — never by name alone).
    fn compile(&self, spec: &KernelSpec) -> Result<Kernel>;

    /// Enqueue one dispatch. `buffers` bind in the order of the kernel's
    /// bindings; `params` are its param words in order. The launch is checked
    /// against the device's limits and the kernel's interface (buffer and
    /// param counts, one buffer in two bindings only where both are read-only,
    /// the `GROUP_SIZE` it was built
    /// for, every handle from this device) before it reaches the API.
    ///
    /// # Safety
    /// The kernel runs arbitrary device code. The caller guarantees that, for
    /// these params and this launch, it reads and writes only inside the
    /// buffers bound (each [`Buffer::capacity`] bytes), terminates, and uses
    /// no more shared memory than `launch.shared_bytes`.
    unsafe fn launch(
        &self,
        kernel: &Kernel,
        launch: &Launch,
        buffers: &[&Buffer],
        params: &[u32],
    ) -> Result<()>;

    /// Submit what is recorded, without waiting.
    fn flush(&self) -> Result<()>;

    /// Wait until everything enqueued has completed.
    fn finish(&self) -> Result<()>;

    /// Mark a point in queue order. Any number of marks may be outstanding;
    /// [`Backend::elapsed`] measures between two of them.
    fn timestamp(&self) -> Result<Timestamp>;

    /// Time between two marks of this device (`begin` recorded first, else
    /// an [`Error::InvalidArgument`]), and the clock it was measured with
    /// ([`Clock::Device`] where the API has timers). Waits for `end`.
    fn elapsed(&self, begin: &Timestamp, end: &Timestamp) -> Result<(Duration, Clock)>;

    /// Messages of warning or error severity the API's validation layer
    /// reported since the last call (drained).
    fn take_diagnostics(&self) -> Vec<String>;

    /// How much memory the buffer pool holds and how often it was reused.
    fn pool_stats(&self) -> PoolStats;

    /// Free every pooled buffer now.
    fn trim_pool(&self);

    /// Called by [`Buffer`]'s drop: pool or free the driver's buffer.
    #[doc(hidden)]
    fn release_buffer(&self, raw: Raw, capacity: u64);
}

/// The buffer pool's counters (see [`Backend::pool_stats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PoolStats {
    /// Allocations served from the pool.
    pub reused: u64,
    /// Allocations that went to the API.
    pub allocated: u64,
    /// Bytes held by pooled (free) buffers now.
    pub pooled_bytes: u64,
}

impl Error {
    /// A buffer made on another device (or opening) than `device`.
    pub fn foreign_buffer(buffer: &Buffer, device: &dyn Backend) -> Error {
        let owner = buffer.backend().info().id();
        Error::foreign_handle(
            "buffer",
            (Some(&owner), &buffer.tag()),
            (&device.info().id(), &device.tag()),
        )
    }
}

/// One allocation on one device; freed (or pooled) on drop.
///
/// A `Buffer` keeps its device alive. It knows its size but not its element
/// type; the facade's typed `DeviceBuffer<T>` wraps it.
pub struct Buffer {
    backend: Arc<dyn Backend>,
    tag: DeviceTag,
    serial: u64,
    bytes: u64,
    capacity: u64,
    raw: Option<Raw>,
}

impl Buffer {
    /// Called by the checked layer only.
    pub(crate) fn from_raw(
        backend: Arc<dyn Backend>,
        serial: u64,
        bytes: u64,
        capacity: u64,
        raw: Raw,
    ) -> Self {
        Buffer {
            tag: backend.tag(),
            backend,
            serial,
            bytes,
            capacity,
            raw: Some(raw),
        }
    }

    /// Allocate `bytes` of zeroed memory on `backend`.
    pub fn new(backend: &Arc<dyn Backend>, bytes: u64) -> Result<Self> {
        backend.alloc(bytes)
    }

    /// Allocate and upload a slice.
    pub fn from_slice<T: bytemuck::Pod>(backend: &Arc<dyn Backend>, data: &[T]) -> Result<Self> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let buffer = backend.alloc(bytes.len() as u64)?;
        buffer.write_bytes(0, bytes)?;
        Ok(buffer)
    }

    /// The device the buffer lives on.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// The device's tag.
    pub fn tag(&self) -> DeviceTag {
        self.tag
    }

    /// Unique among this device's buffers (for messages and alias checks).
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// The size asked for, in bytes (typed reads stay inside it; raw reads
    /// and writes may use the whole [`Buffer::capacity`]).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The size allocated (at least [`Buffer::bytes`], a multiple of 16):
    /// what a kernel binding sees.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// The driver's object, for the checked layer (None only during drop).
    pub(crate) fn raw(&self) -> Option<&Raw> {
        self.raw.as_ref()
    }

    /// Overwrite `data.len()` bytes from `offset`; no other byte below
    /// [`Buffer::bytes`] changes. The APIs write whole 4-byte words, so a
    /// word that `data` covers only in part is first read back where its
    /// other bytes lie inside [`Buffer::bytes`] (a round trip to the
    /// device); a last word's bytes past [`Buffer::bytes`] (the padding of
    /// `u8` data) become zeros.
    pub fn write_bytes(&self, offset: u64, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let end = offset
            .checked_add(data.len() as u64)
            .filter(|&end| end <= self.capacity)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "writing {} bytes at byte {offset} of a buffer of {} bytes",
                    data.len(),
                    self.capacity
                ))
            })?;
        let head = (offset % 4) as usize;
        if head == 0 && end % 4 == 0 {
            return self.backend.write(self, offset, data);
        }
        // The whole words the range touches, with the partial ones merged.
        let start = offset - head as u64;
        let stop = end.div_ceil(4) * 4;
        let mut words = vec![0u8; (stop - start) as usize];
        if head != 0 {
            self.backend.read(self, start, &mut words[..4])?;
        }
        let last = words.len() - 4;
        if end % 4 != 0 && end < self.bytes && (head == 0 || last != 0) {
            self.backend.read(self, stop - 4, &mut words[last..])?;
        }
        words[head..head + data.len()].copy_from_slice(data);
        self.backend.write(self, start, &words)
    }

    /// Overwrite the start of the buffer with `data`.
    pub fn write<T: bytemuck::Pod>(&self, data: &[T]) -> Result<()> {
        self.write_bytes(0, bytemuck::cast_slice(data))
    }

    /// Download the first `len` values. The length is checked against the
    /// buffer before anything is allocated.
    pub fn read<T: Element>(&self, len: usize) -> Result<Vec<T>> {
        let bytes = (len as u64)
            .checked_mul(std::mem::size_of::<T>() as u64)
            .filter(|&b| b <= self.bytes)
            .ok_or_else(|| {
                Error::ShapeMismatch(format!(
                    "reading {len} {} values from a buffer of {} bytes",
                    T::ELEM,
                    self.bytes
                ))
            })?;
        let mut out = vec![T::default(); len];
        let out_bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut out);
        let whole = (bytes / 4 * 4) as usize;
        if whole > 0 {
            self.backend.read(self, 0, &mut out_bytes[..whole])?;
        }
        if whole < out_bytes.len() {
            let mut last = [0u8; 4];
            self.backend.read(self, whole as u64, &mut last)?;
            let rest = out_bytes.len() - whole;
            out_bytes[whole..].copy_from_slice(&last[..rest]);
        }
        Ok(out)
    }

    /// Zero the whole buffer, in queue order.
    pub fn zero(&self) -> Result<()> {
        self.backend.zero(self)
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if let Some(raw) = self.raw.take() {
            self.backend.release_buffer(raw, self.capacity);
        }
    }
}

impl fmt::Debug for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffer")
            .field("device", &self.backend.info().id())
            .field("serial", &self.serial)
            .field("bytes", &self.bytes)
            .finish()
    }
}

/// A compiled kernel of one device. Cheap to clone; keeps its device alive.
#[derive(Clone)]
pub struct Kernel {
    backend: Arc<dyn Backend>,
    spec: KernelSpec,
    raw: Arc<dyn Any + Send + Sync>,
}

impl Kernel {
    pub(crate) fn from_raw(
        backend: Arc<dyn Backend>,
        spec: KernelSpec,
        raw: Arc<dyn Any + Send + Sync>,
    ) -> Self {
        Kernel { backend, spec, raw }
    }

    /// The kernel and constants it was built from.
    pub fn spec(&self) -> &KernelSpec {
        &self.spec
    }

    /// The device's tag.
    pub fn tag(&self) -> DeviceTag {
        self.backend.tag()
    }

    /// The device the kernel was built for.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    pub(crate) fn raw(&self) -> &(dyn Any + Send + Sync) {
        self.raw.as_ref()
    }
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Kernel({} on {})",
            self.spec.label(),
            self.backend.info().id()
        )
    }
}

/// A point in one device's queue (see [`Backend::timestamp`]).
pub struct Timestamp {
    pub(crate) tag: DeviceTag,
    /// The driver's mark, where the device has timers.
    pub(crate) mark: Option<Raw>,
    /// Host clock, taken after the queue drained, where it has none.
    pub(crate) host: Instant,
    /// Its place in the device's order of marks (and other serials).
    pub(crate) serial: u64,
}

impl Timestamp {
    /// The device's tag.
    pub fn tag(&self) -> DeviceTag {
        self.tag
    }

    /// Whether the mark is on the device's own clock.
    pub fn is_device_clock(&self) -> bool {
        self.mark.is_some()
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timestamp")
            .field("device_clock", &self.mark.is_some())
            .finish()
    }
}
