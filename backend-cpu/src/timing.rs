//! Timing: launches on the CPU are synchronous, so the host clock around them
//! is the device time.

use rosetta_core::{Clock, Error, Result};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Default)]
pub struct Timer {
    started: Mutex<Option<Instant>>,
}

impl Timer {
    pub fn begin(&self) {
        *self.started.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
    }

    pub fn end(&self) -> Result<(Duration, Clock)> {
        let started = self
            .started
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let started = started
            .ok_or_else(|| Error::InvalidArgument("end_timer without begin_timer".into()))?;
        Ok((started.elapsed(), Clock::Host))
    }
}
