//! Compile + cache: CUDA C through NVRTC for the device's own architecture,
//! with the spec's constants as `-D NAME=valueu` defines; the cubin (or PTX)
//! is loaded as a module and its `extern "C"` entry point looked up.
//!
//! Two caches: compiled images per (cache key, target) for the whole process
//! (identical GPUs compile once), and loaded kernels per device, keyed by
//! [`KernelSpec::cache_key`].

use crate::errors;
use crate::nvrtc::{Image, Nvrtc, Target};
use cudarc::driver::result;
use cudarc::driver::sys::{CUfunction, CUfunction_attribute, CUmodule};
use rosetta_core::{Api, Error, KernelDef, KernelId, KernelSpec, Result};
use std::collections::HashMap;
use std::ffi::CString;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Extra NVRTC options, whitespace-separated (e.g. `--ptxas-options=-v` to
/// get ptxas' register and spill report in the debug log).
pub const OPTIONS_ENV: &str = "ROSETTA_NVRTC_OPTIONS";

/// A kernel loaded on one device.
pub struct Kernel {
    pub def: &'static KernelDef,
    pub key: String,
    pub function: CUfunction,
    module: CUmodule,
    /// `GROUP_SIZE`: every launch must use it.
    pub group_size: u32,
    /// The kernel's current limit on dynamic shared memory; raised with
    /// cuFuncSetAttribute when a launch needs more (past 48 KB).
    pub dynamic_limit: AtomicU32,
}

// SAFETY: CUfunction and CUmodule are driver handles, not thread-bound: they
// are valid on any thread that binds their context, which every use does.
unsafe impl Send for Kernel {}
// SAFETY: as above; the only mutable state is an atomic.
unsafe impl Sync for Kernel {}

/// The options of one compile: C++17, functions default to `__device__`,
/// line info for compute-sanitizer and profilers, the constants as defines,
/// then `$ROSETTA_NVRTC_OPTIONS`.
pub fn options(spec: &KernelSpec) -> Vec<String> {
    let mut options: Vec<String> = vec![
        "--std=c++17".into(),
        "-default-device".into(),
        "-lineinfo".into(),
    ];
    options.extend(spec.defines());
    if let Ok(extra) = std::env::var(OPTIONS_ENV) {
        options.extend(extra.split_whitespace().map(str::to_string));
    }
    options
}

/// Compile `spec` for `target` (cached for the process).
pub fn image(nvrtc: &Nvrtc, spec: &KernelSpec, target: Target) -> Result<Arc<Image>> {
    type Images = Mutex<HashMap<(String, Target), Arc<Image>>>;
    static IMAGES: OnceLock<Images> = OnceLock::new();
    let images = IMAGES.get_or_init(Default::default);
    let key = (spec.cache_key(), target);
    if let Some(image) = images.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(Arc::clone(image));
    }
    let source = spec.kernel.source(Api::Cuda).unwrap_or_default();
    let options = options(spec);
    let started = std::time::Instant::now();
    let image = nvrtc
        .compile(source, spec.kernel.name, target, &options)
        .map_err(|failure| {
            tracing::warn!(kernel = %key.0, "cuda: NVRTC failed:\n{}", failure.log);
            Error::Compile {
                api: Api::Cuda,
                kernel: key.0.clone(),
                log: failure.log,
            }
        })?;
    tracing::debug!(
        kernel = %key.0,
        arch = %target.arch(),
        ms = started.elapsed().as_secs_f64() * 1e3,
        log = %image.log.trim(),
        "cuda: compiled"
    );
    let image = Arc::new(image);
    images
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, Arc::clone(&image));
    Ok(image)
}

#[derive(Default)]
pub struct Cache {
    inner: Mutex<CacheInner>,
}

#[derive(Default)]
struct CacheInner {
    by_key: HashMap<String, KernelId>,
    kernels: Vec<Arc<Kernel>>,
}

impl Cache {
    /// Build (or find) the kernel for `spec`. The caller has bound the
    /// device's context.
    pub fn compile(&self, nvrtc: &Nvrtc, target: Target, spec: &KernelSpec) -> Result<KernelId> {
        let key = spec.cache_key();
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&id) = inner.by_key.get(&key) {
            return Ok(id);
        }
        let group_size = spec.value("GROUP_SIZE").ok_or_else(|| {
            Error::InvalidArgument(format!("kernel '{}' has no GROUP_SIZE", spec.kernel.name))
        })?;
        let image = image(nvrtc, spec, target)?;
        let kernel = load(spec.kernel, key.clone(), &image, group_size)?;
        let id = KernelId(inner.kernels.len() as u64);
        inner.kernels.push(Arc::new(kernel));
        inner.by_key.insert(key, id);
        Ok(id)
    }

    pub fn get(&self, id: KernelId) -> Result<Arc<Kernel>> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner
            .kernels
            .get(id.0 as usize)
            .cloned()
            .ok_or_else(|| Error::InvalidArgument(format!("unknown cuda kernel {}", id.0)))
    }

    /// Unload every module (the device's teardown; the caller has bound the
    /// context and synchronised).
    pub fn unload_all(&self) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.by_key.clear();
        for kernel in inner.kernels.drain(..) {
            // SAFETY: the module was loaded by `load` and is unloaded once
            // (drained); no work using it is pending.
            if let Err(e) = unsafe { result::module::unload(kernel.module) } {
                tracing::warn!(kernel = %kernel.key, error = %errors::describe(e), "cuda: cuModuleUnload failed");
            }
        }
    }
}

/// Load an image as a module and find the kernel's entry point.
fn load(def: &'static KernelDef, key: String, image: &Image, group_size: u32) -> Result<Kernel> {
    let compile_error = |what: &str, e| Error::Compile {
        api: Api::Cuda,
        kernel: key.clone(),
        log: format!("{what}: {}\n{}", errors::describe(e), image.log),
    };
    // SAFETY: `image.bytes` is a complete cubin, or PTX text with its NUL
    // terminator, as NVRTC produced it; the driver copies what it needs.
    let module = unsafe { result::module::load_data(image.bytes.as_ptr().cast()) }
        .map_err(|e| compile_error("cuModuleLoadData", e))?;
    let name = CString::new(def.name)
        .map_err(|_| Error::InvalidArgument(format!("bad kernel name '{}'", def.name)))?;
    // SAFETY: `module` was just loaded and is live.
    let function = match unsafe { result::module::get_function(module, name) } {
        Ok(function) => function,
        Err(e) => {
            // SAFETY: the module is unloaded once, here, unused.
            let _ = unsafe { result::module::unload(module) };
            return Err(compile_error("cuModuleGetFunction", e));
        }
    };
    // SAFETY: `function` belongs to the live module; the call writes one int.
    let limit = unsafe {
        result::function::get_function_attribute(
            function,
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        )
    }
    .map_err(|e| errors::driver("cuFuncGetAttribute", e))?;
    Ok(Kernel {
        def,
        key,
        function,
        module,
        group_size,
        dynamic_limit: AtomicU32::new(u32::try_from(limit).unwrap_or(0)),
    })
}

impl Kernel {
    /// Make sure the kernel may use `bytes` of dynamic shared memory. The
    /// caller has bound the context.
    pub fn reserve_dynamic_shared(&self, bytes: u32) -> Result<()> {
        if bytes <= self.dynamic_limit.load(Ordering::Relaxed) {
            return Ok(());
        }
        tracing::debug!(kernel = %self.key, bytes, "cuda: raising the dynamic shared memory limit");
        // SAFETY: `function` is live; the attribute takes a byte count, which
        // the launch was validated against the device's opt-in maximum.
        unsafe {
            result::function::set_function_attribute(
                self.function,
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        }
        .map_err(|e| errors::driver("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", e))?;
        self.dynamic_limit.fetch_max(bytes, Ordering::Relaxed);
        Ok(())
    }
}
