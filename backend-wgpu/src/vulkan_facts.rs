//! What wgpu does not report about an adapter, read from the Vulkan
//! physical device underneath a Vulkan adapter (wgpu-hal) as the Vulkan
//! backend reads it; `None` for other adapters and other platforms. A leaf
//! module: this file's `unsafe` is the only wgpu-hal access of the crate.
//!
//! - The **compute-unit count** (SMs on NVIDIA, compute units on AMD),
//!   through VK_NV_shader_sm_builtins or VK_AMD_shader_core_properties2:
//!   plans size grids that fill the device by it
//!   (`Capabilities::saturating_groups`).
//! - The **device-local memory** (the sum of the device-local heaps): the
//!   checked layer's buffer pool keeps an eighth of it, at most 1 GiB, and
//!   assumes 2 GiB of memory where none is reported. Unreported, a 256 MiB
//!   buffer did not fit the pool: on an H200 the device-buffer chain of the
//!   benchmark (an 8192² conv2d, then a sum) allocated and freed its
//!   256 MiB output on every run through wgpu, 7.4 ms of host time per
//!   run against 0.4 ms through Vulkan (`docs/results/h200-2026-11-26c/`).

/// What the adapter's Vulkan driver reports beyond wgpu.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VulkanFacts {
    pub(crate) compute_units: Option<u32>,
    pub(crate) memory_bytes: Option<u64>,
}

/// The facts of a Vulkan adapter; all `None` for any other adapter.
#[cfg(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
))]
pub(crate) fn vulkan_facts(adapter: &wgpu::Adapter) -> VulkanFacts {
    use ash::vk;
    // SAFETY: the hal adapter is only read (its physical device handle, its
    // extension list, its instance) while `adapter`, which owns it, is
    // borrowed; nothing is created or destroyed through it.
    let Some(hal) = (unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }) else {
        return VulkanFacts::default();
    };
    let shared = hal.shared_instance();
    let instance = shared.raw_instance();
    let physical = hal.raw_physical_device();

    // SAFETY: the physical device belongs to this live instance (both held
    // by the borrowed adapter); the call only fills the returned struct.
    let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
    let heaps = memory.memory_heap_count.min(vk::MAX_MEMORY_HEAPS as u32) as usize;
    let memory_bytes: u64 = memory.memory_heaps[..heaps]
        .iter()
        .filter(|heap| heap.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .map(|heap| heap.size)
        .sum();

    let compute_units = (|| {
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
        // SAFETY: the physical device belongs to this live instance; the
        // instance is Vulkan 1.1 or later (checked), and the one chained
        // struct's extension is supported by the device (checked); every
        // struct lives across the call.
        unsafe { instance.get_physical_device_properties2(physical, &mut properties) };
        let units = if nv {
            sm.shader_sm_count
        } else {
            cores.active_compute_unit_count
        };
        (units > 0).then_some(units)
    })();

    VulkanFacts {
        compute_units,
        memory_bytes: (memory_bytes > 0).then_some(memory_bytes),
    }
}

/// Other platforms: wgpu's adapters there are not Vulkan ones.
#[cfg(not(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
)))]
pub(crate) fn vulkan_facts(_adapter: &wgpu::Adapter) -> VulkanFacts {
    VulkanFacts::default()
}
