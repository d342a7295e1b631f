//! Your own kernel, checked on every device against one reference — the
//! conformance suite, applied to your code.
//!
//! `block_sum` adds up u32 values: each workgroup loads its values into
//! **workgroup shared memory**, combines them in a tree with a **barrier**
//! between levels, and its first invocation adds the group's sum to the
//! total with a global **atomic**. It is written in all five languages; the
//! Rust version (run by the CPU backend) is the reference.
//!
//! A second kernel, `scale`, shows a kernel in only two languages whose text
//! is generated at run time: the backends without its language report
//! "unsupported" rather than passing.
//!
//! ```text
//! cargo run --example user_kernel --features wgpu,vulkan,opencl -- all
//! ```

use rosetta::core::workgroup::GlobalWord;
use rosetta::user_kernel::{Data, Expected, KernelTest, Tolerance};
use rosetta::{discover, Access, Api, KernelDef, KernelSpec, Language, Launch};

const WGSL: &str = r#"
override GROUP_SIZE: u32 = 64u;
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> total: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> params: Params;
var<workgroup> partial: array<u32, GROUP_SIZE>;

@compute @workgroup_size(GROUP_SIZE)
fn block_sum(@builtin(workgroup_id) group: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let i = group.x * GROUP_SIZE + lid;
    partial[lid] = select(0u, values[i], i < params.n);
    workgroupBarrier();
    for (var s = GROUP_SIZE / 2u; s > 0u; s /= 2u) {
        if lid < s { partial[lid] += partial[lid + s]; }
        workgroupBarrier();
    }
    if lid == 0u { atomicAdd(&total[0], partial[0]); }
}
"#;

const CUDA: &str = r#"
extern "C" __global__ void block_sum(const unsigned int* values, unsigned int* total, unsigned int n) {
    __shared__ unsigned int partial[GROUP_SIZE];
    unsigned int lid = threadIdx.x, i = blockIdx.x * GROUP_SIZE + lid;
    partial[lid] = i < n ? values[i] : 0u;
    __syncthreads();
    for (unsigned int s = GROUP_SIZE / 2u; s > 0u; s /= 2u) {
        if (lid < s) partial[lid] += partial[lid + s];
        __syncthreads();
    }
    if (lid == 0u) atomicAdd(&total[0], partial[0]);
}
"#;

const GLSL: &str = r#"#version 450
layout(constant_id = 0) const uint GROUP_SIZE = 64;
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) readonly buffer Values { uint values[]; };
layout(set = 0, binding = 1) buffer Total { uint total[]; };
layout(push_constant) uniform Params { uint n; } params;
shared uint partial[GROUP_SIZE];
void main() {
    uint lid = gl_LocalInvocationID.x, i = gl_WorkGroupID.x * GROUP_SIZE + lid;
    partial[lid] = i < params.n ? values[i] : 0u;
    barrier();
    for (uint s = GROUP_SIZE / 2u; s > 0u; s /= 2u) {
        if (lid < s) partial[lid] += partial[lid + s];
        barrier();
    }
    if (lid == 0u) atomicAdd(total[0], partial[0]);
}
"#;

const OPENCL: &str = r#"
__kernel void block_sum(__global const uint* values, __global uint* total, uint n) {
    __local uint partial[GROUP_SIZE];
    uint lid = get_local_id(0), i = get_group_id(0) * GROUP_SIZE + lid;
    partial[lid] = i < n ? values[i] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = GROUP_SIZE / 2u; s > 0u; s /= 2u) {
        if (lid < s) partial[lid] += partial[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0u) atomic_add(&total[0], partial[0]);
}
"#;

fn block_sum() -> Result<KernelDef, rosetta::core::Error> {
    KernelDef::builder("block_sum")
        .bindings([Access::Read, Access::ReadWrite])
        .params(["n"])
        .source(Language::Wgsl, WGSL)
        .source(Language::Cuda, CUDA)
        .source(Language::Glsl, GLSL)
        .source(Language::OpenCl, OPENCL)
        // The CPU version: one call runs a whole workgroup; each phase between
        // barriers is a loop over the invocations.
        .cpu(|group, bindings| {
            let (size, n) = (group.size as usize, group.params[0] as usize);
            let (values, total) = (bindings.read(0), bindings.write(1));
            let base = group.id[0] as usize * size;
            for lid in 0..size {
                let i = base + lid;
                group.shared[lid] = if i < n { values[i] } else { 0 };
            }
            let mut s = size / 2;
            while s > 0 {
                for lid in 0..s {
                    group.shared[lid] = group.shared[lid].wrapping_add(group.shared[lid + s]);
                }
                s /= 2;
            }
            total[0].atomic_add(group.shared[0]);
        })
        .build()
}

/// A kernel whose WGSL is generated at run time (the factor baked in), with
/// a Rust version, and no CUDA, GLSL or OpenCL version.
fn scale(factor: f32) -> Result<KernelDef, rosetta::core::Error> {
    let wgsl = format!(
        "override GROUP_SIZE: u32 = 64u;\n\
         @group(0) @binding(0) var<storage, read_write> x: array<f32>;\n\
         struct Params {{ n: u32 }}\n\
         @group(0) @binding(1) var<uniform> params: Params;\n\
         @compute @workgroup_size(GROUP_SIZE)\n\
         fn scale(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
             if id.x < params.n {{ x[id.x] = x[id.x] * {factor:?}; }}\n\
         }}\n"
    );
    KernelDef::builder("scale")
        .bindings([Access::ReadWrite])
        .params(["n"])
        .source(Language::Wgsl, wgsl)
        .cpu(move |group, bindings| {
            let x = bindings.write(0);
            let n = group.params[0] as usize;
            for lid in 0..group.size as usize {
                let i = group.id[0] as usize * group.size as usize + lid;
                if i < n {
                    x[i].store_f32(f32::from_bits(x[i].load_u32()) * factor);
                }
            }
        })
        .build()
}

fn main() -> Result<(), rosetta::Error> {
    let selectors: Vec<String> = std::env::args().skip(1).collect();
    let selectors = if selectors.is_empty() {
        vec!["all".to_string()]
    } else {
        selectors
    };
    let devices = discover(&Api::ALL).select(&selectors)?;

    let n = 100_003u32;
    let values: Vec<u32> = (0..n)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 16)
        .collect();
    let expected: u32 = values.iter().fold(0u32, |a, &v| a.wrapping_add(v));
    let test = KernelTest {
        spec: KernelSpec::new(&std::sync::Arc::new(block_sum()?), &[("GROUP_SIZE", 64)])?,
        launch: Launch::linear(n.div_ceil(64), 64, 64 * 4),
        buffers: vec![Data::U32(values), Data::Zeros { bytes: 4 }],
        params: vec![n],
        expected: Expected::Given(vec![None, Some(Data::U32(vec![expected]))]),
        tolerance: Tolerance::Exact,
    };
    // SAFETY: block_sum reads values[i] only for i < n (the buffer holds n
    // values), writes only total[0], uses GROUP_SIZE words of shared memory
    // (the launch gives 64·4 bytes), and has no loop without a bound.
    let report = unsafe { test.run(&devices) }?;
    print!("{}", report.render());
    assert!(
        report.passed(),
        "block_sum: a device differs from the reference, or no selected device could run it"
    );

    let x: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5).collect();
    let test = KernelTest {
        spec: KernelSpec::new(&std::sync::Arc::new(scale(3.0)?), &[("GROUP_SIZE", 64)])?,
        launch: Launch::linear(1000u32.div_ceil(64), 64, 0),
        buffers: vec![Data::F32(x)],
        params: vec![1000],
        expected: Expected::CpuVersion,
        tolerance: Tolerance::Exact,
    };
    // SAFETY: scale touches x[i] for i < n = 1000 only, the buffer's length.
    let report = unsafe { test.run(&devices) }?;
    print!("{}", report.render());
    assert!(
        report.passed(),
        "scale: a device differs from the reference, or no selected device could run it"
    );
    Ok(())
}
