//! `KernelTest` on the devices of the APIs that run a kernel's own text: a
//! kernel that writes a binding its interface calls read-only must fail on
//! every device (refused at compile time where the API can see it, caught
//! by the comparison where it cannot), even though its Rust version — the
//! reference — cannot write it.

use rosetta::user_kernel::{Data, Expected, KernelTest, Tolerance};
use rosetta::{discover, Access, Api, ApiStatus, KernelDef, KernelSpec, Language, Launch};
use rosetta_core::workgroup::GlobalWord;

/// APIs a test must find (as `tests/conformance.rs`: `ROSETTA_REQUIRE`, or
/// every compiled-in API but CUDA).
fn required(api: Api) -> bool {
    match std::env::var("ROSETTA_REQUIRE") {
        Ok(list) => list.split(',').any(|name| name.trim() == api.name()),
        Err(_) => api != Api::Cuda,
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
        let found = discover(&[api]);
        let devices = match &found.entry(api).expect("probed").status {
            ApiStatus::Devices(devices) if !devices.is_empty() => devices.clone(),
            other => {
                assert!(
                    !required(api),
                    "{api} is required but has no device: {other:?}"
                );
                continue;
            }
        };
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
