//! Timestamps as tokens: one query pool used as a ring of [`RING`] slots.
//!
//! A mark is a slot, the generation written there (the mark's number) and
//! the batch that writes it. Slots are reset [`RESET_CHUNK`] at a time,
//! ahead of their marks (a reset is not timed with the work), and a slot is
//! reused after at most [`RING`] (at least `RING - RESET_CHUNK`) more marks;
//! resolving a mark whose slot was reused is an error
//! ([`Error::ExceedsLimit`]), never a wrong time. `elapsed` waits for the
//! end mark's batch (and so for the begin mark's, which comes earlier),
//! reads both queries, masks the difference to the queue's
//! `timestampValidBits` and scales it by `timestampPeriod`.

use crate::queue::Queue;
use crate::vk::query::TimestampPool;
use rosetta_core::{Api, Error, Result};
use std::sync::Arc;
use std::time::Duration;

/// Timestamp slots; marks older than this many newer ones have expired.
pub(crate) const RING: u32 = 4096;

/// Slots reset by one command, ahead of their marks: a reset per mark
/// (`vkCmdResetQueryPool` just before the write) would fall inside the
/// interval between two marks and be timed with the work.
const RESET_CHUNK: u32 = 64;

/// A timestamp in queue order (plain data: may outlive the device).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    slot: u32,
    generation: u64,
    batch: u64,
}

/// The ring of timestamp queries of one device.
pub(crate) struct Timer {
    pool: Arc<TimestampPool>,
    /// The generation last written to each slot (0: none).
    generations: Vec<u64>,
    /// The next mark's generation (from 1).
    next: u64,
    /// Nanoseconds per tick.
    period_ns: f64,
    /// The queue's valid timestamp bits, as a mask.
    mask: u64,
    /// Generations below this one have their slots reset (and not written
    /// since, for those not yet marked).
    reset_until: u64,
}

impl Timer {
    /// A timer for a queue with `valid_bits` timestamp bits and `period_ns`
    /// nanoseconds per tick; `None` without timestamps.
    pub(crate) fn new(queue: &Queue, valid_bits: u32, period_ns: f32) -> Result<Option<Self>> {
        if valid_bits == 0 || period_ns <= 0.0 {
            return Ok(None);
        }
        Ok(Some(Timer {
            pool: TimestampPool::new(queue.device(), RING)?,
            generations: vec![0; RING as usize],
            next: 1,
            period_ns: f64::from(period_ns),
            mask: if valid_bits >= 64 {
                u64::MAX
            } else {
                (1u64 << valid_bits) - 1
            },
            reset_until: 1,
        }))
    }

    /// Record a timestamp after everything enqueued so far.
    pub(crate) fn mark(&mut self, queue: &mut Queue) -> Result<Mark> {
        let generation = self.next;
        let slot = (generation % u64::from(RING)) as u32;
        // Reset this slot and the next ones up to the chunk's end (or the
        // ring's) when this generation's slot is not reset yet. Marks still
        // in those slots expire now.
        let reset = if generation >= self.reset_until {
            (RESET_CHUNK - slot % RESET_CHUNK).min(RING - slot)
        } else {
            0
        };
        let batch = queue.marker()?;
        batch.timestamp(&self.pool, slot, reset)?;
        if reset > 0 {
            self.reset_until = generation + u64::from(reset);
        }
        for expired in &mut self.generations[slot as usize..(slot + reset) as usize] {
            *expired = 0;
        }
        let serial = batch.serial();
        self.next += 1;
        self.generations[slot as usize] = generation;
        Ok(Mark {
            slot,
            generation,
            batch: serial,
        })
    }

    /// Whether `mark` still owns its slot.
    fn check(&self, mark: &Mark) -> Result<()> {
        if self.generations.get(mark.slot as usize) == Some(&mark.generation) {
            Ok(())
        } else {
            Err(Error::ExceedsLimit {
                what: "timestamps taken after the one resolved (its query slot was reused)",
                requested: self.next.saturating_sub(mark.generation),
                limit: u64::from(RING),
            })
        }
    }

    /// Device time from `begin` to `end`, once `end` has been reached.
    pub(crate) fn elapsed(
        &mut self,
        queue: &mut Queue,
        begin: &Mark,
        end: &Mark,
    ) -> Result<Duration> {
        self.check(begin)?;
        self.check(end)?;
        queue.wait_for(begin.batch.max(end.batch))?;
        let ticks = |mark: &Mark| -> Result<u64> {
            self.pool.ticks(mark.slot)?.ok_or_else(|| {
                Error::device(
                    Api::Vulkan,
                    "vkGetQueryPoolResults",
                    "the timestamp was never written (an earlier submission failed)",
                )
            })
        };
        let (t0, t1) = (ticks(begin)?, ticks(end)?);
        let delta = t1.wrapping_sub(t0) & self.mask;
        let nanos = (delta as f64 * self.period_ns).round();
        Ok(Duration::from_nanos(nanos as u64))
    }
}
