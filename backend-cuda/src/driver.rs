//! The [`Driver`] implementation: one device = its primary context and one
//! non-blocking stream, on which every copy, memset, launch, free and mark
//! is enqueued, so calls take effect in call order. Every call makes the
//! context current on the calling thread first (the `gpu` layer does).

use crate::compile::Compiler;
use crate::gpu::{DeviceMemory, Event, Stream};
use crate::kernel::CudaKernel;
use crate::launch;
use rosetta_core::{Driver, Error, KernelSpec, Launch, Result, Source};
use std::sync::Arc;
use std::time::Duration;

/// One opened CUDA device.
pub(crate) struct CudaDriver {
    stream: Arc<Stream>,
    /// The device has memory pools: allocate and free in stream order.
    ordered: bool,
    compiler: Compiler,
}

impl CudaDriver {
    /// A driver enqueueing on `stream`.
    pub(crate) fn new(stream: Arc<Stream>, ordered: bool, compiler: Compiler) -> Self {
        CudaDriver {
            stream,
            ordered,
            compiler,
        }
    }
}

impl Driver for CudaDriver {
    type Buffer = DeviceMemory;
    type Kernel = CudaKernel;
    type Mark = Event;

    fn alloc(&mut self, bytes: u64) -> Result<DeviceMemory> {
        match DeviceMemory::zeroed(&self.stream, bytes, self.ordered) {
            Err(Error::OutOfMemory { .. }) => {
                // Frees still queued on the stream give memory back once it
                // has passed them: wait, then try once more.
                tracing::debug!(
                    bytes,
                    "cuda: out of memory; draining the stream and retrying"
                );
                self.stream.synchronize()?;
                DeviceMemory::zeroed(&self.stream, bytes, self.ordered)
            }
            other => other,
        }
    }

    fn free(&mut self, buffer: DeviceMemory) {
        // Freed in the stream's order (see `gpu::DeviceMemory`'s Drop).
        drop(buffer);
    }

    fn write(&mut self, buffer: &DeviceMemory, offset: u64, data: &[u8]) -> Result<()> {
        buffer.write(offset, data)
    }

    fn read(&mut self, buffer: &DeviceMemory, offset: u64, out: &mut [u8]) -> Result<()> {
        buffer.read(offset, out)
    }

    fn zero(&mut self, buffer: &DeviceMemory) -> Result<()> {
        buffer.zero()
    }

    fn copy(
        &mut self,
        src: &DeviceMemory,
        src_offset: u64,
        dst: &DeviceMemory,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        src.copy_to(src_offset, dst, dst_offset, bytes)
    }

    fn compile(&mut self, spec: &KernelSpec, source: Source<'_>) -> Result<CudaKernel> {
        self.compiler.compile(&self.stream, spec, source)
    }

    unsafe fn launch(
        &mut self,
        kernel: &CudaKernel,
        launch: &Launch,
        buffers: &[&DeviceMemory],
        params: &[u32],
    ) -> Result<()> {
        // SAFETY: this function's own contract (the checked layer's checks
        // and its caller's promise about the kernel) is `enqueue`'s.
        unsafe { launch::enqueue(kernel, launch, buffers, params) }
    }

    fn finish(&mut self) -> Result<()> {
        self.stream.synchronize()
    }

    fn timestamp(&mut self) -> Result<Option<Event>> {
        Event::record(&self.stream).map(Some)
    }

    fn elapsed(&mut self, begin: &Event, end: &Event) -> Result<Duration> {
        end.elapsed_since(begin)
    }
}
