//! Compiling a kernel spec into a compute pipeline.
//!
//! - **Shader modules** are cached by their WGSL text (the kernel's source
//!   plus, for kernels with a `SUBGROUPS` constant, the prelude of
//!   `prelude.rs`), never by name: the text does not depend on the constants,
//!   so every spec of one kernel shares its module.
//! - **Layouts** are explicit, built from the kernel's interface (never
//!   derived from the shader, which would drop bindings a variant does not
//!   use): storage buffers `0..bindings.len()`, read-only or read-write as
//!   declared, and the params uniform at `bindings.len()` with a dynamic
//!   offset into the device's params arena. They are cached by that
//!   interface (accesses and params size).
//! - **Pipelines**, one per spec (the checked layer caches them), set the
//!   constants as WGSL `override`s by name, and go through the device's
//!   persistent pipeline cache where it has one (`pipeline_cache.rs`).
//! - wgpu does not check workgroup memory against the device's limit, so the
//!   memory the kernel declares, with the constants applied, is sized here
//!   with naga (the same naga wgpu uses) and refused when over.
//! - With the constants applied, naga also gives the entry point's
//!   `@workgroup_size`, which must be `GROUP_SIZE` (a hard-coded other size
//!   would run every launch with the wrong number of invocations), and the
//!   least size of each binding the entry point uses: the params struct
//!   must fit the params the kernel declares, and each buffer bound at a
//!   launch must hold its binding's type (`WgpuKernel::check_binding_sizes`). wgpu checks binding
//!   sizes only when a batch is submitted, and a batch it refuses drops
//!   every op recorded in it, so a bad user kernel would cost other ops
//!   their results; here it gets its own typed error instead.

use crate::errors::describe;
use crate::gpu::Gpu;
use crate::memory::WgpuBuffer;
use crate::pipeline_cache::PersistentCache;
use crate::queue::{params_binding_bytes, ARENA_BYTES};
use rosetta_core::{Access, Api, Error, KernelSpec, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One compiled kernel spec.
pub(crate) struct WgpuKernel {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: Arc<Layout>,
    /// The spec's label, for pass labels and logs.
    pub(crate) label: String,
    /// The least bytes each storage binding needs (its WGSL type; 0 where
    /// the shader does not use it): checked at each launch, since wgpu
    /// checks it only when the batch is submitted, and a batch it refuses
    /// takes every op recorded with it along.
    pub(crate) min_binding_bytes: Vec<u64>,
}

impl WgpuKernel {
    /// Refuse `buffers` where one is smaller than its binding's WGSL type:
    /// wgpu would refuse the whole batch at submission, and with it every
    /// op recorded beside this launch.
    pub(crate) fn check_binding_sizes(&self, buffers: &[&WgpuBuffer]) -> Result<()> {
        for (binding, (buffer, &least)) in buffers.iter().zip(&self.min_binding_bytes).enumerate() {
            if buffer.raw.size() < least {
                return Err(Error::InvalidArgument(format!(
                    "kernel '{}': binding {binding} needs at least {least} bytes (its WGSL \
                     type), the buffer bound has {}",
                    self.label,
                    buffer.raw.size()
                )));
            }
        }
        Ok(())
    }
}

/// The layouts of every kernel with one interface.
pub(crate) struct Layout {
    /// Unique for the life of the process (the bind-group cache's key).
    pub(crate) id: u64,
    pub(crate) bind_group: wgpu::BindGroupLayout,
    pub(crate) pipeline: wgpu::PipelineLayout,
    /// Bytes of the params binding.
    pub(crate) params_bytes: u64,
}

/// One shader: the wgpu module, and naga's parse of the same text (to size
/// workgroup memory once the constants are known).
struct Module {
    shader: wgpu::ShaderModule,
    naga: naga::Module,
    info: naga::valid::ModuleInfo,
}

/// The compiler's caches of intermediate objects, and the persistent cache.
pub(crate) struct Compiler {
    /// By the WGSL text compiled.
    modules: HashMap<String, Arc<Module>>,
    /// By (binding accesses, params bytes).
    layouts: HashMap<(Vec<Access>, u64), Arc<Layout>>,
    persistent: Option<PersistentCache>,
}

impl Compiler {
    /// A compiler with empty caches, building through `persistent` where
    /// given.
    pub(crate) fn new(persistent: Option<PersistentCache>) -> Self {
        Compiler {
            modules: HashMap::new(),
            layouts: HashMap::new(),
            persistent,
        }
    }

    /// The persistent pipeline cache, where the device has one.
    pub(crate) fn persistent(&self) -> Option<&PersistentCache> {
        self.persistent.as_ref()
    }

    /// Save the persistent cache now if it has unsaved pipelines.
    pub(crate) fn save(&mut self) {
        if let Some(persistent) = &mut self.persistent {
            persistent.save();
        }
    }

    /// Build the pipeline of `spec` from its WGSL source.
    pub(crate) fn compile(
        &mut self,
        gpu: &Gpu,
        spec: &KernelSpec,
        wgsl: &str,
    ) -> Result<WgpuKernel> {
        gpu.health.check()?;
        let def = spec.def();
        let label = spec.label();
        if spec.value("SUBGROUPS").unwrap_or(0) != 0 && !gpu.subgroups {
            return Err(Error::unsupported(
                Api::Wgpu,
                format!("kernel '{label}' uses subgroup operations; this device has no subgroups"),
            ));
        }
        let limits = gpu.device.limits();
        for (what, limit) in [
            ("workgroup size", limits.max_compute_workgroup_size_x),
            (
                "workgroup invocations",
                limits.max_compute_invocations_per_workgroup,
            ),
        ] {
            rosetta_core::check_limit(what, spec.group_size().into(), limit.into())?;
        }
        let params_bytes = params_binding_bytes(def.params().len());
        let params_limit = ARENA_BYTES.min(limits.max_uniform_buffer_binding_size);
        if params_bytes > params_limit {
            return Err(Error::unsupported(
                Api::Wgpu,
                format!(
                    "kernel '{label}' has {} param words; a uniform binding holds {params_limit} bytes",
                    def.params().len()
                ),
            ));
        }

        let text = crate::prelude::source(def, wgsl, gpu.subgroups);
        let key = format!("{}\n// bounds checked: {}", text, def.bounds_checked());
        let module = match self.modules.get(&key) {
            Some(module) => Arc::clone(module),
            None => {
                let module = Arc::new(build_module(
                    gpu,
                    &label,
                    def.name(),
                    &text,
                    def.bounds_checked(),
                )?);
                self.modules.insert(key, Arc::clone(&module));
                module
            }
        };
        // The entry point is the def's name: a source without it is the
        // caller's mistake (one line, a usage error), as on every API.
        if compute_entry(&module.naga, def.name()).is_none() {
            return Err(Error::InvalidArgument(format!(
                "kernel '{label}': the WGSL has no compute entry point named '{}' (a kernel's \
                 entry point is its name)",
                def.name()
            )));
        }
        let values = override_values(&module.naga, spec);
        let resolved = resolve(&module, def.name(), &values).map_err(|log| Error::Compile {
            api: Api::Wgpu,
            kernel: label.clone(),
            log,
        })?;
        // A workgroup of another size than GROUP_SIZE would run the launch's
        // groups with the wrong number of invocations, silently.
        if resolved.workgroup_size != [spec.group_size(), 1, 1] {
            let [x, y, z] = resolved.workgroup_size;
            return Err(Error::InvalidArgument(format!(
                "kernel '{label}' declares @workgroup_size({x}, {y}, {z}); a kernel's workgroup \
                 is its GROUP_SIZE constant ({}): declare @workgroup_size(GROUP_SIZE)",
                spec.group_size()
            )));
        }
        rosetta_core::check_limit(
            "workgroup shared memory (bytes)",
            resolved.shared_bytes,
            limits.max_compute_workgroup_storage_size.into(),
        )?;
        check_bindings(&label, def.bindings(), &resolved)?;
        let min_binding_bytes =
            storage_minimums(&label, def.bindings().len(), def.params().len(), &resolved)?;
        let layout = self.layout(gpu, def.bindings(), params_bytes)?;

        let constants: Vec<(&str, f64)> = values.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        let (pipeline, error) = crate::errors::scoped(&gpu.device, || {
            gpu.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&label),
                    layout: Some(&layout.pipeline),
                    module: &module.shader,
                    entry_point: Some(def.name()),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        // Kernels initialise the shared memory they read.
                        zero_initialize_workgroup_memory: false,
                    },
                    cache: self.persistent.as_ref().map(PersistentCache::cache),
                })
        });
        match error {
            None => {}
            Some(error @ wgpu::Error::OutOfMemory { .. }) => {
                return Err(gpu
                    .health
                    .to_error("wgpu::Device::create_compute_pipeline", error))
            }
            Some(error) => {
                gpu.health.check()?;
                return Err(Error::Compile {
                    api: Api::Wgpu,
                    kernel: label,
                    log: describe(&error),
                });
            }
        }
        if let Some(persistent) = &mut self.persistent {
            persistent.built();
        }
        Ok(WgpuKernel {
            pipeline,
            layout,
            label,
            min_binding_bytes,
        })
    }

    /// The layouts for an interface, built on first use.
    fn layout(&mut self, gpu: &Gpu, bindings: &[Access], params_bytes: u64) -> Result<Arc<Layout>> {
        let key = (bindings.to_vec(), params_bytes);
        if let Some(layout) = self.layouts.get(&key) {
            return Ok(Arc::clone(layout));
        }
        let layout = Arc::new(build_layout(gpu, bindings, params_bytes)?);
        self.layouts.insert(key, Arc::clone(&layout));
        Ok(layout)
    }
}

/// Parse and validate the WGSL text; a failure is a `Compile` error with
/// wgpu's messages (line and column) and naga's rendered report.
fn build_module(
    gpu: &Gpu,
    label: &str,
    name: &str,
    text: &str,
    bounds_checked: bool,
) -> Result<Module> {
    let compile_error = |log: String| Error::Compile {
        api: Api::Wgpu,
        kernel: label.to_string(),
        log,
    };
    let parsed =
        naga::front::wgsl::parse_str(text).map_err(|e| compile_error(e.emit_to_string(text)));

    // SAFETY: `trusted_module` requires every dispatch of a pipeline built
    // from the module to terminate and, without bounds checks, to stay in
    // bounds. The module's pipelines live only in `WgpuKernel`s, which are
    // dispatched only by `launch::record`, itself an `unsafe fn` called only
    // from `Driver::launch`, whose caller (the checked layer, on behalf of
    // the caller of the unsafe `Backend::launch`) guarantees both for that
    // launch.
    let (shader, error) = unsafe { gpu.trusted_module(name, text, bounds_checked) };
    if let Some(error) = error {
        if matches!(error, wgpu::Error::OutOfMemory { .. }) {
            return Err(gpu
                .health
                .to_error("wgpu::Device::create_shader_module", error));
        }
        gpu.health.check()?;
        let info = pollster::block_on(shader.get_compilation_info());
        let mut log = String::new();
        for message in &info.messages {
            match &message.location {
                Some(at) => log.push_str(&format!(
                    "{name}:{}:{}: {:?}: {}\n",
                    at.line_number, at.line_position, message.message_type, message.message
                )),
                None => log.push_str(&format!(
                    "{name}: {:?}: {}\n",
                    message.message_type, message.message
                )),
            }
        }
        log.push_str(&describe(&error));
        return Err(compile_error(log));
    }
    // wgpu accepted the text, so naga's own parse and validation succeed
    // too (the same naga); a failure is still reported, never unwrapped.
    let naga_module = parsed?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&naga_module)
    .map_err(|e| compile_error(e.emit_to_string(text)))?;
    Ok(Module {
        shader,
        naga: naga_module,
        info,
    })
}

/// What the kernel declares once its overrides take the spec's values.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Resolved {
    /// Bytes of workgroup memory (each variable at its alignment, as drivers
    /// lay them out).
    shared_bytes: u64,
    /// The entry point's `@workgroup_size`.
    workgroup_size: [u32; 3],
    /// The least bytes each binding of group 0 needs, by binding index: the
    /// size of its type (one element of a runtime-sized array), what wgpu
    /// checks the bound range against when the batch is submitted.
    min_binding_bytes: Vec<(u32, u64)>,
    /// The resource bindings the entry point uses: group, binding, and
    /// the address space declared.
    used_bindings: Vec<(u32, u32, naga::AddressSpace)>,
}

/// The compute entry point called `name` and its index in `module`.
fn compute_entry<'m>(
    module: &'m naga::Module,
    name: &str,
) -> Option<(usize, &'m naga::EntryPoint)> {
    module
        .entry_points
        .iter()
        .enumerate()
        .find(|(_, e)| e.name == name && e.stage == naga::ShaderStage::Compute)
}

/// The spec's constants as override values, by name. A constant is a
/// 32-bit word: an `i32` override takes its bits (0xFFFFFFFF is −1), as
/// GLSL's `int` spec constants, CUDA's and OpenCL C's `-D` macros in an
/// `int` do; any other override takes the word's value (naga refused an
/// `i32` above 2^31 − 1 with a message naming neither the constant nor
/// the range, so a negative constant could not reach WGSL).
fn override_values(module: &naga::Module, spec: &KernelSpec) -> Vec<(String, f64)> {
    spec.constants()
        .map(|(name, value)| {
            let signed = module.overrides.iter().any(|(_, o)| {
                o.name.as_deref() == Some(name)
                    && matches!(
                        module.types[o.ty].inner,
                        naga::TypeInner::Scalar(naga::Scalar::I32)
                    )
            });
            let value = if signed {
                f64::from(value as i32)
            } else {
                f64::from(value)
            };
            (name.to_string(), value)
        })
        .collect()
}

/// The kernel's declarations with the spec's constants (`values`, from
/// [`override_values`]) applied.
fn resolve(module: &Module, entry: &str, values: &[(String, f64)]) -> Result<Resolved, String> {
    let constants: naga::back::PipelineConstants = values.iter().cloned().collect();
    // naga 30 panics on some valid modules here (an override initialised
    // from other overrides, declared after a workgroup array sized by
    // overrides): a user's kernel must get an error, not abort the caller.
    let processed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        naga::back::pipeline_constants::process_overrides(
            &module.naga,
            &module.info,
            Some((naga::ShaderStage::Compute, entry)),
            &constants,
        )
        .map_err(|e| format!("applying the constants: {e}"))
    }))
    .map_err(|panic| {
        let why = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no message");
        format!(
            "naga panicked while applying the constants ({why}); one known cause: an \
             override initialised from other overrides, declared after a workgroup \
             array sized by overrides (declare it before)"
        )
    })?;
    let (resolved, info) = processed?;
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(resolved.to_ctx())
        .map_err(|e| format!("laying out types: {e}"))?;
    let (index, entry_point) = compute_entry(&resolved, entry)
        .ok_or_else(|| format!("no compute entry point '{entry}'"))?;
    let uses = info.get_entry_point(index);
    let mut shared_bytes = 0u64;
    let mut min_binding_bytes = Vec::new();
    let mut used_bindings = Vec::new();
    for (handle, var) in resolved.global_variables.iter() {
        let layout = &layouter[var.ty];
        if var.space == naga::AddressSpace::WorkGroup {
            let align = u64::from(layout.alignment.round_up(1));
            shared_bytes = shared_bytes.div_ceil(align) * align + u64::from(layout.size);
        }
        let Some(binding) = var.binding.as_ref().filter(|_| !uses[handle].is_empty()) else {
            continue;
        };
        used_bindings.push((binding.group, binding.binding, var.space));
        if binding.group == 0 {
            min_binding_bytes.push((binding.binding, u64::from(layout.size)));
        }
    }
    let workgroup_size = entry_point.workgroup_size;
    Ok(Resolved {
        shared_bytes,
        workgroup_size,
        min_binding_bytes,
        used_bindings,
    })
}

/// The bindings the kernel uses against its interface: storage buffers at
/// `@group(0) @binding(0..)`, read-only ones declared `read`, then the
/// params' uniform struct. Otherwise wgpu refuses the pipeline with a
/// validation report of many lines (a `Failure`), where this is the
/// caller's mistake, said in one line.
fn check_bindings(label: &str, bindings: &[Access], resolved: &Resolved) -> Result<()> {
    let storage = bindings.len() as u32;
    let refuse = |why: String| {
        Err(Error::InvalidArgument(format!(
            "kernel '{label}': {why} (its interface: storage buffers at @group(0) \
             @binding(0..{storage}), then the params' var<uniform> at @binding({storage}))"
        )))
    };
    for &(group, binding, space) in &resolved.used_bindings {
        if group != 0 {
            return refuse(format!("it uses @group({group}) @binding({binding})"));
        }
        match (bindings.get(binding as usize), space) {
            (Some(access), naga::AddressSpace::Storage { access: declared }) => {
                // wgpu wants the layout's access exactly.
                let writes = declared.contains(naga::StorageAccess::STORE);
                if *access == Access::Read && writes {
                    return refuse(format!(
                        "binding {binding} is read-only but declared read_write; declare it \
                         var<storage, read>"
                    ));
                }
                if *access == Access::ReadWrite && !writes {
                    return refuse(format!(
                        "binding {binding} is read_write but declared read; declare it \
                         var<storage, read_write> (or make it Access::Read)"
                    ));
                }
            }
            (Some(_), _) => {
                return refuse(format!(
                    "binding {binding} is a buffer but not declared var<storage, ...>"
                ))
            }
            (None, naga::AddressSpace::Uniform) if binding == storage => {}
            (None, _) if binding == storage => {
                return refuse(format!(
                    "binding {binding} holds the params but is not declared var<uniform>"
                ))
            }
            (None, _) => return refuse(format!("it uses @binding({binding})")),
        }
    }
    Ok(())
}

/// The least bytes of each storage binding `0..storage` (0 where unused),
/// after checking that the params struct at binding `storage` holds no more
/// than the `params` words the kernel declares: a larger one would read
/// fields no launch sets (zeros from the slot's padding, silently, or past
/// the bound range, when wgpu refuses the whole batch at submission).
fn storage_minimums(
    label: &str,
    storage: usize,
    params: usize,
    resolved: &Resolved,
) -> Result<Vec<u64>> {
    let mut minimums = vec![0u64; storage];
    let declared = params as u64 * 4;
    for &(binding, bytes) in &resolved.min_binding_bytes {
        if let Some(least) = minimums.get_mut(binding as usize) {
            *least = bytes;
        } else if binding as usize == storage && bytes > declared {
            return Err(Error::InvalidArgument(format!(
                "kernel '{label}': its params struct (binding {storage}) takes {bytes} bytes, \
                 more than the {declared} bytes of the {params} params it declares; declare one \
                 param per u32 field"
            )));
        }
    }
    Ok(minimums)
}

/// The bind group and pipeline layouts of one interface.
fn build_layout(gpu: &Gpu, bindings: &[Access], params_bytes: u64) -> Result<Layout> {
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    let mut entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
        .iter()
        .enumerate()
        .map(|(i, access)| wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage {
                    read_only: *access == Access::Read,
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    entries.push(wgpu::BindGroupLayoutEntry {
        binding: bindings.len() as u32,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            // Pipelines whose params struct is larger fail to build here,
            // not at submission (`storage_minimums` says why first).
            min_binding_size: wgpu::BufferSize::new(params_bytes),
        },
        count: None,
    });
    let (bind_group, pipeline) = gpu.checked("wgpu::Device::create_bind_group_layout", || {
        let bind_group = gpu
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("rosetta kernel bindings"),
                entries: &entries,
            });
        let pipeline = gpu
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("rosetta kernel layout"),
                bind_group_layouts: &[Some(&bind_group)],
                immediate_size: 0,
            });
        (bind_group, pipeline)
    })?;
    Ok(Layout {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        bind_group,
        pipeline,
        params_bytes,
    })
}
