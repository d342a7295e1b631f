//! Recording one launch (checked by the checked layer, so nothing invalid
//! reaches wgpu): the bind group of its buffers and params slot, the params
//! staged in the arena, one dispatch in the recorder's open compute pass.

use crate::bindings::BindGroups;
use crate::compile::WgpuKernel;
use crate::gpu::Gpu;
use crate::memory::WgpuBuffer;
use crate::queue::Recorder;
use rosetta_core::{Launch, Result};

/// Record one dispatch of `kernel` into the pending batch.
///
/// # Safety
/// The contract of `Driver::launch`: the caller guarantees that the kernel,
/// with these params and this launch, stays inside the bound buffers and
/// terminates (its pipeline may come from a module without forced loop
/// bounding), and that `buffers` and `params` match its interface.
pub(crate) unsafe fn record(
    gpu: &Gpu,
    recorder: &mut Recorder,
    bind_groups: &mut BindGroups,
    kernel: &WgpuKernel,
    launch: &Launch,
    buffers: &[&WgpuBuffer],
    params: &[u32],
) -> Result<()> {
    let group = bind_groups.get_or_create(gpu, &kernel.layout, buffers, recorder.arena())?;
    let offset = recorder.stage_params(gpu, params, kernel.layout.params_bytes)?;
    // SAFETY: termination of this dispatch, with the params just staged at
    // `offset` and `launch.groups`, is what our own caller guarantees.
    unsafe {
        recorder.dispatch(
            gpu,
            &kernel.label,
            &kernel.pipeline,
            &group,
            offset,
            launch.groups,
        );
    }
    Ok(())
}
