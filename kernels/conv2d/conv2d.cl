// Conv2d — OpenCL C (see mod.rs for the algorithm and interface).
//
// Shared memory (the trailing `__local` argument, one block): shared_filter
// (KH·KW f32), then shared_tile, the halo tile of (TILE_H + KH − 1) rows ×
// (TILE_W + KW − 1) columns.
// Barriers: after the tile load (on the first tile it also covers the
// filter), and after computing from it.

#define STRIDE (TILE_W + KW - 1)                 // shared_tile row stride
#define TILE_ROWS (TILE_H + KH - 1)
#define ROWS (TILE_W * TILE_H / GROUP_SIZE)      // outputs per invocation
#define ROW_STEP (GROUP_SIZE / TILE_W)           // rows between them

// The image with the border rule: 0 outside (BORDER = 0) or the nearest
// edge pixel (BORDER = 1).
float pixel(__global const float* restrict image, long y, long x, uint height, uint width)
{
#if BORDER == 1
    y = y < 0 ? 0 : (y >= (long)height ? (long)height - 1 : y);
    x = x < 0 ? 0 : (x >= (long)width ? (long)width - 1 : x);
#else
    if (y < 0 || x < 0 || y >= (long)height || x >= (long)width) {
        return 0.0f;
    }
#endif
    return image[y * (long)width + x];
}

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void conv2d(__global const float* restrict image, __global const float* restrict filter,
            __global float* restrict out, uint height, uint width, __local float* shared)
{
    const uint group_size = GROUP_SIZE;
    const uint lid = get_local_id(0);
    const uint tx = lid % TILE_W;
    const uint ty = lid / TILE_W;
    const uint tiles_x = width / TILE_W + (width % TILE_W != 0);
    const uint tiles_y = height / TILE_H + (height % TILE_H != 0);
    __local float* shared_filter = shared;
    __local float* shared_tile = shared + KH * KW;

    // Phase 1: the filter to shared memory.
    for (uint j = lid; j < KH * KW; j += group_size) {
        shared_filter[j] = filter[j];
    }

    for (uint tile_y = get_group_id(1); tile_y < tiles_y; tile_y += get_num_groups(1)) {
        for (uint tile_x = get_group_id(0); tile_x < tiles_x; tile_x += get_num_groups(0)) {
            // Phase a: the halo tile with the border rule. — barrier —
            const long y0 = (long)tile_y * TILE_H - KH / 2;
            const long x0 = (long)tile_x * TILE_W - KW / 2;
            for (uint s = lid; s < TILE_ROWS * STRIDE; s += group_size) {
                const uint r = s / STRIDE;
                const uint c = s % STRIDE;
                shared_tile[s] = pixel(image, y0 + r, x0 + c, height, width);
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            // Phase b: this invocation's outputs (column tx, rows
            // ty + r·ROW_STEP) from shared memory. — barrier —
            const uint rows_left = height - tile_y * TILE_H; // > 0: tile_y < tiles_y
            const uint cols_left = width - tile_x * TILE_W;
#pragma unroll
            for (uint r = 0; r < ROWS; r++) {
                const uint oy = ty + r * ROW_STEP;
                const uint ox = tx;
                float sum = 0.0f;
                for (uint i = 0; i < KH; i++) {
                    for (uint j = 0; j < KW; j++) {
                        sum += shared_filter[i * KW + j] * shared_tile[(oy + i) * STRIDE + ox + j];
                    }
                }
                if (oy < rows_left && ox < cols_left) {
                    const ulong y = (ulong)tile_y * TILE_H + oy;
                    const ulong x = (ulong)tile_x * TILE_W + ox;
                    out[y * width + x] = sum;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
}
