//! The backend itself on every OpenCL device: discovery, capabilities,
//! buffers, compile errors, launch checks and timing.

mod common;

use common::{devices, id, output, upload};
use rosetta_core::workgroup::{Bindings, Group};
use rosetta_core::{Access, Api, Buffer, Clock, Error, KernelDef, KernelSpec, Launch, Sources};
use rosetta_kernels::copy::CopyPlan;

#[test]
fn discovery_reports_devices_with_real_capabilities() {
    let devices = devices();
    for (index, device) in devices.iter().enumerate() {
        let info = device.info();
        let caps = &info.caps;
        assert_eq!(info.api, Api::Opencl);
        assert_eq!(info.index, index, "indices are positions in the list");
        assert!(!info.name.is_empty());
        assert!(
            info.driver.contains("OpenCL"),
            "driver text: {}",
            info.driver
        );
        assert!(caps.max_group_invocations >= 1);
        assert!(caps.max_group_size[0] >= 1);
        assert!(
            caps.max_buffer_bytes >= 1 << 20,
            "{}",
            caps.max_buffer_bytes
        );
        assert!(caps.memory_bytes >= caps.max_buffer_bytes);
        assert!(caps.compute_units >= 1);
        assert!(caps.max_groups.iter().all(|&g| g >= 65535));
        if let Some([lo, hi]) = caps.subgroup_sizes {
            assert!(1 <= lo && lo <= hi, "{lo}..{hi}");
        }
        eprintln!("{}: {caps:?}", id(info));
    }
}

#[test]
fn buffers_are_zeroed_rounded_and_bounds_checked() {
    for device in devices() {
        let dev = id(device.info());
        // Fresh allocations read back as zeros, including the rounding.
        let buffer = Buffer::new(&device, 20).expect("alloc");
        assert_eq!(buffer.read::<u32>(5).unwrap(), vec![0; 5], "{dev}");
        let words = |n: usize| {
            let mut out = vec![0u32; n];
            device
                .read(buffer.id(), 0, bytemuck::cast_slice_mut(&mut out))
                .map(|_| out)
        };
        let mut tail = [0xffu8; 12];
        device
            .read(buffer.id(), 20, &mut tail)
            .expect("rounded to 32 bytes");
        assert_eq!(tail, [0; 12]);

        // Writes and reads at offsets.
        device.write(buffer.id(), 8, &7u32.to_ne_bytes()).unwrap();
        device
            .write(buffer.id(), 16, bytemuck::cast_slice(&[1u32, 2, 3, 4]))
            .unwrap();
        assert_eq!(words(8).unwrap(), vec![0, 0, 7, 0, 1, 2, 3, 4], "{dev}");
        let mut two = [0u8; 8];
        device.read(buffer.id(), 12, &mut two).unwrap();
        assert_eq!(bytemuck::cast_slice::<u8, u32>(&two), &[0, 1]);

        // zero() clears everything, in queue order.
        buffer.zero().unwrap();
        assert_eq!(words(8).unwrap(), vec![0; 8], "{dev}");

        // Unaligned or out-of-range transfers are refused.
        let mut out = [0u8; 4];
        assert!(matches!(
            device.read(buffer.id(), 2, &mut out),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            device.read(buffer.id(), 32, &mut out),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            device.write(buffer.id(), 0, &[1, 2, 3]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            device.write(buffer.id(), u64::MAX - 3, &[0; 4]),
            Err(Error::InvalidArgument(_))
        ));

        // Empty buffers exist (16 bytes underneath).
        let empty = Buffer::new(&device, 0).expect("empty alloc");
        assert_eq!(empty.read::<u32>(0).unwrap(), Vec::<u32>::new());

        // Over the device's limit: refused before the API sees it.
        let limit = device.info().caps.max_buffer_bytes;
        assert!(matches!(
            device.alloc(limit + 1),
            Err(Error::ExceedsLimit { requested, .. }) if requested == limit + 1
        ));
        assert!(matches!(
            device.alloc(u64::MAX),
            Err(Error::ExceedsLimit { .. })
        ));

        // A freed or unknown buffer is an error, not a crash.
        let id = device.alloc(16).unwrap();
        device.free(id);
        assert!(matches!(
            device.read(id, 0, &mut out),
            Err(Error::InvalidArgument(_))
        ));
    }
}

fn no_cpu(_: &mut Group<'_>, _: &Bindings<'_>) {}

static BROKEN: KernelDef = KernelDef {
    name: "broken",
    constants: &["GROUP_SIZE"],
    bindings: &[Access::ReadWrite],
    params: &[],
    dynamic_shared: false,
    sources: Sources {
        wgsl: "",
        cuda: "",
        glsl: "",
        opencl: "__kernel void broken(__global uint* out) { out[0] = undeclared_name; }\n",
    },
    cpu: no_cpu,
};

static MISNAMED: KernelDef = KernelDef {
    name: "misnamed",
    constants: &["GROUP_SIZE"],
    bindings: &[Access::ReadWrite],
    params: &[],
    dynamic_shared: false,
    sources: Sources {
        wgsl: "",
        cuda: "",
        glsl: "",
        opencl: "__kernel void other(__global uint* out) { out[0] = GROUP_SIZE; }\n",
    },
    cpu: no_cpu,
};

/// Writes GROUP_SIZE + the sum of its `__local` scratch (zeroed by the kernel).
static LOCAL_ARG: KernelDef = KernelDef {
    name: "local_arg",
    constants: &["GROUP_SIZE"],
    bindings: &[Access::ReadWrite],
    params: &["value"],
    dynamic_shared: true,
    sources: Sources {
        wgsl: "",
        cuda: "",
        glsl: "",
        opencl: "__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))\n\
                 void local_arg(__global uint* out, uint value, __local uint* scratch) {\n\
                   uint lid = get_local_id(0);\n\
                   scratch[lid] = value;\n\
                   barrier(CLK_LOCAL_MEM_FENCE);\n\
                   if (lid == 0) { uint s = 0; for (uint i = 0; i < GROUP_SIZE; i++) s += scratch[i];\n\
                     out[get_group_id(0)] = s; }\n\
                 }\n",
    },
    cpu: no_cpu,
};

#[test]
fn compile_errors_carry_the_build_log() {
    for device in devices() {
        let spec = KernelSpec::new(&BROKEN, &[("GROUP_SIZE", 64)]).unwrap();
        match device.compile(&spec) {
            Err(Error::Compile { api, kernel, log }) => {
                assert_eq!(api, Api::Opencl);
                assert!(kernel.starts_with("broken"), "{kernel}");
                assert!(log.contains("undeclared_name"), "log: {log}");
            }
            other => panic!("expected a compile error, got {other:?}"),
        }
        let spec = KernelSpec::new(&MISNAMED, &[("GROUP_SIZE", 64)]).unwrap();
        assert!(matches!(device.compile(&spec), Err(Error::Compile { .. })));
    }
}

#[test]
fn launches_bind_local_arguments_and_are_checked() {
    for device in devices() {
        let dev = id(device.info());
        let caps = device.info().caps.clone();
        let spec = KernelSpec::new(&LOCAL_ARG, &[("GROUP_SIZE", 64)]).unwrap();
        let kernel = device.compile(&spec).expect("compile");
        // Cached: the same spec gives the same kernel.
        assert_eq!(device.compile(&spec).unwrap(), kernel);
        let out = output(&device, 3);
        let launch = Launch::linear(3, 64, 64 * 4);
        device
            .launch(kernel, &launch, &[out.id()], &[5])
            .expect("launch");
        assert_eq!(out.read::<u32>(3).unwrap(), vec![320; 3], "{dev}");

        // Wrong counts, a group size other than GROUP_SIZE, limits.
        let bad = |launch: &Launch, buffers: &[_], params: &[u32]| {
            device.launch(kernel, launch, buffers, params)
        };
        assert!(matches!(
            bad(&launch, &[], &[5]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            bad(&launch, &[out.id()], &[]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            bad(&Launch::linear(1, 32, 128), &[out.id()], &[5]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            bad(&Launch::linear(0, 64, 256), &[out.id()], &[5]),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            bad(
                &Launch::linear(1, caps.max_group_invocations + 1, 4),
                &[out.id()],
                &[5]
            ),
            Err(Error::ExceedsLimit { .. })
        ));
        assert!(matches!(
            bad(
                &Launch::linear(1, 64, caps.max_shared_bytes + 4),
                &[out.id()],
                &[5]
            ),
            Err(Error::ExceedsLimit { .. })
        ));
        let freed = device.alloc(16).unwrap();
        device.free(freed);
        assert!(matches!(
            bad(&launch, &[freed], &[5]),
            Err(Error::InvalidArgument(_))
        ));
        // The device still works after refused launches.
        device
            .launch(kernel, &launch, &[out.id()], &[1])
            .expect("launch");
        assert_eq!(out.read::<u32>(3).unwrap(), vec![64; 3], "{dev}");
    }
}

#[test]
fn timers_measure_device_time() {
    for device in devices() {
        let dev = id(device.info());
        let words = 1 << 22;
        let src = upload(&device, &vec![1u32; words]);
        let dst = output(&device, words);
        let plan = CopyPlan::new(&device, words).expect("copy plan");
        plan.encode(&src, &dst).unwrap(); // warm up (PoCL builds lazily)
        device.finish().unwrap();

        device.begin_timer().unwrap();
        plan.encode(&src, &dst).unwrap();
        plan.encode(&src, &dst).unwrap();
        let (elapsed, clock) = device.end_timer().unwrap();
        let expected = if device.info().caps.timestamps {
            Clock::Device
        } else {
            Clock::Host
        };
        assert_eq!(clock, expected, "{dev}");
        assert!(elapsed.as_nanos() > 0, "{dev}: {elapsed:?}");
        assert!(elapsed.as_secs() < 60, "{dev}: {elapsed:?}");
        eprintln!("{dev}: 2 × copy of 16 MiB in {elapsed:?} ({clock:?})");

        // An empty region, and an end without a begin.
        device.begin_timer().unwrap();
        let (empty, _) = device.end_timer().unwrap();
        assert!(empty <= elapsed, "{dev}: {empty:?}");
        assert!(device.end_timer().is_err());
        assert_eq!(dst.read::<u32>(4).unwrap(), vec![1; 4]);
    }
}

#[test]
fn every_kernel_builds_with_and_without_its_options() {
    // Each shipped kernel compiles on each device for representative
    // constants (the plans' own choices are covered by tests/ops.rs).
    for device in devices() {
        let dev = id(device.info());
        let sg = u32::from(device.info().caps.subgroup_ops);
        let specs = [
            KernelSpec::new(
                &rosetta_kernels::reduce::KERNEL,
                &[
                    ("GROUP_SIZE", 128),
                    ("ELEM", 0),
                    ("OP", 1),
                    ("SUBGROUPS", sg),
                ],
            ),
            KernelSpec::new(
                &rosetta_kernels::histogram::KERNEL,
                &[
                    ("GROUP_SIZE", 64),
                    ("BINS", 10),
                    ("SHARED_BINS", 1),
                    ("INPUT", 1),
                ],
            ),
            KernelSpec::new(
                &rosetta_kernels::conv1d::KERNEL,
                &[("GROUP_SIZE", 64), ("ITEMS", 1), ("TAPS", 3)],
            ),
            KernelSpec::new(
                &rosetta_kernels::conv2d::KERNEL,
                &[
                    ("GROUP_SIZE", 64),
                    ("TILE_W", 8),
                    ("TILE_H", 8),
                    ("KH", 3),
                    ("KW", 1),
                    ("BORDER", 1),
                ],
            ),
            KernelSpec::new(
                &rosetta_kernels::matmul::KERNEL,
                &[
                    ("GROUP_SIZE", 64),
                    ("TILE_M", 16),
                    ("TILE_N", 16),
                    ("TILE_K", 4),
                    ("THREAD_M", 2),
                    ("THREAD_N", 2),
                ],
            ),
            KernelSpec::new(&rosetta_kernels::copy::KERNEL, &[("GROUP_SIZE", 32)]),
        ];
        for spec in specs {
            let spec = spec.unwrap();
            if let Err(err) = device.compile(&spec) {
                panic!("{dev}: {}: {err}", spec.cache_key());
            }
        }
    }
}
