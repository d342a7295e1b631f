// Copy — WGSL (see mod.rs for the algorithm and interface).
//
// dst[i] = src[i] for n words: grid-stride over 4-word vectors (both buffers
// bound as arrays of vec4<u32>; every buffer is allocated rounded up to 16
// bytes), then the scalar tail. No shared memory, no barriers.

override GROUP_SIZE: u32;

struct Params {
    n: u32,
}

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: Params;

@compute @workgroup_size(GROUP_SIZE)
fn copy(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let n = params.n;
    let stride = GROUP_SIZE * num_groups.x; // T: invocations in the grid
    let first = group_id.x * GROUP_SIZE; // t of this group's lid 0
    let t = first + lid;

    // Vectors: each row of the grid-stride loop is GROUP_SIZE vectors.
    // Unrolled by four: four independent loads in flight, then the stores.
    let vectors = n / 4u;
    var v = t;
    for (; v + 3u * stride < vectors; v += 4u * stride) {
        let a = src[v];
        let b = src[v + stride];
        let c = src[v + 2u * stride];
        let d = src[v + 3u * stride];
        dst[v] = a;
        dst[v + stride] = b;
        dst[v + 2u * stride] = c;
        dst[v + 3u * stride] = d;
    }
    for (; v < vectors; v += stride) {
        dst[v] = src[v];
    }
    // Tail: the last n % 4 words, word by word inside vector n/4 (the loop
    // runs over the offset within that vector, so its counter cannot wrap).
    for (var i = t; i < n % 4u; i += stride) {
        dst[vectors][i] = src[vectors][i];
    }
}
