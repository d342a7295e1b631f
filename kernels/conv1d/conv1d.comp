#version 450
// Conv1d -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Algorithm: halo tiles in shared memory, one tile of TILE = GROUP_SIZE*ITEMS
// outputs per workgroup (the flat tile index over a 2-D grid; a workgroup
// strides on by the grid's size when the grid holds fewer groups than
// tiles). Each workgroup loads the taps once, then per tile the signal it
// needs plus TAPS - 1 halo values (zero outside the signal), and computes
// the tile's outputs from shared memory.
// Shared memory: shared_taps (TAPS f32), then shared_signal
// (GROUP_SIZE*ITEMS + TAPS - 1 f32), the halo tile -- two shared arrays
// sized by specialization constants (static; the CUDA/OpenCL versions take
// one dynamic block of the same layout).
// Barriers: after the tile load (which also covers the taps on the first
// tile), and after computing from it (before the next tile overwrites it).
// Indices: uint. Positions are offset by the radius so they never go
// negative; the plan keeps n + TILE + TAPS below 2^32.
// Registers: each invocation's ITEMS accumulators live in `acc`; each tap is
// read once for them, and each output sums its taps in order. The loops over
// ITEMS are unrolled; TAPS is a specialization constant, so the driver sees
// a constant trip count for the taps loop and unrolls it as it sees fit
// (forcing a long filter open makes huge shaders).

#extension GL_EXT_control_flow_attributes : enable

layout(constant_id = 0) const uint GROUP_SIZE = 256;
layout(constant_id = 1) const uint ITEMS = 1;
layout(constant_id = 2) const uint TAPS = 1; // odd
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer X { float x[]; };
layout(set = 0, binding = 1) restrict readonly buffer Taps { float taps[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Out { float out_values[]; };
layout(push_constant) uniform Params { uint n; } params;

const uint TILE = GROUP_SIZE * ITEMS;
const uint RADIUS = TAPS / 2u;

shared float shared_taps[TAPS];
shared float shared_signal[TILE + TAPS - 1u];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = params.n;
    uint tiles = n / TILE + (n % TILE != 0u ? 1u : 0u);
    // This workgroup's first tile and the grid's size (x fastest).
    uint first = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    float acc[ITEMS];

    // Phase 1: the taps to shared memory.
    for (uint j = lid; j < TAPS; j += GROUP_SIZE) {
        shared_taps[j] = taps[j];
    }

    for (uint t = first; t < tiles; t += groups) {
        // Phase a: the halo tile, zero outside the signal. -- barrier --
        // Slot s holds x[base + s - RADIUS]; `pos` is that index plus the
        // radius, so it never goes negative.
        uint base = t * TILE;
        for (uint s = lid; s < TILE + TAPS - 1u; s += GROUP_SIZE) {
            uint pos = base + s;
            float value = 0.0;
            if (pos >= RADIUS && pos - RADIUS < n) {
                value = x[pos - RADIUS];
            }
            shared_signal[s] = value;
        }
        barrier();

        // Phase b: outputs o = lid + r*GROUP_SIZE of the tile (consecutive
        // invocations, consecutive outputs), each the sum over its taps in
        // order, from shared memory; those inside the signal are stored.
        // -- barrier --
        [[unroll]] for (uint r = 0u; r < ITEMS; r++) {
            acc[r] = 0.0;
        }
        for (uint j = 0u; j < TAPS; j++) {
            float w = shared_taps[j];
            [[unroll]] for (uint r = 0u; r < ITEMS; r++) {
                acc[r] += w * shared_signal[lid + r * GROUP_SIZE + j];
            }
        }
        [[unroll]] for (uint r = 0u; r < ITEMS; r++) {
            uint o = base + lid + r * GROUP_SIZE;
            if (o < n) {
                out_values[o] = acc[r];
            }
        }
        barrier();
    }
}
