#version 450
// Matmul's split-K sum -- GLSL for Vulkan (see mod.rs for the algorithm and
// interface).
//
// Invocation e of the flat grid over x and y adds element e of input planes
// z*fan_in ... (at most fan_in, below `planes`) in plane order and writes it
// to element e of output plane z. Deterministic: no atomics, a fixed order.
// Shared memory: none. Barriers: none. The plan keeps planes*len below 2^31.

layout(constant_id = 0) const uint GROUP_SIZE = 256;
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Partials { float partials[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Out { float out_[]; };
layout(push_constant) uniform Params {
    uint len;    // elements per plane (m*n)
    uint planes; // input planes
    uint fan_in; // input planes per output plane
} params;

void main() {
    uint len = params.len;
    uint e = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * GROUP_SIZE
             + gl_LocalInvocationID.x;
    if (e >= len) {
        return;
    }
    uint first = gl_WorkGroupID.z * params.fan_in;
    uint count = min(params.fan_in, params.planes - first);
    float acc = 0.0;
    for (uint p = 0u; p < count; p++) {
        acc += partials[(first + p) * len + e];
    }
    out_[gl_WorkGroupID.z * len + e] = acc;
}
