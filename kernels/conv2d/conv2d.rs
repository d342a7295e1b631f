// Conv2d — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Algorithm: halo tiles in shared memory, one TILE_W × TILE_H tile of
// outputs per workgroup (the flat tile index over a 2-D grid, x fastest; a
// workgroup strides on by the grid's size when the grid holds fewer groups
// than tiles). Each workgroup loads the filter once, then per tile the image
// pixels it needs (with the border rule) and computes the tile's outputs from
// shared memory.
// Pixels: f32 (ELEM = 0) or u8 packed four to a word (ELEM = 3), both read
// as u32 words and converted to f32 when loaded into the halo tile.
// Shared memory: shared_filter (KH·KW f32), then shared_tile, the halo tile
// of (TILE_H + KH − 1) rows × (TILE_W + KW − 1) columns.
// Barriers: after the tile load, and after computing from it (phase
// boundaries: each phase is one pass over the tile).
// Indices: halo positions are offset by the filter's radii so they never go
// negative, as in the GPU versions. Each output sums the filter row by row,
// in order.
// On the CPU: phase a fills the halo tile by rows (one run of each source
// row, the border rule on either side); phase b computes BLOCK consecutive
// outputs of a tile row at a time, a fixed-size block of sums that
// vectorises, each output still summing the filter row by row, in order
// (the same bits as one at a time). WINDOW (the register-window variants)
// only changes how GPU invocations share out a tile's outputs and where they
// keep the filter; the sums, and so the bits, are the same, so phase b
// ignores it.

use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

pub fn conv2d(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let c = group.constants;
    let (tile_w, tile_h, kh, kw) = (c[1] as usize, c[2] as usize, c[3] as usize, c[4] as usize);
    let clamp_border = c[5] == 1;
    let bytes = c[6] == 3;
    let (height, width) = (group.params[0] as usize, group.params[1] as usize);
    let image = bindings.read(0);
    let filter = bindings.read_f32(1);
    let out = bindings.write(2);
    let tiles_x = width.div_ceil(tile_w);
    let tiles = tiles_x * height.div_ceil(tile_h);
    let stride = tile_w + kw - 1; // shared_tile row stride
    let tile_rows = tile_h + kh - 1;
    let (ry, rx) = (kh / 2, kw / 2);
    // This workgroup's first tile and the grid's size (x fastest).
    let first = group.id[1] as usize * group.count[0] as usize + group.id[0] as usize;
    let groups = group.count[0] as usize * group.count[1] as usize;

    let shared: &mut [f32] = bytemuck::cast_slice_mut(group.shared);
    let (shared_filter, rest) = shared.split_at_mut(kh * kw);
    let shared_tile = &mut rest[..tile_rows * stride];

    // Phase 1: the filter to shared memory.
    shared_filter.copy_from_slice(&filter[..kh * kw]);

    // Pixel p (row-major) as f32: its word, or its byte of word p / 4.
    let load = |p: usize| -> f32 {
        if bytes {
            ((image[p >> 2] >> ((p & 3) * 8)) & 0xff) as f32
        } else {
            f32::from_bits(image[p])
        }
    };
    // The source row of halo row py (image row py − ry with the border
    // rule), or None where the row is all zeros.
    let source_row = |py: usize| -> Option<usize> {
        if clamp_border {
            Some(if py < ry {
                0
            } else {
                (py - ry).min(height - 1)
            })
        } else if py < ry || py - ry >= height {
            None
        } else {
            Some(py - ry)
        }
    };

    let mut t = first;
    while t < tiles {
        // Phase a: the halo tile with the border rule. — barrier —
        let (y0, x0) = ((t / tiles_x) * tile_h, (t % tiles_x) * tile_w);
        // By rows: slot (r, col) holds pixel (y0 + r − ry, x0 + col − rx);
        // the columns inside the image, [lo, hi), are one run of the source
        // row, the rest follow the border rule (the row's edge pixel, or 0).
        let lo = rx.saturating_sub(x0).min(stride);
        let hi = (width + rx).saturating_sub(x0).clamp(lo, stride);
        for (r, row) in shared_tile.chunks_exact_mut(stride).enumerate() {
            let Some(y) = source_row(y0 + r) else {
                row.fill(0.0);
                continue;
            };
            let line = y * width; // pixel of column 0
            if lo < hi {
                let start = line + x0 + lo - rx;
                let inside = &mut row[lo..hi];
                if bytes {
                    for (i, slot) in inside.iter_mut().enumerate() {
                        *slot = load(start + i);
                    }
                } else {
                    for (slot, &word) in inside.iter_mut().zip(&image[start..start + (hi - lo)]) {
                        *slot = f32::from_bits(word);
                    }
                }
            }
            let (left, right) = if clamp_border {
                (load(line), load(line + width - 1))
            } else {
                (0.0, 0.0)
            };
            row[..lo].fill(left);
            row[hi..].fill(right);
        }
        // Phase b: every output of the tile from shared memory, each the sum
        // over the filter row by row, in order; those inside the image are
        // stored. BLOCK consecutive outputs of a row at a time, then the
        // rest of the row one by one. — barrier —
        let cols = tile_w.min(width - x0);
        for oy in 0..tile_h.min(height - y0) {
            let out_row = &out[(y0 + oy) * width + x0..][..cols];
            let mut ox = 0;
            while ox + BLOCK <= cols {
                let mut sums = [0.0f32; BLOCK];
                for i in 0..kh {
                    let window = &shared_tile[(oy + i) * stride + ox..][..kw + BLOCK - 1];
                    accumulate_block(&mut sums, window, &shared_filter[i * kw..(i + 1) * kw]);
                }
                for (dst, sum) in out_row[ox..ox + BLOCK].iter().zip(sums) {
                    dst.store_f32(sum);
                }
                ox += BLOCK;
            }
            for ox in ox..cols {
                let mut sum = 0.0f32;
                for i in 0..kh {
                    let window = &shared_tile[(oy + i) * stride + ox..][..kw];
                    let weights = &shared_filter[i * kw..(i + 1) * kw];
                    for (&v, &w) in window.iter().zip(weights) {
                        sum += w * v;
                    }
                }
                out_row[ox].store_f32(sum);
            }
        }
        t += groups;
    }
}

/// Outputs of a tile row phase b computes together.
const BLOCK: usize = 16;

/// Add one filter row's taps, in order, to the sums of BLOCK consecutive
/// outputs: `window` is their halo-tile row, `weights.len() + BLOCK − 1`
/// values from the first output's first tap.
#[inline(always)]
fn accumulate_block(sums: &mut [f32; BLOCK], window: &[f32], weights: &[f32]) {
    for (j, &w) in weights.iter().enumerate() {
        let values: &[f32; BLOCK] = window[j..j + BLOCK].try_into().unwrap();
        for (sum, &v) in sums.iter_mut().zip(values) {
            *sum += w * v;
        }
    }
}
