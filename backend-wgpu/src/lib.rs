//! wgpu backend
