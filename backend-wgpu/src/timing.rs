//! Timing with wgpu's timestamp queries, in the best mode the device allows:
//!
//! - **Encoder** (`TIMESTAMP_QUERY_INSIDE_ENCODERS`): a timestamp written
//!   into the command stream at `begin_timer` and at `end_timer`, so the
//!   region covers every command between them (dispatches, clears, copies).
//! - **Passes** (`TIMESTAMP_QUERY` only): every compute pass recorded while
//!   the timer runs writes timestamps at its start and end; the region is the
//!   first pass's start to the last pass's end. A region without passes falls
//!   back to the host clock.
//! - **Host** (no timestamps): the host clock around a drained queue,
//!   reported as [`Clock::Host`].
//!
//! Ticks become nanoseconds through `queue.get_timestamp_period()`.

use crate::device::Gpu;
use crate::errors::checked;
use crate::queue::{map_read, Recorder};
use rosetta_core::{Clock, Error, Result};
use std::time::{Duration, Instant};

/// Passes one timed region can time in `Passes` mode (two queries each;
/// wgpu allows 4096 queries per set).
const MAX_TIMED_PASSES: u32 = 2048;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Encoder,
    Passes,
    Host,
}

pub struct Timer {
    mode: Mode,
    queries: Option<Queries>,
    /// Host clock at `begin_timer` (every mode keeps it, for the fallback).
    started: Option<Instant>,
    /// Passes timed so far in `Passes` mode.
    passes: u32,
    /// Passes that ran past `MAX_TIMED_PASSES` untimed (reported once).
    overflow: u32,
}

struct Queries {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
}

impl Timer {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let features = gpu.device.features();
        let mode = if !features.contains(wgpu::Features::TIMESTAMP_QUERY) {
            Mode::Host
        } else if features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS) {
            Mode::Encoder
        } else {
            Mode::Passes
        };
        let count = match mode {
            Mode::Host => 0,
            Mode::Encoder => 2,
            Mode::Passes => 2 * MAX_TIMED_PASSES,
        };
        let queries = if count == 0 {
            None
        } else {
            let bytes = u64::from(count) * u64::from(wgpu::QUERY_SIZE);
            Some(checked(
                &gpu.device,
                &gpu.health,
                "creating timestamp queries",
                || Queries {
                    set: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                        label: Some("rosetta timer"),
                        ty: wgpu::QueryType::Timestamp,
                        count,
                    }),
                    resolve: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("rosetta timer resolve"),
                        size: bytes,
                        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    }),
                    readback: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("rosetta timer readback"),
                        size: bytes,
                        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    }),
                },
            )?)
        };
        tracing::debug!(?mode, "wgpu: timer mode");
        Ok(Timer {
            mode,
            queries,
            started: None,
            passes: 0,
            overflow: 0,
        })
    }

    pub fn query_set(&self) -> Option<&wgpu::QuerySet> {
        self.queries.as_ref().map(|q| &q.set)
    }

    /// The query indices the next compute pass writes at its start and end,
    /// in `Passes` mode while the timer runs.
    pub fn next_pass(&mut self) -> Option<(u32, u32)> {
        if self.mode != Mode::Passes || self.started.is_none() {
            return None;
        }
        if self.passes == MAX_TIMED_PASSES {
            self.overflow += 1;
            return None;
        }
        let first = 2 * self.passes;
        self.passes += 1;
        Some((first, first + 1))
    }
}

impl Recorder {
    /// Mark the start of a timed region in queue order.
    pub fn begin_timer(&mut self, gpu: &Gpu) -> Result<()> {
        match self.timer.mode {
            Mode::Encoder => {
                let set = self.timer.query_set().cloned();
                if let Some(set) = set {
                    self.encoder(gpu).write_timestamp(&set, 0);
                }
            }
            Mode::Passes => {}
            // The region starts once everything before it has run.
            Mode::Host => self.finish(gpu)?,
        }
        self.timer.passes = 0;
        self.timer.overflow = 0;
        self.timer.started = Some(Instant::now());
        Ok(())
    }

    /// Mark the end, wait for it, and return the region's duration.
    pub fn end_timer(&mut self, gpu: &Gpu) -> Result<(Duration, Clock)> {
        let started = self
            .timer
            .started
            .take()
            .ok_or_else(|| Error::InvalidArgument("end_timer without begin_timer".into()))?;
        let (first, last) = match self.timer.mode {
            Mode::Host => {
                self.finish(gpu)?;
                return Ok((started.elapsed(), Clock::Host));
            }
            Mode::Passes if self.timer.passes == 0 => {
                self.finish(gpu)?;
                return Ok((started.elapsed(), Clock::Host));
            }
            Mode::Passes => {
                if self.timer.overflow > 0 {
                    tracing::warn!(
                        untimed = self.timer.overflow,
                        "wgpu: timed region has more than {MAX_TIMED_PASSES} passes; the last ones are not timed"
                    );
                }
                (0, 2 * self.timer.passes - 1)
            }
            Mode::Encoder => (0, 1),
        };
        let Some(queries) = self
            .timer
            .queries
            .as_ref()
            .map(|q| (q.set.clone(), q.resolve.clone(), q.readback.clone()))
        else {
            return Err(Error::backend(
                rosetta_core::Api::Wgpu,
                "timer has no query set",
            ));
        };
        let (set, resolve, readback) = queries;
        let count = last + 1;
        let bytes = u64::from(count) * u64::from(wgpu::QUERY_SIZE);
        let mode = self.timer.mode;
        let encoder = self.encoder(gpu);
        if mode == Mode::Encoder {
            encoder.write_timestamp(&set, 1);
        }
        encoder.resolve_query_set(&set, 0..count, &resolve, 0);
        encoder.copy_buffer_to_buffer(&resolve, 0, &readback, 0, Some(bytes));
        self.submit(gpu)?;
        let mut raw = vec![0u8; bytes as usize];
        map_read(gpu, &readback, &mut raw)?;
        let ticks: Vec<u64> = raw
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
            .collect();
        let elapsed = ticks[last as usize].saturating_sub(ticks[first as usize]);
        let nanos = elapsed as f64 * f64::from(gpu.queue.get_timestamp_period());
        Ok((Duration::from_nanos(nanos.round() as u64), Clock::Device))
    }
}
