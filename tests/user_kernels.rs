//! `KernelTest` on the devices of the APIs that run a kernel's own text: a
//! kernel that writes a binding its interface calls read-only must fail on
//! every device (refused at compile time where the API can see it, caught
//! by the comparison where it cannot), even though its Rust version — the
//! reference — cannot write it.

use rosetta::user_kernel::{Data, Expected, KernelTest, Tolerance};
use rosetta::{discover, Access, Api, ApiStatus, Device, KernelDef, KernelSpec, Language, Launch};
use rosetta_core::workgroup::GlobalWord;

/// APIs a test must find (as `tests/conformance.rs`: `ROSETTA_REQUIRE`, or
/// every compiled-in API but CUDA).
fn required(api: Api) -> bool {
    match std::env::var("ROSETTA_REQUIRE") {
        Ok(list) => list.split(',').any(|name| name.trim() == api.name()),
        Err(_) => api != Api::Cuda,
    }
}

/// The devices of `api`; none (and the test goes on) only where the API
/// is not required.
fn devices_of(api: Api) -> Vec<Device> {
    let found = discover(&[api]);
    match &found.entry(api).expect("probed").status {
        ApiStatus::Devices(devices) if !devices.is_empty() => devices.clone(),
        other => {
            assert!(
                !required(api),
                "{api} is required but has no device: {other:?}"
            );
            Vec::new()
        }
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
