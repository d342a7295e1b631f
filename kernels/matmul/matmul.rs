// Matmul — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Pass 1 (`matmul`): one tile of C (the flat workgroup index over x and y)
// over one chunk of k (`group_id.z`).
// Shared memory: shared_a (TILE_K rows of TILE_M + PAD, A's tile transposed),
// then shared_b (TILE_K rows of TILE_N + PAD).
// Barriers: after each pair of tile loads, and after computing from them.
// Registers: each invocation's THREAD_M × THREAD_N accumulators live in
// `acc`, indexed by the local index (they persist across barriers).
//
// Pass 2 (`matmul_sum`): invocation e adds element e of its input planes in
// plane order. No shared memory, no barriers.

use super::super::spec::PAD;
use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

pub fn matmul(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let c = group.constants;
    let group_size = c[0] as usize;
    let (tile_m, tile_n, tile_k) = (c[1] as usize, c[2] as usize, c[3] as usize);
    let (thread_m, thread_n) = (c[4] as usize, c[5] as usize);
    let (m, n, k, chunk) = (
        group.params[0] as usize,
        group.params[1] as usize,
        group.params[2] as usize,
        group.params[3] as usize,
    );
    let a = bindings.read_f32(0);
    let b = bindings.read_f32(1);
    let out = bindings.write(2);
    let (stride_a, stride_b) = (tile_m + PAD as usize, tile_n + PAD as usize);
    let threads_n = tile_n / thread_n;

    let tiles_m = m.div_ceil(tile_m);
    let tiles_n = n.div_ceil(tile_n);
    // The chunk of k (z): indices k_begin .. k_end.
    let z = group.id[2] as usize;
    let k_begin = z * chunk;
    let k_end = k_begin + chunk.min(k - k_begin);
    let plane = z * m * n;

    let shared: &mut [f32] = bytemuck::cast_slice_mut(group.shared);
    let (shared_a, rest) = shared.split_at_mut(tile_k * stride_a);
    let shared_b = &mut rest[..tile_k * stride_b];
    let micro = thread_m * thread_n;
    let mut acc = vec![0.0f32; group_size * micro];

    // The tile: the flat workgroup index over x and y (one per workgroup, as
    // the plan launches them; the loop runs once).
    let tiles = tiles_m * tiles_n;
    let stride = group.count[0] as usize * group.count[1] as usize;
    let mut tile = group.id[1] as usize * group.count[0] as usize + group.id[0] as usize;
    while tile < tiles {
        let (row0, col0) = ((tile / tiles_n) * tile_m, (tile % tiles_n) * tile_n);
        acc.fill(0.0);
        let mut k0 = k_begin;
        while k0 < k_end {
            // Phase a: both tiles, zero outside the matrices. — barrier —
            for mm in 0..tile_m {
                for kk in 0..tile_k {
                    let (row, col) = (row0 + mm, k0 + kk);
                    shared_a[kk * stride_a + mm] = if row < m && col < k {
                        a[row * k + col]
                    } else {
                        0.0
                    };
                }
            }
            for kk in 0..tile_k {
                for nn in 0..tile_n {
                    let (row, col) = (k0 + kk, col0 + nn);
                    shared_b[kk * stride_b + nn] = if row < k && col < n {
                        b[row * n + col]
                    } else {
                        0.0
                    };
                }
            }
            // Phase b: every invocation's outer products. — barrier —
            let staged = Tiles {
                shared_a,
                shared_b,
                stride_a,
                stride_b,
                tile_k,
                threads_n,
            };
            match (thread_m, thread_n) {
                (8, 8) => outer_products::<8, 8>(&mut acc, &staged),
                (4, 4) => outer_products::<4, 4>(&mut acc, &staged),
                (2, 2) => outer_products::<2, 2>(&mut acc, &staged),
                _ => outer_products_any(&mut acc, &staged, thread_m, thread_n),
            }
            k0 += tile_k;
        }
        // Last phase: store the micro-tiles' elements inside C to plane z.
        for (lid, acc) in acc.chunks_exact(micro).enumerate() {
            let (tx, ty) = (lid % threads_n, lid / threads_n);
            for i in 0..thread_m {
                let row = row0 + ty * thread_m + i;
                for j in 0..thread_n {
                    let col = col0 + tx * thread_n + j;
                    if row < m && col < n {
                        out[plane + row * n + col].store_f32(acc[i * thread_n + j]);
                    }
                }
            }
        }
        tile += stride;
    }
}

pub fn matmul_sum(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    let group_size = group.constants[0] as usize;
    let (len, planes, fan_in) = (
        group.params[0] as usize,
        group.params[1] as usize,
        group.params[2] as usize,
    );
    let partials = bindings.read_f32(0);
    let out = bindings.write(1);
    let flat = group.id[1] as usize * group.count[0] as usize + group.id[0] as usize;
    let z = group.id[2] as usize;
    let first = z * fan_in;
    let count = fan_in.min(planes - first);
    for lid in 0..group_size {
        let e = flat * group_size + lid;
        if e >= len {
            break;
        }
        let mut acc = 0.0f32;
        for p in 0..count {
            acc += partials[(first + p) * len + e];
        }
        out[z * len + e].store_f32(acc);
    }
}

/// The shared tiles of one k-step, as phase b reads them.
struct Tiles<'a> {
    shared_a: &'a [f32],
    shared_b: &'a [f32],
    stride_a: usize,
    stride_b: usize,
    tile_k: usize,
    threads_n: usize,
}

/// Phase b for a micro-tile size known at compile time, so the register block
/// is a fixed array and the update vectorises (as a GPU compiler unrolls it).
fn outer_products<const TM: usize, const TN: usize>(acc: &mut [f32], tiles: &Tiles<'_>) {
    for (lid, acc) in acc.chunks_exact_mut(TM * TN).enumerate() {
        let (tx, ty) = (lid % tiles.threads_n, lid / tiles.threads_n);
        let mut regs = [[0.0f32; TN]; TM];
        for (i, row) in regs.iter_mut().enumerate() {
            row.copy_from_slice(&acc[i * TN..(i + 1) * TN]);
        }
        for kk in 0..tiles.tile_k {
            let a: &[f32; TM] = tiles.shared_a[kk * tiles.stride_a + ty * TM..][..TM]
                .try_into()
                .unwrap();
            let b: &[f32; TN] = tiles.shared_b[kk * tiles.stride_b + tx * TN..][..TN]
                .try_into()
                .unwrap();
            for (row, &av) in regs.iter_mut().zip(a) {
                for (r, &bv) in row.iter_mut().zip(b) {
                    *r += av * bv;
                }
            }
        }
        for (i, row) in regs.iter().enumerate() {
            acc[i * TN..(i + 1) * TN].copy_from_slice(row);
        }
    }
}

/// Phase b for any micro-tile size.
fn outer_products_any(acc: &mut [f32], tiles: &Tiles<'_>, thread_m: usize, thread_n: usize) {
    for (lid, acc) in acc.chunks_exact_mut(thread_m * thread_n).enumerate() {
        let (tx, ty) = (lid % tiles.threads_n, lid / tiles.threads_n);
        for kk in 0..tiles.tile_k {
            let a_regs = &tiles.shared_a[kk * tiles.stride_a + ty * thread_m..][..thread_m];
            let b_regs = &tiles.shared_b[kk * tiles.stride_b + tx * thread_n..][..thread_n];
            for (i, &av) in a_regs.iter().enumerate() {
                for (j, &bv) in b_regs.iter().enumerate() {
                    acc[i * thread_n + j] += av * bv;
                }
            }
        }
    }
}
