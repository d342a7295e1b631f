//! Buffers: `cl_mem` objects (read-write device memory), sized in multiples of
//! 16 bytes so kernels may read any buffer as 4-word vectors, zeroed in queue
//! order when allocated.

use crate::cl::{self, Owned};
use crate::errors::API;
use crate::timing::Timer;
use ocl::core::{CommandQueue, Context, Mem};
use rosetta_core::{BufferId, Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// One allocation: the memory object and its (rounded) size in bytes.
pub struct Allocation {
    pub mem: Owned<Mem>,
    pub bytes: u64,
}

#[derive(Default)]
pub struct Buffers {
    next: AtomicU64,
    map: Mutex<HashMap<BufferId, Arc<Allocation>>>,
}

/// The queue-side things a buffer operation needs.
pub struct Queue<'a> {
    pub context: &'a Context,
    pub queue: &'a CommandQueue,
    pub timer: &'a Timer,
    /// `clEnqueueFillBuffer` is available (OpenCL 1.2+).
    pub fill: bool,
}

impl Queue<'_> {
    /// Zero the first `bytes` of `mem`, in queue order.
    fn zero(&self, mem: &Mem, bytes: u64) -> Result<()> {
        let bytes = to_usize(bytes)?;
        if self.fill {
            self.timer
                .enqueue(|event| cl::fill_zero(self.queue, mem, bytes, event))
        } else {
            let zeros = vec![0u8; bytes];
            self.timer
                .enqueue(|event| cl::write_buffer(self.queue, mem, 0, &zeros, event))
        }
    }
}

impl Buffers {
    fn lock(&self) -> MutexGuard<'_, HashMap<BufferId, Arc<Allocation>>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Allocate `bytes` rounded up to 16 (at least 16: OpenCL has no empty
    /// buffers), zeroed; sizes over the device's `CL_DEVICE_MAX_MEM_ALLOC_SIZE`
    /// are refused before the API sees them.
    pub fn alloc(&self, q: &Queue<'_>, bytes: u64, limit: u64) -> Result<BufferId> {
        let rounded = rosetta_core::check_buffer_bytes(bytes, limit)?.max(16);
        let mem = cl::create_buffer(q.context, to_usize(rounded)?)?;
        q.zero(&mem, rounded)?;
        let id = BufferId(self.next.fetch_add(1, Ordering::Relaxed));
        self.lock().insert(
            id,
            Arc::new(Allocation {
                mem,
                bytes: rounded,
            }),
        );
        Ok(id)
    }

    /// Drop our reference; OpenCL frees the memory once the commands already
    /// enqueued on it have finished.
    pub fn free(&self, id: BufferId) {
        self.lock().remove(&id);
    }

    pub fn get(&self, id: BufferId) -> Result<Arc<Allocation>> {
        self.lock()
            .get(&id)
            .cloned()
            .ok_or_else(|| Error::InvalidArgument(format!("unknown opencl buffer {}", id.0)))
    }

    pub fn write(&self, q: &Queue<'_>, id: BufferId, offset: u64, data: &[u8]) -> Result<()> {
        let buffer = self.get(id)?;
        let offset = check_range(&buffer, offset, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        q.timer
            .enqueue(|event| cl::write_buffer(q.queue, &buffer.mem, offset, data, event))
    }

    pub fn read(&self, q: &Queue<'_>, id: BufferId, offset: u64, out: &mut [u8]) -> Result<()> {
        let buffer = self.get(id)?;
        let offset = check_range(&buffer, offset, out.len())?;
        if out.is_empty() {
            return Ok(());
        }
        q.timer
            .enqueue(|event| cl::read_buffer(q.queue, &buffer.mem, offset, out, event))
    }

    pub fn zero(&self, q: &Queue<'_>, id: BufferId) -> Result<()> {
        let buffer = self.get(id)?;
        q.zero(&buffer.mem, buffer.bytes)
    }
}

/// Check a transfer of `len` bytes at `offset`: both multiples of 4, inside
/// the buffer. Returns the offset as `usize`.
fn check_range(buffer: &Allocation, offset: u64, len: usize) -> Result<usize> {
    rosetta_core::check_byte_range(offset, len, buffer.bytes)?;
    to_usize(offset)
}

fn to_usize(bytes: u64) -> Result<usize> {
    usize::try_from(bytes)
        .map_err(|_| Error::backend(API, format!("{bytes} bytes do not fit in size_t")))
}
