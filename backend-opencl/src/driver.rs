//! The [`Driver`] implementation: one context and one in-order queue (with
//! profiling where the device has it) per opened device; every call is the
//! API call of its module (`memory`, `program`, `launch`, `timing`).

use crate::launch;
use crate::memory::{self, ClBuffer};
use crate::program::{Builder, Compiled, Device};
use crate::ptx::{self, Ptx};
use crate::status::{Failure, API};
use crate::sys::{self, Context, DeviceId, Queue};
use crate::target::Target;
use crate::timing::{self, Mark, Stamps};
use rosetta_core::{Driver, Error, KernelSpec, Launch, Result, Source};
use std::time::Duration;

/// One opened OpenCL device.
pub(crate) struct OpenClDriver {
    device: DeviceId,
    target: Target,
    builder: Builder,
    // Field order is drop order: the timestamp scratch buffer and the queue
    // go before the context.
    stamps: Stamps,
    queue: Queue,
    context: Context,
}

impl OpenClDriver {
    /// Create the device's context and queue, and find out how it records
    /// timestamps and which inline PTX its kernels may use (`ptx.rs`).
    pub(crate) fn open(device: DeviceId, mut target: Target) -> Result<Self> {
        let context = sys::create_context(device).map_err(Failure::error)?;
        let (queue, profiling) = match sys::create_queue(&context, device, target.profiling) {
            Ok(queue) => (queue, target.profiling),
            Err(e) if target.profiling => {
                tracing::debug!("opencl: no profiling queue ({e}); timing with the host clock");
                let queue = sys::create_queue(&context, device, false).map_err(Failure::error)?;
                (queue, false)
            }
            Err(e) => return Err(e.error()),
        };
        let stamps = Stamps::probe(&context, &queue, device, profiling, target.version_1_2);
        target.ptx = ptx::probe(device, target.nvidia, &target.identity);
        Ok(OpenClDriver {
            device,
            target,
            builder: Builder::new()?,
            stamps,
            queue,
            context,
        })
    }

    /// The inline PTX features the kernels built here may use.
    pub(crate) fn ptx(&self) -> Ptx {
        self.target.ptx
    }

    /// Whether [`Driver::timestamp`] gives device marks.
    pub(crate) fn has_timestamps(&self) -> bool {
        self.stamps.available()
    }
}

impl Driver for OpenClDriver {
    type Buffer = ClBuffer;
    type Kernel = Compiled;
    type Mark = Mark;

    fn alloc(&mut self, bytes: u64) -> Result<ClBuffer> {
        memory::alloc(&self.context, &self.queue, bytes, self.target.version_1_2)
    }

    fn free(&mut self, buffer: ClBuffer) {
        // OpenCL deletes the memory once the commands using it completed.
        drop(buffer);
    }

    fn write(&mut self, buffer: &ClBuffer, offset: u64, data: &[u8]) -> Result<()> {
        memory::write(&self.queue, buffer, offset, data)
    }

    fn read(&mut self, buffer: &ClBuffer, offset: u64, out: &mut [u8]) -> Result<()> {
        memory::read(&self.queue, buffer, offset, out)
    }

    fn zero(&mut self, buffer: &ClBuffer) -> Result<()> {
        memory::zero(&self.queue, buffer, self.target.version_1_2)
    }

    fn copy(
        &mut self,
        src: &ClBuffer,
        src_offset: u64,
        dst: &ClBuffer,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        memory::copy(&self.queue, src, src_offset, dst, dst_offset, bytes)
    }

    fn compile(&mut self, spec: &KernelSpec, source: Source<'_>) -> Result<Compiled> {
        match source {
            Source::Text(text) => {
                let device = Device {
                    context: &self.context,
                    id: self.device,
                    target: &self.target,
                };
                self.builder.build(&device, spec, text)
            }
            Source::Rust(_) => Err(Error::unsupported(
                API,
                format!(
                    "kernel '{}': OpenCL builds OpenCL C, not Rust versions",
                    spec.def().name()
                ),
            )),
        }
    }

    unsafe fn launch(
        &mut self,
        kernel: &Compiled,
        launch: &Launch,
        buffers: &[&ClBuffer],
        params: &[u32],
    ) -> Result<()> {
        // SAFETY: the checked layer's guarantees and our caller's promise
        // (this method's contract) are exactly `launch::enqueue`'s.
        unsafe {
            launch::enqueue(
                &self.queue,
                kernel,
                launch,
                buffers,
                params,
                self.target.local_bytes,
            )
        }
    }

    fn flush(&mut self) -> Result<()> {
        sys::flush(&self.queue).map_err(Failure::error)
    }

    fn finish(&mut self) -> Result<()> {
        sys::finish(&self.queue).map_err(Failure::error)
    }

    fn timestamp(&mut self) -> Result<Option<Mark>> {
        self.stamps.mark(&self.queue)
    }

    fn elapsed(&mut self, begin: &Mark, end: &Mark) -> Result<Duration> {
        timing::elapsed(&self.queue, begin, end)
    }
}
