//! One kernel written in five languages, and the constants that specialise it.

use crate::backend::{BufferId, Launch};
use crate::caps::{Api, Capabilities};
use crate::error::{Error, Result};
use crate::workgroup::CpuKernel;

/// How a kernel uses one of its buffer bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    ReadWrite,
}

/// The kernel languages, one per API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Wgsl,
    Cuda,
    Glsl,
    OpenCl,
    Rust,
}

/// The source text of one kernel in each GPU language (`include_str!`'d from
/// `kernels/<op>/<op>.{wgsl,cu,comp,cl}`).
#[derive(Debug, Clone, Copy)]
pub struct Sources {
    pub wgsl: &'static str,
    pub cuda: &'static str,
    pub glsl: &'static str,
    pub opencl: &'static str,
}

/// The interface of one kernel, identical in every language.
///
/// - Entry point: `name` in WGSL, CUDA (`extern "C" __global__`) and OpenCL C;
///   `main` in GLSL.
/// - Constants: each name in `constants` is a `u32` constant. WGSL: an
///   `override` of that name; GLSL: a specialization constant whose
///   `constant_id` is its position in `constants` (`GROUP_SIZE` is always
///   position 0 and is also `local_size_x_id = 0`); CUDA and OpenCL C: a
///   `-D NAME=value` define.
/// - Buffers: binding `i` is `bindings[i]`, a storage buffer of 32-bit words.
///   WGSL `@group(0) @binding(i)`; GLSL `set = 0, binding = i`; CUDA and OpenCL:
///   the i-th kernel argument (a pointer).
/// - Params: 32-bit words, in order (f32 values passed as their bits). WGSL: a
///   uniform struct at `@group(0) @binding(bindings.len())`; GLSL: a push
///   constant block; CUDA and OpenCL: scalar arguments after the buffers.
/// - Dynamic shared memory (`dynamic_shared`): CUDA declares
///   `extern __shared__` memory sized by [`crate::Launch::shared_bytes`]; OpenCL
///   takes a trailing `__local` pointer argument of that size.
#[derive(Debug)]
pub struct KernelDef {
    pub name: &'static str,
    pub constants: &'static [&'static str],
    pub bindings: &'static [Access],
    pub params: &'static [&'static str],
    pub dynamic_shared: bool,
    pub sources: Sources,
    /// The Rust version, run by the CPU backend's workgroup model.
    pub cpu: CpuKernel,
}

impl KernelDef {
    /// The source for a GPU API (`None` for the CPU, which runs [`Self::cpu`]).
    pub fn source(&self, api: Api) -> Option<&'static str> {
        match api {
            Api::Wgpu => Some(self.sources.wgsl),
            Api::Vulkan => Some(self.sources.glsl),
            Api::Opencl => Some(self.sources.opencl),
            Api::Cuda => Some(self.sources.cuda),
            Api::Cpu => None,
        }
    }

    /// Index of a constant by name.
    pub fn constant_index(&self, name: &str) -> Option<usize> {
        self.constants.iter().position(|c| *c == name)
    }

    /// Check a launch of this kernel before any API call: the device's limits
    /// ([`Launch::validate`]), the buffer and param counts, no buffer bound
    /// twice (kernels declare their pointers `restrict`), and the workgroup
    /// size the kernel was built for (its `GROUP_SIZE` constant).
    pub fn check_launch(
        &self,
        caps: &Capabilities,
        built_group_size: u32,
        launch: &Launch,
        buffers: &[BufferId],
        params: &[u32],
    ) -> Result<()> {
        launch.validate(caps)?;
        let wrong = |what: String| {
            Err(Error::InvalidArgument(format!(
                "kernel '{}' {what}",
                self.name
            )))
        };
        if buffers.len() != self.bindings.len() {
            return wrong(format!(
                "takes {} buffers, got {}",
                self.bindings.len(),
                buffers.len()
            ));
        }
        if params.len() != self.params.len() {
            return wrong(format!(
                "takes {} params, got {}",
                self.params.len(),
                params.len()
            ));
        }
        if (1..buffers.len()).any(|i| buffers[..i].contains(&buffers[i])) {
            return wrong("has one buffer bound twice".into());
        }
        if launch.group_size != built_group_size {
            return wrong(format!(
                "was built for workgroups of {built_group_size} invocations, launched with {}",
                launch.group_size
            ));
        }
        Ok(())
    }
}

/// A kernel plus a value for every one of its constants (cache key).
#[derive(Debug, Clone)]
pub struct KernelSpec {
    pub kernel: &'static KernelDef,
    /// Values in the order of `kernel.constants`.
    pub values: Vec<u32>,
}

impl KernelSpec {
    /// Build a spec from `(name, value)` pairs; every constant must be given
    /// exactly once.
    pub fn new(kernel: &'static KernelDef, constants: &[(&str, u32)]) -> Result<Self> {
        let mut values = vec![None; kernel.constants.len()];
        for &(name, value) in constants {
            let index = kernel.constant_index(name).ok_or_else(|| {
                Error::InvalidArgument(format!("kernel '{}' has no constant '{name}'", kernel.name))
            })?;
            if values[index].replace(value).is_some() {
                return Err(Error::InvalidArgument(format!(
                    "constant '{name}' of kernel '{}' given twice",
                    kernel.name
                )));
            }
        }
        let values = values
            .into_iter()
            .zip(kernel.constants)
            .map(|(value, name)| {
                value.ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "constant '{name}' of kernel '{}' not given",
                        kernel.name
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(KernelSpec { kernel, values })
    }

    /// `(name, value)` pairs in declaration order.
    pub fn constants(&self) -> impl Iterator<Item = (&'static str, u32)> + '_ {
        self.kernel
            .constants
            .iter()
            .copied()
            .zip(self.values.iter().copied())
    }

    pub fn value(&self, name: &str) -> Option<u32> {
        self.kernel.constant_index(name).map(|i| self.values[i])
    }

    /// A stable cache key: kernel name plus constants.
    pub fn cache_key(&self) -> String {
        let mut key = self.kernel.name.to_string();
        for (name, value) in self.constants() {
            key.push_str(&format!(" {name}={value}"));
        }
        key
    }

    /// `-D NAME=value` options for the C-family compilers (CUDA, OpenCL).
    pub fn defines(&self) -> Vec<String> {
        self.constants()
            .map(|(name, value)| format!("-D{name}={value}u"))
            .collect()
    }
}
