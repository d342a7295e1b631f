//! A device buffer that frees itself: the safe handle plans and the facade use.

use crate::backend::{Backend, BufferId};
use crate::error::{Error, Result};
use std::sync::Arc;

/// Owns one allocation on one backend; freed on drop.
pub struct Buffer {
    backend: Arc<dyn Backend>,
    id: BufferId,
    bytes: u64,
}

impl Buffer {
    /// Allocate `bytes` (zeroed), refusing sizes over the device's limit.
    pub fn new(backend: &Arc<dyn Backend>, bytes: u64) -> Result<Self> {
        crate::check_buffer_bytes(bytes, backend.info().caps.max_buffer_bytes)?;
        let id = backend.alloc(bytes)?;
        Ok(Buffer {
            backend: Arc::clone(backend),
            id,
            bytes,
        })
    }

    /// Allocate and upload a slice of 32-bit values.
    pub fn from_slice<T: bytemuck::Pod>(backend: &Arc<dyn Backend>, data: &[T]) -> Result<Self> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let buffer = Buffer::new(backend, bytes.len() as u64)?;
        if !bytes.is_empty() {
            backend.write(buffer.id, 0, bytes)?;
        }
        Ok(buffer)
    }

    pub fn id(&self) -> BufferId {
        self.id
    }

    /// The size asked for (the allocation may be rounded up).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Overwrite the start of the buffer.
    pub fn write<T: bytemuck::Pod>(&self, data: &[T]) -> Result<()> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if bytes.len() as u64 > self.bytes {
            return Err(Error::ShapeMismatch(format!(
                "writing {} bytes into a buffer of {}",
                bytes.len(),
                self.bytes
            )));
        }
        if bytes.is_empty() {
            return Ok(());
        }
        self.backend.write(self.id, 0, bytes)
    }

    /// Download the first `len` values.
    pub fn read<T: bytemuck::Pod + Default>(&self, len: usize) -> Result<Vec<T>> {
        let mut out = vec![T::default(); len];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut out);
        if bytes.len() as u64 > self.bytes {
            return Err(Error::ShapeMismatch(format!(
                "reading {} bytes from a buffer of {}",
                bytes.len(),
                self.bytes
            )));
        }
        if !bytes.is_empty() {
            self.backend.read(self.id, 0, bytes)?;
        }
        Ok(out)
    }

    pub fn zero(&self) -> Result<()> {
        self.backend.zero(self.id)
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        self.backend.free(self.id);
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("api", &self.backend.info().api)
            .field("id", &self.id)
            .field("bytes", &self.bytes)
            .finish()
    }
}
