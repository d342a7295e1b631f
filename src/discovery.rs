//! Discovery of every device of every compiled-in API.

use crate::device::Device;
use crate::error::{Error, Result};
use crate::selector::Selector;
use rosetta_core::{Api, Backend};
use std::sync::Arc;

/// What one API has on this machine.
#[derive(Debug)]
pub enum ApiStatus {
    /// The API's cargo feature is off in this build.
    NotCompiled,
    /// Compiled in, but the runtime is missing or failed (the reason).
    Unavailable(String),
    /// Compiled in and working: its devices (possibly none), in a stable
    /// order (the `N` of `api:N`).
    Devices(Vec<Device>),
}

/// One API's entry in a [`Discovery`].
#[derive(Debug)]
pub struct ApiEntry {
    /// The API.
    pub api: Api,
    /// What it has here.
    pub status: ApiStatus,
}

/// The result of probing a set of APIs.
#[derive(Debug)]
pub struct Discovery {
    /// One entry per probed API, in [`Api::ALL`] order.
    pub apis: Vec<ApiEntry>,
}

/// Probe the given APIs (each once, in [`Api::ALL`] order).
pub fn discover(apis: &[Api]) -> Discovery {
    let apis = Api::ALL
        .into_iter()
        .filter(|api| apis.contains(api))
        .map(|api| {
            let status = match probe(api) {
                None => ApiStatus::NotCompiled,
                Some(Ok(backends)) => {
                    ApiStatus::Devices(backends.into_iter().map(Device::new).collect())
                }
                Some(Err(rosetta_core::Error::Unavailable { reason, .. })) => {
                    ApiStatus::Unavailable(reason)
                }
                Some(Err(other)) => ApiStatus::Unavailable(other.chain()),
            };
            match &status {
                ApiStatus::Devices(d) => tracing::info!(%api, devices = d.len(), "discovered"),
                ApiStatus::Unavailable(reason) => tracing::info!(%api, %reason, "unavailable"),
                ApiStatus::NotCompiled => tracing::debug!(%api, "not compiled in"),
            }
            ApiEntry { api, status }
        })
        .collect();
    Discovery { apis }
}

type Probe = rosetta_core::Result<Vec<Arc<dyn Backend>>>;

/// `None` when the API's feature is off.
fn probe(api: Api) -> Option<Probe> {
    match api {
        Api::Cpu => Some(rosetta_backend_cpu::discover()),
        Api::Wgpu => probe_wgpu(),
        Api::Vulkan => probe_vulkan(),
        Api::Opencl => probe_opencl(),
        Api::Cuda => probe_cuda(),
    }
}

#[cfg(feature = "wgpu")]
fn probe_wgpu() -> Option<Probe> {
    Some(rosetta_backend_wgpu::discover())
}
#[cfg(not(feature = "wgpu"))]
fn probe_wgpu() -> Option<Probe> {
    None
}

#[cfg(feature = "vulkan")]
fn probe_vulkan() -> Option<Probe> {
    Some(rosetta_backend_vulkan::discover())
}
#[cfg(not(feature = "vulkan"))]
fn probe_vulkan() -> Option<Probe> {
    None
}

#[cfg(feature = "opencl")]
fn probe_opencl() -> Option<Probe> {
    Some(rosetta_backend_opencl::discover())
}
#[cfg(not(feature = "opencl"))]
fn probe_opencl() -> Option<Probe> {
    None
}

#[cfg(feature = "cuda")]
fn probe_cuda() -> Option<Probe> {
    Some(rosetta_backend_cuda::discover())
}
#[cfg(not(feature = "cuda"))]
fn probe_cuda() -> Option<Probe> {
    None
}

impl Discovery {
    /// Every device found, in API order.
    pub fn devices(&self) -> impl Iterator<Item = &Device> {
        self.apis.iter().flat_map(|entry| match &entry.status {
            ApiStatus::Devices(devices) => devices.as_slice(),
            _ => &[],
        })
    }

    /// The entry of one API, if it was probed.
    pub fn entry(&self, api: Api) -> Option<&ApiEntry> {
        self.apis.iter().find(|e| e.api == api)
    }

    /// The devices named by selector strings (see [`Selector`]), each once,
    /// in the order given. A selector that names no device is an error.
    pub fn select<S: AsRef<str>>(&self, selectors: &[S]) -> Result<Vec<Device>> {
        let mut chosen: Vec<Device> = Vec::new();
        for text in selectors {
            let selector = Selector::parse(text.as_ref())?;
            for device in self.matching(&selector)? {
                if !chosen.iter().any(|d| d.info().id() == device.info().id()) {
                    chosen.push(device);
                }
            }
        }
        Ok(chosen)
    }

    fn matching(&self, selector: &Selector) -> Result<Vec<Device>> {
        let no_device = |hint: String| Error::NoDevice {
            selector: selector.to_string(),
            hint,
        };
        let Some(api) = selector.api() else {
            let all: Vec<Device> = self.devices().cloned().collect();
            return if all.is_empty() {
                Err(no_device(": no API found any device".into()))
            } else {
                Ok(all)
            };
        };
        let devices = match self.entry(api).map(|e| &e.status) {
            None => return Err(no_device(format!(": {api} was not probed"))),
            Some(ApiStatus::NotCompiled) => {
                return Err(no_device(format!(
                    ": this build has no {api} backend (rebuild with `--features {api}`)"
                )))
            }
            Some(ApiStatus::Unavailable(reason)) => {
                return Err(no_device(format!(": {api} is unavailable: {reason}")))
            }
            Some(ApiStatus::Devices(devices)) => devices,
        };
        let found: Vec<Device> = devices
            .iter()
            .filter(|d| selector.matches(d.info()))
            .cloned()
            .collect();
        if found.is_empty() {
            let names: Vec<String> = devices
                .iter()
                .map(|d| format!("{} {}", d.info().id(), d.info().name))
                .collect();
            return Err(no_device(if names.is_empty() {
                format!(": {api} found no devices")
            } else {
                format!(" (available: {})", names.join(", "))
            }));
        }
        Ok(found)
    }
}
