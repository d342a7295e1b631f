// Conv1d — CUDA C, compiled by NVRTC (see mod.rs for the algorithm and interface).
//
// Algorithm: halo tiles in shared memory. Each block loads the taps once,
// then, grid-stride over tiles of TILE = GROUP_SIZE·ITEMS outputs, loads the
// tile's signal plus TAPS − 1 halo values (zero outside the signal) and
// computes every output of the tile from shared memory.
// Shared memory (dynamic, one block): shared_taps (TAPS f32), then
// shared_signal (TILE + TAPS − 1 f32) at word TAPS.
// Barriers: after the tile load (also covering the taps on the first tile),
// and after computing from it (before the next tile overwrites it).
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
    const unsigned int tiles = n / TILE + (n % TILE != 0);

    // Phase 1: the taps to shared memory.
    for (unsigned int j = lid; j < TAPS; j += GROUP_SIZE) shared_taps[j] = taps[j];

    for (unsigned int t = blockIdx.x; t < tiles; t += gridDim.x) {
        // Phase a: the halo tile, zero outside the signal. — barrier —
        const long long start = (long long)t * TILE - (long long)RADIUS;
        for (unsigned int s = lid; s < TILE + TAPS - 1; s += GROUP_SIZE) {
            const long long src = start + s;
            shared_signal[s] = (src >= 0 && src < (long long)n) ? x[src] : 0.0f;
        }
        __syncthreads();

        // Phase b: outputs o = lid + r·GROUP_SIZE of the tile (consecutive
        // threads, consecutive outputs). Each tap is read once for the
        // thread's ITEMS outputs; each output sums its taps in order.
        float acc[ITEMS];
#pragma unroll
        for (unsigned int r = 0; r < ITEMS; ++r) acc[r] = 0.0f;
#pragma unroll(TAPS <= 64u ? TAPS : 8u)
        for (unsigned int j = 0; j < TAPS; ++j) {
            const float w = shared_taps[j];
#pragma unroll
            for (unsigned int r = 0; r < ITEMS; ++r) acc[r] += w * shared_signal[lid + r * GROUP_SIZE + j];
        }
        const size_t base = (size_t)t * TILE;
#pragma unroll
        for (unsigned int r = 0; r < ITEMS; ++r) {
            const size_t o = base + lid + r * GROUP_SIZE;
            if (o < n) out[o] = acc[r];
        }
        __syncthreads();
    }
}
