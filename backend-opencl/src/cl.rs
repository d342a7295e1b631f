//! The OpenCL calls this backend makes, as safe functions over the raw API
//! (`ocl::core::ffi`), with `ocl::core`'s handle types holding the objects.
//!
//! Why not `ocl::core`'s wrappers: they panic on status codes missing from
//! their table and unwrap the status of every release in `Drop`, and a
//! backend must not panic whatever the driver says. Here every call returns
//! a [`Failure`] (call name + status code), mapped to rosetta's typed errors
//! in `errors.rs`, and [`Owned`] releases its object ignoring (and logging)
//! a failed release.

use ocl::core::ffi::{self, cl_event, cl_int};
use ocl::core::{ClDeviceIdPtr, CommandQueue, Context, DeviceId, Event, Kernel, Mem, Program};
use std::ffi::{c_void, CStr};
use std::mem::ManuallyDrop;
use std::ptr;

/// A failed API call: which one, and the status it returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Failure {
    pub call: &'static str,
    pub code: i32,
}

impl From<Failure> for rosetta_core::Error {
    fn from(f: Failure) -> Self {
        crate::errors::status(f.call, f.code)
    }
}

pub type ClResult<T> = Result<T, Failure>;

fn check(call: &'static str, code: cl_int) -> ClResult<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(Failure { call, code })
    }
}

/// An OpenCL object handle that can be released.
pub trait Handle {
    const RELEASE: &'static str;
    /// Release one reference; returns the status.
    fn release(&self) -> cl_int;
}

macro_rules! handle {
    ($ty:ty, $release:ident) => {
        impl Handle for $ty {
            const RELEASE: &'static str = stringify!($release);
            fn release(&self) -> cl_int {
                // SAFETY: `self` holds a handle the API created; `Owned`, the
                // only owner, calls this once, from its `Drop`.
                unsafe { ffi::$release(self.as_ptr() as _) }
            }
        }
    };
}
handle!(Context, clReleaseContext);
handle!(CommandQueue, clReleaseCommandQueue);
handle!(Mem, clReleaseMemObject);
handle!(Program, clReleaseProgram);
handle!(Kernel, clReleaseKernel);

impl Handle for Event {
    const RELEASE: &'static str = "clReleaseEvent";
    fn release(&self) -> cl_int {
        // SAFETY: as above: a created event, released once by its owner.
        unsafe { ffi::clReleaseEvent(raw_event(self)) }
    }
}

fn raw_event(event: &Event) -> cl_event {
    // SAFETY: copies out the handle the event holds (the call is `unsafe`
    // only because the reference could be used to alias it; it is not kept).
    unsafe { *event.as_ptr_ref() }
}

/// Sole owner of one API object; releases it on drop without panicking.
pub struct Owned<T: Handle>(ManuallyDrop<T>);

impl<T: Handle> Owned<T> {
    fn new(handle: T) -> Self {
        Owned(ManuallyDrop::new(handle))
    }
}

impl<T: Handle> std::ops::Deref for Owned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Handle> Drop for Owned<T> {
    fn drop(&mut self) {
        // `ManuallyDrop` keeps `ocl`'s own `Drop` (which unwraps) from running.
        let code = self.0.release();
        if code != 0 {
            tracing::warn!(
                "opencl: {} failed: {}",
                T::RELEASE,
                crate::errors::status_name(code)
            );
        }
    }
}

/// A null-checked create result.
fn created<P, T>(
    call: &'static str,
    raw: *mut P,
    code: cl_int,
    wrap: unsafe fn(*mut P) -> T,
) -> ClResult<Owned<T>>
where
    T: Handle,
{
    check(call, code)?;
    if raw.is_null() {
        return Err(Failure { call, code: -6 });
    }
    // SAFETY: a non-null handle the create call just returned with success;
    // ownership of its one reference moves into `Owned`.
    Ok(Owned::new(unsafe { wrap(raw) }))
}

/// An event a command returned, when one was asked for.
fn event_of(raw: cl_event) -> Option<Owned<Event>> {
    // SAFETY: a non-null event the enqueue call just created for us.
    (!raw.is_null()).then(|| Owned::new(unsafe { Event::from_raw_create_ptr(raw) }))
}

fn event_slot(slot: &mut cl_event, want: bool) -> *mut cl_event {
    if want {
        slot
    } else {
        ptr::null_mut()
    }
}

pub fn create_context(device: &DeviceId) -> ClResult<Owned<Context>> {
    let id = device.as_ptr();
    let mut code = 0;
    // SAFETY: one valid device id; no properties, no callback.
    let raw =
        unsafe { ffi::clCreateContext(ptr::null(), 1, &id, None, ptr::null_mut(), &mut code) };
    created("clCreateContext", raw, code, Context::from_raw_create_ptr)
}

/// An in-order queue, with profiling when asked.
pub fn create_queue(
    context: &Context,
    device: &DeviceId,
    profiling: bool,
) -> ClResult<Owned<CommandQueue>> {
    let properties = if profiling {
        crate::info::CL_QUEUE_PROFILING_ENABLE
    } else {
        0
    };
    let mut code = 0;
    // SAFETY: a live context and one of its devices. (clCreateCommandQueue is
    // deprecated since 2.0 but present in every ICD loader and driver.)
    let raw = unsafe {
        ffi::clCreateCommandQueue(context.as_ptr(), device.as_ptr(), properties, &mut code)
    };
    created(
        "clCreateCommandQueue",
        raw,
        code,
        CommandQueue::from_raw_create_ptr,
    )
}

pub fn create_buffer(context: &Context, bytes: usize) -> ClResult<Owned<Mem>> {
    let mut code = 0;
    // SAFETY: a live context; no host pointer.
    let raw = unsafe {
        ffi::clCreateBuffer(
            context.as_ptr(),
            ffi::CL_MEM_READ_WRITE,
            bytes,
            ptr::null_mut(),
            &mut code,
        )
    };
    created("clCreateBuffer", raw, code, Mem::from_raw_create_ptr)
}

/// Blocking write of `data` at byte `offset`.
pub fn write_buffer(
    queue: &CommandQueue,
    mem: &Mem,
    offset: usize,
    data: &[u8],
    want_event: bool,
) -> ClResult<Option<Owned<Event>>> {
    let mut event = ptr::null_mut();
    // SAFETY: blocking, so `data` outlives the transfer; the caller checked
    // `offset + data.len()` against the buffer's size.
    let code = unsafe {
        ffi::clEnqueueWriteBuffer(
            queue.as_ptr(),
            mem.as_ptr(),
            ffi::CL_TRUE,
            offset,
            data.len(),
            data.as_ptr().cast(),
            0,
            ptr::null(),
            event_slot(&mut event, want_event),
        )
    };
    check("clEnqueueWriteBuffer", code)?;
    Ok(event_of(event))
}

/// Blocking read into `out` from byte `offset`.
pub fn read_buffer(
    queue: &CommandQueue,
    mem: &Mem,
    offset: usize,
    out: &mut [u8],
    want_event: bool,
) -> ClResult<Option<Owned<Event>>> {
    let mut event = ptr::null_mut();
    // SAFETY: blocking, so `out` stays borrowed for the whole transfer; the
    // caller checked `offset + out.len()` against the buffer's size.
    let code = unsafe {
        ffi::clEnqueueReadBuffer(
            queue.as_ptr(),
            mem.as_ptr(),
            ffi::CL_TRUE,
            offset,
            out.len(),
            out.as_mut_ptr().cast(),
            0,
            ptr::null(),
            event_slot(&mut event, want_event),
        )
    };
    check("clEnqueueReadBuffer", code)?;
    Ok(event_of(event))
}

/// Zero `bytes` (a multiple of 4) from the start of the buffer, in queue order.
pub fn fill_zero(
    queue: &CommandQueue,
    mem: &Mem,
    bytes: usize,
    want_event: bool,
) -> ClResult<Option<Owned<Event>>> {
    let pattern = 0u32;
    let mut event = ptr::null_mut();
    // SAFETY: the pattern is copied by the call; `bytes` is within the buffer
    // and a multiple of the pattern size (the caller rounds sizes to 16).
    let code = unsafe {
        ffi::clEnqueueFillBuffer(
            queue.as_ptr(),
            mem.as_ptr(),
            (&pattern as *const u32).cast(),
            4,
            0,
            bytes,
            0,
            ptr::null(),
            event_slot(&mut event, want_event),
        )
    };
    check("clEnqueueFillBuffer", code)?;
    Ok(event_of(event))
}

pub fn create_program(context: &Context, source: &str) -> ClResult<Owned<Program>> {
    let text = source.as_ptr().cast::<std::ffi::c_char>();
    let len = source.len();
    let mut code = 0;
    // SAFETY: one string with its length given (no NUL needed); the API
    // copies it.
    let raw =
        unsafe { ffi::clCreateProgramWithSource(context.as_ptr(), 1, &text, &len, &mut code) };
    created(
        "clCreateProgramWithSource",
        raw,
        code,
        Program::from_raw_create_ptr,
    )
}

/// Build for one device; returns the status (the caller reads the log).
pub fn build_program(program: &Program, device: &DeviceId, options: &CStr) -> cl_int {
    let id = device.as_ptr();
    // SAFETY: a live program, one of its context's devices, a NUL-terminated
    // options string; no callback (the build is synchronous).
    unsafe {
        ffi::clBuildProgram(
            program.as_ptr(),
            1,
            &id,
            options.as_ptr(),
            None,
            ptr::null_mut(),
        )
    }
}

/// The build log of `program` for `device` (empty if there is none).
pub fn build_log(program: &Program, device: &DeviceId) -> String {
    let mut size = 0usize;
    // SAFETY: a size query: no output buffer, `size` outlives the call.
    let code = unsafe {
        ffi::clGetProgramBuildInfo(
            program.as_ptr(),
            device.as_ptr(),
            ffi::CL_PROGRAM_BUILD_LOG,
            0,
            ptr::null_mut(),
            &mut size,
        )
    };
    if code != 0 || size == 0 {
        return String::new();
    }
    let mut bytes = vec![0u8; size];
    // SAFETY: `bytes` has exactly `size` writable bytes.
    let code = unsafe {
        ffi::clGetProgramBuildInfo(
            program.as_ptr(),
            device.as_ptr(),
            ffi::CL_PROGRAM_BUILD_LOG,
            size,
            bytes.as_mut_ptr().cast(),
            ptr::null_mut(),
        )
    };
    if code != 0 {
        return String::new();
    }
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).trim().to_string()
}

pub fn create_kernel(program: &Program, name: &CStr) -> ClResult<Owned<Kernel>> {
    let mut code = 0;
    // SAFETY: a built program and a NUL-terminated name.
    let raw = unsafe { ffi::clCreateKernel(program.as_ptr(), name.as_ptr(), &mut code) };
    created("clCreateKernel", raw, code, Kernel::from_raw_create_ptr)
}

/// A kernel's `CL_KERNEL_WORK_GROUP_SIZE` (size_t) or
/// `CL_KERNEL_LOCAL_MEM_SIZE` (cl_ulong) on `device`.
pub fn kernel_work_group_info(kernel: &Kernel, device: &DeviceId, param: u32) -> ClResult<u64> {
    let mut value = [0u8; 8];
    let mut size = 0usize;
    // SAFETY: both queried values are at most 8 bytes; `value` has 8.
    let code = unsafe {
        ffi::clGetKernelWorkGroupInfo(
            kernel.as_ptr(),
            device.as_ptr(),
            param,
            value.len(),
            value.as_mut_ptr().cast(),
            &mut size,
        )
    };
    check("clGetKernelWorkGroupInfo", code)?;
    Ok(match size {
        4 => u64::from(u32::from_ne_bytes([value[0], value[1], value[2], value[3]])),
        _ => u64::from_ne_bytes(value),
    })
}

/// One kernel argument: a buffer, a 32-bit word, or `__local` bytes.
pub enum Arg<'a> {
    Mem(&'a Mem),
    Word(u32),
    Local(usize),
}

pub fn set_arg(kernel: &Kernel, index: u32, arg: Arg<'_>) -> ClResult<()> {
    let code = match arg {
        Arg::Mem(mem) => {
            let raw = mem.as_ptr();
            // SAFETY: the value is a `cl_mem`, read during the call; the
            // kernel keeps its own reference to the buffer once enqueued.
            unsafe {
                ffi::clSetKernelArg(
                    kernel.as_ptr(),
                    index,
                    std::mem::size_of::<ffi::cl_mem>(),
                    (&raw as *const ffi::cl_mem).cast::<c_void>(),
                )
            }
        }
        Arg::Word(word) => {
            // SAFETY: 4 bytes read during the call (uint and float arguments).
            unsafe {
                ffi::clSetKernelArg(
                    kernel.as_ptr(),
                    index,
                    4,
                    (&word as *const u32).cast::<c_void>(),
                )
            }
        }
        Arg::Local(bytes) => {
            // SAFETY: a `__local` argument takes a size and a null value.
            unsafe { ffi::clSetKernelArg(kernel.as_ptr(), index, bytes, ptr::null()) }
        }
    };
    check("clSetKernelArg", code)
}

/// Enqueue an NDRange of `global` work-items in groups of `local`.
pub fn enqueue_kernel(
    queue: &CommandQueue,
    kernel: &Kernel,
    dims: u32,
    global: [usize; 3],
    local: [usize; 3],
    want_event: bool,
) -> ClResult<Option<Owned<Event>>> {
    let mut event = ptr::null_mut();
    // SAFETY: every argument of `kernel` was set by the caller (under the
    // kernel's lock, held across this call); `global` and `local` have 3
    // entries, of which the first `dims` are read. The kernel's memory safety
    // rests on its own bounds checks against the sizes it is given.
    let code = unsafe {
        ffi::clEnqueueNDRangeKernel(
            queue.as_ptr(),
            kernel.as_ptr(),
            dims,
            ptr::null(),
            global.as_ptr(),
            local.as_ptr(),
            0,
            ptr::null(),
            event_slot(&mut event, want_event),
        )
    };
    check("clEnqueueNDRangeKernel", code)?;
    Ok(event_of(event))
}

pub fn finish(queue: &CommandQueue) -> ClResult<()> {
    // SAFETY: a live queue.
    check("clFinish", unsafe { ffi::clFinish(queue.as_ptr()) })
}

/// `CL_PROFILING_COMMAND_START` / `_END` of a completed command, in ns.
pub fn profiling(event: &Event, param: u32) -> ClResult<u64> {
    let mut value = 0u64;
    // SAFETY: the value is a cl_ulong; `value` has 8 bytes.
    let code = unsafe {
        ffi::clGetEventProfilingInfo(
            raw_event(event),
            param,
            8,
            (&mut value as *mut u64).cast(),
            ptr::null_mut(),
        )
    };
    check("clGetEventProfilingInfo", code)?;
    Ok(value)
}
