//! Timing with profiling events, and the lock that keeps one device's
//! commands in call order.
//!
//! Every command goes through [`Timer::enqueue`], which holds one lock while
//! it enqueues. Between `begin` and `end`, each command is enqueued with an
//! event; `end` waits for the queue and returns the span from the first
//! command's `CL_PROFILING_COMMAND_START` to the last one's
//! `CL_PROFILING_COMMAND_END` ([`Clock::Device`]). Devices whose queues cannot
//! profile fall back to the host clock around a drained queue.

use crate::cl::{self, ClResult, Owned};
use ocl::core::{CommandQueue, Event};
use rosetta_core::{Clock, Error, Result};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

const CL_PROFILING_COMMAND_START: u32 = 0x1282;
const CL_PROFILING_COMMAND_END: u32 = 0x1283;

pub struct Timer {
    profiling: bool,
    span: Mutex<Option<Span>>,
}

/// An open timed region.
struct Span {
    first: Option<Owned<Event>>,
    last: Option<Owned<Event>>,
    host_start: Instant,
}

impl Timer {
    pub fn new(profiling: bool) -> Self {
        Timer {
            profiling,
            span: Mutex::new(None),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Span>> {
        self.span.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Enqueue one command (`command(want_event)`), in call order, keeping
    /// its event when a timed region is open.
    pub fn enqueue(
        &self,
        command: impl FnOnce(bool) -> ClResult<Option<Owned<Event>>>,
    ) -> Result<()> {
        let mut span = self.lock();
        match span.as_mut() {
            Some(span) if self.profiling => {
                if let Some(event) = command(true)? {
                    if span.first.is_none() {
                        span.first = Some(event);
                    } else {
                        span.last = Some(event);
                    }
                }
            }
            _ => {
                command(false)?;
            }
        }
        Ok(())
    }

    /// Run `f` with the queue lock held (so nothing is enqueued meanwhile).
    pub fn exclusive<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let _span = self.lock();
        f()
    }

    pub fn begin(&self, queue: &CommandQueue) -> Result<()> {
        let mut span = self.lock();
        if !self.profiling {
            // The host clock can only bracket a drained queue.
            cl::finish(queue)?;
        }
        *span = Some(Span {
            first: None,
            last: None,
            host_start: Instant::now(),
        });
        Ok(())
    }

    pub fn end(&self, queue: &CommandQueue) -> Result<(Duration, Clock)> {
        let mut span = self.lock();
        let open = span
            .take()
            .ok_or_else(|| Error::backend(crate::errors::API, "end_timer without begin_timer"))?;
        cl::finish(queue)?;
        if !self.profiling {
            return Ok((open.host_start.elapsed(), Clock::Host));
        }
        let Some(first) = open.first.as_ref() else {
            // Nothing was enqueued in the region.
            return Ok((Duration::ZERO, Clock::Device));
        };
        let last = open.last.as_ref().unwrap_or(first);
        let start = cl::profiling(first, CL_PROFILING_COMMAND_START)?;
        let end = cl::profiling(last, CL_PROFILING_COMMAND_END)?;
        Ok((
            Duration::from_nanos(end.saturating_sub(start)),
            Clock::Device,
        ))
    }
}
