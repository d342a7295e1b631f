//! The `Backend` impl, tying discovery, buffers, compile, launch and timing
//! together: one context and one in-order (profiling) queue per device.

use crate::adapter::Target;
use crate::buffers::{Buffers, Queue};
use crate::cl::{self, Owned};
use crate::compile::{BuildTarget, Cache};
use crate::timing::Timer;
use ocl::core::{CommandQueue, Context, DeviceId};
use rosetta_core::{Backend, BufferId, Clock, DeviceInfo, KernelId, KernelSpec, Launch, Result};
use std::time::Duration;

pub struct OpenClDevice {
    info: DeviceInfo,
    target: Target,
    device: DeviceId,
    // Drop order is field order: kernels and buffers before queue and context.
    cache: Cache,
    buffers: Buffers,
    timer: Timer,
    queue: Owned<CommandQueue>,
    context: Owned<Context>,
}

impl OpenClDevice {
    /// Create the device's context and queue.
    pub(crate) fn open(device: DeviceId, info: DeviceInfo, target: Target) -> Result<Self> {
        let context = cl::create_context(&device)?;
        let queue = cl::create_queue(&context, &device, target.profiling)?;
        Ok(OpenClDevice {
            info,
            timer: Timer::new(target.profiling),
            target,
            device,
            cache: Cache::default(),
            buffers: Buffers::default(),
            queue,
            context,
        })
    }

    fn queue(&self) -> Queue<'_> {
        Queue {
            context: &self.context,
            queue: &self.queue,
            timer: &self.timer,
            fill: self.target.fill,
        }
    }
}

impl Backend for OpenClDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn alloc(&self, bytes: u64) -> Result<BufferId> {
        self.buffers
            .alloc(&self.queue(), bytes, self.info.caps.max_buffer_bytes)
    }

    fn free(&self, buffer: BufferId) {
        self.buffers.free(buffer);
    }

    fn write(&self, buffer: BufferId, offset: u64, data: &[u8]) -> Result<()> {
        self.buffers.write(&self.queue(), buffer, offset, data)
    }

    fn read(&self, buffer: BufferId, offset: u64, out: &mut [u8]) -> Result<()> {
        self.buffers.read(&self.queue(), buffer, offset, out)
    }

    fn zero(&self, buffer: BufferId) -> Result<()> {
        self.buffers.zero(&self.queue(), buffer)
    }

    fn compile(&self, spec: &KernelSpec) -> Result<KernelId> {
        let target = BuildTarget {
            context: &self.context,
            device: &self.device,
            cl_std: self.target.cl_std,
        };
        self.cache.compile(&target, spec)
    }

    fn launch(
        &self,
        kernel: KernelId,
        launch: &Launch,
        buffers: &[BufferId],
        params: &[u32],
    ) -> Result<()> {
        let compiled = self.cache.get(kernel)?;
        compiled.def.check_launch(
            &self.info.caps,
            compiled.group_size,
            launch,
            buffers,
            params,
        )?;
        let allocations = buffers
            .iter()
            .map(|&id| self.buffers.get(id))
            .collect::<Result<Vec<_>>>()?;
        crate::launch::run(
            &self.queue(),
            &compiled,
            launch,
            &allocations,
            params,
            self.info.caps.max_shared_bytes,
        )
    }

    fn finish(&self) -> Result<()> {
        self.timer.exclusive(|| Ok(cl::finish(&self.queue)?))
    }

    fn begin_timer(&self) -> Result<()> {
        self.timer.begin(&self.queue)
    }

    fn end_timer(&self) -> Result<(Duration, Clock)> {
        self.timer.end(&self.queue)
    }
}

impl Drop for OpenClDevice {
    fn drop(&mut self) {
        // Let enqueued work finish before buffers and kernels go.
        if let Err(err) = cl::finish(&self.queue) {
            tracing::warn!("opencl: finishing the queue of {}: {err:?}", self.info.name);
        }
    }
}
