// probe -- the contract suite's kernel, WGSL.
// Each workgroup reverses its GROUP_SIZE words through shared memory and adds
// `add`: output[base + lid] = input[base + GROUP_SIZE - 1 - lid] + add (0 past
// n), counting every written word with a global atomic.
// Shared memory: shared_words (GROUP_SIZE u32). Barriers: one, after the load.

override GROUP_SIZE: u32 = 64u;

struct Params {
    n: u32,
    add: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read_write> counter: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> shared_words: array<u32, GROUP_SIZE>;

@compute @workgroup_size(GROUP_SIZE)
fn probe(@builtin(workgroup_id) group: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let base = group.x * GROUP_SIZE;
    let i = base + lid;
    // Phase 1: load. -- barrier --
    var value = 0u;
    if (i < params.n) {
        value = input[i];
    }
    shared_words[lid] = value;
    workgroupBarrier();
    // Phase 2: store reversed, count.
    if (i < params.n) {
        output[i] = shared_words[GROUP_SIZE - 1u - lid] + params.add;
        atomicAdd(&counter[0], 1u);
    }
}
