//! Buffers: storage buffers that are also copy sources and destinations,
//! zeroed by wgpu on creation, each with an identity that is never reused
//! (the key of the bind-group cache).

use crate::gpu::Gpu;
use rosetta_core::Result;
use std::sync::atomic::{AtomicU64, Ordering};

/// One allocation.
pub(crate) struct WgpuBuffer {
    pub(crate) raw: wgpu::Buffer,
    /// Unique among every buffer this process allocates, for its whole life
    /// (a 64-bit counter does not wrap): a freed buffer's id never comes
    /// back, even where wgpu reuses its memory.
    pub(crate) id: u64,
}

/// Allocate `bytes` (the checked layer guarantees a multiple of 16 within
/// the device's limit). wgpu zero-initialises new buffers.
pub(crate) fn alloc(gpu: &Gpu, bytes: u64) -> Result<WgpuBuffer> {
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    let raw = gpu.checked("wgpu::Device::create_buffer", || {
        gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("rosetta buffer"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    })?;
    Ok(WgpuBuffer {
        raw,
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
    })
}
