//! The `Backend` impl, tying discovery, buffers, compile, launch and timing.

use crate::buffers::Buffers;
use crate::compile::Cache;
use crate::errors::{lock, Health};
use crate::launch::BindGroups;
use crate::queue::Recorder;
use rosetta_core::{Backend, BufferId, Clock, DeviceInfo, KernelId, KernelSpec, Launch, Result};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The wgpu objects every part of the backend uses.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub health: Arc<Health>,
    /// The device has the `SUBGROUP` feature.
    pub subgroups: bool,
}

/// One wgpu adapter's device.
pub struct WgpuDevice {
    info: DeviceInfo,
    gpu: Gpu,
    buffers: Buffers,
    cache: Cache,
    bind_groups: BindGroups,
    recorder: Mutex<Recorder>,
}

impl WgpuDevice {
    pub(crate) fn new(info: DeviceInfo, device: wgpu::Device, queue: wgpu::Queue) -> Result<Self> {
        let health = Health::watch(&device, &info.name);
        let gpu = Gpu {
            subgroups: device.features().contains(wgpu::Features::SUBGROUP),
            device,
            queue,
            health,
        };
        let recorder = Recorder::new(&gpu)?;
        Ok(WgpuDevice {
            info,
            gpu,
            buffers: Buffers::default(),
            cache: Cache::default(),
            bind_groups: BindGroups::default(),
            recorder: Mutex::new(recorder),
        })
    }
}

impl Backend for WgpuDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn alloc(&self, bytes: u64) -> Result<BufferId> {
        self.gpu.health.check()?;
        self.buffers.alloc(
            &self.gpu.device,
            &self.gpu.health,
            bytes,
            self.info.caps.max_buffer_bytes,
        )
    }

    fn free(&self, buffer: BufferId) {
        self.bind_groups.forget(buffer);
        // Dropping the handle is enough: wgpu keeps the buffer alive while
        // recorded or submitted commands still use it.
        self.buffers.free(buffer);
    }

    fn write(&self, buffer: BufferId, offset: u64, data: &[u8]) -> Result<()> {
        self.gpu.health.check()?;
        let target = self.buffers.get(buffer)?;
        rosetta_core::check_byte_range(offset, data.len(), target.size())?;
        if data.is_empty() {
            return Ok(());
        }
        lock(&self.recorder).write(&self.gpu, &target, offset, data)
    }

    fn read(&self, buffer: BufferId, offset: u64, out: &mut [u8]) -> Result<()> {
        self.gpu.health.check()?;
        let source = self.buffers.get(buffer)?;
        rosetta_core::check_byte_range(offset, out.len(), source.size())?;
        let mut recorder = lock(&self.recorder);
        if out.is_empty() {
            return recorder.finish(&self.gpu);
        }
        recorder.read(&self.gpu, &source, offset, out)
    }

    fn zero(&self, buffer: BufferId) -> Result<()> {
        self.gpu.health.check()?;
        let target = self.buffers.get(buffer)?;
        lock(&self.recorder).zero(&self.gpu, &target);
        Ok(())
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
        self.gpu.health.check()?;
        let compiled = self.cache.get(kernel)?;
        compiled.def.check_launch(
            &self.info.caps,
            compiled.group_size,
            launch,
            buffers,
            params,
        )?;
        crate::launch::record(
            &self.gpu,
            &self.recorder,
            &self.buffers,
            &self.bind_groups,
            &compiled,
            launch,
            buffers,
            params,
        )
    }

    fn finish(&self) -> Result<()> {
        self.gpu.health.check()?;
        lock(&self.recorder).finish(&self.gpu)
    }

    fn begin_timer(&self) -> Result<()> {
        self.gpu.health.check()?;
        lock(&self.recorder).begin_timer(&self.gpu)
    }

    fn end_timer(&self) -> Result<(Duration, Clock)> {
        self.gpu.health.check()?;
        lock(&self.recorder).end_timer(&self.gpu)
    }

    fn take_diagnostics(&self) -> Vec<String> {
        self.gpu.health.take_uncaptured()
    }
}

impl Drop for WgpuDevice {
    fn drop(&mut self) {
        // Let submitted work finish before wgpu tears the device down.
        if let Err(e) = lock(&self.recorder).finish(&self.gpu) {
            tracing::debug!("wgpu: draining the queue on drop: {e}");
        }
    }
}
