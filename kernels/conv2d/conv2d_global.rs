// Conv2d global — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Algorithm: a register window per invocation read straight from global
// memory, nothing in shared memory. Tiles of TILE_W × TILE_H outputs
// (TILE_W = 4 · COLUMNS, TILE_H = GROUP_SIZE / COLUMNS · ROWS; the flat tile
// index over a 2-D grid, x fastest; a workgroup strides on by the grid's
// size when the grid holds fewer groups than tiles). Invocation lid computes
// a block of 4 columns by ROWS consecutive rows: it walks the ROWS + KH − 1
// image rows its outputs cover, fills the window of columns x − 4·HALO ..
// x + 4 + 4·HALO of each (one run of the row where it lies inside the image,
// else pixel by pixel with the border rule) and adds each window value to
// every output whose filter covers it.
// Pixels: f32 (ELEM = 0) or u8 packed four to a word (ELEM = 3), converted
// to f32 as they enter the window.
// Shared memory: none. Barriers: none.
// On the CPU: one thread runs the group, invocation by invocation; each
// output still sums the filter row by row, in order (the same bits as the
// GPU versions without FMA contraction).

use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

/// Vectors across a tile.
const COLUMNS: usize = 32;

pub fn conv2d_global(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let c = group.constants;
    let group_size = group.size as usize;
    let (rows, kh, kw) = (c[1] as usize, c[2] as usize, c[3] as usize);
    let clamp_border = c[4] == 1;
    let bytes = c[5] == 3;
    let (height, width) = (group.params[0] as usize, group.params[1] as usize);
    let image = bindings.read(0);
    let filter = bindings.read_f32(1);
    let out = bindings.write(2);
    let (tile_w, tile_h) = (4 * COLUMNS, group_size / COLUMNS * rows);
    let tiles_x = width.div_ceil(tile_w);
    let tiles = tiles_x * height.div_ceil(tile_h);
    let (ry, rx) = (kh / 2, kw / 2);
    let halo = rx.div_ceil(4); // vectors of halo on each side
    let window_len = 4 * (2 * halo + 1);
    // This workgroup's first tile and the grid's size (x fastest).
    let first = group.id[1] as usize * group.count[0] as usize + group.id[0] as usize;
    let groups = group.count[0] as usize * group.count[1] as usize;

    // Pixel p (row-major) as f32: its word, or its byte of word p / 4.
    let load = |p: usize| -> f32 {
        if bytes {
            ((image[p >> 2] >> ((p & 3) * 8)) & 0xff) as f32
        } else {
            f32::from_bits(image[p])
        }
    };
    // The image at row py − ry, column px − 4·halo with the border rule
    // (offset positions, never negative).
    let pixel = |py: usize, px: usize| -> f32 {
        if clamp_border {
            let y = if py < ry {
                0
            } else {
                (py - ry).min(height - 1)
            };
            let x = if px < 4 * halo {
                0
            } else {
                (px - 4 * halo).min(width - 1)
            };
            load(y * width + x)
        } else if py < ry || px < 4 * halo || py - ry >= height || px - 4 * halo >= width {
            0.0
        } else {
            load((py - ry) * width + (px - 4 * halo))
        }
    };

    // Phase 1: the filter to registers (and the window's and sums' storage).
    let weight = &filter[..kh * kw];
    let mut window = vec![0.0f32; window_len];
    let mut acc = vec![[0.0f32; 4]; rows];

    let mut t = first;
    while t < tiles {
        for lid in 0..group_size {
            // This invocation's outputs: columns x .. x + 3, rows y .. y + rows − 1.
            let x = (t % tiles_x) * tile_w + 4 * (lid % COLUMNS);
            let y = (t / tiles_x) * tile_h + rows * (lid / COLUMNS);
            if x >= width || y >= height {
                continue;
            }
            acc.fill([0.0; 4]);
            let columns_inside = x >= 4 * halo && x + 4 + 4 * halo <= width;
            for r in 0..rows + kh - 1 {
                // Phase a: window row r (image row y + r − ry). Slot s holds
                // column x + s − 4·halo.
                let py = y + r;
                if columns_inside && py >= ry && py - ry < height {
                    let start = (py - ry) * width + x - 4 * halo;
                    for (s, slot) in window.iter_mut().enumerate() {
                        *slot = load(start + s);
                    }
                } else {
                    for (s, slot) in window.iter_mut().enumerate() {
                        *slot = pixel(py, x + s);
                    }
                }
                // Phase b: window row r holds filter row i of output row
                // k = r − i; output column c takes slots c + j + 4·halo − rx.
                for i in 0..kh {
                    if r >= i && r - i < rows {
                        let sums = &mut acc[r - i];
                        for j in 0..kw {
                            let w = weight[i * kw + j];
                            for (col, sum) in sums.iter_mut().enumerate() {
                                *sum += w * window[col + j + 4 * halo - rx];
                            }
                        }
                    }
                }
            }
            // Phase c: the outputs inside the image.
            for (k, sums) in acc.iter().enumerate() {
                let gy = y + k;
                if gy >= height {
                    break;
                }
                for (col, &sum) in sums.iter().enumerate() {
                    if x + col < width {
                        out[gy * width + x + col].store_f32(sum);
                    }
                }
            }
        }
        t += groups;
    }
}
