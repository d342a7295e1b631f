// Conv2d — WGSL (see mod.rs for the algorithm and interface).
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
// as u32 words and converted to f32 when loaded into the halo tile.
// Shared memory: shared_filter (KH·KW f32), then shared_tile, the halo tile
// of (TILE_H + KH − 1) rows × (TILE_W + KW − 1) columns — two workgroup
// arrays sized by override expressions (static; the CUDA/OpenCL versions
// take one dynamic block of the same layout).
// Barriers: after the tile load (which also covers the filter on the first
// tile), and after computing from it (before the next tile overwrites it).
// Indices: u32. Halo positions are offset by the filter's radii so they never
// go negative; the plan keeps height·width, height + TILE_H + KH and
// width + TILE_W + KW below 2^32.
// Registers: WINDOW = 0: one invocation computes its ROWS outputs one at a
// time, each summing the filter row by row, in order, from shared memory.
// WINDOW = 1 (the register window): its ROWS accumulators live in `acc` and
// the KH·KW weights in `weight` — private arrays of MAX_ROWS and MAX_TAPS
// values (WGSL sizes private arrays with constants, not overrides; the plan
// keeps ROWS ≤ MAX_ROWS, KH·KW ≤ MAX_TAPS) — and the invocation walks the
// ROWS + KH − 1 halo rows its outputs cover, reading each value it needs
// once and adding it to every output whose filter covers it: (ROWS + KH − 1)
// · KW shared reads for ROWS · KH · KW products, each output still summing
// the filter row by row, in order.
// The filter binding is named `weights`: `filter` is a reserved word in WGSL.

override GROUP_SIZE: u32; // a multiple of TILE_W that divides TILE_W·TILE_H
override TILE_W: u32;
override TILE_H: u32;
override KH: u32; // odd
override KW: u32; // odd
override BORDER: u32; // 0 zero, 1 clamp
override ELEM: u32; // 0 f32 pixels, 3 u8 pixels
override WINDOW: u32; // 0 tiles, 1 register window

const MAX_ROWS: u32 = 16u; // WINDOW_MAX_ROWS in plan.rs
const MAX_TAPS: u32 = 81u; // WINDOW_MAX_TAPS in plan.rs

struct Params {
    height: u32,
    width: u32,
}

@group(0) @binding(0) var<storage, read> image: array<u32>;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<uniform> params: Params;

var<workgroup> shared_filter: array<f32, KH * KW>;
var<workgroup> shared_tile: array<f32, (TILE_H + KH - 1u) * (TILE_W + KW - 1u)>;

// Pixel p (row-major) as f32: its word (f32), or its byte of word p / 4
// (u8, little-endian).
fn load(p: u32) -> f32 {
    if ELEM == 3u {
        let word = image[p >> 2u];
        return f32((word >> ((p & 3u) * 8u)) & 0xffu);
    }
    return bitcast<f32>(image[p]);
}

// The image at row py − KH/2, column px − KW/2 with the border rule: 0
// outside (BORDER = 0) or the nearest edge pixel (BORDER = 1). (py, px) are
// offset by the radii, so they are never negative.
fn pixel(py: u32, px: u32) -> f32 {
    let height = params.height;
    let width = params.width;
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
fn conv2d(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let height = params.height;
    let width = params.width;
    let tiles_x = width / TILE_W + select(0u, 1u, width % TILE_W != 0u);
    let tiles_y = height / TILE_H + select(0u, 1u, height % TILE_H != 0u);
    let tiles = tiles_x * tiles_y;
    let stride = TILE_W + KW - 1u; // shared_tile row stride
    let tile_rows = TILE_H + KH - 1u;
    let ry = KH / 2u; // the filter's radii
    let rx = KW / 2u;
    // This invocation's column and row of invocations in the tile; it
    // computes `rows` outputs, rows oy + k·out_step.
    let tx = lid % TILE_W;
    let ty = lid / TILE_W;
    let rows = TILE_W * TILE_H / GROUP_SIZE;
    let out_step = select(GROUP_SIZE / TILE_W, 1u, WINDOW == 1u);
    let oy = select(ty, ty * rows, WINDOW == 1u);
    // This workgroup's first tile and the grid's size (x fastest).
    let first = group_id.y * num_groups.x + group_id.x;
    let groups = num_groups.x * num_groups.y;

    // Phase 1: the filter to shared memory (WINDOW = 1: to registers).
    var weight: array<f32, MAX_TAPS>;
    var acc: array<f32, MAX_ROWS>;
    if WINDOW == 1u {
        for (var f = 0u; f < KH * KW; f++) {
            weight[f] = weights[f];
        }
    } else {
        for (var f = lid; f < KH * KW; f += GROUP_SIZE) {
            shared_filter[f] = weights[f];
        }
    }

    for (var t = first; t < tiles; t += groups) {
        // Phase a: the halo tile with the border rule. — barrier —
        // Slot (r, c) holds the pixel at row y0 + r − KH/2, column
        // x0 + c − KW/2.
        let y0 = (t / tiles_x) * TILE_H;
        let x0 = (t % tiles_x) * TILE_W;
        // A tile whose halo lies inside the image (most of a large one) skips
        // the border rule: slot (r, c) is pixel origin + r·width + c.
        let inside = y0 >= ry && x0 >= rx && y0 + tile_rows - ry <= height && x0 + stride - rx <= width;
        if inside {
            let origin = (y0 - ry) * width + (x0 - rx);
            for (var s = lid; s < tile_rows * stride; s += GROUP_SIZE) {
                let r = s / stride;
                let c = s % stride;
                shared_tile[s] = load(origin + r * width + c);
            }
        } else {
            for (var s = lid; s < tile_rows * stride; s += GROUP_SIZE) {
                let r = s / stride;
                let c = s % stride;
                shared_tile[s] = pixel(y0 + r, x0 + c);
            }
        }
        workgroupBarrier();

        // Phase b: this invocation's outputs (column tx, rows
        // oy + k·out_step) from shared memory, each the sum over the filter
        // row by row, in order; those inside the image are stored.
        // — barrier —
        let gx = x0 + tx;
        if WINDOW == 1u {
            for (var k = 0u; k < rows; k++) {
                acc[k] = 0.0;
            }
            // Halo row oy + r holds filter row i of output k = r − i.
            for (var r = 0u; r < rows + KH - 1u; r++) {
                for (var j = 0u; j < KW; j++) {
                    let v = shared_tile[(oy + r) * stride + tx + j];
                    for (var i = 0u; i < KH; i++) {
                        if r >= i && r - i < rows {
                            acc[r - i] += weight[i * KW + j] * v;
                        }
                    }
                }
            }
            for (var k = 0u; k < rows; k++) {
                let gy = y0 + oy + k;
                if gy < height && gx < width {
                    out[gy * width + gx] = acc[k];
                }
            }
        } else {
            for (var k = 0u; k < rows; k++) {
                let row = oy + k * out_step;
                var sum = 0.0;
                for (var i = 0u; i < KH; i++) {
                    for (var j = 0u; j < KW; j++) {
                        sum += shared_filter[i * KW + j] * shared_tile[(row + i) * stride + tx + j];
                    }
                }
                let gy = y0 + row;
                if gy < height && gx < width {
                    out[gy * width + gx] = sum;
                }
            }
        }
        workgroupBarrier();
    }
}
