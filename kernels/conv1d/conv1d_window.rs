// Conv1d window — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Algorithm: a register window per invocation, nothing in shared memory.
// Tiles of TILE = GROUP_SIZE·ITEMS outputs as in conv1d.rs (the flat tile
// index over a 2-D grid; a workgroup strides on by the grid's size when the
// grid holds fewer groups than tiles). In a tile, invocation lid computes the
// vectors v = lid + r·GROUP_SIZE, r < ITEMS / 4 (four consecutive outputs
// each). For the vector at output o it fills the window
// x[o − 4·HALO, o + 4 + 4·HALO) — one copy when the window lies inside the
// signal, else one word at a time, zero outside — and sums each of its four
// outputs' taps in order from it.
// Shared memory: none. Barriers: none.
// On the CPU: one thread runs the group, invocation by invocation; every
// output still sums its taps in order (the same bits as the GPU versions
// without FMA contraction).

use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

pub fn conv1d_window(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let group_size = group.size as usize;
    let items = group.constants[1] as usize;
    let taps_len = group.constants[2] as usize;
    let n = group.params[0] as usize;
    let x = bindings.read_f32(0);
    let taps = bindings.read_f32(1);
    let out = bindings.write(2);
    let tile = group_size * items;
    let radius = taps_len / 2;
    let halo = radius.div_ceil(4); // vectors of halo on each side
    let window_len = 4 * (2 * halo + 1);
    let tiles = n.div_ceil(tile);
    // This workgroup's first tile and the grid's size (x fastest).
    let first = group.id[1] as usize * group.count[0] as usize + group.id[0] as usize;
    let groups = group.count[0] as usize * group.count[1] as usize;

    // Phase 1: the taps to registers (and the window's storage).
    let weights = &taps[..taps_len];
    let mut window = vec![0.0f32; window_len];

    let mut t = first;
    while t < tiles {
        for lid in 0..group_size {
            for r in 0..items / 4 {
                let v = t * (tile / 4) + lid + r * group_size;
                let o = 4 * v; // the vector's first output
                if o >= n {
                    continue;
                }
                // Phase a: the window. Slot s holds x[o + s − 4·halo]; `pos`
                // is that index plus 4·halo, so it never goes negative.
                let inside = o >= 4 * halo && o + 4 + 4 * halo <= n;
                if inside {
                    window.copy_from_slice(&x[o - 4 * halo..o + 4 + 4 * halo]);
                } else {
                    for (s, slot) in window.iter_mut().enumerate() {
                        let pos = o + s;
                        *slot = if pos >= 4 * halo && pos - 4 * halo < n {
                            x[pos - 4 * halo]
                        } else {
                            0.0
                        };
                    }
                }

                // Phase b: output o + k sums its taps in order; tap j reads
                // x[o + k + j − radius], window slot k + j + 4·halo − radius.
                let mut acc = [0.0f32; 4];
                for (j, &w) in weights.iter().enumerate() {
                    for (k, sum) in acc.iter_mut().enumerate() {
                        *sum += w * window[k + j + 4 * halo - radius];
                    }
                }

                // Phase c: the outputs below n.
                for (k, &sum) in acc.iter().enumerate() {
                    if o + k < n {
                        out[o + k].store_f32(sum);
                    }
                }
            }
        }
        t += groups;
    }
}
