#version 450
// Conv1d -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Shared memory: shared_taps (TAPS f32), then shared_signal
// (GROUP_SIZE*ITEMS + TAPS - 1 f32), the halo tile -- two shared arrays
// sized by specialization constants (static; mod.rs's single dynamic block
// is the CUDA/OpenCL form of the same layout).
// Barriers: after the tile load (which also covers the taps on the first
// tile), and after computing from it.
// Registers: each invocation's ITEMS accumulators live in `acc`; the loops
// over them are unrolled. TAPS is a specialization constant, so the driver
// sees a constant trip count for the taps loop and unrolls it as it sees fit
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

shared float shared_taps[TAPS];
shared float shared_signal[GROUP_SIZE * ITEMS + TAPS - 1u];

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = params.n;
    uint tile = GROUP_SIZE * ITEMS;
    uint radius = TAPS / 2u;
    uint tiles = n / tile + (n % tile != 0u ? 1u : 0u);
    float acc[ITEMS];

    // Phase 1: the taps to shared memory.
    for (uint j = lid; j < TAPS; j += GROUP_SIZE) {
        shared_taps[j] = taps[j];
    }

    for (uint t = gl_WorkGroupID.x; t < tiles; t += gl_NumWorkGroups.x) {
        // Phase a: the halo tile, zero outside the signal. -- barrier --
        // Slot s holds x[start + s] with start = t*tile - radius; `pos` is
        // that index plus radius, so it never goes negative in uint.
        uint base = t * tile;
        for (uint s = lid; s < tile + TAPS - 1u; s += GROUP_SIZE) {
            uint pos = base + s;
            float value = 0.0;
            if (pos >= radius && pos - radius < n) {
                value = x[pos - radius];
            }
            shared_signal[s] = value;
        }
        barrier();

        // Phase b: ITEMS outputs per invocation, o = lid + r*GROUP_SIZE
        // (consecutive invocations, consecutive outputs), from shared
        // memory; each tap is read once for the ITEMS outputs, each output
        // sums the taps in order. -- barrier --
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
            uint o = lid + r * GROUP_SIZE;
            if (base + o < n) {
                out_values[base + o] = acc[r];
            }
        }
        barrier();
    }
}
