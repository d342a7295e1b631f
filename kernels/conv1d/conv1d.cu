// Conv1d — CUDA C, compiled by NVRTC (see mod.rs for the algorithm and interface).
//
// Algorithm: halo tiles in shared memory, one tile of TILE = GROUP_SIZE·ITEMS
// outputs per block (the flat tile index over a 2-D grid; a block strides on
// by the grid's size when the grid holds fewer blocks than tiles). Each block
// loads the taps once, then per tile the signal it needs plus TAPS − 1 halo
// values (zero outside the signal), and computes the tile's outputs from
// shared memory.
// Shared memory (dynamic, one block): shared_taps (TAPS f32), then
// shared_signal (TILE + TAPS − 1 f32) at word TAPS.
// Barriers: after the tile load (which also covers the taps on the first
// tile), and after computing from it (before the next tile overwrites it).
// Indices: unsigned int. Positions are offset by the radius so they never go
// negative; the plan keeps n + TILE + TAPS below 2^32.
// Registers: each thread's ITEMS accumulators live in `acc`; each tap is read
// once for them, and each output sums its taps in order.
// Constants (-D NAME=valueu): GROUP_SIZE, ITEMS, TAPS (odd).

#define TILE (GROUP_SIZE * ITEMS)
#define RADIUS (TAPS / 2u)

extern "C" __global__ void __launch_bounds__(GROUP_SIZE)
conv1d(const float* __restrict__ x, const float* __restrict__ taps, float* __restrict__ out, unsigned int n)
{
    extern __shared__ float shared[];
    float* shared_taps = shared;           // TAPS
    float* shared_signal = shared + TAPS;  // TILE + TAPS - 1
    const unsigned int lid = threadIdx.x;
    const unsigned int tiles = n / TILE + (n % TILE != 0u);
    // This block's first tile and the grid's size (x fastest).
    const unsigned int first = blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned int groups = gridDim.x * gridDim.y;

    // Phase 1: the taps to shared memory.
    for (unsigned int j = lid; j < TAPS; j += GROUP_SIZE) shared_taps[j] = taps[j];

    for (unsigned int t = first; t < tiles; t += groups) {
        // Phase a: the halo tile, zero outside the signal. — barrier —
        // Slot s holds x[base + s − RADIUS]; `pos` is that index plus the
        // radius, so it never goes negative.
        const unsigned int base = t * TILE;
        for (unsigned int s = lid; s < TILE + TAPS - 1u; s += GROUP_SIZE) {
            const unsigned int pos = base + s;
            shared_signal[s] = (pos >= RADIUS && pos - RADIUS < n) ? x[pos - RADIUS] : 0.0f;
        }
        __syncthreads();

        // Phase b: outputs o = lid + r·GROUP_SIZE of the tile (consecutive
        // threads, consecutive outputs), each the sum over its taps in order,
        // from shared memory; those inside the signal are stored. — barrier —
        float acc[ITEMS];
#pragma unroll
        for (unsigned int r = 0; r < ITEMS; ++r) acc[r] = 0.0f;
#pragma unroll(TAPS <= 64u ? TAPS : 8u)
        for (unsigned int j = 0; j < TAPS; ++j) {
            const float w = shared_taps[j];
#pragma unroll
            for (unsigned int r = 0; r < ITEMS; ++r) acc[r] += w * shared_signal[lid + r * GROUP_SIZE + j];
        }
#pragma unroll
        for (unsigned int r = 0; r < ITEMS; ++r) {
            const unsigned int o = base + lid + r * GROUP_SIZE;
            if (o < n) out[o] = acc[r];
        }
        __syncthreads();
    }
}
