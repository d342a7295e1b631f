//! Device discovery and capabilities: every adapter wgpu finds on any native
//! backend is one device, opened with the adapter's own limits and with the
//! subgroup, timestamp, float-atomic and pipeline-cache features where it
//! has them, and wrapped in rosetta-core's checked layer.

use crate::compile::Compiler;
use crate::driver::WgpuDriver;
use crate::errors::scoped;
use crate::gpu::Gpu;
use crate::pipeline_cache::PersistentCache;
use rosetta_core::disk_cache::DiskCache;
use rosetta_core::{
    checked, llvmpipe_loop_limit, Api, Backend, Capabilities, DeviceInfo, DeviceType, Error,
    PhysicalId, Result,
};
use std::sync::Arc;

/// Every usable adapter, as one device each, in wgpu's enumeration order
/// grouped by backend (Vulkan, Metal, DX12, GL); each call opens every
/// device afresh.
///
/// `Err(Unavailable)` when no adapter can run compute work; adapters that
/// can't (a GL context without compute shaders) or whose device fails to
/// open are skipped with a log line. Never panics: a panic inside wgpu
/// during discovery is caught and reported as `Unavailable`.
pub fn discover() -> Result<Vec<Arc<dyn Backend>>> {
    let disk = DiskCache::new("kernels/wgpu");
    let opened = std::panic::catch_unwind(|| open_all(&disk)).unwrap_or_else(|panic| {
        let reason = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "wgpu panicked during adapter discovery".into());
        tracing::error!("wgpu: discovery panicked: {reason}");
        Err(Error::Unavailable {
            api: Api::Wgpu,
            reason,
        })
    })?;
    Ok(opened
        .into_iter()
        .map(|(info, driver)| checked::open(info, driver))
        .collect())
}

/// Open every usable adapter's device, its pipelines cached in `disk`.
pub(crate) fn open_all(disk: &DiskCache) -> Result<Vec<(DeviceInfo, WgpuDriver)>> {
    // Instances are created and torn down one at a time (`lifecycle.rs`).
    let _lifecycle = crate::lifecycle::enter();
    // Every native backend, unless WGPU_BACKEND narrows the set (wgpu's own
    // variable, e.g. `WGPU_BACKEND=vulkan`).
    let backends = native_backends().with_env();
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.backends = backends;
    // Validation layers only on request (WGPU_VALIDATION=1 etc.): they are
    // slow and not installed on most machines.
    descriptor.flags = wgpu::InstanceFlags::empty().with_env();
    descriptor.backend_options = wgpu::BackendOptions::default().with_env();
    let instance = wgpu::Instance::new(descriptor);
    let mut adapters = pollster::block_on(instance.enumerate_adapters(backends));
    adapters.sort_by_key(|a| backend_rank(a.get_info().backend));

    let mut devices = Vec::new();
    let mut skipped = Vec::new();
    for adapter in adapters {
        let info = adapter.get_info();
        let label = device_name(&info);
        if !adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        {
            tracing::info!("wgpu: skipping {label}: no compute shaders");
            skipped.push(format!("{label}: no compute shaders"));
            continue;
        }
        if let Some(why) = gl_context_too_old(&info) {
            tracing::info!("wgpu: skipping {label}: {why}");
            skipped.push(format!("{label}: {why}"));
            continue;
        }
        match open(&adapter, devices.len(), disk) {
            Ok(device) => devices.push(device),
            Err(e) => {
                // An adapter that cannot run compute (NVIDIA's GL adapter,
                // `probe_compute`) is expected, as the one without compute
                // shaders above is: info, not a warning on every run.
                if matches!(e, Error::Unsupported { .. }) {
                    tracing::info!("wgpu: skipping {label}: {}", e.chain());
                } else {
                    tracing::warn!("wgpu: skipping {label}: {}", e.chain());
                }
                skipped.push(format!("{label}: {}", e.chain()));
            }
        }
    }
    if devices.is_empty() {
        let reason = if skipped.is_empty() {
            format!(
                "wgpu found no adapter on {backends:?} (no Vulkan/Metal/DX12 driver or GL context)"
            )
        } else {
            format!("no usable wgpu adapter ({})", skipped.join("; "))
        };
        return Err(Error::Unavailable {
            api: Api::Wgpu,
            reason,
        });
    }
    Ok(devices)
}

/// Every native backend compiled into wgpu (never the browser's WebGPU).
fn native_backends() -> wgpu::Backends {
    wgpu::Instance::enabled_backend_features()
        & (wgpu::Backends::VULKAN
            | wgpu::Backends::METAL
            | wgpu::Backends::DX12
            | wgpu::Backends::GL)
}

fn backend_rank(backend: wgpu::Backend) -> u8 {
    match backend {
        wgpu::Backend::Vulkan => 0,
        wgpu::Backend::Metal => 1,
        wgpu::Backend::Dx12 => 2,
        wgpu::Backend::Gl => 3,
        _ => 4,
    }
}

fn backend_name(backend: wgpu::Backend) -> &'static str {
    match backend {
        wgpu::Backend::Vulkan => "Vulkan",
        wgpu::Backend::Metal => "Metal",
        wgpu::Backend::Dx12 => "DX12",
        wgpu::Backend::Gl => "GL",
        wgpu::Backend::BrowserWebGpu => "WebGPU",
        wgpu::Backend::Noop => "noop",
    }
}

/// "NVIDIA H200 (Vulkan)".
fn device_name(info: &wgpu::AdapterInfo) -> String {
    format!("{} ({})", info.name, backend_name(info.backend))
}

/// The optional features rosetta uses, where the adapter has them.
fn wanted_features(adapter: &wgpu::Features) -> wgpu::Features {
    let wanted = wgpu::Features::SUBGROUP
        | wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::SHADER_FLOAT32_ATOMIC
        | wgpu::Features::PIPELINE_CACHE;
    let mut features = *adapter & wanted;
    // Timestamps inside encoders are only valid with the base feature.
    if !features.contains(wgpu::Features::TIMESTAMP_QUERY) {
        features.remove(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS);
    }
    features
}

/// Open the adapter's device with its own limits and the wanted features.
fn open(
    adapter: &wgpu::Adapter,
    index: usize,
    disk: &DiskCache,
) -> Result<(DeviceInfo, WgpuDriver)> {
    let info = adapter.get_info();
    let name = device_name(&info);
    let descriptor = wgpu::DeviceDescriptor {
        label: Some("rosetta"),
        required_features: wanted_features(&adapter.features()),
        required_limits: adapter.limits(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&descriptor))
        .map_err(|e| Error::device(Api::Wgpu, "wgpu::Adapter::request_device", e))?;
    probe_compute(&device)?;
    let gpu = Gpu::new(device, queue, &name);
    let persistent = PersistentCache::open(&gpu, &info, disk.clone());
    let driver = WgpuDriver::new(gpu, Compiler::new(persistent))?;
    let driver_text = driver_text(&info);
    let facts = crate::vulkan_facts::vulkan_facts(adapter);
    let device_info = DeviceInfo {
        api: Api::Wgpu,
        index,
        caps: Capabilities {
            compute_units: facts.compute_units.unwrap_or(0),
            memory_bytes: facts.memory_bytes.unwrap_or(0),
            ..capabilities(&info, &driver, &name, &driver_text)
        },
        name,
        driver: driver_text,
        driver_version: driver_version(&info),
        physical: PhysicalId {
            // Vulkan adapters with VK_EXT_pci_bus_info; empty elsewhere.
            pci_bus_id: Some(info.device_pci_bus_id.to_ascii_lowercase())
                .filter(|id| !id.is_empty()),
            // wgpu 30's AdapterInfo has no device UUID.
            uuid: None,
        },
    };
    tracing::debug!(
        device = %device_info.id(),
        name = %device_info.name,
        timestamps = device_info.caps.timestamps,
        pipeline_cache = driver.persistent_cache().is_some(),
        seeded_bytes = driver.persistent_cache().map_or(0, |c| c.seeded()),
        "wgpu: opened"
    );
    Ok((device_info, driver))
}

/// Why a GL adapter cannot run compute although it claims compute shaders,
/// from its version string (`driver_info`: "3.3.0 NVIDIA 580.159.04",
/// "4.5 (Core Profile) Mesa 22.3.6", "OpenGL ES 3.2 Mesa ..."): wgpu counts
/// `GL_ARB_compute_shader` on a GL 3.3 context (NVIDIA's EGL gives one), but
/// naga writes compute shaders only for GLSL 4.30 or ES 3.10, so building a
/// pipeline fails, and wgpu logs that failure as an error on every run.
/// `None` (leave it to [`probe_compute`]) where the version is new enough or
/// does not parse.
fn gl_context_too_old(info: &wgpu::AdapterInfo) -> Option<String> {
    if info.backend != wgpu::Backend::Gl {
        return None;
    }
    let text = info.driver_info.trim();
    let (es, version) = match text.strip_prefix("OpenGL ES ") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut numbers = version
        .split(|c: char| !c.is_ascii_digit())
        .map(str::parse::<u32>);
    let (Some(Ok(major)), Some(Ok(minor))) = (numbers.next(), numbers.next()) else {
        return None;
    };
    let needed = if es { (3, 1) } else { (4, 3) };
    ((major, minor) < needed).then(|| {
        format!(
            "a GL{} {major}.{minor} context ('{text}'): compute shaders need {}.{}",
            if es { " ES" } else { "" },
            needed.0,
            needed.1
        )
    })
}

/// Build a trivial compute pipeline. Some adapters claim compute shaders and
/// still cannot build one (NVIDIA's EGL gives wgpu a GL 3.3 context, which
/// naga's GLSL output for compute does not support): such an adapter is
/// skipped at discovery instead of failing every kernel later.
fn probe_compute(device: &wgpu::Device) -> Result<()> {
    const PROBE: &str = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n\
                         @compute @workgroup_size(1) fn main() { data[0] = 1u; }";
    let ((), error) = scoped(device, || {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("rosetta compute probe"),
            source: wgpu::ShaderSource::Wgsl(PROBE.into()),
        });
        let _pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("rosetta compute probe"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
    });
    match error {
        None => Ok(()),
        Some(e) => {
            let text = e.to_string();
            let last = text
                .lines()
                .map(str::trim)
                .rfind(|l| !l.is_empty())
                .unwrap_or("unknown error");
            Err(Error::unsupported(
                Api::Wgpu,
                format!("cannot build a compute pipeline: {last}"),
            ))
        }
    }
}

/// "wgpu 30 on Vulkan, llvmpipe, Mesa 22.3.6 (LLVM 15.0.6), vendor 0x10005
/// device 0x0".
fn driver_text(info: &wgpu::AdapterInfo) -> String {
    let mut parts = vec![format!("wgpu 30 on {}", backend_name(info.backend))];
    for part in [&info.driver, &info.driver_info] {
        if !part.is_empty() {
            parts.push(part.clone());
        }
    }
    parts.push(format!(
        "vendor {:#x} device {:#x}",
        info.vendor, info.device
    ));
    parts.join(", ")
}

/// The driver's version as the adapter reports it (`driver_info`: Mesa's or
/// the vendor's version string), else the driver's name.
fn driver_version(info: &wgpu::AdapterInfo) -> String {
    [&info.driver_info, &info.driver]
        .into_iter()
        .find(|s| !s.trim().is_empty())
        .cloned()
        .unwrap_or_else(|| "unknown".into())
}

/// Capabilities from the opened device's limits and features.
fn capabilities(
    info: &wgpu::AdapterInfo,
    driver: &WgpuDriver,
    name: &str,
    driver_text: &str,
) -> Capabilities {
    let (features, limits) = driver.features_and_limits();
    let subgroups = features.contains(wgpu::Features::SUBGROUP);
    // A buffer must fit one allocation and one storage binding; kept a
    // multiple of 16 so that rounding an allowed size up never exceeds it.
    let max_buffer = limits
        .max_buffer_size
        .min(limits.max_storage_buffer_binding_size)
        & !15;
    Capabilities {
        device_type: match info.device_type {
            wgpu::DeviceType::Cpu => DeviceType::Cpu,
            wgpu::DeviceType::DiscreteGpu => DeviceType::DiscreteGpu,
            wgpu::DeviceType::IntegratedGpu => DeviceType::IntegratedGpu,
            wgpu::DeviceType::VirtualGpu => DeviceType::VirtualGpu,
            wgpu::DeviceType::Other => DeviceType::Other,
        },
        max_shared_bytes: limits.max_compute_workgroup_storage_size,
        max_group_size: [
            limits.max_compute_workgroup_size_x,
            limits.max_compute_workgroup_size_y,
            limits.max_compute_workgroup_size_z,
        ],
        max_group_invocations: limits.max_compute_invocations_per_workgroup,
        max_groups: [limits.max_compute_workgroups_per_dimension; 3],
        // wgpu reports real sizes only where the adapter has subgroups; the
        // values it reports otherwise are placeholders.
        subgroup_sizes: subgroups.then_some([info.subgroup_min_size, info.subgroup_max_size]),
        subgroup_ops: subgroups,
        float_atomics: features.contains(wgpu::Features::SHADER_FLOAT32_ATOMIC),
        // Device marks need timestamps between commands; without them the
        // checked layer times with the host clock.
        timestamps: driver.has_timer(),
        max_buffer_bytes: max_buffer,
        // wgpu reports neither the memory size nor the compute-unit count
        // (`open` reads both from a Vulkan adapter's driver).
        memory_bytes: 0,
        compute_units: 0,
        loop_limit: llvmpipe_loop_limit(name, driver_text),
        // WGSL has no device-scope fence (`storageBarrier` orders a
        // workgroup's accesses; the one-launch reduce does without one,
        // `last_group_sees_others`) and no asynchronous copies.
        device_fence: false,
        async_copy: false,
    }
}

#[cfg(test)]
mod tests {
    use super::gl_context_too_old;

    fn info(backend: wgpu::Backend, driver_info: &str) -> wgpu::AdapterInfo {
        let mut info = wgpu::AdapterInfo::new(wgpu::DeviceType::DiscreteGpu, backend);
        info.driver_info = driver_info.into();
        info
    }

    /// NVIDIA's GL 3.3 context is skipped before a pipeline is built; GL 4.3
    /// and later, ES 3.1 and later, other backends and strings that do not
    /// parse are left to the probe.
    #[test]
    fn gl_contexts_below_compute_are_skipped_by_version() {
        use wgpu::Backend::{Gl, Vulkan};
        let nvidia = gl_context_too_old(&info(Gl, "3.3.0 NVIDIA 580.159.04")).unwrap();
        assert!(
            nvidia.contains("GL 3.3") && nvidia.contains("need 4.3"),
            "{nvidia}"
        );
        let es = gl_context_too_old(&info(Gl, "OpenGL ES 3.0 Mesa 22.3.6")).unwrap();
        assert!(es.contains("GL ES 3.0") && es.contains("need 3.1"), "{es}");
        for fine in [
            "4.5 (Core Profile) Mesa 22.3.6",
            "4.3.0 NVIDIA 580.159.04",
            "4.6.0 NVIDIA 580.159.04",
            "OpenGL ES 3.1 Mesa 22.3.6",
            "OpenGL ES 3.2 NVIDIA 580.159.04",
            "",
            "unknown",
            "4",
        ] {
            assert_eq!(gl_context_too_old(&info(Gl, fine)), None, "{fine:?}");
        }
        assert_eq!(gl_context_too_old(&info(Vulkan, "3.3.0")), None);
    }
}
