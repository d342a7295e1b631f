// Conv2d — CUDA C, compiled by NVRTC (see mod.rs for the algorithm and interface).
//
// Algorithm: halo tiles in shared memory. A tile is TILE_W × TILE_H outputs;
// the block's GROUP_SIZE threads cover it as TILE_W columns by
// GROUP_SIZE / TILE_W rows, each thread computing ROWS outputs of its column
// (rows ty + r·ROW_STEP). Each block loads the filter once, then, grid-stride
// over tiles in both axes, loads the halo tile with the border rule and
// computes the tile from shared memory.
// Shared memory (dynamic, one block): shared_filter (KH·KW f32), then
// shared_tile ((TILE_H + KH − 1) rows of STRIDE = TILE_W + KW − 1 f32) at
// word KH·KW.
// Barriers: after the tile load (also covering the filter on the first
// tile), and after computing from it.
// Constants (-D NAME=valueu): GROUP_SIZE, TILE_W, TILE_H, KH, KW (odd),
// BORDER (0 zero, 1 clamp).

#define STRIDE (TILE_W + KW - 1u)     // shared_tile row stride
#define TILE_ROWS (TILE_H + KH - 1u)  // shared_tile rows
#define ROW_STEP (GROUP_SIZE / TILE_W)
#define ROWS (TILE_W * TILE_H / GROUP_SIZE)

// One image pixel under the border rule; (y, x) may lie outside the image.
__forceinline__ float pixel(const float* __restrict__ image, long long y, long long x, unsigned int height, unsigned int width)
{
#if BORDER == 1
    y = y < 0 ? 0 : (y >= height ? height - 1 : y);
    x = x < 0 ? 0 : (x >= width ? width - 1 : x);
    return image[(size_t)y * width + (size_t)x];
#else
    if (y < 0 || x < 0 || y >= height || x >= width) return 0.0f;
    return image[(size_t)y * width + (size_t)x];
#endif
}

extern "C" __global__ void __launch_bounds__(GROUP_SIZE)
conv2d(const float* __restrict__ image, const float* __restrict__ filter, float* __restrict__ out,
       unsigned int height, unsigned int width)
{
    extern __shared__ float shared[];
    float* shared_filter = shared;         // KH * KW
    float* shared_tile = shared + KH * KW; // TILE_ROWS * STRIDE
    const unsigned int lid = threadIdx.x;
    const unsigned int tx = lid % TILE_W;  // this thread's column in the tile
    const unsigned int ty = lid / TILE_W;  // its first row
    const unsigned int tiles_x = width / TILE_W + (width % TILE_W != 0);
    const unsigned int tiles_y = height / TILE_H + (height % TILE_H != 0);

    // Phase 1: the filter to shared memory.
    for (unsigned int s = lid; s < KH * KW; s += GROUP_SIZE) shared_filter[s] = filter[s];

    for (unsigned int tile_y = blockIdx.y; tile_y < tiles_y; tile_y += gridDim.y) {
        for (unsigned int tile_x = blockIdx.x; tile_x < tiles_x; tile_x += gridDim.x) {
            // Phase a: the halo tile with the border rule. — barrier —
            const long long y0 = (long long)tile_y * TILE_H - (long long)(KH / 2u);
            const long long x0 = (long long)tile_x * TILE_W - (long long)(KW / 2u);
            for (unsigned int s = lid; s < TILE_ROWS * STRIDE; s += GROUP_SIZE) {
                const unsigned int r = s / STRIDE, c = s % STRIDE;
                shared_tile[s] = pixel(image, y0 + r, x0 + c, height, width);
            }
            __syncthreads();

            // Phase b: this thread's outputs from shared memory; each filter
            // weight is read once for its ROWS outputs, each output sums
            // the filter row by row in order.
            float acc[ROWS];
#pragma unroll
            for (unsigned int r = 0; r < ROWS; ++r) acc[r] = 0.0f;
#pragma unroll(KH <= 9u ? KH : 1u)
            for (unsigned int i = 0; i < KH; ++i) {
#pragma unroll(KW <= 9u ? KW : 4u)
                for (unsigned int j = 0; j < KW; ++j) {
                    const float w = shared_filter[i * KW + j];
#pragma unroll
                    for (unsigned int r = 0; r < ROWS; ++r) {
                        acc[r] += w * shared_tile[(ty + r * ROW_STEP + i) * STRIDE + tx + j];
                    }
                }
            }
            const size_t x = (size_t)tile_x * TILE_W + tx;
#pragma unroll
            for (unsigned int r = 0; r < ROWS; ++r) {
                const size_t y = (size_t)tile_y * TILE_H + ty + r * ROW_STEP;
                if (y < height && x < width) out[y * width + x] = acc[r];
            }
            __syncthreads();
        }
    }
}
