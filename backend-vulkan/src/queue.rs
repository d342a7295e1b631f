//! The in-order queue of the driver contract, as a stream of command
//! batches (`vk::batch`).
//!
//! Every command is recorded into the open batch after a full memory barrier,
//! so it sees the results of every command before it (in this batch or an
//! earlier one). A batch is submitted when it is full, holds too much
//! staging memory, or someone must wait for it; up to [`MAX_IN_FLIGHT`]
//! submitted batches run while the next one records. Batches are identified
//! by serial numbers; a buffer remembers the serial of the last batch that
//! used it, so waiting for one buffer waits for that batch only.

use crate::vk::batch::Batch;
use crate::vk::device::{Device, Queue as DeviceQueue};
use crate::vk::error::internal;
use crate::vk::memory::Buffer;
use rosetta_core::{Api, Error, Result};
use std::collections::VecDeque;
use std::sync::Arc;

/// Commands one batch records before it is submitted.
const BATCH_COMMANDS: u32 = 256;
/// Most storage buffers one kernel may bind (each batch's descriptor pool
/// holds `BATCH_COMMANDS` sets of 8 on average, so any one launch fits).
pub(crate) const MAX_BINDINGS: u32 = 64;
/// Storage-buffer descriptors of one batch.
const BATCH_DESCRIPTORS: u32 = BATCH_COMMANDS * 8;
/// Submitted batches that may run while the next one records.
const MAX_IN_FLIGHT: usize = 2;
/// Staging bytes a batch may hold before it is submitted.
const BATCH_STAGING_BYTES: u64 = 256 << 20;
/// Idle batches kept for reuse after a `finish`.
const KEEP_IDLE: usize = 1;

/// A batch and the staging memory it keeps alive.
struct Entry {
    batch: Batch,
    staging_bytes: u64,
}

/// The device's queue as batches.
pub(crate) struct Queue {
    recording: Option<Entry>,
    in_flight: VecDeque<Entry>,
    idle: Vec<Batch>,
    queue: DeviceQueue,
    /// Why a batch could not be submitted, once one could not: its
    /// commands never ran, though the calls that recorded them returned
    /// `Ok`, so the device takes no more work (see [`Queue::usable`]).
    refused: Option<String>,
}

impl Queue {
    /// Batches on `queue`.
    pub(crate) fn new(queue: DeviceQueue) -> Self {
        Queue {
            recording: None,
            in_flight: VecDeque::new(),
            idle: Vec::new(),
            queue,
            refused: None,
        }
    }

    /// `Err(DeviceLost)` once a batch could not be submitted: the outputs of
    /// the commands recorded in it (ops that returned `Ok`) were never
    /// written, and must not be read back as results.
    pub(crate) fn usable(&self) -> Result<()> {
        match &self.refused {
            Some(why) => Err(Error::lost(Api::Vulkan, why.clone())),
            None => Ok(()),
        }
    }

    /// The device.
    pub(crate) fn device(&self) -> &Arc<Device> {
        self.queue.device()
    }

    /// The device queue, whose `&mut` borrow host access to mapped memory
    /// requires.
    pub(crate) fn host(&mut self) -> &mut DeviceQueue {
        &mut self.queue
    }

    /// The open batch, ready for one more command that binds `bindings`
    /// buffers: submits a full batch first, opens one if needed, and records
    /// the barrier that orders the command after everything before it.
    pub(crate) fn command(&mut self, bindings: u32) -> Result<&mut Batch> {
        let batch = self.open_batch(bindings)?;
        batch.barrier()?;
        Ok(batch)
    }

    /// The open batch, ready for one timestamp: as [`Queue::command`]
    /// without the barrier. A bottom-of-pipe timestamp waits for every
    /// earlier command by itself, and query commands on one query run in
    /// submission order, so a barrier would only add its own cost to the
    /// interval timed.
    pub(crate) fn marker(&mut self) -> Result<&mut Batch> {
        self.open_batch(0)
    }

    /// The open batch, with room for one more command binding `bindings`
    /// buffers.
    fn open_batch(&mut self, bindings: u32) -> Result<&mut Batch> {
        let full = self.recording.as_ref().is_some_and(|e| {
            e.batch.commands() >= BATCH_COMMANDS
                || e.staging_bytes >= BATCH_STAGING_BYTES
                || !e.batch.fits(bindings)
        });
        if full {
            self.submit()?;
        }
        let entry = match self.recording.take() {
            Some(entry) => entry,
            None => Entry {
                batch: self.open()?,
                staging_bytes: 0,
            },
        };
        if !entry.batch.fits(bindings) {
            self.recording = Some(entry);
            return Err(internal(format!(
                "a launch binding {bindings} buffers does not fit an empty batch"
            )));
        }
        let entry = self.recording.insert(entry);
        Ok(&mut entry.batch)
    }

    /// Count `bytes` of staging memory held by the open batch.
    pub(crate) fn add_staging(&mut self, bytes: u64) {
        if let Some(entry) = self.recording.as_mut() {
            entry.staging_bytes = entry.staging_bytes.saturating_add(bytes);
        }
    }

    /// A batch to record into: an idle one, or a new one; waits for the
    /// oldest running batch when `MAX_IN_FLIGHT` already run.
    fn open(&mut self) -> Result<Batch> {
        self.reclaim()?;
        if self.idle.is_empty() && self.in_flight.len() >= MAX_IN_FLIGHT {
            if let Some(oldest) = self.in_flight.pop_front() {
                self.wait_entry(oldest)?;
            }
        }
        let mut batch = match self.idle.pop() {
            Some(batch) => batch,
            None => Batch::new(self.queue.device(), BATCH_COMMANDS, BATCH_DESCRIPTORS)?,
        };
        // A batch that fails to begin is dropped, not reused.
        batch.begin()?;
        Ok(batch)
    }

    /// Wait for one submitted batch and keep it for reuse.
    fn wait_entry(&mut self, mut entry: Entry) -> Result<()> {
        entry.batch.wait()?;
        self.idle.push(entry.batch);
        Ok(())
    }

    /// Submit the open batch, if any, without waiting.
    pub(crate) fn submit(&mut self) -> Result<()> {
        let Some(mut entry) = self.recording.take() else {
            return Ok(());
        };
        match entry.batch.submit(&mut self.queue) {
            Ok(()) => {
                self.in_flight.push_back(entry);
                Ok(())
            }
            Err(e) => {
                if entry.batch.is_idle() {
                    self.idle.push(entry.batch);
                }
                // Otherwise the batch is broken: dropping it waits for it.
                let why = e.chain();
                tracing::error!("vulkan: a batch could not be submitted: {why}");
                self.refused.get_or_insert(format!(
                    "a batch of recorded work could not be submitted ({why}); the ops recorded \
                     in it did not run, so this device takes no more work"
                ));
                Err(e)
            }
        }
    }

    /// Retire the submitted batches that have completed, without waiting.
    pub(crate) fn reclaim(&mut self) -> Result<()> {
        while let Some(front) = self.in_flight.front_mut() {
            if !front.batch.poll()? {
                break;
            }
            if let Some(entry) = self.in_flight.pop_front() {
                self.idle.push(entry.batch);
            }
        }
        Ok(())
    }

    /// Wait until batch `serial` has completed (submitting it if it is the
    /// open one); earlier batches complete first.
    pub(crate) fn wait_for(&mut self, serial: u64) -> Result<()> {
        if self
            .recording
            .as_ref()
            .is_some_and(|e| e.batch.serial() <= serial)
        {
            self.submit()?;
        }
        while self
            .in_flight
            .front()
            .is_some_and(|e| e.batch.serial() <= serial)
        {
            if let Some(entry) = self.in_flight.pop_front() {
                self.wait_entry(entry)?;
            }
        }
        Ok(())
    }

    /// Make `buffer` idle: no recorded or running batch uses it any more.
    pub(crate) fn settle(&mut self, buffer: &Buffer) -> Result<()> {
        if !buffer.busy() {
            return Ok(());
        }
        self.reclaim()?;
        if buffer.busy() {
            self.wait_for(buffer.last_batch())?;
        }
        if buffer.busy() {
            self.finish()?;
        }
        if buffer.busy() {
            return Err(internal("a buffer stays in use after the queue drained"));
        }
        Ok(())
    }

    /// Whether no recorded or running batch uses `buffer` (after retiring
    /// the batches that have completed).
    pub(crate) fn is_idle(&mut self, buffer: &Buffer) -> Result<bool> {
        if buffer.busy() {
            self.reclaim()?;
        }
        Ok(!buffer.busy())
    }

    /// Submit the open batch and wait for every batch; keep few idle ones.
    pub(crate) fn finish(&mut self) -> Result<()> {
        self.submit()?;
        while let Some(entry) = self.in_flight.pop_front() {
            self.wait_entry(entry)?;
        }
        self.idle.truncate(KEEP_IDLE);
        Ok(())
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        // Never submitted: let go of what it holds without running it. The
        // submitted batches wait for their fences as they drop (before the
        // device can be destroyed: each holds it).
        if let Some(mut entry) = self.recording.take() {
            entry.batch.abandon();
        }
    }
}
