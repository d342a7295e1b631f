//! The ops as methods: on [`DeviceBuffer`] (results stay on the device) and
//! on [`Device`] (slices in, vectors out). Each is one call into the op's
//! folder in `rosetta-kernels`, where everything about the op lives.

use crate::buffer::DeviceBuffer;
use crate::device::Device;
use crate::error::Result;
use rosetta_core::Element;
use rosetta_kernels::reduce::{self, ReduceOp, ReducePlan, ReduceSpec};
use rosetta_kernels::scan::{self, ScanPlan, ScanSpec};

impl<T: Element> DeviceBuffer<T> {
    /// Sum, min or max of the values, as a one-value buffer on the device.
    /// Integer sums wrap; f32 min/max propagate NaN; min/max of nothing is
    /// [`rosetta_core::Error::EmptyReduction`].
    pub fn reduce(&self, op: ReduceOp) -> Result<DeviceBuffer<T>> {
        let backend = self.backend();
        let plan = ReducePlan::new(
            backend,
            &ReduceSpec {
                elem: T::ELEM,
                op,
                len: self.len(),
            },
        )?;
        let out = DeviceBuffer::zeros(backend, 1)?;
        plan.encode(self.raw(), out.raw())?;
        Ok(out)
    }

    /// The inclusive prefix sum (numpy.cumsum), as a new buffer on the
    /// device. Integers wrap; f32 output `i` is within `i·2⁻²⁴·Σ|x_j|` of the
    /// exact prefix sum.
    pub fn scan(&self) -> Result<DeviceBuffer<T>> {
        let backend = self.backend();
        let plan = ScanPlan::new(backend, &ScanSpec { elem: T::ELEM, len: self.len() })?;
        let out = DeviceBuffer::zeros(backend, self.len())?;
        plan.encode(self.raw(), out.raw())?;
        Ok(out)
    }
}

impl Device {
    /// Sum, min or max of `x` (see [`DeviceBuffer::reduce`]).
    pub fn reduce<T: Element>(&self, x: &[T], op: ReduceOp) -> Result<T> {
        Ok(reduce::reduce_slice(self.backend(), x, op)?)
    }

    /// The inclusive prefix sum of `x` (see [`DeviceBuffer::scan`]).
    pub fn scan<T: Element>(&self, x: &[T]) -> Result<Vec<T>> {
        Ok(scan::scan_slice(self.backend(), x)?)
    }
}
