//! Memory: buffers sub-allocated by gpu-allocator from large `VkDeviceMemory`
//! blocks, and host access to the ones that are mapped.
//!
//! A [`Buffer`] is an owned `VkBuffer` plus its allocation; `Drop` destroys
//! both. That is correct whenever it runs because GPU work keeps buffers
//! alive: a command batch (`vk::batch`) holds an `Arc` of every buffer it
//! records and lets go only once its fence has signalled. The same batches
//! count, per buffer, how many unfinished batches use it; host access to a
//! mapped buffer is refused while that count is not zero, so the host never
//! touches memory the device may be using.

use crate::vk::device::{Device, Queue};
use crate::vk::error::{internal, vk_error};
use crate::vk::live::{self, Kind};
use ash::vk;
use gpu_allocator::vulkan::{
    Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc,
};
use gpu_allocator::{AllocationError, AllocationSizes, AllocatorDebugSettings, MemoryLocation};
use rosetta_core::{Api, Error, Result};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Where a buffer's memory should live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Device-local (storage buffers). On unified-memory devices this memory
    /// is also host-visible and mapped.
    Device,
    /// Host-visible, for uploads (staging).
    Upload,
    /// Host-visible and preferably cached, for downloads (staging).
    Download,
}

/// The device's allocator. Buffers hold an `Arc` of it; it is dropped (every
/// block freed) after the last of them, and before the device.
pub(crate) struct Memory {
    // Field order is drop order: the allocator frees its blocks while the
    // device (next field) still exists.
    allocator: Mutex<Allocator>,
    device: Arc<Device>,
}

impl Memory {
    /// An allocator for `device`.
    pub(crate) fn new(device: &Arc<Device>) -> Result<Arc<Self>> {
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: device.instance().raw().clone(),
            device: device.raw().clone(),
            physical_device: device.physical(),
            debug_settings: AllocatorDebugSettings::default(),
            buffer_device_address: false,
            allocation_sizes: AllocationSizes::default(),
        })
        .map_err(|e| allocation_error("creating the allocator", e))?;
        Ok(Arc::new(Memory {
            allocator: Mutex::new(allocator),
            device: Arc::clone(device),
        }))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Allocator> {
        self.allocator.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Memory for `requirements`, counting the blocks gpu-allocator creates.
    fn allocate(
        &self,
        requirements: vk::MemoryRequirements,
        placement: Placement,
    ) -> Result<Allocation> {
        let location = match placement {
            Placement::Device => MemoryLocation::GpuOnly,
            Placement::Upload => MemoryLocation::CpuToGpu,
            Placement::Download => MemoryLocation::GpuToCpu,
        };
        let mut allocator = self.lock();
        let before = allocator.capacity();
        let allocation = allocator
            .allocate(&AllocationCreateDesc {
                name: "rosetta",
                requirements,
                location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|e| {
                allocation_error(
                    &format!("{} bytes of {placement:?} memory", requirements.size),
                    e,
                )
            })?;
        // One allocate call creates at most one block.
        if allocator.capacity() > before {
            live::created(Kind::MemoryBlock);
        }
        Ok(allocation)
    }

    /// Return an allocation; no buffer is bound to it any more.
    fn free(&self, allocation: Allocation) {
        let mut allocator = self.lock();
        let before = allocator.capacity();
        if let Err(e) = allocator.free(allocation) {
            tracing::error!("vulkan: gpu-allocator could not free an allocation: {e}");
        }
        // One free destroys at most one block.
        if allocator.capacity() < before {
            live::destroyed(Kind::MemoryBlock);
        }
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        // The allocator frees the blocks it still holds (at least one per
        // memory type it used) when it drops, right after this.
        let blocks = self.lock().generate_report().blocks.len();
        for _ in 0..blocks {
            live::destroyed(Kind::MemoryBlock);
        }
    }
}

fn allocation_error(what: &str, e: AllocationError) -> Error {
    match e {
        AllocationError::OutOfMemory => Error::out_of_memory(Api::Vulkan, what, Some(Box::new(e))),
        AllocationError::FailedToMap(_) => Error::device(Api::Vulkan, "vkMapMemory", e),
        other => Error::device(
            Api::Vulkan,
            format!("vkAllocateMemory (gpu-allocator, {what})"),
            other,
        ),
    }
}

/// A host pointer to a buffer's mapped memory.
#[derive(Clone, Copy)]
struct Mapped(NonNull<u8>);

// SAFETY: the pointer refers to mapped device memory that stays mapped while
// the buffer lives; it is only dereferenced by `Buffer`'s host-access methods,
// which require `&mut Queue` (one per device) and an idle buffer, so no two
// threads and no device work touch the memory at once.
unsafe impl Send for Mapped {}
// SAFETY: as for Send: shared references never dereference the pointer
// without the exclusive `&mut Queue` borrow.
unsafe impl Sync for Mapped {}

/// A `VkBuffer` bound to its own range of a memory block.
pub(crate) struct Buffer {
    raw: vk::Buffer,
    size: u64,
    usage: vk::BufferUsageFlags,
    /// `None` only inside `Drop`.
    allocation: Option<Allocation>,
    /// Set for host-visible, host-coherent memory.
    mapped: Option<Mapped>,
    /// Unfinished batches that use this buffer (maintained by `vk::batch`).
    pending: AtomicU32,
    /// Serial of the newest batch that used it (0: none).
    last_batch: AtomicU64,
    memory: Arc<Memory>,
}

impl Buffer {
    /// A buffer of `size` bytes (non-zero, at most the device's
    /// maxBufferSize) with `usage`, in memory suited to `placement`. Its
    /// contents are undefined.
    pub(crate) fn new(
        memory: &Arc<Memory>,
        size: u64,
        usage: vk::BufferUsageFlags,
        placement: Placement,
    ) -> Result<Arc<Self>> {
        let device = &memory.device;
        let limit = device.limits().max_buffer_size;
        if size == 0 || size > limit {
            return Err(Error::ExceedsLimit {
                what: "vulkan buffer size (bytes)",
                requested: size,
                limit,
            });
        }
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: the size is non-zero and at most maxBufferSize (checked
        // above); the usage flags are valid bits; `info` lives across the
        // call.
        let raw = unsafe { device.raw().create_buffer(&info, None) }
            .map_err(|e| vk_error("vkCreateBuffer", e))?;
        live::created(Kind::Buffer);
        // From here on `buffer`'s Drop destroys `raw` (and frees the
        // allocation once it is set), also on the error paths below.
        let mut buffer = Buffer {
            raw,
            size,
            usage,
            allocation: None,
            mapped: None,
            pending: AtomicU32::new(0),
            last_batch: AtomicU64::new(0),
            memory: Arc::clone(memory),
        };
        // SAFETY: `raw` is a live buffer of this device.
        let requirements = unsafe { device.raw().get_buffer_memory_requirements(raw) };
        let allocation = memory.allocate(requirements, placement)?;
        // SAFETY: gpu-allocator's documented use of `memory()`: the block is
        // bound to a buffer at the allocation's offset, and the allocation is
        // freed (in Drop) only after the buffer is destroyed.
        let block = unsafe { allocation.memory() };
        let offset = allocation.offset();
        let properties = allocation.memory_properties();
        let pointer = allocation.mapped_ptr();
        buffer.allocation = Some(allocation);
        // SAFETY: the allocation came from a memory type allowed by the
        // buffer's requirements, is at least `requirements.size` bytes at an
        // offset aligned to `requirements.alignment` (gpu-allocator honours
        // both); the buffer has no memory bound yet.
        unsafe { device.raw().bind_buffer_memory(raw, block, offset) }
            .map_err(|e| vk_error("vkBindBufferMemory", e))?;
        let coherent = properties.contains(
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        );
        buffer.mapped = pointer.filter(|_| coherent).map(|p| Mapped(p.cast::<u8>()));
        Ok(Arc::new(buffer))
    }

    /// The buffer handle, for recording commands (`vk::batch`).
    pub(in crate::vk) fn handle(&self) -> vk::Buffer {
        self.raw
    }

    /// Its device.
    pub(in crate::vk) fn device(&self) -> &Arc<Device> {
        &self.memory.device
    }

    /// Size in bytes.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Its usage flags.
    pub(in crate::vk) fn usage(&self) -> vk::BufferUsageFlags {
        self.usage
    }

    /// Whether the host can read and write it directly (mapped, coherent).
    pub(crate) fn host_visible(&self) -> bool {
        self.mapped.is_some()
    }

    /// Whether a recorded or submitted batch that has not been retired uses it.
    pub(crate) fn busy(&self) -> bool {
        self.pending.load(Ordering::Acquire) > 0
    }

    /// Serial of the newest batch that used it (0: none yet).
    pub(crate) fn last_batch(&self) -> u64 {
        self.last_batch.load(Ordering::Acquire)
    }

    /// Count one more unfinished batch using this buffer, unless batch
    /// `serial` already counted it. Returns whether it was counted now.
    pub(in crate::vk) fn use_in(&self, serial: u64) -> bool {
        if self.last_batch.swap(serial, Ordering::AcqRel) == serial {
            return false;
        }
        self.pending.fetch_add(1, Ordering::AcqRel);
        true
    }

    /// A batch that counted this buffer has completed (or was abandoned).
    pub(in crate::vk) fn release(&self) {
        let _ = self
            .pending
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
    }

    /// The mapped pointer at `offset`, after checking that the host may
    /// access `len` bytes there now: same device as `queue` (whose `&mut`
    /// borrow serialises host access), mapped coherent memory, no unfinished
    /// batch using the buffer, and the range inside it.
    fn host_range(&self, queue: &Queue, offset: u64, len: usize) -> Result<*mut u8> {
        if !Arc::ptr_eq(queue.device(), &self.memory.device) {
            return Err(internal("host access through another device's queue"));
        }
        let Some(Mapped(base)) = self.mapped else {
            return Err(internal("host access to a buffer that is not mapped"));
        };
        if self.busy() {
            return Err(internal("host access to a buffer the device may be using"));
        }
        match offset.checked_add(len as u64) {
            Some(end) if end <= self.size => {
                // In bounds of the mapping, which is at least `size` bytes
                // long and addressable (it was mapped), so `offset` fits a
                // usize.
                // SAFETY: `offset <= size`, inside the mapped allocation.
                Ok(unsafe { base.as_ptr().add(offset as usize) })
            }
            _ => Err(internal(format!(
                "host range {offset}+{len} outside a buffer of {} bytes",
                self.size
            ))),
        }
    }

    /// Copy `data` into the buffer at `offset` through the mapping.
    /// Refused (as [`Error::Internal`]) unless the host may touch the memory
    /// now (see [`Buffer::busy`], [`Buffer::host_visible`]).
    pub(crate) fn write_host(&self, queue: &mut Queue, offset: u64, data: &[u8]) -> Result<()> {
        let target = self.host_range(queue, offset, data.len())?;
        // SAFETY: `target..target + data.len()` lies in the mapping (checked);
        // no device work uses the buffer (not busy) and no other thread
        // accesses it (we hold the device's queue mutably); coherent memory
        // makes the bytes visible to work submitted later. `data` is host
        // memory of the caller and cannot overlap the mapping's range of an
        // idle buffer we alone access.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), target, data.len()) };
        Ok(())
    }

    /// Set the whole buffer to zero through the mapping (same conditions as
    /// [`Buffer::write_host`]).
    pub(crate) fn zero_host(&self, queue: &mut Queue) -> Result<()> {
        let len = usize::try_from(self.size).map_err(|_| internal("buffer size over usize"))?;
        let target = self.host_range(queue, 0, len)?;
        // SAFETY: as in `write_host`, for the whole buffer.
        unsafe { std::ptr::write_bytes(target, 0, len) };
        Ok(())
    }

    /// Copy bytes at `offset` into `out` through the mapping (same conditions
    /// as [`Buffer::write_host`]; device writes are visible because every
    /// batch ends with a barrier to host reads and was waited for before it
    /// stopped counting as pending).
    pub(crate) fn read_host(&self, queue: &mut Queue, offset: u64, out: &mut [u8]) -> Result<()> {
        let source = self.host_range(queue, offset, out.len())?;
        // SAFETY: as in `write_host`, reading; `out` is the caller's host
        // memory, not part of the mapping.
        unsafe { std::ptr::copy_nonoverlapping(source, out.as_mut_ptr(), out.len()) };
        Ok(())
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: no pending GPU work uses the buffer: every batch that
        // recorded it holds an `Arc` until its fence signalled, so the last
        // `Arc` (this drop) comes after that work. The device is alive (we
        // hold its allocator, which holds the device).
        unsafe { self.memory.device.raw().destroy_buffer(self.raw, None) };
        live::destroyed(Kind::Buffer);
        if let Some(allocation) = self.allocation.take() {
            self.memory.free(allocation);
        }
    }
}
