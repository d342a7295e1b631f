//! The bind-group cache: a benchmark loop that re-launches one plan on the
//! same buffers creates no bind group after the first launch.
//!
//! Entries are keyed by the layout's id and the ids of the bound buffers,
//! both unique for the life of the process (never an address, never an id
//! that comes back), so a new allocation can never hit an entry of a freed
//! one. An entry also holds its buffers alive (wgpu bind groups reference
//! them), so freeing a buffer drops every entry that binds it, through an
//! index from buffer id to entries. Buffers parked in the checked layer's
//! pool are not freed: their entries stay valid, since a pooled buffer is
//! the same wgpu buffer when it comes back.

use crate::compile::Layout;
use crate::gpu::Gpu;
use crate::memory::WgpuBuffer;
use rosetta_core::Result;
use std::collections::HashMap;

/// Entries kept at most; past that the cache starts over.
const MAX_ENTRIES: usize = 4096;

/// (layout id, buffer ids in binding order).
type Key = (u64, Vec<u64>);

/// Bind groups by layout and buffers, with an index by buffer.
#[derive(Default)]
pub(crate) struct BindGroups {
    groups: HashMap<Key, wgpu::BindGroup>,
    /// The keys of the entries that bind each buffer.
    by_buffer: HashMap<u64, Vec<Key>>,
}

impl BindGroups {
    /// The bind group of `buffers` (in order) and the params arena for
    /// `layout`, created on first use.
    pub(crate) fn get_or_create(
        &mut self,
        gpu: &Gpu,
        layout: &Layout,
        buffers: &[&WgpuBuffer],
        arena: &wgpu::Buffer,
    ) -> Result<wgpu::BindGroup> {
        let key: Key = (layout.id, buffers.iter().map(|b| b.id).collect());
        if let Some(group) = self.groups.get(&key) {
            return Ok(group.clone());
        }
        let mut entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, buffer)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: buffer.raw.as_entire_binding(),
            })
            .collect();
        entries.push(wgpu::BindGroupEntry {
            binding: buffers.len() as u32,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: arena,
                offset: 0,
                size: wgpu::BufferSize::new(layout.params_bytes),
            }),
        });
        let group = gpu.checked("wgpu::Device::create_bind_group", || {
            gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("rosetta launch bindings"),
                layout: &layout.bind_group,
                entries: &entries,
            })
        })?;
        if self.groups.len() >= MAX_ENTRIES {
            self.clear();
        }
        for buffer in buffers {
            self.by_buffer
                .entry(buffer.id)
                .or_default()
                .push(key.clone());
        }
        self.groups.insert(key, group.clone());
        Ok(group)
    }

    /// Drop every entry that binds the buffer `id` (it is being freed).
    pub(crate) fn forget_buffer(&mut self, id: u64) {
        for key in self.by_buffer.remove(&id).unwrap_or_default() {
            if self.groups.remove(&key).is_some() {
                for other in key.1.iter().filter(|&&other| other != id) {
                    if let Some(keys) = self.by_buffer.get_mut(other) {
                        keys.retain(|k| k != &key);
                        if keys.is_empty() {
                            self.by_buffer.remove(other);
                        }
                    }
                }
            }
        }
    }

    /// Drop every entry.
    pub(crate) fn clear(&mut self) {
        self.groups.clear();
        self.by_buffer.clear();
    }

    /// Entries held (tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.groups.len()
    }
}
