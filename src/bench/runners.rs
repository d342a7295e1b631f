//! One workload made ready on one device: inputs uploaded, plan compiled, and
//! a check of the output against the host reference.

use super::workloads::{Params, Workload};
use crate::device::Device;
use rosetta_core::bounds::{dot_bound, sum_bound, within};
use rosetta_core::ops::{
    words_to_bytes, Conv1dSpec, Conv2dSpec, HistogramInput, HistogramSpec, MatmulSpec, ReduceSpec,
};
use rosetta_core::reference::{self, Exact};
use rosetta_core::{inputs, Buffer, Elem, Result};
use rosetta_kernels::conv1d::Conv1dPlan;
use rosetta_kernels::conv2d::Conv2dPlan;
use rosetta_kernels::copy::CopyPlan;
use rosetta_kernels::histogram::{HistogramPath, HistogramPlan};
use rosetta_kernels::matmul::MatmulPlan;
use rosetta_kernels::reduce::ReducePlan;

/// Outputs checked per large result (every output when there are fewer).
const SAMPLED_OUTPUTS: usize = 1 << 16;
const SEED: u64 = 0x5eed_be4c;

pub trait Runner {
    /// Enqueue one run of the op (what the timer measures).
    fn encode(&self) -> Result<()>;
    /// Check the last run's output: `None` if right, else what is wrong.
    fn verify(&self) -> Result<Option<String>>;
}

pub fn prepare(device: &Device, workload: &Workload) -> Result<Box<dyn Runner>> {
    let backend = device.backend();
    Ok(match workload.params {
        Params::Copy { words } => {
            let data = inputs::u32_values(SEED, words);
            Box::new(CopyRunner {
                plan: CopyPlan::new(backend, words)?,
                src: Buffer::from_slice(backend, &data)?,
                dst: Buffer::new(backend, words_to_bytes(words)?)?,
                data,
            })
        }
        Params::Reduce { len, op } => {
            let x = inputs::f32_values(SEED, len);
            let spec = ReduceSpec {
                elem: Elem::F32,
                op,
                len,
            };
            Box::new(ReduceRunner {
                plan: ReducePlan::new(backend, &spec)?,
                input: Buffer::from_slice(backend, &x)?,
                output: Buffer::new(backend, 4)?,
                exact: reference::sum_f32(&x),
                len,
            })
        }
        Params::Histogram { len, bins } => {
            let values = inputs::u32_below(SEED, len, bins);
            let spec = HistogramSpec {
                input: HistogramInput::U32,
                len,
                bins,
            };
            Box::new(HistogramRunner {
                plan: HistogramPlan::new(backend, &spec, HistogramPath::Auto)?,
                values: Buffer::from_slice(backend, &values)?,
                counts: Buffer::new(backend, words_to_bytes(bins as usize)?)?,
                expected: reference::histogram_u32(&values, bins),
            })
        }
        Params::Conv1d { len, taps } => {
            let x = inputs::f32_values(SEED, len);
            let w = inputs::f32_values(SEED ^ 1, taps);
            Box::new(Conv1dRunner {
                plan: Conv1dPlan::new(backend, &Conv1dSpec { len, taps })?,
                input: Buffer::from_slice(backend, &x)?,
                filter: Buffer::from_slice(backend, &w)?,
                out: Buffer::new(backend, words_to_bytes(len)?)?,
                x,
                w,
            })
        }
        Params::Conv2d {
            height,
            width,
            kh,
            kw,
            border,
        } => {
            let spec = Conv2dSpec {
                height,
                width,
                kh,
                kw,
                border,
            };
            let image = inputs::f32_values(SEED, spec.height * spec.width);
            let filter = inputs::f32_values(SEED ^ 1, spec.kh * spec.kw);
            Box::new(Conv2dRunner {
                plan: Conv2dPlan::new(backend, &spec)?,
                input: Buffer::from_slice(backend, &image)?,
                weights: Buffer::from_slice(backend, &filter)?,
                out: Buffer::new(backend, words_to_bytes(image.len())?)?,
                image,
                filter,
            })
        }
        Params::Matmul { m, n, k } => {
            let spec = MatmulSpec { m, k, n };
            let a = inputs::f32_values(SEED, spec.m * spec.k);
            let b = inputs::f32_values(SEED ^ 1, spec.k * spec.n);
            Box::new(MatmulRunner {
                plan: MatmulPlan::new(backend, &spec)?,
                a_buf: Buffer::from_slice(backend, &a)?,
                b_buf: Buffer::from_slice(backend, &b)?,
                c_buf: Buffer::new(backend, words_to_bytes(spec.m * spec.n)?)?,
                a,
                b,
            })
        }
    })
}

/// Output indices to check: all of them, or an even spread plus both ends.
fn checked_indices(len: usize) -> Vec<usize> {
    if len <= SAMPLED_OUTPUTS {
        return (0..len).collect();
    }
    let step = len / SAMPLED_OUTPUTS;
    (0..SAMPLED_OUTPUTS)
        .map(|i| i * step + (inputs::bits(SEED, i as u64) as usize % step))
        .chain([0, len - 1])
        .collect()
}

/// Check sampled outputs under per-output bounds.
fn check_bounded(got: &[f32], k: usize, exact_at: impl Fn(usize) -> Exact) -> Option<String> {
    checked_indices(got.len()).into_iter().find_map(|i| {
        let exact = exact_at(i);
        let bound = dot_bound(k, exact.abs);
        (!within(got[i], exact.value, bound)).then(|| {
            format!(
                "output {i}: got {}, expected {} (bound {bound:.2e})",
                got[i], exact.value
            )
        })
    })
}

struct CopyRunner {
    plan: CopyPlan,
    src: Buffer,
    dst: Buffer,
    data: Vec<u32>,
}

impl Runner for CopyRunner {
    fn encode(&self) -> Result<()> {
        self.plan.encode(&self.src, &self.dst)
    }
    fn verify(&self) -> Result<Option<String>> {
        let got: Vec<u32> = self.dst.read(self.data.len())?;
        Ok(got
            .iter()
            .zip(&self.data)
            .position(|(g, d)| g != d)
            .map(|i| format!("word {i} not copied")))
    }
}

struct ReduceRunner {
    plan: ReducePlan,
    input: Buffer,
    output: Buffer,
    exact: Exact,
    len: usize,
}

impl Runner for ReduceRunner {
    fn encode(&self) -> Result<()> {
        self.plan.encode(&self.input, &self.output)
    }
    fn verify(&self) -> Result<Option<String>> {
        let got: f32 = self.output.read(1)?[0];
        let bound = sum_bound(self.len, self.exact.abs);
        Ok((!within(got, self.exact.value, bound)).then(|| {
            format!(
                "got {got}, expected {} (bound {bound:.2e})",
                self.exact.value
            )
        }))
    }
}

struct HistogramRunner {
    plan: HistogramPlan,
    values: Buffer,
    counts: Buffer,
    expected: Vec<u32>,
}

impl Runner for HistogramRunner {
    fn encode(&self) -> Result<()> {
        self.plan.encode(&self.values, &self.counts)
    }
    fn verify(&self) -> Result<Option<String>> {
        let got: Vec<u32> = self.counts.read(self.expected.len())?;
        Ok(got
            .iter()
            .zip(&self.expected)
            .position(|(g, e)| g != e)
            .map(|i| format!("bin {i}: got {}, expected {}", got[i], self.expected[i])))
    }
}

struct Conv1dRunner {
    plan: Conv1dPlan,
    input: Buffer,
    filter: Buffer,
    out: Buffer,
    x: Vec<f32>,
    w: Vec<f32>,
}

impl Runner for Conv1dRunner {
    fn encode(&self) -> Result<()> {
        self.plan.encode(&self.input, &self.filter, &self.out)
    }
    fn verify(&self) -> Result<Option<String>> {
        let got: Vec<f32> = self.out.read(self.x.len())?;
        Ok(check_bounded(&got, self.w.len(), |i| {
            reference::conv1d_at(&self.x, &self.w, i)
        }))
    }
}

struct Conv2dRunner {
    plan: Conv2dPlan,
    input: Buffer,
    weights: Buffer,
    out: Buffer,
    image: Vec<f32>,
    filter: Vec<f32>,
}

impl Runner for Conv2dRunner {
    fn encode(&self) -> Result<()> {
        self.plan.encode(&self.input, &self.weights, &self.out)
    }
    fn verify(&self) -> Result<Option<String>> {
        let spec = self.plan.spec();
        let got: Vec<f32> = self.out.read(self.image.len())?;
        Ok(check_bounded(&got, spec.kh * spec.kw, |i| {
            reference::conv2d_at(
                &self.image,
                &self.filter,
                spec,
                i / spec.width,
                i % spec.width,
            )
        }))
    }
}

struct MatmulRunner {
    plan: MatmulPlan,
    a_buf: Buffer,
    b_buf: Buffer,
    c_buf: Buffer,
    a: Vec<f32>,
    b: Vec<f32>,
}

impl Runner for MatmulRunner {
    fn encode(&self) -> Result<()> {
        self.plan.encode(&self.a_buf, &self.b_buf, &self.c_buf)
    }
    fn verify(&self) -> Result<Option<String>> {
        let spec = self.plan.spec();
        let got: Vec<f32> = self.c_buf.read(spec.m * spec.n)?;
        Ok(check_bounded(&got, spec.k, |i| {
            reference::matmul_at(&self.a, &self.b, spec, i / spec.n, i % spec.n)
        }))
    }
}
