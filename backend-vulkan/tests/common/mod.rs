//! Shared by the device tests: every device `discover()` finds (failing, not
//! skipping, when there is none), one run helper per op, and the check that
//! the validation layer (when on) reported nothing.

#![allow(dead_code)]

use rosetta_core::ops::{Conv1dSpec, Conv2dSpec, HistogramSpec, MatmulSpec, ReduceSpec};
use rosetta_core::ops::{Element, ReduceOp};
use rosetta_core::{Backend, Buffer, Result};
use rosetta_kernels::conv1d::Conv1dPlan;
use rosetta_kernels::conv2d::Conv2dPlan;
use rosetta_kernels::copy::CopyPlan;
use rosetta_kernels::histogram::{HistogramPath, HistogramPlan};
use rosetta_kernels::matmul::{MatmulPlan, Tiling};
use rosetta_kernels::reduce::ReducePlan;
use std::sync::{Arc, OnceLock};

/// Every Vulkan device of this machine (discovered once per test binary).
/// Panics, failing the test, when there is none.
pub fn devices() -> &'static [Arc<dyn Backend>] {
    static DEVICES: OnceLock<Vec<Arc<dyn Backend>>> = OnceLock::new();
    DEVICES.get_or_init(|| {
        let found = rosetta_backend_vulkan::discover()
            .unwrap_or_else(|e| panic!("no Vulkan device found: {e}"));
        assert!(!found.is_empty(), "discover() returned no Vulkan device");
        found
    })
}

/// Run `f` on every device, then require that the validation layer (if on)
/// reported nothing.
pub fn on_every_device(f: impl Fn(&Arc<dyn Backend>)) {
    for device in devices() {
        f(device);
        assert_clean(device);
    }
}

pub fn assert_clean(device: &Arc<dyn Backend>) {
    let diagnostics = device.take_diagnostics();
    assert!(
        diagnostics.is_empty(),
        "{}: the validation layer reported:\n{}",
        device.info().name,
        diagnostics.join("\n")
    );
}

pub fn name(device: &Arc<dyn Backend>) -> String {
    format!("{} ({})", device.info().id(), device.info().name)
}

pub fn reduce<T: Element>(device: &Arc<dyn Backend>, data: &[T], op: ReduceOp) -> Result<T> {
    let spec = ReduceSpec {
        elem: T::ELEM,
        op,
        len: data.len(),
    };
    let plan = ReducePlan::new(device, &spec)?;
    let input = Buffer::from_slice(device, data)?;
    let output = Buffer::new(device, 4)?;
    plan.encode(&input, &output)?;
    Ok(output.read::<T>(1)?[0])
}

pub fn histogram(
    device: &Arc<dyn Backend>,
    spec: &HistogramSpec,
    words: &[u32],
    path: HistogramPath,
) -> Result<(Vec<u32>, bool)> {
    let plan = HistogramPlan::new(device, spec, path)?;
    let values = Buffer::from_slice(device, words)?;
    let counts = Buffer::new(device, u64::from(spec.bins) * 4)?;
    plan.encode(&values, &counts)?;
    Ok((counts.read(spec.bins as usize)?, plan.privatized()))
}

pub fn conv1d(device: &Arc<dyn Backend>, x: &[f32], taps: &[f32]) -> Result<Vec<f32>> {
    let spec = Conv1dSpec {
        len: x.len(),
        taps: taps.len(),
    };
    let plan = Conv1dPlan::new(device, &spec)?;
    let xb = Buffer::from_slice(device, x)?;
    let tb = Buffer::from_slice(device, taps)?;
    let out = Buffer::new(device, x.len() as u64 * 4)?;
    plan.encode(&xb, &tb, &out)?;
    out.read(x.len())
}

pub fn conv2d(
    device: &Arc<dyn Backend>,
    spec: &Conv2dSpec,
    image: &[f32],
    filter: &[f32],
) -> Result<Vec<f32>> {
    let plan = Conv2dPlan::new(device, spec)?;
    let ib = Buffer::from_slice(device, image)?;
    let fb = Buffer::from_slice(device, filter)?;
    let out = Buffer::new(device, image.len() as u64 * 4)?;
    plan.encode(&ib, &fb, &out)?;
    out.read(image.len())
}

pub fn matmul(
    device: &Arc<dyn Backend>,
    spec: &MatmulSpec,
    a: &[f32],
    b: &[f32],
    tiling: Option<Tiling>,
) -> Result<Vec<f32>> {
    let plan = MatmulPlan::with_tiling(device, spec, tiling)?;
    let ab = Buffer::from_slice(device, a)?;
    let bb = Buffer::from_slice(device, b)?;
    let c = Buffer::new(device, (spec.m * spec.n) as u64 * 4)?;
    plan.encode(&ab, &bb, &c)?;
    c.read(spec.m * spec.n)
}

pub fn copy(device: &Arc<dyn Backend>, words: &[u32]) -> Result<Vec<u32>> {
    let plan = CopyPlan::new(device, words.len())?;
    let src = Buffer::from_slice(device, words)?;
    let dst = Buffer::new(device, words.len() as u64 * 4)?;
    plan.encode(&src, &dst)?;
    dst.read(words.len())
}
