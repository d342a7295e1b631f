//! Vulkan-specific checks (the Backend contract every API shares is tested in
//! the facade's tests/backends.rs).

mod common;

use common::on_every_device;
use rosetta_core::{Buffer, KernelSpec, Launch};

/// The reduce kernel's shared-memory-only path (SUBGROUPS = 0), which plans
/// use on devices without subgroup arithmetic, on this device.
#[test]
fn reduce_without_subgroups() {
    on_every_device(|device| {
        for (elem, op, data, want) in [
            (
                0u32,
                0u32,
                vec![1.5f32.to_bits(), 2.25f32.to_bits(), 4.0f32.to_bits()],
                7.75f32.to_bits(),
            ),
            (1, 1, vec![5u32, (-7i32) as u32, 3], (-7i32) as u32),
            (2, 2, vec![5u32, 7, 3], 7),
            (
                0,
                1,
                vec![1.0f32.to_bits(), f32::NAN.to_bits(), 0.5f32.to_bits()],
                f32::NAN.to_bits(),
            ),
        ] {
            for group_size in [32u32, 64, 256] {
                let spec = KernelSpec::new(
                    &rosetta_kernels::reduce::KERNEL,
                    &[
                        ("GROUP_SIZE", group_size),
                        ("ELEM", elem),
                        ("OP", op),
                        ("SUBGROUPS", 0),
                    ],
                )
                .unwrap();
                let kernel = device.compile(&spec).unwrap();
                let input = Buffer::from_slice(device, &data).unwrap();
                let out = Buffer::new(device, 4).unwrap();
                let launch = Launch::linear(1, group_size, group_size * 4);
                device
                    .launch(
                        kernel,
                        &launch,
                        &[input.id(), out.id()],
                        &[data.len() as u32],
                    )
                    .unwrap();
                let got = out.read::<u32>(1).unwrap()[0];
                if elem == 0 && op == 1 {
                    assert!(f32::from_bits(got).is_nan());
                } else {
                    assert_eq!(got, want, "elem {elem} op {op} group {group_size}");
                }
            }
        }
    });
}
