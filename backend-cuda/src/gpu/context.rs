//! A device's primary context, retained for as long as anything made in it
//! lives.

use crate::errors;
use crate::sys::driver::{self, CUcontext, CUdevice};
use rosetta_core::Result;
use std::sync::Arc;

/// One reference to a device's primary context. Everything made in the
/// context (streams, memory, modules, events) holds an `Arc` of it, so the
/// context outlives them all.
pub(crate) struct Context {
    device: CUdevice,
    raw: CUcontext,
}

// SAFETY: a CUcontext is a driver handle, not bound to a thread: the driver
// API is thread safe and a context may be made current on any thread. This
// type only passes the handle to cuCtxSetCurrent and releases it once.
unsafe impl Send for Context {}
// SAFETY: as for Send; `&Context` allows nothing but cuCtxSetCurrent, which
// any number of threads may call at once.
unsafe impl Sync for Context {}

impl Context {
    /// Retain `device`'s primary context.
    pub(crate) fn retain(device: CUdevice) -> Result<Arc<Context>> {
        let raw = driver::primary_ctx_retain(device).map_err(errors::driver)?;
        Ok(Arc::new(Context { device, raw }))
    }

    /// Make the context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        // SAFETY: `raw` is live: retained in `retain`, released only when
        // this value drops.
        unsafe { driver::ctx_set_current(self.raw) }.map_err(errors::driver)
    }

    /// Whether `other` is the same CUDA context.
    pub(crate) fn same(&self, other: &Context) -> bool {
        self.raw == other.raw
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: balances the retain in `retain`, once. Every object made in
        // the context through this crate holds an Arc of this value, so none
        // is used after this runs.
        if let Err(e) = unsafe { driver::primary_ctx_release(self.device) } {
            tracing::warn!("cuda: {}: {e}", e.call());
        }
    }
}
