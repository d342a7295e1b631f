// Matmul — CPU workgroup model (see `mod.rs` for the algorithm and interface).
//
// Pass 1 (`matmul`): one tile of C (the flat workgroup index over x and y)
// over one chunk of k (`group_id.z`).
// Shared memory: shared_a (TILE_K rows of TILE_M + PAD, A's tile transposed),
// then shared_b (TILE_K rows of TILE_N + PAD).
// Barriers: after each pair of tile loads, and after computing from them.
// Registers: each invocation's THREAD_M × THREAD_N accumulators live in
// `acc`, indexed by the local index (they persist across barriers).
// On the CPU: phase a copies whole rows of the tiles (A's 8 rows at a time
// where all 8 lie inside A, so each shared row gets 8 consecutive values at
// once). Phase b runs one invocation's whole TILE_K slice at a time with its
// micro-tile in a fixed-size register block, loaded from `acc` before and
// stored after (the plan deepens TILE_K on the CPU backend so the block
// stays in registers longer). The fixed micro-tiles are compiled a second
// time for AVX2 + FMA and used where the CPU has them (detected at run
// time); elsewhere the portable code runs.
//
// Pass 2 (`matmul_sum`): invocation e adds element e of its input planes in
// plane order. No shared memory, no barriers.

use super::super::spec::PAD;
use rosetta_core::workgroup::{Bindings, GlobalWord, Group};

pub fn matmul(group: &mut Group<'_>, bindings: &Bindings<'_>) {
    matmul_with(group, bindings, Simd::detect());
}

/// How phase b runs the fixed micro-tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Simd {
    /// Portable code (whatever the build's baseline target vectorises to).
    Portable,
    /// AVX2 + FMA (x86-64), detected at run time.
    #[cfg(target_arch = "x86_64")]
    Avx2Fma,
}

impl Simd {
    /// The best this CPU has (the detection is cached by std).
    fn detect() -> Simd {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Simd::Avx2Fma;
        }
        Simd::Portable
    }
}

fn matmul_with(group: &mut Group<'_>, bindings: &Bindings<'_>, simd: Simd) {
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
            // By rows of A and B: the part of a row inside the matrix is
            // copied, the rest of the tile zeroed. A's rows go 8 at a time
            // where all 8 lie inside A, so each (transposed) shared row
            // receives 8 consecutive values at once.
            let inside_k = (k - k0).min(tile_k); // columns of A's tile, rows of B's
            let inside_m = m.saturating_sub(row0).min(tile_m);
            let mut mm = 0;
            while mm + 8 <= inside_m {
                let rows: [&[f32]; 8] =
                    std::array::from_fn(|i| &a[(row0 + mm + i) * k + k0..][..inside_k]);
                for (kk, dst) in shared_a.chunks_exact_mut(stride_a).enumerate() {
                    let dst: &mut [f32; 8] = (&mut dst[mm..mm + 8]).try_into().unwrap();
                    *dst = if kk < inside_k {
                        std::array::from_fn(|i| rows[i][kk])
                    } else {
                        [0.0; 8]
                    };
                }
                mm += 8;
            }
            for mm in mm..tile_m {
                let row = row0 + mm;
                let src: &[f32] = if row < m {
                    &a[row * k + k0..][..inside_k]
                } else {
                    &[]
                };
                for (kk, dst) in shared_a.chunks_exact_mut(stride_a).enumerate() {
                    dst[mm] = src.get(kk).copied().unwrap_or(0.0);
                }
            }
            let inside_n = n.saturating_sub(col0).min(tile_n);
            for (kk, dst) in shared_b.chunks_exact_mut(stride_b).enumerate() {
                let dst = &mut dst[..tile_n];
                if kk < inside_k {
                    let src = &b[(k0 + kk) * n + col0..][..inside_n];
                    dst[..inside_n].copy_from_slice(src);
                    dst[inside_n..].fill(0.0);
                } else {
                    dst.fill(0.0);
                }
            }
            // Phase b: every invocation's outer products. — barrier —
            let staged = Tiles {
                shared_a,
                shared_b,
                stride_a,
                stride_b,
                threads_n,
            };
            match (thread_m, thread_n, simd) {
                #[cfg(target_arch = "x86_64")]
                (8, 8, Simd::Avx2Fma) => {
                    // SAFETY: `Simd::Avx2Fma` is only chosen where
                    // `is_x86_feature_detected!` found AVX2 and FMA on this
                    // CPU (`Simd::detect`; the tests check the same before
                    // forcing it).
                    unsafe { outer_products_avx2_fma::<8, 8>(&mut acc, &staged) }
                }
                #[cfg(target_arch = "x86_64")]
                (4, 16, Simd::Avx2Fma) => {
                    // SAFETY: as above, AVX2 and FMA were detected.
                    unsafe { outer_products_avx2_fma::<4, 16>(&mut acc, &staged) }
                }
                #[cfg(target_arch = "x86_64")]
                (4, 4, Simd::Avx2Fma) => {
                    // SAFETY: as above, AVX2 and FMA were detected.
                    unsafe { outer_products_avx2_fma::<4, 4>(&mut acc, &staged) }
                }
                (8, 8, _) => outer_products::<8, 8, false>(&mut acc, &staged),
                (4, 16, _) => outer_products::<4, 16, false>(&mut acc, &staged),
                (4, 4, _) => outer_products::<4, 4, false>(&mut acc, &staged),
                (2, 2, _) => outer_products::<2, 2, false>(&mut acc, &staged),
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

/// The shared tiles of one k-step, as phase b reads them (TILE_K rows each).
struct Tiles<'a> {
    shared_a: &'a [f32],
    shared_b: &'a [f32],
    stride_a: usize,
    stride_b: usize,
    threads_n: usize,
}

/// Phase b for a micro-tile size known at compile time, so the register block
/// is a fixed array and the update vectorises (as a GPU compiler unrolls it).
/// Each invocation's block is loaded from `acc`, updated over the whole
/// slice, and stored back. `FUSED` makes each update one fused multiply-add
/// (only where the target has FMA: elsewhere `mul_add` is a library call).
#[inline(always)]
fn outer_products<const TM: usize, const TN: usize, const FUSED: bool>(
    acc: &mut [f32],
    tiles: &Tiles<'_>,
) {
    for (lid, acc) in acc.chunks_exact_mut(TM * TN).enumerate() {
        let (tx, ty) = (lid % tiles.threads_n, lid / tiles.threads_n);
        let mut regs = [[0.0f32; TN]; TM];
        for (i, row) in regs.iter_mut().enumerate() {
            row.copy_from_slice(&acc[i * TN..(i + 1) * TN]);
        }
        let rows_a = tiles.shared_a.chunks_exact(tiles.stride_a);
        let rows_b = tiles.shared_b.chunks_exact(tiles.stride_b);
        for (row_a, row_b) in rows_a.zip(rows_b) {
            let a: &[f32; TM] = row_a[ty * TM..][..TM].try_into().unwrap();
            let b: &[f32; TN] = row_b[tx * TN..][..TN].try_into().unwrap();
            for (row, &av) in regs.iter_mut().zip(a) {
                for (r, &bv) in row.iter_mut().zip(b) {
                    *r = if FUSED {
                        av.mul_add(bv, *r)
                    } else {
                        *r + av * bv
                    };
                }
            }
        }
        for (i, row) in regs.iter().enumerate() {
            acc[i * TN..(i + 1) * TN].copy_from_slice(row);
        }
    }
}

/// Phase b for a fixed micro-tile, compiled for AVX2 + FMA: each row of the
/// register block is one or two 8-wide vectors (8 × 8, 4 × 16) or half of
/// one (4 × 4), updated by fused multiply-adds. Callers check that the CPU
/// has both (`Simd::Avx2Fma`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn outer_products_avx2_fma<const TM: usize, const TN: usize>(acc: &mut [f32], tiles: &Tiles<'_>) {
    outer_products::<TM, TN, true>(acc, tiles);
}

/// Phase b for any micro-tile size.
fn outer_products_any(acc: &mut [f32], tiles: &Tiles<'_>, thread_m: usize, thread_n: usize) {
    for (lid, acc) in acc.chunks_exact_mut(thread_m * thread_n).enumerate() {
        let (tx, ty) = (lid % tiles.threads_n, lid / tiles.threads_n);
        let rows_a = tiles.shared_a.chunks_exact(tiles.stride_a);
        let rows_b = tiles.shared_b.chunks_exact(tiles.stride_b);
        for (row_a, row_b) in rows_a.zip(rows_b) {
            let a_regs = &row_a[ty * thread_m..][..thread_m];
            let b_regs = &row_b[tx * thread_n..][..thread_n];
            for (i, &av) in a_regs.iter().enumerate() {
                for (j, &bv) in b_regs.iter().enumerate() {
                    acc[i * thread_n + j] += av * bv;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::plan::{Tiling, CPU_TILINGS, TILINGS};
    use super::*;
    use rosetta_core::workgroup::Binding;
    use std::sync::atomic::AtomicU32;

    /// Values that are small multiples of 1/8, so every product and partial
    /// sum below is exact in f32 and any summation order (with or without
    /// FMA) gives the same bits.
    fn values(seed: usize, len: usize) -> Vec<f32> {
        (0..len)
            .map(|i| ((i * 7919 + seed * 104_729) % 23) as f32 / 8.0 - 1.375)
            .collect()
    }

    /// One launch of pass 1 with k cut into chunks of `chunk` (a multiple
    /// of TILE_K), its workgroups run one after another; the planes summed
    /// on the host.
    fn launch(
        (m, n, k): (usize, usize, usize),
        t: Tiling,
        groups: [u32; 2],
        chunk: usize,
        simd: Simd,
    ) -> Vec<f32> {
        let a: Vec<u32> = bytemuck::cast_vec(values(1, m * k));
        let b: Vec<u32> = bytemuck::cast_vec(values(2, k * n));
        let chunks = k.div_ceil(chunk);
        let c: Vec<AtomicU32> = (0..chunks * m * n)
            .map(|_| AtomicU32::new(u32::MAX))
            .collect();
        let bindings = Bindings::new(vec![
            Binding::Read(&a),
            Binding::Read(&b),
            Binding::ReadWrite(&c),
        ]);
        let constants = [
            t.group_size(),
            t.tile_m,
            t.tile_n,
            t.tile_k,
            t.thread_m,
            t.thread_n,
        ];
        let params = [m as u32, n as u32, k as u32, chunk as u32];
        let mut shared = vec![0u32; t.shared_bytes() as usize / 4];
        let count = [groups[0], groups[1], chunks as u32];
        for z in 0..count[2] {
            for y in 0..count[1] {
                for x in 0..count[0] {
                    let mut group = Group {
                        id: [x, y, z],
                        count,
                        size: t.group_size(),
                        constants: &constants,
                        params: &params,
                        shared: &mut shared,
                    };
                    matmul_with(&mut group, &bindings, simd);
                }
            }
        }
        let planes: Vec<f32> = c.iter().map(|w| f32::from_bits(w.load_u32())).collect();
        (0..m * n)
            .map(|e| (0..chunks).map(|p| planes[p * m * n + e]).sum())
            .collect()
    }

    fn expected((m, n, k): (usize, usize, usize)) -> Vec<f32> {
        let (a, b) = (values(1, m * k), values(2, k * n));
        let mut c = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    }

    /// Every phase-b path (the portable one, and AVX2 + FMA where this CPU
    /// has it) with every tiling (the GPU's and the CPU backend's) on ragged
    /// shapes: one group per tile and a single grid-striding group, whole k
    /// and k split into chunks of two slices.
    #[test]
    fn every_simd_path_matches_the_reference() {
        let mut paths = vec![Simd::Portable];
        match Simd::detect() {
            Simd::Portable => eprintln!("no AVX2 + FMA on this CPU: the portable path only"),
            simd => paths.push(simd),
        }
        for shape in [(70, 45, 130), (136, 200, 67), (8, 8, 1), (1, 129, 9)] {
            let want = expected(shape);
            for t in TILINGS.iter().chain(&CPU_TILINGS) {
                let tile_k = t.tile_k as usize;
                let tiles = [
                    shape.1.div_ceil(t.tile_n as usize) as u32,
                    shape.0.div_ceil(t.tile_m as usize) as u32,
                ];
                for groups in [tiles, [1, 1]] {
                    for chunk in [shape.2.div_ceil(tile_k) * tile_k, 2 * tile_k] {
                        for &simd in &paths {
                            let got = launch(shape, *t, groups, chunk, simd);
                            assert!(
                                got == want,
                                "{shape:?} with {t}, {groups:?} groups, chunk {chunk}, {simd:?}"
                            );
                        }
                    }
                }
            }
        }
    }
}
