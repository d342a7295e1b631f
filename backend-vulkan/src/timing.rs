//! Timing: two timestamp queries around the timed region, written at
//! BOTTOM_OF_PIPE in queue order (the first once everything before it has
//! completed, the second once everything in the region has), scaled by
//! `timestampPeriod` and masked to the queue's `timestampValidBits`. Queues
//! without timestamps fall back to the host clock around a drained queue.

use crate::gpu::Gpu;
use crate::queue::Queue;
use ash::vk;
use rosetta_core::{Api, Clock, Error, Result};
use std::time::{Duration, Instant};

enum Started {
    Device,
    Host(Instant),
}

pub(crate) struct Timer {
    /// Two timestamp queries, when the queue has timestamps.
    pool: Option<vk::QueryPool>,
    /// Nanoseconds per tick.
    period_ns: f64,
    /// The queue's valid timestamp bits.
    mask: u64,
    started: Option<Started>,
}

impl Timer {
    /// A timer for a queue with `valid_bits` timestamp bits (0: none).
    pub(crate) fn new(gpu: &Gpu, valid_bits: u32, period_ns: f32) -> Result<Self> {
        let pool = if valid_bits > 0 {
            Some(gpu.create_timestamp_pool(2)?)
        } else {
            None
        };
        Ok(Timer {
            pool,
            period_ns: f64::from(period_ns),
            mask: if valid_bits >= 64 {
                u64::MAX
            } else {
                (1u64 << valid_bits) - 1
            },
            started: None,
        })
    }

    pub(crate) fn begin(&mut self, gpu: &Gpu, queue: &mut Queue) -> Result<()> {
        match self.pool {
            Some(pool) => {
                let batch = queue.command(gpu)?;
                gpu.cmd_reset_queries(batch.cmd, pool, 2);
                gpu.cmd_timestamp(batch.cmd, pool, 0);
                self.started = Some(Started::Device);
            }
            None => {
                queue.wait_all(gpu)?;
                self.started = Some(Started::Host(Instant::now()));
            }
        }
        Ok(())
    }

    pub(crate) fn end(&mut self, gpu: &Gpu, queue: &mut Queue) -> Result<(Duration, Clock)> {
        match (self.started.take(), self.pool) {
            (Some(Started::Device), Some(pool)) => {
                let batch = queue.command(gpu)?;
                gpu.cmd_timestamp(batch.cmd, pool, 1);
                queue.wait_all(gpu)?;
                let mut ticks = [0u64; 2];
                gpu.query_results(pool, &mut ticks)?;
                let elapsed = ticks[1].wrapping_sub(ticks[0]) & self.mask;
                let nanos = elapsed as f64 * self.period_ns;
                Ok((Duration::from_nanos(nanos.round() as u64), Clock::Device))
            }
            (Some(Started::Host(start)), _) => {
                queue.wait_all(gpu)?;
                Ok((start.elapsed(), Clock::Host))
            }
            _ => Err(Error::backend(Api::Vulkan, "end_timer without begin_timer")),
        }
    }

    pub(crate) fn destroy(&mut self, gpu: &Gpu) {
        if let Some(pool) = self.pool.take() {
            gpu.destroy_query_pool(pool);
        }
    }
}
