//! The compute APIs rosetta speaks and the kernel language each one compiles.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A compute API: one backend crate each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Api {
    /// The CPU backend: the kernels' Rust versions under the workgroup model.
    Cpu,
    /// wgpu (WebGPU on Vulkan, GL, Metal, DX12): WGSL kernels.
    Wgpu,
    /// Vulkan through ash: GLSL compiled to SPIR-V.
    Vulkan,
    /// OpenCL: OpenCL C built at run time.
    Opencl,
    /// CUDA: CUDA C through NVRTC.
    Cuda,
}

impl Api {
    /// Every API, in the order devices are listed.
    pub const ALL: [Api; 5] = [Api::Cpu, Api::Wgpu, Api::Vulkan, Api::Opencl, Api::Cuda];

    /// The lower-case name used by selectors, features and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Api::Cpu => "cpu",
            Api::Wgpu => "wgpu",
            Api::Vulkan => "vulkan",
            Api::Opencl => "opencl",
            Api::Cuda => "cuda",
        }
    }

    /// The API called `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Api> {
        Api::ALL
            .into_iter()
            .find(|api| api.name().eq_ignore_ascii_case(name))
    }

    /// The kernel language this API's backend compiles.
    pub fn language(self) -> Language {
        match self {
            Api::Cpu => Language::Rust,
            Api::Wgpu => Language::Wgsl,
            Api::Vulkan => Language::Glsl,
            Api::Opencl => Language::OpenCl,
            Api::Cuda => Language::Cuda,
        }
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A kernel language. Every API compiles exactly one ([`Api::language`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// WGSL, for wgpu.
    Wgsl,
    /// CUDA C, for NVRTC.
    Cuda,
    /// GLSL compute shaders, compiled to SPIR-V for Vulkan.
    Glsl,
    /// OpenCL C.
    OpenCl,
    /// Rust, run by the CPU backend's workgroup model (a closure, not text).
    Rust,
}

impl Language {
    /// Every language.
    pub const ALL: [Language; 5] = [
        Language::Wgsl,
        Language::Cuda,
        Language::Glsl,
        Language::OpenCl,
        Language::Rust,
    ];

    /// The name used in messages and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Language::Wgsl => "WGSL",
            Language::Cuda => "CUDA C",
            Language::Glsl => "GLSL",
            Language::OpenCl => "OpenCL C",
            Language::Rust => "Rust",
        }
    }

    /// The file extension kernels in this language use in `kernels/<op>/`.
    pub fn extension(self) -> &'static str {
        match self {
            Language::Wgsl => "wgsl",
            Language::Cuda => "cu",
            Language::Glsl => "comp",
            Language::OpenCl => "cl",
            Language::Rust => "rs",
        }
    }

    /// Whether kernels in this language are source text (every language but
    /// Rust, whose kernels are closures compiled with the program).
    pub fn is_text(self) -> bool {
        self != Language::Rust
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
