//! Buffers: device-local storage buffers, rounded up to 16 bytes and zeroed.
//!
//! Data moves in queue order:
//! - mapped (unified-memory) buffers: `write` / `read` wait for pending work,
//!   then copy through the mapping;
//! - otherwise `write` records `vkCmdUpdateBuffer` (up to 64 KiB) or a copy
//!   from a staging buffer, and `read` records a copy into a (reused) staging
//!   buffer and waits for it;
//! - `zero` records `vkCmdFillBuffer`.

use crate::gpu::Gpu;
use crate::memory::{Allocation, MemoryTypes, Placement, STORAGE_USAGE};
use crate::queue::Queue;
use ash::vk;
use rosetta_core::{check_byte_range, BufferId, Error, Result};
use std::collections::HashMap;

/// Largest write recorded inline with vkCmdUpdateBuffer.
const UPDATE_LIMIT: usize = 65536;
/// Largest download staging buffer kept for reuse.
const KEEP_DOWNLOAD: u64 = 64 << 20;

fn round16(bytes: u64) -> u64 {
    bytes.max(1).div_ceil(16) * 16
}

#[derive(Default)]
pub(crate) struct Buffers {
    next: u64,
    map: HashMap<BufferId, Allocation>,
    /// A reusable staging buffer for downloads.
    download: Option<Allocation>,
}

impl Buffers {
    fn get(&self, id: BufferId) -> Result<&Allocation> {
        self.map
            .get(&id)
            .ok_or_else(|| Error::InvalidArgument(format!("unknown vulkan buffer {}", id.0)))
    }

    /// The `VkBuffer` of each id, for a launch.
    pub(crate) fn handles(&self, ids: &[BufferId]) -> Result<Vec<vk::Buffer>> {
        ids.iter()
            .map(|&id| self.get(id).map(|a| a.buffer))
            .collect()
    }

    pub(crate) fn alloc(
        &mut self,
        gpu: &Gpu,
        types: &MemoryTypes,
        queue: &mut Queue,
        bytes: u64,
        limit: u64,
    ) -> Result<BufferId> {
        let size = rosetta_core::check_buffer_bytes(bytes, limit)?.max(16);
        let allocation = Allocation::new(gpu, types, size, STORAGE_USAGE, Placement::Device)?;
        let zeroed = if allocation.is_mapped() {
            allocation.zero_mapped()
        } else {
            queue
                .command(gpu)
                .map(|batch| gpu.cmd_fill_zero(batch.cmd, allocation.buffer))
        };
        if let Err(e) = zeroed {
            queue.retire(gpu, allocation);
            return Err(e);
        }
        let id = BufferId(self.next);
        self.next += 1;
        self.map.insert(id, allocation);
        Ok(id)
    }

    pub(crate) fn free(&mut self, gpu: &Gpu, queue: &mut Queue, id: BufferId) {
        match self.map.remove(&id) {
            Some(allocation) => queue.retire(gpu, allocation),
            None => tracing::warn!(buffer = id.0, "vulkan: free of an unknown buffer"),
        }
    }

    pub(crate) fn write(
        &mut self,
        gpu: &Gpu,
        types: &MemoryTypes,
        queue: &mut Queue,
        id: BufferId,
        offset: u64,
        data: &[u8],
    ) -> Result<()> {
        let target = self.get(id)?;
        check_byte_range(offset, data.len(), target.size)?;
        if data.is_empty() {
            return Ok(());
        }
        if target.is_mapped() {
            queue.wait_all(gpu)?;
            return target.write_mapped(offset, data);
        }
        if data.len() <= UPDATE_LIMIT {
            let batch = queue.command(gpu)?;
            gpu.cmd_update(batch.cmd, target.buffer, offset, data);
            return Ok(());
        }
        let staging = Allocation::new(
            gpu,
            types,
            round16(data.len() as u64),
            vk::BufferUsageFlags::TRANSFER_SRC,
            Placement::Upload,
        )?;
        if let Err(e) = staging.write_mapped(0, data) {
            staging.destroy(gpu);
            return Err(e);
        }
        let region = vk::BufferCopy {
            src_offset: 0,
            dst_offset: offset,
            size: data.len() as u64,
        };
        match queue.command(gpu) {
            Ok(batch) => {
                gpu.cmd_copy(batch.cmd, staging.buffer, target.buffer, region);
                batch.keep(staging);
                Ok(())
            }
            Err(e) => {
                queue.retire(gpu, staging);
                Err(e)
            }
        }
    }

    pub(crate) fn read(
        &mut self,
        gpu: &Gpu,
        types: &MemoryTypes,
        queue: &mut Queue,
        id: BufferId,
        offset: u64,
        out: &mut [u8],
    ) -> Result<()> {
        let source = self.get(id)?;
        check_byte_range(offset, out.len(), source.size)?;
        if out.is_empty() {
            return Ok(());
        }
        if source.is_mapped() {
            queue.wait_all(gpu)?;
            return source.read_mapped(offset, out);
        }
        let source = source.buffer;
        let need = round16(out.len() as u64);
        let staging = match self.download.take() {
            Some(kept) if kept.size >= need => kept,
            kept => {
                if let Some(old) = kept {
                    old.destroy(gpu);
                }
                let size = if need <= KEEP_DOWNLOAD {
                    need.max(1 << 20)
                } else {
                    need
                };
                Allocation::new(
                    gpu,
                    types,
                    size,
                    vk::BufferUsageFlags::TRANSFER_DST,
                    Placement::Download,
                )?
            }
        };
        let region = vk::BufferCopy {
            src_offset: offset,
            dst_offset: 0,
            size: out.len() as u64,
        };
        let copied = queue
            .command(gpu)
            .map(|batch| gpu.cmd_copy(batch.cmd, source, staging.buffer, region))
            .and_then(|()| queue.wait_all(gpu))
            .and_then(|()| staging.read_mapped(0, out));
        if copied.is_ok() && staging.size <= KEEP_DOWNLOAD {
            self.download = Some(staging);
        } else {
            queue.retire(gpu, staging);
        }
        copied
    }

    pub(crate) fn zero(&mut self, gpu: &Gpu, queue: &mut Queue, id: BufferId) -> Result<()> {
        let target = self.get(id)?.buffer;
        let batch = queue.command(gpu)?;
        gpu.cmd_fill_zero(batch.cmd, target);
        Ok(())
    }

    /// Destroy every buffer (the device is idle).
    pub(crate) fn destroy(&mut self, gpu: &Gpu) {
        for (_, allocation) in self.map.drain() {
            allocation.destroy(gpu);
        }
        if let Some(staging) = self.download.take() {
            staging.destroy(gpu);
        }
    }
}
