//! The logical device (`VkDevice`, shared by every object made from it) and
//! its one compute queue (owned by whoever submits).
//!
//! Ownership makes destruction order correct: every object of the device
//! holds an `Arc<Device>`, so `vkDestroyDevice` runs after all of them are
//! destroyed; the device holds its instance the same way.

use crate::vk::error::vk_error;
use crate::vk::instance::{Instance, PhysicalDevice};
use crate::vk::live::{self, Kind};
use ash::vk;
use rosetta_core::Result;
use std::ffi::c_char;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The limits the `vk` wrappers check before recording a command.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The largest `VkBuffer` (maxBufferSize of maintenance4, else
    /// maxMemoryAllocationSize).
    pub max_buffer_size: u64,
    /// maxStorageBufferRange.
    pub max_storage_buffer_range: u64,
    /// maxPushConstantsSize.
    pub max_push_bytes: u32,
    /// maxComputeWorkGroupCount.
    pub max_groups: [u32; 3],
    /// maxPerStageDescriptorStorageBuffers.
    pub max_storage_buffers: u32,
    /// timestampValidBits of the queue family (0: no timestamps).
    pub timestamp_bits: u32,
}

/// Optional features a device is asked for (each enabled only where the
/// physical device supports it).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Wanted {
    /// shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float).
    pub float_atomic_add: bool,
    /// shaderInt64, shaderFloat64 and shaderInt16.
    pub wide_and_narrow_types: bool,
    /// pipelineExecutableInfo (VK_KHR_pipeline_executable_properties).
    pub pipeline_statistics: bool,
    /// robustBufferAccess, and robustBufferAccess2 (VK_EXT_robustness2)
    /// where the device has it: the driver bounds-checks every buffer access.
    pub robust_buffer_access: bool,
}

/// What the device was created with: what a shader may use.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Enabled {
    /// shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float).
    pub float_atomic_add: bool,
    /// shaderInt64.
    pub int64: bool,
    /// shaderFloat64.
    pub float64: bool,
    /// shaderInt16.
    pub int16: bool,
    /// Subgroup operation classes supported in compute shaders.
    pub subgroup: vk::SubgroupFeatureFlags,
    /// pipelineExecutableInfo: pipelines capture their statistics.
    pub pipeline_statistics: bool,
    /// robustBufferAccess.
    pub robust_buffer_access: bool,
    /// robustBufferAccess2 (VK_EXT_robustness2).
    pub robust_buffer_access2: bool,
}

/// One logical device.
pub(crate) struct Device {
    raw: ash::Device,
    physical: vk::PhysicalDevice,
    family: u32,
    limits: Limits,
    enabled: Enabled,
    /// Serial numbers of command batches (see `vk::batch`).
    next_batch: AtomicU64,
    /// Kept alive until the device is destroyed.
    instance: Arc<Instance>,
}

impl Device {
    /// Create a logical device with one queue of `family`, enabling what
    /// `wanted` asks for where the physical device supports it. The limits
    /// the wrappers check and the features shaders may use are read from the
    /// physical device here, not taken from the caller.
    ///
    /// Returns the device and its only [`Queue`].
    pub(crate) fn new(
        physical: &PhysicalDevice,
        family: u32,
        wanted: Wanted,
    ) -> Result<(Arc<Device>, Queue)> {
        let info = physical.info()?;
        let Some(family_info) = info.queue_families.get(family as usize) else {
            return Err(crate::vk::error::internal(format!(
                "queue family {family} of {}",
                info.queue_families.len()
            )));
        };
        let supported = |feature: vk::Bool32| wanted.wide_and_narrow_types && feature == vk::TRUE;
        let robust = wanted.robust_buffer_access && info.features.robust_buffer_access == vk::TRUE;
        let enabled = Enabled {
            // `float_atomic_add` is only set when the extension is listed.
            float_atomic_add: wanted.float_atomic_add && info.float_atomic_add,
            int64: supported(info.features.shader_int64),
            float64: supported(info.features.shader_float64),
            int16: supported(info.features.shader_int16),
            subgroup: if info.subgroup_stages.contains(vk::ShaderStageFlags::COMPUTE) {
                info.subgroup_operations
            } else {
                vk::SubgroupFeatureFlags::empty()
            },
            // Only set when the extension is listed and the feature reported.
            pipeline_statistics: wanted.pipeline_statistics && info.pipeline_statistics,
            robust_buffer_access: robust,
            // The spec requires robustBufferAccess with robustBufferAccess2.
            robust_buffer_access2: robust && info.robust_buffer_access2,
        };
        let properties = &info.properties.limits;
        let limits = Limits {
            max_buffer_size: info.max_buffer.unwrap_or(info.max_allocation),
            max_storage_buffer_range: u64::from(properties.max_storage_buffer_range),
            max_push_bytes: properties.max_push_constants_size,
            max_groups: properties.max_compute_work_group_count,
            max_storage_buffers: properties.max_per_stage_descriptor_storage_buffers,
            timestamp_bits: if properties.timestamp_period > 0.0 {
                family_info.timestamp_valid_bits
            } else {
                0
            },
        };
        let priorities = [1.0f32];
        let queue_info = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let mut extensions: Vec<*const c_char> = Vec::new();
        if enabled.float_atomic_add {
            extensions.push(ash::ext::shader_atomic_float::NAME.as_ptr());
        }
        if enabled.pipeline_statistics {
            extensions.push(ash::khr::pipeline_executable_properties::NAME.as_ptr());
        }
        if enabled.robust_buffer_access2 {
            extensions.push(ash::ext::robustness2::NAME.as_ptr());
        }
        let features = vk::PhysicalDeviceFeatures::default()
            .robust_buffer_access(enabled.robust_buffer_access)
            .shader_int64(enabled.int64)
            .shader_float64(enabled.float64)
            .shader_int16(enabled.int16);
        let mut atomic_float = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default()
            .shader_buffer_float32_atomic_add(true);
        let mut create_info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_info)
            .enabled_extension_names(&extensions)
            .enabled_features(&features);
        let mut statistics = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
            .pipeline_executable_info(true);
        if enabled.float_atomic_add {
            create_info = create_info.push_next(&mut atomic_float);
        }
        if enabled.pipeline_statistics {
            create_info = create_info.push_next(&mut statistics);
        }
        let mut robustness2 =
            vk::PhysicalDeviceRobustness2FeaturesEXT::default().robust_buffer_access2(true);
        if enabled.robust_buffer_access2 {
            create_info = create_info.push_next(&mut robustness2);
        }
        if enabled.robust_buffer_access {
            tracing::info!(
                robust_buffer_access2 = enabled.robust_buffer_access2,
                "vulkan: device created with robust buffer access"
            );
        }
        let instance = Arc::clone(physical.instance());
        let created = live::serialized(|| {
            // SAFETY: `physical` belongs to `instance` (kept alive by the new
            // device); the queue family exists (checked above) and one queue is
            // asked of it; the extensions (VK_EXT_shader_atomic_float,
            // VK_KHR_pipeline_executable_properties, VK_EXT_robustness2) are
            // listed by the device and need nothing beyond Vulkan 1.1; every
            // feature enabled is one the device reports; every pointer in
            // `create_info` lives across the call.
            unsafe {
                instance
                    .raw()
                    .create_device(physical.raw(), &create_info, None)
            }
        });
        let raw = created.map_err(|e| vk_error("vkCreateDevice", e))?;
        live::created(Kind::Device);
        // SAFETY: queue 0 of `family` was requested at creation.
        let queue = unsafe { raw.get_device_queue(family, 0) };
        let device = Arc::new(Device {
            raw,
            physical: physical.raw(),
            family,
            limits,
            enabled,
            next_batch: AtomicU64::new(1),
            instance,
        });
        let queue = Queue {
            raw: queue,
            device: Arc::clone(&device),
        };
        Ok((device, queue))
    }

    /// The `ash` device, for the wrappers of `vk` (and the allocator).
    pub(in crate::vk) fn raw(&self) -> &ash::Device {
        &self.raw
    }

    /// The physical device it was made from.
    pub(in crate::vk) fn physical(&self) -> vk::PhysicalDevice {
        self.physical
    }

    /// The instance it was made from.
    pub(crate) fn instance(&self) -> &Arc<Instance> {
        &self.instance
    }

    /// The queue family of its queue.
    pub(crate) fn family(&self) -> u32 {
        self.family
    }

    /// The limits the wrappers check.
    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }

    /// What shaders may use.
    pub(crate) fn enabled(&self) -> &Enabled {
        &self.enabled
    }

    /// A batch serial never handed out before on this device.
    pub(in crate::vk) fn next_batch_serial(&self) -> u64 {
        self.next_batch.fetch_add(1, Ordering::Relaxed)
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: every object made from this device holds an `Arc` of it, so
        // all of them are destroyed by now — among them every command batch,
        // each of which waited for its fence when it dropped, and every
        // submission carries a batch's fence: no submitted work remains.
        live::serialized(|| {
            // SAFETY: as above: no child object and no submitted work
            // remains.
            unsafe { self.raw.destroy_device(None) }
        });
        live::destroyed(Kind::Device);
    }
}

/// The device's compute queue. Exactly one exists per [`Device`]; `&mut`
/// access to it is what serialises submissions (Vulkan requires external
/// synchronisation of a queue) and host access to mapped memory (see
/// `vk::memory::Buffer`).
pub(crate) struct Queue {
    raw: vk::Queue,
    device: Arc<Device>,
}

impl Queue {
    /// The device of this queue.
    pub(crate) fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The queue handle, for a submission under this `&mut` borrow.
    pub(in crate::vk) fn handle(&mut self) -> vk::Queue {
        self.raw
    }
}
