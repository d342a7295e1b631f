//! Buffers: device-local storage buffers (also copy source and destination),
//! rounded up to 16 bytes and zeroed by wgpu on creation.

use crate::errors::{checked, lock, Health};
use rosetta_core::{BufferId, Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

#[derive(Default)]
pub struct Buffers {
    next: AtomicU64,
    map: Mutex<HashMap<BufferId, wgpu::Buffer>>,
}

impl Buffers {
    /// Allocate `bytes` rounded up to 16 (at least 16: wgpu can't bind an
    /// empty buffer), refusing sizes over `limit` before calling wgpu.
    pub fn alloc(
        &self,
        device: &wgpu::Device,
        health: &Health,
        bytes: u64,
        limit: u64,
    ) -> Result<BufferId> {
        let size = rosetta_core::check_buffer_bytes(bytes, limit)?.max(16);
        let buffer = checked(device, health, "allocating a buffer", || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("rosetta buffer"),
                size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        let id = BufferId(self.next.fetch_add(1, Ordering::Relaxed));
        lock(&self.map).insert(id, buffer);
        Ok(id)
    }

    /// Forget the buffer; wgpu frees it once no recorded or submitted
    /// command uses it any more.
    pub fn free(&self, id: BufferId) -> Option<wgpu::Buffer> {
        lock(&self.map).remove(&id)
    }

    pub fn get(&self, id: BufferId) -> Result<wgpu::Buffer> {
        lock(&self.map)
            .get(&id)
            .cloned()
            .ok_or_else(|| Error::InvalidArgument(format!("unknown wgpu buffer {}", id.0)))
    }
}
