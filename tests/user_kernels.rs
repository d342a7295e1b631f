//! `KernelTest` on the devices of the APIs that run a kernel's own text: a
//! kernel that writes a binding its interface calls read-only must fail on
//! every device (refused at compile time where the API can see it, caught
//! by the comparison where it cannot), even though its Rust version — the
//! reference — cannot write it.

use rosetta::user_kernel::{Data, Expected, KernelTest, Tolerance};
mod common;

use common::{devices_of, required};
use rosetta::{Access, Api, Device, KernelDef, KernelSpec, Language, Launch};
use rosetta_core::workgroup::GlobalWord;

/// Building `spec` on each of `devices` is refused with a one-line usage
/// error that mentions `why`.
fn assert_refused(devices: &[Device], spec: &KernelSpec, why: &str) {
    for device in devices {
        let id = device.info().id();
        let e = device
            .compile(spec)
            .err()
            .unwrap_or_else(|| panic!("{id}: accepted"));
        let text = e.to_string();
        assert_eq!(e.kind(), rosetta::ErrorKind::Usage, "{id}: {text}");
        assert!(!text.contains('\n') && text.contains(why), "{id}: {text}");
    }
}

#[test]
fn a_written_read_only_binding_fails_everywhere() {
    let def = KernelDef::builder("copies")
        .bindings([Access::Read, Access::ReadWrite])
        .params(["n"])
        .source(
            Language::Glsl,
            "#version 450\n\
             layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
             layout(local_size_x_id = 0) in;\n\
             layout(set = 0, binding = 0) buffer Input { uint input_words[]; };\n\
             layout(set = 0, binding = 1) buffer Output { uint output_words[]; };\n\
             layout(push_constant) uniform Params { uint n; } params;\n\
             void main() { uint i = gl_GlobalInvocationID.x;\n\
             if (i < params.n) { output_words[i] = input_words[i]; input_words[i] = 0u; } }\n",
        )
        .source(
            Language::OpenCl,
            "__kernel void copies(__global uint* input, __global uint* output, uint n) {\n\
             uint i = get_global_id(0);\n\
             if (i < n) { output[i] = input[i]; input[i] = 0u; } }\n",
        )
        .cpu(|group, bindings| {
            let (input, output) = (bindings.read(0), bindings.write(1));
            for lid in 0..group.size {
                let i = (group.id[0] * group.size + lid) as usize;
                if i < group.params[0] as usize {
                    output[i].store_u32(input[i]);
                }
            }
        })
        .build_arc()
        .unwrap();
    let test = KernelTest {
        spec: KernelSpec::new(&def, &[("GROUP_SIZE", 64)]).unwrap(),
        launch: Launch::linear(1, 64, 0),
        buffers: vec![Data::U32((1..=64).collect()), Data::Zeros { bytes: 256 }],
        params: vec![64],
        expected: Expected::CpuVersion,
        tolerance: Tolerance::Exact,
    };
    for api in [Api::Vulkan, Api::Opencl] {
        let devices = devices_of(api);
        if devices.is_empty() {
            continue;
        }
        // SAFETY: every version touches words 0..64 of each 256-byte buffer.
        let report = unsafe { test.run(&devices) }.unwrap();
        assert!(!report.passed(), "{}", report.render());
        for result in &report.results {
            assert!(
                result.detail.contains("read-only"),
                "{}: {}",
                result.device,
                report.render()
            );
        }
    }
}

/// A source whose entry point is not named as its kernel, or (GLSL, whose
/// entry point is always `main`) whose buffers are not its interface's, is
/// the caller's mistake: a one-line usage error on every API, not a
/// multi-line "failed to compile" (Vulkan and wgpu said that, with kind
/// Failure, for what rosetta's own checks found).
#[test]
fn interface_mistakes_are_one_line_usage_errors_everywhere() {
    let def = KernelDef::builder("named")
        .bindings([Access::ReadWrite])
        .params(["n"])
        .source(
            Language::Glsl,
            "#version 450\n\
             layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
             layout(local_size_x_id = 0) in;\n\
             layout(set = 0, binding = 0) uniform Words { uint words[64]; };\n\
             layout(push_constant) uniform Params { uint n; } params;\n\
             void main() { if (gl_GlobalInvocationID.x < params.n) { uint w = words[0]; } }\n",
        )
        .source(
            Language::Wgsl,
            "override GROUP_SIZE: u32;\n\
             struct Params { n: u32 }\n\
             @group(0) @binding(0) var<storage, read_write> words: array<u32>;\n\
             @group(0) @binding(1) var<uniform> params: Params;\n\
             @compute @workgroup_size(GROUP_SIZE)\n\
             fn other(@builtin(global_invocation_id) id: vec3<u32>) {\n\
             if id.x < params.n { words[id.x] = 1u; } }\n",
        )
        .source(
            Language::OpenCl,
            "__kernel void other(__global uint* words, uint n) {\n\
             if (get_global_id(0) < n) words[get_global_id(0)] = 1u; }\n",
        )
        .source(
            Language::Cuda,
            "extern \"C\" __global__ void other(unsigned int* words, unsigned int n) {\n\
             unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
             if (i < n) words[i] = 1u; }\n",
        )
        .build_arc()
        .unwrap();
    let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64)]).unwrap();
    let mut checked = 0;
    for api in [Api::Vulkan, Api::Wgpu, Api::Opencl, Api::Cuda] {
        let devices = devices_of(api);
        for device in devices {
            let id = device.info().id();
            let Err(e) = device.compile(&spec) else {
                panic!("{id}: accepted");
            };
            let text = e.to_string();
            assert_eq!(e.kind(), rosetta::ErrorKind::Usage, "{id}: {text}");
            assert!(!text.contains('\n'), "{id}: {text}");
            let why = if api == Api::Vulkan {
                "uniform buffers"
            } else {
                "named 'named'"
            };
            assert!(text.contains(why), "{id}: {text}");
            checked += 1;
        }
    }
    assert!(checked > 0, "no device ran the check");
}

/// A constant is a 32-bit word, and a kernel that declares it signed reads
/// the word's bits: 0xFFFFFFFF is −1 in a GLSL `int` spec constant, a WGSL
/// `i32` override (naga used to refuse any value past 2^31 − 1) and
/// OpenCL C's and CUDA's `int` alike, so every device writes −1 + 2 = 1.
#[test]
fn signed_constants_take_the_words_bits_everywhere() {
    let def = KernelDef::builder("offset_words")
        .constants(["OFFSET"])
        .bindings([Access::ReadWrite])
        .source(
            Language::Glsl,
            "#version 450\n\
             layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
             layout(constant_id = 1) const int OFFSET = 0;\n\
             layout(local_size_x_id = 0) in;\n\
             layout(set = 0, binding = 0) buffer Words { uint words[]; };\n\
             void main() { words[gl_GlobalInvocationID.x] = uint(OFFSET + 2); }\n",
        )
        .source(
            Language::Wgsl,
            "override GROUP_SIZE: u32;\n\
             override OFFSET: i32;\n\
             @group(0) @binding(0) var<storage, read_write> words: array<u32>;\n\
             @compute @workgroup_size(GROUP_SIZE)\n\
             fn offset_words(@builtin(global_invocation_id) id: vec3<u32>) {\n\
             words[id.x] = u32(OFFSET + 2); }\n",
        )
        .source(
            Language::OpenCl,
            "__kernel void offset_words(__global uint* words) {\n\
             const int offset = (int)OFFSET;\n\
             words[get_global_id(0)] = (uint)(offset + 2); }\n",
        )
        .source(
            Language::Cuda,
            "extern \"C\" __global__ void offset_words(unsigned int* words) {\n\
             const int offset = (int)OFFSET;\n\
             words[blockIdx.x * blockDim.x + threadIdx.x] = (unsigned int)(offset + 2); }\n",
        )
        .build_arc()
        .unwrap();
    let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("OFFSET", u32::MAX)]).unwrap();
    let mut checked = 0;
    for api in [Api::Vulkan, Api::Wgpu, Api::Opencl, Api::Cuda] {
        for device in devices_of(api) {
            let id = device.info().id();
            let kernel = device
                .compile(&spec)
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            let words = device.zeros::<u32>(64).unwrap();
            // SAFETY: one group of 64 invocations, each writing its own
            // word of a 64-word buffer.
            unsafe {
                device
                    .launch(&kernel, &Launch::linear(1, 64, 0), &[words.raw()], &[])
                    .unwrap();
            }
            assert_eq!(words.to_vec().unwrap(), vec![1; 64], "{id}");
            checked += 1;
        }
    }
    assert!(checked > 0, "no device ran the kernel");
}

/// A GLSL spec constant whose constant_id the kernel gives no value would
/// keep the source's default whatever the caller set, and a def constant
/// the source does not declare would be ignored: both refused, one line.
#[test]
fn vulkan_refuses_a_constant_id_without_a_value() {
    let def = KernelDef::builder("unvalued")
        .constants(["SCALE"])
        .bindings([Access::ReadWrite])
        .source(
            Language::Glsl,
            "#version 450\n\
             layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
             layout(constant_id = 7) const uint SCALE = 0;\n\
             layout(local_size_x_id = 0) in;\n\
             layout(set = 0, binding = 0) buffer Words { uint words[]; };\n\
             void main() { words[gl_GlobalInvocationID.x] = SCALE; }\n",
        )
        .build_arc()
        .unwrap();
    let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("SCALE", 5)]).unwrap();
    let devices = devices_of(Api::Vulkan);
    assert_refused(&devices, &spec, "specialization constant 7");
    // A def constant the source never declares would be ignored the same
    // way (SCALE hard-coded instead).
    let def = KernelDef::builder("unvalued")
        .constants(["SCALE"])
        .bindings([Access::ReadWrite])
        .source(
            Language::Glsl,
            "#version 450\n\
             layout(constant_id = 0) const uint GROUP_SIZE = 64;\n\
             layout(local_size_x_id = 0) in;\n\
             layout(set = 0, binding = 0) buffer Words { uint words[]; };\n\
             void main() { words[gl_GlobalInvocationID.x] = 3u; }\n",
        )
        .build_arc()
        .unwrap();
    let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64), ("SCALE", 5)]).unwrap();
    assert_refused(&devices, &spec, "constant 1 (the def's constants");
    assert!(!devices.is_empty() || !required(Api::Vulkan));
}

/// WGSL whose bindings disagree with the interface: a read-only binding
/// declared read_write, a written one declared read (wgpu wants the
/// access exactly), and a source written for one buffer under an
/// interface of two (its params struct sits where the second buffer is).
/// wgpu's own refusal is a validation report of many lines; rosetta says
/// which binding, in one line, as a usage error.
#[test]
fn wgsl_binding_mismatches_are_one_line_usage_errors() {
    let fill = "override GROUP_SIZE: u32;\n\
         struct Params { n: u32 }\n\
         @group(0) @binding(0) var<storage, read_write> words: array<u32>;\n\
         @group(0) @binding(1) var<uniform> params: Params;\n\
         @compute @workgroup_size(GROUP_SIZE)\n\
         fn fill(@builtin(global_invocation_id) id: vec3<u32>) {\n\
         if id.x < params.n { words[id.x] = 1u; } }\n";
    let copy = "override GROUP_SIZE: u32;\n\
         struct Params { n: u32 }\n\
         @group(0) @binding(0) var<storage, read> words: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
         @group(0) @binding(2) var<uniform> params: Params;\n\
         @compute @workgroup_size(GROUP_SIZE)\n\
         fn fill(@builtin(global_invocation_id) id: vec3<u32>) {\n\
         if id.x < params.n { out[id.x] = words[id.x]; } }\n";
    let cases = [
        (
            vec![Access::Read],
            fill,
            "binding 0 is read-only but declared read_write",
        ),
        (
            vec![Access::ReadWrite, Access::Read],
            fill,
            "binding 1 is a buffer but not declared var<storage",
        ),
        (
            vec![Access::ReadWrite, Access::ReadWrite],
            copy,
            "binding 0 is read_write but declared read",
        ),
    ];
    let devices = devices_of(Api::Wgpu);
    for (bindings, source, why) in cases {
        let def = KernelDef::builder("fill")
            .bindings(bindings)
            .params(["n"])
            .source(Language::Wgsl, source)
            .build_arc()
            .unwrap();
        let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64)]).unwrap();
        assert_refused(&devices, &spec, why);
    }
    assert!(!devices.is_empty() || !required(Api::Wgpu));
}

/// OpenCL C whose arguments have other types than the interface passes (a
/// `ulong` param, a binding declared `__local`) is refused when it is
/// built, naming the argument, in one line — not at its first launch as a
/// bare `clSetKernelArg` failure.
#[test]
fn opencl_argument_types_are_checked_when_built() {
    let cases = [
        (
            "__kernel void fill(__global uint* words, ulong n) {\n\
             if (get_global_id(0) < n) words[get_global_id(0)] = 1u; }\n",
            "argument 1 (param 'n')",
        ),
        (
            "__kernel void fill(__local uint* words, uint n) {\n\
             if (get_global_id(0) < n) words[get_local_id(0)] = 1u; }\n",
            "argument 0 (binding 0)",
        ),
    ];
    let devices = devices_of(Api::Opencl);
    for (source, why) in cases {
        let def = KernelDef::builder("fill")
            .bindings([Access::ReadWrite])
            .params(["n"])
            .source(Language::OpenCl, source)
            .build_arc()
            .unwrap();
        let spec = KernelSpec::new(&def, &[("GROUP_SIZE", 64)]).unwrap();
        assert_refused(&devices, &spec, why);
    }
    assert!(!devices.is_empty() || !required(Api::Opencl));
}
