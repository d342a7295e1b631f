// Conv2d direct — CUDA C, compiled by NVRTC (see mod.rs for the algorithm and interface).
//
// Algorithm: one output per thread, every filter value read straight from
// global memory (L1 serves them), any filter size. Output
// o = t·GROUP_SIZE + lid for t = first, first + groups, … below the blocks
// of GROUP_SIZE outputs (the flat block index over a 2-D grid, x fastest; a
// block strides on by the grid's size when the grid holds fewer blocks than
// output blocks). One launch adds the filter values [f_begin, f_end) (flat,
// row-major) to each output's sum, in order: the launch with f_begin = 0
// starts from 0, later ones from the sum in `out` (the plan splits the
// filter into consecutive chunks, one launch each, to stay within the
// driver's loop budget; the sum order is that of one pass, so every split
// gives the same bits). Filter value f = row·KW + col multiplies the pixel
// at (y + row − RY, x + col − RX) with the border rule: a zero outside under
// BORDER = 0 (0·Inf is NaN, as in the reference), the nearest edge pixel
// under BORDER = 1. Row and column are counters, not a division per value.
// Pixels: f32 (ELEM = 0) or u8 packed four to a word (ELEM = 3), both read
// as 32-bit words and converted to f32 as they are loaded.
// Shared memory: none. Barriers: none. Private arrays: none.
// Indices: unsigned int. Pixel positions are offset by the filter's radii so
// they never go negative; the plan keeps height·width + GROUP_SIZE,
// height + KH, width + KW, KH·KW and blocks + groups below 2^32.
// Constants (-D NAME=valueu): GROUP_SIZE, KH, KW (odd), BORDER (0 zero,
// 1 clamp), ELEM (0 f32, 3 u8).

#define RY (KH / 2u)
#define RX (KW / 2u)

// Pixel p (row-major) as f32: its word (f32), or its byte of word p / 4
// (u8, little-endian).
__forceinline__ __device__ float load(const unsigned int* __restrict__ image, unsigned int p)
{
#if ELEM == 3
    return (float)((image[p >> 2] >> ((p & 3u) * 8u)) & 0xffu);
#else
    return __uint_as_float(image[p]);
#endif
}

// The image at row py − RY, column px − RX with the border rule: 0 outside
// (BORDER = 0) or the nearest edge pixel (BORDER = 1). (py, px) are offset
// by the radii, so they are never negative.
__forceinline__ __device__ float pixel(const unsigned int* __restrict__ image, unsigned int py, unsigned int px,
                                       unsigned int height, unsigned int width)
{
#if BORDER == 1
    const unsigned int y = py < RY ? 0u : min(py - RY, height - 1u);
    const unsigned int x = px < RX ? 0u : min(px - RX, width - 1u);
    return load(image, y * width + x);
#else
    if (py < RY || px < RX || py - RY >= height || px - RX >= width) return 0.0f;
    return load(image, (py - RY) * width + (px - RX));
#endif
}

extern "C" __global__ void __launch_bounds__(GROUP_SIZE)
conv2d_direct(const unsigned int* __restrict__ image, const float* __restrict__ filter, float* __restrict__ out,
              unsigned int height, unsigned int width, unsigned int f_begin, unsigned int f_end)
{
    const unsigned int lid = threadIdx.x;
    const unsigned int outputs = height * width;
    const unsigned int blocks = outputs / GROUP_SIZE + (outputs % GROUP_SIZE != 0u);
    // This block's first output block and the grid's size (x fastest).
    const unsigned int first = blockIdx.y * gridDim.x + blockIdx.x;
    const unsigned int groups = gridDim.x * gridDim.y;
    // The chunk's first filter value's row and column (one division).
    const unsigned int row_begin = f_begin / KW;
    const unsigned int col_begin = f_begin % KW;

    for (unsigned int t = first; t < blocks; t += groups) {
        const unsigned int o = t * GROUP_SIZE + lid;
        if (o < outputs) {
            const unsigned int y = o / width;
            const unsigned int x = o % width;

            // Phase 1: the sum so far: 0 in the first launch, else what the
            // launch before left in `out`.
            float acc = f_begin == 0u ? 0.0f : out[o];

            // Phase 2: filter values f_begin .. f_end − 1, row by row, in
            // order; value (row, col) multiplies the pixel at offset
            // position (y + row, x + col).
            unsigned int row = row_begin;
            unsigned int col = col_begin;
            for (unsigned int f = f_begin; f < f_end; ++f) {
                acc += filter[f] * pixel(image, y + row, x + col, height, width);
                ++col;
                if (col == KW) {
                    col = 0u;
                    ++row;
                }
            }

            // Phase 3: the sum to `out`.
            out[o] = acc;
        }
    }
}
