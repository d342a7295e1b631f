#version 450
// Conv1d window -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Algorithm: a register window per invocation, nothing in shared memory.
// Tiles of TILE = GROUP_SIZE*ITEMS outputs as in conv1d.comp (the flat tile
// index over a 2-D grid; a workgroup strides on by the grid's size when the
// grid holds fewer groups than tiles). In a tile, invocation lid computes the
// vectors v = lid + r*GROUP_SIZE, r < ITEMS / 4 (four consecutive outputs
// each; consecutive invocations, consecutive vectors). For the vector at
// output o it fills the window x[o - 4*HALO, o + 4 + 4*HALO) -- 2*HALO + 1
// 16-byte loads when the window lies inside the signal, else one word at a
// time, zero outside -- and sums each of its four outputs' taps in order from
// it. Neighbours' windows overlap by 2*HALO vectors: the cache serves the
// overlap, and DRAM sees each value about once.
// Shared memory: none. Barriers: none.
// Registers: the taps (`weights`, loaded once), the window (WINDOW f32) and
// four sums; the loops over them are unrolled (TAPS is a specialization
// constant, at most 33: the plan's MAX_WINDOW_TAPS).
// Bindings: the signal and output as vec4 arrays (16-byte loads and stores;
// single words by component); the buffers are whole multiples of 16 bytes.
// Indices: uint. Window slots are offset by 4*HALO so positions never go
// negative; the plan keeps n + TILE + TAPS + 8 below 2^32.

#extension GL_EXT_control_flow_attributes : enable

layout(constant_id = 0) const uint GROUP_SIZE = 256;
layout(constant_id = 1) const uint ITEMS = 4; // a multiple of 4
layout(constant_id = 2) const uint TAPS = 1; // odd
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer X { vec4 x_vectors[]; };
layout(set = 0, binding = 1) restrict readonly buffer Taps { float taps[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Out { vec4 out_vectors[]; };
layout(push_constant) uniform Params { uint n; } params;

const uint TILE = GROUP_SIZE * ITEMS;
const uint RADIUS = TAPS / 2u;
const uint HALO = (RADIUS + 3u) / 4u; // vectors of halo on each side
const uint WINDOW = 4u * (2u * HALO + 1u); // window words
const uint VECTORS = ITEMS / 4u; // vectors per invocation per tile

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = params.n;
    uint tiles = n / TILE + (n % TILE != 0u ? 1u : 0u);
    // This workgroup's first tile and the grid's size (x fastest).
    uint first = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;

    // Phase 1: the taps to registers.
    float weights[TAPS];
    [[unroll]] for (uint j = 0u; j < TAPS; j++) {
        weights[j] = taps[j];
    }

    for (uint t = first; t < tiles; t += groups) {
        [[unroll]] for (uint r = 0u; r < VECTORS; r++) {
            uint v = t * (TILE / 4u) + lid + r * GROUP_SIZE;
            uint o = 4u * v; // the vector's first output
            if (o < n) {
                // Phase a: the window. Slot s holds x[o + s - 4*HALO]; `pos`
                // is that index plus 4*HALO, so it never goes negative.
                float window[WINDOW];
                bool inside = o >= 4u * HALO && o + 4u + 4u * HALO <= n;
                if (inside) {
                    [[unroll]] for (uint q = 0u; q < 2u * HALO + 1u; q++) {
                        vec4 value = x_vectors[v - HALO + q];
                        window[4u * q] = value.x;
                        window[4u * q + 1u] = value.y;
                        window[4u * q + 2u] = value.z;
                        window[4u * q + 3u] = value.w;
                    }
                } else {
                    [[unroll]] for (uint s = 0u; s < WINDOW; s++) {
                        uint pos = o + s;
                        float value = 0.0;
                        if (pos >= 4u * HALO && pos - 4u * HALO < n) {
                            uint i = pos - 4u * HALO;
                            value = x_vectors[i / 4u][i % 4u];
                        }
                        window[s] = value;
                    }
                }

                // Phase b: output o + k sums its taps in order; tap j reads
                // x[o + k + j - RADIUS], window slot k + j + 4*HALO - RADIUS.
                float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
                [[unroll]] for (uint j = 0u; j < TAPS; j++) {
                    [[unroll]] for (uint k = 0u; k < 4u; k++) {
                        acc[k] += weights[j] * window[k + j + 4u * HALO - RADIUS];
                    }
                }

                // Phase c: a whole vector inside the signal in one store,
                // else the outputs below n one by one.
                if (o + 4u <= n) {
                    out_vectors[v] = vec4(acc[0], acc[1], acc[2], acc[3]);
                } else {
                    [[unroll]] for (uint k = 0u; k < 4u; k++) {
                        if (o + k < n) {
                            out_vectors[v][k] = acc[k];
                        }
                    }
                }
            }
        }
    }
}
