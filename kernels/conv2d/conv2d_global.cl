// Conv2d global — OpenCL C (see mod.rs for the algorithm and interface).
//
// Algorithm: a register window per invocation read straight from global
// memory, nothing in shared memory. Tiles of TILE_W × TILE_H outputs
// (TILE_W = 4 · COLUMNS, TILE_H = GROUP_SIZE / COLUMNS · ROWS; the flat tile
// index over a 2-D grid, x fastest; a workgroup strides on by the grid's
// size when the grid holds fewer groups than tiles). Invocation lid computes
// a block of 4 columns (a vector; consecutive invocations, consecutive
// vectors) by ROWS consecutive rows. It walks the ROWS + KH − 1 image rows
// its outputs cover: for each it fills the window of columns x − 4·HALO ..
// x + 4 + 4·HALO — 2·HALO + 1 vector loads (16 bytes of f32, or one word of
// four u8) when the row lies inside the image, its rows are vector-aligned
// (width % 4 = 0) and the window lies inside them, else pixel by pixel with
// the border rule — and adds each window value to every output whose filter
// covers it. Windows of neighbouring invocations overlap: the cache serves
// the overlap, and DRAM sees each pixel about once.
// Pixels: f32 (ELEM = 0) or u8 packed four to a word (ELEM = 3), converted
// to f32 as they enter the window.
// Shared memory: none. Barriers: none.
// Registers: the KH·KW weights (`weight`, loaded once), the window (WINDOW
// f32) and the 4·ROWS sums (`acc`); every loop over them is unrolled (the
// plan keeps KH·KW ≤ 81 and ROWS ≤ 8). Each output sums the filter row by
// row, in order, as the other conv2d kernels do.
// Indices: uint. Window positions are offset (rows by RY, columns by
// 4·HALO) so they never go negative; the plan keeps height·width,
// height + TILE_H + KH and width + TILE_W + KW below 2^32.
// Constants (-D NAME=valueu): GROUP_SIZE (a multiple of COLUMNS), ROWS, KH,
// KW (odd), BORDER (0 zero, 1 clamp), ELEM (0 f32, 3 u8).

#define COLUMNS 32u                    // vectors across a tile
#define TILE_W (4u * COLUMNS)
#define TILE_H (GROUP_SIZE / COLUMNS * ROWS)
#define RY (KH / 2u)
#define RX (KW / 2u)
#define HALO ((RX + 3u) / 4u)          // vectors of halo on each side
#define WINDOW (4u * (2u * HALO + 1u)) // window values

// Pixel p (row-major) as f32: its word (f32), or its byte of word p / 4.
inline float load(__global const uint* restrict image, uint p)
{
#if ELEM == 3
    return (float)((image[p >> 2] >> ((p & 3u) * 8u)) & 0xffu);
#else
    return as_float(image[p]);
#endif
}

// The image at row py − RY, column px − 4·HALO with the border rule: 0
// outside (BORDER = 0) or the nearest edge pixel (BORDER = 1). (py, px) are
// offset, so they are never negative.
inline float pixel(__global const uint* restrict image, uint py, uint px, uint height, uint width)
{
#if BORDER == 1
    const uint y = py < RY ? 0u : min(py - RY, height - 1u);
    const uint x = px < 4u * HALO ? 0u : min(px - 4u * HALO, width - 1u);
    return load(image, y * width + x);
#else
    if (py < RY || px < 4u * HALO || py - RY >= height || px - 4u * HALO >= width) {
        return 0.0f;
    }
    return load(image, (py - RY) * width + (px - 4u * HALO));
#endif
}

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void conv2d_global(__global const uint* restrict image, __global const float* restrict filter,
                   __global float* restrict out, uint height, uint width)
{
    const uint lid = get_local_id(0);
    const uint tiles_x = width / TILE_W + (width % TILE_W != 0u ? 1u : 0u);
    const uint tiles_y = height / TILE_H + (height % TILE_H != 0u ? 1u : 0u);
    const uint tiles = tiles_x * tiles_y;
    // This workgroup's first tile and the grid's size (x fastest).
    const uint first = (uint)get_group_id(1) * (uint)get_num_groups(0) + (uint)get_group_id(0);
    const uint groups = (uint)get_num_groups(0) * (uint)get_num_groups(1);
    // Rows start on a vector: 16-byte loads (and stores) of whole vectors.
    const bool aligned = width % 4u == 0u;

    // Phase 1: the filter to registers.
    float weight[KH * KW];
#pragma unroll
    for (uint f = 0; f < KH * KW; f++) {
        weight[f] = filter[f];
    }

    for (uint t = first; t < tiles; t += groups) {
        // This invocation's outputs: columns x .. x + 3, rows y .. y + ROWS − 1.
        const uint x = (t % tiles_x) * TILE_W + 4u * (lid % COLUMNS);
        const uint y = (t / tiles_x) * TILE_H + ROWS * (lid / COLUMNS);
        if (x < width && y < height) {
            float acc[ROWS][4];
#pragma unroll
            for (uint k = 0; k < ROWS; k++) {
#pragma unroll
                for (uint c = 0; c < 4u; c++) {
                    acc[k][c] = 0.0f;
                }
            }
            // The window's columns lie inside aligned rows: vector loads.
            const bool columns_inside = aligned && x >= 4u * HALO && x + 4u + 4u * HALO <= width;

#pragma unroll
            for (uint r = 0; r < ROWS + KH - 1u; r++) {
                // Phase a: window row r (image row y + r − RY). Slot s holds
                // column x + s − 4·HALO.
                const uint py = y + r;
                float window[WINDOW];
                if (columns_inside && py >= RY && py - RY < height) {
                    const uint q0 = ((py - RY) * width + x) / 4u - HALO;
#pragma unroll
                    for (uint q = 0; q < 2u * HALO + 1u; q++) {
#if ELEM == 3
                        const uint word = image[q0 + q];
                        window[4u * q] = (float)(word & 0xffu);
                        window[4u * q + 1u] = (float)((word >> 8) & 0xffu);
                        window[4u * q + 2u] = (float)((word >> 16) & 0xffu);
                        window[4u * q + 3u] = (float)(word >> 24);
#else
                        const float4 value = as_float4(((__global const uint4*)image)[q0 + q]);
                        window[4u * q] = value.x;
                        window[4u * q + 1u] = value.y;
                        window[4u * q + 2u] = value.z;
                        window[4u * q + 3u] = value.w;
#endif
                    }
                } else {
#pragma unroll
                    for (uint s = 0; s < WINDOW; s++) {
                        window[s] = pixel(image, py, x + s, height, width);
                    }
                }

                // Phase b: window row r holds filter row i of output row
                // k = r − i; output column c takes slots c + j + 4·HALO − RX.
#pragma unroll
                for (uint i = 0; i < KH; i++) {
                    if (r >= i && r - i < ROWS) {
#pragma unroll
                        for (uint j = 0; j < KW; j++) {
#pragma unroll
                            for (uint c = 0; c < 4u; c++) {
                                acc[r - i][c] += weight[i * KW + j] * window[c + j + 4u * HALO - RX];
                            }
                        }
                    }
                }
            }

            // Phase c: the outputs inside the image; whole vectors in one
            // 16-byte store where the rows are aligned.
#pragma unroll
            for (uint k = 0; k < ROWS; k++) {
                const uint gy = y + k;
                if (gy < height) {
                    if (aligned && x + 4u <= width) {
                        ((__global float4*)out)[(gy * width + x) / 4u] =
                            (float4)(acc[k][0], acc[k][1], acc[k][2], acc[k][3]);
                    } else {
#pragma unroll
                        for (uint c = 0; c < 4u; c++) {
                            if (x + c < width) {
                                out[gy * width + x + c] = acc[k][c];
                            }
                        }
                    }
                }
            }
        }
    }
}
