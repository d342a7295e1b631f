// Copy — CPU workgroup model (see `mod.rs`). No shared memory, no barriers.

use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

pub(crate) fn copy(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let group_size = group.size as usize;
    let n = group.params[0] as usize;
    let src = bindings.read(0);
    let dst = bindings.write(1);
    let stride = group_size * group.count[0] as usize;
    let first = group.id[0] as usize * group_size;

    // Vectors: each row of the grid-stride loop is GROUP_SIZE vectors.
    let vectors = n / 4;
    let mut row = first;
    while row < vectors {
        let words = row * 4..(row + group_size.min(vectors - row)) * 4;
        for (d, &s) in dst[words.clone()].iter().zip(&src[words]) {
            d.store_u32(s);
        }
        row += stride;
    }
    // Tail.
    let mut i = vectors * 4 + first;
    while i < n {
        let words = i..i + group_size.min(n - i);
        for (d, &s) in dst[words.clone()].iter().zip(&src[words]) {
            d.store_u32(s);
        }
        i += stride;
    }
}
