#version 450
// Conv2d global -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Algorithm: a register window per invocation read straight from global
// memory, nothing in shared memory. Tiles of TILE_W x TILE_H outputs
// (TILE_W = 4 * COLUMNS, TILE_H = GROUP_SIZE / COLUMNS * ROWS; the flat tile
// index over a 2-D grid, x fastest; a workgroup strides on by the grid's
// size when the grid holds fewer groups than tiles). Invocation lid computes
// a block of 4 columns (a vector; consecutive invocations, consecutive
// vectors) by ROWS consecutive rows. It walks the ROWS + KH - 1 image rows
// its outputs cover: for each it fills the window of columns x - 4*HALO ..
// x + 4 + 4*HALO -- 2*HALO + 1 vector loads (16 bytes of f32, or one word of
// four u8) when the row lies inside the image, its rows are vector-aligned
// (width % 4 = 0) and the window lies inside them, else pixel by pixel with
// the border rule -- and adds each window value to every output whose filter
// covers it. Windows of neighbouring invocations overlap: the cache serves
// the overlap, and DRAM sees each pixel about once.
// Pixels: f32 (ELEM = 0) or u8 packed four to a word (ELEM = 3), converted
// to f32 as they enter the window.
// Shared memory: none. Barriers: none.
// Registers: the KH*KW weights (`weight`, loaded once), the window (WINDOW
// f32) and the 4*ROWS sums (`acc`); every loop over them is unrolled (the
// plan keeps KH*KW <= 81 and ROWS <= 8). Each output sums the filter row by
// row, in order, as the other conv2d kernels do.
// Bindings: the image and output as vec4 arrays (16-byte loads and stores;
// single words by component); the buffers are whole multiples of 16 bytes.
// Indices: uint. Window positions are offset (rows by RY, columns by
// 4*HALO) so they never go negative; the plan keeps height*width,
// height + TILE_H + KH and width + TILE_W + KW below 2^32.

#extension GL_EXT_control_flow_attributes : enable

layout(constant_id = 0) const uint GROUP_SIZE = 256; // a multiple of COLUMNS
layout(constant_id = 1) const uint ROWS = 4;
layout(constant_id = 2) const uint KH = 1; // odd
layout(constant_id = 3) const uint KW = 1; // odd
layout(constant_id = 4) const uint BORDER = 0; // 0 zero, 1 clamp
layout(constant_id = 5) const uint ELEM = 0; // 0 f32, 3 u8
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Image { uvec4 image_vectors[]; };
layout(set = 0, binding = 1) restrict readonly buffer Filter { float filter_values[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Out { vec4 out_vectors[]; };
layout(push_constant) uniform Params { uint height; uint width; } params;

const uint COLUMNS = 32u; // vectors across a tile
const uint TILE_W = 4u * COLUMNS;
const uint TILE_H = GROUP_SIZE / COLUMNS * ROWS;
const uint RY = KH / 2u;
const uint RX = KW / 2u;
const uint HALO = (RX + 3u) / 4u; // vectors of halo on each side
const uint WINDOW = 4u * (2u * HALO + 1u); // window values

// Word w of the image.
uint word_at(uint w) {
    return image_vectors[w / 4u][w % 4u];
}

// Pixel p (row-major) as f32: its word (f32), or its byte of word p / 4.
float load(uint p) {
    if (ELEM == 3u) {
        return float((word_at(p >> 2u) >> ((p & 3u) * 8u)) & 0xffu);
    }
    return uintBitsToFloat(word_at(p));
}

// The image at row py - RY, column px - 4*HALO with the border rule: 0
// outside (BORDER = 0) or the nearest edge pixel (BORDER = 1). (py, px) are
// offset, so they are never negative.
float pixel(uint py, uint px, uint height, uint width) {
    if (BORDER == 1u) {
        uint y = py < RY ? 0u : min(py - RY, height - 1u);
        uint x = px < 4u * HALO ? 0u : min(px - 4u * HALO, width - 1u);
        return load(y * width + x);
    }
    if (py < RY || px < 4u * HALO || py - RY >= height || px - 4u * HALO >= width) {
        return 0.0;
    }
    return load((py - RY) * width + (px - 4u * HALO));
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint height = params.height;
    uint width = params.width;
    uint tiles_x = width / TILE_W + (width % TILE_W != 0u ? 1u : 0u);
    uint tiles_y = height / TILE_H + (height % TILE_H != 0u ? 1u : 0u);
    uint tiles = tiles_x * tiles_y;
    // This workgroup's first tile and the grid's size (x fastest).
    uint first = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    // Rows start on a vector: 16-byte loads (and stores) of whole vectors.
    bool aligned = width % 4u == 0u;

    // Phase 1: the filter to registers.
    float weight[KH * KW];
    [[unroll]] for (uint f = 0u; f < KH * KW; f++) {
        weight[f] = filter_values[f];
    }

    for (uint t = first; t < tiles; t += groups) {
        // This invocation's outputs: columns x .. x + 3, rows y .. y + ROWS - 1.
        uint x = (t % tiles_x) * TILE_W + 4u * (lid % COLUMNS);
        uint y = (t / tiles_x) * TILE_H + ROWS * (lid / COLUMNS);
        if (x < width && y < height) {
            vec4 acc[ROWS];
            [[unroll]] for (uint k = 0u; k < ROWS; k++) {
                acc[k] = vec4(0.0);
            }
            // The window's columns lie inside aligned rows: vector loads.
            bool columns_inside = aligned && x >= 4u * HALO && x + 4u + 4u * HALO <= width;

            [[unroll]] for (uint r = 0u; r < ROWS + KH - 1u; r++) {
                // Phase a: window row r (image row y + r - RY). Slot s holds
                // column x + s - 4*HALO.
                uint py = y + r;
                float window[WINDOW];
                if (columns_inside && py >= RY && py - RY < height) {
                    uint q0 = ((py - RY) * width + x) / 4u - HALO;
                    [[unroll]] for (uint q = 0u; q < 2u * HALO + 1u; q++) {
                        if (ELEM == 3u) {
                            uint word = word_at(q0 + q);
                            window[4u * q] = float(word & 0xffu);
                            window[4u * q + 1u] = float((word >> 8u) & 0xffu);
                            window[4u * q + 2u] = float((word >> 16u) & 0xffu);
                            window[4u * q + 3u] = float(word >> 24u);
                        } else {
                            vec4 value = uintBitsToFloat(image_vectors[q0 + q]);
                            window[4u * q] = value.x;
                            window[4u * q + 1u] = value.y;
                            window[4u * q + 2u] = value.z;
                            window[4u * q + 3u] = value.w;
                        }
                    }
                } else {
                    [[unroll]] for (uint s = 0u; s < WINDOW; s++) {
                        window[s] = pixel(py, x + s, height, width);
                    }
                }

                // Phase b: window row r holds filter row i of output row
                // k = r - i; output column c takes slots c + j + 4*HALO - RX.
                [[unroll]] for (uint i = 0u; i < KH; i++) {
                    if (r >= i && r - i < ROWS) {
                        [[unroll]] for (uint j = 0u; j < KW; j++) {
                            [[unroll]] for (uint c = 0u; c < 4u; c++) {
                                acc[r - i][c] += weight[i * KW + j] * window[c + j + 4u * HALO - RX];
                            }
                        }
                    }
                }
            }

            // Phase c: the outputs inside the image; whole vectors in one
            // 16-byte store where the rows are aligned.
            [[unroll]] for (uint k = 0u; k < ROWS; k++) {
                uint gy = y + k;
                if (gy < height) {
                    if (aligned && x + 4u <= width) {
                        out_vectors[(gy * width + x) / 4u] = acc[k];
                    } else {
                        [[unroll]] for (uint c = 0u; c < 4u; c++) {
                            if (x + c < width) {
                                uint o = gy * width + x + c;
                                out_vectors[o / 4u][o % 4u] = acc[k][c];
                            }
                        }
                    }
                }
            }
        }
    }
}
