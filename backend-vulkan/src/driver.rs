//! The [`Driver`] implementation: each call handed to the part that does it
//! (`transfer`, `compile`, `queue`, `timing`). The checked layer of
//! rosetta-core has already done every check; nothing is looked up here.
//!
//! NVIDIA's driver runs exclusively: every call (and the close) of an NVIDIA
//! device holds the process-wide lock of `vk::live::serialized`, because
//! driver 580.159 deadlocked when several threads used, opened and closed
//! devices of one process at once. Other drivers run their devices in
//! parallel.

use crate::compile::{Compiler, Kernel};
use crate::queue::Queue;
use crate::timing::{Mark, Timer};
use crate::transfer::Transfers;
use crate::validation::Diagnostics;
use crate::vk::live;
use crate::vk::memory::Buffer;
use rosetta_core::{Api, Driver, Error, KernelSpec, Launch, Result, Source};
use std::sync::Arc;
use std::time::Duration;

/// The parts of one opened device.
pub(crate) struct Parts {
    /// Builds kernels (and keeps the pipeline cache).
    pub compiler: Compiler,
    /// Timestamps, where the queue has them.
    pub timer: Option<Timer>,
    /// Buffers and data movement.
    pub transfers: Transfers,
    /// The validation layer's messages.
    pub diagnostics: Arc<Diagnostics>,
    /// The queue as command batches.
    pub queue: Queue,
}

/// One opened Vulkan device.
pub(crate) struct VulkanDriver {
    /// `None` only while closing.
    parts: Option<Parts>,
    /// Every call holds the process-wide lock.
    exclusive: bool,
}

impl VulkanDriver {
    /// A driver of the parts `adapter` opened; `exclusive` for drivers that
    /// must not run alongside other devices of the process.
    pub(crate) fn new(parts: Parts, exclusive: bool) -> Self {
        VulkanDriver {
            parts: Some(parts),
            exclusive,
        }
    }

    /// Run `f` on the parts, under the process-wide lock when exclusive.
    fn with<T>(&mut self, f: impl FnOnce(&mut Parts) -> Result<T>) -> Result<T> {
        let Some(parts) = self.parts.as_mut() else {
            return Err(Error::Internal("vulkan: a call on a closing device".into()));
        };
        parts.queue.usable()?;
        if self.exclusive {
            live::serialized(|| f(parts))
        } else {
            f(parts)
        }
    }

    /// Drop `value` (which may destroy Vulkan objects), under the lock when
    /// exclusive.
    fn release<T>(&self, value: T) {
        if self.exclusive {
            live::serialized(|| drop(value));
        } else {
            drop(value);
        }
    }
}

impl Driver for VulkanDriver {
    type Buffer = Arc<Buffer>;
    type Kernel = Kernel;
    type Mark = Mark;

    fn alloc(&mut self, bytes: u64) -> Result<Arc<Buffer>> {
        self.with(|p| p.transfers.alloc(&mut p.queue, bytes))
    }

    fn free(&mut self, buffer: Arc<Buffer>) {
        // Batches that still use it hold their own `Arc`: the memory goes
        // back to the allocator once the last of them has completed.
        self.release(buffer);
    }

    fn write(&mut self, buffer: &Arc<Buffer>, offset: u64, data: &[u8]) -> Result<()> {
        self.with(|p| p.transfers.write(&mut p.queue, buffer, offset, data))
    }

    fn read(&mut self, buffer: &Arc<Buffer>, offset: u64, out: &mut [u8]) -> Result<()> {
        self.with(|p| p.transfers.read(&mut p.queue, buffer, offset, out))
    }

    fn zero(&mut self, buffer: &Arc<Buffer>) -> Result<()> {
        self.with(|p| p.transfers.zero(&mut p.queue, buffer))
    }

    fn copy(
        &mut self,
        src: &Arc<Buffer>,
        src_offset: u64,
        dst: &Arc<Buffer>,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        self.with(|p| {
            p.transfers
                .copy(&mut p.queue, src, src_offset, dst, dst_offset, bytes)
        })
    }

    fn compile(&mut self, spec: &KernelSpec, source: Source<'_>) -> Result<Kernel> {
        match source {
            Source::Text(text) => self.with(|p| p.compiler.compile(spec, text)),
            Source::Rust(_) => Err(Error::unsupported(
                Api::Vulkan,
                format!("kernel '{}': Vulkan runs GLSL only", spec.def().name()),
            )),
        }
    }

    fn release_kernel(&mut self, kernel: Kernel) {
        self.release(kernel);
    }

    unsafe fn launch(
        &mut self,
        kernel: &Kernel,
        launch: &Launch,
        buffers: &[&Arc<Buffer>],
        params: &[u32],
    ) -> Result<()> {
        kernel.check_binding_sizes(buffers.iter().map(|b| b.size()))?;
        self.with(|p| {
            let batch = p.queue.command(kernel.bindings)?;
            // SAFETY: the checked layer established that the buffers are
            // this device's and as many as the kernel's bindings, that the
            // params are as many as its params, and that the launch is within
            // the device's limits (the dispatch re-checks what Vulkan needs);
            // our caller guarantees that the kernel stays inside the bound
            // buffers and its shared memory and terminates — the dispatch's
            // contract.
            unsafe { batch.dispatch(&kernel.pipeline, buffers, params, launch.groups) }
        })
    }

    fn flush(&mut self) -> Result<()> {
        self.with(|p| p.queue.submit())
    }

    fn finish(&mut self) -> Result<()> {
        self.with(|p| p.queue.finish())
    }

    fn timestamp(&mut self) -> Result<Option<Mark>> {
        self.with(|p| match p.timer.as_mut() {
            Some(timer) => timer.mark(&mut p.queue).map(Some),
            None => Ok(None),
        })
    }

    fn elapsed(&mut self, begin: &Mark, end: &Mark) -> Result<Duration> {
        self.with(|p| match p.timer.as_mut() {
            Some(timer) => timer.elapsed(&mut p.queue, begin, end),
            None => Err(Error::Internal(
                "vulkan: a device mark on a device without timestamps".into(),
            )),
        })
    }

    fn diagnostics(&mut self) -> Vec<String> {
        self.parts
            .as_ref()
            .map(|p| p.diagnostics.take())
            .unwrap_or_default()
    }
}

impl Drop for VulkanDriver {
    fn drop(&mut self) {
        let Some(mut parts) = self.parts.take() else {
            return;
        };
        let close = move || {
            if let Err(e) = parts.queue.finish() {
                tracing::warn!("vulkan: draining the queue on close: {}", e.chain());
            }
            parts.compiler.save();
            // Every object of the device is destroyed here (the batches wait
            // for their fences first), the device last.
            drop(parts);
        };
        if self.exclusive {
            live::serialized(close);
        } else {
            close();
        }
    }
}
