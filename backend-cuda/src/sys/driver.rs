//! The CUDA driver API calls of this crate, over cudarc's bindings
//! (`cudarc::driver::sys`, which loads `libcuda` at run time).
//!
//! cudarc resolves each entry point the first time it is called and panics
//! when the library or the symbol is missing; `crate::probe` loads the
//! library first and checks every name in [`SYMBOLS`], so no call here
//! reaches that panic. The handles (`CUcontext`, `CUstream`, ...) are plain
//! driver handles; `crate::gpu` owns them.

use cudarc::driver::sys;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::fmt;

pub(crate) use sys::{
    CUcontext, CUdevice, CUdevice_attribute, CUdeviceptr, CUevent, CUfunction,
    CUfunction_attribute, CUmodule, CUresult, CUstream,
};

/// Every driver symbol the functions below resolve, checked by the probe
/// before the first call (a driver older than the CUDA 13.0 bindings lacks
/// some, e.g. `cuEventElapsedTime_v2`, which came with CUDA 12.8).
pub(crate) const SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDriverGetVersion",
    "cuGetErrorString",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDeviceTotalMem_v2",
    "cuDeviceGetPCIBusId",
    "cuDeviceGetUuid_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuStreamCreate",
    "cuStreamSynchronize",
    "cuStreamDestroy_v2",
    "cuMemAllocAsync",
    "cuMemFreeAsync",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemsetD32Async",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuModuleLoadData",
    "cuModuleUnload",
    "cuModuleGetFunction",
    "cuFuncGetAttribute",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventElapsedTime_v2",
    "cuEventDestroy_v2",
];

/// Driver symbols called only where the probe found them (newer than the
/// oldest driver this build runs on): each call is guarded by a flag of
/// `probe::DriverLibrary`.
pub(crate) const OPTIONAL_SYMBOLS: &[&str] = &[PARAM_INFO];

/// CUDA 12.4: a kernel's parameters (`DriverLibrary::param_info`).
pub(crate) const PARAM_INFO: &str = "cuFuncGetParamInfo";

/// A driver call that returned an error: the call, the driver's code and
/// its description.
#[derive(Debug, Clone)]
pub(crate) struct CuError {
    call: &'static str,
    code: CUresult,
    text: Option<String>,
}

impl CuError {
    /// The entry point that failed (`cuLaunchKernel`, ...).
    pub(crate) fn call(&self) -> &'static str {
        self.call
    }

    /// The driver's status code.
    pub(crate) fn code(&self) -> CUresult {
        self.code
    }

    /// An error with no description, made without a driver (tests).
    #[cfg(test)]
    pub(crate) fn bare(call: &'static str, code: CUresult) -> Self {
        CuError {
            call,
            code,
            text: None,
        }
    }
}

impl fmt::Display for CuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The enum variant's name is the driver's own name for the code.
        write!(f, "{:?}", self.code)?;
        match &self.text {
            Some(text) => write!(f, ": {text}"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for CuError {}

/// `Ok` for `CUDA_SUCCESS`, else the error of `call` with the driver's
/// description.
fn check(call: &'static str, code: CUresult) -> Result<(), CuError> {
    if code == CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(CuError {
            call,
            code,
            text: describe(code),
        })
    }
}

/// The driver's description of a status code.
fn describe(code: CUresult) -> Option<String> {
    let mut text: *const c_char = std::ptr::null();
    // SAFETY: cuGetErrorString writes one pointer through a valid
    // out-pointer; it needs no initialised driver.
    let status = unsafe { sys::cuGetErrorString(code, &mut text) };
    if status != CUresult::CUDA_SUCCESS || text.is_null() {
        return None;
    }
    // SAFETY: on success the pointer is a static NUL-terminated string owned
    // by the driver.
    Some(
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// `cuInit(0)`: initialise the driver API (idempotent).
pub(crate) fn init() -> Result<(), CuError> {
    // SAFETY: takes only the flags word, which must be 0.
    check("cuInit", unsafe { sys::cuInit(0) })
}

/// `cuDriverGetVersion`: the CUDA version the driver supports
/// (1000·major + 10·minor).
pub(crate) fn driver_version() -> Result<i32, CuError> {
    let mut version: c_int = 0;
    // SAFETY: writes one int through a valid out-pointer.
    check("cuDriverGetVersion", unsafe {
        sys::cuDriverGetVersion(&mut version)
    })?;
    Ok(version)
}

/// `cuDeviceGetCount`.
pub(crate) fn device_count() -> Result<i32, CuError> {
    let mut count: c_int = 0;
    // SAFETY: writes one int through a valid out-pointer.
    check("cuDeviceGetCount", unsafe {
        sys::cuDeviceGetCount(&mut count)
    })?;
    Ok(count)
}

/// `cuDeviceGet`: the device of an ordinal.
pub(crate) fn device_get(ordinal: i32) -> Result<CUdevice, CuError> {
    let mut device: CUdevice = 0;
    // SAFETY: writes one device handle (an integer) through a valid
    // out-pointer; a bad ordinal is an error code.
    check("cuDeviceGet", unsafe {
        sys::cuDeviceGet(&mut device, ordinal)
    })?;
    Ok(device)
}

/// `cuDeviceGetName`.
pub(crate) fn device_name(device: CUdevice) -> Result<String, CuError> {
    let mut name = [0 as c_char; 256];
    // SAFETY: the driver writes at most `len` bytes, NUL included, into a
    // buffer of that many; a bad device is an error code.
    check("cuDeviceGetName", unsafe {
        sys::cuDeviceGetName(name.as_mut_ptr(), name.len() as c_int, device)
    })?;
    Ok(text_of(&name))
}

/// `cuDeviceGetAttribute`.
pub(crate) fn device_attribute(
    device: CUdevice,
    attribute: CUdevice_attribute,
) -> Result<i32, CuError> {
    let mut value: c_int = 0;
    // SAFETY: writes one int through a valid out-pointer; a bad device or
    // attribute is an error code.
    check("cuDeviceGetAttribute", unsafe {
        sys::cuDeviceGetAttribute(&mut value, attribute, device)
    })?;
    Ok(value)
}

/// `cuDeviceTotalMem`: the device's memory in bytes.
pub(crate) fn device_total_mem(device: CUdevice) -> Result<usize, CuError> {
    let mut bytes: usize = 0;
    // SAFETY: writes one size_t through a valid out-pointer.
    check("cuDeviceTotalMem", unsafe {
        sys::cuDeviceTotalMem_v2(&mut bytes, device)
    })?;
    Ok(bytes)
}

/// `cuDeviceGetPCIBusId`: the PCI address as the driver writes it
/// (`domain:bus:device.function` in hex).
pub(crate) fn device_pci_bus_id(device: CUdevice) -> Result<String, CuError> {
    let mut id = [0 as c_char; 64];
    // SAFETY: the driver writes at most `len` bytes, NUL included, into a
    // buffer of that many.
    check("cuDeviceGetPCIBusId", unsafe {
        sys::cuDeviceGetPCIBusId(id.as_mut_ptr(), id.len() as c_int, device)
    })?;
    Ok(text_of(&id))
}

/// `cuDeviceGetUuid_v2`: the device's 16-byte UUID.
pub(crate) fn device_uuid(device: CUdevice) -> Result<[u8; 16], CuError> {
    let mut uuid = sys::CUuuid { bytes: [0; 16] };
    // SAFETY: writes one 16-byte CUuuid through a valid out-pointer.
    check("cuDeviceGetUuid_v2", unsafe {
        sys::cuDeviceGetUuid_v2(&mut uuid, device)
    })?;
    Ok(uuid.bytes.map(|b| b as u8))
}

/// `cuDevicePrimaryCtxRetain`: the device's primary context, its reference
/// count raised by one (undone by [`primary_ctx_release`]).
pub(crate) fn primary_ctx_retain(device: CUdevice) -> Result<CUcontext, CuError> {
    let mut context: CUcontext = std::ptr::null_mut();
    // SAFETY: writes one context handle through a valid out-pointer; a
    // retain that is never released only keeps the context alive.
    check("cuDevicePrimaryCtxRetain", unsafe {
        sys::cuDevicePrimaryCtxRetain(&mut context, device)
    })?;
    Ok(context)
}

/// `cuDevicePrimaryCtxRelease`: drop one reference to the primary context;
/// the last one destroys it with everything made in it.
///
/// # Safety
/// Balances exactly one successful [`primary_ctx_retain`] of `device`, and
/// nothing made in the context through that reference (memory, streams,
/// modules, events) is used afterwards.
pub(crate) unsafe fn primary_ctx_release(device: CUdevice) -> Result<(), CuError> {
    // SAFETY: the caller balances a retain and has stopped using the
    // context's objects.
    check("cuDevicePrimaryCtxRelease", unsafe {
        sys::cuDevicePrimaryCtxRelease_v2(device)
    })
}

/// `cuCtxSetCurrent`: make `context` current on the calling thread.
///
/// # Safety
/// `context` is a live context (retained and not yet released).
pub(crate) unsafe fn ctx_set_current(context: CUcontext) -> Result<(), CuError> {
    // SAFETY: the caller guarantees the context is live.
    check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(context) })
}

/// `cuStreamCreate(CU_STREAM_NON_BLOCKING)` in the current context: a stream
/// that does not synchronise with the legacy default stream.
pub(crate) fn stream_create_non_blocking() -> Result<CUstream, CuError> {
    let mut stream: CUstream = std::ptr::null_mut();
    // SAFETY: writes one stream handle through a valid out-pointer; without
    // a current context the call fails with an error code.
    check("cuStreamCreate", unsafe {
        sys::cuStreamCreate(
            &mut stream,
            sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32,
        )
    })?;
    Ok(stream)
}

/// `cuStreamSynchronize`: wait until everything enqueued on `stream` has
/// completed.
///
/// # Safety
/// `stream` is a live stream whose context is current.
pub(crate) unsafe fn stream_synchronize(stream: CUstream) -> Result<(), CuError> {
    // SAFETY: the caller guarantees a live stream.
    check("cuStreamSynchronize", unsafe {
        sys::cuStreamSynchronize(stream)
    })
}

/// `cuStreamDestroy`: release `stream` (work still on it completes first).
///
/// # Safety
/// `stream` is a live stream whose context is current, and is not used again.
pub(crate) unsafe fn stream_destroy(stream: CUstream) -> Result<(), CuError> {
    // SAFETY: the caller guarantees a live stream used no more.
    check("cuStreamDestroy", unsafe {
        sys::cuStreamDestroy_v2(stream)
    })
}

/// `cuMemAllocAsync`: `bytes` of device memory from the device's default
/// memory pool, allocated in `stream`'s order.
///
/// # Safety
/// `stream` is a live stream whose context is current; the memory is used
/// only by work ordered after this call on `stream`.
pub(crate) unsafe fn mem_alloc_async(
    bytes: usize,
    stream: CUstream,
) -> Result<CUdeviceptr, CuError> {
    let mut pointer: CUdeviceptr = 0;
    // SAFETY: writes one device pointer through a valid out-pointer; the
    // caller guarantees the stream.
    check("cuMemAllocAsync", unsafe {
        sys::cuMemAllocAsync(&mut pointer, bytes, stream)
    })?;
    Ok(pointer)
}

/// `cuMemAlloc`: `bytes` of device memory in the current context.
pub(crate) fn mem_alloc(bytes: usize) -> Result<CUdeviceptr, CuError> {
    let mut pointer: CUdeviceptr = 0;
    // SAFETY: writes one device pointer through a valid out-pointer; without
    // a current context the call fails with an error code.
    check("cuMemAlloc", unsafe {
        sys::cuMemAlloc_v2(&mut pointer, bytes)
    })?;
    Ok(pointer)
}

/// `cuMemFreeAsync`: free `pointer` once `stream` reaches this point.
///
/// # Safety
/// `pointer` came from [`mem_alloc_async`] in `stream`'s context and is
/// freed once; every use of it is enqueued on `stream` before this call, and
/// none after; `stream` is live and its context current.
pub(crate) unsafe fn mem_free_async(pointer: CUdeviceptr, stream: CUstream) -> Result<(), CuError> {
    // SAFETY: the caller guarantees ownership, ordering and a live stream.
    check("cuMemFreeAsync", unsafe {
        sys::cuMemFreeAsync(pointer, stream)
    })
}

/// `cuMemFree`: free `pointer` now.
///
/// # Safety
/// `pointer` came from [`mem_alloc`] in the current context and is freed
/// once; no work that uses it is still pending, and nothing uses it after.
pub(crate) unsafe fn mem_free(pointer: CUdeviceptr) -> Result<(), CuError> {
    // SAFETY: the caller guarantees ownership and that no work is pending.
    check("cuMemFree", unsafe { sys::cuMemFree_v2(pointer) })
}

/// `cuMemsetD32Async`: set `words` 32-bit words at `pointer` to `value`, in
/// `stream`'s order.
///
/// # Safety
/// `pointer .. pointer + 4·words` lies inside one live allocation that stays
/// live until the stream has passed this point; `stream` is live and its
/// context current.
pub(crate) unsafe fn memset_d32_async(
    pointer: CUdeviceptr,
    value: u32,
    words: usize,
    stream: CUstream,
) -> Result<(), CuError> {
    // SAFETY: the caller guarantees the range and the stream.
    check("cuMemsetD32Async", unsafe {
        sys::cuMemsetD32Async(pointer, value, words, stream)
    })
}

/// `cuMemcpyHtoDAsync`: copy `source` to device memory at `destination`, in
/// `stream`'s order.
///
/// # Safety
/// `destination .. + source.len()` lies inside one live allocation that
/// stays live until the copy has completed; the memory behind `source` stays
/// valid and unchanged until the copy has completed (the caller
/// synchronises before the borrow ends); `stream` is live and its context
/// current.
pub(crate) unsafe fn memcpy_htod_async(
    destination: CUdeviceptr,
    source: &[u8],
    stream: CUstream,
) -> Result<(), CuError> {
    // SAFETY: the caller guarantees both ranges and their lifetimes.
    check("cuMemcpyHtoDAsync", unsafe {
        sys::cuMemcpyHtoDAsync_v2(
            destination,
            source.as_ptr().cast::<c_void>(),
            source.len(),
            stream,
        )
    })
}

/// `cuMemcpyDtoHAsync`: copy device memory at `source` into `destination`,
/// in `stream`'s order.
///
/// # Safety
/// `source .. + destination.len()` lies inside one live allocation that
/// stays live until the copy has completed; the memory behind `destination`
/// stays valid, and is neither read nor written by the host, until the copy
/// has completed (the caller synchronises before the borrow ends); `stream`
/// is live and its context current.
pub(crate) unsafe fn memcpy_dtoh_async(
    destination: &mut [u8],
    source: CUdeviceptr,
    stream: CUstream,
) -> Result<(), CuError> {
    // SAFETY: the caller guarantees both ranges and their lifetimes.
    check("cuMemcpyDtoHAsync", unsafe {
        sys::cuMemcpyDtoHAsync_v2(
            destination.as_mut_ptr().cast::<c_void>(),
            source,
            destination.len(),
            stream,
        )
    })
}

/// `cuMemcpyDtoDAsync`: copy `bytes` between device memory, in `stream`'s
/// order.
///
/// # Safety
/// Both ranges lie inside live allocations that stay live until the copy has
/// completed, and do not overlap; `stream` is live and its context current.
pub(crate) unsafe fn memcpy_dtod_async(
    destination: CUdeviceptr,
    source: CUdeviceptr,
    bytes: usize,
    stream: CUstream,
) -> Result<(), CuError> {
    // SAFETY: the caller guarantees both ranges and the stream.
    check("cuMemcpyDtoDAsync", unsafe {
        sys::cuMemcpyDtoDAsync_v2(destination, source, bytes, stream)
    })
}

/// `cuModuleLoadData`: load a cubin or PTX image into the current context.
///
/// # Safety
/// `image` is a whole cubin (ELF) or NUL-terminated PTX text as NVRTC wrote
/// it: the driver parses it as trusted input and reads PTX up to its NUL.
pub(crate) unsafe fn module_load_data(image: &[u8]) -> Result<CUmodule, CuError> {
    let mut module: CUmodule = std::ptr::null_mut();
    // SAFETY: writes one module handle through a valid out-pointer; the
    // caller guarantees the image (the driver copies what it keeps).
    check("cuModuleLoadData", unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast::<c_void>())
    })?;
    Ok(module)
}

/// `cuModuleUnload`.
///
/// # Safety
/// `module` is loaded, its context is current, no pending work runs its
/// functions, and neither it nor its functions are used again.
pub(crate) unsafe fn module_unload(module: CUmodule) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller.
    check("cuModuleUnload", unsafe { sys::cuModuleUnload(module) })
}

/// `cuModuleGetFunction`: the kernel `name` of `module`.
///
/// # Safety
/// `module` is loaded and its context current; the function is used only
/// while the module stays loaded.
pub(crate) unsafe fn module_get_function(
    module: CUmodule,
    name: &CStr,
) -> Result<CUfunction, CuError> {
    let mut function: CUfunction = std::ptr::null_mut();
    // SAFETY: writes one function handle through a valid out-pointer; the
    // name is NUL-terminated and outlives the call; the caller guarantees
    // the module.
    check("cuModuleGetFunction", unsafe {
        sys::cuModuleGetFunction(&mut function, module, name.as_ptr())
    })?;
    Ok(function)
}

/// `cuFuncGetAttribute`.
///
/// # Safety
/// `function` belongs to a loaded module whose context is current.
pub(crate) unsafe fn func_get_attribute(
    function: CUfunction,
    attribute: CUfunction_attribute,
) -> Result<i32, CuError> {
    let mut value: c_int = 0;
    // SAFETY: writes one int through a valid out-pointer; the caller
    // guarantees the function.
    check("cuFuncGetAttribute", unsafe {
        sys::cuFuncGetAttribute(&mut value, attribute, function)
    })?;
    Ok(value)
}

/// `cuFuncGetParamInfo` (CUDA 12.4 and later): the size of parameter
/// `index` of `function`, or `None` past its last parameter.
///
/// # Safety
/// `function` belongs to a loaded module whose context is current, and the
/// driver exports the symbol (`probe::DriverLibrary::param_info`): cudarc
/// panics on a missing one.
pub(crate) unsafe fn func_param_size(
    function: CUfunction,
    index: usize,
) -> Result<Option<usize>, CuError> {
    let (mut offset, mut size) = (0usize, 0usize);
    // SAFETY: writes two size_t through valid out-pointers; the caller
    // guarantees the function and the symbol.
    let code = unsafe { sys::cuFuncGetParamInfo(function, index, &mut offset, &mut size) };
    if code == CUresult::CUDA_ERROR_INVALID_VALUE {
        // The index is past the last parameter.
        return Ok(None);
    }
    check("cuFuncGetParamInfo", code)?;
    Ok(Some(size))
}

/// `cuFuncSetAttribute`.
///
/// # Safety
/// `function` belongs to a loaded module whose context is current.
pub(crate) unsafe fn func_set_attribute(
    function: CUfunction,
    attribute: CUfunction_attribute,
    value: i32,
) -> Result<(), CuError> {
    // SAFETY: the caller guarantees the function; the driver checks value.
    check("cuFuncSetAttribute", unsafe {
        sys::cuFuncSetAttribute(function, attribute, value)
    })
}

/// `cuLaunchKernel` on `stream`, with `arguments[i]` pointing at the value
/// of the kernel's i-th parameter.
///
/// # Safety
/// `function` belongs to a loaded module of the stream's context, which is
/// current; `arguments` has one pointer per kernel parameter, each to a
/// value of that parameter's exact type (the driver copies the values
/// during the call); the kernel, so launched, reads and writes only memory
/// that stays live until it has completed, stays within `shared_bytes` of
/// dynamic shared memory, and terminates; the module stays loaded until the
/// kernel has completed.
pub(crate) unsafe fn launch_kernel(
    function: CUfunction,
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    stream: CUstream,
    arguments: &mut [*mut c_void],
) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller; `extra` is null (the arguments go
    // through `kernelParams`).
    check("cuLaunchKernel", unsafe {
        sys::cuLaunchKernel(
            function,
            grid[0],
            grid[1],
            grid[2],
            block[0],
            block[1],
            block[2],
            shared_bytes,
            stream,
            arguments.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    })
}

/// `cuEventCreate(CU_EVENT_DEFAULT)` in the current context: an event with
/// timing enabled.
pub(crate) fn event_create_timed() -> Result<CUevent, CuError> {
    let mut event: CUevent = std::ptr::null_mut();
    // SAFETY: writes one event handle through a valid out-pointer; without a
    // current context the call fails with an error code.
    check("cuEventCreate", unsafe {
        sys::cuEventCreate(&mut event, sys::CUevent_flags::CU_EVENT_DEFAULT as u32)
    })?;
    Ok(event)
}

/// `cuEventRecord`: record `event` at the current end of `stream`.
///
/// # Safety
/// `event` and `stream` are live and of the current context.
pub(crate) unsafe fn event_record(event: CUevent, stream: CUstream) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller.
    check("cuEventRecord", unsafe {
        sys::cuEventRecord(event, stream)
    })
}

/// `cuEventSynchronize`: wait until the work before `event` has completed.
///
/// # Safety
/// `event` is live and of the current context.
pub(crate) unsafe fn event_synchronize(event: CUevent) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller.
    check("cuEventSynchronize", unsafe {
        sys::cuEventSynchronize(event)
    })
}

/// `cuEventElapsedTime`: milliseconds from `start` to `end`.
///
/// # Safety
/// Both events are live, of the current context, and recorded.
pub(crate) unsafe fn event_elapsed_ms(start: CUevent, end: CUevent) -> Result<f32, CuError> {
    let mut ms: f32 = 0.0;
    // SAFETY: writes one float through a valid out-pointer; the caller
    // guarantees the events.
    check("cuEventElapsedTime", unsafe {
        sys::cuEventElapsedTime_v2(&mut ms, start, end)
    })?;
    Ok(ms)
}

/// `cuEventDestroy`.
///
/// # Safety
/// `event` is live, of the current context, and not used again.
pub(crate) unsafe fn event_destroy(event: CUevent) -> Result<(), CuError> {
    // SAFETY: guaranteed by the caller.
    check("cuEventDestroy", unsafe { sys::cuEventDestroy_v2(event) })
}

/// The text before the first NUL of a buffer the driver filled.
fn text_of(buffer: &[c_char]) -> String {
    let bytes: Vec<u8> = buffer
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_resolved_symbol_is_probed() {
        // Every cudarc entry point called in this file must be in SYMBOLS,
        // so the probe catches an old driver before cudarc would panic.
        let source = include_str!("driver.rs");
        let mut called = Vec::new();
        for (i, _) in source.match_indices("sys::cu") {
            let name: String = source[i + 5..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if source[i + 5 + name.len()..].starts_with('(') {
                called.push(name);
            }
        }
        assert!(called.len() >= SYMBOLS.len(), "{called:?}");
        let probed = |name: &str| SYMBOLS.contains(&name) || OPTIONAL_SYMBOLS.contains(&name);
        for name in &called {
            assert!(probed(name), "{name} is not probed");
        }
        for name in SYMBOLS.iter().chain(OPTIONAL_SYMBOLS) {
            assert!(called.iter().any(|c| c == name), "{name} is never called");
        }
    }

    #[test]
    fn errors_name_the_code_without_a_driver() {
        let e = CuError::bare("cuMemAlloc", CUresult::CUDA_ERROR_OUT_OF_MEMORY);
        assert_eq!(e.to_string(), "CUDA_ERROR_OUT_OF_MEMORY");
        assert_eq!(e.call(), "cuMemAlloc");
        let e = CuError {
            text: Some("out of memory".into()),
            ..e
        };
        assert_eq!(e.to_string(), "CUDA_ERROR_OUT_OF_MEMORY: out of memory");
    }

    #[test]
    fn driver_strings_stop_at_the_nul() {
        let buffer: Vec<c_char> = b"NVIDIA H200\0junk".iter().map(|&b| b as c_char).collect();
        assert_eq!(text_of(&buffer), "NVIDIA H200");
        assert_eq!(text_of(&[b'a' as c_char; 4]), "aaaa");
    }
}
