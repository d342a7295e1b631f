//! The [`Driver`] implementation: memory is host memory, a launch runs to
//! completion before it returns, so queue order is call order and there is
//! nothing to flush or wait for.

use crate::launch::{run, Compiled};
use crate::memory::{poisoned, CpuBuffer};
use rosetta_core::{Api, Driver, Error, KernelSpec, Launch, Result, Source};
use std::time::Duration;

/// The CPU device.
pub(crate) struct CpuDriver;

/// The CPU has no device clock: the checked layer times with the host clock.
pub(crate) enum NoMark {}

impl Driver for CpuDriver {
    type Buffer = CpuBuffer;
    type Kernel = Compiled;
    type Mark = NoMark;

    fn alloc(&mut self, bytes: u64) -> Result<CpuBuffer> {
        CpuBuffer::zeroed(bytes)
    }

    fn free(&mut self, buffer: CpuBuffer) {
        drop(buffer);
    }

    fn write(&mut self, buffer: &CpuBuffer, offset: u64, data: &[u8]) -> Result<()> {
        let mut words = buffer.words.write().map_err(poisoned)?;
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        let start = offset as usize; // inside a host allocation: fits
        bytes[start..start + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn read(&mut self, buffer: &CpuBuffer, offset: u64, out: &mut [u8]) -> Result<()> {
        let words = buffer.words.read().map_err(poisoned)?;
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        let start = offset as usize;
        out.copy_from_slice(&bytes[start..start + out.len()]);
        Ok(())
    }

    fn zero(&mut self, buffer: &CpuBuffer) -> Result<()> {
        buffer.words.write().map_err(poisoned)?.fill(0);
        Ok(())
    }

    fn copy(
        &mut self,
        src: &CpuBuffer,
        src_offset: u64,
        dst: &CpuBuffer,
        dst_offset: u64,
        bytes: u64,
    ) -> Result<()> {
        let from = src.words.read().map_err(poisoned)?;
        let mut to = dst.words.write().map_err(poisoned)?;
        let (s, d, n) = (
            src_offset as usize / 4,
            dst_offset as usize / 4,
            bytes as usize / 4,
        );
        to[d..d + n].copy_from_slice(&from[s..s + n]);
        Ok(())
    }

    fn compile(&mut self, spec: &KernelSpec, source: Source<'_>) -> Result<Compiled> {
        match source {
            Source::Rust(run) => Ok(Compiled {
                name: spec.def().name().to_string(),
                run: run.clone(),
                constants: spec.values().to_vec(),
                bindings: spec.def().bindings().to_vec(),
            }),
            Source::Text(_) => Err(Error::unsupported(
                Api::Cpu,
                format!(
                    "kernel '{}': the CPU runs Rust versions only",
                    spec.def().name()
                ),
            )),
        }
    }

    unsafe fn launch(
        &mut self,
        kernel: &Compiled,
        launch: &Launch,
        buffers: &[&CpuBuffer],
        params: &[u32],
    ) -> Result<()> {
        run(kernel, launch, buffers, params)
    }

    fn finish(&mut self) -> Result<()> {
        Ok(())
    }

    fn timestamp(&mut self) -> Result<Option<NoMark>> {
        Ok(None)
    }

    fn elapsed(&mut self, begin: &NoMark, _: &NoMark) -> Result<Duration> {
        match *begin {}
    }
}
