#version 450
// Conv2d -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Shared memory: shared_filter (KH*KW f32), then shared_tile, the halo tile
// of (TILE_H + KH - 1) rows x (TILE_W + KW - 1) columns -- two shared arrays
// sized by specialization constants (static; mod.rs's single dynamic block
// is the CUDA/OpenCL form of the same layout).
// Barriers: after the tile load (which also covers the filter on the first
// tile), and after computing from it.
// The filter binding is named `weights`: `filter` is reserved in GLSL.
// Registers: each invocation's ROWS accumulators live in `acc`; the loops
// over them are unrolled. The filter loops have constant trip counts once
// the pipeline is built and are left to the driver (forcing a 31x31 filter
// open makes huge shaders).

#extension GL_EXT_control_flow_attributes : enable

layout(constant_id = 0) const uint GROUP_SIZE = 64; // a multiple of TILE_W that divides TILE_W*TILE_H
layout(constant_id = 1) const uint TILE_W = 8;
layout(constant_id = 2) const uint TILE_H = 8;
layout(constant_id = 3) const uint KH = 1; // odd
layout(constant_id = 4) const uint KW = 1; // odd
layout(constant_id = 5) const uint BORDER = 0; // 0 zero, 1 clamp
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Image { float image[]; };
layout(set = 0, binding = 1) restrict readonly buffer Weights { float weights[]; };
layout(set = 0, binding = 2) restrict writeonly buffer Out { float out_values[]; };
layout(push_constant) uniform Params {
    uint height;
    uint width;
} params;

const uint STRIDE = TILE_W + KW - 1u; // shared_tile row stride
const uint TILE_ROWS = TILE_H + KH - 1u; // shared_tile rows
const uint ROW_STEP = GROUP_SIZE / TILE_W; // rows between one invocation's outputs
const uint ROWS = TILE_W * TILE_H / GROUP_SIZE; // outputs per invocation

shared float shared_filter[KH * KW];
shared float shared_tile[TILE_ROWS * STRIDE];

// The image at (y, x) with the border rule (coordinates may lie outside).
float pixel(int y, int x) {
    int height = int(params.height);
    int width = int(params.width);
    if (BORDER == 1u) {
        int cy = clamp(y, 0, height - 1);
        int cx = clamp(x, 0, width - 1);
        return image[uint(cy) * params.width + uint(cx)];
    }
    if (y < 0 || x < 0 || y >= height || x >= width) {
        return 0.0;
    }
    return image[uint(y) * params.width + uint(x)];
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint height = params.height;
    uint width = params.width;
    uint tiles_x = (width + TILE_W - 1u) / TILE_W;
    uint tiles_y = (height + TILE_H - 1u) / TILE_H;
    // This invocation's column and first row of the tile; it computes
    // ROWS outputs, ROW_STEP rows apart.
    uint tx = lid % TILE_W;
    uint ty = lid / TILE_W;
    float acc[ROWS];

    // Phase 1: the filter to shared memory.
    for (uint f = lid; f < KH * KW; f += GROUP_SIZE) {
        shared_filter[f] = weights[f];
    }

    for (uint tile_y = gl_WorkGroupID.y; tile_y < tiles_y; tile_y += gl_NumWorkGroups.y) {
        for (uint tile_x = gl_WorkGroupID.x; tile_x < tiles_x; tile_x += gl_NumWorkGroups.x) {
            // Phase a: the halo tile with the border rule. -- barrier --
            int y0 = int(tile_y * TILE_H) - int(KH / 2u);
            int x0 = int(tile_x * TILE_W) - int(KW / 2u);
            for (uint s = lid; s < TILE_ROWS * STRIDE; s += GROUP_SIZE) {
                uint r = s / STRIDE;
                uint c = s % STRIDE;
                shared_tile[s] = pixel(y0 + int(r), x0 + int(c));
            }
            barrier();

            // Phase b: this invocation's outputs from shared memory; each
            // filter weight is read once for its ROWS outputs, each output
            // sums the filter row by row in order; those inside the image are
            // stored. -- barrier --
            [[unroll]] for (uint r = 0u; r < ROWS; r++) {
                acc[r] = 0.0;
            }
            for (uint i = 0u; i < KH; i++) {
                for (uint j = 0u; j < KW; j++) {
                    float w = shared_filter[i * KW + j];
                    [[unroll]] for (uint r = 0u; r < ROWS; r++) {
                        acc[r] += w * shared_tile[(ty + r * ROW_STEP + i) * STRIDE + tx + j];
                    }
                }
            }
            uint gx = tile_x * TILE_W + tx;
            [[unroll]] for (uint r = 0u; r < ROWS; r++) {
                uint gy = tile_y * TILE_H + ty + r * ROW_STEP;
                if (gy < height && gx < width) {
                    out_values[gy * width + gx] = acc[r];
                }
            }
            barrier();
        }
    }
}
