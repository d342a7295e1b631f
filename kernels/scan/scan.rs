// Scan — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Shared memory: GROUP_SIZE words, the scratch of the workgroup's tree
// (PHASE 0) or of its scan of per-invocation totals (PHASE 1).
// Barriers: each phase below is one loop over the local index; a barrier
// separates them (two per level of the Hillis–Steele scan).

use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

/// The identity of [`add`]: −0.0 for f32 (−0 + x is x for every x, −0
/// included, where +0 + −0 is +0: numpy.cumsum of −0s is −0s), 0 for
/// integers. It pads past n and starts the sums and the first tile's offset.
fn zero_word(elem: u32) -> u32 {
    if elem == 0 {
        0x8000_0000
    } else {
        0
    }
}

/// Addition on the words' values: f32, or wrapping u32 (also i32's bits).
fn add(elem: u32, a: u32, b: u32) -> u32 {
    if elem == 0 {
        (f32::from_bits(a) + f32::from_bits(b)).to_bits()
    } else {
        a.wrapping_add(b)
    }
}

// Phases are loops over the local invocation index, as the GPU versions
// read; indexing by it is the point.
#[allow(clippy::needless_range_loop)]
pub(crate) fn scan(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let size = group.size as usize;
    let (items, elem, phase) = (
        group.constants[1] as usize,
        group.constants[2],
        group.constants[3],
    );
    let (n, offsets_len) = (group.params[0] as u64, group.params[1] as u64);
    let input = bindings.read(0);
    let output = bindings.write(1);
    let tile_len = (size * items) as u64;
    let tile = u64::from(group.id[1]) * u64::from(group.count[0]) + u64::from(group.id[0]);
    let tiles = n.div_ceil(tile_len);
    if tile >= tiles {
        return;
    }
    let base = tile * tile_len;
    // Elements of invocation `lid`: base + lid·ITEMS + k, k < ITEMS (the
    // identity past n).
    let zero = zero_word(elem);
    let load = |lid: usize, k: usize| -> u32 {
        let i = base + (lid * items + k) as u64;
        if i < n {
            input[i as usize]
        } else {
            zero
        }
    };

    if phase == 0 {
        // Phase 1: each invocation's sum. -- barrier --
        for lid in 0..size {
            let mut acc = zero;
            for k in 0..items {
                acc = add(elem, acc, load(lid, k));
            }
            group.shared[lid] = acc;
        }
        // Phase 2..: the tree, one barrier per level.
        let mut s = size / 2;
        while s > 0 {
            for lid in 0..s {
                group.shared[lid] = add(elem, group.shared[lid], group.shared[lid + s]);
            }
            s /= 2;
        }
        // Last phase: invocation 0 writes the tile's sum.
        output[tile as usize].store_u32(group.shared[0]);
        return;
    }

    // Phase 1: each invocation's inclusive scan of its ITEMS elements, in
    // private memory; its total to shared memory. -- barrier --
    let mut local = vec![0u32; size * items];
    for lid in 0..size {
        let mut acc = zero;
        for k in 0..items {
            acc = add(elem, acc, load(lid, k));
            local[lid * items + k] = acc;
        }
        group.shared[lid] = acc;
    }
    // Phase 2..: Hillis–Steele inclusive scan of the totals: at distance s,
    // read (barrier) then add (barrier).
    let mut s = 1;
    let mut read = vec![0u32; size];
    while s < size {
        for lid in 0..size {
            read[lid] = if lid >= s { group.shared[lid - s] } else { 0 };
        }
        for lid in 0..size {
            if lid >= s {
                group.shared[lid] = add(elem, read[lid], group.shared[lid]);
            }
        }
        s *= 2;
    }
    // Last phase: the tile's offset (the inclusive scan of the tile sums
    // before this tile) plus the totals of the invocations before this one,
    // added to each private prefix and written.
    let offset = if offsets_len > 0 && tile > 0 {
        bindings.read(2)[(tile - 1) as usize]
    } else {
        zero
    };
    for lid in 0..size {
        let before = if lid > 0 {
            add(elem, offset, group.shared[lid - 1])
        } else {
            offset
        };
        for k in 0..items {
            let i = base + (lid * items + k) as u64;
            if i < n {
                output[i as usize].store_u32(add(elem, before, local[lid * items + k]));
            }
        }
    }
}
