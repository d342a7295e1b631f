//! Device timestamps as tokens.
//!
//! Where the device has `TIMESTAMP_QUERY_INSIDE_ENCODERS`, a mark is a
//! timestamp in queue order at a slot of one query set used as a ring: the
//! end timestamp of the compute pass just before it, or the beginning one
//! of the pass just after it, or else one written into the command encoder
//! (`Recorder::timestamp` says why). Every mark has a serial, and each slot
//! remembers the serial of the mark written there last: once the ring has
//! come round and a later mark took the slot, the older mark is refused with
//! [`Error::ExceedsLimit`] — never read as a wrong time. `elapsed` resolves
//! the two slots into a buffer, copies that into a mapped one, and scales
//! the tick difference by `queue.get_timestamp_period()`.
//!
//! Without that feature there is no [`Timer`]; the driver returns no mark
//! and the checked layer times with the host clock around a drained queue
//! (and `caps.timestamps` says false).

use crate::gpu::Gpu;
use crate::queue::Recorder;
use rosetta_core::{Error, Result};
use std::time::Duration;

/// Slots in the ring: wgpu's most queries per set.
pub(crate) const RING_SLOTS: u32 = wgpu::QUERY_SET_MAX_QUERIES;

/// Where the second resolved timestamp goes in the resolve buffer.
const SECOND: u64 = wgpu::QUERY_RESOLVE_BUFFER_ALIGNMENT;

/// A timestamp in the ring: its slot, and its serial (which the slot still
/// holds as long as no later mark took it).
pub(crate) struct Mark {
    slot: u32,
    serial: u64,
}

/// The query ring and the buffers that read it back.
pub(crate) struct Timer {
    set: wgpu::QuerySet,
    /// The serial of the mark whose timestamp each slot holds (0: none).
    owners: Vec<u64>,
    /// The serial of the next mark (serials start at 1).
    next: u64,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Nanoseconds per tick.
    period: f64,
    /// A mark was taken since the last `elapsed`: passes reserve end slots.
    armed: bool,
}

impl Timer {
    /// The device's timer, or `None` where it cannot write timestamps
    /// between commands.
    pub(crate) fn new(gpu: &Gpu) -> Result<Option<Timer>> {
        let needed =
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
        if !gpu.device.features().contains(needed) {
            return Ok(None);
        }
        let bytes = SECOND + u64::from(wgpu::QUERY_SIZE);
        let (set, resolve, readback) = gpu.checked("wgpu::Device::create_query_set", || {
            (
                gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("rosetta timestamps"),
                    ty: wgpu::QueryType::Timestamp,
                    count: RING_SLOTS,
                }),
                gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("rosetta timestamp resolve"),
                    size: bytes,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("rosetta timestamp readback"),
                    size: bytes,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
            )
        })?;
        Ok(Some(Timer {
            set,
            owners: vec![0; RING_SLOTS as usize],
            next: 1,
            resolve,
            readback,
            period: f64::from(gpu.queue.get_timestamp_period()),
            armed: false,
        }))
    }

    /// The query set the recorder writes marks into.
    pub(crate) fn query_set(&self) -> &wgpu::QuerySet {
        &self.set
    }

    /// The slot of the mark with `serial`.
    fn slot(serial: u64) -> u32 {
        ((serial - 1) % u64::from(RING_SLOTS)) as u32
    }

    /// A timestamp in queue order (written where the recorder places it:
    /// `Recorder::timestamp`).
    pub(crate) fn mark(&mut self, gpu: &Gpu, recorder: &mut Recorder) -> Mark {
        let serial = self.next;
        self.next += 1;
        let slot = Self::slot(serial);
        self.owners[slot as usize] = serial;
        self.armed = true;
        recorder.timestamp(gpu, slot);
        Mark { slot, serial }
    }

    /// The slot a compute pass opening now may write as it ends, so that a
    /// mark right after the pass is the pass's own end timestamp (the next
    /// mark's slot; the mark that held it before is refused from now on, as
    /// the next mark would make it). `None` while no interval is being
    /// timed — no mark since the last `elapsed` — so that untimed work
    /// writes no timestamps.
    pub(crate) fn reserve_pass_end(&mut self) -> Option<u32> {
        if !self.armed {
            return None;
        }
        let slot = Self::slot(self.next);
        self.owners[slot as usize] = 0;
        Some(slot)
    }

    /// Refuse a mark whose slot a later mark has taken.
    fn still_held(&self, mark: &Mark) -> Result<()> {
        match self.owners.get(mark.slot as usize) {
            Some(&owner) if owner == mark.serial => Ok(()),
            Some(_) => Err(Error::ExceedsLimit {
                what: "timestamps recorded since this one (the size of wgpu's query ring)",
                // A pass that reserved the slot counts as the next mark.
                requested: (self.next - mark.serial).max(u64::from(RING_SLOTS) + 1),
                limit: u64::from(RING_SLOTS),
            }),
            None => Err(Error::Internal(format!(
                "a wgpu timestamp names slot {} of a ring of {RING_SLOTS}",
                mark.slot
            ))),
        }
    }

    /// Device time from `begin` to `end`, once `end` has been reached.
    pub(crate) fn elapsed(
        &mut self,
        gpu: &Gpu,
        recorder: &mut Recorder,
        begin: &Mark,
        end: &Mark,
    ) -> Result<Duration> {
        self.still_held(begin)?;
        self.still_held(end)?;
        self.armed = false;
        let encoder = recorder.encoder(gpu);
        encoder.resolve_query_set(&self.set, begin.slot..begin.slot + 1, &self.resolve, 0);
        encoder.resolve_query_set(&self.set, end.slot..end.slot + 1, &self.resolve, SECOND);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, None);
        recorder.submit(gpu)?;
        let mut raw = [0u8; SECOND as usize + 8];
        gpu.map_read(&self.readback, &mut raw)?;
        let tick = |at: usize| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&raw[at..at + 8]);
            u64::from_le_bytes(word)
        };
        let (first, last) = (tick(0), tick(SECOND as usize));
        if last < first {
            tracing::debug!(first, last, "wgpu: timestamps out of order; reading 0");
        }
        let nanos = last.saturating_sub(first) as f64 * self.period;
        Ok(Duration::from_nanos(nanos.round() as u64))
    }
}
