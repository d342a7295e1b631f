//! Discovery: one device per CUDA ordinal, with capabilities read from the
//! device's attributes, opened fresh on every call.
//!
//! Order of checks, each failure an `Error::Unavailable` naming what is
//! missing: the driver library and its entry points (probe), NVRTC (probe),
//! `cuInit`, then the devices. Nothing here panics: the libraries are probed
//! before cudarc loads them, and the driver calls run under `catch_unwind`
//! as a last resort.

use crate::compile::{Compiler, DeviceKey};
use crate::disk;
use crate::driver::CudaDriver;
use crate::errors::{self, unavailable};
use crate::gpu::{Context, Stream};
use crate::nvrtc::Nvrtc;
use crate::physical;
use crate::probe;
use crate::sys::driver::{self, CUdevice, CUdevice_attribute as Attr};
use rosetta_core::{
    checked, llvmpipe_loop_limit, Api, Backend, Capabilities, DeviceInfo, DeviceType, PhysicalId,
    Result,
};
use std::sync::Arc;

/// Every CUDA device, in ordinal order (the `cuda:N` selector is the
/// ordinal), or `Unavailable` when the driver or NVRTC is missing.
pub fn discover() -> Result<Vec<Arc<dyn Backend>>> {
    let library = probe::driver().map_err(unavailable)?;
    let nvrtc = Nvrtc::get().map_err(unavailable)?;
    let opened = std::panic::AssertUnwindSafe(|| open_all(&library.path, nvrtc));
    match std::panic::catch_unwind(opened) {
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
                library.path
            )))
        }
    }
}

fn open_all(path: &str, nvrtc: &'static Nvrtc) -> Result<Vec<Arc<dyn Backend>>> {
    driver::init().map_err(|e| unavailable(format!("cuInit failed ({path}): {e}")))?;
    let version = driver::driver_version().map_err(errors::driver)?;
    let count = driver::device_count().map_err(errors::driver)?;
    let module = std::fs::read_to_string("/proc/driver/nvidia/version")
        .ok()
        .and_then(|text| physical::module_version(&text));
    let mut devices: Vec<Arc<dyn Backend>> = Vec::new();
    let mut last_error = None;
    let mut skipped = Vec::new();
    for ordinal in 0..count.max(0) {
        match open(ordinal, nvrtc, version, module.as_deref()) {
            Ok(device) => {
                tracing::info!(device = %device.info().name, ordinal, driver = %device.info().driver, "cuda: device found");
                devices.push(device);
            }
            Err(e) => {
                skipped.push((ordinal, e.chain()));
                last_error = Some(e);
            }
        }
    }
    // Said once: as a warning beside the devices that opened, else in the
    // error (one line, not a warning before it too).
    if !devices.is_empty() {
        for (ordinal, why) in &skipped {
            tracing::warn!(
                ordinal,
                "cuda: skipping a device that failed to open: {why}"
            );
        }
    }
    match (devices.is_empty(), last_error) {
        (true, Some(e)) => Err(e),
        _ => Ok(devices),
    }
}

/// `major.minor` from cuDriverGetVersion's 1000·major + 10·minor.
fn cuda_version(version: i32) -> (i32, i32) {
    (version / 1000, (version % 1000) / 10)
}

fn open(
    ordinal: i32,
    nvrtc: &'static Nvrtc,
    version: i32,
    module: Option<&str>,
) -> Result<Arc<dyn Backend>> {
    let device = driver::device_get(ordinal).map_err(errors::driver)?;
    let attr = |a: Attr| driver::device_attribute(device, a).map_err(errors::driver);
    let positive = |v: i32| u32::try_from(v).unwrap_or(0);
    let name = driver::device_name(device).map_err(errors::driver)?;
    let compute = (
        attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    let target = nvrtc
        .target_for(compute.0, compute.1)
        .map_err(unavailable)?;
    let memory = driver::device_total_mem(device).map_err(errors::driver)? as u64;
    let warp = positive(attr(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?);
    let pools = attr(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)? != 0;
    let caps = Capabilities {
        device_type: if attr(Attr::CU_DEVICE_ATTRIBUTE_INTEGRATED)? != 0 {
            DeviceType::IntegratedGpu
        } else {
            DeviceType::DiscreteGpu
        },
        // The opt-in maximum: launches past a kernel's default limit raise
        // it with cuFuncSetAttribute (kernel.rs).
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
        subgroup_sizes: (warp > 0).then_some([warp, warp]),
        subgroup_ops: warp > 0,
        // atomicAdd on float in global memory: every compute capability
        // since 2.0.
        float_atomics: compute.0 >= 2,
        // CUDA events.
        timestamps: true,
        // No per-allocation limit below the device's memory (and what this
        // host can address).
        max_buffer_bytes: memory.min(usize::MAX as u64),
        memory_bytes: memory,
        compute_units: positive(attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?),
        loop_limit: None,
        // __threadfence, on every architecture.
        device_fence: true,
        // cp.async: the kernels use it where they are compiled for sm_80 or
        // later (`__CUDA_ARCH__ >= 800`), which is what the target says.
        async_copy: target.sm() >= 80,
    };
    let physical = physical_id(device);
    let (cuda_major, cuda_minor) = cuda_version(version);
    let (nvrtc_major, nvrtc_minor) = nvrtc.version();
    let driver_text = format!(
        "CUDA driver API {cuda_major}.{cuda_minor}{}, compute capability {}.{}, NVRTC {nvrtc_major}.{nvrtc_minor} ({}) -> {} {}{}",
        module.map(|m| format!(" (NVIDIA {m})")).unwrap_or_default(),
        compute.0,
        compute.1,
        nvrtc.path(),
        target.arch(),
        target.kind(),
        if pools { "" } else { ", no memory pools" },
    );
    let caps = Capabilities {
        loop_limit: llvmpipe_loop_limit(&name, &driver_text),
        ..caps
    };
    let info = DeviceInfo {
        api: Api::Cuda,
        index: ordinal as usize,
        driver_version: format!(
            "CUDA {cuda_major}.{cuda_minor}, NVRTC {nvrtc_major}.{nvrtc_minor}, compute {}.{}",
            compute.0, compute.1
        ),
        name: name.clone(),
        driver: driver_text,
        physical,
        caps,
    };
    let context = Context::retain(device)?;
    let stream = Stream::new(&context)?;
    let compiler = Compiler::new(
        nvrtc,
        target,
        DeviceKey {
            name,
            driver_version: version,
            compute,
        },
        disk::cache(),
    )?;
    Ok(checked::open(
        info,
        CudaDriver::new(stream, pools, compiler),
    ))
}

/// The PCI address and UUID, where the driver reports them.
fn physical_id(device: CUdevice) -> PhysicalId {
    let pci_bus_id = match driver::device_pci_bus_id(device) {
        Ok(raw) => {
            let id = physical::pci_bus_id(&raw);
            if id.is_none() {
                tracing::warn!(%raw, "cuda: unexpected PCI bus id");
            }
            id
        }
        Err(e) => {
            tracing::debug!("cuda: no PCI bus id: {e}");
            None
        }
    };
    let uuid = match driver::device_uuid(device) {
        Ok(bytes) => Some(physical::uuid_hex(&bytes)),
        Err(e) => {
            tracing::debug!("cuda: no UUID: {e}");
            None
        }
    };
    PhysicalId { pci_bus_id, uuid }
}

#[cfg(test)]
mod tests {
    #[test]
    fn driver_versions_split_into_major_and_minor() {
        assert_eq!(super::cuda_version(13000), (13, 0));
        assert_eq!(super::cuda_version(12080), (12, 8));
        assert_eq!(super::cuda_version(11020), (11, 2));
    }
}
