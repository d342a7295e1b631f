//! Device discovery and capabilities: the loader is opened at run time, every
//! physical device becomes one device, and every limit is read from
//! VkPhysicalDeviceLimits, the subgroup / size-control / maintenance
//! properties, the memory heaps and the chosen queue family.

use crate::device::{QueueSetup, VulkanDevice};
use crate::gpu::{c_text, Gpu, Instance, PhysicalInfo};
use crate::memory::MemoryTypes;
use crate::validation;
use ash::vk;
use rosetta_core::{Api, Backend, Capabilities, DeviceInfo, DeviceType, Error, Result};
use std::ffi::CStr;
use std::sync::Arc;

/// Every Vulkan physical device, as a backend. `Err(Unavailable)` when the
/// loader or a driver is missing (or validation was asked for and the layer
/// is not installed).
pub fn discover() -> Result<Vec<Arc<dyn Backend>>> {
    Ok(discover_devices()?
        .into_iter()
        .map(|d| d as Arc<dyn Backend>)
        .collect())
}

/// How [`discover_devices_with`] opens devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Enable VK_LAYER_KHRONOS_validation and collect its messages
    /// (`ROSETTA_VULKAN_VALIDATION=1`).
    pub validation: bool,
    /// Keep storage buffers unmapped and move data through staging buffers
    /// even on unified-memory devices (`ROSETTA_VULKAN_STAGING=1`), so the
    /// discrete-GPU path can be tested on lavapipe.
    pub force_staging: bool,
}

impl Options {
    /// The options the environment asks for.
    pub fn from_env() -> Self {
        Options {
            validation: validation::requested(),
            force_staging: validation::flag(validation::STAGING_ENV),
        }
    }
}

/// [`discover`], keeping the concrete type (for its live-object counters).
pub fn discover_devices() -> Result<Vec<Arc<VulkanDevice>>> {
    discover_devices_with(Options::from_env())
}

/// [`discover_devices`] with explicit options, whatever the environment says.
pub fn discover_devices_with(options: Options) -> Result<Vec<Arc<VulkanDevice>>> {
    let validation = options.validation;
    let instance = Arc::new(Instance::new(validation)?);
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
    for (index, physical) in physicals.into_iter().enumerate() {
        match open(&instance, physical, index, options) {
            Ok(device) => {
                tracing::debug!(index, name = %device.info().name, "vulkan: device opened");
                devices.push(Arc::new(device));
            }
            Err(e) => {
                tracing::warn!(index, error = %e, "vulkan: skipping a physical device");
                first_error.get_or_insert(e);
            }
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
    physical: vk::PhysicalDevice,
    index: usize,
    options: Options,
) -> Result<VulkanDevice> {
    let info = instance.physical_info(physical)?;
    let name = c_text(&info.properties.device_name);
    if info.device_version < vk::API_VERSION_1_1 {
        return Err(Error::Unsupported(format!(
            "{name}: Vulkan {}.{} device; rosetta needs 1.1",
            vk::api_version_major(info.device_version),
            vk::api_version_minor(info.device_version)
        )));
    }
    let family = choose_family(&info.queue_families)
        .ok_or_else(|| Error::Unsupported(format!("{name}: no queue family with compute")))?;
    let limits = &info.properties.limits;
    let timestamp_bits = info.queue_families[family].timestamp_valid_bits;
    let timestamps = timestamp_bits > 0 && limits.timestamp_period > 0.0;
    let mut extensions: Vec<&CStr> = Vec::new();
    if info.float_atomic_add {
        extensions.push(ash::ext::shader_atomic_float::NAME);
    }
    let gpu = Gpu::new(
        Arc::clone(instance),
        physical,
        family as u32,
        &extensions,
        info.float_atomic_add,
    )?;
    let types = MemoryTypes::new(info.memory, options.force_staging);
    let caps = capabilities(&info, &types, timestamps);
    let device_info = DeviceInfo {
        api: Api::Vulkan,
        index,
        name,
        driver: driver_text(&info, options),
        caps,
    };
    VulkanDevice::new(
        gpu,
        device_info,
        types,
        QueueSetup {
            family: family as u32,
            timestamp_bits: if timestamps { timestamp_bits } else { 0 },
            timestamp_period: limits.timestamp_period,
            max_push_bytes: limits.max_push_constants_size,
        },
    )
}

/// Capabilities as the device reports them.
fn capabilities(info: &PhysicalInfo, types: &MemoryTypes, timestamps: bool) -> Capabilities {
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
    // the largest allocation and (Vulkan 1.3) the largest buffer, rounded down
    // to the 16-byte granule every allocation is rounded up to.
    let mut max_buffer = u64::from(limits.max_storage_buffer_range).min(info.max_allocation.max(1));
    if let Some(b) = info.max_buffer {
        max_buffer = max_buffer.min(b);
    }
    let max_buffer = max_buffer / 16 * 16;
    let device_type = match info.properties.device_type {
        vk::PhysicalDeviceType::CPU => DeviceType::Cpu,
        vk::PhysicalDeviceType::DISCRETE_GPU => DeviceType::DiscreteGpu,
        vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceType::IntegratedGpu,
        vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceType::VirtualGpu,
        _ => DeviceType::Other,
    };
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
        max_buffer_bytes: max_buffer,
        memory_bytes: types.device_local_bytes(),
        compute_units: info.sm_count.or(info.amd_compute_units).unwrap_or(0),
    }
}

/// Driver name and version, API version (and whether validation is on).
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
        Some((name, _)) => name.clone(),
        None => {
            let d = props.driver_version;
            if props.vendor_id == 0x10de {
                // NVIDIA packs 10.8.8.6 bits.
                format!(
                    "NVIDIA {}.{}.{}",
                    d >> 22,
                    (d >> 14) & 0xff,
                    (d >> 6) & 0xff
                )
            } else {
                format!(
                    "vendor {:#06x} driver {}.{}.{}",
                    props.vendor_id,
                    vk::api_version_major(d),
                    vk::api_version_minor(d),
                    vk::api_version_patch(d)
                )
            }
        }
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
