// Conv1d window — OpenCL C (see mod.rs for the algorithm and interface).
//
// Algorithm: a register window per invocation, nothing in shared memory.
// Tiles of TILE = GROUP_SIZE·ITEMS outputs as in conv1d.cl (the flat tile
// index over a 2-D grid; a workgroup strides on by the grid's size when the
// grid holds fewer groups than tiles). In a tile, invocation lid computes the
// vectors v = lid + r·GROUP_SIZE, r < ITEMS / 4 (four consecutive outputs
// each; consecutive invocations, consecutive vectors). For the vector at
// output o it fills the window x[o − 4·HALO, o + 4 + 4·HALO) — 2·HALO + 1
// 16-byte loads when the window lies inside the signal, else one word at a
// time, zero outside — and sums each of its four outputs' taps in order from
// it. Neighbours' windows overlap by 2·HALO vectors: the cache serves the
// overlap, and DRAM sees each value about once.
// Shared memory: none. Barriers: none.
// Registers: the taps (`weights`, loaded once), the window (WINDOW f32) and
// four sums; the loops over them are unrolled (TAPS is a constant, at most
// 33: the plan's MAX_WINDOW_TAPS).
// Indices: uint. Window slots are offset by 4·HALO so positions never go
// negative; the plan keeps n + TILE + TAPS + 8 below 2^32.
// Constants (-D NAME=valueu): GROUP_SIZE, ITEMS (a multiple of 4), TAPS (odd).

#define TILE (GROUP_SIZE * ITEMS)
#define RADIUS (TAPS / 2u)
#define HALO ((RADIUS + 3u) / 4u)       // vectors of halo on each side
#define WINDOW (4u * (2u * HALO + 1u))  // window words
#define VECTORS (ITEMS / 4u)            // vectors per invocation per tile

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void conv1d_window(__global const float* restrict x, __global const float* restrict taps,
                   __global float* restrict out, uint n)
{
    const uint lid = get_local_id(0);
    const uint tiles = n / TILE + (n % TILE != 0u ? 1u : 0u);
    // This workgroup's first tile and the grid's size (x fastest).
    const uint first = (uint)get_group_id(1) * (uint)get_num_groups(0) + (uint)get_group_id(0);
    const uint groups = (uint)get_num_groups(0) * (uint)get_num_groups(1);
    // Bindings start 16-byte aligned: vector v is words 4v .. 4v + 3.
    __global const float4* x_vectors = (__global const float4*)x;
    __global float4* out_vectors = (__global float4*)out;

    // Phase 1: the taps to registers.
    float weights[TAPS];
#pragma unroll
    for (uint j = 0; j < TAPS; j++) {
        weights[j] = taps[j];
    }

    for (uint t = first; t < tiles; t += groups) {
#pragma unroll
        for (uint r = 0; r < VECTORS; r++) {
            const uint v = t * (TILE / 4u) + lid + r * GROUP_SIZE;
            const uint o = 4u * v; // the vector's first output
            if (o < n) {
                // Phase a: the window. Slot s holds x[o + s − 4·HALO]; `pos`
                // is that index plus 4·HALO, so it never goes negative.
                float window[WINDOW];
                const bool inside = o >= 4u * HALO && o + 4u + 4u * HALO <= n;
                if (inside) {
#pragma unroll
                    for (uint q = 0; q < 2u * HALO + 1u; q++) {
                        const float4 value = x_vectors[v - HALO + q];
                        window[4u * q] = value.x;
                        window[4u * q + 1u] = value.y;
                        window[4u * q + 2u] = value.z;
                        window[4u * q + 3u] = value.w;
                    }
                } else {
#pragma unroll
                    for (uint s = 0; s < WINDOW; s++) {
                        const uint pos = o + s;
                        window[s] = (pos >= 4u * HALO && pos - 4u * HALO < n) ? x[pos - 4u * HALO] : 0.0f;
                    }
                }

                // Phase b: output o + k sums its taps in order; tap j reads
                // x[o + k + j − RADIUS], window slot k + j + 4·HALO − RADIUS.
                float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
                for (uint j = 0; j < TAPS; j++) {
#pragma unroll
                    for (uint k = 0; k < 4u; k++) {
                        acc[k] += weights[j] * window[k + j + 4u * HALO - RADIUS];
                    }
                }

                // Phase c: a whole vector inside the signal in one store,
                // else the outputs below n one by one.
                if (o + 4u <= n) {
                    out_vectors[v] = (float4)(acc[0], acc[1], acc[2], acc[3]);
                } else {
#pragma unroll
                    for (uint k = 0; k < 4u; k++) {
                        if (o + k < n) {
                            out[o + k] = acc[k];
                        }
                    }
                }
            }
        }
    }
}
