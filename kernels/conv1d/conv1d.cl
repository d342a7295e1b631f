// Conv1d — OpenCL C (see mod.rs for the algorithm and interface).
//
// Algorithm: halo tiles in shared memory, one tile of TILE = GROUP_SIZE·ITEMS
// outputs per workgroup (the flat tile index over a 2-D grid; a workgroup
// strides on by the grid's size when the grid holds fewer groups than
// tiles). Each workgroup loads the taps once, then per tile the signal it
// needs plus TAPS − 1 halo values (zero outside the signal), and computes
// the tile's outputs from shared memory.
// Shared memory (the trailing `__local` argument, one block): shared_taps
// (TAPS f32), then shared_signal (TILE + TAPS − 1 f32) at word TAPS.
// Barriers: after the tile load (which also covers the taps on the first
// tile), and after computing from it (before the next tile overwrites it).
// Indices: uint. Positions are offset by the radius so they never go
// negative; the plan keeps n + TILE + TAPS below 2^32.
// Registers: each invocation's ITEMS accumulators live in `acc`; each tap is
// read once for them, and each output sums its taps in order.
// Constants (-D NAME=valueu): GROUP_SIZE, ITEMS, TAPS (odd).

#define TILE (GROUP_SIZE * ITEMS)
#define RADIUS (TAPS / 2u)

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void conv1d(__global const float* restrict x, __global const float* restrict taps,
            __global float* restrict out, uint n, __local float* shared)
{
    __local float* shared_taps = shared;          // TAPS
    __local float* shared_signal = shared + TAPS; // TILE + TAPS - 1
    const uint lid = get_local_id(0);
    const uint tiles = n / TILE + (n % TILE != 0u ? 1u : 0u);
    // This workgroup's first tile and the grid's size (x fastest).
    const uint first = (uint)get_group_id(1) * (uint)get_num_groups(0) + (uint)get_group_id(0);
    const uint groups = (uint)get_num_groups(0) * (uint)get_num_groups(1);

    // Phase 1: the taps to shared memory.
    for (uint j = lid; j < TAPS; j += GROUP_SIZE) {
        shared_taps[j] = taps[j];
    }

    for (uint t = first; t < tiles; t += groups) {
        // Phase a: the halo tile, zero outside the signal. — barrier —
        // Slot s holds x[base + s − RADIUS]; `pos` is that index plus the
        // radius, so it never goes negative.
        const uint base = t * TILE;
        for (uint s = lid; s < TILE + TAPS - 1u; s += GROUP_SIZE) {
            const uint pos = base + s;
            shared_signal[s] = (pos >= RADIUS && pos - RADIUS < n) ? x[pos - RADIUS] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        // Phase b: outputs o = lid + r·GROUP_SIZE of the tile (consecutive
        // invocations, consecutive outputs), each the sum over its taps in
        // order, from shared memory; those inside the signal are stored.
        // — barrier —
        float acc[ITEMS];
#pragma unroll
        for (uint r = 0; r < ITEMS; r++) {
            acc[r] = 0.0f;
        }
        for (uint j = 0; j < TAPS; j++) {
            const float w = shared_taps[j];
#pragma unroll
            for (uint r = 0; r < ITEMS; r++) {
                acc[r] += w * shared_signal[lid + r * GROUP_SIZE + j];
            }
        }
#pragma unroll
        for (uint r = 0; r < ITEMS; r++) {
            const uint o = base + lid + r * GROUP_SIZE;
            if (o < n) {
                out[o] = acc[r];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
