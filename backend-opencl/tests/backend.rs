//! OpenCL-specific checks (the Backend contract every API shares is tested in
//! the facade's tests/backends.rs): `__local` arguments, and every kernel
//! building with and without its optional extension paths.

mod common;

use common::{devices, id, output};
use rosetta_core::workgroup::{Bindings, Group};
use rosetta_core::{Access, Error, KernelDef, KernelSpec, Launch, Sources};

fn no_cpu(_: &mut Group<'_>, _: &Bindings<'_>) {}

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
