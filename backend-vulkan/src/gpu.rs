//! Thin wrappers around the ash calls this backend makes. Every `unsafe` block
//! of the crate that calls Vulkan lives here, each with its safety argument;
//! the other modules work with the handles these functions return.
//!
//! The invariants the wrappers rely on, upheld by the callers:
//! - a handle passed in was created by the same [`Gpu`] and not yet destroyed;
//! - a resource is destroyed only when no pending command buffer uses it (the
//!   queue retires buffers into the batch that last used them and destroys
//!   them after its fence signals; kernels and batches live until the device
//!   is dropped after `vkDeviceWaitIdle`);
//! - command buffers and descriptor pools are used by one thread at a time
//!   (they live behind the device's state mutex).

use crate::validation::{self, Diagnostics};
use ash::vk;
use rosetta_core::{Api, Error, Result};
use std::ffi::{c_char, CStr};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// The Khronos validation layer.
pub(crate) const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// A failed Vulkan call as a typed error.
pub(crate) fn vk_error(what: &str, result: vk::Result) -> Error {
    match result {
        vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost {
            api: Api::Vulkan,
            message: format!("{what}: {result}"),
        },
        _ => Error::backend(Api::Vulkan, format!("{what} failed: {result}")),
    }
}

fn unavailable(reason: impl Into<String>) -> Error {
    Error::Unavailable {
        api: Api::Vulkan,
        reason: reason.into(),
    }
}

/// A fixed-size C string from a Vulkan properties struct.
pub(crate) fn c_text(raw: &[c_char]) -> String {
    let bytes: Vec<u8> = raw
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

// ---------------------------------------------------------------------------
// Instance
// ---------------------------------------------------------------------------

/// The loader, one `VkInstance` and (with validation) its debug messenger.
pub(crate) struct Instance {
    entry: ash::Entry,
    raw: ash::Instance,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    /// What the messenger collected; the callback holds a pointer into it, so
    /// it is dropped only after the messenger (see `Drop`).
    pub(crate) diagnostics: Arc<Diagnostics>,
    /// The API version the instance was created for.
    pub(crate) api_version: u32,
}

impl Instance {
    /// Open the loader at run time and create an instance, with the Khronos
    /// validation layer and a debug messenger when `validation` is set.
    pub(crate) fn new(validation: bool) -> Result<Self> {
        // SAFETY: loading libvulkan runs its initialisers; the Vulkan loader is
        // designed to be loaded with dlopen, and `Entry` keeps the library
        // loaded for as long as any function pointer taken from it is used
        // (it lives in this struct, dropped after the instance is destroyed).
        let entry = unsafe { ash::Entry::load() }.map_err(|e| {
            unavailable(format!(
                "the Vulkan loader (libvulkan.so.1) could not be loaded: {e}"
            ))
        })?;
        // SAFETY: a global command with no arguments besides the entry.
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

        // SAFETY: a global command; the returned vector is owned.
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
            // SAFETY: a global command; the returned vector is owned.
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
            // SAFETY: a global command naming a layer that is present.
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
        let mut messenger_info = validation::messenger_info(&diagnostics);
        let mut create_info = vk::InstanceCreateInfo::default()
            .flags(flags)
            .application_info(&app)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&extension_names);
        if validation {
            // Messages from vkCreateInstance / vkDestroyInstance themselves.
            create_info = create_info.push_next(&mut messenger_info);
        }
        // SAFETY: every pointer in `create_info` (application info, layer and
        // extension names, the chained messenger info whose user data points
        // at `diagnostics`, which outlives the instance) is valid for the call.
        let raw = unsafe { entry.create_instance(&create_info, None) }.map_err(|e| match e {
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

        let mut instance = Instance {
            entry,
            raw,
            messenger: None,
            diagnostics,
            api_version,
        };
        if validation {
            let loader = ash::ext::debug_utils::Instance::new(&instance.entry, &instance.raw);
            let info = validation::messenger_info(&instance.diagnostics);
            // SAFETY: the instance was created with VK_EXT_debug_utils enabled;
            // the user data points at `diagnostics`, which the instance owns
            // and drops only after destroying the messenger.
            let messenger = unsafe { loader.create_debug_utils_messenger(&info, None) }
                .map_err(|e| vk_error("vkCreateDebugUtilsMessengerEXT", e))?;
            instance.messenger = Some((loader, messenger));
        }
        Ok(instance)
    }

    pub(crate) fn physical_devices(&self) -> Result<Vec<vk::PhysicalDevice>> {
        // SAFETY: the instance is valid; the returned handles live as long as it.
        unsafe { self.raw.enumerate_physical_devices() }
            .map_err(|e| vk_error("vkEnumeratePhysicalDevices", e))
    }

    /// Names of the device extensions a physical device supports.
    pub(crate) fn device_extensions(&self, physical: vk::PhysicalDevice) -> Result<Vec<String>> {
        // SAFETY: `physical` was enumerated from this instance.
        let list = unsafe { self.raw.enumerate_device_extension_properties(physical) }
            .map_err(|e| vk_error("vkEnumerateDeviceExtensionProperties", e))?;
        Ok(list.iter().map(|p| c_text(&p.extension_name)).collect())
    }

    /// Everything rosetta reads about a physical device, copied out of the
    /// property and feature chains.
    pub(crate) fn physical_info(&self, physical: vk::PhysicalDevice) -> Result<PhysicalInfo> {
        let extensions = self.device_extensions(physical)?;
        let has = |name: &CStr| {
            let name = name.to_string_lossy();
            extensions.iter().any(|e| *e == name)
        };
        // SAFETY: `physical` was enumerated from this instance.
        let basic = unsafe { self.raw.get_physical_device_properties(physical) };
        let device_version = basic.api_version.min(self.api_version);
        let v12 = device_version >= vk::API_VERSION_1_2;
        let v13 = device_version >= vk::API_VERSION_1_3;

        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut maintenance3 = vk::PhysicalDeviceMaintenance3Properties::default();
        let mut maintenance4 = vk::PhysicalDeviceMaintenance4Properties::default();
        let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut sm = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
        let mut amd = vk::PhysicalDeviceShaderCoreProperties2AMD::default();
        let want_maintenance4 = v13 || has(ash::khr::maintenance4::NAME);
        let want_size_control = v13 || has(ash::ext::subgroup_size_control::NAME);
        let want_driver = v12 || has(ash::khr::driver_properties::NAME);
        let want_sm = has(ash::nv::shader_sm_builtins::NAME);
        let want_amd = has(ash::amd::shader_core_properties2::NAME);
        let mut props2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut subgroup)
            .push_next(&mut maintenance3);
        if want_maintenance4 {
            props2 = props2.push_next(&mut maintenance4);
        }
        if want_size_control {
            props2 = props2.push_next(&mut size_control);
        }
        if want_driver {
            props2 = props2.push_next(&mut driver);
        }
        if want_sm {
            props2 = props2.push_next(&mut sm);
        }
        if want_amd {
            props2 = props2.push_next(&mut amd);
        }
        // SAFETY: every chained struct is supported by the device (core in its
        // API version or its extension is listed) and lives across the call.
        unsafe {
            self.raw
                .get_physical_device_properties2(physical, &mut props2)
        };
        let properties = props2.properties;

        let want_float_atomics = has(ash::ext::shader_atomic_float::NAME);
        let mut atomic_float = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
        if want_float_atomics {
            let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut atomic_float);
            // SAFETY: the chained struct's extension is supported; it lives
            // across the call.
            unsafe {
                self.raw
                    .get_physical_device_features2(physical, &mut features2)
            };
        }

        // SAFETY: `physical` was enumerated from this instance.
        let memory = unsafe { self.raw.get_physical_device_memory_properties(physical) };
        // SAFETY: as above.
        let queue_families = unsafe {
            self.raw
                .get_physical_device_queue_family_properties(physical)
        };

        Ok(PhysicalInfo {
            properties,
            device_version,
            subgroup_size: subgroup.subgroup_size,
            subgroup_stages: subgroup.supported_stages,
            subgroup_operations: subgroup.supported_operations,
            subgroup_range: want_size_control.then_some([
                size_control.min_subgroup_size,
                size_control.max_subgroup_size,
            ]),
            driver: want_driver.then(|| (c_text(&driver.driver_name), c_text(&driver.driver_info))),
            max_allocation: maintenance3.max_memory_allocation_size,
            max_buffer: want_maintenance4.then_some(maintenance4.max_buffer_size),
            sm_count: want_sm.then_some(sm.shader_sm_count),
            amd_compute_units: want_amd.then_some(amd.active_compute_unit_count),
            float_atomic_add: want_float_atomics
                && atomic_float.shader_buffer_float32_atomic_add == vk::TRUE,
            memory,
            queue_families,
        })
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some((loader, messenger)) = self.messenger.take() {
            // SAFETY: the messenger was created from this instance and is
            // destroyed once, before the instance.
            unsafe { loader.destroy_debug_utils_messenger(messenger, None) };
        }
        // SAFETY: every device created from this instance holds an `Arc` of
        // it, so all of them are destroyed by now.
        unsafe { self.raw.destroy_instance(None) };
    }
}

/// A physical device's properties, copied out of Vulkan's structs.
pub(crate) struct PhysicalInfo {
    pub properties: vk::PhysicalDeviceProperties,
    /// min(device API version, instance API version).
    pub device_version: u32,
    pub subgroup_size: u32,
    pub subgroup_stages: vk::ShaderStageFlags,
    pub subgroup_operations: vk::SubgroupFeatureFlags,
    pub subgroup_range: Option<[u32; 2]>,
    pub driver: Option<(String, String)>,
    pub max_allocation: u64,
    pub max_buffer: Option<u64>,
    pub sm_count: Option<u32>,
    pub amd_compute_units: Option<u32>,
    pub float_atomic_add: bool,
    pub memory: vk::PhysicalDeviceMemoryProperties,
    pub queue_families: Vec<vk::QueueFamilyProperties>,
}

// ---------------------------------------------------------------------------
// Live-object counters
// ---------------------------------------------------------------------------

/// How many Vulkan objects of each kind one device holds right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LiveObjects {
    pub buffers: i64,
    pub memory: i64,
    pub pipelines: i64,
    pub shader_modules: i64,
    pub layouts: i64,
    pub descriptor_pools: i64,
    pub command_buffers: i64,
    pub fences: i64,
    pub other: i64,
}

#[derive(Default)]
pub(crate) struct Live {
    buffers: AtomicI64,
    memory: AtomicI64,
    pipelines: AtomicI64,
    shader_modules: AtomicI64,
    layouts: AtomicI64,
    descriptor_pools: AtomicI64,
    command_buffers: AtomicI64,
    fences: AtomicI64,
    other: AtomicI64,
}

impl Live {
    fn add(counter: &AtomicI64, n: i64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> LiveObjects {
        let get = |c: &AtomicI64| c.load(Ordering::Relaxed);
        LiveObjects {
            buffers: get(&self.buffers),
            memory: get(&self.memory),
            pipelines: get(&self.pipelines),
            shader_modules: get(&self.shader_modules),
            layouts: get(&self.layouts),
            descriptor_pools: get(&self.descriptor_pools),
            command_buffers: get(&self.command_buffers),
            fences: get(&self.fences),
            other: get(&self.other),
        }
    }
}

// ---------------------------------------------------------------------------
// Logical device
// ---------------------------------------------------------------------------

/// One logical device with one queue, and the wrappers of every device-level
/// call the backend makes.
pub(crate) struct Gpu {
    pub(crate) device: ash::Device,
    pub(crate) queue: vk::Queue,
    pub(crate) live: Live,
    /// Kept alive until the device is destroyed.
    instance: Arc<Instance>,
}

impl Gpu {
    /// Create a logical device with one queue of `family`, enabling the listed
    /// (supported) extensions and, when asked, f32 buffer atomics.
    pub(crate) fn new(
        instance: Arc<Instance>,
        physical: vk::PhysicalDevice,
        family: u32,
        extensions: &[&CStr],
        float_atomics: bool,
    ) -> Result<Self> {
        let priorities = [1.0f32];
        let queue_info = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let names: Vec<*const c_char> = extensions.iter().map(|e| e.as_ptr()).collect();
        let mut atomic_float = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default()
            .shader_buffer_float32_atomics(true)
            .shader_buffer_float32_atomic_add(true);
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_info)
            .enabled_extension_names(&names);
        if float_atomics {
            info = info.push_next(&mut atomic_float);
        }
        // SAFETY: `physical` belongs to `instance`; the queue family exists;
        // the extensions are supported (the caller checked); every pointer in
        // `info` lives across the call.
        let device = unsafe { instance.raw.create_device(physical, &info, None) }
            .map_err(|e| vk_error("vkCreateDevice", e))?;
        // SAFETY: queue 0 of `family` was requested above.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Ok(Gpu {
            device,
            queue,
            live: Live::default(),
            instance,
        })
    }

    pub(crate) fn diagnostics(&self) -> &Diagnostics {
        &self.instance.diagnostics
    }

    pub(crate) fn wait_idle(&self) -> Result<()> {
        // SAFETY: the device is valid; waiting has no other requirement.
        unsafe { self.device.device_wait_idle() }.map_err(|e| vk_error("vkDeviceWaitIdle", e))
    }

    // --- buffers and memory -------------------------------------------------

    pub(crate) fn create_buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
    ) -> Result<vk::Buffer> {
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: `size` is non-zero and within maxBufferSize (checked by the
        // caller); the info struct lives across the call.
        let buffer = unsafe { self.device.create_buffer(&info, None) }
            .map_err(|e| vk_error("vkCreateBuffer", e))?;
        Live::add(&self.live.buffers, 1);
        Ok(buffer)
    }

    pub(crate) fn destroy_buffer(&self, buffer: vk::Buffer) {
        // SAFETY: no pending command buffer uses `buffer` (module invariant).
        unsafe { self.device.destroy_buffer(buffer, None) };
        Live::add(&self.live.buffers, -1);
    }

    pub(crate) fn buffer_requirements(&self, buffer: vk::Buffer) -> vk::MemoryRequirements {
        // SAFETY: `buffer` is a live buffer of this device.
        unsafe { self.device.get_buffer_memory_requirements(buffer) }
    }

    pub(crate) fn allocate_memory(&self, size: u64, type_index: u32) -> Result<vk::DeviceMemory> {
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(size)
            .memory_type_index(type_index);
        // SAFETY: the memory type index comes from this device's memory
        // properties; the size is within maxMemoryAllocationSize.
        let memory = unsafe { self.device.allocate_memory(&info, None) }
            .map_err(|e| vk_error("vkAllocateMemory", e))?;
        Live::add(&self.live.memory, 1);
        Ok(memory)
    }

    pub(crate) fn free_memory(&self, memory: vk::DeviceMemory) {
        // SAFETY: the buffer bound to `memory` is destroyed first and no
        // pending work uses it; freeing also unmaps it.
        unsafe { self.device.free_memory(memory, None) };
        Live::add(&self.live.memory, -1);
    }

    pub(crate) fn bind_buffer_memory(
        &self,
        buffer: vk::Buffer,
        memory: vk::DeviceMemory,
    ) -> Result<()> {
        // SAFETY: `memory` was allocated from a type allowed by the buffer's
        // requirements and is at least their size; the buffer is unbound.
        unsafe { self.device.bind_buffer_memory(buffer, memory, 0) }
            .map_err(|e| vk_error("vkBindBufferMemory", e))
    }

    /// Map a whole allocation; the pointer stays valid until it is freed.
    pub(crate) fn map_memory(&self, memory: vk::DeviceMemory) -> Result<*mut u8> {
        // SAFETY: `memory` is host-visible (the caller chose such a type) and
        // not mapped yet.
        let ptr = unsafe {
            self.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .map_err(|e| vk_error("vkMapMemory", e))?;
        Ok(ptr.cast())
    }

    // --- command buffers, fences, submission --------------------------------

    pub(crate) fn create_command_pool(&self, family: u32) -> Result<vk::CommandPool> {
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: the family is the device's queue family.
        let pool = unsafe { self.device.create_command_pool(&info, None) }
            .map_err(|e| vk_error("vkCreateCommandPool", e))?;
        Live::add(&self.live.other, 1);
        Ok(pool)
    }

    pub(crate) fn destroy_command_pool(&self, pool: vk::CommandPool) {
        // SAFETY: no command buffer of the pool is pending (the device is idle
        // when the pool is destroyed).
        unsafe { self.device.destroy_command_pool(pool, None) };
        Live::add(&self.live.other, -1);
    }

    pub(crate) fn allocate_command_buffer(
        &self,
        pool: vk::CommandPool,
    ) -> Result<vk::CommandBuffer> {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool is externally synchronised by the state mutex.
        let buffers = unsafe { self.device.allocate_command_buffers(&info) }
            .map_err(|e| vk_error("vkAllocateCommandBuffers", e))?;
        Live::add(&self.live.command_buffers, 1);
        buffers
            .into_iter()
            .next()
            .ok_or_else(|| Error::backend(Api::Vulkan, "vkAllocateCommandBuffers returned nothing"))
    }

    pub(crate) fn free_command_buffer(&self, pool: vk::CommandPool, cmd: vk::CommandBuffer) {
        // SAFETY: the command buffer is not pending (its fence signalled).
        unsafe { self.device.free_command_buffers(pool, &[cmd]) };
        Live::add(&self.live.command_buffers, -1);
    }

    pub(crate) fn begin(&self, cmd: vk::CommandBuffer) -> Result<()> {
        let info = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the command buffer is not pending (new, or its fence
        // signalled); its pool allows implicit resets.
        unsafe { self.device.begin_command_buffer(cmd, &info) }
            .map_err(|e| vk_error("vkBeginCommandBuffer", e))
    }

    pub(crate) fn end(&self, cmd: vk::CommandBuffer) -> Result<()> {
        // SAFETY: the command buffer is recording.
        unsafe { self.device.end_command_buffer(cmd) }
            .map_err(|e| vk_error("vkEndCommandBuffer", e))
    }

    pub(crate) fn create_fence(&self) -> Result<vk::Fence> {
        // SAFETY: plain object creation.
        let fence = unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }
        .map_err(|e| vk_error("vkCreateFence", e))?;
        Live::add(&self.live.fences, 1);
        Ok(fence)
    }

    pub(crate) fn destroy_fence(&self, fence: vk::Fence) {
        // SAFETY: no queue submission that signals the fence is pending.
        unsafe { self.device.destroy_fence(fence, None) };
        Live::add(&self.live.fences, -1);
    }

    pub(crate) fn wait_fence(&self, fence: vk::Fence) -> Result<()> {
        // SAFETY: the fence is live.
        unsafe { self.device.wait_for_fences(&[fence], true, u64::MAX) }
            .map_err(|e| vk_error("vkWaitForFences", e))
    }

    pub(crate) fn fence_signalled(&self, fence: vk::Fence) -> Result<bool> {
        // SAFETY: the fence is live.
        unsafe { self.device.get_fence_status(fence) }.map_err(|e| vk_error("vkGetFenceStatus", e))
    }

    pub(crate) fn reset_fence(&self, fence: vk::Fence) -> Result<()> {
        // SAFETY: the fence has signalled and no submission uses it.
        unsafe { self.device.reset_fences(&[fence]) }.map_err(|e| vk_error("vkResetFences", e))
    }

    pub(crate) fn submit(&self, cmd: vk::CommandBuffer, fence: vk::Fence) -> Result<()> {
        let cmds = [cmd];
        let info = [vk::SubmitInfo::default().command_buffers(&cmds)];
        // SAFETY: the command buffer is executable, the fence unsignalled; the
        // queue is externally synchronised by the state mutex.
        unsafe { self.device.queue_submit(self.queue, &info, fence) }
            .map_err(|e| vk_error("vkQueueSubmit", e))
    }

    // --- commands (recorded into a command buffer in the recording state) ---

    /// Make every earlier transfer and compute write visible to every later
    /// transfer and compute access (the in-order queue of the Backend trait).
    pub(crate) fn cmd_barrier(&self, cmd: vk::CommandBuffer) {
        let stages = vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER;
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(
                vk::AccessFlags::SHADER_READ
                    | vk::AccessFlags::SHADER_WRITE
                    | vk::AccessFlags::TRANSFER_READ
                    | vk::AccessFlags::TRANSFER_WRITE,
            )];
        // SAFETY: `cmd` is recording (module invariant); the barrier is valid
        // outside a render pass.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cmd,
                stages,
                stages,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            )
        };
    }

    /// Make every earlier device write visible to the host (after the fence).
    pub(crate) fn cmd_host_barrier(&self, cmd: vk::CommandBuffer) {
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        // SAFETY: as in `cmd_barrier`.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            )
        };
    }

    pub(crate) fn cmd_fill_zero(&self, cmd: vk::CommandBuffer, buffer: vk::Buffer) {
        // SAFETY: `buffer` is live with TRANSFER_DST usage; the whole size is
        // a multiple of 4 (allocations are rounded to 16 bytes).
        unsafe {
            self.device
                .cmd_fill_buffer(cmd, buffer, 0, vk::WHOLE_SIZE, 0)
        };
    }

    pub(crate) fn cmd_update(
        &self,
        cmd: vk::CommandBuffer,
        buffer: vk::Buffer,
        offset: u64,
        data: &[u8],
    ) {
        // SAFETY: offset and length are multiples of 4, the length is at most
        // 65536 and the range lies inside the buffer (checked by the caller).
        unsafe { self.device.cmd_update_buffer(cmd, buffer, offset, data) };
    }

    pub(crate) fn cmd_copy(
        &self,
        cmd: vk::CommandBuffer,
        src: vk::Buffer,
        dst: vk::Buffer,
        region: vk::BufferCopy,
    ) {
        // SAFETY: both buffers are live with TRANSFER_SRC / TRANSFER_DST usage
        // and the region lies inside both (checked by the caller).
        unsafe { self.device.cmd_copy_buffer(cmd, src, dst, &[region]) };
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn cmd_dispatch(
        &self,
        cmd: vk::CommandBuffer,
        pipeline: vk::Pipeline,
        layout: vk::PipelineLayout,
        set: vk::DescriptorSet,
        push: &[u8],
        groups: [u32; 3],
    ) {
        // SAFETY: the pipeline, its layout and the descriptor set (allocated
        // with the pipeline's set layout and fully written) are live; the push
        // constant bytes match the layout's range; group counts are within
        // maxComputeWorkGroupCount (Launch::validate).
        unsafe {
            self.device
                .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
            self.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                layout,
                0,
                &[set],
                &[],
            );
            if !push.is_empty() {
                self.device
                    .cmd_push_constants(cmd, layout, vk::ShaderStageFlags::COMPUTE, 0, push);
            }
            self.device
                .cmd_dispatch(cmd, groups[0], groups[1], groups[2]);
        }
    }

    pub(crate) fn cmd_reset_queries(
        &self,
        cmd: vk::CommandBuffer,
        pool: vk::QueryPool,
        count: u32,
    ) {
        // SAFETY: the queries exist in the pool; no query is active.
        unsafe { self.device.cmd_reset_query_pool(cmd, pool, 0, count) };
    }

    pub(crate) fn cmd_timestamp(&self, cmd: vk::CommandBuffer, pool: vk::QueryPool, query: u32) {
        // SAFETY: the queue family has timestamps (timestampValidBits > 0) and
        // the query was reset earlier in queue order.
        unsafe {
            self.device.cmd_write_timestamp(
                cmd,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                pool,
                query,
            )
        };
    }

    // --- descriptors ----------------------------------------------------------

    pub(crate) fn create_descriptor_pool(
        &self,
        sets: u32,
        descriptors: u32,
    ) -> Result<vk::DescriptorPool> {
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(descriptors)];
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(sets)
            .pool_sizes(&sizes);
        // SAFETY: plain object creation.
        let pool = unsafe { self.device.create_descriptor_pool(&info, None) }
            .map_err(|e| vk_error("vkCreateDescriptorPool", e))?;
        Live::add(&self.live.descriptor_pools, 1);
        Ok(pool)
    }

    pub(crate) fn destroy_descriptor_pool(&self, pool: vk::DescriptorPool) {
        // SAFETY: no pending command buffer uses a set of the pool.
        unsafe { self.device.destroy_descriptor_pool(pool, None) };
        Live::add(&self.live.descriptor_pools, -1);
    }

    pub(crate) fn reset_descriptor_pool(&self, pool: vk::DescriptorPool) -> Result<()> {
        // SAFETY: the batch owning the pool completed; no pending command
        // buffer uses its sets.
        unsafe {
            self.device
                .reset_descriptor_pool(pool, vk::DescriptorPoolResetFlags::empty())
        }
        .map_err(|e| vk_error("vkResetDescriptorPool", e))
    }

    /// Allocate one set of `layout` from `pool` and point binding `i` at the
    /// whole of `buffers[i]`.
    pub(crate) fn descriptor_set(
        &self,
        pool: vk::DescriptorPool,
        layout: vk::DescriptorSetLayout,
        buffers: &[vk::Buffer],
    ) -> Result<vk::DescriptorSet> {
        let layouts = [layout];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        // SAFETY: the pool is externally synchronised (state mutex) and has a
        // set left (the queue counts them).
        let set = unsafe { self.device.allocate_descriptor_sets(&info) }
            .map_err(|e| vk_error("vkAllocateDescriptorSets", e))?
            .into_iter()
            .next()
            .ok_or_else(|| {
                Error::backend(Api::Vulkan, "vkAllocateDescriptorSets returned nothing")
            })?;
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
            .iter()
            .map(|&buffer| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(buffer)
                    .offset(0)
                    .range(vk::WHOLE_SIZE)]
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .enumerate()
            .map(|(i, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(i as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        // SAFETY: the set was just allocated and is not in use; each buffer is
        // live with STORAGE usage and its size is within maxStorageBufferRange.
        unsafe { self.device.update_descriptor_sets(&writes, &[]) };
        Ok(set)
    }

    pub(crate) fn create_set_layout(&self, bindings: u32) -> Result<vk::DescriptorSetLayout> {
        let list: Vec<vk::DescriptorSetLayoutBinding> = (0..bindings)
            .map(|i| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(i)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&list);
        // SAFETY: plain object creation.
        let layout = unsafe { self.device.create_descriptor_set_layout(&info, None) }
            .map_err(|e| vk_error("vkCreateDescriptorSetLayout", e))?;
        Live::add(&self.live.layouts, 1);
        Ok(layout)
    }

    pub(crate) fn destroy_set_layout(&self, layout: vk::DescriptorSetLayout) {
        // SAFETY: the device is idle when kernels are destroyed.
        unsafe { self.device.destroy_descriptor_set_layout(layout, None) };
        Live::add(&self.live.layouts, -1);
    }

    // --- pipelines --------------------------------------------------------------

    pub(crate) fn create_pipeline_layout(
        &self,
        set_layout: vk::DescriptorSetLayout,
        push_bytes: u32,
    ) -> Result<vk::PipelineLayout> {
        let set_layouts = [set_layout];
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(push_bytes)];
        let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if push_bytes > 0 {
            info = info.push_constant_ranges(&ranges);
        }
        // SAFETY: the set layout is live; the push range is within
        // maxPushConstantsSize (checked by the caller).
        let layout = unsafe { self.device.create_pipeline_layout(&info, None) }
            .map_err(|e| vk_error("vkCreatePipelineLayout", e))?;
        Live::add(&self.live.layouts, 1);
        Ok(layout)
    }

    pub(crate) fn destroy_pipeline_layout(&self, layout: vk::PipelineLayout) {
        // SAFETY: the device is idle when kernels are destroyed.
        unsafe { self.device.destroy_pipeline_layout(layout, None) };
        Live::add(&self.live.layouts, -1);
    }

    pub(crate) fn create_shader_module(&self, spirv: &[u32]) -> Result<vk::ShaderModule> {
        let info = vk::ShaderModuleCreateInfo::default().code(spirv);
        // SAFETY: `spirv` is a complete module produced by glslang.
        let module = unsafe { self.device.create_shader_module(&info, None) }
            .map_err(|e| vk_error("vkCreateShaderModule", e))?;
        Live::add(&self.live.shader_modules, 1);
        Ok(module)
    }

    pub(crate) fn destroy_shader_module(&self, module: vk::ShaderModule) {
        // SAFETY: modules are only needed while pipelines are created.
        unsafe { self.device.destroy_shader_module(module, None) };
        Live::add(&self.live.shader_modules, -1);
    }

    pub(crate) fn create_pipeline_cache(&self) -> Result<vk::PipelineCache> {
        // SAFETY: plain object creation (empty cache).
        let cache = unsafe {
            self.device
                .create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
        }
        .map_err(|e| vk_error("vkCreatePipelineCache", e))?;
        Live::add(&self.live.other, 1);
        Ok(cache)
    }

    pub(crate) fn destroy_pipeline_cache(&self, cache: vk::PipelineCache) {
        // SAFETY: no pipeline creation is in progress (cache mutex held).
        unsafe { self.device.destroy_pipeline_cache(cache, None) };
        Live::add(&self.live.other, -1);
    }

    /// A compute pipeline for `main` of `module`, with specialization constant
    /// `i` set to `values[i]`.
    pub(crate) fn create_compute_pipeline(
        &self,
        cache: vk::PipelineCache,
        module: vk::ShaderModule,
        layout: vk::PipelineLayout,
        values: &[u32],
    ) -> Result<vk::Pipeline, vk::Result> {
        let entries: Vec<vk::SpecializationMapEntry> = (0..values.len() as u32)
            .map(|i| {
                vk::SpecializationMapEntry::default()
                    .constant_id(i)
                    .offset(i * 4)
                    .size(4)
            })
            .collect();
        let data: &[u8] = bytemuck::cast_slice(values);
        let specialization = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(data);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main")
            .specialization_info(&specialization);
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)];
        // SAFETY: module, layout and cache are live; the specialization data
        // holds 4 bytes per map entry; the cache is externally synchronised
        // by the kernel cache's mutex.
        let pipelines = unsafe { self.device.create_compute_pipelines(cache, &info, None) };
        match pipelines {
            Ok(list) => {
                Live::add(&self.live.pipelines, list.len() as i64);
                list.into_iter().next().ok_or(vk::Result::ERROR_UNKNOWN)
            }
            Err((list, e)) => {
                for p in list.into_iter().filter(|p| *p != vk::Pipeline::null()) {
                    // SAFETY: a pipeline created by the failed call, never used.
                    unsafe { self.device.destroy_pipeline(p, None) };
                }
                Err(e)
            }
        }
    }

    pub(crate) fn destroy_pipeline(&self, pipeline: vk::Pipeline) {
        // SAFETY: the device is idle when kernels are destroyed.
        unsafe { self.device.destroy_pipeline(pipeline, None) };
        Live::add(&self.live.pipelines, -1);
    }

    // --- queries ------------------------------------------------------------------

    pub(crate) fn create_timestamp_pool(&self, count: u32) -> Result<vk::QueryPool> {
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(count);
        // SAFETY: plain object creation.
        let pool = unsafe { self.device.create_query_pool(&info, None) }
            .map_err(|e| vk_error("vkCreateQueryPool", e))?;
        Live::add(&self.live.other, 1);
        Ok(pool)
    }

    pub(crate) fn destroy_query_pool(&self, pool: vk::QueryPool) {
        // SAFETY: the device is idle when the pool is destroyed.
        unsafe { self.device.destroy_query_pool(pool, None) };
        Live::add(&self.live.other, -1);
    }

    /// The 64-bit results of queries `0..out.len()`, waiting for them.
    pub(crate) fn query_results(&self, pool: vk::QueryPool, out: &mut [u64]) -> Result<()> {
        // SAFETY: the queries were written by submitted work whose fences
        // have signalled; `out` holds one u64 per query.
        unsafe {
            self.device.get_query_pool_results(
                pool,
                0,
                out,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(|e| vk_error("vkGetQueryPoolResults", e))
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: the owner (VulkanDevice) destroyed every child object and
        // waited for the queue before this field is dropped.
        unsafe { self.device.destroy_device(None) };
    }
}
