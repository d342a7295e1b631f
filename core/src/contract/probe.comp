#version 450
// probe -- the contract suite's kernel, GLSL (see probe.wgsl).
// Shared memory: shared_words (GROUP_SIZE u32). Barriers: one, after the load.

layout(constant_id = 0) const uint GROUP_SIZE = 64;
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Input { uint input_words[]; };
layout(set = 0, binding = 1) restrict buffer Output { uint output_words[]; };
layout(set = 0, binding = 2) restrict buffer Counter { uint counter[]; };
layout(push_constant) uniform Params { uint n; uint add; } params;

shared uint shared_words[GROUP_SIZE];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint base = gl_WorkGroupID.x * GROUP_SIZE;
    uint i = base + lid;
    // Phase 1: load. -- barrier --
    uint value = 0u;
    if (i < params.n) {
        value = input_words[i];
    }
    shared_words[lid] = value;
    barrier();
    // Phase 2: store reversed, count.
    if (i < params.n) {
        output_words[i] = shared_words[GROUP_SIZE - 1u - lid] + params.add;
        atomicAdd(counter[0], 1u);
    }
}
