//! The ops as methods: on [`DeviceBuffer`] (results stay on the device) and
//! on [`Device`] (slices in, vectors out). Each is one call into the op's
//! folder in `rosetta-kernels`, where everything about the op lives.

use crate::buffer::DeviceBuffer;
use crate::device::Device;
use crate::error::Result;
use rosetta_core::Element;
use rosetta_kernels::conv1d::{self, Conv1dPlan, Conv1dSpec};
use rosetta_kernels::conv2d::{self, Conv2dPlan, Conv2dSpec};
use rosetta_kernels::histogram::{self, HistogramInput, HistogramPlan, HistogramSpec};
use rosetta_kernels::matmul::{self, MatmulPlan, MatmulSpec};
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
        let plan = ScanPlan::new(
            backend,
            &ScanSpec {
                elem: T::ELEM,
                len: self.len(),
            },
        )?;
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

impl DeviceBuffer<f32> {
    /// Same-size, zero-border 1-D cross-correlation with an odd filter
    /// (`taps`, not flipped, centred), on the device: a new buffer of this
    /// one's length. Per output within γ_k·Σ|x||w|.
    pub fn conv1d(&self, taps: &DeviceBuffer<f32>) -> Result<DeviceBuffer<f32>> {
        self.same_device(taps)?;
        let spec = Conv1dSpec {
            len: self.len(),
            taps: taps.len(),
        };
        let plan = Conv1dPlan::new(self.backend(), &spec)?;
        let out = DeviceBuffer::zeros(self.backend(), self.len())?;
        plan.encode(self.raw(), taps.raw(), out.raw())?;
        Ok(out)
    }
}

impl<T: Element> DeviceBuffer<T> {
    /// Same-size 2-D cross-correlation of this buffer as a row-major
    /// `height × width` image (f32 or u8 pixels) with a row-major odd
    /// `kh × kw` f32 filter, on the device: a new f32 image. Per output
    /// within γ_k·Σ|x||w|.
    pub fn conv2d(
        &self,
        filter: &DeviceBuffer<f32>,
        spec: &Conv2dSpec,
    ) -> Result<DeviceBuffer<f32>> {
        self.same_device(filter)?;
        spec.validate()?;
        let pixels = spec.pixels()?;
        check_len("image", self.len(), pixels)?;
        check_len("filter", filter.len(), spec.filter_len()?)?;
        let plan = Conv2dPlan::new(self.backend(), spec, T::ELEM)?;
        let out = DeviceBuffer::zeros(self.backend(), pixels)?;
        plan.encode(self.raw(), filter.raw(), out.raw())?;
        Ok(out)
    }
}

impl<T: Element> DeviceBuffer<T> {
    fn count(&self, input: HistogramInput, bins: u32) -> Result<DeviceBuffer<u32>> {
        let spec = HistogramSpec {
            input,
            len: self.len(),
            bins,
        };
        let plan = HistogramPlan::new(self.backend(), &spec)?;
        let counts = DeviceBuffer::zeros(self.backend(), bins as usize)?;
        plan.encode(self.raw(), counts.raw())?;
        Ok(counts)
    }
}

impl DeviceBuffer<u32> {
    /// Counts of the values in `bins` bins (value `v` in bin `v`; values
    /// `>= bins` are not counted), on the device. Exact.
    pub fn histogram(&self, bins: u32) -> Result<DeviceBuffer<u32>> {
        self.count(HistogramInput::U32, bins)
    }
}

impl DeviceBuffer<u8> {
    /// Counts of the bytes in `bins` bins (at most 256; image tools use 256),
    /// on the device. Exact.
    pub fn histogram(&self, bins: u32) -> Result<DeviceBuffer<u32>> {
        self.count(HistogramInput::U8, bins)
    }
}

impl DeviceBuffer<f32> {
    /// numpy.histogram of the values: `bins` equal bins over `[lo, hi]`
    /// (the last bin includes `hi`; NaN and values outside are not
    /// counted; an empty range `lo == hi` widens to `[lo − 0.5, hi + 0.5]`
    /// as in numpy), on the device. Exact.
    pub fn histogram_range(&self, bins: u32, (lo, hi): (f64, f64)) -> Result<DeviceBuffer<u32>> {
        self.count(HistogramInput::f32_range(lo, hi), bins)
    }
}

/// A shape mismatch unless a buffer holds what its spec says.
fn check_len(what: &str, len: usize, expected: usize) -> Result<()> {
    if len != expected {
        return Err(rosetta_core::Error::ShapeMismatch(format!(
            "{what} has {len} elements, its shape says {expected}"
        ))
        .into());
    }
    Ok(())
}

impl Device {
    /// Sum, min or max of `x` (see [`DeviceBuffer::reduce`]).
    pub fn reduce<T: Element>(&self, x: &[T], op: ReduceOp) -> Result<T> {
        Ok(reduce::reduce_slice(self.backend(), x, op)?)
    }

    /// Counts of u32 values in `bins` bins (see [`DeviceBuffer::histogram`]).
    pub fn histogram(&self, values: &[u32], bins: u32) -> Result<Vec<u32>> {
        Ok(histogram::histogram_u32(self.backend(), values, bins)?)
    }

    /// Counts of bytes in `bins` bins (at most 256).
    pub fn histogram_u8(&self, values: &[u8], bins: u32) -> Result<Vec<u32>> {
        Ok(histogram::histogram_u8(self.backend(), values, bins)?)
    }

    /// numpy.histogram of f32 values: `bins` equal bins over `[lo, hi]`.
    pub fn histogram_f32(&self, values: &[f32], bins: u32, range: (f64, f64)) -> Result<Vec<u32>> {
        Ok(histogram::histogram_f32(
            self.backend(),
            values,
            bins,
            range,
        )?)
    }

    /// 1-D convolution of `x` with `taps` (see [`DeviceBuffer::conv1d`]).
    pub fn conv1d(&self, x: &[f32], taps: &[f32]) -> Result<Vec<f32>> {
        Ok(conv1d::conv1d_f32(self.backend(), x, taps)?)
    }

    /// 2-D convolution of an f32 image (see [`DeviceBuffer::conv2d`]).
    pub fn conv2d(&self, image: &[f32], filter: &[f32], spec: &Conv2dSpec) -> Result<Vec<f32>> {
        Ok(conv2d::conv2d_f32(self.backend(), image, filter, spec)?)
    }

    /// 2-D convolution of a u8 image, f32 output (see
    /// [`DeviceBuffer::conv2d`]).
    pub fn conv2d_u8(&self, image: &[u8], filter: &[f32], spec: &Conv2dSpec) -> Result<Vec<f32>> {
        Ok(conv2d::conv2d_u8(self.backend(), image, filter, spec)?)
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
