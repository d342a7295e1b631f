//! The `Backend` contract, on every device of every compiled-in API: buffers,
//! queue order, typed errors before the API is reached, compile errors with
//! the compiler's log, timers, sharing across threads. (What each op computes
//! is the conformance suite's job: tests/conformance.rs.)

use rosetta::core::workgroup::{Bindings, Group};
use rosetta::core::{Access, Backend, Buffer, Clock, KernelDef, KernelSpec, Launch, Sources};
use rosetta::kernels::copy::CopyPlan;
use rosetta::{Api, Error};
use std::sync::Arc;

fn backends() -> Vec<Arc<dyn Backend>> {
    let discovery = rosetta::discover(&Api::ALL);
    let backends: Vec<_> = discovery
        .devices()
        .map(|d| Arc::clone(d.backend()))
        .collect();
    assert!(!backends.is_empty(), "not even the CPU backend was found");
    backends
}

/// Run `check` on every device, naming the device in any failure.
fn each_device(check: impl Fn(&Arc<dyn Backend>)) {
    for backend in backends() {
        eprintln!("{} {}", backend.info().id(), backend.info().name);
        check(&backend);
    }
}

#[test]
fn discovery_reports_device_limits() {
    let backends = backends();
    for api in Api::ALL {
        let of_api: Vec<_> = backends.iter().filter(|b| b.info().api == api).collect();
        for (position, backend) in of_api.iter().enumerate() {
            let info = backend.info();
            assert_eq!(
                info.index,
                position,
                "{}: index is the position in its API's list",
                info.id()
            );
            assert!(!info.name.trim().is_empty() && !info.driver.trim().is_empty());
            let caps = &info.caps;
            assert!(caps.max_shared_bytes >= 16 << 10, "{}: {caps:?}", info.id());
            assert!(caps.max_group_invocations >= 256, "{}: {caps:?}", info.id());
            assert!(
                caps.max_group_size[0] >= 256 && caps.max_groups[0] >= 65_535,
                "{}: {caps:?}",
                info.id()
            );
            assert!(
                caps.max_buffer_bytes >= 128 << 20,
                "{}: {caps:?}",
                info.id()
            );
            if let Some([min, max]) = caps.subgroup_sizes {
                assert!(min >= 1 && min <= max, "{}: {caps:?}", info.id());
            }
            if caps.subgroup_ops {
                assert!(
                    caps.subgroup_sizes.is_some(),
                    "{}: subgroup ops need a known size range",
                    info.id()
                );
            }
        }
    }
}

#[test]
fn buffers_are_zeroed_rounded_and_checked() {
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
        device.zero(id).unwrap();
        device.read(id, 8, &mut word).unwrap();
        assert_eq!(u32::from_le_bytes(word), 0);
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
        // Empty allocations work.
        let empty = device.alloc(0).unwrap();
        device.read(empty, 0, &mut []).unwrap();
        device.free(empty);
        // Over the limit: refused before the API sees it.
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
fn large_buffers_round_trip_at_an_offset() {
    each_device(|device| {
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
            device.info().id()
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
        // Many dependent launches in a row.
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
fn buffers_freed_while_in_flight_are_safe() {
    each_device(|device| {
        let n = 4096;
        let plan = CopyPlan::new(device, n).unwrap();
        let out = Buffer::new(device, n as u64 * 4).unwrap();
        {
            let src = Buffer::from_slice(device, &vec![9u32; n]).unwrap();
            plan.encode(&src, &out).unwrap();
            // `src` is freed here, before the work is known to be done.
        }
        assert_eq!(out.read::<u32>(n).unwrap(), vec![9; n]);
    });
}

fn no_cpu(_: &mut Group<'_>, _: &Bindings<'_>) {}

/// A kernel that fails to compile in every language, naming `undefined_name`.
static BROKEN: KernelDef = KernelDef {
    name: "broken",
    constants: &["GROUP_SIZE"],
    bindings: &[Access::ReadWrite],
    params: &["n"],
    dynamic_shared: false,
    sources: Sources {
        wgsl: "override GROUP_SIZE: u32;\n\
               @group(0) @binding(0) var<storage, read_write> data: array<u32>;\n\
               @compute @workgroup_size(GROUP_SIZE)\nfn broken() { data[0] = undefined_name; }\n",
        cuda: "extern \"C\" __global__ void broken(unsigned int* data, unsigned int n)\n\
               { data[0] = undefined_name; }\n",
        glsl: "#version 450\nlayout(local_size_x_id = 0) in;\n\
               layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
               layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };\n\
               layout(push_constant) uniform Params { uint n; };\n\
               void main() { data[0] = undefined_name; }\n",
        opencl: "__kernel void broken(__global uint* data, uint n) { data[0] = undefined_name; }\n",
    },
    cpu: no_cpu,
};

#[test]
fn compile_errors_carry_the_compilers_log() {
    each_device(|device| {
        let api = device.info().api;
        if api == Api::Cpu {
            return; // The CPU runs Rust compiled with the crate: nothing to build.
        }
        let spec = KernelSpec::new(&BROKEN, &[("GROUP_SIZE", 64)]).unwrap();
        match device.compile(&spec) {
            Err(Error::Compile {
                api: reported,
                kernel,
                log,
            }) => {
                assert_eq!(reported, api);
                assert!(kernel.contains("broken"), "{kernel}");
                assert!(
                    log.contains("undefined_name"),
                    "{}: log lacks the culprit: {log}",
                    device.info().id()
                );
            }
            other => panic!(
                "{}: expected a compile error, got {other:?}",
                device.info().id()
            ),
        }
        // The device still works afterwards.
        let plan = CopyPlan::new(device, 4).unwrap();
        let src = Buffer::from_slice(device, &[1u32, 2, 3, 4]).unwrap();
        let dst = Buffer::new(device, 16).unwrap();
        plan.encode(&src, &dst).unwrap();
        assert_eq!(dst.read::<u32>(4).unwrap(), vec![1, 2, 3, 4]);
    });
}

#[test]
fn launches_over_limits_are_refused_with_typed_errors() {
    each_device(|device| {
        let caps = device.info().caps.clone();
        let spec = KernelSpec::new(&rosetta::kernels::copy::KERNEL, &[("GROUP_SIZE", 64)]).unwrap();
        let kernel = device.compile(&spec).unwrap();
        let a = Buffer::new(device, 64).unwrap();
        let b = Buffer::new(device, 64).unwrap();
        let ids = [a.id(), b.id()];
        let refused = |launch: Launch, ids: &[rosetta::core::BufferId], params: &[u32]| {
            device.launch(kernel, &launch, ids, params).unwrap_err()
        };
        for launch in [
            Launch::linear(caps.max_groups[0].saturating_add(1), 64, 0),
            Launch::linear(1, caps.max_group_invocations + 1, 0),
            Launch::linear(1, 64, caps.max_shared_bytes + 4),
            Launch {
                groups: [1, caps.max_groups[1].saturating_add(1), 1],
                group_size: 64,
                shared_bytes: 0,
            },
        ] {
            if launch.groups.contains(&u32::MAX) {
                continue; // The limit is the whole u32 range: nothing is over it.
            }
            let e = refused(launch, &ids, &[16]);
            assert!(
                matches!(e, Error::ExceedsLimit { .. }),
                "{}: {launch:?}: {e}",
                device.info().id()
            );
        }
        let ok = Launch::linear(1, 64, 0);
        for (launch, ids, params) in [
            (Launch::linear(1, 128, 0), &ids[..], &[16u32][..]), // not the built group size
            (ok, &ids[..1], &[16][..]),                          // a buffer short
            (ok, &ids[..], &[][..]),                             // a param short
            (ok, &[a.id(), a.id()][..], &[16][..]),              // one buffer twice
            (Launch::linear(0, 64, 0), &ids[..], &[16][..]),     // no workgroups
        ] {
            let e = refused(launch, ids, params);
            assert!(
                matches!(e, Error::InvalidArgument(_)),
                "{}: {launch:?}: {e}",
                device.info().id()
            );
        }
        // A valid launch still works afterwards.
        device.launch(kernel, &ok, &ids, &[16]).unwrap();
        device.finish().unwrap();
    });
}

#[test]
fn timers_use_the_apis_clock() {
    each_device(|device| {
        let n = 1 << 22;
        let plan = CopyPlan::new(device, n).unwrap();
        let src = Buffer::new(device, n as u64 * 4).unwrap();
        let dst = Buffer::new(device, n as u64 * 4).unwrap();
        assert!(device.end_timer().is_err(), "end_timer without begin_timer");
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
        assert_eq!(clock, expected, "{}", device.info().id());
        assert!(
            elapsed.as_nanos() > 0 && elapsed.as_secs() < 60,
            "{}: {elapsed:?}",
            device.info().id()
        );
    });
}

#[test]
fn devices_are_shareable_across_threads() {
    let backends = backends();
    std::thread::scope(|scope| {
        for t in 0..4u32 {
            let backends = &backends;
            scope.spawn(move || {
                for device in backends {
                    let n = 10_000 + t as usize;
                    let plan = CopyPlan::new(device, n).unwrap();
                    let src = Buffer::from_slice(device, &vec![t; n]).unwrap();
                    let dst = Buffer::new(device, n as u64 * 4).unwrap();
                    for _ in 0..20 {
                        plan.encode(&src, &dst).unwrap();
                    }
                    assert_eq!(
                        dst.read::<u32>(n).unwrap(),
                        vec![t; n],
                        "{}",
                        device.info().id()
                    );
                }
            });
        }
    });
}
