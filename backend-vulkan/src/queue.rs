//! The in-order queue of the Backend trait, as batches of command buffers.
//!
//! Writes, zeroes, launches and timer marks are recorded into the open batch
//! (a command buffer with its own fence and descriptor pool), each command
//! after a full compute/transfer memory barrier, so every command sees the
//! results of every command before it. A batch is submitted when it is full
//! or when the caller must wait (`read`, `finish`, `end_timer`); up to
//! [`MAX_IN_FLIGHT`] submitted batches run while the next one records.
//! Buffers freed (and staging buffers used) while work is pending are retired
//! into the newest batch and destroyed once its fence has signalled.

use crate::gpu::Gpu;
use crate::memory::Allocation;
use ash::vk;
use rosetta_core::Result;
use std::collections::VecDeque;

/// Commands (and descriptor sets) one batch holds before it is submitted.
pub(crate) const BATCH_COMMANDS: u32 = 128;
/// Storage-buffer descriptors per batch (kernels bind at most this many per set).
pub(crate) const MAX_BINDINGS: u32 = 8;
/// Submitted batches allowed to run while the next records.
const MAX_IN_FLIGHT: usize = 2;
/// Staging bytes a batch may hold before it is submitted.
const BATCH_STAGING_BYTES: u64 = 256 << 20;

pub(crate) struct Batch {
    pub(crate) cmd: vk::CommandBuffer,
    fence: vk::Fence,
    pool: vk::DescriptorPool,
    commands: u32,
    staging_bytes: u64,
    retired: Vec<Allocation>,
}

impl Batch {
    fn new(gpu: &Gpu, command_pool: vk::CommandPool) -> Result<Self> {
        let cmd = gpu.allocate_command_buffer(command_pool)?;
        let fence = match gpu.create_fence() {
            Ok(f) => f,
            Err(e) => {
                gpu.free_command_buffer(command_pool, cmd);
                return Err(e);
            }
        };
        match gpu.create_descriptor_pool(BATCH_COMMANDS, BATCH_COMMANDS * MAX_BINDINGS) {
            Ok(pool) => Ok(Batch {
                cmd,
                fence,
                pool,
                commands: 0,
                staging_bytes: 0,
                retired: Vec::new(),
            }),
            Err(e) => {
                gpu.destroy_fence(fence);
                gpu.free_command_buffer(command_pool, cmd);
                Err(e)
            }
        }
    }

    fn destroy(self, gpu: &Gpu, command_pool: vk::CommandPool) {
        for a in self.retired {
            a.destroy(gpu);
        }
        gpu.destroy_descriptor_pool(self.pool);
        gpu.destroy_fence(self.fence);
        gpu.free_command_buffer(command_pool, self.cmd);
    }

    /// Allocate and write the descriptor set of one dispatch.
    pub(crate) fn descriptor_set(
        &self,
        gpu: &Gpu,
        layout: vk::DescriptorSetLayout,
        buffers: &[vk::Buffer],
    ) -> Result<vk::DescriptorSet> {
        gpu.descriptor_set(self.pool, layout, buffers)
    }

    /// Keep a staging buffer alive until this batch has run.
    pub(crate) fn keep(&mut self, staging: Allocation) {
        self.staging_bytes += staging.size;
        self.retired.push(staging);
    }
}

pub(crate) struct Queue {
    command_pool: vk::CommandPool,
    recording: Option<Batch>,
    in_flight: VecDeque<Batch>,
    idle: Vec<Batch>,
}

impl Queue {
    pub(crate) fn new(gpu: &Gpu, family: u32) -> Result<Self> {
        Ok(Queue {
            command_pool: gpu.create_command_pool(family)?,
            recording: None,
            in_flight: VecDeque::new(),
            idle: Vec::new(),
        })
    }

    /// The open batch, ready for one more command: a barrier is recorded first
    /// so the command is ordered after everything before it. Submits the open
    /// batch first when it is full.
    pub(crate) fn command(&mut self, gpu: &Gpu) -> Result<&mut Batch> {
        let full = self.recording.as_ref().is_some_and(|b| {
            b.commands >= BATCH_COMMANDS || b.staging_bytes >= BATCH_STAGING_BYTES
        });
        if full {
            self.submit(gpu)?;
        }
        if self.recording.is_none() {
            let batch = self.open(gpu)?;
            self.recording = Some(batch);
        }
        match self.recording.as_mut() {
            Some(batch) => {
                gpu.cmd_barrier(batch.cmd);
                batch.commands += 1;
                Ok(batch)
            }
            None => Err(rosetta_core::Error::backend(
                rosetta_core::Api::Vulkan,
                "no open batch",
            )),
        }
    }

    /// A batch to record into: an idle one, or a new one once fewer than
    /// MAX_IN_FLIGHT batches run (waiting for the oldest otherwise).
    fn open(&mut self, gpu: &Gpu) -> Result<Batch> {
        self.reclaim(gpu, false)?;
        if self.idle.is_empty() && self.in_flight.len() >= MAX_IN_FLIGHT {
            if let Some(oldest) = self.in_flight.pop_front() {
                let waited = gpu.wait_fence(oldest.fence);
                self.recycle(gpu, oldest)?;
                waited?;
            }
        }
        let batch = match self.idle.pop() {
            Some(b) => b,
            None => Batch::new(gpu, self.command_pool)?,
        };
        if let Err(e) = gpu.begin(batch.cmd) {
            self.idle.push(batch);
            return Err(e);
        }
        Ok(batch)
    }

    /// Submit the open batch, if any.
    pub(crate) fn submit(&mut self, gpu: &Gpu) -> Result<()> {
        let Some(batch) = self.recording.take() else {
            return Ok(());
        };
        gpu.cmd_host_barrier(batch.cmd);
        let submitted = gpu
            .end(batch.cmd)
            .and_then(|()| gpu.submit(batch.cmd, batch.fence));
        match submitted {
            Ok(()) => {
                self.in_flight.push_back(batch);
                Ok(())
            }
            Err(e) => {
                // Never submitted: nothing on the device uses it beyond what
                // already ran; wait for the queue, then drop its resources.
                let _ = gpu.wait_idle();
                let _ = self.recycle(gpu, batch);
                Err(e)
            }
        }
    }

    /// Submit the open batch and wait for every batch to complete.
    pub(crate) fn wait_all(&mut self, gpu: &Gpu) -> Result<()> {
        self.submit(gpu)?;
        self.reclaim(gpu, true)
    }

    /// Recycle completed batches (all of them when `wait`).
    fn reclaim(&mut self, gpu: &Gpu, wait: bool) -> Result<()> {
        while let Some(front) = self.in_flight.front() {
            let done = if wait {
                gpu.wait_fence(front.fence).map(|()| true)
            } else {
                gpu.fence_signalled(front.fence)
            };
            match done {
                Ok(false) => return Ok(()),
                Ok(true) => {
                    if let Some(batch) = self.in_flight.pop_front() {
                        self.recycle(gpu, batch)?;
                    }
                }
                Err(e) => {
                    // A lost (or failing) device: these batches will never
                    // complete; stop tracking them once the queue is idle.
                    let _ = gpu.wait_idle();
                    while let Some(batch) = self.in_flight.pop_front() {
                        batch.destroy(gpu, self.command_pool);
                    }
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// A completed batch back to the idle list, its retired buffers destroyed.
    fn recycle(&mut self, gpu: &Gpu, mut batch: Batch) -> Result<()> {
        for a in batch.retired.drain(..) {
            a.destroy(gpu);
        }
        batch.commands = 0;
        batch.staging_bytes = 0;
        let reset = gpu
            .reset_fence(batch.fence)
            .and_then(|()| gpu.reset_descriptor_pool(batch.pool));
        match reset {
            Ok(()) => {
                self.idle.push(batch);
                Ok(())
            }
            Err(e) => {
                batch.destroy(gpu, self.command_pool);
                Err(e)
            }
        }
    }

    /// Destroy `allocation` once every pending command is done with it: now
    /// when nothing is pending, else with the newest batch.
    pub(crate) fn retire(&mut self, gpu: &Gpu, allocation: Allocation) {
        if let Some(batch) = self.recording.as_mut() {
            batch.retired.push(allocation);
        } else if let Some(batch) = self.in_flight.back_mut() {
            batch.retired.push(allocation);
        } else {
            allocation.destroy(gpu);
        }
    }

    /// Keep at most one idle batch (after a `finish`, so that long runs do not
    /// hold more command buffers and pools than they need).
    pub(crate) fn trim(&mut self, gpu: &Gpu) {
        while self.idle.len() > 1 {
            if let Some(batch) = self.idle.pop() {
                batch.destroy(gpu, self.command_pool);
            }
        }
    }

    /// Wait for the device and destroy every batch and the command pool.
    pub(crate) fn destroy(&mut self, gpu: &Gpu) {
        if let Some(batch) = self.recording.take() {
            let _ = gpu.end(batch.cmd);
            self.idle.push(batch);
        }
        let _ = gpu.wait_idle();
        while let Some(batch) = self.in_flight.pop_front() {
            batch.destroy(gpu, self.command_pool);
        }
        while let Some(batch) = self.idle.pop() {
            batch.destroy(gpu, self.command_pool);
        }
        gpu.destroy_command_pool(self.command_pool);
    }
}
