#version 450
// Conv2d -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Algorithm: halo tiles in shared memory, one TILE_W x TILE_H tile of
// outputs per workgroup (the flat tile index over a 2-D grid, x fastest; a
// workgroup strides on by the grid's size when the grid holds fewer groups
// than tiles). The GROUP_SIZE invocations cover the tile as TILE_W columns
// by GROUP_SIZE / TILE_W rows, each computing ROWS = TILE_W*TILE_H /
// GROUP_SIZE outputs of its column: ROW_STEP = GROUP_SIZE / TILE_W rows
// apart (WINDOW = 0), or consecutive (WINDOW = 1). Each workgroup loads the
// filter once (WINDOW = 1: each invocation, into registers), then per tile
// the image pixels it needs (with the border rule, which tiles whose halo
// lies inside the image skip) and computes the tile's outputs from shared
// memory.
// Pixels: f32 (ELEM = 0) or u8 packed four to a word (ELEM = 3), both read
// as uint words and converted to f32 when loaded into the halo tile.
// Shared memory: shared_filter (KH*KW f32), then shared_tile, the halo tile
// of (TILE_H + KH - 1) rows x (TILE_W + KW - 1) columns -- two shared arrays
// sized by specialization constants (static; the CUDA/OpenCL versions take
// one dynamic block of the same layout).
// Barriers: after the tile load (which also covers the filter on the first
// tile), and after computing from it (before the next tile overwrites it).
// Indices: uint. Halo positions are offset by the filter's radii so they
// never go negative; the plan keeps height*width, height + TILE_H + KH and
// width + TILE_W + KW below 2^32.
// Registers: each invocation's ROWS accumulators live in `acc`. WINDOW = 0:
// each filter weight is read from shared memory once for them; the loops
// over ROWS are unrolled, the filter loops have constant trip counts once
// the pipeline is built and are left to the driver (forcing a 31x31 filter
// open makes huge shaders). WINDOW = 1 (the register window): the KH*KW
// weights live in `weight`, and the invocation walks the ROWS + KH - 1 halo
// rows its outputs cover, reading each value it needs once and adding it to
// every output whose filter covers it: (ROWS + KH - 1)*KW shared reads for
// ROWS*KH*KW products (the plan keeps KH*KW <= 81, ROWS <= 16; all its loops
// unrolled). Either way each output sums the filter row by row, in order.
// The filter binding is named `weights`: `filter` is reserved in GLSL.

#extension GL_EXT_control_flow_attributes : enable

layout(constant_id = 0) const uint GROUP_SIZE = 64; // a multiple of TILE_W that divides TILE_W*TILE_H
layout(constant_id = 1) const uint TILE_W = 8;
layout(constant_id = 2) const uint TILE_H = 8;
layout(constant_id = 3) const uint KH = 1; // odd
layout(constant_id = 4) const uint KW = 1; // odd
layout(constant_id = 5) const uint BORDER = 0; // 0 zero, 1 clamp
layout(constant_id = 6) const uint ELEM = 0; // 0 f32 pixels, 3 u8 pixels
layout(constant_id = 7) const uint WINDOW = 0; // 0 tiles, 1 register window
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Image { uint image[]; };
layout(set = 0, binding = 1) restrict readonly buffer Weights { float weights[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Out { float out_values[]; };
layout(push_constant) uniform Params {
    uint height;
    uint width;
} params;

const uint STRIDE = TILE_W + KW - 1u; // shared_tile row stride
const uint TILE_ROWS = TILE_H + KH - 1u; // shared_tile rows
const uint ROW_STEP = GROUP_SIZE / TILE_W;
const uint OUT_STEP = WINDOW == 1u ? 1u : ROW_STEP; // rows between one invocation's outputs
const uint ROWS = TILE_W * TILE_H / GROUP_SIZE; // outputs per invocation
const uint RY = KH / 2u;
const uint RX = KW / 2u;
const uint WEIGHTS = KH * KW * WINDOW + 1u - WINDOW; // the register filter (1 unused when WINDOW = 0)

shared float shared_filter[KH * KW];
shared float shared_tile[TILE_ROWS * STRIDE];

// Pixel p (row-major) as f32: its word (f32), or its byte of word p / 4
// (u8, little-endian).
float load(uint p) {
    if (ELEM == 3u) {
        return float((image[p >> 2u] >> ((p & 3u) * 8u)) & 0xffu);
    }
    return uintBitsToFloat(image[p]);
}

// The image at row py - RY, column px - RX with the border rule: 0 outside
// (BORDER = 0) or the nearest edge pixel (BORDER = 1). (py, px) are offset
// by the radii, so they are never negative.
float pixel(uint py, uint px) {
    uint height = params.height;
    uint width = params.width;
    if (BORDER == 1u) {
        uint y = py < RY ? 0u : min(py - RY, height - 1u);
        uint x = px < RX ? 0u : min(px - RX, width - 1u);
        return load(y * width + x);
    }
    if (py < RY || px < RX || py - RY >= height || px - RX >= width) {
        return 0.0;
    }
    return load((py - RY) * width + (px - RX));
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint height = params.height;
    uint width = params.width;
    uint tiles_x = width / TILE_W + (width % TILE_W != 0u ? 1u : 0u);
    uint tiles_y = height / TILE_H + (height % TILE_H != 0u ? 1u : 0u);
    uint tiles = tiles_x * tiles_y;
    // This invocation's column and row of invocations in the tile; its
    // outputs' rows are oy + k*OUT_STEP for k < ROWS.
    uint tx = lid % TILE_W;
    uint ty = lid / TILE_W;
    uint oy = WINDOW == 1u ? ty * ROWS : ty;
    // This workgroup's first tile and the grid's size (x fastest).
    uint first = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    float acc[ROWS];
    float weight[WEIGHTS];

    // Phase 1: the filter to shared memory (WINDOW = 1: to registers).
    if (WINDOW == 1u) {
        [[unroll]] for (uint f = 0u; f < KH * KW; f++) {
            weight[f] = weights[f];
        }
    } else {
        for (uint f = lid; f < KH * KW; f += GROUP_SIZE) {
            shared_filter[f] = weights[f];
        }
    }

    for (uint t = first; t < tiles; t += groups) {
        // Phase a: the halo tile with the border rule. -- barrier --
        // Slot (r, c) holds the pixel at row y0 + r - RY, column x0 + c - RX.
        uint y0 = (t / tiles_x) * TILE_H;
        uint x0 = (t % tiles_x) * TILE_W;
        // A tile whose halo lies inside the image (most of a large one) skips
        // the border rule: slot (r, c) is pixel origin + r*width + c.
        bool inside = y0 >= RY && x0 >= RX && y0 + TILE_ROWS - RY <= height && x0 + STRIDE - RX <= width;
        if (inside) {
            uint origin = (y0 - RY) * width + (x0 - RX);
            for (uint s = lid; s < TILE_ROWS * STRIDE; s += GROUP_SIZE) {
                uint r = s / STRIDE;
                uint c = s % STRIDE;
                shared_tile[s] = load(origin + r * width + c);
            }
        } else {
            for (uint s = lid; s < TILE_ROWS * STRIDE; s += GROUP_SIZE) {
                uint r = s / STRIDE;
                uint c = s % STRIDE;
                shared_tile[s] = pixel(y0 + r, x0 + c);
            }
        }
        barrier();

        // Phase b: this invocation's outputs (column tx, rows
        // oy + k*OUT_STEP) from shared memory, each the sum over the filter
        // row by row, in order; those inside the image are stored.
        // -- barrier --
        [[unroll]] for (uint k = 0u; k < ROWS; k++) {
            acc[k] = 0.0;
        }
        if (WINDOW == 1u) {
            // Halo row oy + r holds filter row i of output k = r - i.
            [[unroll]] for (uint r = 0u; r < ROWS + KH - 1u; r++) {
                [[unroll]] for (uint j = 0u; j < KW; j++) {
                    float v = shared_tile[(oy + r) * STRIDE + tx + j];
                    [[unroll]] for (uint i = 0u; i < KH; i++) {
                        if (r >= i && r - i < ROWS) {
                            acc[r - i] += weight[i * KW + j] * v;
                        }
                    }
                }
            }
        } else {
            for (uint i = 0u; i < KH; i++) {
                for (uint j = 0u; j < KW; j++) {
                    float w = shared_filter[i * KW + j];
                    [[unroll]] for (uint k = 0u; k < ROWS; k++) {
                        acc[k] += w * shared_tile[(oy + k * OUT_STEP + i) * STRIDE + tx + j];
                    }
                }
            }
        }
        uint gx = x0 + tx;
        [[unroll]] for (uint k = 0u; k < ROWS; k++) {
            uint gy = y0 + oy + k * OUT_STEP;
            if (gy < height && gx < width) {
                out_values[gy * width + gx] = acc[k];
            }
        }
        barrier();
    }
}
