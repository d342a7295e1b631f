//! The Backend contract on every wgpu device: discovery and capabilities,
//! buffers, queue order, typed errors, compile errors, timers.

mod common;

use common::{devices, each_device};
use rosetta_core::workgroup::{Bindings, Group};
use rosetta_core::{
    Access, Api, Backend, Buffer, Clock, Error, KernelDef, KernelSpec, Launch, Sources,
};
use rosetta_kernels::copy::CopyPlan;
use std::sync::Arc;

#[test]
fn discovery_reports_real_devices() {
    let devices = devices();
    for (index, device) in devices.iter().enumerate() {
        let info = device.info();
        assert_eq!(info.api, Api::Wgpu);
        assert_eq!(info.index, index);
        assert!(
            info.name.ends_with(')'),
            "name names the wgpu backend: {}",
            info.name
        );
        let caps = &info.caps;
        assert!(caps.max_shared_bytes >= 16 << 10, "{caps:?}");
        assert!(caps.max_group_invocations >= 256, "{caps:?}");
        assert!(
            caps.max_group_size[0] >= 256 && caps.max_groups[0] >= 65_535,
            "{caps:?}"
        );
        assert!(caps.max_buffer_bytes >= 128 << 20, "{caps:?}");
        assert_eq!(caps.max_buffer_bytes % 16, 0);
        assert_eq!(caps.subgroup_ops, caps.subgroup_sizes.is_some());
        if let Some([min, max]) = caps.subgroup_sizes {
            assert!(min >= 1 && min <= max && max.is_power_of_two(), "{caps:?}");
        }
    }
    // The machines rosetta runs on have a Vulkan driver (lavapipe at least).
    assert!(
        devices.iter().any(|d| d.info().name.ends_with("(Vulkan)")),
        "no Vulkan adapter among {:?}",
        devices
            .iter()
            .map(|d| d.info().name.clone())
            .collect::<Vec<_>>()
    );
}

#[test]
fn buffers_are_zeroed_rounded_and_offsettable() {
    each_device(|device| {
        let id = device.alloc(4).unwrap();
        // Rounded up to 16 bytes, zeroed.
        let mut out = [0xffu8; 16];
        device.read(id, 0, &mut out).unwrap();
        assert_eq!(out, [0; 16]);
        device.write(id, 8, &7u32.to_le_bytes()).unwrap();
        let mut word = [0u8; 4];
        device.read(id, 8, &mut word).unwrap();
        assert_eq!(u32::from_le_bytes(word), 7);
        // Unaligned or out-of-range requests are refused.
        assert!(matches!(
            device.write(id, 2, &[0; 4]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            device.read(id, 0, &mut [0; 3]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            device.read(id, 16, &mut [0; 4]),
            Err(Error::InvalidArgument(_))
        ));
        device.free(id);
        assert!(matches!(
            device.read(id, 0, &mut word),
            Err(Error::InvalidArgument(_))
        ));

        // Empty allocations work too.
        let empty = device.alloc(0).unwrap();
        device.read(empty, 0, &mut []).unwrap();
        device.free(empty);

        // Over the limit: refused before wgpu sees it.
        let limit = device.info().caps.max_buffer_bytes;
        assert!(matches!(
            device.alloc(limit + 1),
            Err(Error::ExceedsLimit { .. })
        ));
        assert!(matches!(
            Buffer::new(device, u64::MAX),
            Err(Error::ExceedsLimit { .. })
        ));
    });
}

#[test]
fn large_buffers_round_trip() {
    each_device(|device| {
        // Larger than one staging chunk (64 MiB), with an offset.
        let words: Vec<u32> = (0..(17u32 << 20) + 5)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let buffer = Buffer::new(device, words.len() as u64 * 4 + 64).unwrap();
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        device.write(buffer.id(), 64, bytes).unwrap();
        let mut back = vec![0u8; bytes.len()];
        device.read(buffer.id(), 64, &mut back).unwrap();
        assert!(
            back == bytes,
            "{}: large round trip differs",
            device.info().name
        );
    });
}

#[test]
fn calls_take_effect_in_queue_order() {
    each_device(|device| {
        let n = 1000;
        let plan = CopyPlan::new(device, n).unwrap();
        let a = Buffer::from_slice(device, &vec![1u32; n]).unwrap();
        let b = Buffer::new(device, n as u64 * 4).unwrap();
        let c = Buffer::new(device, n as u64 * 4).unwrap();
        // copy a->b, overwrite a, copy a->c, zero a: b keeps the first copy,
        // c sees the overwrite, a ends zeroed.
        plan.encode(&a, &b).unwrap();
        a.write(&vec![2u32; n]).unwrap();
        plan.encode(&a, &c).unwrap();
        a.zero().unwrap();
        assert_eq!(b.read::<u32>(n).unwrap(), vec![1; n]);
        assert_eq!(c.read::<u32>(n).unwrap(), vec![2; n]);
        assert_eq!(a.read::<u32>(n).unwrap(), vec![0; n]);
        // zero then launch: the launch sees the zeroes.
        c.zero().unwrap();
        plan.encode(&c, &b).unwrap();
        assert_eq!(b.read::<u32>(n).unwrap(), vec![0; n]);
        // Many launches in one batch (more than the params arena holds).
        let x = Buffer::from_slice(device, &vec![5u32; n]).unwrap();
        for i in 0..600 {
            if i % 2 == 0 {
                plan.encode(&x, &b).unwrap();
            } else {
                plan.encode(&b, &c).unwrap();
            }
        }
        device.finish().unwrap();
        assert_eq!(c.read::<u32>(n).unwrap(), vec![5; n]);
    });
}

#[test]
fn freed_buffers_in_flight_are_safe() {
    each_device(|device| {
        let n = 4096;
        let plan = CopyPlan::new(device, n).unwrap();
        let out = Buffer::new(device, n as u64 * 4).unwrap();
        {
            let src = Buffer::from_slice(device, &vec![9u32; n]).unwrap();
            plan.encode(&src, &out).unwrap();
            // `src` is freed here, before the batch is submitted.
        }
        assert_eq!(out.read::<u32>(n).unwrap(), vec![9; n]);
    });
}

fn no_cpu(_: &mut Group<'_>, _: &Bindings<'_>) {}

static BROKEN: KernelDef = KernelDef {
    name: "broken",
    constants: &["GROUP_SIZE"],
    bindings: &[Access::ReadWrite],
    params: &["n"],
    dynamic_shared: false,
    sources: Sources {
        wgsl: "override GROUP_SIZE: u32;\n@compute @workgroup_size(GROUP_SIZE)\nfn broken() { let x: u32 = undefined_name; }\n",
        cuda: "",
        glsl: "",
        opencl: "",
    },
    cpu: no_cpu,
};

static TOO_BIG: KernelDef = KernelDef {
    name: "too_big",
    constants: &["GROUP_SIZE", "WORDS"],
    bindings: &[Access::ReadWrite],
    params: &["n"],
    dynamic_shared: false,
    sources: Sources {
        wgsl: "override GROUP_SIZE: u32;\noverride WORDS: u32;\nstruct Params { n: u32 }\n\
               @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
               @group(0) @binding(1) var<uniform> params: Params;\n\
               var<workgroup> big: array<u32, WORDS>;\n\
               @compute @workgroup_size(GROUP_SIZE)\nfn too_big(@builtin(local_invocation_index) lid: u32) {\n\
               big[lid] = lid; workgroupBarrier(); out[lid] = big[WORDS - 1u - lid] + params.n; }\n",
        cuda: "",
        glsl: "",
        opencl: "",
    },
    cpu: no_cpu,
};

#[test]
fn compile_errors_carry_the_log() {
    each_device(|device| {
        let spec = KernelSpec::new(&BROKEN, &[("GROUP_SIZE", 64)]).unwrap();
        match device.compile(&spec) {
            Err(Error::Compile { api, kernel, log }) => {
                assert_eq!(api, Api::Wgpu);
                assert_eq!(kernel, "broken");
                assert!(
                    log.contains("undefined_name"),
                    "log lacks the culprit: {log}"
                );
            }
            other => panic!("expected a compile error, got {other:?}"),
        }
        // Workgroup memory over the device limit (sized by a constant) is
        // refused before the pipeline reaches the driver.
        let words = device.info().caps.max_shared_bytes / 4 + 1;
        let spec = KernelSpec::new(&TOO_BIG, &[("GROUP_SIZE", 64), ("WORDS", words)]).unwrap();
        let result = device.compile(&spec);
        assert!(
            matches!(result, Err(Error::ExceedsLimit { .. })),
            "{}: {result:?}",
            device.info().name
        );
        // So are workgroups over the device's size.
        let wide = device.info().caps.max_group_invocations * 2;
        let spec =
            KernelSpec::new(&rosetta_kernels::copy::KERNEL, &[("GROUP_SIZE", wide)]).unwrap();
        assert!(matches!(
            device.compile(&spec),
            Err(Error::ExceedsLimit { .. })
        ));
        // The same kernel within limits builds and runs.
        let spec = KernelSpec::new(&TOO_BIG, &[("GROUP_SIZE", 64), ("WORDS", 64)]).unwrap();
        let kernel = device.compile(&spec).unwrap();
        let out = Buffer::new(device, 64 * 4).unwrap();
        device
            .launch(kernel, &Launch::linear(1, 64, 256), &[out.id()], &[1000])
            .unwrap();
        let got = out.read::<u32>(64).unwrap();
        assert_eq!(got, (0..64).map(|i| 63 - i + 1000).collect::<Vec<u32>>());
    });
}

#[test]
fn subgroup_variant_needs_subgroups() {
    each_device(|device| {
        let spec = KernelSpec::new(
            &rosetta_kernels::reduce::KERNEL,
            &[("GROUP_SIZE", 64), ("ELEM", 0), ("OP", 0), ("SUBGROUPS", 1)],
        )
        .unwrap();
        let result = device.compile(&spec);
        if device.info().caps.subgroup_ops {
            assert!(result.is_ok(), "{result:?}");
        } else {
            assert!(matches!(result, Err(Error::Unsupported(_))), "{result:?}");
        }
    });
}

#[test]
fn launches_over_limits_are_refused() {
    each_device(|device| {
        let caps = device.info().caps.clone();
        let plan_kernel = device
            .compile(
                &KernelSpec::new(&rosetta_kernels::copy::KERNEL, &[("GROUP_SIZE", 64)]).unwrap(),
            )
            .unwrap();
        let a = Buffer::new(device, 64).unwrap();
        let b = Buffer::new(device, 64).unwrap();
        let ids = [a.id(), b.id()];
        let too_many = Launch::linear(caps.max_groups[0] + 1, 64, 0);
        assert!(matches!(
            device.launch(plan_kernel, &too_many, &ids, &[16]),
            Err(Error::ExceedsLimit { .. })
        ));
        let too_wide = Launch::linear(1, caps.max_group_invocations + 1, 0);
        assert!(matches!(
            device.launch(plan_kernel, &too_wide, &ids, &[16]),
            Err(Error::ExceedsLimit { .. })
        ));
        let too_shared = Launch::linear(1, 64, caps.max_shared_bytes + 4);
        assert!(matches!(
            device.launch(plan_kernel, &too_shared, &ids, &[16]),
            Err(Error::ExceedsLimit { .. })
        ));
        let ok = Launch::linear(1, 64, 0);
        // Wrong group size, binding count, param count, aliasing: typed errors.
        let wrong_size = Launch::linear(1, 128, 0);
        assert!(matches!(
            device.launch(plan_kernel, &wrong_size, &ids, &[16]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            device.launch(plan_kernel, &ok, &ids[..1], &[16]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            device.launch(plan_kernel, &ok, &ids, &[]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            device.launch(plan_kernel, &ok, &[a.id(), a.id()], &[16]),
            Err(Error::InvalidArgument(_))
        ));
        let empty = Launch::linear(0, 64, 0);
        assert!(matches!(
            device.launch(plan_kernel, &empty, &ids, &[16]),
            Err(Error::InvalidArgument(_))
        ));
        // And a valid one still works afterwards.
        device.launch(plan_kernel, &ok, &ids, &[16]).unwrap();
        device.finish().unwrap();
    });
}

#[test]
fn timers_use_device_clocks() {
    each_device(|device| {
        let n = 1 << 22;
        let plan = CopyPlan::new(device, n).unwrap();
        let src = Buffer::new(device, n as u64 * 4).unwrap();
        let dst = Buffer::new(device, n as u64 * 4).unwrap();
        assert!(matches!(device.end_timer(), Err(Error::InvalidArgument(_))));
        device.begin_timer().unwrap();
        for _ in 0..3 {
            plan.encode(&src, &dst).unwrap();
        }
        let (elapsed, clock) = device.end_timer().unwrap();
        let expected = if device.info().caps.timestamps {
            Clock::Device
        } else {
            Clock::Host
        };
        assert_eq!(clock, expected, "{}", device.info().name);
        assert!(
            elapsed.as_nanos() > 0,
            "{}: {elapsed:?}",
            device.info().name
        );
        assert!(
            elapsed.as_secs() < 60,
            "{}: {elapsed:?}",
            device.info().name
        );
        // A region around a write and a zero only.
        device.begin_timer().unwrap();
        dst.zero().unwrap();
        let (elapsed, _) = device.end_timer().unwrap();
        assert!(elapsed.as_secs() < 60);
    });
}

#[test]
fn devices_are_shareable_across_threads() {
    let devices: Vec<Arc<dyn Backend>> = devices().to_vec();
    std::thread::scope(|scope| {
        for t in 0..4u32 {
            let devices = &devices;
            scope.spawn(move || {
                for device in devices {
                    let n = 10_000 + t as usize;
                    let plan = CopyPlan::new(device, n).unwrap();
                    let src = Buffer::from_slice(device, &vec![t; n]).unwrap();
                    let dst = Buffer::new(device, n as u64 * 4).unwrap();
                    for _ in 0..20 {
                        plan.encode(&src, &dst).unwrap();
                    }
                    assert_eq!(dst.read::<u32>(n).unwrap(), vec![t; n]);
                }
            });
        }
    });
}
