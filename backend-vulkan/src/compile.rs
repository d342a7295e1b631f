//! Compile + cache.
//!
//! A kernel's GLSL (`kernels/<op>/<op>.comp`) is compiled to SPIR-V once per
//! device with glslang (target Vulkan 1.1 / SPIR-V 1.3); devices with subgroup
//! arithmetic in compute shaders get `#define HAVE_SUBGROUPS 1` in the
//! preamble, so the same source builds everywhere. Its constants are
//! specialization constants (`constant_id` = position in
//! `KernelDef::constants`), so one shader module serves every
//! [`KernelSpec`]: each spec is one compute pipeline, created through the
//! device's `VkPipelineCache` and cached by [`KernelSpec::cache_key`].

use crate::gpu::{vk_error, Gpu};
use ash::vk;
use rosetta_core::{Api, Error, KernelDef, KernelId, KernelSpec, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One compiled spec: a pipeline and the layouts it binds with.
pub(crate) struct Kernel {
    pub(crate) def: &'static KernelDef,
    /// The spec's `GROUP_SIZE`.
    pub(crate) group_size: u32,
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    pub(crate) set_layout: vk::DescriptorSetLayout,
}

/// One kernel source: its module and layouts, shared by all its specs.
struct Program {
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
}

pub(crate) struct Cache {
    inner: Mutex<Inner>,
    /// Define HAVE_SUBGROUPS when compiling.
    subgroups: bool,
    /// maxPushConstantsSize.
    max_push_bytes: u32,
}

struct Inner {
    pipeline_cache: vk::PipelineCache,
    programs: HashMap<&'static str, Program>,
    by_key: HashMap<String, KernelId>,
    kernels: Vec<Arc<Kernel>>,
}

impl Cache {
    pub(crate) fn new(gpu: &Gpu, subgroups: bool, max_push_bytes: u32) -> Result<Self> {
        Ok(Cache {
            inner: Mutex::new(Inner {
                pipeline_cache: gpu.create_pipeline_cache()?,
                programs: HashMap::new(),
                by_key: HashMap::new(),
                kernels: Vec::new(),
            }),
            subgroups,
            max_push_bytes,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Build (or fetch) the pipeline of `spec`.
    pub(crate) fn compile(&self, gpu: &Gpu, spec: &KernelSpec) -> Result<KernelId> {
        let key = spec.cache_key();
        let mut inner = self.lock();
        if let Some(&id) = inner.by_key.get(&key) {
            return Ok(id);
        }
        let def = spec.kernel;
        let group_size = spec.value("GROUP_SIZE").ok_or_else(|| {
            Error::InvalidArgument(format!("kernel '{}' has no GROUP_SIZE constant", def.name))
        })?;
        if !inner.programs.contains_key(def.name) {
            let program = self.program(gpu, def, &key)?;
            inner.programs.insert(def.name, program);
        }
        let Some(program) = inner.programs.get(def.name) else {
            return Err(Error::backend(
                Api::Vulkan,
                "program vanished from the cache",
            ));
        };
        let (module, layout, set_layout) = (program.module, program.layout, program.set_layout);
        tracing::debug!(kernel = %key, "vulkan: creating compute pipeline");
        let pipeline = gpu
            .create_compute_pipeline(inner.pipeline_cache, module, layout, &spec.values)
            .map_err(|e| match e {
                vk::Result::ERROR_DEVICE_LOST => vk_error("vkCreateComputePipelines", e),
                _ => Error::Compile {
                    api: Api::Vulkan,
                    kernel: key.clone(),
                    log: format!("vkCreateComputePipelines failed: {e}"),
                },
            })?;
        let id = KernelId(inner.kernels.len() as u64);
        inner.kernels.push(Arc::new(Kernel {
            def,
            group_size,
            pipeline,
            layout,
            set_layout,
        }));
        inner.by_key.insert(key, id);
        Ok(id)
    }

    /// Compile a kernel's source and create its module and layouts.
    fn program(&self, gpu: &Gpu, def: &'static KernelDef, key: &str) -> Result<Program> {
        let source = def.sources.glsl;
        let spirv = glsl_to_spirv(source, self.subgroups).map_err(|log| Error::Compile {
            api: Api::Vulkan,
            kernel: key.to_string(),
            log,
        })?;
        if def.bindings.len() as u32 > crate::queue::MAX_BINDINGS {
            return Err(Error::Unsupported(format!(
                "kernel '{}' binds {} buffers; the Vulkan backend supports {}",
                def.name,
                def.bindings.len(),
                crate::queue::MAX_BINDINGS
            )));
        }
        let push_bytes = 4 * def.params.len() as u32;
        if push_bytes > self.max_push_bytes {
            return Err(Error::ExceedsLimit {
                what: "push constant bytes",
                requested: push_bytes.into(),
                limit: self.max_push_bytes.into(),
            });
        }
        let module = gpu.create_shader_module(&spirv)?;
        let set_layout = match gpu.create_set_layout(def.bindings.len() as u32) {
            Ok(l) => l,
            Err(e) => {
                gpu.destroy_shader_module(module);
                return Err(e);
            }
        };
        match gpu.create_pipeline_layout(set_layout, push_bytes) {
            Ok(layout) => Ok(Program {
                module,
                set_layout,
                layout,
            }),
            Err(e) => {
                gpu.destroy_set_layout(set_layout);
                gpu.destroy_shader_module(module);
                Err(e)
            }
        }
    }

    pub(crate) fn get(&self, id: KernelId) -> Result<Arc<Kernel>> {
        self.lock()
            .kernels
            .get(id.0 as usize)
            .cloned()
            .ok_or_else(|| Error::InvalidArgument(format!("unknown vulkan kernel {}", id.0)))
    }

    /// Destroy every pipeline, layout and module (the device is idle).
    pub(crate) fn destroy(&self, gpu: &Gpu) {
        let mut inner = self.lock();
        for kernel in inner.kernels.drain(..) {
            gpu.destroy_pipeline(kernel.pipeline);
        }
        inner.by_key.clear();
        for (_, program) in inner.programs.drain() {
            gpu.destroy_pipeline_layout(program.layout);
            gpu.destroy_set_layout(program.set_layout);
            gpu.destroy_shader_module(program.module);
        }
        gpu.destroy_pipeline_cache(inner.pipeline_cache);
        inner.pipeline_cache = vk::PipelineCache::null();
    }
}

/// GLSL compute shader → SPIR-V words, or glslang's log.
pub(crate) fn glsl_to_spirv(
    source: &str,
    subgroups: bool,
) -> std::result::Result<Vec<u32>, String> {
    use glslang::{
        Compiler, CompilerOptions, ShaderInput, ShaderMessage, ShaderSource, ShaderStage,
        SourceLanguage, SpirvVersion, Target, VulkanVersion,
    };
    // glslang's process-wide state is set up once; compiles are serialised
    // (the machine has few cores, and it keeps glslang's globals quiet).
    static GLSLANG: Mutex<()> = Mutex::new(());
    let _guard = GLSLANG.lock().unwrap_or_else(|p| p.into_inner());
    if source.contains('\0') {
        return Err("the source contains a NUL byte".into());
    }
    if !source.is_ascii() {
        // glslang's log must be UTF-8 for the bindings; keep sources ASCII.
        return Err("the source contains non-ASCII characters".into());
    }
    let compiler = Compiler::acquire().ok_or("glslang could not be initialised")?;
    let source = ShaderSource::from(source);
    let defines: &[(&str, Option<&str>)] = if subgroups {
        &[("HAVE_SUBGROUPS", Some("1"))]
    } else {
        &[]
    };
    let options = CompilerOptions {
        source_language: SourceLanguage::GLSL,
        target: Target::Vulkan {
            version: VulkanVersion::Vulkan1_1,
            spirv_version: SpirvVersion::SPIRV1_3,
        },
        version_profile: None,
        messages: ShaderMessage::DEFAULT | ShaderMessage::VULKAN_RULES | ShaderMessage::SPV_RULES,
    };
    let input = ShaderInput::new(&source, ShaderStage::Compute, &options, Some(defines), None)
        .map_err(|e| format!("glslang input: {e}"))?;
    let shader = glslang::Shader::new(compiler, input)
        .parse()
        .map_err(|e| e.to_string())?;
    let log = shader.get_log();
    if !log.trim().is_empty() {
        tracing::debug!("glslang: {}", log.trim());
    }
    shader.compile().map_err(|e| e.to_string())
}
