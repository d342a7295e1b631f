//! Timing: two CUDA events recorded on the device's stream; the elapsed time
//! between them is device time (`Clock::Device`).

use crate::errors;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaEvent, CudaStream};
use rosetta_core::Result;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct Timer {
    start: CudaEvent,
    end: CudaEvent,
    started: Mutex<bool>,
}

impl Timer {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self> {
        // CU_EVENT_DEFAULT: timing enabled (cudarc's default disables it).
        let event = || {
            ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| errors::driver("cuEventCreate", e))
        };
        Ok(Timer {
            start: event()?,
            end: event()?,
            started: Mutex::new(false),
        })
    }

    /// Record the start mark on the stream.
    pub fn begin(&self, stream: &CudaStream) -> Result<()> {
        let mut started = self.started.lock().unwrap_or_else(|p| p.into_inner());
        self.start
            .record(stream)
            .map_err(|e| errors::driver("cuEventRecord", e))?;
        *started = true;
        Ok(())
    }

    /// Record the end mark; `wait` synchronises the stream (so the end mark
    /// has completed); then read the time between the marks.
    pub fn end(&self, stream: &CudaStream, wait: impl FnOnce() -> Result<()>) -> Result<Duration> {
        let mut started = self.started.lock().unwrap_or_else(|p| p.into_inner());
        if !*started {
            return Err(errors::backend("end_timer without begin_timer"));
        }
        *started = false;
        self.end
            .record(stream)
            .map_err(|e| errors::driver("cuEventRecord", e))?;
        wait()?;
        let ms = self
            .start
            .elapsed_ms(&self.end)
            .map_err(|e| errors::driver("cuEventElapsedTime", e))?;
        Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
    }
}
