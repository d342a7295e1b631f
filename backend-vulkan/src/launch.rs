//! Launch: one dispatch recorded into the open batch — a descriptor set with
//! the buffers in `KernelDef::bindings` order, the params as push constants
//! (32-bit words in `KernelDef::params` order), then `vkCmdDispatch`.

use crate::compile::Kernel;
use crate::gpu::Gpu;
use crate::queue::Queue;
use ash::vk;
use rosetta_core::{Launch, Result};

/// Record the dispatch.
pub(crate) fn record(
    gpu: &Gpu,
    queue: &mut Queue,
    kernel: &Kernel,
    launch: &Launch,
    buffers: &[vk::Buffer],
    params: &[u32],
) -> Result<()> {
    let batch = queue.command(gpu)?;
    let set = batch.descriptor_set(gpu, kernel.set_layout, buffers)?;
    gpu.cmd_dispatch(
        batch.cmd,
        kernel.pipeline,
        kernel.layout,
        set,
        bytemuck::cast_slice(params),
        launch.groups,
    );
    Ok(())
}
