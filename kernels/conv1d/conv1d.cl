// Conv1d — OpenCL C (see mod.rs for the algorithm and interface).
//
// Shared memory (the trailing `__local` argument, one block): shared_taps
// (TAPS f32), then shared_signal (GROUP_SIZE·ITEMS + TAPS − 1 f32), the halo
// tile.
// Barriers: after the tile load (on the first tile it also covers the taps),
// and after computing from it.

#define TILE (GROUP_SIZE * ITEMS)
#define RADIUS (TAPS / 2)

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void conv1d(__global const float* restrict x, __global const float* restrict taps,
            __global float* restrict out, uint n, __local float* shared)
{
    const uint group_size = GROUP_SIZE;
    const uint lid = get_local_id(0);
    const uint tile = TILE;
    const uint tiles = n / tile + (n % tile != 0);
    __local float* shared_taps = shared;
    __local float* shared_signal = shared + TAPS;

    // Phase 1: the taps to shared memory.
    for (uint j = lid; j < TAPS; j += group_size) {
        shared_taps[j] = taps[j];
    }

    for (uint t = get_group_id(0); t < tiles; t += get_num_groups(0)) {
        // Phase a: the halo tile, zero outside the signal. — barrier —
        const long start = (long)t * tile - RADIUS;
        for (uint s = lid; s < TILE + TAPS - 1; s += group_size) {
            const long src = start + s;
            shared_signal[s] = src >= 0 && src < (long)n ? x[src] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        // Phase b: every output of the tile from shared memory; invocation
        // lid computes outputs lid + r·GROUP_SIZE (consecutive invocations,
        // consecutive outputs). — barrier —
        const uint base = t * tile;
#pragma unroll
        for (uint r = 0; r < ITEMS; r++) {
            const uint o = lid + r * group_size;
            float sum = 0.0f;
            for (uint j = 0; j < TAPS; j++) {
                sum += shared_taps[j] * shared_signal[o + j];
            }
            if (o < n - base) {
                out[base + o] = sum;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
