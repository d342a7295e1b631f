//! Compile + cache.
//!
//! - One shader module per kernel (the WGSL text does not depend on the
//!   constants), with the subgroup prelude appended where the kernel has a
//!   `SUBGROUPS` constant (see `prelude.rs`).
//! - One explicit bind group layout and pipeline layout per kernel, built from
//!   `KernelDef::bindings`: storage buffers `0..bindings.len()` (read-only or
//!   read-write as declared) and the params uniform at `bindings.len()` with a
//!   dynamic offset into the device's params arena.
//! - One compute pipeline per `KernelSpec::cache_key()`, the constants set as
//!   WGSL `override`s by name.

use crate::device::Gpu;
use crate::errors::{checked, lock, scoped};
use rosetta_core::{Access, Api, Error, KernelDef, KernelId, KernelSpec, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One compiled kernel.
pub struct Compiled {
    pub def: &'static KernelDef,
    pub pipeline: wgpu::ComputePipeline,
    pub layout: Arc<Layout>,
    /// The `GROUP_SIZE` constant the pipeline was built with.
    pub group_size: u32,
    pub key: String,
}

/// One kernel's shader: the wgpu module, and naga's parse of the same text
/// (to size workgroup memory once the constants are known).
pub struct Module {
    shader: wgpu::ShaderModule,
    naga: naga::Module,
    info: naga::valid::ModuleInfo,
}

/// The layouts shared by every pipeline of one kernel.
pub struct Layout {
    /// Distinguishes layouts in the bind group cache.
    pub id: usize,
    pub bind_group: wgpu::BindGroupLayout,
    pub pipeline: wgpu::PipelineLayout,
}

#[derive(Default)]
pub struct Cache {
    inner: Mutex<CacheInner>,
}

#[derive(Default)]
struct CacheInner {
    by_key: HashMap<String, KernelId>,
    kernels: Vec<Arc<Compiled>>,
    modules: HashMap<&'static str, Arc<Module>>,
    layouts: HashMap<&'static str, Arc<Layout>>,
}

impl Cache {
    pub fn compile(&self, gpu: &Gpu, spec: &KernelSpec) -> Result<KernelId> {
        let def = spec.kernel;
        let key = spec.cache_key();
        // The lock is held while building so that two threads asking for the
        // same kernel build it once.
        let mut inner = lock(&self.inner);
        if let Some(&id) = inner.by_key.get(&key) {
            return Ok(id);
        }
        gpu.health.check()?;
        if spec.value("SUBGROUPS").unwrap_or(0) != 0 && !gpu.subgroups {
            return Err(Error::Unsupported(format!(
                "kernel '{key}' asks for subgroup operations; this wgpu device has no subgroup support"
            )));
        }
        let group_size = spec.value("GROUP_SIZE").ok_or_else(|| {
            Error::InvalidArgument(format!("kernel '{}' has no GROUP_SIZE constant", def.name))
        })?;
        let caps_limits = gpu.device.limits();
        for (what, limit) in [
            ("workgroup size", caps_limits.max_compute_workgroup_size_x),
            (
                "workgroup invocations",
                caps_limits.max_compute_invocations_per_workgroup,
            ),
        ] {
            if group_size > limit {
                return Err(Error::ExceedsLimit {
                    what,
                    requested: group_size.into(),
                    limit: limit.into(),
                });
            }
        }
        tracing::debug!(kernel = %key, "wgpu: building pipeline");

        let module = match inner.modules.get(def.name) {
            Some(module) => Arc::clone(module),
            None => {
                let module = Arc::new(build_module(gpu, def)?);
                inner.modules.insert(def.name, Arc::clone(&module));
                module
            }
        };
        // wgpu does not check workgroup memory against the device limit:
        // size it here, with the constants applied, and refuse what is over.
        let shared_bytes =
            workgroup_bytes(&module, def.name, spec).map_err(|log| Error::Compile {
                api: Api::Wgpu,
                kernel: key.clone(),
                log,
            })?;
        let limit = caps_limits.max_compute_workgroup_storage_size;
        if shared_bytes > u64::from(limit) {
            return Err(Error::ExceedsLimit {
                what: "workgroup shared memory (bytes)",
                requested: shared_bytes,
                limit: u64::from(limit),
            });
        }
        let layout = match inner.layouts.get(def.name) {
            Some(layout) => Arc::clone(layout),
            None => {
                let id = inner.layouts.len();
                let layout = Arc::new(checked(
                    &gpu.device,
                    &gpu.health,
                    "creating bind group layouts",
                    || build_layout(&gpu.device, def, id),
                )?);
                inner.layouts.insert(def.name, Arc::clone(&layout));
                layout
            }
        };

        let constants: Vec<(&str, f64)> = spec
            .constants()
            .map(|(name, value)| (name, f64::from(value)))
            .collect();
        let (pipeline, error) = scoped(&gpu.device, || {
            gpu.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&key),
                    layout: Some(&layout.pipeline),
                    module: &module.shader,
                    entry_point: Some(def.name),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        // Kernels initialise the shared memory they read.
                        zero_initialize_workgroup_memory: false,
                    },
                    cache: None,
                })
        });
        if let Some(error) = error {
            gpu.health.check()?;
            return Err(Error::Compile {
                api: Api::Wgpu,
                kernel: key,
                log: crate::errors::describe(&error),
            });
        }
        let id = KernelId(inner.kernels.len() as u64);
        inner.kernels.push(Arc::new(Compiled {
            def,
            pipeline,
            layout,
            group_size,
            key: key.clone(),
        }));
        inner.by_key.insert(key, id);
        Ok(id)
    }

    pub fn get(&self, id: KernelId) -> Result<Arc<Compiled>> {
        lock(&self.inner)
            .kernels
            .get(id.0 as usize)
            .cloned()
            .ok_or_else(|| Error::InvalidArgument(format!("unknown wgpu kernel {}", id.0)))
    }
}

/// Parse and validate the kernel's WGSL (plus prelude); a failure is a
/// `Compile` error carrying naga's messages.
fn build_module(gpu: &Gpu, def: &'static KernelDef) -> Result<Module> {
    let compile_error = |log: String| Error::Compile {
        api: Api::Wgpu,
        kernel: def.name.to_string(),
        log,
    };
    let wgsl = def
        .source(Api::Wgpu)
        .ok_or_else(|| compile_error("no WGSL source".into()))?;
    let text = crate::prelude::source(def, wgsl, gpu.subgroups);
    let parsed =
        naga::front::wgsl::parse_str(&text).map_err(|e| compile_error(e.emit_to_string(&text)));
    // naga's forced loop bounding adds a 64-bit counter and an extra exit to
    // every loop, which keeps drivers from unrolling the kernels' constant
    // loops and can cost an order of magnitude (gfx-rs/wgpu#7698). It only
    // guards against compilers exploiting infinite loops, and the kernels
    // have none (see the SAFETY note), so it is switched off; bounds checks
    // and division checks stay on.
    let checks = wgpu::ShaderRuntimeChecks {
        force_loop_bounding: false,
        ..wgpu::ShaderRuntimeChecks::checked()
    };
    let (module, error) = scoped(&gpu.device, || {
        // SAFETY: with `force_loop_bounding` off, wgpu requires that the
        // shader contains no infinite loop. Kernel sources are `&'static`
        // text compiled into the program (trusted code, never user input),
        // and rosetta's kernels only loop to counts: constants, or
        // grid-stride counters that start below their bound and step by the
        // grid size, with bounds (vectors = n/4, tail offsets < 4, tile
        // counts of tiles of 8+ elements) so far below 2^32 that no counter
        // can wrap around for any u32 params and any geometry the plans
        // choose. Memory safety never depends on this: bounds checks are on.
        unsafe {
            gpu.device.create_shader_module_trusted(
                wgpu::ShaderModuleDescriptor {
                    label: Some(def.name),
                    source: wgpu::ShaderSource::Wgsl(text.as_str().into()),
                },
                checks,
            )
        }
    });
    if let Some(error) = error {
        gpu.health.check()?;
        // The compilation messages carry line and column; the scope's error
        // carries naga's rendered report. Keep both.
        let info = pollster::block_on(module.get_compilation_info());
        let mut log = String::new();
        for message in &info.messages {
            match &message.location {
                Some(at) => log.push_str(&format!(
                    "{}:{}:{}: {:?}: {}\n",
                    def.name,
                    at.line_number,
                    at.line_position,
                    message.message_type,
                    message.message
                )),
                None => log.push_str(&format!(
                    "{}: {:?}: {}\n",
                    def.name, message.message_type, message.message
                )),
            }
        }
        log.push_str(&crate::errors::describe(&error));
        return Err(compile_error(log));
    }
    // wgpu accepted the text, so naga's own parse and validation succeed too
    // (same naga); any failure here is still reported, never unwrapped.
    let naga_module = parsed?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&naga_module)
    .map_err(|e| compile_error(e.emit_to_string(&text)))?;
    Ok(Module {
        shader: module,
        naga: naga_module,
        info,
    })
}

/// Bytes of workgroup memory the kernel declares once its overrides take
/// the spec's values (each variable at its alignment, as drivers lay them
/// out).
fn workgroup_bytes(
    module: &Module,
    entry: &str,
    spec: &KernelSpec,
) -> std::result::Result<u64, String> {
    let mut constants = naga::back::PipelineConstants::default();
    for (name, value) in spec.constants() {
        constants.insert(name.to_string(), f64::from(value));
    }
    let (resolved, _) = naga::back::pipeline_constants::process_overrides(
        &module.naga,
        &module.info,
        Some((naga::ShaderStage::Compute, entry)),
        &constants,
    )
    .map_err(|e| format!("applying the constants: {e}"))?;
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(resolved.to_ctx())
        .map_err(|e| format!("laying out types: {e}"))?;
    let mut bytes = 0u64;
    for (_, var) in resolved.global_variables.iter() {
        if var.space == naga::AddressSpace::WorkGroup {
            let layout = &layouter[var.ty];
            let align = u64::from(layout.alignment.round_up(1));
            bytes = bytes.div_ceil(align) * align + u64::from(layout.size);
        }
    }
    Ok(bytes)
}

fn build_layout(device: &wgpu::Device, def: &KernelDef, id: usize) -> Layout {
    let mut entries: Vec<wgpu::BindGroupLayoutEntry> = def
        .bindings
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
        binding: def.bindings.len() as u32,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: None,
        },
        count: None,
    });
    let bind_group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(def.name),
        entries: &entries,
    });
    let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(def.name),
        bind_group_layouts: &[Some(&bind_group)],
        immediate_size: 0,
    });
    Layout {
        id,
        bind_group,
        pipeline,
    }
}
