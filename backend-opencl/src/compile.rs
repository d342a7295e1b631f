//! Compile + cache: each `KernelSpec` is built once per device from its
//! OpenCL C source with `-D NAME=valueu` defines and the device's `-cl-std=`;
//! the cache key is the spec's name and constants (the cache belongs to one
//! device). A failing build returns [`Error::Compile`] with the build log.

use crate::cl::{self, Owned};
use crate::errors::API;
use ocl::core::{Context, DeviceId, Kernel};
use rosetta_core::{Error, KernelDef, KernelId, KernelSpec, Result};
use std::collections::HashMap;
use std::ffi::CString;
use std::sync::{Arc, Mutex};

const CL_BUILD_PROGRAM_FAILURE: i32 = -11;
const CL_INVALID_BUILD_OPTIONS: i32 = -43;
const CL_KERNEL_WORK_GROUP_SIZE: u32 = 0x11B0;
const CL_KERNEL_LOCAL_MEM_SIZE: u32 = 0x11B2;

/// A built kernel and what launches check against.
pub struct Compiled {
    pub def: &'static KernelDef,
    /// Arguments are set and the NDRange enqueued under this lock.
    pub kernel: Mutex<Owned<Kernel>>,
    /// The `GROUP_SIZE` constant (the kernels declare
    /// `reqd_work_group_size(GROUP_SIZE, 1, 1)`).
    pub group_size: u32,
    /// `CL_KERNEL_WORK_GROUP_SIZE`: the most invocations this kernel can run
    /// per group on this device (registers may make it less than the device's).
    pub max_group_size: u64,
    /// `CL_KERNEL_LOCAL_MEM_SIZE` before any `__local` argument is set: the
    /// kernel's own `__local` arrays.
    pub static_local_bytes: u64,
}

/// What a build needs to know about its device.
pub struct BuildTarget<'a> {
    pub context: &'a Context,
    pub device: &'a DeviceId,
    pub cl_std: Option<&'static str>,
}

#[derive(Default)]
pub struct Cache {
    inner: Mutex<CacheInner>,
}

#[derive(Default)]
struct CacheInner {
    by_key: HashMap<String, KernelId>,
    kernels: Vec<Arc<Compiled>>,
}

impl Cache {
    pub fn compile(&self, target: &BuildTarget<'_>, spec: &KernelSpec) -> Result<KernelId> {
        let key = spec.cache_key();
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&id) = inner.by_key.get(&key) {
            return Ok(id);
        }
        let compiled = build(target, spec, &key)?;
        let id = KernelId(inner.kernels.len() as u64);
        inner.kernels.push(Arc::new(compiled));
        inner.by_key.insert(key, id);
        Ok(id)
    }

    pub fn get(&self, id: KernelId) -> Result<Arc<Compiled>> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        usize::try_from(id.0)
            .ok()
            .and_then(|i| inner.kernels.get(i))
            .cloned()
            .ok_or_else(|| Error::InvalidArgument(format!("unknown opencl kernel {}", id.0)))
    }
}

/// The build options: the spec's defines, then `-cl-std=`.
pub fn options(spec: &KernelSpec, cl_std: Option<&str>) -> String {
    let mut options = spec.defines();
    if let Some(std) = cl_std {
        options.push(format!("-cl-std={std}"));
    }
    options.join(" ")
}

fn build(target: &BuildTarget<'_>, spec: &KernelSpec, key: &str) -> Result<Compiled> {
    let def = spec.kernel;
    let compile_error = |log: String| Error::Compile {
        api: API,
        kernel: key.to_string(),
        log,
    };
    let source = def.source(API).ok_or_else(|| {
        Error::Unsupported(format!("kernel '{}' has no OpenCL C source", def.name))
    })?;
    let options = options(spec, target.cl_std);
    tracing::debug!(kernel = %key, %options, "opencl: building program");
    let started = std::time::Instant::now();

    let program = cl::create_program(target.context, source)?;
    let c_options = CString::new(options.clone())
        .map_err(|_| Error::InvalidArgument(format!("build options of '{key}' contain NUL")))?;
    let status = cl::build_program(&program, target.device, &c_options);
    let log = cl::build_log(&program, target.device);
    match status {
        0 => {}
        CL_BUILD_PROGRAM_FAILURE | CL_INVALID_BUILD_OPTIONS => {
            let log = if log.is_empty() {
                format!(
                    "{} (no build log; options: {options})",
                    crate::errors::status_name(status)
                )
            } else {
                log
            };
            return Err(compile_error(log));
        }
        code => return Err(crate::errors::status("clBuildProgram", code)),
    }
    if !log.is_empty() {
        tracing::debug!(kernel = %key, "opencl: build log:\n{log}");
    }

    let name = CString::new(def.name)
        .map_err(|_| Error::InvalidArgument(format!("kernel name '{}' contains NUL", def.name)))?;
    let kernel = cl::create_kernel(&program, &name).map_err(|f| {
        compile_error(format!(
            "the program has no kernel '{}' ({})",
            def.name,
            crate::errors::status_name(f.code)
        ))
    })?;
    let max_group_size =
        cl::kernel_work_group_info(&kernel, target.device, CL_KERNEL_WORK_GROUP_SIZE)?;
    let static_local_bytes =
        cl::kernel_work_group_info(&kernel, target.device, CL_KERNEL_LOCAL_MEM_SIZE)?;
    tracing::debug!(
        kernel = %key,
        max_group_size,
        static_local_bytes,
        "opencl: built in {:.1?}",
        started.elapsed()
    );
    Ok(Compiled {
        def,
        kernel: Mutex::new(kernel),
        group_size: spec.value("GROUP_SIZE").unwrap_or(0),
        max_group_size,
        static_local_bytes,
    })
}
