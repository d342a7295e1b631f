//! The loader (opened at run time), one `VkInstance` with its optional
//! validation layer and debug messenger, and what rosetta reads about each
//! physical device.

use crate::validation::Diagnostics;
use crate::vk::error::{c_text, unavailable, vk_error};
use crate::vk::live::{self, Kind};
use crate::vk::messenger;
use ash::vk;
use rosetta_core::Result;
use std::ffi::{c_char, CStr};
use std::sync::Arc;

/// The Khronos validation layer.
const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// The loader, one `VkInstance` and (with validation) its debug messenger.
/// Devices hold an `Arc` of it, so it is destroyed after all of them.
pub(crate) struct Instance {
    entry: ash::Entry,
    raw: ash::Instance,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    /// What the messenger collects. Its callbacks hold a raw pointer to it, so
    /// it is dropped (as a field) only after `Drop::drop` destroyed the
    /// messenger and the instance.
    diagnostics: Arc<Diagnostics>,
    /// The API version the instance was created for.
    api_version: u32,
}

impl Instance {
    /// Open the loader and create an instance, with the Khronos validation
    /// layer and a debug messenger when `validation` is set.
    /// [`rosetta_core::Error::Unavailable`] when there is no loader, no
    /// driver, or (asked for) no validation layer.
    pub(crate) fn new(validation: bool) -> Result<Arc<Self>> {
        // SAFETY: loading libvulkan runs its initialisers; the Vulkan loader is
        // made to be opened with dlopen, and `Entry` keeps the library loaded
        // while any function pointer taken from it is in use (it is a field
        // of this struct, dropped after the instance is destroyed).
        let entry = unsafe { ash::Entry::load() }.map_err(|e| {
            unavailable(format!(
                "the Vulkan loader (libvulkan.so.1) could not be loaded: {e}"
            ))
        })?;
        // SAFETY: a global command taking no handle; `entry` is loaded.
        let version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(|e| unavailable(format!("vkEnumerateInstanceVersion failed: {e}")))?
            .unwrap_or(vk::API_VERSION_1_0);
        if version < vk::API_VERSION_1_1 {
            return Err(unavailable(format!(
                "the Vulkan loader supports version {}.{}; rosetta needs 1.1",
                vk::api_version_major(version),
                vk::api_version_minor(version)
            )));
        }
        let api_version = version.min(vk::API_VERSION_1_3);

        // SAFETY: `entry` holds the loaded loader's function pointers; this
        // global command takes no handle and returns an owned vector.
        let extensions = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(|e| vk_error("vkEnumerateInstanceExtensionProperties", e))?;
        let has_extension = |list: &[vk::ExtensionProperties], name: &CStr| {
            list.iter()
                .any(|p| p.extension_name_as_c_str().is_ok_and(|n| n == name))
        };
        let mut layer_names: Vec<*const c_char> = Vec::new();
        let mut extension_names: Vec<*const c_char> = Vec::new();
        let mut flags = vk::InstanceCreateFlags::empty();
        if has_extension(&extensions, ash::khr::portability_enumeration::NAME) {
            extension_names.push(ash::khr::portability_enumeration::NAME.as_ptr());
            flags |= vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR;
        }
        if validation {
            // SAFETY: as for the extensions above: a global command of the
            // loaded loader, returning an owned vector.
            let layers = unsafe { entry.enumerate_instance_layer_properties() }
                .map_err(|e| vk_error("vkEnumerateInstanceLayerProperties", e))?;
            let found = layers
                .iter()
                .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
            if !found {
                return Err(unavailable(
                    "ROSETTA_VULKAN_VALIDATION=1 asks for VK_LAYER_KHRONOS_validation, which is \
                     not installed (Debian/Ubuntu: apt-get install vulkan-validationlayers)",
                ));
            }
            // SAFETY: a global command; the layer name is a valid C string of
            // a layer that is present.
            let layer_extensions =
                unsafe { entry.enumerate_instance_extension_properties(Some(VALIDATION_LAYER)) }
                    .map_err(|e| vk_error("vkEnumerateInstanceExtensionProperties", e))?;
            if !has_extension(&extensions, ash::ext::debug_utils::NAME)
                && !has_extension(&layer_extensions, ash::ext::debug_utils::NAME)
            {
                return Err(unavailable(
                    "ROSETTA_VULKAN_VALIDATION=1 needs VK_EXT_debug_utils, which neither the \
                     loader nor the validation layer provides",
                ));
            }
            layer_names.push(VALIDATION_LAYER.as_ptr());
            extension_names.push(ash::ext::debug_utils::NAME.as_ptr());
        }

        let diagnostics = Arc::new(Diagnostics::default());
        let app = vk::ApplicationInfo::default()
            .application_name(c"rosetta")
            .engine_name(c"rosetta")
            .api_version(api_version);
        let mut messenger_info = messenger::create_info(&diagnostics);
        let mut create_info = vk::InstanceCreateInfo::default()
            .flags(flags)
            .application_info(&app)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&extension_names);
        if validation {
            // Messages of vkCreateInstance / vkDestroyInstance themselves.
            create_info = create_info.push_next(&mut messenger_info);
        }
        let created = live::serialized(|| {
            // SAFETY: every pointer in `create_info` (application info, layer and
            // extension names of present layers/extensions, the chained messenger
            // info whose user data points at `diagnostics`, which the instance
            // keeps until after vkDestroyInstance) is valid for the call.
            unsafe { entry.create_instance(&create_info, None) }
        });
        let raw = created.map_err(|e| match e {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER | vk::Result::ERROR_INITIALIZATION_FAILED => {
                unavailable(format!(
                    "vkCreateInstance failed ({e}): no usable Vulkan driver (ICD) is installed"
                ))
            }
            vk::Result::ERROR_LAYER_NOT_PRESENT | vk::Result::ERROR_EXTENSION_NOT_PRESENT => {
                unavailable(format!("vkCreateInstance failed: {e}"))
            }
            _ => vk_error("vkCreateInstance", e),
        })?;
        live::created(Kind::Instance);
        let mut instance = Instance {
            entry,
            raw,
            messenger: None,
            diagnostics,
            api_version,
        };
        if validation {
            let loader = ash::ext::debug_utils::Instance::new(&instance.entry, &instance.raw);
            let info = messenger::create_info(&instance.diagnostics);
            // SAFETY: the instance was created with VK_EXT_debug_utils; the
            // user data points at `diagnostics`, which the instance owns and
            // drops only after destroying the messenger.
            let messenger = unsafe { loader.create_debug_utils_messenger(&info, None) }
                .map_err(|e| vk_error("vkCreateDebugUtilsMessengerEXT", e))?;
            instance.messenger = Some((loader, messenger));
        }
        Ok(Arc::new(instance))
    }

    /// The `ash` instance, for creating devices and the allocator.
    pub(crate) fn raw(&self) -> &ash::Instance {
        &self.raw
    }

    /// What the validation layer reported.
    pub(crate) fn diagnostics(&self) -> &Arc<Diagnostics> {
        &self.diagnostics
    }

    /// Every physical device, in the loader's order.
    pub(crate) fn physical_devices(self: &Arc<Self>) -> Result<Vec<PhysicalDevice>> {
        // SAFETY: the instance is valid; the handles returned live as long
        // as it does (each `PhysicalDevice` keeps an `Arc` of it).
        let list = unsafe { self.raw.enumerate_physical_devices() }
            .map_err(|e| vk_error("vkEnumeratePhysicalDevices", e))?;
        Ok(list
            .into_iter()
            .map(|raw| PhysicalDevice {
                raw,
                instance: Arc::clone(self),
            })
            .collect())
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        live::serialized(|| {
            if let Some((loader, messenger)) = self.messenger.take() {
                // SAFETY: the messenger was created from this instance and is
                // destroyed once, before the instance.
                unsafe { loader.destroy_debug_utils_messenger(messenger, None) };
            }
            // SAFETY: every device created from this instance holds an `Arc`
            // of it, so all of them (and their children) are destroyed by
            // now; the chained messenger's user data (`diagnostics`) is
            // still alive.
            unsafe { self.raw.destroy_instance(None) };
        });
        live::destroyed(Kind::Instance);
    }
}

/// A physical device of an [`Instance`] (which it keeps alive).
pub(crate) struct PhysicalDevice {
    raw: vk::PhysicalDevice,
    instance: Arc<Instance>,
}

/// A physical device's properties, copied out of Vulkan's structs.
pub(crate) struct PhysicalInfo {
    /// VkPhysicalDeviceProperties (name, IDs, versions, limits, cache UUID).
    pub properties: vk::PhysicalDeviceProperties,
    /// The device's default subgroup size.
    pub subgroup_size: u32,
    /// Stages with subgroup operations.
    pub subgroup_stages: vk::ShaderStageFlags,
    /// Subgroup operation classes supported.
    pub subgroup_operations: vk::SubgroupFeatureFlags,
    /// `[min, max]` subgroup sizes (subgroup size control), when reported.
    pub subgroup_range: Option<[u32; 2]>,
    /// `(driverName, driverInfo)` from VkPhysicalDeviceDriverProperties.
    pub driver: Option<(String, String)>,
    /// VkPhysicalDeviceIDProperties::deviceUUID (Vulkan 1.1).
    pub device_uuid: [u8; 16],
    /// `[domain, bus, device, function]` from VK_EXT_pci_bus_info.
    pub pci: Option<[u32; 4]>,
    /// maxMemoryAllocationSize.
    pub max_allocation: u64,
    /// maxBufferSize (maintenance4), when reported.
    pub max_buffer: Option<u64>,
    /// NVIDIA SM count, when reported.
    pub sm_count: Option<u32>,
    /// AMD active compute units, when reported.
    pub amd_compute_units: Option<u32>,
    /// shaderBufferFloat32AtomicAdd (VK_EXT_shader_atomic_float).
    pub float_atomic_add: bool,
    /// pipelineExecutableInfo (VK_KHR_pipeline_executable_properties): the
    /// driver reports each pipeline's statistics (registers, spills, ...).
    pub pipeline_statistics: bool,
    /// robustBufferAccess2 (VK_EXT_robustness2).
    pub robust_buffer_access2: bool,
    /// Core features rosetta enables where present.
    pub features: vk::PhysicalDeviceFeatures,
    /// Memory types and heaps.
    pub memory: vk::PhysicalDeviceMemoryProperties,
    /// Queue families.
    pub queue_families: Vec<vk::QueueFamilyProperties>,
}

impl PhysicalDevice {
    /// The handle, for creating a device of this physical device.
    pub(crate) fn raw(&self) -> vk::PhysicalDevice {
        self.raw
    }

    /// The instance it belongs to.
    pub(crate) fn instance(&self) -> &Arc<Instance> {
        &self.instance
    }

    /// Its queue families.
    pub(crate) fn queue_families(&self) -> Vec<vk::QueueFamilyProperties> {
        // SAFETY: `raw` was enumerated from `instance`, which is alive.
        unsafe {
            self.instance
                .raw
                .get_physical_device_queue_family_properties(self.raw)
        }
    }

    /// Names of the device extensions it supports.
    pub(crate) fn extensions(&self) -> Result<Vec<String>> {
        // SAFETY: `raw` was enumerated from `instance`, which is alive.
        let list = unsafe {
            self.instance
                .raw
                .enumerate_device_extension_properties(self.raw)
        }
        .map_err(|e| vk_error("vkEnumerateDeviceExtensionProperties", e))?;
        Ok(list.iter().map(|p| c_text(&p.extension_name)).collect())
    }

    /// Everything rosetta reads about the device.
    pub(crate) fn info(&self) -> Result<PhysicalInfo> {
        let extensions = self.extensions()?;
        let has = |name: &CStr| {
            let name = name.to_string_lossy();
            extensions.iter().any(|e| *e == name)
        };
        let instance = &self.instance.raw;
        // SAFETY: `raw` was enumerated from this (live) instance.
        let basic = unsafe { instance.get_physical_device_properties(self.raw) };
        let device_version = basic.api_version.min(self.instance.api_version);
        if device_version < vk::API_VERSION_1_1 {
            return Err(rosetta_core::Error::unsupported(
                rosetta_core::Api::Vulkan,
                format!(
                    "{}: a Vulkan {}.{} device; rosetta needs 1.1",
                    c_text(&basic.device_name),
                    vk::api_version_major(basic.api_version),
                    vk::api_version_minor(basic.api_version)
                ),
            ));
        }
        let v12 = device_version >= vk::API_VERSION_1_2;
        let v13 = device_version >= vk::API_VERSION_1_3;

        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut maintenance3 = vk::PhysicalDeviceMaintenance3Properties::default();
        let mut ids = vk::PhysicalDeviceIDProperties::default();
        let mut maintenance4 = vk::PhysicalDeviceMaintenance4Properties::default();
        let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut pci = vk::PhysicalDevicePCIBusInfoPropertiesEXT::default();
        let mut sm = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
        let mut amd = vk::PhysicalDeviceShaderCoreProperties2AMD::default();
        let want_maintenance4 = v13 || has(ash::khr::maintenance4::NAME);
        let want_size_control = v13 || has(ash::ext::subgroup_size_control::NAME);
        let want_driver = v12 || has(ash::khr::driver_properties::NAME);
        let want_pci = has(ash::ext::pci_bus_info::NAME);
        let want_sm = has(ash::nv::shader_sm_builtins::NAME);
        let want_amd = has(ash::amd::shader_core_properties2::NAME);
        // Subgroup, maintenance3 and ID properties are core in Vulkan 1.1.
        let mut props2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut subgroup)
            .push_next(&mut maintenance3)
            .push_next(&mut ids);
        if want_maintenance4 {
            props2 = props2.push_next(&mut maintenance4);
        }
        if want_size_control {
            props2 = props2.push_next(&mut size_control);
        }
        if want_driver {
            props2 = props2.push_next(&mut driver);
        }
        if want_pci {
            props2 = props2.push_next(&mut pci);
        }
        if want_sm {
            props2 = props2.push_next(&mut sm);
        }
        if want_amd {
            props2 = props2.push_next(&mut amd);
        }
        // SAFETY: every chained struct is core in the device's API version
        // (1.1 or later, checked above) or its extension is listed;
        // all of them live across the call.
        unsafe { instance.get_physical_device_properties2(self.raw, &mut props2) };
        let properties = props2.properties;

        let want_float_atomics = has(ash::ext::shader_atomic_float::NAME);
        let mut atomic_float = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
        let want_statistics = has(ash::khr::pipeline_executable_properties::NAME);
        let mut statistics = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
        let want_robustness2 = has(ash::ext::robustness2::NAME);
        let mut robustness2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
        let mut features2 = vk::PhysicalDeviceFeatures2::default();
        if want_robustness2 {
            features2 = features2.push_next(&mut robustness2);
        }
        if want_float_atomics {
            features2 = features2.push_next(&mut atomic_float);
        }
        if want_statistics {
            features2 = features2.push_next(&mut statistics);
        }
        // SAFETY: each chained struct's extension is supported; they live
        // across the call.
        unsafe { instance.get_physical_device_features2(self.raw, &mut features2) };
        let features = features2.features;

        // SAFETY: `raw` was enumerated from this instance.
        let memory = unsafe { instance.get_physical_device_memory_properties(self.raw) };
        let queue_families = self.queue_families();

        Ok(PhysicalInfo {
            properties,
            subgroup_size: subgroup.subgroup_size,
            subgroup_stages: subgroup.supported_stages,
            subgroup_operations: subgroup.supported_operations,
            subgroup_range: want_size_control.then_some([
                size_control.min_subgroup_size,
                size_control.max_subgroup_size,
            ]),
            driver: want_driver.then(|| (c_text(&driver.driver_name), c_text(&driver.driver_info))),
            device_uuid: ids.device_uuid,
            pci: want_pci.then_some([
                pci.pci_domain,
                pci.pci_bus,
                pci.pci_device,
                pci.pci_function,
            ]),
            max_allocation: maintenance3.max_memory_allocation_size,
            max_buffer: want_maintenance4.then_some(maintenance4.max_buffer_size),
            sm_count: want_sm.then_some(sm.shader_sm_count),
            amd_compute_units: want_amd.then_some(amd.active_compute_unit_count),
            float_atomic_add: want_float_atomics
                && atomic_float.shader_buffer_float32_atomic_add == vk::TRUE,
            pipeline_statistics: want_statistics && statistics.pipeline_executable_info == vk::TRUE,
            robust_buffer_access2: want_robustness2
                && robustness2.robust_buffer_access2 == vk::TRUE,
            features,
            memory,
            queue_families,
        })
    }
}
