// Histogram — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Shared memory: SHARED_BINS words, the workgroup's private histogram.
// Barriers: after zeroing it, and after counting (before the merge).
// Atomics: shared-memory atomics are plain increments here (one thread runs
// the whole workgroup); global atomics are `AtomicU32::fetch_add`.

use crate::reduce::ordered_key;
use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

pub fn histogram(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let group_size = group.size as usize;
    let bins = group.constants[1];
    let privatized = group.constants[2] == bins;
    let float_input = group.constants[3] == 1;
    let n = group.params[0] as usize;
    let values = bindings.read(0);
    let counts = bindings.write(1);
    let edges: &[f32] = bytemuck::cast_slice(bindings.read(2));
    let (lo, hi, scale) = (group.param_f32(1), group.param_f32(2), group.param_f32(3));

    let bin_of = |word: u32| -> Option<u32> {
        if float_input {
            float_bin(f32::from_bits(word), lo, hi, scale, edges, bins)
        } else {
            (word < bins).then_some(word)
        }
    };

    // Phase 1 (privatized): zero the shared histogram. — barrier —
    let shared = &mut group.shared[..if privatized { bins as usize } else { 0 }];
    shared.fill(0);

    // Phase 2: grid-stride over the values, vectors first, then the tail (the
    // order of a vector's four words does not matter for counting).
    let mut count = |word: u32| {
        if let Some(bin) = bin_of(word) {
            if privatized {
                shared[bin as usize] += 1;
            } else {
                counts[bin as usize].atomic_add(1);
            }
        }
    };
    let stride = group_size * group.count[0] as usize;
    let first = group.id[0] as usize * group_size;
    let vectors = n / 4;
    let mut row = first;
    while row < vectors {
        let lanes = group_size.min(vectors - row);
        values[row * 4..(row + lanes) * 4]
            .iter()
            .for_each(|&w| count(w));
        row += stride;
    }
    let mut i = vectors * 4 + first;
    while i < n {
        let lanes = group_size.min(n - i);
        values[i..i + lanes].iter().for_each(|&w| count(w));
        i += stride;
    }

    // Phase 3 (privatized, after a barrier): merge non-zero bins into global
    // memory with atomics.
    if privatized {
        for (bin, &c) in group.shared[..bins as usize].iter().enumerate() {
            if c != 0 {
                counts[bin].atomic_add(c);
            }
        }
    }
}

/// The f32 binning rule of `mod.rs`: an f32 first guess, corrected by
/// comparing ordered keys with the edges' keys.
fn float_bin(x: f32, lo: f32, hi: f32, scale: f32, edges: &[f32], bins: u32) -> Option<u32> {
    let key = ordered_key(x.to_bits());
    let edge_key = |i: u32| ordered_key(edges[i as usize].to_bits());
    if x.is_nan() || key < ordered_key(lo.to_bits()) || key > ordered_key(hi.to_bits()) {
        return None;
    }
    let guess = ((x - lo) * scale).floor().max(0.0);
    let mut i = (guess as u32).min(bins - 1);
    while i > 0 && key < edge_key(i) {
        i -= 1;
    }
    while i < bins - 1 && key >= edge_key(i + 1) {
        i += 1;
    }
    Some(i)
}
