//! The `Backend` impl, tying discovery, buffers, compile, launch and timing.
//!
//! One device = the ordinal's primary context and one non-blocking stream:
//! every copy, memset, launch and timer mark goes on that stream, so calls
//! execute in call order. `read`, `write`, `finish` and `end_timer`
//! synchronise the stream (and then free the buffers parked before it).

use crate::buffers::{Allocation, Buffers};
use crate::compile::Cache;
use crate::errors;
use crate::nvrtc::{Nvrtc, Target};
use crate::timing::Timer;
use cudarc::driver::{result, CudaContext, CudaStream};
use rosetta_core::{Backend, BufferId, Clock, DeviceInfo, KernelId, KernelSpec, Launch, Result};
use std::sync::Arc;
use std::time::Duration;

pub struct CudaDevice {
    info: DeviceInfo,
    nvrtc: &'static Nvrtc,
    target: Target,
    buffers: Buffers,
    cache: Cache,
    // Dropped in this order after `Drop::drop` has freed buffers and modules:
    // the events, the stream, then the context.
    timer: Timer,
    stream: Arc<CudaStream>,
    ctx: Arc<CudaContext>,
}

impl CudaDevice {
    pub(crate) fn open(
        ordinal: usize,
        info: DeviceInfo,
        nvrtc: &'static Nvrtc,
        target: Target,
    ) -> Result<Self> {
        let ctx =
            CudaContext::new(ordinal).map_err(|e| errors::driver("cuDevicePrimaryCtxRetain", e))?;
        let stream = ctx
            .new_stream()
            .map_err(|e| errors::driver("cuStreamCreate", e))?;
        let timer = Timer::new(&ctx)?;
        Ok(CudaDevice {
            info,
            nvrtc,
            target,
            buffers: Buffers::default(),
            cache: Cache::default(),
            timer,
            stream,
            ctx,
        })
    }

    /// What NVRTC compiles for on this device.
    pub fn target(&self) -> Target {
        self.target
    }

    /// Make the device's context current on this thread (every call does).
    fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| errors::driver("cuCtxSetCurrent", e))
    }

    /// Wait for everything on the stream, then free the buffers that were
    /// parked before the wait began.
    fn synchronize(&self) -> Result<()> {
        let parked = self.buffers.take_parked();
        match self.stream.synchronize() {
            Ok(()) => {
                self.buffers.release(parked);
                Ok(())
            }
            Err(e) => {
                // The context is probably unusable; keep them for the teardown.
                self.buffers.repark(parked);
                Err(errors::driver("cuStreamSynchronize", e))
            }
        }
    }

    /// The device pointer behind every binding of a launch.
    fn bindings(&self, buffers: &[BufferId]) -> Result<Vec<u64>> {
        buffers
            .iter()
            .map(|&id| self.buffers.get(id).map(|a: Allocation| a.ptr))
            .collect()
    }
}

impl Backend for CudaDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn alloc(&self, bytes: u64) -> Result<BufferId> {
        rosetta_core::check_buffer_bytes(bytes, self.info.caps.max_buffer_bytes)?;
        self.bind()?;
        self.buffers
            .alloc(&self.stream, bytes, || self.synchronize())
    }

    fn free(&self, buffer: BufferId) {
        self.buffers.free(buffer);
    }

    fn write(&self, buffer: BufferId, offset: u64, data: &[u8]) -> Result<()> {
        let allocation = self.buffers.range(buffer, offset, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: the range lies inside a live allocation (checked above);
        // the stream is synchronised below, before `data` can go away, so the
        // copy never reads freed host memory.
        unsafe {
            result::memcpy_htod_async(allocation.ptr + offset, data, self.stream.cu_stream())
        }
        .map_err(|e| errors::driver("cuMemcpyHtoDAsync", e))?;
        self.synchronize()
    }

    fn read(&self, buffer: BufferId, offset: u64, out: &mut [u8]) -> Result<()> {
        let allocation = self.buffers.range(buffer, offset, out.len())?;
        if out.is_empty() {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: the range lies inside a live allocation (checked above);
        // `out` is exclusively borrowed until the stream is synchronised
        // below, after which the copy has completed.
        unsafe { result::memcpy_dtoh_async(out, allocation.ptr + offset, self.stream.cu_stream()) }
            .map_err(|e| errors::driver("cuMemcpyDtoHAsync", e))?;
        self.synchronize()
    }

    fn zero(&self, buffer: BufferId) -> Result<()> {
        let allocation = self.buffers.get(buffer)?;
        self.bind()?;
        // SAFETY: the whole (rounded) live allocation, in stream order.
        unsafe {
            result::memset_d8_async(
                allocation.ptr,
                0,
                allocation.bytes as usize,
                self.stream.cu_stream(),
            )
        }
        .map_err(|e| errors::driver("cuMemsetD8Async", e))
    }

    fn compile(&self, spec: &KernelSpec) -> Result<KernelId> {
        self.bind()?;
        self.cache.compile(self.nvrtc, self.target, spec)
    }

    fn launch(
        &self,
        kernel: KernelId,
        launch: &Launch,
        buffers: &[BufferId],
        params: &[u32],
    ) -> Result<()> {
        let kernel = self.cache.get(kernel)?;
        kernel
            .def
            .check_launch(&self.info.caps, kernel.group_size, launch, buffers, params)?;
        let pointers = self.bindings(buffers)?;
        self.bind()?;
        crate::launch::enqueue(&self.stream, &kernel, launch, &pointers, params)
    }

    fn finish(&self) -> Result<()> {
        self.bind()?;
        self.synchronize()
    }

    fn begin_timer(&self) -> Result<()> {
        self.bind()?;
        self.timer.begin(&self.stream)
    }

    fn end_timer(&self) -> Result<(Duration, Clock)> {
        self.bind()?;
        let elapsed = self.timer.end(&self.stream, || self.synchronize())?;
        Ok((elapsed, Clock::Device))
    }
}

impl Drop for CudaDevice {
    fn drop(&mut self) {
        if let Err(e) = self.bind() {
            tracing::warn!(error = %e, "cuda: cannot bind the context to free the device's memory");
            return;
        }
        if let Err(e) = self.stream.synchronize() {
            tracing::warn!(error = %errors::describe(e), "cuda: stream failed before teardown");
        }
        self.buffers.release(self.buffers.drain_all());
        self.cache.unload_all();
    }
}
