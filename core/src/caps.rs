//! What a device is and what it can do, read from the device itself.

use crate::api::Api;
use serde::{Deserialize, Serialize};

/// The kind of device, as its API reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceType {
    /// A CPU (the CPU backend, lavapipe, PoCL).
    Cpu,
    /// A GPU with its own memory.
    DiscreteGpu,
    /// A GPU sharing the host's memory.
    IntegratedGpu,
    /// A virtualised GPU.
    VirtualGpu,
    /// Anything else.
    Other,
}

impl DeviceType {
    /// Whether the device is a CPU.
    pub fn is_cpu(self) -> bool {
        self == DeviceType::Cpu
    }

    /// Whether the device is a GPU (discrete, integrated or virtual).
    pub fn is_gpu(self) -> bool {
        matches!(
            self,
            DeviceType::DiscreteGpu | DeviceType::IntegratedGpu | DeviceType::VirtualGpu
        )
    }
}

/// Limits and features of one device, as its API reports them.
///
/// Plans pick launch geometry and variants from these numbers; the checked
/// layer refuses launches that exceed them with
/// [`crate::Error::ExceedsLimit`] before the request reaches the API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capabilities {
    /// CPU, discrete GPU, ...
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
    /// Loop iterations one invocation may run before the driver stops its
    /// loops *silently* (llvmpipe/lavapipe: 65 535, shared by every loop of
    /// the shader); `None` where the driver has no such cap. Plans keep every
    /// invocation's loop count under [`Capabilities::loop_budget`].
    pub loop_limit: Option<u32>,
    /// Kernels have a device-scope release / acquire fence, so one workgroup
    /// can see another's global writes within a launch (a reduction then
    /// finishes in one launch: the last workgroup combines the others'
    /// values). CUDA (`__threadfence`), Vulkan (`memoryBarrier` at device
    /// scope), the CPU backend; OpenCL only where the driver takes NVIDIA's
    /// inline PTX (OpenCL C 1.2's fences order one work-item's accesses).
    /// Absent in JSON written before the field existed: `false`.
    #[serde(default)]
    pub device_fence: bool,
    /// Kernels can copy global memory to shared memory asynchronously (PTX
    /// `cp.async`, sm_80 and later): CUDA, and OpenCL through NVIDIA's inline
    /// PTX. The matmul keeps several slices in flight with it.
    #[serde(default)]
    pub async_copy: bool,
}

impl Capabilities {
    /// How many workgroups a grid-stride kernel should launch to fill the
    /// device: enough resident groups per compute unit to hide latency, capped
    /// so a second reduction pass stays one workgroup's worth of work.
    pub fn saturating_groups(&self, group_size: u32) -> u32 {
        let per_unit = (2048 / group_size.max(1)).max(1);
        let wanted = if self.compute_units > 0 {
            self.compute_units.saturating_mul(per_unit)
        } else {
            256
        };
        wanted.clamp(1, 2048.min(self.max_groups[0]))
    }

    /// The loop iterations a plan may give one invocation in total (every
    /// loop of the kernel counted, nested loops multiplied): a quarter of the
    /// driver's cap, since how a compiler counts a source loop (unrolled, or
    /// as several loops) is not known; unbounded where there is no cap.
    pub fn loop_budget(&self) -> u64 {
        match self.loop_limit {
            Some(limit) => u64::from(limit / 4).max(1),
            None => u64::MAX,
        }
    }
}

impl Capabilities {
    /// The capabilities of a software device like lavapipe: a CPU with
    /// 32 KiB of shared memory, 1024-invocation groups, 65 535 groups per
    /// axis, 1 GiB buffers, no subgroups, device timers, a device fence (as
    /// lavapipe's Vulkan has), and the silent
    /// 65 535-iteration loop cap. For unit tests of plan geometry; override
    /// fields with struct-update syntax.
    pub fn software_device() -> Capabilities {
        Capabilities {
            device_type: DeviceType::Cpu,
            max_shared_bytes: 32 << 10,
            max_group_size: [1024, 1024, 1024],
            max_group_invocations: 1024,
            max_groups: [65_535, 65_535, 65_535],
            subgroup_sizes: None,
            subgroup_ops: false,
            float_atomics: false,
            timestamps: true,
            max_buffer_bytes: 1 << 30,
            memory_bytes: 0,
            compute_units: 0,
            loop_limit: Some(65_535),
            device_fence: true,
            async_copy: false,
        }
    }
}

/// Where a device sits on the machine, where its API says: lets reports
/// recognise one GPU seen through several APIs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhysicalId {
    /// PCI bus id, `domain:bus:device.function` in hex (`0000:1b:00.0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_bus_id: Option<String>,
    /// Device UUID as 32 hex digits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

impl PhysicalId {
    /// A stable key for grouping: the PCI bus id, else the UUID, else `None`.
    pub fn key(&self) -> Option<String> {
        self.pci_bus_id
            .as_ref()
            .map(|p| format!("pci:{}", p.to_ascii_lowercase()))
            .or_else(|| {
                self.uuid
                    .as_ref()
                    .map(|u| format!("uuid:{}", u.to_ascii_lowercase()))
            })
    }
}

/// One device as listed by `rosetta devices`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// The API it is reached through.
    pub api: Api,
    /// Position within its API's list (the `N` of the `api:N` selector).
    pub index: usize,
    /// The device's name.
    pub name: String,
    /// Driver / platform / adapter backend details, free text.
    pub driver: String,
    /// The driver's version, as compiled-kernel caches key on it.
    #[serde(default)]
    pub driver_version: String,
    /// Where the device sits on the machine, where the API says.
    #[serde(default)]
    pub physical: PhysicalId,
    /// Limits and features.
    pub caps: Capabilities,
}

impl DeviceInfo {
    /// `api:index`, the stable short id used in tables and selectors.
    pub fn id(&self) -> String {
        format!("{}:{}", self.api, self.index)
    }
}

/// Whether a driver named `name` / `driver` is Mesa's llvmpipe (lavapipe),
/// whose loops stop silently after 65 535 iterations per invocation.
pub fn llvmpipe_loop_limit(name: &str, driver: &str) -> Option<u32> {
    let text = format!("{name} {driver}").to_ascii_lowercase();
    (text.contains("llvmpipe") || text.contains("lavapipe")).then_some(65_535)
}
