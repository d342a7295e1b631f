//! What wgpu does not report about an adapter: its compute-unit count (SMs
//! on NVIDIA, compute units on AMD), which plans use to size grids that
//! fill the device (`Capabilities::saturating_groups`). Read from the
//! Vulkan physical device underneath a Vulkan adapter (wgpu-hal), through
//! VK_NV_shader_sm_builtins or VK_AMD_shader_core_properties2, as the Vulkan
//! backend reads it; `None` for other adapters and other platforms. A leaf
//! module: this file's `unsafe` is the only wgpu-hal access of the crate.

/// The adapter's compute units, where its Vulkan driver reports them.
#[cfg(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
))]
pub(crate) fn compute_units(adapter: &wgpu::Adapter) -> Option<u32> {
    use ash::vk;
    // SAFETY: the hal adapter is only read (its physical device handle, its
    // extension list, its instance) while `adapter`, which owns it, is
    // borrowed; nothing is created or destroyed through it.
    let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let shared = hal.shared_instance();
    // vkGetPhysicalDeviceProperties2 is core from Vulkan 1.1.
    if shared.instance_api_version() < vk::API_VERSION_1_1 {
        return None;
    }
    let capabilities = hal.physical_device_capabilities();
    let nv = capabilities.supports_extension(ash::nv::shader_sm_builtins::NAME);
    let amd = capabilities.supports_extension(ash::amd::shader_core_properties2::NAME);
    let mut sm = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
    let mut cores = vk::PhysicalDeviceShaderCoreProperties2AMD::default();
    let mut properties = vk::PhysicalDeviceProperties2::default();
    if nv {
        properties = properties.push_next(&mut sm);
    } else if amd {
        properties = properties.push_next(&mut cores);
    } else {
        return None;
    }
    // SAFETY: the physical device belongs to this live instance (both held
    // by the borrowed adapter); the instance is Vulkan 1.1 or later
    // (checked), and the one chained struct's extension is supported by the
    // device (checked); every struct lives across the call.
    unsafe {
        shared
            .raw_instance()
            .get_physical_device_properties2(hal.raw_physical_device(), &mut properties)
    };
    let units = if nv {
        sm.shader_sm_count
    } else {
        cores.active_compute_unit_count
    };
    (units > 0).then_some(units)
}

/// Other platforms: wgpu's adapters there are not Vulkan ones.
#[cfg(not(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
)))]
pub(crate) fn compute_units(_adapter: &wgpu::Adapter) -> Option<u32> {
    None
}
