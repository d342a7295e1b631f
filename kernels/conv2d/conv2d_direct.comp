#version 450
// Conv2d direct -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Algorithm: one output per invocation, every filter value read straight
// from global memory (the cache serves them), any filter size. Output
// o = t*GROUP_SIZE + lid for t = first, first + groups, ... below the
// blocks of GROUP_SIZE outputs (the flat block index over a 2-D grid, x
// fastest; a workgroup strides on by the grid's size when the grid holds
// fewer groups than blocks). One launch adds the filter values
// [f_begin, f_end) (flat, row-major) to each output's sum, in order: the
// launch with f_begin = 0 starts from 0, later ones from the sum in `out`
// (the plan splits the filter into consecutive chunks, one launch each,
// to stay within the driver's loop budget; the sum order is that of one
// pass, so every split gives the same bits). Filter value f = row*KW + col
// multiplies the pixel at (y + row - RY, x + col - RX) with the border rule:
// a zero outside under BORDER = 0 (0*Inf is NaN, as in the reference), the
// nearest edge pixel under BORDER = 1. Row and column are counters, not a
// division per value.
// Pixels: f32 (ELEM = 0) or u8 packed four to a word (ELEM = 3), both read
// as uint words and converted to f32 as they are loaded.
// Shared memory: none. Barriers: none. Private arrays: none.
// Indices: uint. Pixel positions are offset by the filter's radii so they
// never go negative; the plan keeps height*width + GROUP_SIZE,
// height + KH, width + KW, KH*KW and blocks + groups below 2^32.
// The filter binding is named `weights`: `filter` is reserved in GLSL.

layout(constant_id = 0) const uint GROUP_SIZE = 64;
layout(constant_id = 1) const uint KH = 1; // odd
layout(constant_id = 2) const uint KW = 1; // odd
layout(constant_id = 3) const uint BORDER = 0; // 0 zero, 1 clamp
layout(constant_id = 4) const uint ELEM = 0; // 0 f32 pixels, 3 u8 pixels
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Image { uint image[]; };
layout(set = 0, binding = 1) restrict readonly buffer Weights { float weights[]; };
layout(set = 0, binding = 2) restrict buffer Out { float out_values[]; };
layout(push_constant) uniform Params {
    uint height;
    uint width;
    uint f_begin;
    uint f_end;
} params;

const uint RY = KH / 2u;
const uint RX = KW / 2u;

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
float pixel(uint py, uint px, uint height, uint width) {
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
    uint f_begin = params.f_begin;
    uint f_end = params.f_end;
    uint outputs = height * width;
    uint blocks = outputs / GROUP_SIZE + (outputs % GROUP_SIZE != 0u ? 1u : 0u);
    // This workgroup's first block and the grid's size (x fastest).
    uint first = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    // The chunk's first filter value's row and column (one division).
    uint row_begin = f_begin / KW;
    uint col_begin = f_begin % KW;

    for (uint t = first; t < blocks; t += groups) {
        uint o = t * GROUP_SIZE + lid;
        if (o < outputs) {
            uint y = o / width;
            uint x = o % width;

            // Phase 1: the sum so far: 0 in the first launch, else what the
            // launch before left in `out`.
            float acc = f_begin == 0u ? 0.0 : out_values[o];

            // Phase 2: filter values f_begin .. f_end - 1, row by row, in
            // order; value (row, col) multiplies the pixel at offset
            // position (y + row, x + col).
            uint row = row_begin;
            uint col = col_begin;
            for (uint f = f_begin; f < f_end; f++) {
                acc += weights[f] * pixel(y + row, x + col, height, width);
                col++;
                if (col == KW) {
                    col = 0u;
                    row++;
                }
            }

            // Phase 3: the sum to `out`.
            out_values[o] = acc;
        }
    }
}
