// Histogram — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Algorithm: privatized (SHARED_BINS == BINS, variant `shared`): each
// workgroup zeroes a shared histogram, counts its grid-stride share of the
// values into it, then adds its non-zero bins to the global counts with
// global atomics. Global atomics (SHARED_BINS == 1, variant
// `global-atomics`): the same loop adds to the global counts directly.
// Values: u32 words, f32 words, or u8 bytes four to a word.
// Shared memory: SHARED_BINS words, the workgroup's private histogram.
// Barriers (privatized): after zeroing, and after counting (before the merge).
// Atomics: shared-memory atomics are plain additions here (one thread runs
// the whole workgroup); global atomics are `AtomicU32::fetch_add`.

use crate::reduce::ordered_key;
use rosetta_core::workgroup::{Bindings, GlobalWord, Group};
use std::sync::atomic::AtomicU32;

/// What the counting functions of the other languages see as globals and
/// constants.
struct Counter<'a> {
    bins: u32,
    privatized: bool,
    input: u32,
    lo: f32,
    hi: f32,
    scale: f32,
    edges: &'a [f32],
    shared: &'a mut [u32],
    counts: &'a [AtomicU32],
}

impl Counter<'_> {
    /// The bin of one u32 or f32 value word, or BINS if it is not counted.
    fn bin_of(&self, word: u32) -> u32 {
        if self.input == 1 {
            float_bin(word, self.lo, self.hi, self.scale, self.edges, self.bins)
        } else if word < self.bins {
            word
        } else {
            self.bins
        }
    }

    /// Add k to a bin (bins >= BINS are not counted).
    fn add(&mut self, bin: u32, k: u32) {
        if bin < self.bins {
            if self.privatized {
                self.shared[bin as usize] += k;
            } else {
                self.counts[bin as usize].atomic_add(k);
            }
        }
    }

    /// The four u8 values of a word (one atomic when they are equal).
    fn count_bytes(&mut self, word: u32) {
        let b0 = word & 0xff;
        if word == b0 * 0x0101_0101 {
            self.add(b0, 4);
            return;
        }
        self.add(b0, 1);
        self.add((word >> 8) & 0xff, 1);
        self.add((word >> 16) & 0xff, 1);
        self.add(word >> 24, 1);
    }

    /// One whole word of input.
    fn count_word(&mut self, word: u32) {
        if self.input == 2 {
            self.count_bytes(word);
        } else {
            let bin = self.bin_of(word);
            self.add(bin, 1);
        }
    }

    /// One 4-word vector (one atomic when all its values share a bin).
    fn count_vector(&mut self, x: &[u32]) {
        if self.input == 2 {
            if x.iter().all(|&w| w == x[0]) && x[0] == (x[0] & 0xff) * 0x0101_0101 {
                self.add(x[0] & 0xff, 16);
                return;
            }
            x.iter().for_each(|&w| self.count_bytes(w));
            return;
        }
        let b = [
            self.bin_of(x[0]),
            self.bin_of(x[1]),
            self.bin_of(x[2]),
            self.bin_of(x[3]),
        ];
        if b.iter().all(|&bin| bin == b[0]) {
            self.add(b[0], 4);
            return;
        }
        b.iter().for_each(|&bin| self.add(bin, 1));
    }
}

pub fn histogram(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let group_size = group.size as usize;
    let bins = group.constants[1];
    let privatized = group.constants[2] == bins;
    let input = group.constants[3];
    let n = group.params[0] as usize;
    let values = bindings.read(0);
    let (lo, hi, scale) = (group.param_f32(1), group.param_f32(2), group.param_f32(3));
    let stride = group_size * group.count[0] as usize; // T: invocations in the grid (>= 4)
    let first = group.id[0] as usize * group_size; // t of this group's lid 0

    // Phase 1 (privatized): zero the shared histogram. — barrier —
    let shared_len = if privatized { bins as usize } else { 0 };
    let shared = &mut group.shared[..shared_len];
    shared.fill(0);
    let mut c = Counter {
        bins,
        privatized,
        input,
        lo,
        hi,
        scale,
        edges: bindings.read_f32(2),
        shared,
        counts: bindings.write(1),
    };

    // Phase 2: grid-stride over the 4-word vectors (the group's invocations
    // take `group_size` consecutive vectors per stride), then the < 4 tail
    // words (one per invocation t < words % 4), then (u8) the first n % 4
    // bytes of the partial word. The order of values does not matter for
    // counting.
    let words = if input == 2 { n / 4 } else { n }; // whole words
    let vectors = words / 4;
    let mut row = first;
    while row < vectors {
        let lanes = group_size.min(vectors - row);
        values[row * 4..(row + lanes) * 4]
            .chunks_exact(4)
            .for_each(|x| c.count_vector(x));
        row += stride;
    }
    for t in first..(first + group_size).min(words % 4) {
        c.count_word(values[vectors * 4 + t]);
    }
    if input == 2 && first == 0 && !n.is_multiple_of(4) {
        let word = values[words];
        let rest = n % 4;
        c.add(word & 0xff, 1);
        if rest > 1 {
            c.add((word >> 8) & 0xff, 1);
        }
        if rest > 2 {
            c.add((word >> 16) & 0xff, 1);
        }
    }

    // Phase 3 (privatized, after a barrier): merge non-zero bins into global
    // memory with atomics.
    if privatized {
        let counts = bindings.write(1);
        for (bin, &count) in group.shared[..bins as usize].iter().enumerate() {
            if count != 0 {
                counts[bin].atomic_add(count);
            }
        }
    }
}

/// The f32 binning rule of `mod.rs`: an f32 first guess, a bracket around
/// it, then binary search by key (at most ceil(log2(BINS)) steps). Returns
/// BINS for values that are not counted (outside [lo, hi], NaN).
fn float_bin(word: u32, lo: f32, hi: f32, scale: f32, edges: &[f32], bins: u32) -> u32 {
    let key = ordered_key(word);
    let edge_key = |i: u32| ordered_key(edges[i as usize].to_bits());
    if (word & 0x7fff_ffff) > 0x7f80_0000
        || key < ordered_key(lo.to_bits())
        || key > ordered_key(hi.to_bits())
    {
        return bins;
    }
    let guess = ((f32::from_bits(word) - lo) * scale).floor().max(0.0);
    // `as` saturates (NaN to 0); the integer min keeps g in range.
    let g = (guess.min((bins - 1) as f32) as u32).min(bins - 1);
    // [a, b): edges[a] <= x, and b == BINS or x < edges[b].
    let (mut a, mut b) = (0, bins);
    if key >= edge_key(g) {
        a = g;
        if g + 1 < bins && key < edge_key(g + 1) {
            b = g + 1;
        }
    } else {
        b = g;
        if g > 0 && key >= edge_key(g - 1) {
            a = g - 1;
        }
    }
    while b - a > 1 {
        let m = a + (b - a) / 2;
        if key >= edge_key(m) {
            a = m;
        } else {
            b = m;
        }
    }
    a
}
