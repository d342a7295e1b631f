//! The in-order command recorder.
//!
//! Launches, clears, copies and timestamps are recorded into one pending
//! command encoder and submitted together; consecutive launches share one
//! compute pass (wgpu still orders each dispatch after the writes of the
//! ones before it: every dispatch is a usage scope of its own), which any
//! other command ends;
//! `write` and `read` submit what is pending first, so every call takes
//! effect in call order, as if on one in-order queue:
//!
//! - `queue.write_buffer` runs before the command buffers of the *next*
//!   submission, so a `write` first submits the work recorded before it.
//! - Launch params live in one uniform arena per device, a slot per launch
//!   (bound with a dynamic offset). The slots of a batch are uploaded with
//!   one `write_buffer` just before the batch's submission, so after the
//!   previous batch, which makes reusing the arena across batches safe. A
//!   full arena submits the batch. (Immediate data — push constants — was
//!   measured instead and lost: through Vulkan on an H200 the two-launch
//!   sum of 2^20 f32 took 10.2 µs with its params as immediates against
//!   9.1 µs from the arena, 2^16 9.7 against 7.6; ARCHITECTURE, driver
//!   facts.)
//! - Timestamps (`timing.rs`) are placed by [`Recorder::timestamp`]: as a
//!   compute pass's own beginning and end timestamps where a mark sits
//!   right before or after a pass, else written into the encoder.
//! - Downloads copy into a `MAP_READ` staging buffer (reused, chunked) and
//!   wait for the map.

use crate::gpu::Gpu;
use rosetta_core::{Error, Result};

/// Bytes of the params arena.
pub(crate) const ARENA_BYTES: u64 = 256 << 10;
/// Largest staging buffer for downloads, and largest single upload.
const CHUNK_BYTES: u64 = 64 << 20;

/// Bytes of a kernel's params binding: its words, rounded up to 16 (the
/// size of a uniform struct), at least 16.
pub(crate) fn params_binding_bytes(words: usize) -> u64 {
    (words as u64 * 4).div_ceil(16).max(1) * 16
}

/// The pending encoder, the params arena and the download staging buffer.
pub(crate) struct Recorder {
    /// The open compute pass of the pending encoder: the launches recorded
    /// since its last other command. Why one pass for them: each compute
    /// pass costs wgpu device time. On an H200 through Vulkan the two-launch
    /// sum of 2^16 f32 took 15.6 µs with a pass per launch and 11.2 µs with
    /// one pass, 2^28 254.0 against 248.3 µs (`rosetta bench`,
    /// `docs/results/h200-2026-11-23g/` and `h200-2026-11-24/`). (Declared
    /// first: it drops before its encoder.)
    pass: Option<wgpu::ComputePass<'static>>,
    /// The timestamp slot the open pass writes as it ends, where the timer
    /// reserved one when it opened.
    pass_end: Option<u32>,
    /// The slot the next pass opened may end with.
    pass_end_offer: Option<u32>,
    /// A timestamp marked but not yet written: it becomes the next pass's
    /// beginning, or is written before any other command.
    pending_timestamp: Option<u32>,
    /// The timer's query set, where the device has one (`timing.rs`).
    timestamps: Option<wgpu::QuerySet>,
    encoder: Option<wgpu::CommandEncoder>,
    /// Dispatches in the pending encoder (for logs).
    launches: u32,
    arena: wgpu::Buffer,
    /// Distance between slots: the device's uniform offset alignment.
    slot_stride: u64,
    /// The arena's contents for the pending batch.
    staged: Vec<u8>,
    staging: Option<wgpu::Buffer>,
}

impl Recorder {
    /// A recorder with an empty batch and a fresh params arena.
    pub(crate) fn new(gpu: &Gpu) -> Result<Self> {
        let alignment = u64::from(gpu.device.limits().min_uniform_buffer_offset_alignment).max(16);
        let arena = gpu.checked("wgpu::Device::create_buffer", || {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("rosetta params arena"),
                size: ARENA_BYTES.max(alignment),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        Ok(Recorder {
            encoder: None,
            pass: None,
            pass_end: None,
            pass_end_offer: None,
            pending_timestamp: None,
            timestamps: None,
            launches: 0,
            arena,
            slot_stride: alignment,
            staged: Vec::new(),
            staging: None,
        })
    }

    /// The params arena every bind group binds at its last binding.
    pub(crate) fn arena(&self) -> &wgpu::Buffer {
        &self.arena
    }

    /// Write timestamps into `set` (the timer's query set) from now on.
    pub(crate) fn attach_timestamps(&mut self, set: wgpu::QuerySet) {
        self.timestamps = Some(set);
    }

    /// The pending encoder, created on first use, with no compute pass open
    /// (an open one ends here: the encoder takes no other command while a
    /// pass is open) and the pending timestamp written.
    pub(crate) fn encoder(&mut self, gpu: &Gpu) -> &mut wgpu::CommandEncoder {
        self.end_pass();
        let encoder = self.encoder.get_or_insert_with(|| {
            gpu.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("rosetta batch"),
                })
        });
        if let (Some(slot), Some(set)) = (self.pending_timestamp.take(), &self.timestamps) {
            // wgpu resets the query just before writing it here, so this
            // is the placement for a timestamp that begins an interval.
            encoder.write_timestamp(set, slot);
        }
        encoder
    }

    /// End the open compute pass, if any (it writes its end timestamp).
    fn end_pass(&mut self) {
        self.pass = None;
        self.pass_end = None;
    }

    /// Whether launches would go into an already open compute pass.
    pub(crate) fn pass_open(&self) -> bool {
        self.pass.is_some()
    }

    /// The timestamp slot the next compute pass opened may end with (the
    /// next mark's, reserved by the timer), or none.
    pub(crate) fn offer_pass_end(&mut self, slot: Option<u32>) {
        self.pass_end_offer = slot;
    }

    /// A timestamp at this point of the queue into `slot` of the timer's
    /// query set: the open pass's own end timestamp where that pass was
    /// opened with `slot` reserved, else deferred ([`Recorder::encoder`]
    /// or the next pass's beginning writes it).
    ///
    /// Why not `CommandEncoder::write_timestamp` at once: wgpu resets the
    /// query just before writing it there, and a reset after the work of
    /// an interval is timed with it. A pass's timestamps are reset before
    /// the pass begins. On an H200 through Vulkan (`rosetta bench --op
    /// reduce`, one call, params as immediates in both) the two-launch sum
    /// of 2^20 f32 took 12.2–13.0 µs with the marks written by the encoder
    /// and 10.2 µs with the marks as the pass's own timestamps; 2^16
    /// 11.5–11.7 against 9.7 µs (`docs/results/h200-2026-11-26c/`).
    pub(crate) fn timestamp(&mut self, gpu: &Gpu, slot: u32) {
        // An offer not taken was this very slot: no pass may write it now.
        self.pass_end_offer = None;
        if self.pass.is_some() && self.pass_end == Some(slot) {
            self.end_pass();
            return;
        }
        if self.pending_timestamp.is_some() {
            // Two marks in a row: the first is written now.
            self.encoder(gpu);
        }
        self.end_pass();
        self.pending_timestamp = Some(slot);
    }

    /// Stage one launch's params in a slot of `binding_bytes`; returns the
    /// slot's offset in the arena. Submits the pending batch first if the
    /// arena is full.
    pub(crate) fn stage_params(
        &mut self,
        gpu: &Gpu,
        params: &[u32],
        binding_bytes: u64,
    ) -> Result<u32> {
        let slot = binding_bytes.div_ceil(self.slot_stride) * self.slot_stride;
        if slot > self.arena.size() || (params.len() as u64) * 4 > binding_bytes {
            // `compile` refuses kernels whose params do not fit.
            return Err(Error::Internal(format!(
                "{} param words do not fit a params slot of {binding_bytes} bytes",
                params.len()
            )));
        }
        if self.staged.len() as u64 + slot > self.arena.size() {
            self.submit(gpu)?;
        }
        let offset = self.staged.len();
        self.staged.resize(offset + slot as usize, 0);
        let words: &[u8] = bytemuck::cast_slice(params);
        self.staged[offset..offset + words.len()].copy_from_slice(words);
        u32::try_from(offset)
            .map_err(|_| Error::Internal("a params slot offset exceeds u32".into()))
    }

    /// Record one dispatch into the pending encoder.
    ///
    /// # Safety
    /// `pipeline` may have been built from a module without forced loop
    /// bounding (see `Gpu::trusted_module`): the caller guarantees that this
    /// dispatch, with the params staged at `params_offset` and these
    /// groups, terminates (the contract of `Driver::launch`).
    ///
    /// A pass opened here begins with the pending timestamp, and ends with
    /// a timestamp into the slot offered ([`Recorder::offer_pass_end`]),
    /// which a mark right after the pass claims ([`Recorder::timestamp`]).
    pub(crate) unsafe fn dispatch(
        &mut self,
        gpu: &Gpu,
        label: &str,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
        params_offset: u32,
        groups: [u32; 3],
    ) {
        if self.pass.is_none() {
            let pass_end = self.pass_end_offer.take();
            // wgpu resets every query from the pass's first timestamp slot
            // to its last before the pass: only neighbours share a pass.
            let begin = self.pending_timestamp;
            if begin.is_some_and(|b| pass_end.is_some_and(|e| e != b.wrapping_add(1))) {
                self.encoder(gpu);
            }
            let set = self.timestamps.clone();
            let begin = self.pending_timestamp.take();
            let pass_end = pass_end.filter(|_| set.is_some());
            let encoder = self.encoder(gpu);
            let timestamp_writes = set.as_ref().and_then(|query_set| {
                (begin.is_some() || pass_end.is_some()).then_some(
                    wgpu::ComputePassTimestampWrites {
                        query_set,
                        beginning_of_pass_write_index: begin,
                        end_of_pass_write_index: pass_end,
                    },
                )
            });
            let pass = encoder
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("rosetta launches"),
                    timestamp_writes,
                })
                .forget_lifetime();
            self.pass = Some(pass);
            self.pass_end = pass_end;
        }
        let Some(pass) = self.pass.as_mut() else {
            return;
        };
        pass.push_debug_group(label);
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind_group, &[params_offset]);
        pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        pass.pop_debug_group();
        self.launches += 1;
    }

    /// Submit the pending batch (its params upload first).
    pub(crate) fn submit(&mut self, gpu: &Gpu) -> Result<()> {
        if self.pending_timestamp.is_some() {
            self.encoder(gpu);
        }
        self.end_pass();
        let Some(encoder) = self.encoder.take() else {
            return Ok(());
        };
        let staged = std::mem::take(&mut self.staged);
        tracing::trace!(launches = self.launches, "wgpu: submitting a batch");
        self.launches = 0;
        let submitted = gpu.checked("wgpu::Queue::submit", || {
            if !staged.is_empty() {
                gpu.queue.write_buffer(&self.arena, 0, &staged);
            }
            gpu.queue.submit([encoder.finish()]);
        });
        if let Err(error) = &submitted {
            // wgpu dropped the whole batch: ops that returned Ok when they
            // were recorded did not run, and their outputs must never be
            // read as results.
            gpu.health.batch_refused(error);
        }
        submitted
    }

    /// Submit everything and wait until the device is idle.
    pub(crate) fn finish(&mut self, gpu: &Gpu) -> Result<()> {
        self.submit(gpu)?;
        gpu.wait_idle()
    }

    /// Upload in queue order: after everything recorded so far.
    pub(crate) fn write(
        &mut self,
        gpu: &Gpu,
        dst: &wgpu::Buffer,
        offset: u64,
        data: &[u8],
    ) -> Result<()> {
        self.submit(gpu)?;
        let chunks = data.chunks(CHUNK_BYTES as usize);
        let count = chunks.len();
        for (i, chunk) in chunks.enumerate() {
            let at = offset + i as u64 * CHUNK_BYTES;
            gpu.checked("wgpu::Queue::write_buffer", || {
                gpu.queue.write_buffer(dst, at, chunk);
                // Submit the staged upload now when more chunks follow, so
                // that at most one chunk of staging memory is alive.
                if i + 1 < count {
                    gpu.queue.submit([]);
                }
            })?;
        }
        Ok(())
    }

    /// Zero a whole buffer in queue order.
    pub(crate) fn zero(&mut self, gpu: &Gpu, buffer: &wgpu::Buffer) {
        self.encoder(gpu).clear_buffer(buffer, 0, None);
    }

    /// Copy between two buffers in queue order.
    pub(crate) fn copy(
        &mut self,
        gpu: &Gpu,
        src: &wgpu::Buffer,
        src_offset: u64,
        dst: &wgpu::Buffer,
        dst_offset: u64,
        bytes: u64,
    ) {
        self.encoder(gpu)
            .copy_buffer_to_buffer(src, src_offset, dst, dst_offset, Some(bytes));
    }

    /// Download after everything recorded so far has run.
    pub(crate) fn read(
        &mut self,
        gpu: &Gpu,
        src: &wgpu::Buffer,
        offset: u64,
        out: &mut [u8],
    ) -> Result<()> {
        self.submit(gpu)?;
        for (i, chunk) in out.chunks_mut(CHUNK_BYTES as usize).enumerate() {
            let at = offset + i as u64 * CHUNK_BYTES;
            let len = chunk.len() as u64;
            let staging = self.staging(gpu, len)?;
            gpu.checked("wgpu::Queue::submit", || {
                let mut encoder =
                    gpu.device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("rosetta download"),
                        });
                encoder.copy_buffer_to_buffer(src, at, &staging, 0, Some(len));
                gpu.queue.submit([encoder.finish()]);
            })?;
            gpu.map_read(&staging, chunk)?;
        }
        Ok(())
    }

    /// The download staging buffer, grown to at least `len` bytes.
    fn staging(&mut self, gpu: &Gpu, len: u64) -> Result<wgpu::Buffer> {
        if let Some(staging) = &self.staging {
            if staging.size() >= len {
                return Ok(staging.clone());
            }
        }
        let size = len.next_power_of_two().clamp(4096, CHUNK_BYTES).max(len);
        let staging = gpu.checked("wgpu::Device::create_buffer", || {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("rosetta download staging"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        self.staging = Some(staging.clone());
        Ok(staging)
    }
}
