#version 450
// Conv1d direct -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Algorithm: one output per invocation, the taps read straight from global
// memory (the cache serves them), for filters of any length. Tiles of
// GROUP_SIZE outputs (the flat tile index over a 2-D grid; a workgroup
// strides on by the grid's size when the grid holds fewer groups than
// tiles); invocation lid computes output o = t*GROUP_SIZE + lid. One launch
// adds the taps [f_begin, f_end) in order to the running sum: from 0 when
// f_begin = 0, else from what the previous launch left in `out`, so the plan
// splits a long filter over launches (the loop budget) and every split gives
// the bits of one pass. A tap over the zero border multiplies a zero (0*Inf
// is NaN there, as in the reference).
// Shared memory: none. Barriers: none. Private arrays: none.
// Bindings: the output is read and written (the running sum).
// Indices: uint. Positions are offset by the radius so they never go
// negative; the plan keeps n + GROUP_SIZE + TAPS below 2^32.

layout(constant_id = 0) const uint GROUP_SIZE = 256;
layout(constant_id = 1) const uint TAPS = 1; // odd
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer X { float x[]; };
layout(set = 0, binding = 1) restrict readonly buffer Taps { float taps[]; };
layout(set = 0, binding = 2) restrict buffer Out { float out_values[]; };
layout(push_constant) uniform Params {
    uint n;       // signal length
    uint f_begin; // this launch's first tap
    uint f_end;   // one past its last tap (at most TAPS)
} params;

const uint RADIUS = TAPS / 2u;

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = params.n;
    uint f_begin = params.f_begin;
    uint f_end = params.f_end;
    uint tiles = n / GROUP_SIZE + (n % GROUP_SIZE != 0u ? 1u : 0u);
    // This workgroup's first tile and the grid's size (x fastest).
    uint first = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;

    for (uint t = first; t < tiles; t += groups) {
        uint o = t * GROUP_SIZE + lid;
        if (o < n) {
            // Phase a: the running sum, 0 on the first launch, else what the
            // previous launch stored.
            float acc = 0.0;
            if (f_begin != 0u) {
                acc = out_values[o];
            }

            // Phase b: taps j in [f_begin, f_end), in order; tap j reads
            // x[o + j - RADIUS] (zero outside the signal). `pos` is that
            // index plus the radius, so it never goes negative.
            for (uint j = f_begin; j < f_end; j++) {
                uint pos = o + j;
                float value = 0.0;
                if (pos >= RADIUS && pos - RADIUS < n) {
                    value = x[pos - RADIUS];
                }
                acc += taps[j] * value;
            }

            // Phase c: the sum so far, for the next launch or the result.
            out_values[o] = acc;
        }
    }
}
