// Conv2d global — WGSL (see mod.rs for the algorithm and interface).
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
// Registers: the KH·KW weights (`weight`, loaded once), the window and the
// 4·ROWS sums (`acc`) — private arrays of MAX_TAPS, MAX_WINDOW and MAX_ROWS
// values (WGSL sizes private arrays with constants, not overrides; the plan
// keeps KH·KW ≤ MAX_TAPS, KW ≤ 17 and ROWS ≤ MAX_ROWS). Each output sums the
// filter row by row, in order, as the other conv2d kernels do.
// Bindings: the image and output as vec4 arrays (16-byte loads and stores;
// single words by component); the buffers are whole multiples of 16 bytes.
// The filter binding is named `weights`: `filter` is a reserved word in WGSL.
// Indices: u32. Window positions are offset (rows by KH/2, columns by
// 4·HALO) so they never go negative; the plan keeps height·width,
// height + TILE_H + KH and width + TILE_W + KW below 2^32.

override GROUP_SIZE: u32; // a multiple of COLUMNS
override ROWS: u32;
override KH: u32; // odd
override KW: u32; // odd, at most 17
override BORDER: u32; // 0 zero, 1 clamp
override ELEM: u32; // 0 f32 pixels, 3 u8 pixels

const COLUMNS: u32 = 32u; // vectors across a tile
const MAX_ROWS: u32 = 8u; // GLOBAL_MAX_ROWS in plan.rs
const MAX_TAPS: u32 = 81u; // WINDOW_MAX_TAPS in plan.rs
const MAX_WINDOW: u32 = 20u; // 4·(2·HALO + 1) for KW = 17 (GLOBAL_MAX_KW)

struct Params {
    height: u32,
    width: u32,
}

@group(0) @binding(0) var<storage, read> image: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: Params;

// Word w of the image.
fn word_at(w: u32) -> u32 {
    return image[w / 4u][w % 4u];
}

// Pixel p (row-major) as f32: its word (f32), or its byte of word p / 4.
fn load(p: u32) -> f32 {
    if ELEM == 3u {
        return f32((word_at(p >> 2u) >> ((p & 3u) * 8u)) & 0xffu);
    }
    return bitcast<f32>(word_at(p));
}

// The image at row py − KH/2, column px − 4·HALO with the border rule: 0
// outside (BORDER = 0) or the nearest edge pixel (BORDER = 1). (py, px) are
// offset, so they are never negative.
fn pixel(py: u32, px: u32, halo: u32) -> f32 {
    let height = params.height;
    let width = params.width;
    let ry = KH / 2u;
    if BORDER == 1u {
        var y = 0u;
        if py >= ry {
            y = min(py - ry, height - 1u);
        }
        var x = 0u;
        if px >= 4u * halo {
            x = min(px - 4u * halo, width - 1u);
        }
        return load(y * width + x);
    }
    if py < ry || px < 4u * halo || py - ry >= height || px - 4u * halo >= width {
        return 0.0;
    }
    return load((py - ry) * width + (px - 4u * halo));
}

@compute @workgroup_size(GROUP_SIZE)
fn conv2d_global(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let height = params.height;
    let width = params.width;
    let tile_w = 4u * COLUMNS;
    let tile_h = GROUP_SIZE / COLUMNS * ROWS;
    let tiles_x = width / tile_w + select(0u, 1u, width % tile_w != 0u);
    let tiles_y = height / tile_h + select(0u, 1u, height % tile_h != 0u);
    let tiles = tiles_x * tiles_y;
    let ry = KH / 2u; // the filter's radii
    let rx = KW / 2u;
    let halo = (rx + 3u) / 4u; // vectors of halo on each side
    let window_len = 4u * (2u * halo + 1u); // window values
    // This workgroup's first tile and the grid's size (x fastest).
    let first = group_id.y * num_groups.x + group_id.x;
    let groups = num_groups.x * num_groups.y;
    // Rows start on a vector: 16-byte loads (and stores) of whole vectors.
    let aligned = width % 4u == 0u;

    // Phase 1: the filter to registers.
    var weight: array<f32, MAX_TAPS>;
    for (var f = 0u; f < KH * KW; f++) {
        weight[f] = weights[f];
    }

    for (var t = first; t < tiles; t += groups) {
        // This invocation's outputs: columns x .. x + 3, rows y .. y + ROWS − 1.
        let x = (t % tiles_x) * tile_w + 4u * (lid % COLUMNS);
        let y = (t / tiles_x) * tile_h + ROWS * (lid / COLUMNS);
        if x < width && y < height {
            var acc: array<vec4<f32>, MAX_ROWS>;
            for (var k = 0u; k < ROWS; k++) {
                acc[k] = vec4<f32>(0.0);
            }
            // The window's columns lie inside aligned rows: vector loads.
            let columns_inside = aligned && x >= 4u * halo && x + 4u + 4u * halo <= width;

            for (var r = 0u; r < ROWS + KH - 1u; r++) {
                // Phase a: window row r (image row y + r − KH/2). Slot s
                // holds column x + s − 4·halo.
                let py = y + r;
                var window: array<f32, MAX_WINDOW>;
                if columns_inside && py >= ry && py - ry < height {
                    let q0 = ((py - ry) * width + x) / 4u - halo;
                    for (var q = 0u; q < 2u * halo + 1u; q++) {
                        if ELEM == 3u {
                            let word = word_at(q0 + q);
                            window[4u * q] = f32(word & 0xffu);
                            window[4u * q + 1u] = f32((word >> 8u) & 0xffu);
                            window[4u * q + 2u] = f32((word >> 16u) & 0xffu);
                            window[4u * q + 3u] = f32(word >> 24u);
                        } else {
                            let value = bitcast<vec4<f32>>(image[q0 + q]);
                            window[4u * q] = value.x;
                            window[4u * q + 1u] = value.y;
                            window[4u * q + 2u] = value.z;
                            window[4u * q + 3u] = value.w;
                        }
                    }
                } else {
                    for (var s = 0u; s < window_len; s++) {
                        window[s] = pixel(py, x + s, halo);
                    }
                }

                // Phase b: window row r holds filter row i of output row
                // k = r − i; output column c takes slots c + j + 4·halo − rx.
                for (var i = 0u; i < KH; i++) {
                    if r >= i && r - i < ROWS {
                        for (var j = 0u; j < KW; j++) {
                            for (var c = 0u; c < 4u; c++) {
                                acc[r - i][c] += weight[i * KW + j] * window[c + j + 4u * halo - rx];
                            }
                        }
                    }
                }
            }

            // Phase c: the outputs inside the image; whole vectors in one
            // 16-byte store where the rows are aligned.
            for (var k = 0u; k < ROWS; k++) {
                let gy = y + k;
                if gy < height {
                    if aligned && x + 4u <= width {
                        out[(gy * width + x) / 4u] = acc[k];
                    } else {
                        for (var c = 0u; c < 4u; c++) {
                            if x + c < width {
                                let o = gy * width + x + c;
                                out[o / 4u][o % 4u] = acc[k][c];
                            }
                        }
                    }
                }
            }
        }
    }
}
