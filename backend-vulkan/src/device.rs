//! The `Backend` impl, tying discovery, buffers, compile, launch and timing
//! together. One mutex orders the queue (batches, buffers, timer); the kernel
//! cache has its own, so compiling does not block enqueuing.

use crate::buffers::Buffers;
use crate::compile::Cache;
use crate::gpu::{Gpu, LiveObjects};
use crate::memory::MemoryTypes;
use crate::queue::Queue;
use crate::timing::Timer;
use rosetta_core::{Backend, BufferId, Clock, DeviceInfo, KernelId, KernelSpec, Launch, Result};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// What one queue owns: its batches, the buffers and the timer.
struct State {
    queue: Queue,
    buffers: Buffers,
    timer: Timer,
}

/// One Vulkan physical device, opened with one compute queue.
pub struct VulkanDevice {
    info: DeviceInfo,
    types: MemoryTypes,
    cache: Cache,
    state: Mutex<State>,
    /// Declared last: dropped (vkDestroyDevice) after `Drop::drop` destroyed
    /// everything created from it.
    gpu: Gpu,
}

/// How the device's queue is set up (from adapter.rs).
pub(crate) struct QueueSetup {
    pub family: u32,
    /// timestampValidBits of the family, 0 when it has no timestamps.
    pub timestamp_bits: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    pub max_push_bytes: u32,
}

impl VulkanDevice {
    pub(crate) fn new(
        gpu: Gpu,
        info: DeviceInfo,
        types: MemoryTypes,
        setup: QueueSetup,
    ) -> Result<Self> {
        let mut queue = Queue::new(&gpu, setup.family)?;
        let cache = match Cache::new(&gpu, info.caps.subgroup_ops, setup.max_push_bytes) {
            Ok(c) => c,
            Err(e) => {
                queue.destroy(&gpu);
                return Err(e);
            }
        };
        let timer = match Timer::new(&gpu, setup.timestamp_bits, setup.timestamp_period) {
            Ok(t) => t,
            Err(e) => {
                cache.destroy(&gpu);
                queue.destroy(&gpu);
                return Err(e);
            }
        };
        Ok(VulkanDevice {
            info,
            types,
            cache,
            state: Mutex::new(State {
                queue,
                buffers: Buffers::default(),
                timer,
            }),
            gpu,
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Vulkan objects this device holds now, by kind (for leak checks).
    pub fn live_objects(&self) -> LiveObjects {
        self.gpu.live.snapshot()
    }

    /// Whether storage buffers live in mapped, unified memory (no staging).
    pub fn unified_memory(&self) -> bool {
        self.types.unified
    }
}

impl Backend for VulkanDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn alloc(&self, bytes: u64) -> Result<BufferId> {
        let limit = self.info.caps.max_buffer_bytes;
        let state = &mut *self.lock();
        state
            .buffers
            .alloc(&self.gpu, &self.types, &mut state.queue, bytes, limit)
    }

    fn free(&self, buffer: BufferId) {
        let state = &mut *self.lock();
        state.buffers.free(&self.gpu, &mut state.queue, buffer);
    }

    fn write(&self, buffer: BufferId, offset: u64, data: &[u8]) -> Result<()> {
        let state = &mut *self.lock();
        state.buffers.write(
            &self.gpu,
            &self.types,
            &mut state.queue,
            buffer,
            offset,
            data,
        )
    }

    fn read(&self, buffer: BufferId, offset: u64, out: &mut [u8]) -> Result<()> {
        let state = &mut *self.lock();
        state.buffers.read(
            &self.gpu,
            &self.types,
            &mut state.queue,
            buffer,
            offset,
            out,
        )
    }

    fn zero(&self, buffer: BufferId) -> Result<()> {
        let state = &mut *self.lock();
        state.buffers.zero(&self.gpu, &mut state.queue, buffer)
    }

    fn compile(&self, spec: &KernelSpec) -> Result<KernelId> {
        self.cache.compile(&self.gpu, spec)
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
        let state = &mut *self.lock();
        let handles = state.buffers.handles(buffers)?;
        crate::launch::record(
            &self.gpu,
            &mut state.queue,
            &kernel,
            launch,
            &handles,
            params,
        )
    }

    fn finish(&self) -> Result<()> {
        let state = &mut *self.lock();
        state.queue.wait_all(&self.gpu)?;
        state.queue.trim(&self.gpu);
        Ok(())
    }

    fn begin_timer(&self) -> Result<()> {
        let state = &mut *self.lock();
        state.timer.begin(&self.gpu, &mut state.queue)
    }

    fn end_timer(&self) -> Result<(Duration, Clock)> {
        let state = &mut *self.lock();
        state.timer.end(&self.gpu, &mut state.queue)
    }

    fn take_diagnostics(&self) -> Vec<String> {
        self.gpu.diagnostics().take()
    }
}

impl Drop for VulkanDevice {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        // Waits for the device, then destroys batches and retired buffers.
        state.queue.destroy(&self.gpu);
        state.buffers.destroy(&self.gpu);
        state.timer.destroy(&self.gpu);
        self.cache.destroy(&self.gpu);
        let live = self.gpu.live.snapshot();
        if live != LiveObjects::default() {
            tracing::warn!(?live, "vulkan: objects left when the device was dropped");
        }
    }
}
