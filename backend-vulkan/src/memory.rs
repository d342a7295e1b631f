//! Memory: one `VkBuffer` bound to its own `VkDeviceMemory`, placed where its
//! role wants it.
//!
//! - [`Placement::Device`]: storage buffers live in device-local memory. On
//!   unified-memory devices (every device-local type is also host-visible and
//!   coherent, as on lavapipe or integrated GPUs) that memory is mapped, so
//!   uploads and downloads are plain copies; on discrete GPUs it is not, and
//!   data moves through staging buffers.
//! - [`Placement::Upload`] / [`Placement::Download`]: host-visible, coherent
//!   staging memory (cached for downloads where the device offers it).

use crate::gpu::Gpu;
use ash::vk;
use rosetta_core::{Api, Error, Result};

/// Usage of every storage buffer: bound to kernels, filled, copied both ways.
pub(crate) const STORAGE_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    Device,
    Upload,
    Download,
}

/// The memory types of one device and how rosetta uses them.
pub(crate) struct MemoryTypes {
    props: vk::PhysicalDeviceMemoryProperties,
    /// Every device-local type is host-visible and coherent.
    pub(crate) unified: bool,
}

impl MemoryTypes {
    /// The device's types; `force_staging` treats unified memory as discrete.
    pub(crate) fn new(props: vk::PhysicalDeviceMemoryProperties, force_staging: bool) -> Self {
        let types = &props.memory_types[..props.memory_type_count as usize];
        let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let mappable =
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let unified = !force_staging
            && types.iter().any(|t| t.property_flags.contains(local))
            && types
                .iter()
                .filter(|t| t.property_flags.contains(local))
                .all(|t| t.property_flags.contains(mappable));
        MemoryTypes { props, unified }
    }

    /// Bytes of device-local memory (the sum of the device-local heaps).
    pub(crate) fn device_local_bytes(&self) -> u64 {
        self.props.memory_heaps[..self.props.memory_heap_count as usize]
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .sum()
    }

    /// The memory type for `placement` among those `allowed` (a bit mask from
    /// the buffer's requirements), and whether to map it.
    fn choose(&self, allowed: u32, placement: Placement) -> Option<(u32, bool)> {
        use vk::MemoryPropertyFlags as F;
        let types = &self.props.memory_types[..self.props.memory_type_count as usize];
        let find = |required: F, avoid: F| {
            types.iter().enumerate().position(|(i, t)| {
                allowed & (1 << i) != 0
                    && t.property_flags.contains(required)
                    && !t.property_flags.intersects(avoid)
            })
        };
        let coherent = F::HOST_VISIBLE | F::HOST_COHERENT;
        let (index, mapped) = match placement {
            Placement::Device if self.unified => {
                (find(F::DEVICE_LOCAL | coherent, F::empty())?, true)
            }
            Placement::Device => (
                find(F::DEVICE_LOCAL, F::empty()).or_else(|| find(F::empty(), F::empty()))?,
                false,
            ),
            // Staging prefers system memory over the small BAR window.
            Placement::Upload => (
                find(coherent, F::DEVICE_LOCAL).or_else(|| find(coherent, F::empty()))?,
                true,
            ),
            Placement::Download => (
                find(coherent | F::HOST_CACHED, F::empty())
                    .or_else(|| find(coherent, F::empty()))?,
                true,
            ),
        };
        Some((index as u32, mapped))
    }
}

/// A host pointer to a mapped allocation.
struct Mapped(std::ptr::NonNull<u8>);

// SAFETY: the pointer refers to device memory mapped for the allocation's
// lifetime; every access goes through `Allocation`, whose owners serialise
// them (the device's state mutex) and order them against the GPU (fences).
unsafe impl Send for Mapped {}
// SAFETY: as above.
unsafe impl Sync for Mapped {}

/// A buffer and its memory.
pub(crate) struct Allocation {
    pub(crate) buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    /// Size of the buffer in bytes (a multiple of 16).
    pub(crate) size: u64,
    mapped: Option<Mapped>,
}

impl Allocation {
    /// A buffer of `size` bytes (a non-zero multiple of 16) in memory suited
    /// to `placement`. Its contents are undefined.
    pub(crate) fn new(
        gpu: &Gpu,
        types: &MemoryTypes,
        size: u64,
        usage: vk::BufferUsageFlags,
        placement: Placement,
    ) -> Result<Self> {
        let buffer = gpu.create_buffer(size, usage)?;
        let finish = || -> Result<(vk::DeviceMemory, Option<Mapped>)> {
            let req = gpu.buffer_requirements(buffer);
            let (type_index, map) =
                types
                    .choose(req.memory_type_bits, placement)
                    .ok_or_else(|| {
                        Error::backend(
                            Api::Vulkan,
                            format!(
                                "no memory type fits a {placement:?} buffer (allowed types {:#b})",
                                req.memory_type_bits
                            ),
                        )
                    })?;
            let memory = gpu.allocate_memory(req.size, type_index)?;
            let mapped = gpu.bind_buffer_memory(buffer, memory).and_then(|()| {
                if map {
                    let ptr = gpu.map_memory(memory)?;
                    std::ptr::NonNull::new(ptr)
                        .map(|p| Some(Mapped(p)))
                        .ok_or_else(|| Error::backend(Api::Vulkan, "vkMapMemory returned null"))
                } else {
                    Ok(None)
                }
            });
            match mapped {
                Ok(mapped) => Ok((memory, mapped)),
                Err(e) => {
                    gpu.free_memory(memory);
                    Err(e)
                }
            }
        };
        match finish() {
            Ok((memory, mapped)) => Ok(Allocation {
                buffer,
                memory,
                size,
                mapped,
            }),
            Err(e) => {
                gpu.destroy_buffer(buffer);
                Err(e)
            }
        }
    }

    /// Destroy the buffer and free its memory (no pending work may use it).
    pub(crate) fn destroy(self, gpu: &Gpu) {
        gpu.destroy_buffer(self.buffer);
        gpu.free_memory(self.memory);
    }

    pub(crate) fn is_mapped(&self) -> bool {
        self.mapped.is_some()
    }

    fn check(&self, offset: u64, len: usize) -> Result<usize> {
        let end = offset.checked_add(len as u64);
        match (&self.mapped, end) {
            (Some(_), Some(end)) if end <= self.size => Ok(offset as usize),
            (None, _) => Err(Error::backend(
                Api::Vulkan,
                "host access to an unmapped buffer",
            )),
            _ => Err(Error::InvalidArgument(format!(
                "byte range {offset}..+{len} lies outside a buffer of {} bytes",
                self.size
            ))),
        }
    }

    /// Copy `data` into the mapped memory at `offset` (the caller ordered this
    /// after every pending device access).
    pub(crate) fn write_mapped(&self, offset: u64, data: &[u8]) -> Result<()> {
        let start = self.check(offset, data.len())?;
        if let Some(Mapped(ptr)) = &self.mapped {
            // SAFETY: `start + data.len() <= size` (checked), the mapping spans
            // the whole allocation, the memory is coherent, and no device work
            // touches it now (the caller waited); `data` cannot overlap it.
            unsafe {
                std::ptr::copy_nonoverlapping(data.as_ptr(), ptr.as_ptr().add(start), data.len())
            };
        }
        Ok(())
    }

    /// Fill the mapped memory with zeros.
    pub(crate) fn zero_mapped(&self) -> Result<()> {
        let start = self.check(0, self.size as usize)?;
        if let Some(Mapped(ptr)) = &self.mapped {
            // SAFETY: as in `write_mapped`, for the whole buffer.
            unsafe { std::ptr::write_bytes(ptr.as_ptr().add(start), 0, self.size as usize) };
        }
        Ok(())
    }

    /// Copy mapped memory at `offset` into `out` (the caller waited for every
    /// device write before it).
    pub(crate) fn read_mapped(&self, offset: u64, out: &mut [u8]) -> Result<()> {
        let start = self.check(offset, out.len())?;
        if let Some(Mapped(ptr)) = &self.mapped {
            // SAFETY: as in `write_mapped`; the device writes were made visible
            // to the host by a HOST_READ barrier and the fence wait.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr.as_ptr().add(start), out.as_mut_ptr(), out.len())
            };
        }
        Ok(())
    }
}
