//! Device errors never abort the process: every piece of device work runs
//! inside error scopes, and what they catch becomes a typed error. Errors no
//! scope catches go to the uncaptured-error handler, which logs them and keeps
//! them for `take_diagnostics` instead of panicking (wgpu's default).

use rosetta_core::{Api, Error};
use std::sync::{Arc, Mutex};

/// Errors and loss reports that arrive outside any scope, shared with the
/// callbacks wgpu holds.
#[derive(Default)]
pub struct Health {
    /// Set once by the device-lost callback.
    lost: Mutex<Option<String>>,
    /// Uncaptured errors since the last `take_diagnostics`.
    uncaptured: Mutex<Vec<String>>,
}

impl Health {
    /// Install the uncaptured-error handler and the device-lost callback.
    pub fn watch(device: &wgpu::Device, name: &str) -> Arc<Health> {
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
    pub fn check(&self) -> Result<(), Error> {
        match lock(&self.lost).as_ref() {
            Some(message) => Err(Error::DeviceLost {
                api: Api::Wgpu,
                message: message.clone(),
            }),
            None => Ok(()),
        }
    }

    pub fn take_uncaptured(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.uncaptured))
    }
}

/// Run `f` inside out-of-memory, validation and internal error scopes and
/// return its value with the first error they caught.
///
/// Scopes are per thread in wgpu, and both the push and the pop happen here,
/// on the calling thread.
pub fn scoped<T>(device: &wgpu::Device, f: impl FnOnce() -> T) -> (T, Option<wgpu::Error>) {
    let out_of_memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let value = f();
    // Popped in reverse order of pushing.
    let internal = pollster::block_on(internal.pop());
    let validation = pollster::block_on(validation.pop());
    let out_of_memory = pollster::block_on(out_of_memory.pop());
    (value, validation.or(out_of_memory).or(internal))
}

/// `scoped`, turning a caught error into a typed one (`what` says which
/// operation failed).
pub fn checked<T>(
    device: &wgpu::Device,
    health: &Health,
    what: &str,
    f: impl FnOnce() -> T,
) -> Result<T, Error> {
    let (value, error) = scoped(device, f);
    match error {
        None => Ok(value),
        Some(error) => Err(to_error(health, what, &error)),
    }
}

/// A caught wgpu error as a typed error: `DeviceLost` if the device is gone,
/// else `Backend` with the full message.
pub fn to_error(health: &Health, what: &str, error: &wgpu::Error) -> Error {
    health.check().err().unwrap_or_else(|| {
        let message = format!("{what}: {}", describe(error));
        tracing::warn!("wgpu: {message}");
        Error::backend(Api::Wgpu, message)
    })
}

/// The error's description followed by each source in its chain that adds
/// something (wgpu's descriptions often already contain the chain).
pub fn describe(error: &wgpu::Error) -> String {
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

/// Lock a mutex, recovering the data if a panicking thread poisoned it (the
/// data here is always left consistent).
pub fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
