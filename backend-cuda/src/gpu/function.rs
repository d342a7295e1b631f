//! A loaded module and its one kernel, launched on the stream it was loaded
//! for.

use super::stream::Stream;
use crate::errors;
use crate::image::Image;
use crate::sys::driver::{self, CUdeviceptr, CUfunction, CUfunction_attribute, CUmodule, CuError};
use rosetta_core::{Error, Result};
use std::ffi::{c_void, CStr};
use std::sync::Arc;

/// A kernel of a loaded module; the module is unloaded when this drops.
pub(crate) struct Function {
    stream: Arc<Stream>,
    module: CUmodule,
    raw: CUfunction,
}

// SAFETY: CUmodule and CUfunction are driver handles usable from any thread
// whose current context is theirs (every method binds it first); the driver
// API is thread safe, and the module is unloaded once, in Drop.
unsafe impl Send for Function {}
// SAFETY: as for Send; `&Function` only reads and sets attributes and
// enqueues launches, each an atomic driver call.
unsafe impl Sync for Function {}

impl Function {
    /// Load `image` into `stream`'s context and find the kernel `name`, to be
    /// launched on `stream`. The driver's own error on failure (the caller
    /// decides whether it means "rebuild" or "report").
    ///
    /// # Safety
    /// `image` was written by NVRTC: freshly, or read back from the
    /// persistent cache under the key it was stored with (checksummed) and
    /// of the right shape (`Image`'s checks). The driver parses it as trusted
    /// input.
    pub(crate) unsafe fn load(
        stream: &Arc<Stream>,
        image: &Image,
        name: &CStr,
    ) -> Result<Function, LoadError> {
        stream.bind().map_err(LoadError::Bind)?;
        // SAFETY: the caller vouches for the image: a whole cubin, or PTX
        // ending in its NUL (Image checks both); the context is current.
        let module =
            unsafe { driver::module_load_data(image.bytes()) }.map_err(LoadError::Driver)?;
        // SAFETY: `module` was just loaded in the current context; the
        // function is kept only next to the module, in `Function`.
        match unsafe { driver::module_get_function(module, name) } {
            Ok(raw) => Ok(Function {
                stream: Arc::clone(stream),
                module,
                raw,
            }),
            Err(e) => {
                // SAFETY: loaded above, never launched, unloaded once here.
                if let Err(unload) = unsafe { driver::module_unload(module) } {
                    tracing::warn!("cuda: {}: {unload}", unload.call());
                }
                Err(LoadError::Driver(e))
            }
        }
    }

    /// The stream it launches on.
    pub(crate) fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// One of the kernel's attributes.
    pub(crate) fn attribute(&self, attribute: CUfunction_attribute) -> Result<i32> {
        self.stream.bind()?;
        // SAFETY: the module is loaded while `self` lives; its context is
        // current.
        unsafe { driver::func_get_attribute(self.raw, attribute) }.map_err(errors::driver)
    }

    /// The size of each of the kernel's parameters, in order, where the
    /// driver can tell (`cuFuncGetParamInfo`, CUDA 12.4 and later); `None`
    /// where it cannot.
    pub(crate) fn parameter_sizes(&self) -> Result<Option<Vec<usize>>> {
        if !crate::probe::driver().is_ok_and(|d| d.param_info) {
            return Ok(None);
        }
        self.stream.bind()?;
        let mut sizes = Vec::new();
        // A kernel has at most 32 764 bytes of parameters (CUDA 12.1), so
        // far fewer than 2^16 of them.
        for index in 0..1 << 16 {
            // SAFETY: as in `attribute`; the probe found the symbol.
            match unsafe { driver::func_param_size(self.raw, index) }.map_err(errors::driver)? {
                Some(size) => sizes.push(size),
                None => return Ok(Some(sizes)),
            }
        }
        Ok(None)
    }

    /// Set one of the kernel's attributes (the driver checks the value).
    pub(crate) fn set_attribute(&self, attribute: CUfunction_attribute, value: i32) -> Result<()> {
        self.stream.bind()?;
        // SAFETY: as in `attribute`.
        unsafe { driver::func_set_attribute(self.raw, attribute, value) }.map_err(errors::driver)
    }

    /// Enqueue one launch on the function's stream: `grid` blocks of
    /// `block_size` threads, `dynamic_shared` bytes of dynamic shared
    /// memory, arguments `pointers` then `words`.
    ///
    /// # Safety
    /// The kernel's parameters are exactly `pointers.len()` pointers followed
    /// by `words.len()` 32-bit words; every pointer is an allocation of this
    /// function's stream that stays live until the stream has passed this
    /// launch; the kernel, so launched, reads and writes only inside those
    /// allocations and `dynamic_shared` bytes of dynamic shared memory (plus
    /// its static shared memory), and terminates.
    pub(crate) unsafe fn launch(
        &self,
        grid: [u32; 3],
        block_size: u32,
        dynamic_shared: u32,
        pointers: &[CUdeviceptr],
        words: &[u32],
    ) -> Result<()> {
        // cuLaunchKernel reads each argument through a pointer to its value
        // during the call: the values live in these vectors until it returns.
        let mut pointers = pointers.to_vec();
        let mut words = words.to_vec();
        let mut arguments: Vec<*mut c_void> = pointers
            .iter_mut()
            .map(|p| (p as *mut CUdeviceptr).cast::<c_void>())
            .chain(words.iter_mut().map(|w| (w as *mut u32).cast::<c_void>()))
            .collect();
        self.stream.bind()?;
        // SAFETY: the module is loaded in the stream's context (current) and
        // stays loaded until the stream has passed the launch (Drop
        // synchronises the stream first); `arguments` points at one value per
        // parameter, of the types the caller guarantees, alive during the
        // call; the caller guarantees the kernel's memory behaviour.
        unsafe {
            driver::launch_kernel(
                self.raw,
                grid,
                [block_size, 1, 1],
                dynamic_shared,
                self.stream.raw(),
                &mut arguments,
            )
        }
        .map_err(errors::launch)
    }
}

impl Drop for Function {
    fn drop(&mut self) {
        // The module must outlive every launch of its kernel: wait for the
        // stream they were all enqueued on.
        if let Err(e) = self.stream.synchronize() {
            tracing::warn!("cuda: module leaked: {}", e.chain());
            return;
        }
        // SAFETY: loaded in `load`, unloaded once, here; its context is
        // current (synchronize bound it) and the stream has completed every
        // launch of its kernel; nothing uses it after.
        if let Err(e) = unsafe { driver::module_unload(self.module) } {
            tracing::warn!("cuda: {}: {e}", e.call());
        }
    }
}

/// Why a module did not load.
#[derive(Debug)]
pub(crate) enum LoadError {
    /// The context could not be made current.
    Bind(Error),
    /// The driver refused the image or found no such kernel.
    Driver(CuError),
}
