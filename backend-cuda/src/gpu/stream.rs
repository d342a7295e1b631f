//! A device's in-order queue: a non-blocking stream, so the legacy default
//! stream (which other code in the process may use) never orders it.

use super::context::Context;
use crate::errors;
use crate::sys::driver::{self, CUstream};
use rosetta_core::Result;
use std::sync::Arc;

/// A stream of one context. Copies, memsets, launches, frees and marks
/// enqueued on it run in the order they were enqueued.
pub(crate) struct Stream {
    context: Arc<Context>,
    raw: CUstream,
}

// SAFETY: a CUstream is a driver handle usable from any thread whose current
// context is the stream's (every method binds it first); the driver API is
// thread safe, and the handle is destroyed once, in Drop.
unsafe impl Send for Stream {}
// SAFETY: as for Send; enqueueing on and synchronising one stream from
// several threads is allowed by the driver (each call is atomic).
unsafe impl Sync for Stream {}

impl Stream {
    /// A new non-blocking stream in `context`.
    pub(crate) fn new(context: &Arc<Context>) -> Result<Arc<Stream>> {
        context.bind()?;
        let raw = driver::stream_create_non_blocking().map_err(errors::driver)?;
        Ok(Arc::new(Stream {
            context: Arc::clone(context),
            raw,
        }))
    }

    /// The stream's context.
    pub(crate) fn context(&self) -> &Arc<Context> {
        &self.context
    }

    /// Make the stream's context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.context.bind()
    }

    /// The handle, for calls of the `gpu` layer; live while `self` is.
    pub(super) fn raw(&self) -> CUstream {
        self.raw
    }

    /// Wait until everything enqueued has completed.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.bind()?;
        // SAFETY: `raw` is live while `self` is, and its context is current.
        unsafe { driver::stream_synchronize(self.raw) }.map_err(errors::driver)
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let Err(e) = self.bind() {
            tracing::warn!("cuda: cannot destroy a stream: {}", e.chain());
            return;
        }
        // Let queued work (frees included) complete before the context may
        // go too.
        // SAFETY: `raw` is live while `self` is, and its context is current.
        if let Err(e) = unsafe { driver::stream_synchronize(self.raw) } {
            tracing::warn!("cuda: {}: {e}", e.call());
        }
        // SAFETY: `raw` is live and its context current; nothing uses the
        // stream after its last owner drops (memory and kernels that enqueue
        // on it hold an Arc of it).
        if let Err(e) = unsafe { driver::stream_destroy(self.raw) } {
            tracing::warn!("cuda: {}: {e}", e.call());
        }
    }
}
