//! Launch (checked against the kernel and the device by the caller, so
//! nothing invalid reaches wgpu): bind the buffers in `KernelDef::bindings`
//! order and the params slot at binding `bindings.len()`, and record one
//! compute pass.
//!
//! Bind groups are cached per (kernel layout, buffers), so a benchmark loop
//! re-launching the same plan creates none; freeing a buffer drops the bind
//! groups that use it.

use crate::buffers::Buffers;
use crate::compile::Compiled;
use crate::device::Gpu;
use crate::errors::{checked, lock};
use crate::queue::Recorder;
use rosetta_core::{BufferId, Launch, Result};
use std::collections::HashMap;
use std::sync::Mutex;

/// Bind groups by (layout id, buffer ids).
#[derive(Default)]
pub struct BindGroups {
    map: Mutex<HashMap<(usize, Vec<BufferId>), wgpu::BindGroup>>,
}

impl BindGroups {
    /// Forget every bind group that uses `buffer`.
    pub fn forget(&self, buffer: BufferId) {
        lock(&self.map).retain(|(_, ids), _| !ids.contains(&buffer));
    }

    fn get_or_create(
        &self,
        gpu: &Gpu,
        kernel: &Compiled,
        ids: &[BufferId],
        buffers: &[wgpu::Buffer],
        arena: &wgpu::Buffer,
        params_bytes: u64,
    ) -> Result<wgpu::BindGroup> {
        let key = (kernel.layout.id, ids.to_vec());
        if let Some(group) = lock(&self.map).get(&key) {
            return Ok(group.clone());
        }
        let mut entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, buffer)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: buffer.as_entire_binding(),
            })
            .collect();
        entries.push(wgpu::BindGroupEntry {
            binding: buffers.len() as u32,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: arena,
                offset: 0,
                size: wgpu::BufferSize::new(params_bytes),
            }),
        });
        let group = checked(&gpu.device, &gpu.health, "creating a bind group", || {
            gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(kernel.def.name),
                layout: &kernel.layout.bind_group,
                entries: &entries,
            })
        })?;
        lock(&self.map).insert(key, group.clone());
        Ok(group)
    }
}

/// Bytes of a kernel's params binding: its words, rounded up to 16 (a
/// uniform struct's size), at least 16.
pub fn params_binding_bytes(words: usize) -> u64 {
    ((words as u64 * 4).div_ceil(16)).max(1) * 16
}

/// Check and record one launch.
#[allow(clippy::too_many_arguments)]
pub fn record(
    gpu: &Gpu,
    recorder: &Mutex<Recorder>,
    buffers: &Buffers,
    bind_groups: &BindGroups,
    kernel: &Compiled,
    launch: &Launch,
    ids: &[BufferId],
    params: &[u32],
) -> Result<()> {
    let resolved = ids
        .iter()
        .map(|&id| buffers.get(id))
        .collect::<Result<Vec<_>>>()?;

    let params_bytes = params_binding_bytes(params.len());
    let mut recorder = lock(recorder);
    let group =
        bind_groups.get_or_create(gpu, kernel, ids, &resolved, recorder.arena(), params_bytes)?;
    let offset = recorder.stage_params(gpu, params, params_bytes)?;
    recorder.dispatch(
        gpu,
        &kernel.key,
        &kernel.pipeline,
        &group,
        offset,
        launch.groups,
    );
    Ok(())
}
