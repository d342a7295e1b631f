//! Op chains, timed two ways: with the data staying on the device
//! ([`crate::DeviceBuffer`]) and through host slices (every intermediate
//! downloaded and uploaded again) — what the device-resident API saves.
//!
//! The chain is a 5×5 blur of an image followed by the sum of the blurred
//! pixels (`conv2d` → `reduce`). Both ways are charted by time; compare
//! their host (end-to-end) times, which include the transfers.

use crate::device::Device;
use crate::{Border, Conv2dSpec, DeviceBuffer, ReduceOp};
use rosetta_core::{bounds, inputs, Backend, DeviceInfo, Result};
use rosetta_kernels::conv2d::conv2d_reference;
use rosetta_kernels::op::{big_log2, Metric, Prepared, Size, Workload};
use std::sync::Arc;

/// The image side of a preset: 8192 on GPUs at `large`.
fn side(size: Size, device: &DeviceInfo) -> usize {
    1 << (big_log2(size, device).div_ceil(2) - 1).max(8)
}

struct Chain {
    device: Device,
    spec: Conv2dSpec,
    image: Vec<f32>,
    filter: Vec<f32>,
    on_device: Option<(DeviceBuffer<f32>, DeviceBuffer<f32>)>,
    last: f32,
}

impl Chain {
    fn new(backend: &Arc<dyn Backend>, side: usize, resident: bool) -> Result<Self> {
        let device = Device::new(Arc::clone(backend));
        let spec = Conv2dSpec {
            height: side,
            width: side,
            kh: 5,
            kw: 5,
            border: Border::Zero,
        };
        let image = inputs::f32_values_in(0x5eed_c4a1, side * side, 0.0, 1.0);
        let filter = vec![1.0 / 25.0; 25];
        let on_device = if resident {
            let up = |v: &[f32]| device.upload(v).map_err(into_core);
            Some((up(&image)?, up(&filter)?))
        } else {
            None
        };
        Ok(Chain {
            device,
            spec,
            image,
            filter,
            on_device,
            last: f32::NAN,
        })
    }
}

fn into_core(e: crate::Error) -> rosetta_core::Error {
    match e {
        crate::Error::Device(e) => e,
        other => rosetta_core::Error::Internal(other.chain()),
    }
}

impl Prepared for Chain {
    fn run(&mut self) -> Result<()> {
        self.last = match &self.on_device {
            Some((image, filter)) => {
                let blurred = image.conv2d(filter, &self.spec).map_err(into_core)?;
                let sum = blurred.reduce(ReduceOp::Sum).map_err(into_core)?;
                sum.to_vec().map_err(into_core)?[0]
            }
            None => {
                let blurred = self
                    .device
                    .conv2d(&self.image, &self.filter, &self.spec)
                    .map_err(into_core)?;
                self.device
                    .reduce(&blurred, ReduceOp::Sum)
                    .map_err(into_core)?
            }
        };
        Ok(())
    }

    fn verify(&mut self) -> Result<Option<String>> {
        // The exact sum of the exact blur, and a bound covering both steps:
        // each pixel's error (γ_25·Σ|x||w|) plus the sum's own rounding.
        let exact = conv2d_reference(&self.image, &self.filter, &self.spec);
        let value: f64 = exact.iter().map(|e| e.value).sum();
        let pixel_errors: f64 = exact.iter().map(|e| bounds::dot_bound(25, e.abs)).sum();
        let abs: f64 = exact
            .iter()
            .map(|e| e.value.abs() + bounds::dot_bound(25, e.abs))
            .sum();
        let bound = pixel_errors + bounds::sum_bound(exact.len(), abs);
        Ok((!bounds::within(self.last, value, bound))
            .then(|| format!("got {}, expected {value} (bound {bound:.2e})", self.last)))
    }

    fn variant(&self) -> String {
        if self.on_device.is_some() {
            "device buffers"
        } else {
            "host slices"
        }
        .into()
    }
}

/// The chain workloads for a device: the same chain on device buffers and
/// through host slices.
pub fn workloads(size: Size, device: &DeviceInfo) -> Vec<Workload> {
    let side = side(size, device);
    let pixels = (side * side) as u64;
    [true, false]
        .into_iter()
        .map(|resident| {
            let how = if resident {
                "device buffers"
            } else {
                "host slices"
            };
            Workload::new(
                "chain",
                format!("blur {side}x{side} then sum, {how}"),
                format!("blur then sum, {how}"),
                pixels,
                // The least traffic of the chain on the device: the image
                // read and the blurred image written and read.
                3 * pixels * 4,
                Some(2 * pixels * 25 + pixels),
                Metric::Time,
                move |backend, _| {
                    Ok(Box::new(Chain::new(backend, side, resident)?) as Box<dyn Prepared>)
                },
            )
        })
        .collect()
}
