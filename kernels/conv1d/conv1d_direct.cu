// Conv1d direct — CUDA C, compiled by NVRTC (see mod.rs for the algorithm and interface).
//
// Algorithm: one output per thread, the taps read straight from global
// memory (the cache serves them), for filters of any length. Tiles of
// GROUP_SIZE outputs (the flat tile index over a 2-D grid; a block strides
// on by the grid's size when the grid holds fewer blocks than tiles); thread
// lid computes output o = t·GROUP_SIZE + lid. One launch adds the taps
// [f_begin, f_end) in order to the running sum: from 0 when f_begin = 0,
// else from what the previous launch left in `out`, so the plan splits a
// long filter over launches (the loop budget) and every split gives the
// bits of one pass. A tap over the zero border multiplies a zero (0·Inf is
// NaN there, as in the reference).
// Shared memory: none. Barriers: none. Private arrays: none.
// Bindings: the output is read and written (the running sum).
// Indices: unsigned int. Positions are offset by the radius so they never go
// negative; the plan keeps n + GROUP_SIZE + TAPS below 2^32.
// Constants (-D NAME=valueu): GROUP_SIZE, TAPS (odd).

#define RADIUS (TAPS / 2u)

extern "C" __global__ void __launch_bounds__(GROUP_SIZE)
conv1d_direct(const float* __restrict__ x, const float* __restrict__ taps, float* __restrict__ out, unsigned int n,
              unsigned int f_begin, unsigned int f_end)
{
    const unsigned int lid = threadIdx.x;
    const unsigned int tiles = n / GROUP_SIZE + (n % GROUP_SIZE != 0u);
    // This block's first tile and the grid's size (x fastest).
    const unsigned int first = blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned int groups = gridDim.x * gridDim.y;

    for (unsigned int t = first; t < tiles; t += groups) {
        const unsigned int o = t * GROUP_SIZE + lid;
        if (o < n) {
            // Phase a: the running sum, 0 on the first launch, else what the
            // previous launch stored.
            float acc = f_begin != 0u ? out[o] : 0.0f;

            // Phase b: taps j in [f_begin, f_end), in order; tap j reads
            // x[o + j − RADIUS] (zero outside the signal). `pos` is that
            // index plus the radius, so it never goes negative.
            for (unsigned int j = f_begin; j < f_end; ++j) {
                const unsigned int pos = o + j;
                const float value = (pos >= RADIUS && pos - RADIUS < n) ? x[pos - RADIUS] : 0.0f;
                acc += taps[j] * value;
            }

            // Phase c: the sum so far, for the next launch or the result.
            out[o] = acc;
        }
    }
}
