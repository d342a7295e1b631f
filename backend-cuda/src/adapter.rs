//! Device discovery and capabilities: one device per CUDA ordinal, with
//! limits read from the device's attributes.
//!
//! Order of checks, each failure an `Error::Unavailable` naming what is
//! missing: the driver library (probe), NVRTC (probe), `cuInit`, then the
//! devices. Nothing here panics: the libraries are probed before cudarc loads
//! them, and the driver calls run under `catch_unwind` as a last resort
//! (cudarc panics on a symbol missing from an old driver).

use crate::device::CudaDevice;
use crate::errors;
use crate::nvrtc::{Nvrtc, Target};
use crate::probe;
use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdevice_attribute as Attr};
use rosetta_core::{Api, Backend, Capabilities, DeviceInfo, DeviceType, Error, Result};
use std::sync::Arc;

fn unavailable(reason: impl Into<String>) -> Error {
    Error::Unavailable {
        api: Api::Cuda,
        reason: reason.into(),
    }
}

/// Every CUDA device, or `Unavailable` when the driver or NVRTC is missing.
pub fn discover() -> Result<Vec<Arc<dyn Backend>>> {
    let driver = probe::driver().map_err(unavailable)?;
    let nvrtc = Nvrtc::get().map_err(unavailable)?;
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| open_devices(driver, nvrtc))) {
        Ok(found) => found,
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            tracing::error!(%what, "cuda: cudarc panicked during discovery");
            Err(unavailable(format!(
                "the CUDA driver at {} is not usable by cudarc (built for CUDA 13.0): {what}",
                driver.path
            )))
        }
    }
}

fn open_devices(
    driver: &probe::DriverLibrary,
    nvrtc: &'static Nvrtc,
) -> Result<Vec<Arc<dyn Backend>>> {
    result::init().map_err(|e| {
        unavailable(format!(
            "cuInit failed ({}): {}",
            driver.path,
            errors::describe(e)
        ))
    })?;
    let count = result::device::get_count().map_err(|e| errors::driver("cuDeviceGetCount", e))?;
    let mut version = 0;
    // SAFETY: cuDriverGetVersion writes one int through a valid pointer.
    let _ = unsafe { sys::cuDriverGetVersion(&mut version) };
    let module = kernel_module_version();
    let mut devices: Vec<Arc<dyn Backend>> = Vec::new();
    let mut last_error = None;
    for ordinal in 0..count.max(0) as usize {
        match open_device(ordinal, nvrtc, version, module.as_deref()) {
            Ok(device) => {
                tracing::info!(device = %device.info().name, ordinal, driver = %device.info().driver, "cuda: device found");
                devices.push(Arc::new(device));
            }
            Err(e) => {
                tracing::warn!(ordinal, error = %e, "cuda: skipping a device that failed to open");
                last_error = Some(e);
            }
        }
    }
    match (devices.is_empty(), last_error) {
        (true, Some(e)) => Err(e),
        _ => Ok(devices),
    }
}

fn open_device(
    ordinal: usize,
    nvrtc: &'static Nvrtc,
    driver_version: i32,
    module: Option<&str>,
) -> Result<CudaDevice> {
    let dev = result::device::get(ordinal as i32).map_err(|e| errors::driver("cuDeviceGet", e))?;
    let attr = |a: Attr| -> Result<i32> {
        // SAFETY: `dev` is a valid device handle from cuDeviceGet; the call
        // only writes one int.
        unsafe { result::device::get_attribute(dev, a) }
            .map_err(|e| errors::driver("cuDeviceGetAttribute", e))
    };
    let positive = |v: i32| u32::try_from(v).unwrap_or(0);
    let name = result::device::get_name(dev).map_err(|e| errors::driver("cuDeviceGetName", e))?;
    let (major, minor) = (
        attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    // SAFETY: as above; writes one size_t.
    let memory = unsafe { result::device::total_mem(dev) }
        .map_err(|e| errors::driver("cuDeviceTotalMem", e))? as u64;
    let warp = positive(attr(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?);
    let target = nvrtc.target_for(major, minor).map_err(unavailable)?;
    let caps = Capabilities {
        device_type: if attr(Attr::CU_DEVICE_ATTRIBUTE_INTEGRATED)? != 0 {
            DeviceType::IntegratedGpu
        } else {
            DeviceType::DiscreteGpu
        },
        // The opt-in maximum: launches past 48 KB raise the kernel's limit
        // with cuFuncSetAttribute (launch.rs).
        max_shared_bytes: positive(attr(
            Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )?),
        max_group_size: [
            positive(attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?),
            positive(attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?),
            positive(attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?),
        ],
        max_group_invocations: positive(attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?),
        max_groups: [
            positive(attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?),
            positive(attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?),
            positive(attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?),
        ],
        subgroup_sizes: Some([warp, warp]),
        subgroup_ops: warp > 0,
        float_atomics: true,
        timestamps: true,
        // CUDA has no per-allocation limit below the device's memory.
        max_buffer_bytes: memory,
        memory_bytes: memory,
        compute_units: positive(attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?),
    };
    let driver = format!(
        "CUDA driver API {}.{}{}, compute capability {major}.{minor}, NVRTC {}.{} ({}) -> {}{}",
        driver_version / 1000,
        (driver_version % 1000) / 10,
        module.map(|m| format!(" (NVIDIA {m})")).unwrap_or_default(),
        nvrtc.version.0,
        nvrtc.version.1,
        nvrtc.path,
        target.arch(),
        match target {
            Target::Cubin(_) => " cubin",
            Target::Ptx(_) => " PTX (JIT)",
        },
    );
    let info = DeviceInfo {
        api: Api::Cuda,
        index: ordinal,
        name,
        driver,
        caps,
    };
    CudaDevice::open(ordinal, info, nvrtc, target)
}

/// The kernel module's version ("580.65.06") from /proc, where Linux has it.
fn kernel_module_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    let line = text.lines().next()?;
    let rest = line.split("Kernel Module").nth(1)?;
    rest.split_whitespace().next().map(str::to_string)
}
