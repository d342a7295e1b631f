//! Vulkan-specific behaviour the contract suite does not cover: device info
//! read from the device, the timestamp ring, queue order of large writes in
//! both memory paths, the checks a kernel passes before Vulkan sees it, and
//! the public GLSL helper.

use rosetta_backend_vulkan::{compile_glsl, discover, discover_with, Options};
use rosetta_core::contract::{broken, probe, probe_expected};
use rosetta_core::{
    Access, Api, Backend, Buffer, DeviceType, Error, KernelDef, KernelSpec, Language, Launch,
};
use std::sync::Arc;

fn devices(options: Options) -> Vec<Arc<dyn Backend>> {
    let devices = discover_with(options).unwrap_or_else(|e| panic!("{}", e.chain()));
    assert!(!devices.is_empty(), "no Vulkan device");
    devices
}

fn probe_on(device: &Arc<dyn Backend>, input: &Buffer, output: &Buffer, n: u32, add: u32) {
    let spec = KernelSpec::new(probe(), &[("GROUP_SIZE", 64)]).unwrap();
    let kernel = device.compile(&spec).unwrap();
    let counter = device.alloc(16).unwrap();
    // SAFETY: the probe touches input[i], output[i] for i < n and counter[0];
    // callers size both arrays for n words.
    unsafe {
        device.launch(
            &kernel,
            &Launch::linear(n.div_ceil(64), 64, 256),
            &[input, output, &counter],
            &[n, add],
        )
    }
    .unwrap();
}

#[test]
fn device_info_comes_from_the_device() {
    for device in devices(Options::default()) {
        let info = device.info();
        assert_eq!(info.api, Api::Vulkan);
        assert!(!info.driver_version.is_empty(), "{info:?}");
        assert!(
            info.physical.uuid.as_ref().is_some_and(|u| u.len() == 32)
                || info.physical.pci_bus_id.is_some(),
            "{:?}",
            info.physical
        );
        let llvmpipe = info.name.to_ascii_lowercase().contains("llvmpipe");
        assert_eq!(info.caps.loop_limit.is_some(), llvmpipe, "{info:?}");
        if llvmpipe {
            assert_eq!(info.caps.device_type, DeviceType::Cpu);
        }
    }
}

#[test]
fn reused_timestamp_slots_are_errors_not_wrong_times() {
    for device in devices(Options::default()) {
        if !device.info().caps.timestamps {
            continue;
        }
        let first = device.timestamp().unwrap();
        let mut marks = Vec::new();
        for _ in 0..4096 {
            marks.push(device.timestamp().unwrap());
        }
        let (last, before_last) = (&marks[4095], &marks[4094]);
        match device.elapsed(&first, last) {
            Err(Error::ExceedsLimit { limit: 4096, .. }) => {}
            other => panic!("an expired mark resolved: {other:?}"),
        }
        let (time, _) = device.elapsed(before_last, last).unwrap();
        assert!(time.as_secs() < 10);
        // Marks resolve in any order and any number of times, while fewer
        // than 4096 - 64 newer ones were taken (slots are reset 64 at a
        // time, ahead of their marks).
        device.elapsed(&marks[64], last).unwrap();
        device.elapsed(&marks[64], &marks[65]).unwrap();
    }
}

/// A launch reads `a`; then `a` is overwritten (a write too large to record
/// inline); a second launch reads it: each launch sees the data written
/// before it, in both memory paths.
#[test]
fn large_writes_keep_queue_order_in_both_memory_paths() {
    for force_staging in [false, true] {
        for device in devices(Options {
            validation: false,
            force_staging,
        }) {
            let n = 100_000u32;
            let first: Vec<u32> = (0..n).collect();
            let second: Vec<u32> = (0..n).map(|i| i * 3).collect();
            let a = Buffer::from_slice(&device, &first).unwrap();
            let (b, c) = (
                device.alloc(u64::from(n) * 4).unwrap(),
                device.alloc(u64::from(n) * 4).unwrap(),
            );
            probe_on(&device, &a, &b, n, 0);
            a.write(&second).unwrap();
            probe_on(&device, &a, &c, n, 0);
            a.write(&[9u32; 4]).unwrap(); // small: recorded while `a` is busy
            assert_eq!(
                b.read::<u32>(n as usize).unwrap(),
                probe_expected(&first, 64, 0)
            );
            assert_eq!(
                c.read::<u32>(n as usize).unwrap(),
                probe_expected(&second, 64, 0)
            );
            let back = a.read::<u32>(n as usize).unwrap();
            assert_eq!(back[..4], [9; 4]);
            assert_eq!(back[4..], second[4..]);
        }
    }
}

fn glsl_kernel(body: &str, constants: &[&str]) -> Arc<KernelDef> {
    KernelDef::builder("checked")
        .constants(constants.iter().copied())
        .bindings([Access::ReadWrite])
        .params(["n"])
        .source(Language::Glsl, body.to_string())
        .build_arc()
        .unwrap()
}

#[test]
fn kernels_are_checked_before_vulkan_sees_them() {
    let header = "#version 450\n\
        layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
        layout(constant_id = 1) const uint WORDS = 1;\n\
        layout(local_size_x_id = 0) in;\n\
        layout(set = 0, binding = 0) buffer Data { uint data[]; };\n\
        layout(push_constant) uniform Params { uint n; } params;\n";
    let shared = glsl_kernel(
        &format!(
            "{header}shared uint scratch[WORDS * 2u + 1u];\n\
             void main() {{ scratch[gl_LocalInvocationID.x % WORDS] = params.n; barrier();\n\
             data[gl_GlobalInvocationID.x] = scratch[0]; }}\n"
        ),
        &["WORDS"],
    );
    let ubo = glsl_kernel(
        &format!(
            "{header}layout(set = 0, binding = 1) uniform Extra {{ uint extra; }};\n\
             void main() {{ data[0] = extra + params.n; }}\n"
        ),
        &["WORDS"],
    );
    let extra_param = glsl_kernel(
        "#version 450\nlayout(local_size_x_id = 0) in;\n\
         layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
         layout(set = 0, binding = 0) buffer Data { uint data[]; };\n\
         layout(push_constant) uniform Params { uint n; uint m; } params;\n\
         void main() { data[0] = params.n + params.m; }\n",
        &[],
    );
    for device in devices(Options::default()) {
        let caps = device.info().caps.clone();
        // Within the limits it builds and runs.
        let spec = KernelSpec::new(&shared, &[("GROUP_SIZE", 64), ("WORDS", 64)]).unwrap();
        let kernel = device.compile(&spec).unwrap();
        let data = device.alloc(256).unwrap();
        // SAFETY: one group of 64 invocations writes data[0..64].
        unsafe { device.launch(&kernel, &Launch::linear(1, 64, 512), &[&data], &[5]) }.unwrap();
        assert_eq!(data.read::<u32>(64).unwrap(), vec![5; 64]);
        // Shared memory over the device's limit (from a constant).
        let words = caps.max_shared_bytes / 8 + 1;
        let spec = KernelSpec::new(&shared, &[("GROUP_SIZE", 64), ("WORDS", words)]).unwrap();
        match device.compile(&spec) {
            Err(Error::ExceedsLimit { what, .. }) => assert!(what.contains("shared"), "{what}"),
            other => panic!("{other:?}"),
        }
        // A workgroup over the limit.
        let too_big = caps.max_group_invocations + 1;
        let spec = KernelSpec::new(&shared, &[("GROUP_SIZE", too_big), ("WORDS", 1)]).unwrap();
        assert!(matches!(
            device.compile(&spec),
            Err(Error::ExceedsLimit { .. })
        ));
        // Interfaces the kernel's definition does not declare.
        for (def, culprit) in [(&ubo, "uniform"), (&extra_param, "push")] {
            let spec = KernelSpec::new(
                def,
                &def.constants()
                    .iter()
                    .map(|c| (c.as_str(), 64))
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            // The caller's mistake: one line, a usage error.
            match device.compile(&spec) {
                Err(Error::InvalidArgument(why)) => {
                    assert!(why.contains(culprit) && !why.contains('\n'), "{why}")
                }
                other => panic!("{culprit}: {other:?}"),
            }
        }
    }
}

#[test]
fn glsl_compiles_without_a_device() {
    let glsl = probe().sources().text(Language::Glsl).unwrap();
    for subgroups in [false, true] {
        let spirv = compile_glsl(glsl, subgroups).unwrap();
        assert_eq!(spirv.first(), Some(&0x0723_0203));
    }
    let log = compile_glsl(broken().sources().text(Language::Glsl).unwrap(), false).unwrap_err();
    assert!(log.contains("undefined_name"), "{log}");
}

#[test]
fn discover_opens_fresh_devices_each_call() {
    let (a, b) = (discover().unwrap(), discover().unwrap());
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_ne!(x.tag(), y.tag());
        assert_eq!(x.info().index, y.info().index);
        assert_eq!(x.info().name, y.info().name);
    }
}

/// A block of fixed size (here sized by a constant) bound to a smaller
/// buffer is refused at launch: Vulkan would let the shader read past the
/// buffer (wgpu checks the same from WGSL types).
#[test]
fn buffers_smaller_than_their_block_are_refused() {
    let def = KernelDef::builder("fixed")
        .constants(["WORDS"])
        .bindings([Access::Read, Access::ReadWrite])
        .source(
            Language::Glsl,
            "#version 450\n\
             layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
             layout(constant_id = 1) const uint WORDS = 1;\n\
             layout(local_size_x_id = 0) in;\n\
             layout(set = 0, binding = 0) readonly buffer Table { uint count; uint table[WORDS]; };\n\
             layout(set = 0, binding = 1) buffer Out { uint out_words[]; };\n\
             void main() { uint i = gl_LocalInvocationID.x;\n\
             out_words[i] = table[WORDS - 1u - i % WORDS] + count; }\n",
        )
        .build_arc()
        .unwrap();
    for device in devices(Options::default()) {
        let id = device.info().id();
        let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("WORDS", 1000)]).unwrap();
        let kernel = device.compile(&spec).unwrap();
        let out = device.alloc(64 * 4).unwrap();
        let run = |table: &Buffer| {
            // SAFETY: the kernel reads `count` and table[0..1000] (4004
            // bytes, what the launch checks the table holds) and writes
            // out_words[0..64] (256 bytes).
            unsafe { device.launch(&kernel, &Launch::linear(1, 64, 0), &[table, &out], &[]) }
        };
        let small = device.alloc(16).unwrap();
        match run(&small) {
            Err(Error::InvalidArgument(why)) => {
                assert!(
                    why.contains("binding 0 needs at least 4004 bytes"),
                    "{id}: {why}"
                )
            }
            other => panic!("{id}: {other:?}"),
        }
        let words: Vec<u32> = (0..1001).collect();
        let table = device.alloc(words.len() as u64 * 4).unwrap();
        table.write(&words).unwrap();
        run(&table).unwrap();
        let expected: Vec<u32> = (0..64).map(|i| 1000 - i).collect();
        assert_eq!(out.read::<u32>(64).unwrap(), expected, "{id}");
    }
}
