//! `DeviceBuffer<T>`: typed data that stays on one device, so chains of ops
//! run without a host round trip between them.

use crate::error::Result;
use rosetta_core::{Backend, Buffer, DeviceInfo, Element};
use std::marker::PhantomData;
use std::sync::Arc;

/// `len` values of type `T` on one device. Made by
/// [`crate::Device::upload`] or [`crate::Device::zeros`], or returned by an op;
/// read back with [`DeviceBuffer::to_vec`]. Dropping it returns its memory to
/// the device's pool.
pub struct DeviceBuffer<T: Element> {
    buffer: Buffer,
    len: usize,
    _elem: PhantomData<T>,
}

impl<T: Element> DeviceBuffer<T> {
    /// Wrap a raw buffer holding at least `len` values of `T`.
    pub fn from_raw(buffer: Buffer, len: usize) -> Result<Self> {
        let bytes = rosetta_core::bytes_of(T::ELEM, len)?;
        if buffer.bytes() < bytes {
            return Err(rosetta_core::Error::ShapeMismatch(format!(
                "a buffer of {} bytes cannot hold {len} {} values",
                buffer.bytes(),
                T::ELEM
            ))
            .into());
        }
        Ok(DeviceBuffer {
            buffer,
            len,
            _elem: PhantomData,
        })
    }

    pub(crate) fn upload(backend: &Arc<dyn Backend>, data: &[T]) -> Result<Self> {
        let buffer = Buffer::from_slice(backend, data)?;
        Ok(DeviceBuffer {
            buffer,
            len: data.len(),
            _elem: PhantomData,
        })
    }

    pub(crate) fn zeros(backend: &Arc<dyn Backend>, len: usize) -> Result<Self> {
        let bytes = rosetta_core::bytes_of(T::ELEM, len)?;
        Ok(DeviceBuffer {
            buffer: backend.alloc(bytes)?,
            len,
            _elem: PhantomData,
        })
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device it lives on.
    pub fn device_info(&self) -> &DeviceInfo {
        self.buffer.backend().info()
    }

    /// The untyped buffer (for plans and user kernels).
    pub fn raw(&self) -> &Buffer {
        &self.buffer
    }

    /// The device's backend.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        self.buffer.backend()
    }

    /// Download every value.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.buffer.read(self.len)?)
    }

    /// Overwrite the values from the host (`data.len()` must equal `len`).
    pub fn write(&self, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(rosetta_core::Error::ShapeMismatch(format!(
                "writing {} values into a buffer of {}",
                data.len(),
                self.len
            ))
            .into());
        }
        Ok(self.buffer.write(data)?)
    }

    /// A copy of the `len` values on the same device (only the values: a
    /// buffer wrapped by [`DeviceBuffer::from_raw`] may hold more bytes).
    pub fn try_clone(&self) -> Result<Self> {
        let bytes = rosetta_core::bytes_of(T::ELEM, self.len)?;
        let copy = self.backend().alloc(bytes)?;
        // Copies move whole 4-byte words; both capacities are multiples of
        // 16 at least `bytes`, so the word holding a u8 tail is inside both.
        self.backend()
            .copy(&self.buffer, 0, &copy, 0, bytes.div_ceil(4) * 4)?;
        DeviceBuffer::from_raw(copy, self.len)
    }

    /// Require `other` to live on the same device.
    pub(crate) fn same_device<U: Element>(&self, other: &DeviceBuffer<U>) -> Result<()> {
        if self.buffer.tag() != other.buffer.tag() {
            return Err(rosetta_core::Error::foreign_buffer(
                &other.buffer,
                self.backend().as_ref(),
            )
            .into());
        }
        Ok(())
    }
}

impl<T: Element> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>[{}] on {}",
            T::ELEM,
            self.len,
            self.device_info().id()
        )
    }
}
