//! Building one kernel for one device: from the persistent cache when an
//! intact entry loads, else with NVRTC (then stored).
//!
//! The image is a cubin for the device's own `sm_XX` where the loaded NVRTC
//! supports it, else PTX (see `crate::target`); either is loaded with
//! `cuModuleLoadData` and its `extern "C"` entry point looked up. A cached
//! entry the driver refuses is rebuilt and overwritten, never trusted.

use crate::disk::{self, KeyInputs};
use crate::errors;
use crate::gpu::{Function, LoadError, Stream};
use crate::image::Image;
use crate::kernel::CudaKernel;
use crate::nvrtc::Nvrtc;
use crate::options;
use crate::target::Target;
use rosetta_core::disk_cache::DiskCache;
use rosetta_core::{Error, Fingerprint, KernelSpec, Language, Result, Source};
use std::ffi::{CStr, CString};
use std::sync::Arc;
use std::time::Instant;

/// What a device's images depend on besides the kernel.
#[derive(Debug, Clone)]
pub(crate) struct DeviceKey {
    /// The device's name.
    pub(crate) name: String,
    /// `cuDriverGetVersion`.
    pub(crate) driver_version: i32,
    /// The compute capability (major, minor).
    pub(crate) compute: (i32, i32),
}

/// Compiles kernels for one device.
pub(crate) struct Compiler {
    nvrtc: &'static Nvrtc,
    target: Target,
    device: DeviceKey,
    /// `$ROSETTA_NVRTC_OPTIONS`, read when the device opened.
    extra: Vec<String>,
    disk: DiskCache,
}

impl Compiler {
    /// A compiler for `target` on the device `device`, caching in `disk`
    /// (`InvalidArgument` where `$ROSETTA_NVRTC_OPTIONS` holds an option
    /// that would change what kernels compute).
    pub(crate) fn new(
        nvrtc: &'static Nvrtc,
        target: Target,
        device: DeviceKey,
        disk: DiskCache,
    ) -> Result<Self> {
        Ok(Compiler {
            nvrtc,
            target,
            device,
            extra: options::extra_from_env()?,
            disk,
        })
    }

    /// Build `spec` (whose CUDA C is `source`) for launches on `stream`.
    pub(crate) fn compile(
        &self,
        stream: &Arc<Stream>,
        spec: &KernelSpec,
        source: Source<'_>,
    ) -> Result<CudaKernel> {
        let Source::Text(text) = source else {
            return Err(Error::Internal(
                "the CUDA driver was handed a Rust kernel".into(),
            ));
        };
        let def = spec.def();
        let label = spec.label();
        let name = CString::new(def.name())
            .map_err(|_| Error::Internal(format!("kernel name '{}' holds a NUL", def.name())))?;
        let options = self.options(spec);
        let key = self.key(spec, &options);
        if let Some(function) = self.load_cached(stream, &key, &name, &label) {
            return CudaKernel::new(function, def, label);
        }
        let started = Instant::now();
        let image = self
            .nvrtc
            .compile(text, def.name(), self.target, &options)
            .map_err(|e| errors::compile(label.clone(), e))?;
        tracing::debug!(
            kernel = %label,
            arch = %self.target.arch(),
            ms = started.elapsed().as_secs_f64() * 1e3,
            log = %image.log().trim(),
            "cuda: compiled with NVRTC"
        );
        // SAFETY: NVRTC just wrote this image.
        let function = unsafe { Function::load(stream, &image, &name) }.map_err(|e| match e {
            LoadError::Bind(e) => e,
            LoadError::Driver(e) => errors::load(label.clone(), def.name(), image.log(), e),
        })?;
        self.disk.put(&key, image.bytes());
        CudaKernel::new(function, def, label)
    }

    /// NVRTC's options for `spec` on this device.
    pub(crate) fn options(&self, spec: &KernelSpec) -> Vec<String> {
        options::build(spec, self.target, &self.extra)
    }

    /// The persistent cache's key of `spec`'s image, built with `options`.
    pub(crate) fn key(&self, spec: &KernelSpec, options: &[String]) -> Fingerprint {
        disk::key(&KeyInputs {
            device: &self.device.name,
            driver_version: self.device.driver_version,
            nvrtc_version: self.nvrtc.version(),
            compute: self.device.compute,
            source: spec.def().fingerprint(Language::Cuda),
            constants: spec.values(),
            options,
        })
    }

    /// The kernel from the persistent cache, if an entry exists, has the
    /// shape of an image and the driver loads it; `None` means compile.
    fn load_cached(
        &self,
        stream: &Arc<Stream>,
        key: &Fingerprint,
        name: &CStr,
        label: &str,
    ) -> Option<Function> {
        if !self.disk.enabled() {
            return None;
        }
        let Some(payload) = self.disk.get(key) else {
            tracing::debug!(kernel = %label, key = %key.hex(), "cuda: kernel cache miss");
            return None;
        };
        let image = match Image::new(self.target, payload, String::new()) {
            Ok(image) => image,
            Err(why) => {
                tracing::warn!(kernel = %label, key = %key.hex(), "cuda: cached kernel is malformed ({why}); rebuilding");
                return None;
            }
        };
        // SAFETY: the payload was stored by `compile` from NVRTC's output
        // under this very key, came back whole (the cache checks key and
        // checksum) and has the shape of an image of this target.
        match unsafe { Function::load(stream, &image, name) } {
            Ok(function) => {
                tracing::debug!(kernel = %label, key = %key.hex(), "cuda: kernel cache hit");
                Some(function)
            }
            Err(LoadError::Driver(e)) => {
                tracing::warn!(kernel = %label, key = %key.hex(), "cuda: the driver refused a cached kernel ({}: {e}); rebuilding", e.call());
                None
            }
            Err(LoadError::Bind(e)) => {
                tracing::warn!(kernel = %label, "cuda: cached kernel not loaded: {}", e.chain());
                None
            }
        }
    }
}
