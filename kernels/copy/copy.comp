#version 450
// Copy -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// dst[i] = src[i] for n words: grid-stride over 4-word vectors (both buffers
// bound as arrays of uvec4; every buffer is allocated rounded up to 16
// bytes), then the scalar tail. No shared memory, no barriers.

layout(constant_id = 0) const uint GROUP_SIZE = 256;
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1) restrict writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Params { uint n; } params;

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = params.n;
    uint stride = GROUP_SIZE * gl_NumWorkGroups.x; // T: invocations in the grid
    uint first = gl_WorkGroupID.x * GROUP_SIZE; // t of this group's lid 0
    uint t = first + lid;

    // Vectors: each row of the grid-stride loop is GROUP_SIZE vectors.
    // Unrolled by four: four independent loads in flight, then the stores.
    uint vectors = n / 4u;
    uint v = t;
    for (; v + 3u * stride < vectors; v += 4u * stride) {
        uvec4 a = src[v];
        uvec4 b = src[v + stride];
        uvec4 c = src[v + 2u * stride];
        uvec4 d = src[v + 3u * stride];
        dst[v] = a;
        dst[v + stride] = b;
        dst[v + 2u * stride] = c;
        dst[v + 3u * stride] = d;
    }
    for (; v < vectors; v += stride) {
        dst[v] = src[v];
    }
    // Tail: the last n % 4 words, word by word inside the last vector.
    for (uint i = vectors * 4u + t; i < n; i += stride) {
        dst[i / 4u][i % 4u] = src[i / 4u][i % 4u];
    }
}
