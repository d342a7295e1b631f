//! Building a kernel spec: GLSL → SPIR-V (glslang, or the SPIR-V cache),
//! checked against the device and the kernel's interface; one shader module
//! and layout per source (a "program", cached by the kernel's fingerprint);
//! one compute pipeline per spec, its constants as specialization constants,
//! created through the persistent pipeline cache.

use crate::glsl::{Origin, SpirvCache};
use crate::pipeline_store::PipelineStore;
use crate::queue::MAX_BINDINGS;
use crate::spirv::{Allowed, Interface, Module, Rejected};
use crate::stats;
use crate::vk::device::Device;
use crate::vk::error::vk_error;
use crate::vk::pipeline::{Layout, Pipeline, PipelineError, ShaderModule};
use ash::vk;
use rosetta_core::{check_limit, Access, Api, Error, KernelSpec, Language, Result};
use std::collections::HashMap;
use std::sync::Arc;

/// A compiled spec: its pipeline (which holds its layout).
pub(crate) struct Kernel {
    pub(crate) pipeline: Arc<Pipeline>,
    /// Storage buffers it binds.
    pub(crate) bindings: u32,
    /// The spec's label, for errors.
    pub(crate) label: String,
    /// The least bytes each binding's buffer must hold (its block's
    /// fixed-size members; `Module::binding_min_bytes`).
    pub(crate) min_binding_bytes: Vec<u64>,
}

impl Kernel {
    /// Refuse `sizes` (bytes of the buffers bound, in binding order) where
    /// one is smaller than its binding's block: Vulkan would let the shader
    /// read and write past the buffer.
    pub(crate) fn check_binding_sizes(&self, sizes: impl IntoIterator<Item = u64>) -> Result<()> {
        for (binding, (size, &least)) in sizes.into_iter().zip(&self.min_binding_bytes).enumerate()
        {
            if size < least {
                return Err(Error::InvalidArgument(format!(
                    "kernel '{}': binding {binding} needs at least {least} bytes (its GLSL \
                     block), the buffer bound has {size}",
                    self.label
                )));
            }
        }
        Ok(())
    }
}

/// One source's module, layout and parsed SPIR-V, shared by its specs.
struct Program {
    module: ShaderModule,
    layout: Arc<Layout>,
    spirv: Module,
}

/// The limits a spec's workgroup is checked against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GroupLimits {
    /// maxComputeWorkGroupSize.
    pub size: [u32; 3],
    /// maxComputeWorkGroupInvocations.
    pub invocations: u32,
    /// maxComputeSharedMemorySize.
    pub shared_bytes: u32,
}

/// Builds the kernels of one device.
pub(crate) struct Compiler {
    device: Arc<Device>,
    spirv_cache: SpirvCache,
    store: PipelineStore,
    /// Programs by kernel fingerprint (interface + GLSL text) and defines.
    programs: HashMap<String, Program>,
    /// Define HAVE_SUBGROUPS.
    subgroups: bool,
    /// Fold each spec's constants into its GLSL (`fold.rs`).
    fold: bool,
    allowed: Allowed,
    limits: GroupLimits,
}

impl Compiler {
    /// A compiler for `device`, with its pipeline store.
    pub(crate) fn new(
        device: Arc<Device>,
        store: PipelineStore,
        subgroups: bool,
        limits: GroupLimits,
    ) -> Self {
        let enabled = device.enabled();
        let allowed = Allowed {
            int64: enabled.int64,
            float64: enabled.float64,
            int16: enabled.int16,
            float_atomic_add: enabled.float_atomic_add,
            subgroup: enabled.subgroup.as_raw(),
        };
        Compiler {
            device,
            spirv_cache: SpirvCache::new(),
            store,
            programs: HashMap::new(),
            subgroups,
            fold: crate::validation::flag(crate::validation::FOLD_ENV),
            allowed,
            limits,
        }
    }

    /// Save the pipeline cache's data (the device is closing).
    pub(crate) fn save(&mut self) {
        self.store.save();
    }

    /// Build the pipeline of `spec` from its GLSL `source`.
    pub(crate) fn compile(&mut self, spec: &KernelSpec, source: &str) -> Result<Kernel> {
        let def = spec.def();
        let label = spec.label();
        let compile_error = |log: String| Error::Compile {
            api: Api::Vulkan,
            kernel: spec.label(),
            log,
        };
        let bindings = def.bindings().len() as u32;
        if bindings > MAX_BINDINGS {
            return Err(Error::unsupported(
                Api::Vulkan,
                format!(
                    "kernel '{}' binds {bindings} buffers; the Vulkan backend binds at most \
                     {MAX_BINDINGS}",
                    def.name()
                ),
            ));
        }
        let push_bytes = u32::try_from(def.params().len() * 4).unwrap_or(u32::MAX);
        check_limit(
            "workgroup size",
            spec.group_size().into(),
            self.limits.size[0].into(),
        )?;
        check_limit(
            "workgroup invocations",
            spec.group_size().into(),
            self.limits.invocations.into(),
        )?;
        let read_only = def
            .bindings()
            .iter()
            .enumerate()
            .filter(|(_, access)| **access == Access::Read)
            .fold(0u64, |mask, (b, _)| mask | 1u64 << b);
        let values = spec.values();
        let mut key = def
            .fingerprint(Language::Glsl)
            .u64(u64::from(self.subgroups));
        // With folded constants the module is the spec's own.
        let folded = if self.fold {
            for &value in values {
                key = key.u64(u64::from(value));
            }
            Some(crate::fold::fold(source, values).map_err(|why| {
                compile_error(format!(
                    "{why} ({} folds only one-line `layout(constant_id = N) const uint NAME = \
                     DEFAULT;` declarations, and the source is not compiled until they fold; \
                     unset it to build this kernel)",
                    crate::validation::FOLD_ENV
                ))
            })?)
        } else {
            None
        };
        let interface = Interface {
            bindings,
            read_only,
            push_bytes,
            // A folded module declares no specialization constants: `fold`
            // has checked that the source declared each one, and put its
            // value in.
            constants: if folded.is_some() {
                0
            } else {
                def.constants().len() as u32
            },
        };
        let key = key.hex();
        if !self.programs.contains_key(&key) {
            let text = folded.as_deref().unwrap_or(source);
            let program = self.program(text, &interface, push_bytes, &label, &compile_error)?;
            self.programs.insert(key.clone(), program);
        }
        let program = self
            .programs
            .get(&key)
            .ok_or_else(|| Error::Internal("vulkan: a program vanished from the cache".into()))?;
        let size = program
            .spirv
            .workgroup_size(values)
            .map_err(|why| Error::unsupported(Api::Vulkan, format!("{}: {why}", spec.label())))?;
        // A workgroup of another size than GROUP_SIZE (a hard-coded
        // local_size_x) would run the launch's groups with the wrong number
        // of invocations, silently. (GROUP_SIZE itself is within the
        // device's limits: checked above.)
        if size != [spec.group_size(), 1, 1] {
            let [x, y, z] = size;
            return Err(Error::InvalidArgument(format!(
                "kernel '{}' declares a workgroup of {x}×{y}×{z}; a kernel's workgroup is its \
                 GROUP_SIZE constant ({}): declare `layout(local_size_x_id = 0) in;`",
                spec.label(),
                spec.group_size()
            )));
        }
        let shared = program
            .spirv
            .workgroup_bytes(values)
            .map_err(|why| Error::unsupported(Api::Vulkan, format!("{}: {why}", spec.label())))?;
        check_limit(
            "workgroup shared memory (bytes)",
            shared,
            self.limits.shared_bytes.into(),
        )?;
        // SAFETY: the module passed `Module::check` for this device and this
        // kernel's interface — entry point `main` (GLCompute), storage buffers
        // of set 0 below `bindings` only, a push block within `push_bytes`
        // (the layout's range), 32-bit integer specialization constants for
        // the spec's ids — and for these values its workgroup size is
        // GROUP_SIZE × 1 × 1 and its workgroup memory fits, both within the
        // device's limits (checked above).
        let created =
            unsafe { Pipeline::new(self.store.cache(), &program.module, &program.layout, values) };
        let pipeline = match created {
            Ok(pipeline) => pipeline,
            Err(PipelineError::Other(e)) => return Err(e),
            Err(PipelineError::Vulkan(vk::Result::ERROR_INVALID_SHADER_NV)) => {
                return Err(compile_error(
                    "vkCreateComputePipelines rejected the shader (VK_ERROR_INVALID_SHADER_NV)"
                        .into(),
                ))
            }
            Err(PipelineError::Vulkan(e)) => return Err(vk_error("vkCreateComputePipelines", e)),
        };
        self.store.compiled();
        match pipeline.statistics() {
            Ok(statistics) if !statistics.is_empty() => {
                let line: Vec<String> = statistics
                    .iter()
                    .map(|(name, value)| format!("{name}={value}"))
                    .collect();
                tracing::info!(kernel = %spec.label(), "vulkan: pipeline statistics: {}", line.join(", "));
            }
            Ok(_) => {}
            Err(e) => {
                tracing::debug!(kernel = %spec.label(), "vulkan: no pipeline statistics ({e})")
            }
        }
        Ok(Kernel {
            pipeline: Arc::new(pipeline),
            bindings,
            label,
            min_binding_bytes: program.spirv.binding_min_bytes(bindings, values),
        })
    }

    /// SPIR-V for `source` (cached or compiled), checked, as a module and
    /// layout.
    fn program(
        &self,
        source: &str,
        interface: &Interface,
        push_bytes: u32,
        label: &str,
        compile_error: &dyn Fn(String) -> Error,
    ) -> Result<Program> {
        let (mut words, origin) = self
            .spirv_cache
            .load(source, self.subgroups)
            .map_err(compile_error)?;
        let check = |words: &[u32]| {
            let module = Module::parse(words).map_err(Rejected::Module)?;
            module.check(&self.allowed, interface)?;
            Ok::<_, Rejected>(module)
        };
        let mut checked = check(&words);
        if let (Err(why), Origin::Disk) = (&checked, origin) {
            tracing::debug!(
                "vulkan: cached SPIR-V rejected ({}); compiling again",
                why.text()
            );
            stats::count(&stats::SPIRV_REJECTED);
            words = self
                .spirv_cache
                .rebuild(source, self.subgroups)
                .map_err(compile_error)?;
            checked = check(&words);
        }
        // A shader whose interface is not its kernel's is the caller's
        // mistake (one line, a usage error); one the device cannot run is a
        // build failure.
        let spirv = checked.map_err(|rejected| match rejected {
            Rejected::Module(log) => compile_error(log),
            Rejected::Interface(why) => Error::InvalidArgument(format!("kernel '{label}': {why}")),
        })?;
        // SAFETY: `words` is glslang's output for this source (or a cached
        // copy of it: the disk cache's checksum guarantees the bytes glslang
        // produced under this key), and it passed `Module::check`: SPIR-V at
        // most 1.3 (what Vulkan 1.1 accepts), using only capabilities and
        // extensions this device was created with.
        let module = unsafe { ShaderModule::new(&self.device, &words)? };
        let layout = Layout::new(&self.device, interface.bindings, push_bytes)?;
        Ok(Program {
            module,
            layout,
            spirv,
        })
    }
}
