//! `Device`: one device of one API — the entry point of the library API.

use crate::buffer::DeviceBuffer;
use crate::error::Result;
use rosetta_core::{Backend, DeviceInfo, Element, Kernel, KernelSpec, Launch};
use std::sync::Arc;

/// A device of one API. Cheap to clone (shares the device).
///
/// Two ways to run ops:
/// - **Device-resident:** [`Device::upload`] data into a [`DeviceBuffer`],
///   call ops on it (each returns a new `DeviceBuffer` on the same device),
///   and [`DeviceBuffer::to_vec`] the result. Nothing crosses the bus between
///   ops; intermediate memory is pooled.
/// - **Slices:** `device.reduce(&x, ..)`, `device.matmul(&a, &b, ..)`, ...:
///   upload, run, download in one call.
#[derive(Clone)]
pub struct Device {
    backend: Arc<dyn Backend>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({} {})", self.info().id(), self.info().name)
    }
}

impl Device {
    /// Wrap an opened backend.
    pub fn new(backend: Arc<dyn Backend>) -> Self {
        Device { backend }
    }

    /// What the device is and what it can do.
    pub fn info(&self) -> &DeviceInfo {
        self.backend.info()
    }

    /// The checked device API, for plans (`rosetta::kernels`) and user
    /// kernels.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// Copy `data` to a new buffer on the device.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::upload(&self.backend, data)
    }

    /// A new buffer of `len` zeros.
    pub fn zeros<T: Element>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::zeros(&self.backend, len)
    }

    /// Build a kernel (a built-in one or your own [`rosetta_core::KernelDef`])
    /// with its constants, or fetch it from the device's cache.
    pub fn compile(&self, spec: &KernelSpec) -> Result<Kernel> {
        Ok(self.backend.compile(spec)?)
    }

    /// Launch a kernel on device buffers (bound in the kernel's binding
    /// order) with its param words. Every handle, count and limit is checked
    /// first.
    ///
    /// # Safety
    /// The kernel runs arbitrary device code: for these params and this
    /// launch it must read and write only inside the buffers bound (each
    /// [`rosetta_core::Buffer::capacity`] bytes), use no more shared memory
    /// than `launch.shared_bytes`, and terminate.
    pub unsafe fn launch(
        &self,
        kernel: &Kernel,
        launch: &Launch,
        buffers: &[&rosetta_core::Buffer],
        params: &[u32],
    ) -> Result<()> {
        // SAFETY: passed on from this function's contract.
        Ok(unsafe { self.backend.launch(kernel, launch, buffers, params) }?)
    }

    /// Wait until everything enqueued on the device has completed.
    pub fn finish(&self) -> Result<()> {
        Ok(self.backend.finish()?)
    }
}
