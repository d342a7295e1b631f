// Conv1d — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Shared memory: shared_taps (TAPS f32), then shared_signal
// (GROUP_SIZE·ITEMS + TAPS − 1 f32), the halo tile.
// Barriers: after the tile load, and after computing from it.

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

    let shared: &mut [f32] = bytemuck::cast_slice_mut(group.shared);
    let (shared_taps, rest) = shared.split_at_mut(taps_len);
    let shared_signal = &mut rest[..tile + taps_len - 1];

    // Phase 1: the taps to shared memory.
    shared_taps.copy_from_slice(&taps[..taps_len]);

    let mut t = group.id[0] as usize;
    while t < tiles {
        // Phase a: the halo tile, zero outside the signal. — barrier —
        let start = (t * tile) as isize - radius as isize;
        for (s, slot) in shared_signal.iter_mut().enumerate() {
            let src = start + s as isize;
            *slot = if src >= 0 && (src as usize) < n {
                x[src as usize]
            } else {
                0.0
            };
        }
        // Phase b: every output of the tile from shared memory. — barrier —
        let base = t * tile;
        for o in 0..tile.min(n - base) {
            let window = &shared_signal[o..o + taps_len];
            let sum = window
                .iter()
                .zip(shared_taps.iter())
                .fold(0.0f32, |acc, (&v, &w)| acc + w * v);
            out[base + o].store_f32(sum);
        }
        t += group.count[0] as usize;
    }
}
