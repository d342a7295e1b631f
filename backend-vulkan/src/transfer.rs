//! Buffers and the data that moves in and out of them, in queue order.
//!
//! Storage buffers are device-local. Where that memory is also host-visible
//! and coherent (unified memory: lavapipe, integrated GPUs) and staging is
//! not forced, the host reads and writes it directly — but only once no
//! recorded or running command uses the buffer:
//! - `write`: directly when the buffer is idle; a small write to a busy
//!   buffer is recorded (`vkCmdUpdateBuffer`, no stall); a large one waits
//!   for the batch that last used the buffer, then writes directly;
//! - `read`: waits for the batch that last used the buffer, then reads;
//! - `zero`: directly when idle, else recorded (`vkCmdFillBuffer`).
//!
//! Otherwise (discrete GPUs, or `ROSETTA_VULKAN_STAGING=1`) every transfer is
//! recorded: writes up to 64 KiB inline, larger ones through an upload
//! staging buffer the batch keeps alive; reads copy into a reused download
//! staging buffer and wait for that copy.

use crate::queue::Queue;
use crate::vk::batch::UPDATE_LIMIT;
use crate::vk::memory::{Buffer, Memory, Placement};
use ash::vk;
use rosetta_core::Result;
use std::sync::Arc;

/// Usage of every storage buffer: bound to kernels, filled, copied both ways.
const STORAGE_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);
/// Largest download staging buffer kept for the next read.
const KEEP_DOWNLOAD: u64 = 64 << 20;
/// Smallest download staging buffer (so small reads share one).
const MIN_DOWNLOAD: u64 = 1 << 20;

/// Buffers and transfers of one device.
pub(crate) struct Transfers {
    memory: Arc<Memory>,
    /// Host access to mapped device-local memory is allowed.
    direct: bool,
    /// The download staging buffer of the last read, for the next.
    download: Option<Arc<Buffer>>,
}

impl Transfers {
    /// Transfers through `memory`; `force_staging` keeps the host away from
    /// device-local memory even where it is mapped.
    pub(crate) fn new(memory: Arc<Memory>, force_staging: bool) -> Self {
        Transfers {
            memory,
            direct: !force_staging,
            download: None,
        }
    }

    fn direct(&self, buffer: &Buffer) -> bool {
        self.direct && buffer.host_visible()
    }

    /// A zeroed storage buffer of `bytes` (a non-zero multiple of 16).
    pub(crate) fn alloc(&mut self, queue: &mut Queue, bytes: u64) -> Result<Arc<Buffer>> {
        let buffer = Buffer::new(&self.memory, bytes, STORAGE_USAGE, Placement::Device)?;
        if self.direct(&buffer) {
            // New: no command uses it yet.
            buffer.zero_host(queue.host())?;
        } else {
            queue.command(0)?.fill_zero(&buffer)?;
        }
        Ok(buffer)
    }

    /// Copy `data` into `buffer` at `offset`, in queue order.
    pub(crate) fn write(
        &mut self,
        queue: &mut Queue,
        buffer: &Arc<Buffer>,
        offset: u64,
        data: &[u8],
    ) -> Result<()> {
        if self.direct(buffer) {
            if queue.is_idle(buffer)? {
                return buffer.write_host(queue.host(), offset, data);
            }
            if data.len() > UPDATE_LIMIT {
                queue.settle(buffer)?;
                return buffer.write_host(queue.host(), offset, data);
            }
        }
        if data.len() <= UPDATE_LIMIT {
            return queue.command(0)?.update(buffer, offset, data);
        }
        let len = data.len() as u64;
        let staging = Buffer::new(
            &self.memory,
            len.div_ceil(16) * 16,
            vk::BufferUsageFlags::TRANSFER_SRC,
            Placement::Upload,
        )?;
        // New: no command uses it yet.
        staging.write_host(queue.host(), 0, data)?;
        queue.command(0)?.copy(&staging, 0, buffer, offset, len)?;
        // The batch holds the staging buffer until the copy has run.
        queue.add_staging(staging.size());
        Ok(())
    }

    /// Copy bytes of `buffer` at `offset` into `out`, after every command
    /// enqueued before that uses the buffer.
    pub(crate) fn read(
        &mut self,
        queue: &mut Queue,
        buffer: &Arc<Buffer>,
        offset: u64,
        out: &mut [u8],
    ) -> Result<()> {
        if self.direct(buffer) {
            queue.settle(buffer)?;
            return buffer.read_host(queue.host(), offset, out);
        }
        let len = out.len() as u64;
        let need = len.div_ceil(16) * 16;
        let staging = match self.download.take() {
            Some(kept) if kept.size() >= need && queue.is_idle(&kept)? => kept,
            _ => Buffer::new(
                &self.memory,
                if need <= KEEP_DOWNLOAD {
                    need.max(MIN_DOWNLOAD)
                } else {
                    need
                },
                vk::BufferUsageFlags::TRANSFER_DST,
                Placement::Download,
            )?,
        };
        queue.command(0)?.copy(buffer, offset, &staging, 0, len)?;
        queue.settle(&staging)?;
        staging.read_host(queue.host(), 0, out)?;
        if staging.size() <= KEEP_DOWNLOAD {
            self.download = Some(staging);
        }
        Ok(())
    }

    /// Zero the whole buffer, in queue order.
    pub(crate) fn zero(&mut self, queue: &mut Queue, buffer: &Arc<Buffer>) -> Result<()> {
        if self.direct(buffer) && queue.is_idle(buffer)? {
            return buffer.zero_host(queue.host());
        }
        queue.command(0)?.fill_zero(buffer)
    }

    /// Copy `bytes` between two buffers, in queue order.
    pub(crate) fn copy(
        &mut self,
        queue: &mut Queue,
        src: &Arc<Buffer>,
        src_offset: u64,
        dst: &Arc<Buffer>,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        queue
            .command(0)?
            .copy(src, src_offset, dst, dst_offset, bytes)
    }
}
