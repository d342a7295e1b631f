//! The in-order command recorder.
//!
//! `launch`, `zero` and the timer marks are recorded into one pending command
//! encoder (one compute pass per launch) and submitted together; `write`,
//! `read`, `finish` and `end_timer` submit what is pending first, so every
//! call takes effect in call order, as if on one in-order queue:
//!
//! - `queue.write_buffer` runs before the command buffers of the *next*
//!   submission, so a `write` first submits the launches recorded before it.
//! - Launch params live in one uniform arena per device, a slot per launch
//!   (dynamic offset). The slots of a batch are uploaded with one
//!   `write_buffer` just before the batch's submission, after the previous
//!   batch, which is what makes reusing the arena across batches safe. A full
//!   arena submits the batch.
//! - Downloads copy into a `MAP_READ` staging buffer (reused, chunked) and
//!   wait for the map.

use crate::device::Gpu;
use crate::errors::checked;
use crate::timing::Timer;
use rosetta_core::{Api, Error, Result};
use std::sync::mpsc;

/// Bytes of the params arena.
const ARENA_BYTES: u64 = 64 << 10;
/// Largest staging buffer for downloads and largest single upload.
const CHUNK_BYTES: u64 = 64 << 20;

pub struct Recorder {
    encoder: Option<wgpu::CommandEncoder>,
    /// Dispatches in the pending encoder (for logs).
    launches: u32,
    arena: wgpu::Buffer,
    /// Distance between slots: the device's uniform offset alignment.
    slot_stride: u64,
    /// The arena's contents for the pending batch.
    staged: Vec<u8>,
    staging: Option<wgpu::Buffer>,
    pub timer: Timer,
}

impl Recorder {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let alignment = u64::from(gpu.device.limits().min_uniform_buffer_offset_alignment).max(16);
        let arena = checked(
            &gpu.device,
            &gpu.health,
            "creating the params arena",
            || {
                gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("rosetta params arena"),
                    size: ARENA_BYTES.max(alignment),
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            },
        )?;
        Ok(Recorder {
            encoder: None,
            launches: 0,
            arena,
            slot_stride: alignment,
            staged: Vec::new(),
            staging: None,
            timer: Timer::new(gpu)?,
        })
    }

    pub fn arena(&self) -> &wgpu::Buffer {
        &self.arena
    }

    /// The pending encoder, created on first use.
    pub fn encoder(&mut self, gpu: &Gpu) -> &mut wgpu::CommandEncoder {
        self.encoder.get_or_insert_with(|| {
            gpu.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("rosetta batch"),
                })
        })
    }

    /// Stage one launch's params; returns the slot's offset in the arena.
    /// Submits the pending batch first if the arena is full.
    pub fn stage_params(&mut self, gpu: &Gpu, params: &[u32], binding_bytes: u64) -> Result<u32> {
        if binding_bytes > ARENA_BYTES {
            return Err(Error::InvalidArgument(format!(
                "{} param words do not fit the params arena",
                params.len()
            )));
        }
        let slot = binding_bytes.div_ceil(self.slot_stride) * self.slot_stride;
        if self.staged.len() as u64 + slot > self.arena.size() {
            self.submit(gpu)?;
        }
        let offset = self.staged.len();
        self.staged.resize(offset + slot as usize, 0);
        let words: &[u8] = bytemuck::cast_slice(params);
        self.staged[offset..offset + words.len()].copy_from_slice(words);
        Ok(offset as u32)
    }

    /// Record one dispatch into the pending encoder.
    pub fn dispatch(
        &mut self,
        gpu: &Gpu,
        label: &str,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
        params_offset: u32,
        groups: [u32; 3],
    ) {
        let timestamp_writes = self.timer.next_pass();
        let query_set = self.timer.query_set().cloned();
        let encoder = self.encoder(gpu);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(label),
            timestamp_writes: match (timestamp_writes, &query_set) {
                (Some((begin, end)), Some(query_set)) => Some(wgpu::ComputePassTimestampWrites {
                    query_set,
                    beginning_of_pass_write_index: Some(begin),
                    end_of_pass_write_index: Some(end),
                }),
                _ => None,
            },
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind_group, &[params_offset]);
        pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        drop(pass);
        self.launches += 1;
    }

    /// Submit the pending batch (params upload first).
    pub fn submit(&mut self, gpu: &Gpu) -> Result<()> {
        let Some(encoder) = self.encoder.take() else {
            return Ok(());
        };
        let staged = std::mem::take(&mut self.staged);
        tracing::trace!(launches = self.launches, "wgpu: submitting batch");
        self.launches = 0;
        checked(&gpu.device, &gpu.health, "submitting recorded work", || {
            if !staged.is_empty() {
                gpu.queue.write_buffer(&self.arena, 0, &staged);
            }
            gpu.queue.submit([encoder.finish()]);
        })
    }

    /// Submit everything and wait until the device is idle.
    pub fn finish(&mut self, gpu: &Gpu) -> Result<()> {
        self.submit(gpu)?;
        wait_idle(gpu)
    }

    /// Upload in queue order: after everything recorded so far.
    pub fn write(&mut self, gpu: &Gpu, dst: &wgpu::Buffer, offset: u64, data: &[u8]) -> Result<()> {
        self.submit(gpu)?;
        let chunks = data.chunks(CHUNK_BYTES as usize);
        let count = chunks.len();
        for (i, chunk) in chunks.enumerate() {
            let at = offset + i as u64 * CHUNK_BYTES;
            checked(&gpu.device, &gpu.health, "uploading data", || {
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

    /// Zero a buffer in queue order.
    pub fn zero(&mut self, gpu: &Gpu, buffer: &wgpu::Buffer) {
        self.encoder(gpu).clear_buffer(buffer, 0, None);
    }

    /// Download after everything recorded so far has run.
    pub fn read(
        &mut self,
        gpu: &Gpu,
        src: &wgpu::Buffer,
        offset: u64,
        out: &mut [u8],
    ) -> Result<()> {
        self.submit(gpu)?;
        for (i, chunk) in out.chunks_mut(CHUNK_BYTES as usize).enumerate() {
            let at = offset + i as u64 * CHUNK_BYTES;
            let staging = self.staging(gpu, chunk.len() as u64)?;
            let len = chunk.len() as u64;
            checked(
                &gpu.device,
                &gpu.health,
                "copying to the staging buffer",
                || {
                    let mut encoder =
                        gpu.device
                            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                                label: Some("rosetta download"),
                            });
                    encoder.copy_buffer_to_buffer(src, at, &staging, 0, Some(len));
                    gpu.queue.submit([encoder.finish()]);
                },
            )?;
            map_read(gpu, &staging, chunk)?;
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
        let staging = checked(
            &gpu.device,
            &gpu.health,
            "creating a staging buffer",
            || {
                gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("rosetta download staging"),
                    size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            },
        )?;
        self.staging = Some(staging.clone());
        Ok(staging)
    }
}

/// Block until all submitted work is done.
pub fn wait_idle(gpu: &Gpu) -> Result<()> {
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| {
            gpu.health.check().err().unwrap_or_else(|| {
                Error::backend(Api::Wgpu, format!("waiting for the device: {e}"))
            })
        })?;
    gpu.health.check()
}

/// Map the first `out.len()` bytes of a `MAP_READ` buffer whose copy has
/// been submitted, copy them out and unmap.
pub fn map_read(gpu: &Gpu, staging: &wgpu::Buffer, out: &mut [u8]) -> Result<()> {
    if out.is_empty() {
        return Ok(());
    }
    let slice = staging.slice(0..out.len() as u64);
    let (sender, receiver) = mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        // The receiver waits below; if it is gone there is nobody to tell.
        let _ = sender.send(result);
    });
    wait_idle(gpu)?;
    let mapped = receiver.try_recv().map_err(|_| {
        gpu.health.check().err().unwrap_or_else(|| {
            Error::backend(Api::Wgpu, "mapping the staging buffer did not complete")
        })
    })?;
    mapped.map_err(|e| {
        gpu.health.check().err().unwrap_or_else(|| {
            Error::backend(Api::Wgpu, format!("mapping the staging buffer failed: {e}"))
        })
    })?;
    let copied = slice
        .get_mapped_range()
        .map(|view| out.copy_from_slice(&view))
        .map_err(|e| {
            Error::backend(
                Api::Wgpu,
                format!("reading the mapped staging buffer: {e:?}"),
            )
        });
    staging.unmap();
    copied
}
