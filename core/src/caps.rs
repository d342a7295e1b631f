//! What a device is and what it can do, read from the device itself.

use serde::Serialize;
use std::fmt;

/// The compute APIs rosetta speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Api {
    Cpu,
    Wgpu,
    Vulkan,
    Opencl,
    Cuda,
}

impl Api {
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

    pub fn from_name(name: &str) -> Option<Api> {
        Api::ALL
            .into_iter()
            .find(|api| api.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceType {
    Cpu,
    DiscreteGpu,
    IntegratedGpu,
    VirtualGpu,
    Other,
}

impl DeviceType {
    pub fn is_cpu(self) -> bool {
        self == DeviceType::Cpu
    }
}

/// Limits and features of one device, as its API reports them.
///
/// Plans in `rosetta-kernels` pick launch geometry and variants from these
/// numbers; backends refuse launches that exceed them with
/// [`crate::Error::ExceedsLimit`] before the request reaches the API.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Capabilities {
    pub device_type: DeviceType,
    /// The most workgroup shared memory one kernel may use, in bytes (for CUDA
    /// the opt-in maximum, which the backend unlocks per kernel when needed).
    pub max_shared_bytes: u32,
    /// Largest workgroup extent per axis.
    pub max_group_size: [u32; 3],
    /// Largest number of invocations in one workgroup.
    pub max_group_invocations: u32,
    /// Largest number of workgroups per dispatch axis.
    pub max_groups: [u32; 3],
    /// Smallest and largest subgroup (warp, wavefront, SIMD width) size the
    /// device may run with; `None` when the API does not say.
    pub subgroup_sizes: Option<[u32; 2]>,
    /// Kernels may use the subgroup variants (subgroup arithmetic / shuffles).
    pub subgroup_ops: bool,
    /// Atomic add on f32 in global memory.
    pub float_atomics: bool,
    /// The API has device-side timestamps (otherwise timing is host wall clock).
    pub timestamps: bool,
    /// Largest single buffer, in bytes.
    pub max_buffer_bytes: u64,
    /// Device memory (or host memory for CPU devices), in bytes; 0 if unknown.
    pub memory_bytes: u64,
    /// Compute units (SMs, CUs, cores); 0 if the API does not say.
    pub compute_units: u32,
}

impl Capabilities {
    /// How many workgroups a grid-stride kernel should launch to fill the
    /// device: enough resident groups per compute unit to hide latency, capped
    /// so the second reduction pass stays one workgroup's worth of work.
    pub fn saturating_groups(&self, group_size: u32) -> u32 {
        let per_unit = (2048 / group_size.max(1)).max(1);
        let wanted = if self.compute_units > 0 {
            self.compute_units.saturating_mul(per_unit)
        } else {
            256
        };
        wanted.clamp(1, 2048.min(self.max_groups[0]))
    }
}

/// One device as listed by `rosetta devices`.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceInfo {
    pub api: Api,
    /// Position within its API's list (the `N` of the `api:N` selector).
    pub index: usize,
    pub name: String,
    /// Driver / platform / adapter backend details, free text.
    pub driver: String,
    pub caps: Capabilities,
}

impl DeviceInfo {
    /// `api:index`, the stable short id used in tables and selectors.
    pub fn id(&self) -> String {
        format!("{}:{}", self.api, self.index)
    }
}
