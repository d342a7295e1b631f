// Matmul — WGSL (see mod.rs for the algorithm and interface).
//
// Pass 1 of the product: a workgroup computes one TILE_M × TILE_N tile of C
// (the flat workgroup index over x and y) over one chunk of k (z), writing
// it to plane z of `c` (C itself when k is not split; matmul_sum.wgsl adds
// the planes).
// Shared memory: shared_a (TILE_K rows of TILE_M + PAD, A's tile transposed),
// then shared_b (TILE_K rows of TILE_N + PAD) — workgroup arrays sized by
// override expressions (static; mod.rs's single dynamic block is the
// CUDA/OpenCL form of the same layout), declared as vec4 as in GLSL, so that
// a run of four floats of a micro-tile is one 16-byte read (PAD = 4 keeps
// rows aligned): through wgpu on an H100, 4096^3 in 3.56 against 3.79 ms
// with scalar arrays.
// Barriers: after each pair of tile stores, and after computing from them.
// The next slice's elements are loaded from global memory into registers
// while the current slice is computed (register prefetch, as in CUDA, GLSL
// and OpenCL C); a slice that lies wholly inside both matrices is loaded
// without bounds checks (a branch uniform over the workgroup): through wgpu
// on an H100, 4096^3 in 3.75 against 3.88 ms.
// Registers: each invocation's THREAD_M × THREAD_N accumulators live in
// `acc`; the micro-tile's rows come in runs of RUN_M consecutive rows
// THREADS_M·RUN_M apart, its columns in runs of RUN_N (micro_row,
// micro_col; mod.rs says why). WGSL sizes function-scope arrays by
// constants only, so the register arrays have room for micro-tiles up to
// MAX_THREAD × MAX_THREAD (16 × 16; the plan's largest are 16 × 8 and
// 8 × 16); the loops run to THREAD_M / THREAD_N, which are constants once
// the pipeline is built, so they unroll and the unused registers vanish
// (through wgpu on an H100 the 8 × 8 tilings ran as fast with room for
// 16 × 16 as with room for 8 × 8).
// Indices are u32: the plan refuses matrices of 2^32 elements or more.
// Stores: with VECTOR_STORES, 16 bytes per run of four columns of C where
// n % 4 == 0; else one component of `c`'s vectors.

override GROUP_SIZE: u32; // (TILE_M / THREAD_M) · (TILE_N / THREAD_N)
override TILE_M: u32;
override TILE_N: u32;
override TILE_K: u32;
override THREAD_M: u32; // <= MAX_THREAD
override THREAD_N: u32; // <= MAX_THREAD
override VECTOR_STORES: u32; // 16-byte stores of C (the plan decides)

const PAD: u32 = 4u;
const MAX_THREAD: u32 = 16u;
// Room for each invocation's elements of one slice (loads_a(), loads_b()); the
// plan's tilings move at most 16 (a unit test in plan.rs checks).
const MAX_LOADS: u32 = 16u;

struct Params {
    m: u32,
    n: u32,
    k: u32,
    chunk: u32, // k per chunk, a multiple of TILE_K
}

// The micro-tile in runs of 4 rows / columns where it is a multiple of 4
// (conflict-free shared reads across a quarter-warp), else in one run.
// Row of C's tile of the micro-tile's row i, column of its column j.
fn micro_row(ty: u32, i: u32) -> u32 {
    let run = select(THREAD_M, 4u, THREAD_M % 4u == 0u);
    return (i / run) * ((TILE_M / THREAD_M) * run) + ty * run + i % run;
}
fn micro_col(tx: u32, j: u32) -> u32 {
    let run = select(THREAD_N, 4u, THREAD_N % 4u == 0u);
    return (j / run) * ((TILE_N / THREAD_N) * run) + tx * run + j % run;
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
// C as vectors of four, for the 16-byte stores of the last phase (a float
// is component i % 4 of vector i / 4; the checked layer allocates whole
// 16-byte units, so the last vector lies inside the buffer).
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> params: Params;

// Declared as vec4 so that aligned groups of four floats are read with one
// 16-byte load: element i of a row is component i % 4 of vector i / 4.
var<workgroup> shared_a: array<vec4<f32>, (TILE_K * (TILE_M + PAD) + 3u) / 4u>;
var<workgroup> shared_b: array<vec4<f32>, (TILE_K * (TILE_N + PAD) + 3u) / 4u>;

// Elements of A's and B's tiles each invocation moves per slice. (Functions,
// not overrides: naga 30 panics on an override initialised from others when
// it is declared after the override-sized shared arrays.)
fn loads_a() -> u32 {
    return (TILE_M * TILE_K + GROUP_SIZE - 1u) / GROUP_SIZE;
}
fn loads_b() -> u32 {
    return (TILE_K * TILE_N + GROUP_SIZE - 1u) / GROUP_SIZE;
}

// This invocation's elements of the next slice (the register prefetch):
// element l is the flat tile index s = lid + l·GROUP_SIZE of mod.rs.
var<private> next_a: array<f32, MAX_LOADS>;
var<private> next_b: array<f32, MAX_LOADS>;

// Load this invocation's elements of the slice at k0 (A's tile: rows row0..,
// columns k0..; B's tile: rows k0.., columns col0..) into registers, zero
// outside the matrices. Comparisons are against m − row0, n − col0 and
// k − k0, which cannot underflow. `inside` (the same for the whole
// workgroup): the slice lies wholly inside both matrices, so no element
// needs checking.
fn load_slice(lid: u32, row0: u32, col0: u32, k0: u32, inside: bool) {
    let m = params.m;
    let n = params.n;
    let k = params.k;
    if inside {
        for (var l = 0u; l < loads_a(); l++) {
            let s = lid + l * GROUP_SIZE;
            if s < TILE_M * TILE_K {
                next_a[l] = a[(row0 + s / TILE_K) * k + k0 + s % TILE_K];
            }
        }
        for (var l = 0u; l < loads_b(); l++) {
            let s = lid + l * GROUP_SIZE;
            if s < TILE_K * TILE_N {
                next_b[l] = b[(k0 + s / TILE_N) * n + col0 + s % TILE_N];
            }
        }
        return;
    }
    for (var l = 0u; l < loads_a(); l++) {
        let s = lid + l * GROUP_SIZE;
        let mm = s / TILE_K;
        let kk = s % TILE_K;
        var value = 0.0;
        if s < TILE_M * TILE_K && mm < m - row0 && kk < k - k0 {
            value = a[(row0 + mm) * k + k0 + kk];
        }
        next_a[l] = value;
    }
    for (var l = 0u; l < loads_b(); l++) {
        let s = lid + l * GROUP_SIZE;
        let kk = s / TILE_N;
        let nn = s % TILE_N;
        var value = 0.0;
        if s < TILE_K * TILE_N && kk < k - k0 && nn < n - col0 {
            value = b[(k0 + kk) * n + col0 + nn];
        }
        next_b[l] = value;
    }
}

@compute @workgroup_size(GROUP_SIZE)
fn matmul(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) num_groups: vec3<u32>,
) {
    let m = params.m;
    let n = params.n;
    let k = params.k;
    let stride_a = TILE_M + PAD;
    let stride_b = TILE_N + PAD;
    let threads_n = TILE_N / THREAD_N;
    // 16-byte shared reads (and, with VECTOR_STORES, global stores of C)
    // when the micro-tile rows start on a 4-float boundary.
    let vector_a = THREAD_M % 4u == 0u && TILE_M % 4u == 0u;
    let vector_b = THREAD_N % 4u == 0u && TILE_N % 4u == 0u;
    let tx = lid % threads_n;
    let ty = lid / threads_n;
    // Tile counts, rounded up without overflowing u32.
    let tiles_m = m / TILE_M + select(0u, 1u, m % TILE_M != 0u);
    let tiles_n = n / TILE_N + select(0u, 1u, n % TILE_N != 0u);

    // The chunk of k: indices k_begin .. k_begin + k_len.
    let k_begin = group_id.z * params.chunk;
    let k_len = min(params.chunk, k - k_begin);
    let slices = k_len / TILE_K + select(0u, 1u, k_len % TILE_K != 0u);

    var acc: array<f32, MAX_THREAD * MAX_THREAD>;
    var a_regs: array<f32, MAX_THREAD>;
    var b_regs: array<f32, MAX_THREAD>;

    // The tile: the flat workgroup index over x and y. The plan launches at
    // least one workgroup per tile (x·y >= tiles), so each takes one tile or
    // none (the last row's spare ones); uniform for the whole workgroup.
    // (An `if`, not CUDA's loop: through wgpu on an H200 the loop form ran
    // 3% slower, mod.rs.)
    let tiles = tiles_m * tiles_n;
    let tile = group_id.y * num_groups.x + group_id.x;
    if tile < tiles {
        let row0 = (tile / tiles_n) * TILE_M;
        let col0 = (tile % tiles_n) * TILE_N;
        for (var i = 0u; i < THREAD_M * THREAD_N; i++) {
            acc[i] = 0.0;
        }
        // Whether the tile's rows lie inside A and its columns inside B.
        let tile_inside = TILE_M <= m - row0 && TILE_N <= n - col0;

        // The register prefetch: the first slice now, each next one while the
        // current one is computed.
        load_slice(lid, row0, col0, k_begin, tile_inside && TILE_K <= k - k_begin);
        for (var slice = 0u; slice < slices; slice++) {
            let k0 = k_begin + slice * TILE_K;
            // Phase a: both tiles to shared memory (from the registers), zero
            // outside the matrices. — barrier —
            for (var l = 0u; l < loads_a(); l++) {
                let s = lid + l * GROUP_SIZE;
                if s < TILE_M * TILE_K {
                    let index = (s % TILE_K) * stride_a + s / TILE_K; // shared_a[kk][mm]
                    shared_a[index / 4u][index % 4u] = next_a[l];
                }
            }
            for (var l = 0u; l < loads_b(); l++) {
                let s = lid + l * GROUP_SIZE;
                if s < TILE_K * TILE_N {
                    let index = (s / TILE_N) * stride_b + s % TILE_N; // shared_b[kk][nn]
                    shared_b[index / 4u][index % 4u] = next_b[l];
                }
            }
            workgroupBarrier();

            if slice + 1u < slices {
                load_slice(lid, row0, col0, k0 + TILE_K, tile_inside && TILE_K <= k - (k0 + TILE_K));
            }

            // Phase b: this invocation's outer products. — barrier —
            for (var kk = 0u; kk < TILE_K; kk++) {
                let row_a = kk * stride_a;
                let row_b = kk * stride_b;
                if vector_a {
                    for (var i = 0u; i < THREAD_M; i += 4u) {
                        let v = shared_a[(row_a + micro_row(ty, i)) / 4u];
                        a_regs[i] = v.x;
                        a_regs[i + 1u] = v.y;
                        a_regs[i + 2u] = v.z;
                        a_regs[i + 3u] = v.w;
                    }
                } else {
                    for (var i = 0u; i < THREAD_M; i++) {
                        let index = row_a + micro_row(ty, i);
                        a_regs[i] = shared_a[index / 4u][index % 4u];
                    }
                }
                if vector_b {
                    for (var j = 0u; j < THREAD_N; j += 4u) {
                        let v = shared_b[(row_b + micro_col(tx, j)) / 4u];
                        b_regs[j] = v.x;
                        b_regs[j + 1u] = v.y;
                        b_regs[j + 2u] = v.z;
                        b_regs[j + 3u] = v.w;
                    }
                } else {
                    for (var j = 0u; j < THREAD_N; j++) {
                        let index = row_b + micro_col(tx, j);
                        b_regs[j] = shared_b[index / 4u][index % 4u];
                    }
                }
                for (var i = 0u; i < THREAD_M; i++) {
                    for (var j = 0u; j < THREAD_N; j++) {
                        acc[i * THREAD_N + j] += a_regs[i] * b_regs[j];
                    }
                }
            }
            workgroupBarrier();
        }

        // Last phase: store the micro-tile's elements inside C to plane z.
        // With VECTOR_STORES, a 16-byte store per run of four columns that
        // lies inside C where n % 4 == 0 (every run then starts on a 16-byte
        // boundary); else, and at C's edge, one float (one component of
        // `c`'s vectors) at a time. (mod.rs says when the plan asks for
        // vector stores.)
        let plane = group_id.z * m * n;
        for (var i = 0u; i < THREAD_M; i++) {
            let mm = micro_row(ty, i);
            if mm < m - row0 {
                let out_row = plane + (row0 + mm) * n + col0;
                if vector_b && VECTOR_STORES == 1u && n % 4u == 0u {
                    for (var j = 0u; j < THREAD_N; j += 4u) {
                        let nn = micro_col(tx, j);
                        let at = i * THREAD_N + j;
                        if nn + 4u <= n - col0 {
                            c[(out_row + nn) / 4u] = vec4<f32>(acc[at], acc[at + 1u], acc[at + 2u], acc[at + 3u]);
                        } else {
                            for (var q = 0u; q < 4u; q++) {
                                if nn + q < n - col0 {
                                    let e = out_row + nn + q;
                                    c[e / 4u][e % 4u] = acc[at + q];
                                }
                            }
                        }
                    }
                } else {
                    for (var j = 0u; j < THREAD_N; j++) {
                        let nn = micro_col(tx, j);
                        if nn < n - col0 {
                            let e = out_row + nn;
                            c[e / 4u][e % 4u] = acc[i * THREAD_N + j];
                        }
                    }
                }
            }
        }
    }
}
