//! The ops as methods: on [`DeviceBuffer`] (results stay on the device) and
//! on [`Device`] (slices in, vectors out). Each is one call into the op's
//! folder in `rosetta-kernels`, where everything about the op lives.

use crate::buffer::DeviceBuffer;
use crate::device::Device;
use crate::error::Result;
use rosetta_core::Element;
use rosetta_kernels::reduce::{self, ReduceOp, ReducePlan, ReduceSpec};
use rosetta_kernels::matmul::{self, MatmulPlan, MatmulSpec};
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

impl DeviceBuffer<f32> {
    /// `C = A·B` with this buffer as row-major `A (m×k)` and `b` as `B
    /// (k×n)`, on the device: a new `m·n` buffer. Per element within
    /// γ_K·Σ|a||b| of the exact product.
    pub fn matmul(&self, b: &DeviceBuffer<f32>, spec: &MatmulSpec) -> Result<DeviceBuffer<f32>> {
        self.same_device(b)?;
        spec.validate()?;
        spec.check_lengths(self.len(), b.len())?;
        let [_, _, elements_c] = spec.elements()?;
        let plan = MatmulPlan::new(self.backend(), spec)?;
        let c = DeviceBuffer::zeros(self.backend(), elements_c as usize)?;
        plan.encode(self.raw(), b.raw(), c.raw())?;
        Ok(c)
    }
}

impl Device {
    /// Sum, min or max of `x` (see [`DeviceBuffer::reduce`]).
    pub fn reduce<T: Element>(&self, x: &[T], op: ReduceOp) -> Result<T> {
        Ok(reduce::reduce_slice(self.backend(), x, op)?)
    }

    /// `C = A·B` for row-major `A (m×k)` and `B (k×n)` (see
    /// [`DeviceBuffer::matmul`]).
    pub fn matmul(&self, a: &[f32], b: &[f32], spec: &MatmulSpec) -> Result<Vec<f32>> {
        Ok(matmul::matmul_f32(self.backend(), a, b, spec)?)
    }

    /// The inclusive prefix sum of `x` (see [`DeviceBuffer::scan`]).
    pub fn scan<T: Element>(&self, x: &[T]) -> Result<Vec<T>> {
        Ok(scan::scan_slice(self.backend(), x)?)
    }
}
