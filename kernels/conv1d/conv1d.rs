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
// On the CPU: phase a is one copy of the slots inside the signal and zero
// fills around it; phase b computes BLOCK consecutive outputs (invocations)
// at a time, a fixed-size block of sums that vectorises, each output still
// the sum over its taps in order (the same bits as one at a time).

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
        // Slot s holds x[base + s − radius]; `pos = base + s` is that index
        // plus the radius. The slots with radius <= pos < n + radius,
        // [lo, hi), are one copy; the rest are zeros.
        let base = t * tile;
        let slots = shared_signal.len();
        let lo = radius.saturating_sub(base).min(slots);
        let hi = (n + radius).saturating_sub(base).clamp(lo, slots);
        shared_signal[..lo].fill(0.0);
        if lo < hi {
            shared_signal[lo..hi].copy_from_slice(&x[base + lo - radius..base + hi - radius]);
        }
        shared_signal[hi..].fill(0.0);
        // Phase b: every output of the tile (invocation lid computes
        // lid + r·GROUP_SIZE), each the sum over its taps in order; those
        // inside the signal are stored. BLOCK consecutive outputs at a time,
        // then the rest one by one. — barrier —
        let outputs = tile.min(n - base);
        let mut o = 0;
        while o + BLOCK <= outputs {
            let window = &shared_signal[o..o + taps_len + BLOCK - 1];
            let sums = block_sums(window, shared_taps);
            for (dst, sum) in out[base + o..base + o + BLOCK].iter().zip(sums) {
                dst.store_f32(sum);
            }
            o += BLOCK;
        }
        for o in o..outputs {
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

/// Outputs phase b computes together.
const BLOCK: usize = 32;

/// The sums of BLOCK consecutive outputs: `window` is their signal,
/// `taps.len() + BLOCK − 1` values from the first output's first tap. Each
/// sum adds its taps in order, from 0, as one output at a time does.
#[inline(always)]
fn block_sums(window: &[f32], taps: &[f32]) -> [f32; BLOCK] {
    let mut sums = [0.0f32; BLOCK];
    for (j, &w) in taps.iter().enumerate() {
        let values: &[f32; BLOCK] = window[j..j + BLOCK].try_into().unwrap();
        for (sum, &v) in sums.iter_mut().zip(values) {
            *sum += w * v;
        }
    }
    sums
}
