// Matmul's split-K sum — WGSL (see mod.rs for the algorithm and interface).
//
// Invocation e of the flat grid over x and y adds element e of input planes
// z·fan_in … (at most fan_in, below `planes`) in plane order and writes it
// to element e of output plane z. Deterministic: no atomics, a fixed order.
// Shared memory: none. Barriers: none. The plan keeps planes·len below 2^31.

override GROUP_SIZE: u32;

struct Params {
    len: u32,    // elements per plane (m·n)
    planes: u32, // input planes
    fan_in: u32, // input planes per output plane
}

@group(0) @binding(0) var<storage, read> partials: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(GROUP_SIZE)
fn matmul_sum(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let len = params.len;
    let e = (group_id.y * num_groups.x + group_id.x) * GROUP_SIZE + lid;
    if e >= len {
        return;
    }
    let first = group_id.z * params.fan_in;
    let count = min(params.fan_in, params.planes - first);
    var acc = 0.0;
    for (var p = 0u; p < count; p++) {
        acc += partials[(first + p) * len + e];
    }
    out[group_id.z * len + e] = acc;
}
