//! Device discovery and capabilities: every device of every platform, in
//! platform order (the `opencl:N` index), each opened fresh on every call,
//! with limits read from the device's own info queries.
//!
//! OpenCL has no query for the number of workgroups per dispatch: its only
//! limit is the global size in `size_t` (`CL_DEVICE_ADDRESS_BITS`).
//! `max_groups` is `[2³¹ − 1, 65535, 65535]` (a 32-bit device: what keeps
//! the global size in 32 bits), the grid limits of the GPUs OpenCL maps
//! onto (NVIDIA's OpenCL runs NDRanges as CUDA grids): large enough for
//! every plan, small enough that global indices fit in 32 bits.

use crate::driver::OpenClDriver;
use crate::info::{self, Query};
use crate::physical::physical;
use crate::ptx::Ptx;
use crate::status::API;
use crate::sys::{self, DeviceId, PlatformId};
use crate::target::{Subgroups, Target};
use rosetta_core::{
    checked, llvmpipe_loop_limit, Backend, Capabilities, DeviceInfo, DeviceType, Error, Result,
};
use std::sync::{Arc, Mutex};

/// Every OpenCL device (every device of every platform, in platform order),
/// each opened fresh: its own context, queue and kernel cache. An error
/// only when there is no platform or no usable device.
pub fn discover() -> Result<Vec<Arc<dyn Backend>>> {
    // One discovery at a time per process: drivers initialise on the first
    // platform and device queries, and PoCL's first initialisation is not
    // safe to race (a concurrent caller sees "no devices", or crashes).
    static DISCOVERY: Mutex<()> = Mutex::new(());
    let _one_at_a_time = DISCOVERY.lock().unwrap_or_else(|p| p.into_inner());
    let platforms = sys::platform_ids().map_err(|f| Error::Unavailable {
        api: API,
        reason: f.to_string(),
    })?;
    if platforms.is_empty() {
        return Err(Error::Unavailable {
            api: API,
            reason: "the ICD loader found no OpenCL platform (no driver is registered in \
                     /etc/OpenCL/vendors or $OCL_ICD_VENDORS; install one, e.g. pocl-opencl-icd)"
                .into(),
        });
    }
    let mut devices: Vec<Arc<dyn Backend>> = Vec::new();
    let mut problems = Vec::new();
    let mut skipped = Vec::new();
    for platform in platforms {
        let platform_name = Some(info::platform_string(platform, info::CL_PLATFORM_NAME))
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "unnamed platform".into());
        let ids = match sys::device_ids(platform) {
            Ok(ids) => ids,
            Err(f) => {
                let problem = format!("{platform_name}: {f}");
                tracing::warn!("opencl: {problem}");
                problems.push(problem);
                continue;
            }
        };
        if ids.is_empty() {
            problems.push(format!("{platform_name}: no devices"));
        }
        for id in ids {
            match open(platform, id, devices.len()) {
                Ok(device) => {
                    let info = device.info();
                    tracing::info!("{} {} [{}]", info.id(), info.name, info.driver);
                    devices.push(device);
                }
                Err(err) => {
                    let problem = format!("{platform_name}: {}", err.chain());
                    skipped.push(problem.clone());
                    problems.push(problem);
                }
            }
        }
    }
    // Said once: as a warning beside the devices that opened, else in the
    // error (one line, not a warning before it too).
    if !devices.is_empty() {
        for problem in &skipped {
            tracing::warn!("opencl: skipping a device of {problem}");
        }
    }
    if devices.is_empty() {
        return Err(Error::Unavailable {
            api: API,
            reason: if problems.is_empty() {
                "no OpenCL device found".into()
            } else {
                problems.join("; ")
            },
        });
    }
    Ok(devices)
}

/// Describe and open one device as `opencl:index`.
fn open(platform: PlatformId, id: DeviceId, index: usize) -> Result<Arc<dyn Backend>> {
    let (mut info, target) =
        describe(platform, id, index).map_err(|reason| Error::Unavailable { api: API, reason })?;
    let driver = OpenClDriver::open(id, target)?;
    // The queue decides: a device may list profiling and still not give
    // usable times.
    info.caps.timestamps = driver.has_timestamps();
    // What the inline PTX probe found (`ptx.rs`); `rosetta devices` and the
    // report show these capabilities.
    let ptx = driver.ptx();
    info.caps.device_fence = ptx.fence;
    info.caps.async_copy = ptx.async_copy;
    Ok(checked::open(info, driver))
}

/// Read one device's identity, capabilities and build settings.
fn describe(
    platform: PlatformId,
    device: DeviceId,
    index: usize,
) -> std::result::Result<(DeviceInfo, Target), String> {
    let q = Query(device);
    let name = q
        .string(info::CL_DEVICE_NAME)
        .unwrap_or_else(|| "OpenCL device".into());
    let required = |what: &str, value: Option<u64>| {
        value.ok_or_else(|| format!("{name}: the device does not report {what}"))
    };
    if q.u32(info::CL_DEVICE_AVAILABLE) == Some(0) {
        return Err(format!("{name}: the device is not available"));
    }
    if q.u32(info::CL_DEVICE_COMPILER_AVAILABLE) == Some(0) {
        return Err(format!("{name}: the device has no OpenCL C compiler"));
    }

    let extensions = q.string(info::CL_DEVICE_EXTENSIONS).unwrap_or_default();
    let has = |ext: &str| extensions.split_whitespace().any(|e| e == ext);
    let device_version = q.string(info::CL_DEVICE_VERSION).unwrap_or_default();
    let c_version_text = q
        .string(info::CL_DEVICE_OPENCL_C_VERSION)
        .unwrap_or_default();
    let version = info::parse_version(&device_version).unwrap_or((1, 0));
    let c_version = info::parse_version(&c_version_text).unwrap_or((1, 0));
    // OpenCL 3.0 devices list every OpenCL C version they accept and the
    // optional features of OpenCL C 3.0.
    let c3 = version.0 >= 3
        && q.name_versions(info::CL_DEVICE_OPENCL_C_ALL_VERSIONS)
            .is_some_and(|all| all.iter().any(|(v, _)| info::unpack_version(*v).0 == 3));
    let c3_subgroups = c3
        && q.name_versions(info::CL_DEVICE_OPENCL_C_FEATURES)
            .is_some_and(|f| f.iter().any(|(_, n)| n == "__opencl_c_subgroups"));

    // The subgroup variants need sub_group_reduce_* and friends: from
    // cl_intel_subgroups (any OpenCL C from 1.2), cl_khr_subgroups (OpenCL C
    // 2.0 and later) or the OpenCL C 3.0 feature.
    let base_std = (c_version >= (1, 2)).then_some("CL1.2");
    let (subgroups, cl_std) = if has("cl_intel_subgroups") && base_std.is_some() {
        (Some(Subgroups::Intel), base_std)
    } else if c3_subgroups {
        (Some(Subgroups::Feature), Some("CL3.0"))
    } else if has("cl_khr_subgroups") && c_version >= (2, 0) {
        (Some(Subgroups::Khr), Some("CL2.0"))
    } else if has("cl_khr_subgroups") && c3 {
        (Some(Subgroups::Khr), Some("CL3.0"))
    } else {
        (None, base_std)
    };
    let subgroup_ops = subgroups.is_some();
    let subgroup_sizes = if has("cl_intel_subgroups") || has("cl_intel_required_subgroup_size") {
        q.sizes(info::CL_DEVICE_SUB_GROUP_SIZES_INTEL)
            .filter(|s| !s.is_empty())
            .map(|s| {
                let (lo, hi) = (s.iter().min().copied(), s.iter().max().copied());
                [clamp_u32(lo.unwrap_or(0)), clamp_u32(hi.unwrap_or(0))]
            })
    } else if has("cl_nv_device_attribute_query") {
        q.u32(info::CL_DEVICE_WARP_SIZE_NV).map(|w| [w, w])
    } else if has("cl_amd_device_attribute_query") {
        q.u32(info::CL_DEVICE_WAVEFRONT_WIDTH_AMD).map(|w| [w, w])
    } else {
        None
    };

    let float_atomics = has("cl_ext_float_atomics")
        && q.u64(info::CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT)
            .is_some_and(|caps| caps & info::CL_FP_ATOMIC_GLOBAL_ADD != 0);
    let queue_properties = q.u64(info::CL_DEVICE_QUEUE_PROPERTIES).unwrap_or(0);
    let profiling = queue_properties & info::CL_QUEUE_PROFILING_ENABLE != 0;

    let kind = q.u64(info::CL_DEVICE_TYPE).unwrap_or(0);
    let device_type = if kind & info::CL_DEVICE_TYPE_CPU != 0 {
        DeviceType::Cpu
    } else if kind & info::CL_DEVICE_TYPE_GPU != 0 {
        if q.u32(info::CL_DEVICE_HOST_UNIFIED_MEMORY).unwrap_or(0) != 0 {
            DeviceType::IntegratedGpu
        } else {
            DeviceType::DiscreteGpu
        }
    } else {
        DeviceType::Other
    };

    // Local memory: CL_NONE (0) means there is none; CL_GLOBAL (2) means it
    // is emulated in global memory (PoCL's CPU device), still usable.
    let local_type = q.u32(info::CL_DEVICE_LOCAL_MEM_TYPE).unwrap_or(1);
    let local_bytes = required(
        "CL_DEVICE_LOCAL_MEM_SIZE",
        q.u64(info::CL_DEVICE_LOCAL_MEM_SIZE),
    )?;
    let max_shared_bytes = if local_type == 0 {
        0
    } else {
        clamp_u32(local_bytes)
    };
    let max_invocations = required(
        "CL_DEVICE_MAX_WORK_GROUP_SIZE",
        q.size(info::CL_DEVICE_MAX_WORK_GROUP_SIZE),
    )?;
    let items = q
        .sizes(info::CL_DEVICE_MAX_WORK_ITEM_SIZES)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            format!("{name}: the device does not report CL_DEVICE_MAX_WORK_ITEM_SIZES")
        })?;
    let item = |axis: usize| clamp_u32(items.get(axis).copied().unwrap_or(1));
    let max_buffer_bytes = required(
        "CL_DEVICE_MAX_MEM_ALLOC_SIZE",
        q.u64(info::CL_DEVICE_MAX_MEM_ALLOC_SIZE),
    )?;

    // See the module docs: the global size must fit in `size_t`.
    let max_groups_x = match q.u32(info::CL_DEVICE_ADDRESS_BITS) {
        Some(bits) if bits <= 32 => clamp_u32(u64::from(u32::MAX) / max_invocations.max(1)),
        _ => i32::MAX as u32,
    };

    let platform_name = info::platform_string(platform, info::CL_PLATFORM_NAME);
    let platform_version = info::platform_string(platform, info::CL_PLATFORM_VERSION);
    let driver_version = q.string(info::CL_DRIVER_VERSION).unwrap_or_default();
    let local_kind = match local_type {
        0 => "none",
        2 => "global (emulated)",
        _ => "local",
    };
    let resolution = q
        .size(info::CL_DEVICE_PROFILING_TIMER_RESOLUTION)
        .map(|ns| format!("{ns} ns"))
        .unwrap_or_else(|| "unknown".into());
    let driver = format!(
        "{platform_name} ({platform_version}); driver {driver_version}; {c_version_text}; \
         build -cl-std={}; local memory {local_kind}; timer resolution {resolution}",
        cl_std.unwrap_or("default"),
    );

    let caps = Capabilities {
        device_type,
        max_shared_bytes,
        max_group_size: [item(0), item(1), item(2)],
        max_group_invocations: clamp_u32(max_invocations),
        max_groups: [max_groups_x, 65535, 65535],
        subgroup_sizes,
        subgroup_ops,
        float_atomics,
        timestamps: profiling,
        max_buffer_bytes,
        memory_bytes: q.u64(info::CL_DEVICE_GLOBAL_MEM_SIZE).unwrap_or(0),
        compute_units: q.u32(info::CL_DEVICE_MAX_COMPUTE_UNITS).unwrap_or(0),
        loop_limit: llvmpipe_loop_limit(&name, &driver),
        // Only through NVIDIA's inline PTX, which `open` probes.
        device_fence: false,
        async_copy: false,
    };

    let driver_version = format!("{driver_version} ({platform_version})");
    let target = Target {
        cl_std,
        subgroups,
        version_1_2: version >= (1, 2),
        profiling,
        local_bytes: u64::from(max_shared_bytes),
        identity: format!("{platform_name} / {name} / {driver_version}"),
        nvidia: has("cl_nv_device_attribute_query"),
        quiet: platform_name == "Portable Computing Language",
        ptx: Ptx::default(),
    };
    let info = DeviceInfo {
        api: API,
        index,
        physical: physical(&q, has),
        name,
        driver,
        driver_version,
        caps,
    };
    Ok((info, target))
}

fn clamp_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}
