//! Timing marks: CUDA events with timing enabled, recorded on a stream.

use super::context::Context;
use super::stream::Stream;
use crate::errors;
use crate::sys::driver::{self, CUevent};
use rosetta_core::{Error, Result};
use std::sync::Arc;
use std::time::Duration;

/// One recorded point of a stream. May be dropped at any time, in any order,
/// also after the device: it keeps its context alive.
pub(crate) struct Event {
    context: Arc<Context>,
    raw: CUevent,
}

// SAFETY: a CUevent is a driver handle usable from any thread whose current
// context is its own (every method binds it first); the driver API is thread
// safe, and the event is destroyed once, in Drop.
unsafe impl Send for Event {}
// SAFETY: as for Send; `&Event` only synchronises on the event and reads
// elapsed times, which the driver allows from several threads at once.
unsafe impl Sync for Event {}

impl Event {
    /// A new event, recorded at the current end of `stream`.
    pub(crate) fn record(stream: &Stream) -> Result<Event> {
        stream.bind()?;
        let raw = driver::event_create_timed().map_err(errors::driver)?;
        // Owned from here: an error below destroys it in Drop.
        let event = Event {
            context: Arc::clone(stream.context()),
            raw,
        };
        // SAFETY: the event was just created in the stream's context, which
        // is current; the stream is live (borrowed).
        unsafe { driver::event_record(event.raw, stream.raw()) }.map_err(errors::driver)?;
        Ok(event)
    }

    /// Device time from `begin` to this event (both of one context, `begin`
    /// recorded first), once this event has been reached.
    pub(crate) fn elapsed_since(&self, begin: &Event) -> Result<Duration> {
        if !self.context.same(&begin.context) {
            return Err(Error::Internal("cuda: timing marks of two contexts".into()));
        }
        self.context.bind()?;
        // SAFETY: the event is live and recorded (`record` made it), and its
        // context is current.
        unsafe { driver::event_synchronize(self.raw) }.map_err(errors::driver)?;
        // SAFETY: both events are live, recorded, and of the current context
        // (checked above).
        let ms =
            unsafe { driver::event_elapsed_ms(begin.raw, self.raw) }.map_err(errors::driver)?;
        duration_of_ms(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if let Err(e) = self.context.bind() {
            tracing::warn!("cuda: event leaked: {}", e.chain());
            return;
        }
        // SAFETY: the event is live, of the current context, and destroyed
        // once, here; the driver allows destroying an event the stream has
        // not reached yet (its resources go when it is reached).
        if let Err(e) = unsafe { driver::event_destroy(self.raw) } {
            tracing::warn!("cuda: {}: {e}", e.call());
        }
    }
}

/// `cuEventElapsedTime`'s milliseconds as a duration (negative as zero).
fn duration_of_ms(ms: f32) -> Result<Duration> {
    if !ms.is_finite() {
        return Err(Error::Internal(format!("cuda: elapsed time of {ms} ms")));
    }
    Duration::try_from_secs_f64(f64::from(ms.max(0.0)) / 1e3)
        .map_err(|e| Error::Internal(format!("cuda: elapsed time of {ms} ms: {e}")))
}

#[cfg(test)]
mod tests {
    use super::duration_of_ms;
    use std::time::Duration;

    #[test]
    fn milliseconds_become_durations() {
        assert_eq!(duration_of_ms(1.5).unwrap(), Duration::from_micros(1500));
        assert_eq!(duration_of_ms(-0.001).unwrap(), Duration::ZERO);
        assert!(duration_of_ms(f32::NAN).is_err());
        assert!(duration_of_ms(f32::INFINITY).is_err());
        assert!(
            duration_of_ms(f32::MAX).is_err(),
            "overflow is an error, not a panic"
        );
        assert!(duration_of_ms(1e9).is_ok());
    }
}
