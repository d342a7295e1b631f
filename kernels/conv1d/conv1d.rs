// Conv1d — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Algorithm: halo tiles in shared memory, one tile of TILE = GROUP_SIZE·ITEMS
// outputs per workgroup (the flat tile index over a 2-D grid; a workgroup
// strides on by the grid's size when the grid holds fewer groups than
// tiles). Each workgroup loads the taps once, then per tile the signal it
// needs plus TAPS − 1 halo values (zero outside the signal), and computes
// the tile's outputs from shared memory.
// Shared memory: shared_taps (TAPS f32), then shared_signal
// (TILE + TAPS − 1 f32), the halo tile.
// Barriers: after the tile load, and after computing from it (phase
// boundaries: each phase is one pass over the tile).
// Indices: positions are offset by the radius so they never go negative, as
// in the GPU versions.

use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

pub fn conv1d(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let group_size = group.size as usize;
    let items = group.constants[1] as usize;
    let taps_len = group.constants[2] as usize;
    let n = group.params[0] as usize;
    let x = bindings.read_f32(0);
    let taps = bindings.read_f32(1);
    let out = bindings.write(2);
    let tile = group_size * items;
    let radius = taps_len / 2;
    let tiles = n.div_ceil(tile);
    // This workgroup's first tile and the grid's size (x fastest).
    let first = group.id[1] as usize * group.count[0] as usize + group.id[0] as usize;
    let groups = group.count[0] as usize * group.count[1] as usize;

    let shared: &mut [f32] = bytemuck::cast_slice_mut(group.shared);
    let (shared_taps, rest) = shared.split_at_mut(taps_len);
    let shared_signal = &mut rest[..tile + taps_len - 1];

    // Phase 1: the taps to shared memory.
    shared_taps.copy_from_slice(&taps[..taps_len]);

    let mut t = first;
    while t < tiles {
        // Phase a: the halo tile, zero outside the signal. — barrier —
        // Slot s holds x[base + s − radius]; `pos` is that index plus the
        // radius.
        let base = t * tile;
        for (s, slot) in shared_signal.iter_mut().enumerate() {
            let pos = base + s;
            *slot = if pos >= radius && pos - radius < n {
                x[pos - radius]
            } else {
                0.0
            };
        }
        // Phase b: every output of the tile (invocation lid computes
        // lid + r·GROUP_SIZE), each the sum over its taps in order; those
        // inside the signal are stored. — barrier —
        for o in 0..tile.min(n - base) {
            let window = &shared_signal[o..o + taps_len];
            let sum = window
                .iter()
                .zip(shared_taps.iter())
                .fold(0.0f32, |acc, (&v, &w)| acc + w * v);
            out[base + o].store_f32(sum);
        }
        t += groups;
    }
}
