// Conv1d direct — OpenCL C (see mod.rs for the algorithm and interface).
//
// Algorithm: one output per invocation, the taps read straight from global
// memory (the cache serves them), for filters of any length. Tiles of
// GROUP_SIZE outputs (the flat tile index over a 2-D grid; a workgroup
// strides on by the grid's size when the grid holds fewer groups than
// tiles); invocation lid computes output o = t·GROUP_SIZE + lid. One launch
// adds the taps [f_begin, f_end) in order to the running sum: from 0 when
// f_begin = 0, else from what the previous launch left in `out`, so the plan
// splits a long filter over launches (the loop budget) and every split gives
// the bits of one pass. A tap over the zero border multiplies a zero (0·Inf
// is NaN there, as in the reference).
// Shared memory: none. Barriers: none. Private arrays: none.
// Bindings: the output is read and written (the running sum).
// Indices: uint. Positions are offset by the radius so they never go
// negative; the plan keeps n + GROUP_SIZE + TAPS below 2^32.
// Constants (-D NAME=valueu): GROUP_SIZE, TAPS (odd).

#define RADIUS (TAPS / 2u)

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void conv1d_direct(__global const float* restrict x, __global const float* restrict taps,
                   __global float* restrict out, uint n, uint f_begin, uint f_end)
{
    const uint lid = get_local_id(0);
    const uint tiles = n / GROUP_SIZE + (n % GROUP_SIZE != 0u ? 1u : 0u);
    // This workgroup's first tile and the grid's size (x fastest).
    const uint first = (uint)get_group_id(1) * (uint)get_num_groups(0) + (uint)get_group_id(0);
    const uint groups = (uint)get_num_groups(0) * (uint)get_num_groups(1);

    for (uint t = first; t < tiles; t += groups) {
        const uint o = t * GROUP_SIZE + lid;
        if (o < n) {
            // Phase a: the running sum, 0 on the first launch, else what the
            // previous launch stored.
            float acc = 0.0f;
            if (f_begin != 0u) {
                acc = out[o];
            }

            // Phase b: taps j in [f_begin, f_end), in order; tap j reads
            // x[o + j − RADIUS] (zero outside the signal). `pos` is that
            // index plus the radius, so it never goes negative.
            for (uint j = f_begin; j < f_end; j++) {
                const uint pos = o + j;
                const float value = (pos >= RADIUS && pos - RADIUS < n) ? x[pos - RADIUS] : 0.0f;
                acc += taps[j] * value;
            }

            // Phase c: the sum so far, for the next launch or the result.
            out[o] = acc;
        }
    }
}
