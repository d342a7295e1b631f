// Conv2d direct — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Algorithm: one output per invocation, every filter value read straight
// from global memory, any filter size. Output o = t·GROUP_SIZE + lid for
// t = first, first + groups, … below the blocks of GROUP_SIZE outputs (the
// flat block index over a 2-D grid, x fastest; a workgroup strides on by
// the grid's size when the grid holds fewer groups than blocks). One launch
// adds the filter values [f_begin, f_end) (flat, row-major) to each
// output's sum, in order: the launch with f_begin = 0 starts from 0, later
// ones from the sum in `out` (the plan splits the filter into consecutive
// chunks, one launch each; the sum order is that of one pass, so every
// split gives the same bits). Filter value f = row·KW + col multiplies the
// pixel at (y + row − RY, x + col − RX) with the border rule: a zero outside
// under BORDER = 0 (0·Inf is NaN, as in the reference), the nearest edge
// pixel under BORDER = 1. Row and column are counters, not a division per
// value.
// Pixels: f32 (ELEM = 0) or u8 packed four to a word (ELEM = 3), both read
// as u32 words and converted to f32 as they are loaded.
// Shared memory: none. Barriers: none. Private arrays: none.
// Indices: pixel positions are offset by the filter's radii so they never go
// negative, as in the GPU versions.
// On the CPU: one thread runs the group, invocation by invocation (one
// phase: no barriers); each output still sums its chunk of the filter in
// order (the same bits as the GPU versions without FMA contraction).

use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

pub fn conv2d_direct(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let c = group.constants;
    let group_size = group.size as usize;
    let (kh, kw) = (c[1] as usize, c[2] as usize);
    let clamp_border = c[3] == 1;
    let bytes = c[4] == 3;
    let p = group.params;
    let (height, width) = (p[0] as usize, p[1] as usize);
    let (f_begin, f_end) = (p[2] as usize, p[3] as usize);
    let image = bindings.read(0);
    let filter = bindings.read_f32(1);
    let out = bindings.write(2);
    let outputs = height * width;
    let blocks = outputs.div_ceil(group_size);
    let (ry, rx) = (kh / 2, kw / 2);
    // This workgroup's first block and the grid's size (x fastest).
    let first = group.id[1] as usize * group.count[0] as usize + group.id[0] as usize;
    let groups = group.count[0] as usize * group.count[1] as usize;
    // The chunk's first filter value's row and column (one division).
    let (row_begin, col_begin) = (f_begin / kw, f_begin % kw);

    // Pixel p (row-major) as f32: its word, or its byte of word p / 4.
    let load = |p: usize| -> f32 {
        if bytes {
            ((image[p >> 2] >> ((p & 3) * 8)) & 0xff) as f32
        } else {
            f32::from_bits(image[p])
        }
    };
    // The image at row py − ry, column px − rx with the border rule (offset
    // positions, never negative).
    let pixel = |py: usize, px: usize| -> f32 {
        if clamp_border {
            let y = if py < ry {
                0
            } else {
                (py - ry).min(height - 1)
            };
            let x = if px < rx { 0 } else { (px - rx).min(width - 1) };
            load(y * width + x)
        } else if py < ry || px < rx || py - ry >= height || px - rx >= width {
            0.0
        } else {
            load((py - ry) * width + (px - rx))
        }
    };

    let mut t = first;
    while t < blocks {
        for lid in 0..group_size {
            let o = t * group_size + lid;
            if o >= outputs {
                break;
            }
            let (y, x) = (o / width, o % width);

            // Phase 1: the sum so far: 0 in the first launch, else what the
            // launch before left in `out`.
            let mut acc = if f_begin == 0 {
                0.0
            } else {
                f32::from_bits(out[o].load_u32())
            };

            // Phase 2: filter values f_begin .. f_end − 1, row by row, in
            // order; value (row, col) multiplies the pixel at offset position
            // (y + row, x + col).
            let (mut row, mut col) = (row_begin, col_begin);
            for &w in &filter[f_begin..f_end] {
                acc += w * pixel(y + row, x + col);
                col += 1;
                if col == kw {
                    col = 0;
                    row += 1;
                }
            }

            // Phase 3: the sum to `out`.
            out[o].store_f32(acc);
        }
        t += groups;
    }
}
