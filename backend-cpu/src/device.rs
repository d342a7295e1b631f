//! The `Backend` impl, tying discovery, buffers, compile, launch and timing.

use crate::buffers::Buffers;
use crate::compile::Cache;
use crate::timing::Timer;
use rosetta_core::{
    check_buffer_bytes, Backend, BufferId, Clock, DeviceInfo, KernelId, KernelSpec, Launch, Result,
};
use std::time::Duration;

pub struct CpuDevice {
    info: DeviceInfo,
    buffers: Buffers,
    cache: Cache,
    timer: Timer,
}

impl CpuDevice {
    pub(crate) fn new(info: DeviceInfo) -> Self {
        CpuDevice {
            info,
            buffers: Buffers::default(),
            cache: Cache::default(),
            timer: Timer::default(),
        }
    }
}

impl Backend for CpuDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn alloc(&self, bytes: u64) -> Result<BufferId> {
        check_buffer_bytes(bytes, self.info.caps.max_buffer_bytes)?;
        self.buffers.alloc(bytes)
    }

    fn free(&self, buffer: BufferId) {
        self.buffers.free(buffer);
    }

    fn write(&self, buffer: BufferId, offset: u64, data: &[u8]) -> Result<()> {
        self.buffers.write(buffer, offset, data)
    }

    fn read(&self, buffer: BufferId, offset: u64, out: &mut [u8]) -> Result<()> {
        self.buffers.read(buffer, offset, out)
    }

    fn zero(&self, buffer: BufferId) -> Result<()> {
        self.buffers.zero(buffer)
    }

    fn compile(&self, spec: &KernelSpec) -> Result<KernelId> {
        self.cache.compile(spec)
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
            compiled.constants[0],
            launch,
            buffers,
            params,
        )?;
        crate::launch::run(&self.buffers, &compiled, launch, buffers, params)
    }

    fn finish(&self) -> Result<()> {
        Ok(())
    }

    fn begin_timer(&self) -> Result<()> {
        self.timer.begin();
        Ok(())
    }

    fn end_timer(&self) -> Result<(Duration, Clock)> {
        self.timer.end()
    }
}
