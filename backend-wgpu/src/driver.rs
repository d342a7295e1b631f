//! The [`Driver`] implementation: each call translated into wgpu calls on
//! one device, in queue order through the recorder (`queue.rs`).

use crate::bindings::BindGroups;
use crate::compile::{Compiler, WgpuKernel};
use crate::gpu::Gpu;
use crate::memory::{alloc, WgpuBuffer};
use crate::pipeline_cache::PersistentCache;
use crate::queue::Recorder;
use crate::timing::{Mark, Timer};
use rosetta_core::process_lock::Section;
use rosetta_core::{Driver, Error, KernelSpec, Launch, Result, Source};
use std::time::Duration;

/// One opened wgpu device.
pub(crate) struct WgpuDriver {
    gpu: Gpu,
    recorder: Recorder,
    compiler: Compiler,
    bind_groups: BindGroups,
    /// `None` where the device cannot write timestamps between commands.
    timer: Option<Timer>,
    /// Taken by `drop` and released after every other field has dropped
    /// (declared last: fields drop in order), so that the device's
    /// teardown holds the lifecycle (`lifecycle.rs`).
    teardown: Option<Section>,
}

impl WgpuDriver {
    /// The driver of an opened device, building pipelines through `compiler`.
    pub(crate) fn new(gpu: Gpu, compiler: Compiler) -> Result<Self> {
        let mut recorder = Recorder::new(&gpu)?;
        let timer = Timer::new(&gpu)?;
        if let Some(timer) = &timer {
            recorder.attach_timestamps(timer.query_set().clone());
        }
        Ok(WgpuDriver {
            recorder,
            timer,
            gpu,
            compiler,
            bind_groups: BindGroups::default(),
            teardown: None,
        })
    }

    /// Whether `timestamp` returns device marks.
    pub(crate) fn has_timer(&self) -> bool {
        self.timer.is_some()
    }

    /// The persistent pipeline cache, where the device has one.
    pub(crate) fn persistent_cache(&self) -> Option<&PersistentCache> {
        self.compiler.persistent()
    }

    /// The opened device's features and limits.
    pub(crate) fn features_and_limits(&self) -> (wgpu::Features, wgpu::Limits) {
        (self.gpu.device.features(), self.gpu.device.limits())
    }

    /// Bind groups cached now (tests).
    #[cfg(test)]
    pub(crate) fn cached_bind_groups(&self) -> usize {
        self.bind_groups.len()
    }
}

impl WgpuDriver {
    /// Record a dispatch: everything [`Driver::launch`] does after its
    /// checks (health, binding sizes). Tests call it directly to record past
    /// the binding-size check, for what happens when wgpu refuses a batch
    /// anyway.
    ///
    /// # Safety
    /// As [`Driver::launch`].
    pub(crate) unsafe fn record_unchecked(
        &mut self,
        kernel: &WgpuKernel,
        launch: &Launch,
        buffers: &[&WgpuBuffer],
        params: &[u32],
    ) -> Result<()> {
        // A pass this launch opens may end with the next mark's timestamp.
        if let Some(timer) = &mut self.timer {
            if !self.recorder.pass_open() {
                self.recorder.offer_pass_end(timer.reserve_pass_end());
            }
        }
        // SAFETY: our caller's contract (`Driver::launch`) is exactly
        // `record`'s: the kernel stays inside the buffers and terminates,
        // and buffers and params match its interface.
        unsafe {
            crate::launch::record(
                &self.gpu,
                &mut self.recorder,
                &mut self.bind_groups,
                kernel,
                launch,
                buffers,
                params,
            )
        }
    }
}

impl Driver for WgpuDriver {
    type Buffer = WgpuBuffer;
    type Kernel = WgpuKernel;
    type Mark = Mark;

    fn alloc(&mut self, bytes: u64) -> Result<WgpuBuffer> {
        self.gpu.health.check()?;
        alloc(&self.gpu, bytes)
    }

    fn free(&mut self, buffer: WgpuBuffer) {
        // Dropping the handle is enough: wgpu keeps the buffer alive while
        // recorded or submitted commands use it. The bind groups that bind
        // it would keep it alive for good, so they go first.
        self.bind_groups.forget_buffer(buffer.id);
        drop(buffer);
    }

    fn write(&mut self, buffer: &WgpuBuffer, offset: u64, data: &[u8]) -> Result<()> {
        self.gpu.health.check()?;
        self.recorder.write(&self.gpu, &buffer.raw, offset, data)
    }

    fn read(&mut self, buffer: &WgpuBuffer, offset: u64, out: &mut [u8]) -> Result<()> {
        self.gpu.health.check()?;
        self.recorder.read(&self.gpu, &buffer.raw, offset, out)
    }

    fn zero(&mut self, buffer: &WgpuBuffer) -> Result<()> {
        self.gpu.health.check()?;
        self.recorder.zero(&self.gpu, &buffer.raw);
        Ok(())
    }

    fn copy(
        &mut self,
        src: &WgpuBuffer,
        src_offset: u64,
        dst: &WgpuBuffer,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        self.gpu.health.check()?;
        self.recorder
            .copy(&self.gpu, &src.raw, src_offset, &dst.raw, dst_offset, bytes);
        Ok(())
    }

    fn compile(&mut self, spec: &KernelSpec, source: Source<'_>) -> Result<WgpuKernel> {
        let Source::Text(wgsl) = source else {
            return Err(Error::Internal(format!(
                "the wgpu driver was handed a non-WGSL source for '{}'",
                spec.label()
            )));
        };
        self.compiler.compile(&self.gpu, spec, wgsl)
    }

    unsafe fn launch(
        &mut self,
        kernel: &WgpuKernel,
        launch: &Launch,
        buffers: &[&WgpuBuffer],
        params: &[u32],
    ) -> Result<()> {
        self.gpu.health.check()?;
        kernel.check_binding_sizes(buffers)?;
        // SAFETY: our caller's contract is `record_unchecked`'s.
        unsafe { self.record_unchecked(kernel, launch, buffers, params) }
    }

    fn flush(&mut self) -> Result<()> {
        self.gpu.health.check()?;
        self.recorder.submit(&self.gpu)
    }

    fn finish(&mut self) -> Result<()> {
        self.gpu.health.check()?;
        self.recorder.finish(&self.gpu)
    }

    fn timestamp(&mut self) -> Result<Option<Mark>> {
        self.gpu.health.check()?;
        Ok(self
            .timer
            .as_mut()
            .map(|timer| timer.mark(&self.gpu, &mut self.recorder)))
    }

    fn elapsed(&mut self, begin: &Mark, end: &Mark) -> Result<Duration> {
        self.gpu.health.check()?;
        match &mut self.timer {
            Some(timer) => timer.elapsed(&self.gpu, &mut self.recorder, begin, end),
            None => Err(Error::Internal(
                "a wgpu device without timestamps was handed a mark".into(),
            )),
        }
    }

    fn diagnostics(&mut self) -> Vec<String> {
        self.gpu.health.take_uncaptured()
    }
}

impl Drop for WgpuDriver {
    fn drop(&mut self) {
        // Let submitted work finish before wgpu tears the device down, and
        // keep what was compiled.
        self.teardown = Some(crate::lifecycle::enter());
        tracing::debug!("wgpu: closing a device");
        if let Err(e) = self.recorder.finish(&self.gpu) {
            tracing::debug!("wgpu: draining the queue on close: {}", e.chain());
        }
        self.bind_groups.clear();
        self.compiler.save();
        tracing::debug!("wgpu: device drained and its pipelines saved");
    }
}
