// Conv1d direct — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Algorithm: one output per invocation, the taps read straight from global
// memory, for filters of any length. Tiles of GROUP_SIZE outputs (the flat
// tile index over a 2-D grid; a workgroup strides on by the grid's size when
// the grid holds fewer groups than tiles); invocation lid computes output
// o = t·GROUP_SIZE + lid. One launch adds the taps [f_begin, f_end) in order
// to the running sum: from 0 when f_begin = 0, else from what the previous
// launch left in `out`, so the plan splits a long filter over launches (the
// loop budget) and every split gives the bits of one pass. A tap over the
// zero border multiplies a zero (0·Inf is NaN there, as in the reference).
// Shared memory: none. Barriers: none. Private arrays: none.
// Bindings: the output is read and written (the running sum).
// Indices: positions are offset by the radius so they never go negative, as
// in the GPU versions.
// On the CPU: one thread runs the group. BLOCK consecutive outputs
// (invocations) whose taps of this launch all lie over the signal are summed
// together, a fixed-size block of sums that vectorises; the others one by
// one, the taps over the signal as one run of it and those outside
// multiplying zeros. Every output still sums its taps in order (the same
// bits as one at a time).

use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

pub fn conv1d_direct(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let group_size = group.size as usize;
    let taps_len = group.constants[1] as usize;
    let n = group.params[0] as usize;
    let (f_begin, f_end) = (group.params[1] as usize, group.params[2] as usize);
    let x = bindings.read_f32(0);
    let taps = &bindings.read_f32(1)[f_begin..f_end];
    let out = bindings.write(2);
    let radius = taps_len / 2;
    let tiles = n.div_ceil(group_size);
    // This workgroup's first tile and the grid's size (x fastest).
    let first = group.id[1] as usize * group.count[0] as usize + group.id[0] as usize;
    let groups = group.count[0] as usize * group.count[1] as usize;

    // Phase a: the running sum, 0 on the first launch, else what the
    // previous launch stored.
    let start = |o: usize| -> f32 {
        if f_begin != 0 {
            f32::from_bits(out[o].load_u32())
        } else {
            0.0
        }
    };

    let mut t = first;
    while t < tiles {
        // Phase b: outputs o = t·GROUP_SIZE + lid below n, each adding taps
        // j in [f_begin, f_end) in order; tap j reads x[o + j − radius]
        // (zero outside the signal; `pos = o + j` is that index plus the
        // radius). Phase c: the sum so far, for the next launch or the
        // result. BLOCK outputs at a time where their taps all lie over the
        // signal, else one by one.
        let base = t * group_size;
        let end = (base + group_size).min(n);
        let mut o = base;
        while o < end {
            let inside = o + f_begin >= radius && o + BLOCK - 1 + f_end <= n + radius;
            if o + BLOCK <= end && inside {
                let window = &x[o + f_begin - radius..o + BLOCK - 1 + f_end - radius];
                let mut sums: [f32; BLOCK] = std::array::from_fn(|b| start(o + b));
                block_sums(&mut sums, window, taps);
                for (dst, sum) in out[o..o + BLOCK].iter().zip(sums) {
                    dst.store_f32(sum);
                }
                o += BLOCK;
                continue;
            }
            // The taps over the signal, [lo, hi) of this launch's: those
            // with radius <= o + j < n + radius.
            let lo = radius.saturating_sub(o + f_begin).min(taps.len());
            let hi = (n + radius - o)
                .saturating_sub(f_begin)
                .clamp(lo, taps.len());
            let zeros = |acc: f32, w: &[f32]| w.iter().fold(acc, |acc, &w| acc + w * 0.0);
            let mut acc = zeros(start(o), &taps[..lo]);
            if lo < hi {
                let signal = &x[o + f_begin + lo - radius..o + f_begin + hi - radius];
                acc = taps[lo..hi]
                    .iter()
                    .zip(signal)
                    .fold(acc, |acc, (&w, &v)| acc + w * v);
            }
            acc = zeros(acc, &taps[hi..]);
            out[o].store_f32(acc);
            o += 1;
        }
        t += groups;
    }
}

/// Outputs summed together.
const BLOCK: usize = 32;

/// Add `taps` in order to BLOCK running sums of consecutive outputs:
/// `window` is their signal, `taps.len() + BLOCK − 1` values from the first
/// output's first tap.
#[inline(always)]
fn block_sums(sums: &mut [f32; BLOCK], window: &[f32], taps: &[f32]) {
    for (j, &w) in taps.iter().enumerate() {
        let values: &[f32; BLOCK] = window[j..j + BLOCK].try_into().unwrap();
        for (sum, &v) in sums.iter_mut().zip(values) {
            *sum += w * v;
        }
    }
}
