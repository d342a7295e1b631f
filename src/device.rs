//! `Device`: one device of one API, with the op API.

use rosetta_core::ops::{
    check_len, words_to_bytes, Conv1dSpec, Conv2dSpec, Element, HistogramInput, HistogramSpec,
    MatmulSpec, ReduceOp, ReduceSpec,
};
use rosetta_core::{Backend, Buffer, DeviceInfo, Error, Result};
use rosetta_kernels::conv1d::Conv1dPlan;
use rosetta_kernels::conv2d::Conv2dPlan;
use rosetta_kernels::histogram::{HistogramPath, HistogramPlan};
use rosetta_kernels::matmul::MatmulPlan;
use rosetta_kernels::reduce::ReducePlan;
use std::sync::Arc;

/// A device of one API. Cheap to clone (shares the backend).
#[derive(Clone)]
pub struct Device {
    backend: Arc<dyn Backend>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({} {})", self.info().id(), self.info().name)
    }
}

impl Device {
    pub fn new(backend: Arc<dyn Backend>) -> Self {
        Device { backend }
    }

    pub fn info(&self) -> &DeviceInfo {
        self.backend.info()
    }

    /// The backend, for plans and benchmarks that manage buffers themselves.
    pub fn backend(&self) -> &Arc<dyn Backend> {
        &self.backend
    }

    /// Sum, min or max of `x`. Integer sums wrap; f32 min/max propagate NaN;
    /// min/max of an empty slice is [`Error::EmptyReduction`].
    pub fn reduce<T: Element>(&self, x: &[T], op: ReduceOp) -> Result<T> {
        let spec = ReduceSpec {
            elem: T::ELEM,
            op,
            len: x.len(),
        };
        let plan = ReducePlan::new(&self.backend, &spec)?;
        let input = Buffer::from_slice(&self.backend, x)?;
        let output = Buffer::new(&self.backend, 4)?;
        plan.encode(&input, &output)?;
        Ok(output.read::<T>(1)?[0])
    }

    /// Counts of u32 values in `bins` bins (values `>= bins` are not counted).
    pub fn histogram(&self, values: &[u32], bins: u32) -> Result<Vec<u32>> {
        self.histogram_with(values, bins, HistogramPath::Auto)
    }

    /// [`Self::histogram`] with an explicit counting path.
    pub fn histogram_with(
        &self,
        values: &[u32],
        bins: u32,
        path: HistogramPath,
    ) -> Result<Vec<u32>> {
        let spec = HistogramSpec {
            input: HistogramInput::U32,
            len: values.len(),
            bins,
        };
        self.run_histogram(bytemuck::cast_slice(values), &spec, path)
    }

    /// numpy.histogram of f32 values: `bins` equal bins over `[lo, hi]`.
    pub fn histogram_f32(&self, values: &[f32], bins: u32, range: (f64, f64)) -> Result<Vec<u32>> {
        self.histogram_f32_with(values, bins, range, HistogramPath::Auto)
    }

    /// [`Self::histogram_f32`] with an explicit counting path.
    pub fn histogram_f32_with(
        &self,
        values: &[f32],
        bins: u32,
        (lo, hi): (f64, f64),
        path: HistogramPath,
    ) -> Result<Vec<u32>> {
        let spec = HistogramSpec {
            input: HistogramInput::F32 { lo, hi },
            len: values.len(),
            bins,
        };
        self.run_histogram(bytemuck::cast_slice(values), &spec, path)
    }

    fn run_histogram(
        &self,
        words: &[u32],
        spec: &HistogramSpec,
        path: HistogramPath,
    ) -> Result<Vec<u32>> {
        let plan = HistogramPlan::new(&self.backend, spec, path)?;
        let values = Buffer::from_slice(&self.backend, words)?;
        let counts = Buffer::new(&self.backend, words_to_bytes(spec.bins as usize)?)?;
        plan.encode(&values, &counts)?;
        counts.read(spec.bins as usize)
    }

    /// Same-size, zero-border 1-D cross-correlation with an odd filter.
    pub fn conv1d(&self, x: &[f32], taps: &[f32]) -> Result<Vec<f32>> {
        let spec = Conv1dSpec {
            len: x.len(),
            taps: taps.len(),
        };
        let plan = Conv1dPlan::new(&self.backend, &spec)?;
        let input = Buffer::from_slice(&self.backend, x)?;
        let filter = Buffer::from_slice(&self.backend, taps)?;
        let out = Buffer::new(&self.backend, words_to_bytes(x.len())?)?;
        plan.encode(&input, &filter, &out)?;
        out.read(x.len())
    }

    /// Same-size 2-D cross-correlation of a row-major `height × width` image
    /// with a row-major odd `kh × kw` filter.
    pub fn conv2d(&self, image: &[f32], filter: &[f32], spec: &Conv2dSpec) -> Result<Vec<f32>> {
        spec.validate()?;
        let pixels = spec
            .height
            .checked_mul(spec.width)
            .ok_or_else(|| Error::InvalidArgument("image size overflows".into()))?;
        check_len("image", image.len(), pixels)?;
        check_len("filter", filter.len(), spec.kh * spec.kw)?;
        let plan = Conv2dPlan::new(&self.backend, spec)?;
        let input = Buffer::from_slice(&self.backend, image)?;
        let weights = Buffer::from_slice(&self.backend, filter)?;
        let out = Buffer::new(&self.backend, words_to_bytes(pixels)?)?;
        plan.encode(&input, &weights, &out)?;
        out.read(pixels)
    }

    /// `C = A·B` for row-major `A (m×k)` and `B (k×n)`.
    pub fn matmul(&self, a: &[f32], b: &[f32], spec: &MatmulSpec) -> Result<Vec<f32>> {
        spec.validate()?;
        let elems = |r: usize, c: usize| {
            r.checked_mul(c)
                .ok_or_else(|| Error::InvalidArgument("matrix size overflows".into()))
        };
        check_len("A", a.len(), elems(spec.m, spec.k)?)?;
        check_len("B", b.len(), elems(spec.k, spec.n)?)?;
        let out_len = elems(spec.m, spec.n)?;
        let plan = MatmulPlan::new(&self.backend, spec)?;
        let a_buf = Buffer::from_slice(&self.backend, a)?;
        let b_buf = Buffer::from_slice(&self.backend, b)?;
        let c_buf = Buffer::new(&self.backend, words_to_bytes(out_len)?)?;
        plan.encode(&a_buf, &b_buf, &c_buf)?;
        c_buf.read(out_len)
    }
}
