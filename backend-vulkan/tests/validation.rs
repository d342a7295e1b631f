//! With the Khronos validation layer on (whatever the environment says): a
//! thousand ops of every kind leave the live-object counters where they
//! started and the layer reports nothing.

use rosetta_core::ops::{
    Border, Conv1dSpec, Conv2dSpec, HistogramInput, HistogramSpec, MatmulSpec, ReduceOp, ReduceSpec,
};
use rosetta_core::{inputs, Backend, Buffer};
use rosetta_kernels::conv1d::Conv1dPlan;
use rosetta_kernels::conv2d::Conv2dPlan;
use rosetta_kernels::copy::CopyPlan;
use rosetta_kernels::histogram::{HistogramPath, HistogramPlan};
use rosetta_kernels::matmul::MatmulPlan;
use rosetta_kernels::reduce::ReducePlan;
use std::sync::Arc;

/// One op of kind `i % 7`, allocating, uploading, running and reading back,
/// with every buffer and plan dropped at the end.
fn one_op(device: &Arc<dyn Backend>, i: usize) {
    let n = 1000 + (i * 37) % 5000;
    match i % 7 {
        0 => {
            let x = inputs::f32_values(i as u64, n);
            let spec = ReduceSpec {
                elem: rosetta_core::ops::Elem::F32,
                op: ReduceOp::Sum,
                len: n,
            };
            let plan = ReducePlan::new(device, &spec).unwrap();
            let input = Buffer::from_slice(device, &x).unwrap();
            let out = Buffer::new(device, 4).unwrap();
            plan.encode(&input, &out).unwrap();
            let got = out.read::<f32>(1).unwrap()[0];
            let exact = rosetta_core::reference::sum_f32(&x);
            assert!(rosetta_core::bounds::within(
                got,
                exact.value,
                rosetta_core::bounds::sum_bound(n, exact.abs)
            ));
        }
        1 => {
            let words = inputs::u32_below(i as u64, n, 300);
            let spec = HistogramSpec {
                input: HistogramInput::U32,
                len: n,
                bins: 256,
            };
            let plan = HistogramPlan::new(device, &spec, HistogramPath::Auto).unwrap();
            let values = Buffer::from_slice(device, &words).unwrap();
            let counts = Buffer::new(device, 256 * 4).unwrap();
            plan.encode(&values, &counts).unwrap();
            assert_eq!(
                counts.read::<u32>(256).unwrap(),
                rosetta_core::reference::histogram_u32(&words, 256)
            );
        }
        2 => {
            let spec = Conv1dSpec { len: n, taps: 5 };
            let plan = Conv1dPlan::new(device, &spec).unwrap();
            let x = Buffer::from_slice(device, &inputs::f32_values(1, n)).unwrap();
            let taps = Buffer::from_slice(device, &[0.0f32, 0.0, 1.0, 0.0, 0.0]).unwrap();
            let out = Buffer::new(device, n as u64 * 4).unwrap();
            plan.encode(&x, &taps, &out).unwrap();
            assert_eq!(out.read::<f32>(n).unwrap(), inputs::f32_values(1, n));
        }
        3 => {
            let spec = Conv2dSpec {
                height: 33,
                width: 47,
                kh: 3,
                kw: 3,
                border: Border::Clamp,
            };
            let plan = Conv2dPlan::new(device, &spec).unwrap();
            let img = inputs::f32_values(2, 33 * 47);
            let image = Buffer::from_slice(device, &img).unwrap();
            let filter =
                Buffer::from_slice(device, &[0.0f32, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
                    .unwrap();
            let out = Buffer::new(device, 33 * 47 * 4).unwrap();
            plan.encode(&image, &filter, &out).unwrap();
            assert_eq!(out.read::<f32>(33 * 47).unwrap(), img);
        }
        4 => {
            let spec = MatmulSpec { m: 9, k: 3, n: 5 };
            let plan = MatmulPlan::new(device, &spec).unwrap();
            let a = Buffer::from_slice(device, &[1.0f32; 27]).unwrap();
            let b = Buffer::from_slice(device, &[2.0f32; 15]).unwrap();
            let c = Buffer::new(device, 45 * 4).unwrap();
            plan.encode(&a, &b, &c).unwrap();
            assert_eq!(c.read::<f32>(45).unwrap(), vec![6.0; 45]);
        }
        5 => {
            let words = inputs::u32_values(i as u64, n);
            let plan = CopyPlan::new(device, n).unwrap();
            let src = Buffer::from_slice(device, &words).unwrap();
            let dst = Buffer::new(device, n as u64 * 4).unwrap();
            device.begin_timer().unwrap();
            plan.encode(&src, &dst).unwrap();
            device.end_timer().unwrap();
            assert_eq!(dst.read::<u32>(n).unwrap(), words);
        }
        _ => {
            // Large transfers (staged on discrete GPUs) and a zero.
            let words = inputs::u32_values(i as u64, 70_000);
            let buf = Buffer::from_slice(device, &words).unwrap();
            buf.zero().unwrap();
            buf.write(&words[..100]).unwrap();
            let back = buf.read::<u32>(70_000).unwrap();
            assert_eq!(&back[..100], &words[..100]);
            assert!(back[100..].iter().all(|&w| w == 0));
        }
    }
}

/// Both memory paths: mapped unified memory where the device has it, and
/// staging transfers (forced here, the discrete-GPU path).
fn thousand_ops(force_staging: bool) {
    let options = rosetta_backend_vulkan::Options {
        validation: true,
        force_staging,
    };
    let devices = rosetta_backend_vulkan::discover_devices_with(options)
        .unwrap_or_else(|e| panic!("no Vulkan device with the validation layer: {e}"));
    assert!(!devices.is_empty(), "no Vulkan device");
    for vulkan in devices {
        let device: Arc<dyn Backend> = vulkan.clone();
        assert!(
            device.info().driver.contains("validation"),
            "{}",
            device.info().driver
        );
        if force_staging {
            assert!(!vulkan.unified_memory());
        }
        // Warm up: every kernel compiled, the batch pool and staging in place.
        for i in 0..14 {
            one_op(&device, i);
        }
        device.finish().unwrap();
        let start = vulkan.live_objects();
        for i in 0..1000 {
            one_op(&device, i);
        }
        device.finish().unwrap();
        assert_eq!(
            vulkan.live_objects(),
            start,
            "{}: live objects changed",
            device.info().name
        );
        let diagnostics = device.take_diagnostics();
        assert!(
            diagnostics.is_empty(),
            "validation reported:\n{}",
            diagnostics.join("\n")
        );
    }
}

#[test]
fn thousand_ops_leak_nothing_and_validate_clean() {
    thousand_ops(false);
}

#[test]
fn thousand_ops_through_staging_leak_nothing_and_validate_clean() {
    thousand_ops(true);
}
