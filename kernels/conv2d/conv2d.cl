// Conv2d — OpenCL C (see mod.rs for the algorithm and interface).
//
// Algorithm: halo tiles in shared memory, one TILE_W × TILE_H tile of
// outputs per workgroup (the flat tile index over a 2-D grid, x fastest; a
// workgroup strides on by the grid's size when the grid holds fewer groups
// than tiles). The GROUP_SIZE invocations cover the tile as TILE_W columns
// by GROUP_SIZE / TILE_W rows, each computing ROWS = TILE_W·TILE_H /
// GROUP_SIZE outputs of its column: ROW_STEP = GROUP_SIZE / TILE_W rows
// apart (WINDOW = 0), or consecutive (WINDOW = 1). Each workgroup loads the
// filter once (WINDOW = 1: each invocation, into registers), then per tile
// the image pixels it needs (with the border rule, which tiles whose halo
// lies inside the image skip) and computes the tile's outputs from shared
// memory.
// Pixels: f32 (ELEM = 0) or u8 packed four to a word (ELEM = 3), both read
// as uint words and converted to f32 when loaded into the halo tile.
// Shared memory (the trailing `__local` argument, one block): shared_filter
// (KH·KW f32), then shared_tile ((TILE_H + KH − 1) rows of
// STRIDE = TILE_W + KW − 1 f32) at word KH·KW.
// Barriers: after the tile load (which also covers the filter on the first
// tile), and after computing from it (before the next tile overwrites it).
// Indices: uint. Halo positions are offset by the filter's radii so they
// never go negative; the plan keeps height·width, height + TILE_H + KH and
// width + TILE_W + KW below 2^32.
// Registers: each invocation's ROWS accumulators live in `acc`. WINDOW = 0:
// each filter weight is read from shared memory once for them. WINDOW = 1
// (the register window): the KH·KW weights live in `weight`, and the
// invocation walks the ROWS + KH − 1 halo rows its outputs cover, reading
// each value it needs once and adding it to every output whose filter
// covers it: (ROWS + KH − 1)·KW shared reads for ROWS·KH·KW products
// (the plan keeps KH·KW <= 81, ROWS <= 16). Either way each output sums
// the filter row by row, in order.
// Constants (-D NAME=valueu): GROUP_SIZE, TILE_W, TILE_H, KH, KW (odd),
// BORDER (0 zero, 1 clamp), ELEM (0 f32, 3 u8), WINDOW (0 tiles, 1 register
// window).

#define STRIDE (TILE_W + KW - 1u)     // shared_tile row stride
#define TILE_ROWS (TILE_H + KH - 1u)  // shared_tile rows
#define ROW_STEP (GROUP_SIZE / TILE_W)
#define OUT_STEP (WINDOW ? 1u : ROW_STEP)  // rows between one invocation's outputs
#define ROWS (TILE_W * TILE_H / GROUP_SIZE)
#define RY (KH / 2u)
#define RX (KW / 2u)

// Pixel p (row-major) as f32: its word (f32), or its byte of word p / 4
// (u8, little-endian).
float load(__global const uint* restrict image, uint p)
{
#if ELEM == 3
    return (float)((image[p >> 2] >> ((p & 3u) * 8u)) & 0xffu);
#else
    return as_float(image[p]);
#endif
}

// The image at row py − RY, column px − RX with the border rule: 0 outside
// (BORDER = 0) or the nearest edge pixel (BORDER = 1). (py, px) are offset
// by the radii, so they are never negative.
float pixel(__global const uint* restrict image, uint py, uint px, uint height, uint width)
{
#if BORDER == 1
    const uint y = py < RY ? 0u : min(py - RY, height - 1u);
    const uint x = px < RX ? 0u : min(px - RX, width - 1u);
    return load(image, y * width + x);
#else
    if (py < RY || px < RX || py - RY >= height || px - RX >= width) {
        return 0.0f;
    }
    return load(image, (py - RY) * width + (px - RX));
#endif
}

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void conv2d(__global const uint* restrict image, __global const float* restrict filter,
            __global float* restrict out, uint height, uint width, __local float* shared)
{
    __local float* shared_filter = shared;         // KH * KW
    __local float* shared_tile = shared + KH * KW; // TILE_ROWS * STRIDE
    const uint lid = get_local_id(0);
    const uint tx = lid % TILE_W; // this invocation's column in the tile
    const uint ty = lid / TILE_W; // its row of invocations
    // Its outputs' rows in the tile: oy + k·OUT_STEP for k < ROWS.
    const uint oy = WINDOW ? ty * ROWS : ty;
    const uint tiles_x = width / TILE_W + (width % TILE_W != 0u ? 1u : 0u);
    const uint tiles_y = height / TILE_H + (height % TILE_H != 0u ? 1u : 0u);
    const uint tiles = tiles_x * tiles_y;
    // This workgroup's first tile and the grid's size (x fastest).
    const uint first = (uint)get_group_id(1) * (uint)get_num_groups(0) + (uint)get_group_id(0);
    const uint groups = (uint)get_num_groups(0) * (uint)get_num_groups(1);

    // Phase 1: the filter to shared memory (WINDOW = 1: to registers).
#if WINDOW
    float weight[KH * KW];
#pragma unroll
    for (uint f = 0; f < KH * KW; f++) {
        weight[f] = filter[f];
    }
#else
    for (uint f = lid; f < KH * KW; f += GROUP_SIZE) {
        shared_filter[f] = filter[f];
    }
#endif

    for (uint t = first; t < tiles; t += groups) {
        // Phase a: the halo tile with the border rule. — barrier —
        // Slot (r, c) holds the pixel at row y0 + r − RY, column x0 + c − RX.
        const uint y0 = (t / tiles_x) * TILE_H;
        const uint x0 = (t % tiles_x) * TILE_W;
        // A tile whose halo lies inside the image (most of a large one) skips
        // the border rule: slot (r, c) is pixel origin + r·width + c. One
        // loop with the choice inside, not a loop per case as in the other
        // languages: PoCL 5.0 (LLVM 16) aborts the process on that form
        // (assertion `region_entry_barrier != NULL` in
        // createParallelRegionBefore, when the kernel first runs).
        const bool inside = y0 >= RY && x0 >= RX && y0 + TILE_ROWS - RY <= height && x0 + STRIDE - RX <= width;
        const uint origin = inside ? (y0 - RY) * width + (x0 - RX) : 0u;
        for (uint s = lid; s < TILE_ROWS * STRIDE; s += GROUP_SIZE) {
            const uint r = s / STRIDE;
            const uint c = s % STRIDE;
            shared_tile[s] = inside ? load(image, origin + r * width + c)
                                    : pixel(image, y0 + r, x0 + c, height, width);
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        // Phase b: this invocation's outputs (column tx, rows
        // oy + k·OUT_STEP) from shared memory, each the sum over the filter
        // row by row, in order; those inside the image are stored.
        // — barrier —
        float acc[ROWS];
#pragma unroll
        for (uint k = 0; k < ROWS; k++) {
            acc[k] = 0.0f;
        }
#if WINDOW
        // Halo row oy + r holds filter row i of output k = r − i.
#pragma unroll
        for (uint r = 0; r < ROWS + KH - 1u; r++) {
#pragma unroll
            for (uint j = 0; j < KW; j++) {
                const float v = shared_tile[(oy + r) * STRIDE + tx + j];
#pragma unroll
                for (uint i = 0; i < KH; i++) {
                    if (r >= i && r - i < ROWS) {
                        acc[r - i] += weight[i * KW + j] * v;
                    }
                }
            }
        }
#else
        for (uint i = 0; i < KH; i++) {
            for (uint j = 0; j < KW; j++) {
                const float w = shared_filter[i * KW + j];
#pragma unroll
                for (uint k = 0; k < ROWS; k++) {
                    acc[k] += w * shared_tile[(oy + k * OUT_STEP + i) * STRIDE + tx + j];
                }
            }
        }
#endif
        const uint gx = x0 + tx;
#pragma unroll
        for (uint k = 0; k < ROWS; k++) {
            const uint gy = y0 + oy + k * OUT_STEP;
            if (gy < height && gx < width) {
                out[gy * width + gx] = acc[k];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
