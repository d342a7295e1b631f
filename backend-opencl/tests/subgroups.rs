//! The reduce kernel's SUBGROUPS = 1 path on every device, including those
//! without subgroups (PoCL's CPU device here): a test-only prelude emulates
//! subgroups of one invocation, and the workgroups are 96 invocations, so the
//! tree runs over a count of subgroup values that is not a power of two.
//! (Devices with real subgroups run the real path in tests/ops.rs.)

mod common;

use common::{devices, id, output, upload};
use rosetta_core::ops::{Elem, ReduceOp};
use rosetta_core::workgroup::{Bindings, Group};
use rosetta_core::{inputs, reference, Access, KernelDef, KernelSpec, Launch, Sources};

fn no_cpu(_: &mut Group<'_>, _: &Bindings<'_>) {}

static EMULATED: KernelDef = KernelDef {
    name: "reduce",
    constants: &["GROUP_SIZE", "ELEM", "OP", "SUBGROUPS"],
    bindings: &[Access::Read, Access::ReadWrite],
    params: &["n"],
    dynamic_shared: false,
    sources: Sources {
        wgsl: "",
        cuda: "",
        glsl: "",
        opencl: concat!(
            include_str!("emulation/subgroups_of_one.cl"),
            include_str!("../../kernels/reduce/reduce.cl")
        ),
    },
    cpu: no_cpu,
};

#[test]
fn reduce_subgroup_path_with_emulated_subgroups() {
    const GROUP: u32 = 96;
    for device in devices() {
        let dev = id(device.info());
        for (elem, op) in [
            (Elem::F32, ReduceOp::Sum),
            (Elem::F32, ReduceOp::Min),
            (Elem::F32, ReduceOp::Max),
            (Elem::I32, ReduceOp::Min),
            (Elem::U32, ReduceOp::Sum),
            (Elem::U32, ReduceOp::Max),
        ] {
            let spec = KernelSpec::new(
                &EMULATED,
                &[
                    ("GROUP_SIZE", GROUP),
                    ("ELEM", elem.code()),
                    ("OP", op.code()),
                    ("SUBGROUPS", 1),
                ],
            )
            .unwrap();
            let kernel = device
                .compile(&spec)
                .expect("compile the emulated subgroup path");
            for len in [1usize, 97, 1000, 100_003] {
                let words: Vec<u32> = match elem {
                    Elem::F32 => bytemuck::cast_vec(inputs::f32_values(len as u64, len)),
                    _ => inputs::u32_values(len as u64, len),
                };
                // Two passes, as ReducePlan runs them: 7 groups, then one.
                let input = upload(&device, &words);
                let partials = output(&device, 7);
                let out = output(&device, 1);
                let n = len as u32;
                device
                    .launch(
                        kernel,
                        &Launch::linear(7, GROUP, GROUP * 4),
                        &[input.id(), partials.id()],
                        &[n],
                    )
                    .unwrap();
                device
                    .launch(
                        kernel,
                        &Launch::linear(1, GROUP, GROUP * 4),
                        &[partials.id(), out.id()],
                        &[7],
                    )
                    .unwrap();
                let got = out.read::<u32>(1).unwrap()[0];
                let what = format!("{dev} emulated subgroups {elem} {op} n={len}");
                match elem {
                    Elem::F32 => {
                        let x: &[f32] = bytemuck::cast_slice(&words);
                        let got = f32::from_bits(got);
                        if op == ReduceOp::Sum {
                            let exact = reference::sum_f32(x);
                            let bound = rosetta_core::bounds::sum_bound(len, exact.abs);
                            assert!(
                                rosetta_core::bounds::within(got, exact.value, bound),
                                "{what}: {got}"
                            );
                        } else {
                            assert_eq!(Some(got), reference::min_max_f32(x, op), "{what}");
                        }
                    }
                    Elem::I32 => {
                        let x: &[i32] = bytemuck::cast_slice(&words);
                        assert_eq!(got as i32, reference::reduce_int(x, op).unwrap(), "{what}");
                    }
                    Elem::U32 => {
                        assert_eq!(got, reference::reduce_int(&words, op).unwrap(), "{what}")
                    }
                }
            }
        }
    }
}
