// Conv2d — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Shared memory: shared_filter (KH·KW f32), then shared_tile, the halo tile
// of (TILE_H + KH − 1) rows × (TILE_W + KW − 1) columns.
// Barriers: after the tile load, and after computing from it.

use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

pub fn conv2d(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let c = group.constants;
    let (tile_w, tile_h, kh, kw) = (c[1] as usize, c[2] as usize, c[3] as usize, c[4] as usize);
    let clamp_border = c[5] == 1;
    let (height, width) = (group.params[0] as usize, group.params[1] as usize);
    let image = bindings.read_f32(0);
    let filter = bindings.read_f32(1);
    let out = bindings.write(2);
    let (tiles_x, tiles_y) = (width.div_ceil(tile_w), height.div_ceil(tile_h));
    let stride = tile_w + kw - 1; // shared_tile row stride
    let tile_rows = tile_h + kh - 1;

    let shared: &mut [f32] = bytemuck::cast_slice_mut(group.shared);
    let (shared_filter, rest) = shared.split_at_mut(kh * kw);
    let shared_tile = &mut rest[..tile_rows * stride];

    // Phase 1: the filter to shared memory.
    shared_filter.copy_from_slice(&filter[..kh * kw]);

    let pixel = |y: isize, x: isize| -> f32 {
        if clamp_border {
            let y = y.clamp(0, height as isize - 1) as usize;
            let x = x.clamp(0, width as isize - 1) as usize;
            image[y * width + x]
        } else if y < 0 || x < 0 || y >= height as isize || x >= width as isize {
            0.0
        } else {
            image[y as usize * width + x as usize]
        }
    };

    let mut ty = group.id[1] as usize;
    while ty < tiles_y {
        let mut tx = group.id[0] as usize;
        while tx < tiles_x {
            // Phase a: the halo tile with the border rule. — barrier —
            let y0 = (ty * tile_h) as isize - (kh / 2) as isize;
            let x0 = (tx * tile_w) as isize - (kw / 2) as isize;
            for (r, row) in shared_tile.chunks_exact_mut(stride).enumerate() {
                for (col, slot) in row.iter_mut().enumerate() {
                    *slot = pixel(y0 + r as isize, x0 + col as isize);
                }
            }
            // Phase b: every output of the tile from shared memory. — barrier —
            for oy in 0..tile_h.min(height - ty * tile_h) {
                for ox in 0..tile_w.min(width - tx * tile_w) {
                    let mut sum = 0.0f32;
                    for i in 0..kh {
                        let window = &shared_tile[(oy + i) * stride + ox..][..kw];
                        let weights = &shared_filter[i * kw..(i + 1) * kw];
                        for (&v, &w) in window.iter().zip(weights) {
                            sum += w * v;
                        }
                    }
                    out[(ty * tile_h + oy) * width + tx * tile_w + ox].store_f32(sum);
                }
            }
            tx += group.count[0] as usize;
        }
        ty += group.count[1] as usize;
    }
}
