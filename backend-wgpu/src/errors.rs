//! wgpu's errors as rosetta's.
//!
//! wgpu reports device errors three ways, and each one ends up typed:
//! - **Error scopes** around a piece of device work ([`scoped`]): what they
//!   catch is mapped by [`Health::to_error`] — an out-of-memory scope's error
//!   is [`Error::OutOfMemory`], a validation or internal error
//!   [`Error::Device`] naming the wgpu call, keeping wgpu's error as the
//!   source.
//! - **Uncaptured errors** (outside every scope) go to a handler that logs
//!   them and keeps them for `diagnostics` instead of panicking (wgpu's
//!   default).
//! - **Device loss** is recorded by the device-lost callback; from then on
//!   every call returns [`Error::DeviceLost`] ([`Health::check`]). A batch
//!   that wgpu refuses at submission counts as a loss too
//!   ([`Health::batch_refused`]): the ops recorded in it returned `Ok` but
//!   never ran.

use rosetta_core::{Api, Error, Result};
use std::sync::{Arc, Mutex, MutexGuard};

/// Errors and loss reports that arrive outside any scope, shared with the
/// callbacks wgpu holds.
#[derive(Default)]
pub(crate) struct Health {
    /// Set once by the device-lost callback: the reason and wgpu's message.
    lost: Mutex<Option<String>>,
    /// Uncaptured errors since the last `take_uncaptured`.
    uncaptured: Mutex<Vec<String>>,
}

impl Health {
    /// Install the uncaptured-error handler and the device-lost callback.
    pub(crate) fn watch(device: &wgpu::Device, name: &str) -> Arc<Health> {
        let health = Arc::new(Health::default());
        let sink = Arc::clone(&health);
        let device_name = name.to_string();
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            let text = describe(&error);
            tracing::error!(device = %device_name, "wgpu: uncaptured error: {text}");
            lock(&sink.uncaptured).push(text);
        }));
        let sink = Arc::clone(&health);
        let device_name = name.to_string();
        device.set_device_lost_callback(move |reason, message| {
            // Dropping the device reports `Destroyed`; that is not a loss.
            if reason == wgpu::DeviceLostReason::Destroyed {
                tracing::debug!(device = %device_name, "wgpu: device destroyed");
                return;
            }
            tracing::error!(device = %device_name, ?reason, "wgpu: device lost: {message}");
            lock(&sink.lost).get_or_insert(format!("{reason:?}: {message}"));
        });
        health
    }

    /// `Err(DeviceLost)` once the device is gone.
    pub(crate) fn check(&self) -> Result<()> {
        match lock(&self.lost).as_ref() {
            Some(message) => Err(Error::lost(Api::Wgpu, message.clone())),
            None => Ok(()),
        }
    }

    /// wgpu refused a submitted batch (`error`) and dropped it, so ops that
    /// returned `Ok` when they were recorded never ran: from now on every
    /// call fails as if the device were lost, rather than reading their
    /// outputs as results. (The launch checks keep invalid work out of
    /// batches; this is the backstop.)
    pub(crate) fn batch_refused(&self, error: &Error) {
        let why = rosetta_core::error_chain(error);
        tracing::error!("wgpu: a submitted batch was refused: {why}");
        lock(&self.lost).get_or_insert(format!(
            "a batch of recorded work was refused at submission and dropped ({why}); the ops \
             recorded in it did not run, so this device takes no more work"
        ));
    }

    /// The uncaptured errors since the last call (drained).
    pub(crate) fn take_uncaptured(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.uncaptured))
    }

    /// A caught wgpu error of the call `call` as a typed error:
    /// `DeviceLost` if the device is gone, `OutOfMemory` for wgpu's
    /// out-of-memory errors, else `Device` keeping wgpu's error as source.
    pub(crate) fn to_error(&self, call: &str, error: wgpu::Error) -> Error {
        if let Err(lost) = self.check() {
            return lost;
        }
        tracing::debug!("wgpu: {call} failed: {}", describe(&error));
        match error {
            wgpu::Error::OutOfMemory { .. } => {
                Error::out_of_memory(Api::Wgpu, call, Some(Box::new(error)))
            }
            wgpu::Error::Validation { .. } | wgpu::Error::Internal { .. } => {
                Error::device(Api::Wgpu, call, error)
            }
        }
    }
}

/// Run `f` inside out-of-memory, validation and internal error scopes and
/// return its value with the first error they caught (out of memory first:
/// a failed allocation often causes validation errors after it).
///
/// Scopes are per thread in wgpu; both the push and the pop happen here, on
/// the calling thread.
pub(crate) fn scoped<T>(device: &wgpu::Device, f: impl FnOnce() -> T) -> (T, Option<wgpu::Error>) {
    let out_of_memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let value = f();
    // Popped in reverse order of pushing.
    let internal = pollster::block_on(internal.pop());
    let validation = pollster::block_on(validation.pop());
    let out_of_memory = pollster::block_on(out_of_memory.pop());
    (value, out_of_memory.or(validation).or(internal))
}

/// The error's description followed by each source in its chain that adds
/// something (wgpu's descriptions often contain the chain already): the
/// log of compile errors, and the text of diagnostics.
pub(crate) fn describe(error: &wgpu::Error) -> String {
    let kind = match error {
        wgpu::Error::OutOfMemory { .. } => "out of memory",
        wgpu::Error::Validation { .. } => "validation error",
        wgpu::Error::Internal { .. } => "internal error",
    };
    let mut text = format!("{kind}: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            text.push_str("\n  caused by: ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}

/// Lock a mutex of the callbacks' shared state, recovering it if a panicking
/// thread poisoned it (a message list and an optional message are always
/// consistent).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
