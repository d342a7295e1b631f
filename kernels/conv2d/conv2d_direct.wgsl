// Conv2d direct — WGSL (see mod.rs for the algorithm and interface).
//
// Algorithm: one output per invocation, every filter value read straight
// from global memory (the cache serves them), any filter size. Output
// o = t·GROUP_SIZE + lid for t = first, first + groups, … below the blocks
// of GROUP_SIZE outputs (the flat block index over a 2-D grid, x fastest; a
// workgroup strides on by the grid's size when the grid holds fewer groups
// than blocks). One launch adds the filter values [f_begin, f_end) (flat,
// row-major) to each output's sum, in order: the launch with f_begin = 0
// starts from 0, later ones from the sum in `out` (the plan splits the
// filter into consecutive chunks, one launch each, to stay within the
// driver's loop budget; the sum order is that of one pass, so every split
// gives the same bits). Filter value f = row·KW + col multiplies the pixel
// at (y + row − KH/2, x + col − KW/2) with the border rule: a zero outside
// under BORDER = 0 (0·Inf is NaN, as in the reference), the nearest edge
// pixel under BORDER = 1. Row and column are counters, not a division per
// value.
// Pixels: f32 (ELEM = 0) or u8 packed four to a word (ELEM = 3), both read
// as u32 words and converted to f32 as they are loaded.
// Shared memory: none. Barriers: none. Private arrays: none.
// Indices: u32. Pixel positions are offset by the filter's radii so they
// never go negative; the plan keeps height·width + GROUP_SIZE,
// height + KH, width + KW, KH·KW and blocks + groups below 2^32.
// The filter binding is named `weights`: `filter` is a reserved word in WGSL.

override GROUP_SIZE: u32;
override KH: u32; // odd
override KW: u32; // odd
override BORDER: u32; // 0 zero, 1 clamp
override ELEM: u32; // 0 f32 pixels, 3 u8 pixels

struct Params {
    height: u32,
    width: u32,
    f_begin: u32,
    f_end: u32,
}

@group(0) @binding(0) var<storage, read> image: array<u32>;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

// Pixel p (row-major) as f32: its word (f32), or its byte of word p / 4
// (u8, little-endian).
fn load(p: u32) -> f32 {
    if ELEM == 3u {
        return f32((image[p >> 2u] >> ((p & 3u) * 8u)) & 0xffu);
    }
    return bitcast<f32>(image[p]);
}

// The image at row py − KH/2, column px − KW/2 with the border rule: 0
// outside (BORDER = 0) or the nearest edge pixel (BORDER = 1). (py, px) are
// offset by the radii, so they are never negative.
fn pixel(py: u32, px: u32, height: u32, width: u32) -> f32 {
    let ry = KH / 2u;
    let rx = KW / 2u;
    if BORDER == 1u {
        var y = 0u;
        if py >= ry {
            y = min(py - ry, height - 1u);
        }
        var x = 0u;
        if px >= rx {
            x = min(px - rx, width - 1u);
        }
        return load(y * width + x);
    }
    if py < ry || px < rx || py - ry >= height || px - rx >= width {
        return 0.0;
    }
    return load((py - ry) * width + (px - rx));
}

@compute @workgroup_size(GROUP_SIZE)
fn conv2d_direct(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let height = params.height;
    let width = params.width;
    let f_begin = params.f_begin;
    let f_end = params.f_end;
    let outputs = height * width;
    let blocks = outputs / GROUP_SIZE + select(0u, 1u, outputs % GROUP_SIZE != 0u);
    // This workgroup's first block and the grid's size (x fastest).
    let first = group_id.y * num_groups.x + group_id.x;
    let groups = num_groups.x * num_groups.y;
    // The chunk's first filter value's row and column (one division).
    let row_begin = f_begin / KW;
    let col_begin = f_begin % KW;

    for (var t = first; t < blocks; t += groups) {
        let o = t * GROUP_SIZE + lid;
        if o < outputs {
            let y = o / width;
            let x = o % width;

            // Phase 1: the sum so far: 0 in the first launch, else what the
            // launch before left in `out`.
            var acc = 0.0;
            if f_begin != 0u {
                acc = out[o];
            }

            // Phase 2: filter values f_begin .. f_end − 1, row by row, in
            // order; value (row, col) multiplies the pixel at offset
            // position (y + row, x + col).
            var row = row_begin;
            var col = col_begin;
            for (var f = f_begin; f < f_end; f++) {
                acc += weights[f] * pixel(y + row, x + col, height, width);
                col++;
                if col == KW {
                    col = 0u;
                    row++;
                }
            }

            // Phase 3: the sum to `out`.
            out[o] = acc;
        }
    }
}
