//! `__local` memory as a trailing kernel argument (`dynamic_shared`
//! kernels), which the contract's probe (a static `__local` array) does not
//! use, and the one launch limit only the driver sees: a kernel's own
//! `__local` arrays plus its `__local` argument must fit the device.

mod common;

use rosetta_core::{Access, Buffer, Error, KernelDef, KernelSpec, Language, Launch};

/// Each group writes `Σ scratch + pad[GROUP_SIZE - 1] - 1` where every
/// invocation stored `value` in the `__local` argument `scratch` and 1 in
/// the static `__local` array `pad` of PAD (>= GROUP_SIZE) words.
const SOURCE: &str = "\
__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void local_arg(__global uint* out, uint value, __local uint* scratch) {
    __local uint pad[PAD];
    uint lid = get_local_id(0);
    scratch[lid] = value;
    pad[lid] = 1u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        uint s = pad[GROUP_SIZE - 1u] - 1u;
        for (uint i = 0; i < GROUP_SIZE; i++) { s += scratch[i]; }
        out[get_group_id(0)] = s;
    }
}
";

#[test]
fn local_arguments_are_bound_and_their_total_is_checked() {
    let def = KernelDef::builder("local_arg")
        .constants(["PAD"])
        .bindings([Access::ReadWrite])
        .params(["value"])
        .dynamic_shared(true)
        .source(Language::OpenCl, SOURCE)
        .build_arc()
        .unwrap();
    for device in common::devices("local_arguments_are_bound_and_their_total_is_checked") {
        let id = device.info().id();
        let max_shared = device.info().caps.max_shared_bytes;
        let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("PAD", 1024)]).unwrap();
        let kernel = device.compile(&spec).unwrap();
        let out = Buffer::new(&device, 3 * 4).unwrap();
        let run = |shared_bytes: u32, value: u32| {
            // SAFETY: the kernel writes out[group] for 3 groups (out has 3
            // words) and scratch[lid] for lid < 64 (256 bytes of __local,
            // at least that much is passed below).
            unsafe {
                device.launch(
                    &kernel,
                    &Launch::linear(3, 64, shared_bytes),
                    &[&out],
                    &[value],
                )
            }
        };
        run(64 * 4, 5).unwrap();
        assert_eq!(out.read::<u32>(3).unwrap(), vec![320; 3], "{id}");
        // Within the device's limit by itself, over it with the kernel's
        // own 4 KiB `pad`: refused before the API.
        let e = run(max_shared, 1).err();
        assert!(matches!(e, Some(Error::ExceedsLimit { .. })), "{id}: {e:?}");
        // Within the limit with it, allowing 512 bytes for what a driver
        // keeps for itself (NVIDIA's OpenCL: 16): runs, so the size read
        // with the argument set does not count the argument as the
        // kernel's own.
        run(max_shared - 4 * 1024 - 512, 7).unwrap();
        assert_eq!(out.read::<u32>(3).unwrap(), vec![7 * 64; 3], "{id}");
        // The device still works.
        run(64 * 4, 1).unwrap();
        assert_eq!(out.read::<u32>(3).unwrap(), vec![64; 3], "{id}");
    }
}

/// A kernel whose own `__local` arrays exceed the device's limit is refused
/// when it is built, not at launch (PoCL ran one of 16 MB against its 2 MiB
/// limit).
#[test]
fn static_local_arrays_beyond_the_device_are_refused_at_build() {
    let def = KernelDef::builder("big_local")
        .constants(["WORDS"])
        .bindings([Access::ReadWrite])
        .source(
            Language::OpenCl,
            "__kernel void big_local(__global uint* out) {\n\
             __local uint pad[WORDS];\n\
             uint lid = get_local_id(0);\n\
             pad[lid] = lid;\n\
             barrier(CLK_LOCAL_MEM_FENCE);\n\
             out[lid] = pad[WORDS - 1u - lid] + pad[lid];\n\
             }\n",
        )
        .build_arc()
        .unwrap();
    for device in common::devices("static_local_arrays_beyond_the_device_are_refused_at_build") {
        let id = device.info().id();
        let max_shared = device.info().caps.max_shared_bytes;
        let fits = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("WORDS", 64)]).unwrap();
        let kernel = device.compile(&fits).unwrap();
        let out = Buffer::new(&device, 64 * 4).unwrap();
        // SAFETY: 64 invocations write out[lid] (64 words) and read pad
        // below WORDS = 64.
        unsafe { device.launch(&kernel, &Launch::linear(1, 64, 0), &[&out], &[]) }.unwrap();
        assert_eq!(out.read::<u32>(64).unwrap(), vec![63; 64], "{id}");
        let words = max_shared / 4 + 1024;
        let over = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("WORDS", words)]).unwrap();
        match device.compile(&over) {
            Err(Error::ExceedsLimit {
                requested, limit, ..
            }) => {
                assert!(requested >= u64::from(words) * 4, "{id}: {requested}");
                assert_eq!(limit, u64::from(max_shared), "{id}");
            }
            // A driver may refuse to build it itself.
            Err(Error::Compile { .. }) => {}
            other => panic!("{id}: {} KiB of __local: {:?}", words / 256, other.err()),
        }
    }
}

/// A source whose argument list does not match the def's interface
/// (bindings, then params, then the `__local` block) is refused at build
/// with a one-line usage error that says so, not at launch with a bare
/// CL_INVALID_KERNEL_ARGS.
#[test]
fn argument_lists_that_differ_from_the_interface_are_refused_at_build() {
    let sources = [
        // One param too many.
        "__kernel void args(__global uint* out, uint n, uint extra) { if (get_global_id(0) < n) out[0] = extra; }",
        // The param missing.
        "__kernel void args(__global uint* out) { out[0] = 1u; }",
    ];
    for source in sources {
        let def = KernelDef::builder("args")
            .bindings([Access::ReadWrite])
            .params(["n"])
            .source(Language::OpenCl, source)
            .build_arc()
            .unwrap();
        let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64)]).unwrap();
        for device in
            common::devices("argument_lists_that_differ_from_the_interface_are_refused_at_build")
        {
            let id = device.info().id();
            let e = device.compile(&spec).err();
            match &e {
                Some(Error::InvalidArgument(text)) => {
                    assert!(text.contains("its interface has 2"), "{id}: {text}");
                    assert!(!text.contains('\n'), "{id}: {text}");
                }
                other => panic!("{id}: {source}: {other:?}"),
            }
        }
    }
}
