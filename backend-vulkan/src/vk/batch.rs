//! Command batches: one command pool with one command buffer, a fence and a
//! descriptor pool, recorded, submitted, waited for and reused.
//!
//! A batch is a small state machine — idle, recording, pending (submitted,
//! fence not yet seen signalled), broken — checked on every call, so the
//! safe methods cannot reset or destroy a command buffer the device may be
//! executing. Every buffer, pipeline and query pool a batch records is held
//! (an `Arc`) until the batch is retired after its fence signalled; that is
//! what makes the `Drop` of those objects correct. The batch also counts
//! itself in each buffer's pending-use count (`vk::memory::Buffer::busy`).

use crate::vk::device::{Device, Queue};
use crate::vk::error::{internal, vk_error};
use crate::vk::live::{self, Kind};
use crate::vk::memory::Buffer;
use crate::vk::pipeline::Pipeline;
use crate::vk::query::TimestampPool;
use ash::vk;
use rosetta_core::{Error, Result};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one `vkWaitForFences` call may block.
const WAIT_SLICE: Duration = Duration::from_millis(50);

/// Largest `vkCmdUpdateBuffer` (a Vulkan limit).
pub(crate) const UPDATE_LIMIT: usize = 65536;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not in use: may begin.
    Idle,
    /// Between `begin` and `submit`.
    Recording,
    /// Submitted; the fence has not been seen signalled.
    Pending,
    /// Submitted (or possibly submitted) and then a wait or reset failed:
    /// never reused; `Drop` waits for it again before destroying.
    Broken,
}

/// One command buffer with its fence and descriptor pool.
pub(crate) struct Batch {
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    descriptors: vk::DescriptorPool,
    sets: u32,
    descriptor_count: u32,
    sets_left: u32,
    descriptors_left: u32,
    state: State,
    serial: u64,
    commands: u32,
    buffers: Vec<Arc<Buffer>>,
    pipelines: Vec<Arc<Pipeline>>,
    queries: Vec<Arc<TimestampPool>>,
    device: Arc<Device>,
}

impl Batch {
    /// A new idle batch whose descriptor pool holds `sets` sets of
    /// `descriptors` storage-buffer descriptors in all.
    pub(crate) fn new(device: &Arc<Device>, sets: u32, descriptors: u32) -> Result<Self> {
        let raw = device.raw();
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(device.family())
            .flags(vk::CommandPoolCreateFlags::TRANSIENT);
        // SAFETY: the family is the one the device's queue was created from;
        // `info` lives across the call.
        let pool = unsafe { raw.create_command_pool(&info, None) }
            .map_err(|e| vk_error("vkCreateCommandPool", e))?;
        // Destroys what was created so far when a later step fails.
        let undo = |fence: Option<vk::Fence>| {
            // SAFETY: objects just created, used by nothing; destroying the
            // pool frees its command buffers.
            unsafe {
                if let Some(fence) = fence {
                    raw.destroy_fence(fence, None);
                }
                raw.destroy_command_pool(pool, None);
            }
        };
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool is live and used by no other thread (just made).
        let cmd = match unsafe { raw.allocate_command_buffers(&info) } {
            Ok(list) => list.into_iter().next(),
            Err(e) => {
                undo(None);
                return Err(vk_error("vkAllocateCommandBuffers", e));
            }
        };
        let Some(cmd) = cmd else {
            undo(None);
            return Err(internal("vkAllocateCommandBuffers returned nothing"));
        };
        // SAFETY: the device is live (this batch will hold it); a default
        // create info (an unsignalled fence) that lives across the call.
        let fence = match unsafe { raw.create_fence(&vk::FenceCreateInfo::default(), None) } {
            Ok(f) => f,
            Err(e) => {
                undo(None);
                return Err(vk_error("vkCreateFence", e));
            }
        };
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(descriptors.max(1))];
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(sets.max(1))
            .pool_sizes(&sizes);
        // SAFETY: non-zero set and descriptor counts; `info` and `sizes` live
        // across the call.
        let descriptors_pool = match unsafe { raw.create_descriptor_pool(&info, None) } {
            Ok(p) => p,
            Err(e) => {
                undo(Some(fence));
                return Err(vk_error("vkCreateDescriptorPool", e));
            }
        };
        live::created(Kind::Batch);
        Ok(Batch {
            pool,
            cmd,
            fence,
            descriptors: descriptors_pool,
            sets: sets.max(1),
            descriptor_count: descriptors.max(1),
            sets_left: 0,
            descriptors_left: 0,
            state: State::Idle,
            serial: 0,
            commands: 0,
            buffers: Vec::new(),
            pipelines: Vec::new(),
            queries: Vec::new(),
            device: Arc::clone(device),
        })
    }

    /// The serial `begin` gave it (unique on its device, increasing).
    pub(crate) fn serial(&self) -> u64 {
        self.serial
    }

    /// Commands recorded since `begin`.
    pub(crate) fn commands(&self) -> u32 {
        self.commands
    }

    /// Whether it may `begin`.
    pub(crate) fn is_idle(&self) -> bool {
        self.state == State::Idle
    }

    /// Whether `dispatch` can allocate a set of `bindings` descriptors.
    pub(crate) fn fits(&self, bindings: u32) -> bool {
        self.sets_left >= 1 && self.descriptors_left >= bindings
    }

    fn recording(&self) -> Result<()> {
        if self.state == State::Recording {
            Ok(())
        } else {
            Err(internal(format!("recording into a {:?} batch", self.state)))
        }
    }

    fn same_device(&self, other: &Arc<Device>) -> Result<()> {
        if Arc::ptr_eq(&self.device, other) {
            Ok(())
        } else {
            Err(internal("a command on another device's object"))
        }
    }

    /// Hold `buffer` (and count this batch in its pending uses) until the
    /// batch is retired.
    fn track(&mut self, buffer: &Arc<Buffer>) -> Result<()> {
        self.same_device(buffer.device())?;
        if buffer.use_in(self.serial) {
            self.buffers.push(Arc::clone(buffer));
        }
        Ok(())
    }

    /// Start recording (only from idle). The command buffer and descriptor
    /// pool are reset; the batch gets a fresh serial.
    pub(crate) fn begin(&mut self) -> Result<()> {
        if self.state != State::Idle {
            return Err(internal(format!("begin on a {:?} batch", self.state)));
        }
        let raw = self.device.raw();
        // SAFETY: idle: no command buffer of the pool is pending (a batch
        // leaves `Pending` only after its fence signalled) and none of the
        // descriptor pool's sets is used by pending work; `&mut self` is the
        // external synchronisation of both pools.
        unsafe {
            raw.reset_command_pool(self.pool, vk::CommandPoolResetFlags::empty())
                .map_err(|e| vk_error("vkResetCommandPool", e))?;
            raw.reset_descriptor_pool(self.descriptors, vk::DescriptorPoolResetFlags::empty())
                .map_err(|e| vk_error("vkResetDescriptorPool", e))?;
        }
        let info = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the command buffer is in the initial state (its pool was
        // just reset) and used by no other thread.
        unsafe { raw.begin_command_buffer(self.cmd, &info) }
            .map_err(|e| vk_error("vkBeginCommandBuffer", e))?;
        self.serial = self.device.next_batch_serial();
        self.state = State::Recording;
        self.commands = 0;
        self.sets_left = self.sets;
        self.descriptors_left = self.descriptor_count;
        Ok(())
    }

    /// A full memory barrier: every transfer and compute write before it is
    /// visible to every transfer and compute access after it, including
    /// those of earlier submissions on the queue.
    pub(crate) fn barrier(&mut self) -> Result<()> {
        self.recording()?;
        let stages = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::TRANSFER_READ
                    | vk::AccessFlags::TRANSFER_WRITE,
            )];
        // SAFETY: the command buffer is recording (checked) outside a render
        // pass; the stages are supported by a compute queue and the access
        // masks match them.
        unsafe {
            self.device.raw().cmd_pipeline_barrier(
                self.cmd,
                stages,
                stages,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            )
        };
        Ok(())
    }

    /// Zero the whole buffer (`vkCmdFillBuffer`).
    pub(crate) fn fill_zero(&mut self, buffer: &Arc<Buffer>) -> Result<()> {
        self.recording()?;
        if !buffer.usage().contains(vk::BufferUsageFlags::TRANSFER_DST) || buffer.size() < 4 {
            return Err(internal(
                "fill of a buffer without TRANSFER_DST or under 4 bytes",
            ));
        }
        self.track(buffer)?;
        let size = buffer.size() / 4 * 4;
        // SAFETY: recording (checked); the buffer is live (tracked until the
        // batch retires), of this device, with TRANSFER_DST usage; offset 0
        // and a size that is a non-zero multiple of 4 inside the buffer.
        unsafe {
            self.device
                .raw()
                .cmd_fill_buffer(self.cmd, buffer.handle(), 0, size, 0)
        };
        self.commands += 1;
        Ok(())
    }

    /// Write `data` at `offset` (`vkCmdUpdateBuffer`; both multiples of 4,
    /// `data` non-empty and at most [`UPDATE_LIMIT`] bytes).
    pub(crate) fn update(&mut self, buffer: &Arc<Buffer>, offset: u64, data: &[u8]) -> Result<()> {
        self.recording()?;
        let len = data.len() as u64;
        let fits = offset
            .checked_add(len)
            .is_some_and(|end| end <= buffer.size());
        if !buffer.usage().contains(vk::BufferUsageFlags::TRANSFER_DST)
            || data.is_empty()
            || data.len() > UPDATE_LIMIT
            || !offset.is_multiple_of(4)
            || !len.is_multiple_of(4)
            || !fits
        {
            return Err(internal(format!(
                "update of {len} bytes at {offset} in a buffer of {}",
                buffer.size()
            )));
        }
        self.track(buffer)?;
        // SAFETY: recording; the buffer is live, of this device, with
        // TRANSFER_DST usage; offset and size are multiples of 4, the size is
        // in 1..=65536 and the range lies inside the buffer (all checked).
        unsafe {
            self.device
                .raw()
                .cmd_update_buffer(self.cmd, buffer.handle(), offset, data)
        };
        self.commands += 1;
        Ok(())
    }

    /// Copy `bytes` from `src` at `src_offset` to `dst` at `dst_offset`.
    pub(crate) fn copy(
        &mut self,
        src: &Arc<Buffer>,
        src_offset: u64,
        dst: &Arc<Buffer>,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        self.recording()?;
        let inside = |offset: u64, size: u64| offset.checked_add(bytes).is_some_and(|e| e <= size);
        let overlap = Arc::ptr_eq(src, dst)
            && src_offset < dst_offset.saturating_add(bytes)
            && dst_offset < src_offset.saturating_add(bytes);
        if bytes == 0
            || !src.usage().contains(vk::BufferUsageFlags::TRANSFER_SRC)
            || !dst.usage().contains(vk::BufferUsageFlags::TRANSFER_DST)
            || !inside(src_offset, src.size())
            || !inside(dst_offset, dst.size())
            || overlap
        {
            return Err(internal(format!(
                "copy of {bytes} bytes from {src_offset} (of {}) to {dst_offset} (of {})",
                src.size(),
                dst.size()
            )));
        }
        self.track(src)?;
        self.track(dst)?;
        let region = [vk::BufferCopy {
            src_offset,
            dst_offset,
            size: bytes,
        }];
        // SAFETY: recording; both buffers live, of this device, with
        // TRANSFER_SRC / TRANSFER_DST usage; a non-empty region inside both
        // that does not overlap itself (all checked).
        unsafe {
            self.device
                .raw()
                .cmd_copy_buffer(self.cmd, src.handle(), dst.handle(), &region)
        };
        self.commands += 1;
        Ok(())
    }

    /// Record one dispatch of `pipeline` over `groups` workgroups, with
    /// `buffers[i]` at binding `i` (whole) and `push` as its push constants.
    ///
    /// Checked here: counts against the pipeline's layout, storage usage and
    /// size of each buffer, group counts within the device's limits, room in
    /// the descriptor pool ([`Batch::fits`]).
    ///
    /// # Safety
    /// The pipeline's shader, run over `groups` with these buffers and push
    /// constants, reads and writes only inside the bound buffers and its own
    /// workgroup memory, and terminates (Vulkan does not bound-check buffer
    /// accesses without robustBufferAccess, which rosetta does not enable).
    pub(crate) unsafe fn dispatch(
        &mut self,
        pipeline: &Arc<Pipeline>,
        buffers: &[&Arc<Buffer>],
        push: &[u32],
        groups: [u32; 3],
    ) -> Result<()> {
        self.recording()?;
        let layout = pipeline.layout();
        self.same_device(layout.device())?;
        let limits = *self.device.limits();
        if buffers.len() != layout.bindings() as usize
            || push.len() * 4 != layout.push_bytes() as usize
        {
            return Err(internal(format!(
                "dispatch with {} buffers and {} push words; the layout has {} and {} bytes",
                buffers.len(),
                push.len(),
                layout.bindings(),
                layout.push_bytes()
            )));
        }
        for buffer in buffers {
            if !buffer
                .usage()
                .contains(vk::BufferUsageFlags::STORAGE_BUFFER)
                || buffer.size() > limits.max_storage_buffer_range
            {
                return Err(internal(format!(
                    "binding a {}-byte buffer without STORAGE usage or over maxStorageBufferRange",
                    buffer.size()
                )));
            }
            self.same_device(buffer.device())?;
        }
        if groups
            .iter()
            .zip(limits.max_groups)
            .any(|(&n, max)| n == 0 || n > max)
        {
            return Err(internal(format!("dispatch of {groups:?} workgroups")));
        }
        if !self.fits(layout.bindings()) {
            return Err(internal(
                "dispatch into a batch whose descriptor pool is full",
            ));
        }
        let device = Arc::clone(&self.device);
        let raw = device.raw();
        let set_layouts = [layout.set_layout()];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.descriptors)
            .set_layouts(&set_layouts);
        // SAFETY: the pool has a set and enough descriptors left (checked via
        // `fits`; the counts below keep track); `&mut self` synchronises the
        // pool; the set layout is live (held by the pipeline).
        let set = unsafe { raw.allocate_descriptor_sets(&info) }
            .map_err(|e| vk_error("vkAllocateDescriptorSets", e))?
            .into_iter()
            .next()
            .ok_or_else(|| internal("vkAllocateDescriptorSets returned nothing"))?;
        self.sets_left -= 1;
        self.descriptors_left -= layout.bindings();
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
            .iter()
            .map(|buffer| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(buffer.handle())
                    .offset(0)
                    .range(vk::WHOLE_SIZE)]
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .enumerate()
            .map(|(i, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(i as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        // SAFETY: the set was just allocated and is used by nothing; binding i
        // exists in its layout as one storage buffer; each buffer is live,
        // of this device, with STORAGE usage and a size within
        // maxStorageBufferRange (checked above).
        unsafe { raw.update_descriptor_sets(&writes, &[]) };
        for buffer in buffers {
            self.track(buffer)?;
        }
        self.pipelines.push(Arc::clone(pipeline));
        // SAFETY: recording; pipeline, layout and set are live and compatible
        // (the set was allocated with the pipeline's set layout and written
        // whole); the push bytes fill the layout's range exactly; the group
        // counts are within maxComputeWorkGroupCount (all checked above); the
        // shader stays inside the bound memory and terminates (this
        // function's contract).
        unsafe {
            raw.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, pipeline.handle());
            raw.cmd_bind_descriptor_sets(
                self.cmd,
                vk::PipelineBindPoint::COMPUTE,
                layout.handle(),
                0,
                &[set],
                &[],
            );
            if !push.is_empty() {
                raw.cmd_push_constants(
                    self.cmd,
                    layout.handle(),
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    bytemuck::cast_slice(push),
                );
            }
            raw.cmd_dispatch(self.cmd, groups[0], groups[1], groups[2]);
        }
        self.commands += 1;
        Ok(())
    }

    /// Reset queries `slot .. slot + reset` of `pool` (none when `reset` is
    /// 0: the caller reset `slot` earlier, in queue order, and has not
    /// written it since), then write a timestamp to `slot` once every
    /// earlier command has completed (bottom of pipe).
    pub(crate) fn timestamp(
        &mut self,
        pool: &Arc<TimestampPool>,
        slot: u32,
        reset: u32,
    ) -> Result<()> {
        self.recording()?;
        self.same_device(pool.device())?;
        if slot >= pool.count() || u64::from(slot) + u64::from(reset) > u64::from(pool.count()) {
            return Err(internal(format!(
                "timestamp slot {slot} (resetting {reset}) of {}",
                pool.count()
            )));
        }
        self.queries.push(Arc::clone(pool));
        let raw = self.device.raw();
        // SAFETY: recording outside a render pass; the pool is a live
        // timestamp pool of this device (held until retired) and the slot
        // exists, as do the slots reset (checked); the queue family has
        // timestamps (the pool could not be created otherwise); the slot was
        // reset before the write (here, or earlier in queue order: the
        // caller's promise).
        unsafe {
            if reset > 0 {
                raw.cmd_reset_query_pool(self.cmd, pool.handle(), slot, reset);
            }
            raw.cmd_write_timestamp(
                self.cmd,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                pool.handle(),
                slot,
            );
        }
        self.commands += 1;
        Ok(())
    }

    /// End recording (after a barrier making every write visible to host
    /// reads) and submit to `queue`, signalling the batch's fence.
    pub(crate) fn submit(&mut self, queue: &mut Queue) -> Result<()> {
        self.recording()?;
        self.same_device(queue.device())?;
        let raw = self.device.raw();
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        // SAFETY: recording outside a render pass; valid stages and masks.
        unsafe {
            raw.cmd_pipeline_barrier(
                self.cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            )
        };
        // SAFETY: the command buffer is recording and used by no other thread.
        if let Err(e) = unsafe { raw.end_command_buffer(self.cmd) } {
            // Never submitted: nothing ran; the next `begin` resets the pool.
            self.abandon();
            return Err(vk_error("vkEndCommandBuffer", e));
        }
        let cmds = [self.cmd];
        let info = [vk::SubmitInfo::default().command_buffers(&cmds)];
        let handle = queue.handle();
        // SAFETY: the command buffer is executable and recorded once
        // (ONE_TIME_SUBMIT); the fence is unsignalled and not in use (reset
        // when the batch was last retired, or new); every object the commands
        // use is held by this batch; `&mut queue` synchronises the queue.
        let submitted = unsafe { raw.queue_submit(handle, &info, self.fence) };
        match submitted {
            Ok(()) => {
                self.state = State::Pending;
                Ok(())
            }
            Err(
                e @ (vk::Result::ERROR_OUT_OF_HOST_MEMORY | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY),
            ) => {
                // The submission did not happen (Vulkan leaves everything as
                // it was on these errors).
                self.abandon();
                Err(vk_error("vkQueueSubmit", e))
            }
            Err(e) => {
                self.state = State::Broken;
                Err(vk_error("vkQueueSubmit", e))
            }
        }
    }

    /// Drop what a recording that will never be submitted holds and make the
    /// batch idle (the next `begin` resets its command buffer).
    pub(crate) fn abandon(&mut self) {
        if self.state == State::Recording {
            self.release_all();
            self.state = State::Idle;
        }
    }

    /// Whether the batch is done (idle), retiring it if its fence signalled.
    /// A broken batch is an error.
    pub(crate) fn poll(&mut self) -> Result<bool> {
        match self.state {
            State::Idle => Ok(true),
            State::Recording => Ok(false),
            State::Broken => Err(internal("polling a broken batch")),
            State::Pending => {
                // SAFETY: the fence is live and of this device.
                let status = unsafe { self.device.raw().get_fence_status(self.fence) };
                match status {
                    Ok(true) => self.retire().map(|()| true),
                    Ok(false) => Ok(false),
                    Err(e) => {
                        self.state = State::Broken;
                        Err(vk_error("vkGetFenceStatus", e))
                    }
                }
            }
        }
    }

    /// Wait until the batch is done and retire it.
    pub(crate) fn wait(&mut self) -> Result<()> {
        match self.state {
            State::Idle => Ok(()),
            State::Recording => Err(internal("waiting for a batch that is still recording")),
            State::Broken => Err(internal("waiting for a broken batch")),
            State::Pending => {
                // SAFETY: the fence is live and of this device.
                match self.wait_fence(None) {
                    Ok(()) => self.retire(),
                    Err(e) => {
                        self.state = State::Broken;
                        Err(vk_error("vkWaitForFences", e))
                    }
                }
            }
        }
    }

    /// Wait for the fence in slices of [`WAIT_SLICE`] rather than in one
    /// unbounded driver call; `limit` bounds the whole wait (`VK_TIMEOUT`
    /// past it), which a broken batch's `Drop` uses.
    fn wait_fence(&self, limit: Option<Duration>) -> Result<(), vk::Result> {
        let started = Instant::now();
        let slice = u64::try_from(WAIT_SLICE.as_nanos()).unwrap_or(u64::MAX);
        loop {
            // SAFETY: the fence is live and of this device; waiting has no
            // other requirement.
            let waited = unsafe {
                self.device
                    .raw()
                    .wait_for_fences(&[self.fence], true, slice)
            };
            match waited {
                Err(vk::Result::TIMEOUT) if limit.is_none_or(|l| started.elapsed() < l) => {}
                other => return other,
            }
        }
    }

    /// The fence signalled: the work is done. Reset the fence and let go of
    /// everything the batch held.
    fn retire(&mut self) -> Result<()> {
        // SAFETY: the fence signalled, so no pending submission uses it.
        if let Err(e) = unsafe { self.device.raw().reset_fences(&[self.fence]) } {
            // The work is done (release what it held), but the fence may
            // still be signalled: never submit with it again.
            self.release_all();
            self.state = State::Broken;
            return Err(vk_error("vkResetFences", e));
        }
        self.release_all();
        self.state = State::Idle;
        Ok(())
    }

    fn release_all(&mut self) {
        for buffer in self.buffers.drain(..) {
            buffer.release();
        }
        self.pipelines.clear();
        self.queries.clear();
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        let device = Arc::clone(&self.device);
        let raw = device.raw();
        if matches!(self.state, State::Pending | State::Broken) {
            // A broken batch's fence may never signal (a submission that
            // failed with an unexpected error): bound that wait.
            let limit = (self.state == State::Broken).then_some(Duration::from_secs(1));
            let waited = self.wait_fence(limit);
            match waited {
                Ok(()) | Err(vk::Result::ERROR_DEVICE_LOST) => {}
                Err(e) => {
                    // The command buffer may still execute: destroying it or
                    // anything it uses would be undefined. Leak all of it.
                    let error: Error = vk_error("vkWaitForFences", e);
                    tracing::error!(
                        "vulkan: a batch could not be waited for on close; leaking it: {}",
                        error.chain()
                    );
                    for buffer in self.buffers.drain(..) {
                        std::mem::forget(buffer);
                    }
                    for pipeline in self.pipelines.drain(..) {
                        std::mem::forget(pipeline);
                    }
                    for pool in self.queries.drain(..) {
                        std::mem::forget(pool);
                    }
                    std::mem::forget(Arc::clone(&self.device));
                    return;
                }
            }
        }
        self.release_all();
        // SAFETY: the batch's work has completed (or the device is lost, after
        // which destroying objects is allowed); the descriptor pool's sets,
        // the fence and the command pool (with its command buffer) are used
        // by nothing else.
        unsafe {
            raw.destroy_descriptor_pool(self.descriptors, None);
            raw.destroy_fence(self.fence, None);
            raw.destroy_command_pool(self.pool, None);
        }
        live::destroyed(Kind::Batch);
    }
}
