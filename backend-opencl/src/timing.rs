//! Device timestamps as tokens: a mark is the event of a command enqueued
//! on the in-order profiling queue, and its `CL_PROFILING_COMMAND_END` is
//! the time everything before it had completed.
//!
//! Which command, decided once per opened device by [`Stamps::probe`]:
//! - **Markers** (`clEnqueueMarkerWithWaitList`, OpenCL 1.2), where the
//!   driver gives them profiling info: a nonzero end time no earlier than
//!   that of the command before. (PoCL does.)
//! - **Copies**, where markers report an error or zeros: a 4-byte copy
//!   inside a 16-byte scratch buffer, a real command whose event carries
//!   the time. (`clEnqueueCopyBuffer` exists since OpenCL 1.0, unlike a
//!   fill.)
//! - **None**, where the queue cannot profile, or neither works: no device
//!   clock (`caps.timestamps = false`; the checked layer uses the host
//!   clock).

use crate::status::Failure;
use crate::sys::{self, Context, DeviceId, Event, Mem, Queue};
use rosetta_core::Result;
use std::time::Duration;

/// A timestamp: a completed (or pending) command's event.
pub(crate) struct Mark(Event);

/// How this device records marks.
pub(crate) enum Stamps {
    /// Marker events carry the time.
    Markers,
    /// 4-byte copies inside this scratch buffer stand in for markers.
    Copies(Mem),
    /// No device clock.
    None,
}

impl Stamps {
    /// Find out what gives timestamps on this queue (see the module docs).
    /// `profiling`: the queue was created with profiling; `markers`: the
    /// device has OpenCL 1.2's marker call.
    pub(crate) fn probe(
        context: &Context,
        queue: &Queue,
        device: DeviceId,
        profiling: bool,
        markers: bool,
    ) -> Stamps {
        if !profiling {
            return Stamps::None;
        }
        let scratch = match sys::create_buffer(context, 16) {
            Ok(scratch) => scratch,
            Err(e) => {
                tracing::debug!(?device, "opencl: no scratch buffer for timestamps ({e})");
                return Stamps::None;
            }
        };
        if markers {
            match markers_work(queue, &scratch) {
                Ok(true) => {
                    tracing::debug!(?device, "opencl: timestamps from marker events");
                    return Stamps::Markers;
                }
                Ok(false) => tracing::debug!(
                    ?device,
                    "opencl: marker events carry no usable time; timing with 4-byte copies"
                ),
                Err(e) => tracing::debug!(
                    ?device,
                    "opencl: marker events carry no time ({e}); timing with 4-byte copies"
                ),
            }
        }
        match copy_time(queue, &scratch) {
            Ok(time) if time > 0 => {
                tracing::debug!(?device, "opencl: timestamps from 4-byte copies");
                Stamps::Copies(scratch)
            }
            outcome => {
                tracing::debug!(
                    ?device,
                    "opencl: profiling events carry no time ({outcome:?}); host clock"
                );
                Stamps::None
            }
        }
    }

    /// Whether marks are recorded at all.
    pub(crate) fn available(&self) -> bool {
        !matches!(self, Stamps::None)
    }

    /// Record a mark in queue order (`None` without a device clock).
    pub(crate) fn mark(&self, queue: &Queue) -> Result<Option<Mark>> {
        match self {
            Stamps::Markers => Ok(Some(Mark(sys::marker(queue).map_err(Failure::error)?))),
            Stamps::Copies(scratch) => stamp_copy(queue, scratch)
                .map(|event| Some(Mark(event)))
                .map_err(Failure::error),
            Stamps::None => Ok(None),
        }
    }
}

/// A 4-byte copy from the first word of `scratch` to its third, with an
/// event.
fn stamp_copy(queue: &Queue, scratch: &Mem) -> std::result::Result<Event, Failure> {
    sys::copy(queue, scratch, 0, scratch, 8, 4, true)?.ok_or(Failure {
        call: "clEnqueueCopyBuffer",
        code: 0,
    })
}

/// The end time of one stamp copy on an otherwise drained queue.
fn copy_time(queue: &Queue, scratch: &Mem) -> std::result::Result<u64, Failure> {
    let event = stamp_copy(queue, scratch)?;
    sys::finish(queue)?;
    sys::end_time(&event)
}

/// Whether a marker after a command reports a nonzero end time no earlier
/// than the command's.
fn markers_work(queue: &Queue, scratch: &Mem) -> std::result::Result<bool, Failure> {
    let work = stamp_copy(queue, scratch)?;
    let marker = sys::marker(queue)?;
    sys::finish(queue)?;
    let (work_end, marker_end) = (sys::end_time(&work)?, sys::end_time(&marker)?);
    Ok(marker_end > 0 && marker_end >= work_end)
}

/// Device time from `begin` to `end`: waits for both, then the difference
/// of their end times.
pub(crate) fn elapsed(queue: &Queue, begin: &Mark, end: &Mark) -> Result<Duration> {
    sys::flush(queue).map_err(Failure::error)?;
    sys::wait(&[&begin.0, &end.0]).map_err(Failure::error)?;
    let from = sys::end_time(&begin.0).map_err(Failure::error)?;
    let to = sys::end_time(&end.0).map_err(Failure::error)?;
    Ok(Duration::from_nanos(to.saturating_sub(from)))
}
