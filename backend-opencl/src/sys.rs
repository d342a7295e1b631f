//! Every raw OpenCL call this backend makes, and owned handles whose `Drop`
//! releases the object. No other module touches the FFI.
//!
//! Only `ocl`'s FFI declarations (`ocl::core::ffi`, the `cl-sys` crate) and
//! its linking of the ICD loader are used: `ocl::core`'s wrappers panic on
//! status codes missing from their table and unwrap failed releases in
//! `Drop`, and its info queries retry `clGetPlatformIDs` for seconds when no
//! driver is installed; a backend must return, not panic, whatever the
//! driver says. Every call here returns a [`Failure`] (call name + status).
//!
//! What makes the wrappers safe:
//! - **Handles.** Each owned type holds one reference to a live object,
//!   taken from the create call that made it, and releases it once in
//!   `Drop`. OpenCL keeps objects alive while enqueued commands use them
//!   (a buffer released while a kernel still reads it is deleted after the
//!   kernel completes), so dropping a handle is always safe.
//! - **Threads.** The OpenCL specification (1.1 and later) makes every API
//!   call thread-safe except `clSetKernelArg` and `clCloneKernel` on one
//!   kernel object, so handles are `Send` and `Sync` except [`Kernel`],
//!   which is `Send` only, and whose arguments are set through `&mut`.
//! - **Ranges.** `clEnqueue{Read,Write,Copy,Fill}Buffer` check their byte
//!   ranges against the buffer themselves (`CL_INVALID_VALUE`), and the host
//!   side of a transfer is a borrowed slice held for the whole blocking
//!   call, so the transfer wrappers are safe for any arguments.
//! - **Kernels.** Enqueueing a kernel is the one `unsafe fn`: what the kernel
//!   does with its buffers is the caller's promise.

use crate::status::Failure;
use ocl::core::ffi::{self, c_void, cl_event, cl_int, cl_uint};
use std::ffi::CStr;
use std::ptr;

/// `CL_PLATFORM_NOT_FOUND_KHR`: the ICD loader found no driver.
const CL_PLATFORM_NOT_FOUND_KHR: cl_int = -1001;
/// `CL_DEVICE_NOT_FOUND`: a platform without devices of the asked type.
const CL_DEVICE_NOT_FOUND: cl_int = -1;
const CL_DEVICE_TYPE_ALL: u64 = 0xFFFF_FFFF;
const CL_QUEUE_PROFILING_ENABLE: u64 = 1 << 1;
const CL_PROGRAM_BINARY_SIZES: cl_uint = 0x1165;
const CL_PROGRAM_BINARIES: cl_uint = 0x1166;
const CL_PROGRAM_BUILD_LOG: cl_uint = 0x1183;
/// `CL_PROFILING_COMMAND_END`.
const CL_PROFILING_COMMAND_END: cl_uint = 0x1283;

fn check(call: &'static str, code: cl_int) -> Result<(), Failure> {
    if code == 0 {
        Ok(())
    } else {
        Err(Failure { call, code })
    }
}

/// The object a create call returned, or why there is none. A null object
/// with a success status is reported with status 0 ("returned no object").
fn created(call: &'static str, raw: *mut c_void, code: cl_int) -> Result<*mut c_void, Failure> {
    check(call, code)?;
    if raw.is_null() {
        return Err(Failure { call, code: 0 });
    }
    Ok(raw)
}

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $release:ident) => {
        $(#[$doc])*
        pub(crate) struct $name(*mut c_void);

        impl $name {
            /// Take over one reference to `raw`.
            ///
            /// # Safety
            /// `raw` is a live, non-null object of this type, and the caller
            /// owns one reference to it, which moves into the value (and is
            /// released when it drops).
            unsafe fn from_raw(raw: *mut c_void) -> Self {
                $name(raw)
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: `self.0` is live and this value owns one reference
                // to it (the `from_raw` contract); it is released exactly
                // once, here. Commands still using the object keep it alive
                // until they complete.
                let code = unsafe { ffi::$release(self.0) };
                if code != 0 {
                    tracing::warn!(
                        "opencl: {} failed: {}",
                        stringify!($release),
                        crate::status::name(code)
                    );
                }
            }
        }
    };
}

handle!(
    /// A context (one device).
    Context,
    clReleaseContext
);
handle!(
    /// An in-order command queue.
    Queue,
    clReleaseCommandQueue
);
handle!(
    /// A buffer.
    Mem,
    clReleaseMemObject
);
handle!(
    /// A program (source or binary, built for one device).
    Program,
    clReleaseProgram
);
handle!(
    /// A kernel of a built program. Not `Sync`: its arguments are state
    /// that `clSetKernelArg` changes.
    Kernel,
    clReleaseKernel
);
handle!(
    /// An event of an enqueued command.
    Event,
    clReleaseEvent
);

// SAFETY: contexts, queues, buffers, programs and events are reference-counted
// objects whose every API call is thread-safe (OpenCL 1.1+, appendix "Shared
// objects and thread safety"); the handle is only a pointer to the object.
unsafe impl Send for Context {}
// SAFETY: as for `Send`: every call on a context is thread-safe.
unsafe impl Sync for Context {}
// SAFETY: every call on a command queue is thread-safe (see `Context`).
unsafe impl Send for Queue {}
// SAFETY: every call on a command queue is thread-safe (see `Context`).
unsafe impl Sync for Queue {}
// SAFETY: every call on a buffer is thread-safe (see `Context`).
unsafe impl Send for Mem {}
// SAFETY: every call on a buffer is thread-safe (see `Context`).
unsafe impl Sync for Mem {}
// SAFETY: every call on a program is thread-safe (see `Context`).
unsafe impl Send for Program {}
// SAFETY: every call on a program is thread-safe (see `Context`).
unsafe impl Sync for Program {}
// SAFETY: every call on an event is thread-safe (see `Context`).
unsafe impl Send for Event {}
// SAFETY: every call on an event is thread-safe (see `Context`).
unsafe impl Sync for Event {}
// SAFETY: a kernel may be used from any one thread at a time; the calls that
// are not thread-safe (`clSetKernelArg`) take `&mut Kernel`, and `Kernel` is
// not `Sync`, so no two threads use one kernel at once.
unsafe impl Send for Kernel {}

/// A platform (platforms are never released).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlatformId(ffi::cl_platform_id);

/// A root device of a platform (root devices are never released).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeviceId(ffi::cl_device_id);

// SAFETY: a root device id is an opaque handle valid for the whole process
// (it is not reference-counted), and every call taking one is thread-safe.
unsafe impl Send for DeviceId {}
// SAFETY: as for `Send`.
unsafe impl Sync for DeviceId {}

/// The size-then-data protocol of the `clGet*Info` calls: `get(size,
/// value, size_ret)` is called once with `(0, null, &mut n)` and once with
/// `(n, buffer of n bytes, null)`.
fn two_step(
    call: &'static str,
    get: impl Fn(usize, *mut c_void, *mut usize) -> cl_int,
) -> Result<Vec<u8>, Failure> {
    let mut size = 0usize;
    check(call, get(0, ptr::null_mut(), &mut size))?;
    let mut bytes = vec![0u8; size];
    if size > 0 {
        check(call, get(size, bytes.as_mut_ptr().cast(), ptr::null_mut()))?;
    }
    Ok(bytes)
}

/// Every platform the ICD loader knows (none is not an error).
pub(crate) fn platform_ids() -> Result<Vec<PlatformId>, Failure> {
    let mut count: cl_uint = 0;
    // SAFETY: a count query: no output array, `count` is live for the call.
    let code = unsafe { ffi::clGetPlatformIDs(0, ptr::null_mut(), &mut count) };
    if code == CL_PLATFORM_NOT_FOUND_KHR || (code == 0 && count == 0) {
        return Ok(Vec::new());
    }
    check("clGetPlatformIDs", code)?;
    let mut raw: Vec<ffi::cl_platform_id> = vec![ptr::null_mut(); count as usize];
    // SAFETY: `raw` has room for exactly `count` platform handles.
    let code = unsafe { ffi::clGetPlatformIDs(count, raw.as_mut_ptr(), ptr::null_mut()) };
    check("clGetPlatformIDs", code)?;
    Ok(raw
        .into_iter()
        .filter(|p| !p.is_null())
        .map(PlatformId)
        .collect())
}

/// The devices of one platform, of every type (none is not an error).
pub(crate) fn device_ids(platform: PlatformId) -> Result<Vec<DeviceId>, Failure> {
    let mut count: cl_uint = 0;
    // SAFETY: a count query on a platform from clGetPlatformIDs: no output
    // array, `count` is live for the call.
    let code = unsafe {
        ffi::clGetDeviceIDs(
            platform.0,
            CL_DEVICE_TYPE_ALL,
            0,
            ptr::null_mut(),
            &mut count,
        )
    };
    if code == CL_DEVICE_NOT_FOUND || (code == 0 && count == 0) {
        return Ok(Vec::new());
    }
    check("clGetDeviceIDs", code)?;
    let mut raw: Vec<ffi::cl_device_id> = vec![ptr::null_mut(); count as usize];
    // SAFETY: `raw` has room for exactly `count` device handles.
    let code = unsafe {
        ffi::clGetDeviceIDs(
            platform.0,
            CL_DEVICE_TYPE_ALL,
            count,
            raw.as_mut_ptr(),
            ptr::null_mut(),
        )
    };
    check("clGetDeviceIDs", code)?;
    Ok(raw
        .into_iter()
        .filter(|d| !d.is_null())
        .map(DeviceId)
        .collect())
}

/// The raw bytes of one platform info parameter.
pub(crate) fn platform_info(platform: PlatformId, param: u32) -> Result<Vec<u8>, Failure> {
    two_step("clGetPlatformInfo", |size, value, size_ret| {
        // SAFETY: a platform from clGetPlatformIDs; `two_step` passes either
        // no buffer and a live size output, or a buffer of `size` bytes.
        unsafe { ffi::clGetPlatformInfo(platform.0, param, size, value, size_ret) }
    })
}

/// The raw bytes of one device info parameter.
pub(crate) fn device_info(device: DeviceId, param: u32) -> Result<Vec<u8>, Failure> {
    two_step("clGetDeviceInfo", |size, value, size_ret| {
        // SAFETY: a device from clGetDeviceIDs; `two_step` passes either no
        // buffer and a live size output, or a buffer of `size` bytes.
        unsafe { ffi::clGetDeviceInfo(device.0, param, size, value, size_ret) }
    })
}

/// A context for one device.
pub(crate) fn create_context(device: DeviceId) -> Result<Context, Failure> {
    let mut code = 0;
    // SAFETY: a one-element device list from clGetDeviceIDs; no properties,
    // no callback; `code` is live for the call.
    let raw = unsafe {
        ffi::clCreateContext(ptr::null(), 1, &device.0, None, ptr::null_mut(), &mut code)
    };
    let raw = created("clCreateContext", raw, code)?;
    // SAFETY: a context just created, whose one reference we own.
    Ok(unsafe { Context::from_raw(raw) })
}

/// An in-order queue, with profiling when asked.
pub(crate) fn create_queue(
    context: &Context,
    device: DeviceId,
    profiling: bool,
) -> Result<Queue, Failure> {
    let properties = if profiling {
        CL_QUEUE_PROFILING_ENABLE
    } else {
        0
    };
    let mut code = 0;
    // SAFETY: a live context and its device; `code` is live for the call.
    // (clCreateCommandQueue is deprecated since 2.0 but every ICD loader and
    // driver exports it.)
    let raw = unsafe { ffi::clCreateCommandQueue(context.0, device.0, properties, &mut code) };
    let raw = created("clCreateCommandQueue", raw, code)?;
    // SAFETY: a queue just created, whose one reference we own.
    Ok(unsafe { Queue::from_raw(raw) })
}

/// A read-write buffer of `bytes` (contents undefined).
pub(crate) fn create_buffer(context: &Context, bytes: usize) -> Result<Mem, Failure> {
    let mut code = 0;
    // SAFETY: a live context; no host pointer (the driver allocates); `code`
    // is live for the call.
    let raw = unsafe {
        ffi::clCreateBuffer(
            context.0,
            ffi::CL_MEM_READ_WRITE,
            bytes,
            ptr::null_mut(),
            &mut code,
        )
    };
    let raw = created("clCreateBuffer", raw, code)?;
    // SAFETY: a buffer just created, whose one reference we own.
    Ok(unsafe { Mem::from_raw(raw) })
}

/// The event slot of an enqueue call: where the event goes, if wanted.
fn event_slot(slot: &mut cl_event, want: bool) -> *mut cl_event {
    if want {
        slot
    } else {
        ptr::null_mut()
    }
}

/// The event an enqueue call returned with success, if one was asked for.
fn event_of(call: &'static str, raw: cl_event, want: bool) -> Result<Option<Event>, Failure> {
    if !want {
        return Ok(None);
    }
    let raw = created(call, raw, 0)?;
    // SAFETY: an event the enqueue call just created for us; we own its one
    // reference.
    Ok(Some(unsafe { Event::from_raw(raw) }))
}

/// Copy `data` into `mem` at `offset`; returns once `data` has been read.
pub(crate) fn write_blocking(
    queue: &Queue,
    mem: &Mem,
    offset: usize,
    data: &[u8],
) -> Result<(), Failure> {
    // SAFETY: blocking, so `data` (borrowed for the whole call) outlives the
    // transfer; the API checks `offset + data.len()` against the buffer.
    let code = unsafe {
        ffi::clEnqueueWriteBuffer(
            queue.0,
            mem.0,
            ffi::CL_TRUE,
            offset,
            data.len(),
            data.as_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check("clEnqueueWriteBuffer", code)
}

/// Copy bytes from `offset` of `mem` into `out`; returns once they are there.
pub(crate) fn read_blocking(
    queue: &Queue,
    mem: &Mem,
    offset: usize,
    out: &mut [u8],
) -> Result<(), Failure> {
    // SAFETY: blocking, so `out` (exclusively borrowed for the whole call)
    // outlives the transfer; the API checks `offset + out.len()` against the
    // buffer.
    let code = unsafe {
        ffi::clEnqueueReadBuffer(
            queue.0,
            mem.0,
            ffi::CL_TRUE,
            offset,
            out.len(),
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check("clEnqueueReadBuffer", code)
}

/// The largest fill pattern OpenCL allows, in bytes.
pub(crate) const MAX_PATTERN: usize = 128;

/// Enqueue zeroing `bytes` of `mem` from `offset` with a zero pattern of
/// `pattern` bytes (a power of two up to [`MAX_PATTERN`]; `offset` and
/// `bytes` multiples of it) (OpenCL 1.2+).
pub(crate) fn fill_zero(
    queue: &Queue,
    mem: &Mem,
    offset: usize,
    bytes: usize,
    pattern: usize,
) -> Result<(), Failure> {
    let zeros = [0u8; MAX_PATTERN];
    // SAFETY: the pattern (`pattern.min(128)` bytes of `zeros`) is copied
    // before the call returns; the API checks the pattern size and the
    // range (inside the buffer, multiples of the pattern size); no event.
    let code = unsafe {
        ffi::clEnqueueFillBuffer(
            queue.0,
            mem.0,
            zeros.as_ptr().cast(),
            pattern.min(MAX_PATTERN),
            offset,
            bytes,
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check("clEnqueueFillBuffer", code)
}

/// Enqueue a copy of `data`, which lives for the whole program, into `mem`
/// at `offset`, without waiting.
pub(crate) fn write_static(
    queue: &Queue,
    mem: &Mem,
    offset: usize,
    data: &'static [u8],
) -> Result<(), Failure> {
    // SAFETY: non-blocking, so the driver reads `data` after this returns:
    // it is `'static` and immutable, so it is valid and unchanged whenever
    // that happens; the API checks the range against the buffer; no event.
    let code = unsafe {
        ffi::clEnqueueWriteBuffer(
            queue.0,
            mem.0,
            ffi::CL_FALSE,
            offset,
            data.len(),
            data.as_ptr().cast(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check("clEnqueueWriteBuffer", code)
}

/// Enqueue a copy of `bytes` from `src` at `src_offset` to `dst` at
/// `dst_offset`.
pub(crate) fn copy(
    queue: &Queue,
    src: &Mem,
    src_offset: usize,
    dst: &Mem,
    dst_offset: usize,
    bytes: usize,
    want_event: bool,
) -> Result<Option<Event>, Failure> {
    let mut event = ptr::null_mut();
    // SAFETY: device-side only; the API checks both ranges (and overlap
    // within one buffer); the event slot is null or live.
    let code = unsafe {
        ffi::clEnqueueCopyBuffer(
            queue.0,
            src.0,
            dst.0,
            src_offset,
            dst_offset,
            bytes,
            0,
            ptr::null(),
            event_slot(&mut event, want_event),
        )
    };
    check("clEnqueueCopyBuffer", code)?;
    event_of("clEnqueueCopyBuffer", event, want_event)
}

/// Enqueue a marker: an event that completes when everything enqueued
/// before it has (OpenCL 1.2+).
pub(crate) fn marker(queue: &Queue) -> Result<Event, Failure> {
    let mut event = ptr::null_mut();
    // SAFETY: a live queue, no wait list, a live event slot.
    let code = unsafe { ffi::clEnqueueMarkerWithWaitList(queue.0, 0, ptr::null(), &mut event) };
    check("clEnqueueMarkerWithWaitList", code)?;
    let raw = created("clEnqueueMarkerWithWaitList", event, 0)?;
    // SAFETY: an event just created for us; we own its one reference.
    Ok(unsafe { Event::from_raw(raw) })
}

/// Submit everything enqueued, without waiting.
pub(crate) fn flush(queue: &Queue) -> Result<(), Failure> {
    // SAFETY: a live queue.
    check("clFlush", unsafe { ffi::clFlush(queue.0) })
}

/// Wait until everything enqueued has completed.
pub(crate) fn finish(queue: &Queue) -> Result<(), Failure> {
    // SAFETY: a live queue.
    check("clFinish", unsafe { ffi::clFinish(queue.0) })
}

/// Wait until every event in `events` has completed.
pub(crate) fn wait(events: &[&Event]) -> Result<(), Failure> {
    if events.is_empty() {
        return Ok(());
    }
    let raw: Vec<cl_event> = events.iter().map(|e| e.0).collect();
    // SAFETY: `raw` holds `raw.len()` live events (borrowed for the call).
    let code = unsafe { ffi::clWaitForEvents(raw.len() as cl_uint, raw.as_ptr()) };
    check("clWaitForEvents", code)
}

/// `CL_PROFILING_COMMAND_END` of a completed command on a profiling queue,
/// in device nanoseconds.
pub(crate) fn end_time(event: &Event) -> Result<u64, Failure> {
    let mut value = 0u64;
    // SAFETY: a live event; the value is a cl_ulong and `value` has its 8
    // bytes.
    let code = unsafe {
        ffi::clGetEventProfilingInfo(
            event.0,
            CL_PROFILING_COMMAND_END,
            std::mem::size_of::<u64>(),
            (&mut value as *mut u64).cast(),
            ptr::null_mut(),
        )
    };
    check("clGetEventProfilingInfo", code)?;
    Ok(value)
}

/// A program from OpenCL C source (not yet built).
pub(crate) fn program_from_source(context: &Context, source: &str) -> Result<Program, Failure> {
    let text = source.as_ptr().cast::<ffi::c_char>();
    let len = source.len();
    let mut code = 0;
    // SAFETY: one string given with its length (no NUL needed), which the
    // call copies; `code` is live for the call.
    let raw = unsafe { ffi::clCreateProgramWithSource(context.0, 1, &text, &len, &mut code) };
    let raw = created("clCreateProgramWithSource", raw, code)?;
    // SAFETY: a program just created, whose one reference we own.
    Ok(unsafe { Program::from_raw(raw) })
}

/// A program from a device binary (not yet built). The driver validates the
/// binary: one it cannot load is an error (`CL_INVALID_BINARY`), reported
/// with the call `clCreateProgramWithBinary`.
pub(crate) fn program_from_binary(
    context: &Context,
    device: DeviceId,
    binary: &[u8],
) -> Result<Program, Failure> {
    let call = "clCreateProgramWithBinary";
    let (len, bytes) = (binary.len(), binary.as_ptr());
    let (mut status, mut code) = (0, 0);
    // SAFETY: one device of `context`; `lengths` and `binaries` are
    // one-element arrays describing `binary`, which the call only reads (and
    // copies) while it runs; both status outputs are live.
    let raw = unsafe {
        ffi::clCreateProgramWithBinary(
            context.0,
            1,
            &device.0,
            &len,
            &bytes,
            &mut status,
            &mut code,
        )
    };
    // Own whatever came back before looking at the statuses, so it is
    // released on every path.
    let program = if raw.is_null() {
        None
    } else {
        // SAFETY: a program just created, whose one reference we own.
        Some(unsafe { Program::from_raw(raw) })
    };
    check(call, code)?;
    check(call, status)?;
    program.ok_or(Failure { call, code: 0 })
}

/// Build `program` for `device` with `options` (synchronously).
pub(crate) fn build(program: &Program, device: DeviceId, options: &CStr) -> Result<(), Failure> {
    // SAFETY: a live program of a context holding `device` (a one-element
    // list), a NUL-terminated options string; no callback, so the call
    // returns when the build is done.
    let code = unsafe {
        ffi::clBuildProgram(
            program.0,
            1,
            &device.0,
            options.as_ptr(),
            None,
            ptr::null_mut(),
        )
    };
    check("clBuildProgram", code)
}

/// The build log of `program` for `device` (empty if there is none).
pub(crate) fn build_log(program: &Program, device: DeviceId) -> String {
    let bytes = two_step("clGetProgramBuildInfo", |size, value, size_ret| {
        // SAFETY: a live program and its device; `two_step` passes either no
        // buffer and a live size output, or a buffer of `size` bytes.
        unsafe {
            ffi::clGetProgramBuildInfo(
                program.0,
                device.0,
                CL_PROGRAM_BUILD_LOG,
                size,
                value,
                size_ret,
            )
        }
    });
    bytes.map(|b| c_string(&b)).unwrap_or_default()
}

/// The device binary of a built program (empty when the driver has none).
pub(crate) fn program_binary(program: &Program) -> Result<Vec<u8>, Failure> {
    let call = "clGetProgramInfo";
    let raw_sizes = two_step(call, |size, value, size_ret| {
        // SAFETY: a live program; `two_step` passes either no buffer and a
        // live size output, or a buffer of `size` bytes.
        unsafe { ffi::clGetProgramInfo(program.0, CL_PROGRAM_BINARY_SIZES, size, value, size_ret) }
    })?;
    const WORD: usize = std::mem::size_of::<usize>();
    let sizes: Vec<usize> = raw_sizes
        .chunks_exact(WORD)
        .map(|c| {
            let mut word = [0u8; WORD];
            word.copy_from_slice(c);
            usize::from_ne_bytes(word)
        })
        .collect();
    if sizes.iter().all(|&s| s == 0) {
        return Ok(Vec::new());
    }
    let mut binaries: Vec<Vec<u8>> = sizes.iter().map(|&s| vec![0u8; s]).collect();
    let mut pointers: Vec<*mut u8> = binaries
        .iter_mut()
        .map(|b| {
            if b.is_empty() {
                ptr::null_mut()
            } else {
                b.as_mut_ptr()
            }
        })
        .collect();
    // SAFETY: CL_PROGRAM_BINARIES writes binary `i` to `pointers[i]`, which
    // is null (skipped) or points to `sizes[i]` writable bytes, the size the
    // API just reported for that device; `pointers` has one entry per
    // reported size, and its byte length is passed.
    let code = unsafe {
        ffi::clGetProgramInfo(
            program.0,
            CL_PROGRAM_BINARIES,
            pointers.len() * std::mem::size_of::<*mut u8>(),
            pointers.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    check(call, code)?;
    Ok(binaries
        .into_iter()
        .find(|b| !b.is_empty())
        .unwrap_or_default())
}

/// The kernel `name` of a built program.
pub(crate) fn create_kernel(program: &Program, name: &CStr) -> Result<Kernel, Failure> {
    let mut code = 0;
    // SAFETY: a live program and a NUL-terminated name; `code` is live.
    let raw = unsafe { ffi::clCreateKernel(program.0, name.as_ptr(), &mut code) };
    let raw = created("clCreateKernel", raw, code)?;
    // SAFETY: a kernel just created, whose one reference we own.
    Ok(unsafe { Kernel::from_raw(raw) })
}

/// `clGetKernelWorkGroupInfo` of `param` into `value`: the bytes written.
fn kernel_work_group_info_into(
    kernel: &Kernel,
    device: DeviceId,
    param: u32,
    value: &mut [u8],
) -> Result<usize, Failure> {
    let mut size = 0usize;
    // SAFETY: a live kernel and its program's device; the call writes at
    // most `value.len()` bytes into `value` (else it fails with
    // CL_INVALID_VALUE); `size` is live.
    let code = unsafe {
        ffi::clGetKernelWorkGroupInfo(
            kernel.0,
            device.0,
            param,
            value.len(),
            value.as_mut_ptr().cast(),
            &mut size,
        )
    };
    check("clGetKernelWorkGroupInfo", code)?;
    Ok(size)
}

/// A `size_t` or `cl_ulong` of `clGetKernelWorkGroupInfo`
/// (`CL_KERNEL_WORK_GROUP_SIZE`, `CL_KERNEL_LOCAL_MEM_SIZE`).
pub(crate) fn kernel_work_group_info(
    kernel: &Kernel,
    device: DeviceId,
    param: u32,
) -> Result<u64, Failure> {
    let mut value = [0u8; 8];
    let size = kernel_work_group_info_into(kernel, device, param, &mut value)?;
    Ok(match size {
        4 => u64::from(u32::from_ne_bytes([value[0], value[1], value[2], value[3]])),
        _ => u64::from_ne_bytes(value),
    })
}

/// `CL_KERNEL_NUM_ARGS`: how many arguments the kernel's source declares.
pub(crate) fn kernel_num_args(kernel: &Kernel) -> Result<u32, Failure> {
    const CL_KERNEL_NUM_ARGS: u32 = 0x1191;
    let mut value: cl_uint = 0;
    // SAFETY: a live kernel; CL_KERNEL_NUM_ARGS is a `cl_uint`, written into
    // `value` (its size passed); no size is returned.
    let code = unsafe {
        ffi::clGetKernelInfo(
            kernel.0,
            CL_KERNEL_NUM_ARGS,
            std::mem::size_of::<cl_uint>(),
            (&mut value as *mut cl_uint).cast::<c_void>(),
            ptr::null_mut(),
        )
    };
    check("clGetKernelInfo", code)?;
    Ok(value)
}

/// `CL_KERNEL_COMPILE_WORK_GROUP_SIZE`: the `reqd_work_group_size` the
/// kernel was declared with, or zeros where it declares none.
pub(crate) fn kernel_compile_work_group_size(
    kernel: &Kernel,
    device: DeviceId,
) -> Result<[u64; 3], Failure> {
    const CL_KERNEL_COMPILE_WORK_GROUP_SIZE: u32 = 0x11B1;
    const WORD: usize = std::mem::size_of::<usize>();
    let mut value = [0u8; 3 * WORD];
    kernel_work_group_info_into(
        kernel,
        device,
        CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
        &mut value,
    )?;
    // Three `size_t`s.
    Ok(std::array::from_fn(|i| {
        let mut word = [0u8; WORD];
        word.copy_from_slice(&value[i * WORD..(i + 1) * WORD]);
        usize::from_ne_bytes(word) as u64
    }))
}

/// Set argument `index` of `kernel` to a buffer.
pub(crate) fn set_arg_mem(kernel: &mut Kernel, index: u32, mem: &Mem) -> Result<(), Failure> {
    set_arg_handle(kernel, index, mem.0)
}

/// Set argument `index` of `kernel` to a null buffer, which OpenCL allows
/// for a `__global` or `__constant` pointer (and refuses for anything
/// else): how a kernel's interface is checked before its first launch.
/// Every launch sets every argument again.
pub(crate) fn set_arg_null_mem(kernel: &mut Kernel, index: u32) -> Result<(), Failure> {
    set_arg_handle(kernel, index, ptr::null_mut())
}

fn set_arg_handle(kernel: &mut Kernel, index: u32, raw: ffi::cl_mem) -> Result<(), Failure> {
    // SAFETY: the value is a `cl_mem` (a live buffer's, or null, which the
    // API accepts for a buffer argument), read during the call; the API
    // checks that the argument is a buffer (`CL_INVALID_ARG_SIZE`/`_VALUE`).
    // Exclusive access to the kernel (`&mut`) keeps other threads out.
    let code = unsafe {
        ffi::clSetKernelArg(
            kernel.0,
            index,
            std::mem::size_of::<ffi::cl_mem>(),
            (&raw as *const ffi::cl_mem).cast::<c_void>(),
        )
    };
    check("clSetKernelArg", code)
}

/// Set argument `index` of `kernel` to a 32-bit word (`uint`, `int`, `float`).
pub(crate) fn set_arg_word(kernel: &mut Kernel, index: u32, word: u32) -> Result<(), Failure> {
    // SAFETY: 4 bytes read during the call; the API checks the argument's
    // size. Exclusive access to the kernel (`&mut`) keeps other threads out.
    let code = unsafe {
        ffi::clSetKernelArg(
            kernel.0,
            index,
            std::mem::size_of::<u32>(),
            (&word as *const u32).cast::<c_void>(),
        )
    };
    check("clSetKernelArg", code)
}

/// Set argument `index` of `kernel` to `bytes` of `__local` memory.
pub(crate) fn set_arg_local(kernel: &mut Kernel, index: u32, bytes: usize) -> Result<(), Failure> {
    // SAFETY: a `__local` argument takes a size and a null value; the API
    // checks that the argument is `__local` (`CL_INVALID_ARG_VALUE`).
    // Exclusive access to the kernel (`&mut`) keeps other threads out.
    let code = unsafe { ffi::clSetKernelArg(kernel.0, index, bytes, ptr::null()) };
    check("clSetKernelArg", code)
}

/// Enqueue an NDRange of `global` work-items in groups of `local` (the
/// first `dims` entries of each).
///
/// # Safety
/// Every argument of `kernel` is set, its buffers are live, and the kernel,
/// run with these arguments over this range, stays inside its buffers and
/// its `__local` memory and terminates (the promise of
/// `rosetta_core::Driver::launch`). OpenCL keeps the buffers alive until
/// the command completes.
pub(crate) unsafe fn enqueue_kernel(
    queue: &Queue,
    kernel: &Kernel,
    dims: u32,
    global: [usize; 3],
    local: [usize; 3],
) -> Result<(), Failure> {
    // SAFETY: `global` and `local` have 3 entries of which the API reads
    // `dims <= 3`; no wait list, no event. What the kernel does once it runs
    // is the caller's promise (this function's contract).
    let code = unsafe {
        ffi::clEnqueueNDRangeKernel(
            queue.0,
            kernel.0,
            dims,
            ptr::null(),
            global.as_ptr(),
            local.as_ptr(),
            0,
            ptr::null(),
            ptr::null_mut(),
        )
    };
    check("clEnqueueNDRangeKernel", code)
}

/// A NUL-terminated (or not) byte string, trimmed.
pub(crate) fn c_string(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).trim().to_string()
}
