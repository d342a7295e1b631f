//! wgpu-specific checks (the Backend contract every API shares is tested in
//! the facade's tests/backends.rs): the compiler's log, workgroup memory sized
//! by override constants checked before the driver, the subgroup variant.

mod common;

use common::each_device;
use rosetta_core::workgroup::{Bindings, Group};
use rosetta_core::{Access, Api, Buffer, Error, KernelDef, KernelSpec, Launch, Sources};

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
