//! Discovery: the loader is opened at run time, every physical device
//! becomes one device (in the loader's order: `vulkan:N`), opened fresh on
//! every call; what it is and what it can do are read from the device
//! (properties, limits, features, memory heaps, the chosen queue family).

use crate::compile::{Compiler, GroupLimits};
use crate::driver::{Parts, VulkanDriver};
use crate::pipeline_store::{CacheIdentity, PipelineStore};
use crate::queue::Queue;
use crate::timing::Timer;
use crate::transfer::Transfers;
use crate::validation::{self, ROBUSTNESS_ENV, STAGING_ENV, STATISTICS_ENV, VALIDATION_ENV};
use crate::vk::device::{Device, Wanted};
use crate::vk::error::c_text;
use crate::vk::instance::{Instance, PhysicalDevice, PhysicalInfo};
use crate::vk::memory::Memory;
use ash::vk;
use rosetta_core::{
    checked, llvmpipe_loop_limit, Api, Backend, Capabilities, DeviceInfo, DeviceType, Error,
    PhysicalId, Result,
};
use std::sync::Arc;

/// PCI vendor id of NVIDIA.
const NVIDIA: u32 = 0x10de;

/// How [`discover_with`] opens devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Enable VK_LAYER_KHRONOS_validation and collect its messages in
    /// `take_diagnostics` (`ROSETTA_VULKAN_VALIDATION=1`).
    pub validation: bool,
    /// Move data through staging buffers even where device-local memory is
    /// mapped (`ROSETTA_VULKAN_STAGING=1`), so the discrete-GPU path can be
    /// tested on lavapipe.
    pub force_staging: bool,
}

impl Options {
    /// The options the environment asks for.
    pub fn from_env() -> Self {
        Options {
            validation: validation::flag(VALIDATION_ENV),
            force_staging: validation::flag(STAGING_ENV),
        }
    }
}

/// Every Vulkan physical device, opened, with the options the environment
/// asks for ([`Options::from_env`]). `Err(Unavailable)` when the loader or a
/// driver is missing (or validation was asked for and the layer is not
/// installed); devices that fail to open are skipped (logged), unless all do.
pub fn discover() -> Result<Vec<Arc<dyn Backend>>> {
    discover_with(Options::from_env())
}

/// [`discover`] with explicit options, whatever the environment says.
pub fn discover_with(options: Options) -> Result<Vec<Arc<dyn Backend>>> {
    // One discovery at a time, and no call of an exclusive (NVIDIA) device
    // meanwhile (see `vk::live::serialized`).
    crate::vk::live::serialized(|| discover_now(options))
}

fn discover_now(options: Options) -> Result<Vec<Arc<dyn Backend>>> {
    let instance = Instance::new(options.validation)?;
    let physicals = instance.physical_devices()?;
    if physicals.is_empty() {
        return Err(Error::Unavailable {
            api: Api::Vulkan,
            reason: "the Vulkan loader found no physical device (is a driver / ICD installed?)"
                .into(),
        });
    }
    let mut devices = Vec::new();
    let mut first_error = None;
    let mut skipped = Vec::new();
    for (index, physical) in physicals.iter().enumerate() {
        match open(&instance, physical, index, options) {
            Ok(device) => {
                tracing::debug!(index, name = %device.info().name, "vulkan: device opened");
                devices.push(device);
            }
            Err(e) => {
                skipped.push((index, e.chain()));
                first_error.get_or_insert(e);
            }
        }
    }
    // Said once: as a warning beside the devices that opened, else in the
    // error (one line, not a warning before it too).
    if !devices.is_empty() {
        for (index, why) in &skipped {
            tracing::warn!(index, "vulkan: skipping a physical device: {why}");
        }
    }
    match (devices.is_empty(), first_error) {
        (true, Some(e)) => Err(e),
        _ => Ok(devices),
    }
}

/// The queue family to use: the first with compute and timestamps, else the
/// first with compute.
fn choose_family(families: &[vk::QueueFamilyProperties]) -> Option<usize> {
    let compute = |f: &vk::QueueFamilyProperties| {
        f.queue_flags.contains(vk::QueueFlags::COMPUTE) && f.queue_count > 0
    };
    families
        .iter()
        .position(|f| compute(f) && f.timestamp_valid_bits > 0)
        .or_else(|| families.iter().position(compute))
}

fn open(
    instance: &Arc<Instance>,
    physical: &PhysicalDevice,
    index: usize,
    options: Options,
) -> Result<Arc<dyn Backend>> {
    let info = physical.info()?;
    let props = &info.properties;
    let limits = &props.limits;
    let name = c_text(&props.device_name);
    let family = choose_family(&info.queue_families).ok_or_else(|| {
        Error::unsupported(Api::Vulkan, format!("{name}: no queue family with compute"))
    })?;
    let (device, device_queue) = Device::new(
        physical,
        family as u32,
        Wanted {
            float_atomic_add: true,
            wide_and_narrow_types: true,
            pipeline_statistics: validation::flag(STATISTICS_ENV),
            robust_buffer_access: validation::flag(ROBUSTNESS_ENV),
        },
    )?;
    let timestamp_bits = device.limits().timestamp_bits;
    let timestamps = timestamp_bits > 0;
    let memory = Memory::new(&device)?;
    let queue = Queue::new(device_queue);
    let timer = Timer::new(&queue, timestamp_bits, limits.timestamp_period)?;
    let store = PipelineStore::open(
        &device,
        CacheIdentity {
            vendor_id: props.vendor_id,
            device_id: props.device_id,
            driver_version: props.driver_version,
            uuid: props.pipeline_cache_uuid,
            robust_buffer_access: device.enabled().robust_buffer_access,
        },
    )?;
    let caps = capabilities(&info, timestamps);
    let compiler = Compiler::new(
        Arc::clone(&device),
        store,
        caps.subgroup_ops,
        GroupLimits {
            size: limits.max_compute_work_group_size,
            invocations: limits.max_compute_work_group_invocations,
            shared_bytes: limits.max_compute_shared_memory_size,
        },
    );
    let driver_text = driver_text(&info, options);
    let device_info = DeviceInfo {
        api: Api::Vulkan,
        index,
        caps: Capabilities {
            loop_limit: llvmpipe_loop_limit(&name, &driver_text),
            ..caps
        },
        name,
        driver: driver_text,
        driver_version: driver_version(&info),
        physical: physical_id(&info),
    };
    // NVIDIA's driver deadlocked with devices used from several threads at
    // once (see `driver`): its devices run one call at a time, process-wide.
    let exclusive = props.vendor_id == NVIDIA;
    let driver = VulkanDriver::new(
        Parts {
            compiler,
            timer,
            transfers: Transfers::new(memory, options.force_staging),
            diagnostics: Arc::clone(instance.diagnostics()),
            queue,
        },
        exclusive,
    );
    Ok(checked::open(device_info, driver))
}

/// Capabilities as the device reports them.
fn capabilities(info: &PhysicalInfo, timestamps: bool) -> Capabilities {
    let limits = &info.properties.limits;
    let subgroup_ops = info.subgroup_stages.contains(vk::ShaderStageFlags::COMPUTE)
        && info
            .subgroup_operations
            .contains(vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::ARITHMETIC);
    let subgroup_sizes = info
        .subgroup_range
        .filter(|r| r[0] > 0 && r[1] >= r[0])
        .or((info.subgroup_size > 0).then_some([info.subgroup_size, info.subgroup_size]));
    // The largest buffer a kernel can bind whole: the storage-buffer range,
    // the largest allocation and (maintenance4) the largest buffer, rounded
    // down to the 16-byte granule every allocation is rounded up to.
    let mut max_buffer = u64::from(limits.max_storage_buffer_range).min(info.max_allocation.max(1));
    if let Some(b) = info.max_buffer {
        max_buffer = max_buffer.min(b);
    }
    let device_type = match info.properties.device_type {
        vk::PhysicalDeviceType::CPU => DeviceType::Cpu,
        vk::PhysicalDeviceType::DISCRETE_GPU => DeviceType::DiscreteGpu,
        vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceType::IntegratedGpu,
        vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceType::VirtualGpu,
        _ => DeviceType::Other,
    };
    let memory = &info.memory;
    let memory_bytes = memory.memory_heaps[..memory.memory_heap_count as usize]
        .iter()
        .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .map(|h| h.size)
        .sum();
    Capabilities {
        device_type,
        max_shared_bytes: limits.max_compute_shared_memory_size,
        max_group_size: limits.max_compute_work_group_size,
        max_group_invocations: limits.max_compute_work_group_invocations,
        max_groups: limits.max_compute_work_group_count,
        subgroup_sizes,
        subgroup_ops,
        float_atomics: info.float_atomic_add,
        timestamps,
        max_buffer_bytes: max_buffer / 16 * 16,
        memory_bytes,
        compute_units: info.sm_count.or(info.amd_compute_units).unwrap_or(0),
        loop_limit: None,
        // GLSL's memoryBarrier at device scope (Vulkan memory model).
        device_fence: true,
        async_copy: false,
    }
}

/// driverVersion decoded the way the vendor packs it.
fn decoded_driver_version(vendor: u32, version: u32) -> String {
    match vendor {
        // NVIDIA packs 10.8.8.6 bits.
        NVIDIA => format!(
            "{}.{}.{}.{}",
            version >> 22,
            (version >> 14) & 0xff,
            (version >> 6) & 0xff,
            version & 0x3f
        ),
        // Intel on Windows packs 18.14 bits.
        0x8086 if cfg!(windows) => format!("{}.{}", version >> 14, version & 0x3fff),
        _ => format!(
            "{}.{}.{}",
            vk::api_version_major(version),
            vk::api_version_minor(version),
            vk::api_version_patch(version)
        ),
    }
}

/// The driver's version for cache keys: driverVersion decoded, plus
/// driverInfo (VkPhysicalDeviceDriverProperties) where the device has it.
fn driver_version(info: &PhysicalInfo) -> String {
    let props = &info.properties;
    let decoded = decoded_driver_version(props.vendor_id, props.driver_version);
    match &info.driver {
        Some((_, text)) if !text.is_empty() => format!("{decoded} ({text})"),
        _ => decoded,
    }
}

/// Driver name and version, API version (and the options in effect).
fn driver_text(info: &PhysicalInfo, options: Options) -> String {
    let props = &info.properties;
    let v = props.api_version;
    let api = format!(
        "Vulkan {}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    );
    let driver = match &info.driver {
        Some((name, text)) if !text.is_empty() => format!("{name} {text}"),
        Some((name, _)) if !name.is_empty() => name.clone(),
        _ => format!(
            "vendor {:#06x} driver {}",
            props.vendor_id,
            decoded_driver_version(props.vendor_id, props.driver_version)
        ),
    };
    let mut text = format!("{driver}, {api}");
    if options.validation {
        text.push_str(", validation layer on");
    }
    if options.force_staging {
        text.push_str(", staging forced");
    }
    text
}

/// The PCI bus id (VK_EXT_pci_bus_info) and device UUID (Vulkan 1.1).
fn physical_id(info: &PhysicalInfo) -> PhysicalId {
    let uuid = info.device_uuid.iter().any(|&b| b != 0).then(|| {
        info.device_uuid
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    });
    PhysicalId {
        pci_bus_id: info.pci.map(|[domain, bus, device, function]| {
            format!("{domain:04x}:{bus:02x}:{device:02x}.{function:x}")
        }),
        uuid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_versions_decode_per_vendor() {
        assert_eq!(
            decoded_driver_version(0x10de, (535 << 22) | (104 << 14) | (5 << 6)),
            "535.104.5.0"
        );
        assert_eq!(
            decoded_driver_version(0x10005, vk::make_api_version(0, 0, 0, 1)),
            "0.0.1"
        );
    }

    #[test]
    fn queue_families_prefer_timestamps() {
        let family = |flags, bits| vk::QueueFamilyProperties {
            queue_flags: flags,
            queue_count: 1,
            timestamp_valid_bits: bits,
            ..Default::default()
        };
        let families = [
            family(vk::QueueFlags::GRAPHICS, 64),
            family(vk::QueueFlags::COMPUTE, 0),
            family(vk::QueueFlags::COMPUTE, 64),
        ];
        assert_eq!(choose_family(&families), Some(2));
        assert_eq!(choose_family(&families[..2]), Some(1));
        assert_eq!(choose_family(&families[..1]), None);
    }
}
