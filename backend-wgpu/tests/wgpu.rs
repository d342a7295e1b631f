//! wgpu-specific checks beyond the contract suite: what discovery reports,
//! limits checked at compile time (workgroup memory sized by override
//! constants, workgroup sizes), the compiler log's locations, the subgroup
//! prelude, and the timestamp ring refusing marks it has overwritten.

use rosetta_core::{
    Access, Backend, Buffer, Clock, Error, KernelDef, KernelSpec, Language, Launch,
};
use std::sync::Arc;

fn devices() -> Vec<Arc<dyn Backend>> {
    let devices = rosetta_backend_wgpu::discover()
        .unwrap_or_else(|e| panic!("wgpu must find an adapter here (lavapipe without a GPU): {e}"));
    assert!(!devices.is_empty());
    devices
}

#[test]
fn devices_describe_themselves() {
    for device in devices() {
        let info = device.info();
        eprintln!(
            "{} {} [{}] version {:?} physical {:?}: {:?}",
            info.id(),
            info.name,
            info.driver,
            info.driver_version,
            info.physical,
            info.caps
        );
        assert!(!info.driver_version.trim().is_empty());
        let llvmpipe = info.name.to_ascii_lowercase().contains("llvmpipe");
        assert_eq!(info.caps.loop_limit.is_some(), llvmpipe, "{}", info.id());
        if let Some(pci) = &info.physical.pci_bus_id {
            let parts: Vec<&str> = pci.split([':', '.']).collect();
            assert_eq!(
                parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
                [4, 2, 2, 1],
                "{pci}"
            );
        }
        // The clock the caps promise is the clock marks use.
        let t0 = device.timestamp().unwrap();
        let t1 = device.timestamp().unwrap();
        assert_eq!(t0.is_device_clock(), info.caps.timestamps);
        let (_, clock) = device.elapsed(&t0, &t1).unwrap();
        let expected = if info.caps.timestamps {
            Clock::Device
        } else {
            Clock::Host
        };
        assert_eq!(clock, expected);
    }
}

fn too_big() -> Arc<KernelDef> {
    KernelDef::builder("too_big")
        .constants(["WORDS"])
        .bindings([Access::ReadWrite])
        .params(["n"])
        .source(
            Language::Wgsl,
            "override GROUP_SIZE: u32;\noverride WORDS: u32;\nstruct Params { n: u32 }\n\
             @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @group(0) @binding(1) var<uniform> params: Params;\n\
             var<workgroup> big: array<u32, WORDS>;\n\
             @compute @workgroup_size(GROUP_SIZE)\n\
             fn too_big(@builtin(local_invocation_index) lid: u32) {\n\
             big[lid] = lid; workgroupBarrier(); out[lid] = big[WORDS - 1u - lid] + params.n; }\n",
        )
        .build_arc()
        .unwrap()
}

#[test]
fn limits_are_checked_at_compile_time() {
    let def = too_big();
    for device in devices() {
        let caps = device.info().caps.clone();
        // Workgroup memory over the device limit, sized by a constant, is
        // refused before the pipeline reaches the driver.
        let words = caps.max_shared_bytes / 4 + 1;
        let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("WORDS", words)]).unwrap();
        let result = device.compile(&spec);
        assert!(
            matches!(result, Err(Error::ExceedsLimit { .. })),
            "{}: {result:?}",
            device.info().id()
        );
        // So are workgroups over the device's size.
        let wide = caps.max_group_invocations * 2;
        let spec = KernelSpec::new(&def, &[("GROUP_SIZE", wide), ("WORDS", 64)]).unwrap();
        let result = device.compile(&spec);
        assert!(
            matches!(result, Err(Error::ExceedsLimit { .. })),
            "{result:?}"
        );
        // The same kernel within limits builds and runs.
        let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("WORDS", 64)]).unwrap();
        let kernel = device.compile(&spec).unwrap();
        let out = Buffer::new(&device, 64 * 4).unwrap();
        // SAFETY: one group of 64 writes out[0..64] (256 bytes) and
        // big[0..64] (WORDS = 64); no loops.
        unsafe {
            device
                .launch(&kernel, &Launch::linear(1, 64, 256), &[&out], &[1000])
                .unwrap();
        }
        let got = out.read::<u32>(64).unwrap();
        assert_eq!(got, (0..64).map(|i| 63 - i + 1000).collect::<Vec<u32>>());
        assert!(device.take_diagnostics().is_empty());
    }
}

#[test]
fn compile_logs_carry_locations() {
    let spec = KernelSpec::new(rosetta_core::contract::broken(), &[("GROUP_SIZE", 64)]).unwrap();
    for device in devices() {
        match device.compile(&spec) {
            // `undefined_name` is on line 4 of the broken kernel.
            Err(Error::Compile { log, .. }) => assert!(log.contains("broken:4:"), "{log}"),
            other => panic!("expected a compile error, got {other:?}"),
        }
    }
}

fn lanes() -> Arc<KernelDef> {
    KernelDef::builder("lanes")
        .constants(["SUBGROUPS"])
        .bindings([Access::ReadWrite])
        .params(["n"])
        .source(
            Language::Wgsl,
            "override GROUP_SIZE: u32;\noverride SUBGROUPS: u32;\nstruct Params { n: u32 }\n\
             @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @group(0) @binding(1) var<uniform> params: Params;\n\
             @compute @workgroup_size(GROUP_SIZE)\n\
             fn lanes(@builtin(local_invocation_index) lid: u32, builtins: SubgroupBuiltins) {\n\
             let subgroup = subgroup_of(builtins);\n\
             var total = 1u;\n\
             if (SUBGROUPS != 0u) { total = subgroup_add_u32(1u); }\n\
             out[lid] = total + params.n;\n\
             out[GROUP_SIZE + lid] = subgroup.size; }\n",
        )
        .build_arc()
        .unwrap()
}

#[test]
fn the_subgroup_prelude_follows_the_device() {
    let def = lanes();
    for device in devices() {
        let caps = device.info().caps.clone();
        let run = |subgroups: u32| -> Result<Vec<u32>, Error> {
            let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("SUBGROUPS", subgroups)])?;
            let kernel = device.compile(&spec)?;
            let out = Buffer::new(&device, 128 * 4)?;
            // SAFETY: one group of 64 writes out[0..128] (512 bytes); no
            // loops.
            unsafe { device.launch(&kernel, &Launch::linear(1, 64, 0), &[&out], &[0])? };
            out.read::<u32>(128)
        };
        let plain = run(0).unwrap();
        assert!(plain[..64].iter().all(|&w| w == 1), "{plain:?}");
        match run(1) {
            Ok(out) => {
                let [min, max] = caps.subgroup_sizes.expect("subgroup ops have sizes");
                assert!(caps.subgroup_ops);
                for lid in 0..64 {
                    let size = out[64 + lid];
                    assert!((min..=max).contains(&size), "size {size}");
                    assert_eq!(out[lid], size, "a full subgroup adds up its lanes");
                }
            }
            Err(Error::Unsupported { .. }) => assert!(!caps.subgroup_ops),
            Err(e) => panic!("{}: {e}", device.info().id()),
        }
    }
}

#[test]
fn overwritten_timestamps_are_refused_not_misread() {
    for device in devices() {
        if !device.info().caps.timestamps {
            continue;
        }
        let first = device.timestamp().unwrap();
        let second = device.timestamp().unwrap();
        // The ring has 4096 slots: 4096 marks after `first` take its slot.
        let mut last = device.timestamp().unwrap();
        for _ in 0..4094 {
            last = device.timestamp().unwrap();
        }
        let result = device.elapsed(&first, &last);
        assert!(
            matches!(result, Err(Error::ExceedsLimit { .. })),
            "{}: {result:?}",
            device.info().id()
        );
        let (time, clock) = device.elapsed(&second, &last).unwrap();
        assert_eq!(clock, Clock::Device);
        assert!(time.as_secs() < 60);
        drop(second);
        assert!(device.take_diagnostics().is_empty());
    }
}

/// naga 30 panics while applying constants to some valid modules (the
/// smallest we found: an override initialised from other overrides,
/// declared after a workgroup array sized by overrides; the other order
/// works): compiling one is a typed error (`Error::Compile` naming the
/// cause), or, with a naga that no longer panics, a kernel; either way the
/// device keeps working.
#[test]
fn a_module_that_panics_naga_is_a_compile_error() {
    let def = KernelDef::builder("chained")
        .constants(["TILE"])
        .bindings([Access::ReadWrite])
        .source(
            Language::Wgsl,
            "override GROUP_SIZE: u32;\n\
             override TILE: u32;\n\
             @group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
             var<workgroup> tile: array<f32, TILE * 2u>;\n\
             override LOADS: u32 = (TILE + GROUP_SIZE - 1u) / GROUP_SIZE;\n\
             @compute @workgroup_size(GROUP_SIZE)\n\
             fn chained(@builtin(local_invocation_index) lid: u32) {\n\
                 tile[lid % 16u] = f32(LOADS);\n\
                 out[lid] = tile[0];\n\
             }\n",
        )
        .build_arc()
        .unwrap();
    let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("TILE", 8)]).unwrap();
    for device in devices() {
        match device.compile(&spec) {
            Err(Error::Compile { log, .. }) => assert!(log.contains("naga panicked"), "{log}"),
            Ok(_) => eprintln!("naga no longer panics on this module"),
            Err(other) => panic!("expected a compile error, got {other:?}"),
        }
        let broken = KernelSpec::new(rosetta_core::contract::broken(), &[("GROUP_SIZE", 64)]);
        assert!(matches!(
            device.compile(&broken.unwrap()),
            Err(Error::Compile { .. })
        ));
    }
}
