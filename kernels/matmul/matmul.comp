#version 450
// Matmul -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Algorithm: pass 1 of C (m x n) = A (m x k) * B (k x n), row-major f32. A
// workgroup computes one TILE_M x TILE_N tile of C (the flat workgroup index
// over x and y) over one chunk of k (z), writing it to plane z of `c` (C
// itself when k is not split; matmul_sum.comp adds the planes). Each
// invocation owns a THREAD_M x THREAD_N micro-tile, accumulated in
// registers: its rows come in runs of RUN_M consecutive rows THREADS_M*RUN_M
// apart, its columns in runs of RUN_N (micro_row, micro_col; mod.rs says
// why). For each TILE_K-wide
// slice of the chunk, the workgroup stages A's tile (transposed, k-major)
// and B's tile in shared memory, zero outside the matrices, and every
// invocation accumulates the outer products of its THREAD_M values of
// shared_a[kk] and THREAD_N values of shared_b[kk] (16-byte shared reads
// where the micro-tile allows). The next slice's elements are loaded from
// global memory into registers while the current slice is computed
// (register prefetch); a slice that lies wholly inside both matrices is
// loaded without bounds checks (a branch uniform over the workgroup):
// NVIDIA's Vulkan ran 4096^3 in 3.41 against 3.61 ms on an H100.
// (Two shared buffers with one barrier per slice ran slower there:
// 3.91 ms.)
// Shared memory: shared_a (TILE_K rows of TILE_M + PAD f32, A's tile
// transposed), then shared_b (TILE_K rows of TILE_N + PAD f32) -- shared
// arrays sized by specialization constants (static; mod.rs's single dynamic
// block is the CUDA/OpenCL form of the same layout), declared as vec4 so
// that aligned groups of four floats are read with one 16-byte load; element
// i of a row is component i % 4 of vector i / 4. Rows are padded by PAD = 4
// floats against bank conflicts, keeping 16-byte alignment.
// Barriers: after each pair of tile stores, and after computing from them.
// Registers: each invocation's accumulators live in `acc`, private arrays
// sized by specialization constants; every loop over them has a constant
// trip count once the pipeline is built, which the driver unrolls, so they
// become registers. The loops carry no [[unroll]] hint (SPIR-V's Unroll
// loop control): with them NVIDIA's driver ran this kernel 22% slower (an
// H100, 4096^3: 4.41 against 3.61 ms) and reported 15 616 bytes of shared
// memory for the 8 448 declared. (The conv kernels keep theirs: without,
// conv2d ran 4% slower.)
// Indices are uint: the plan refuses matrices of 2^32 elements or more.
// Stores: with VECTOR_STORES, 16 bytes per run of four columns of C where
// n % 4 == 0 (c4, a vector view of the same binding); else 4 bytes.

layout(constant_id = 0) const uint GROUP_SIZE = 64; // (TILE_M / THREAD_M) * (TILE_N / THREAD_N)
layout(constant_id = 1) const uint TILE_M = 16;
layout(constant_id = 2) const uint TILE_N = 16;
layout(constant_id = 3) const uint TILE_K = 8;
layout(constant_id = 4) const uint THREAD_M = 2;
layout(constant_id = 5) const uint THREAD_N = 2;
layout(constant_id = 6) const uint VECTOR_STORES = 0; // 16-byte stores of C (the plan decides)
layout(local_size_x_id = 0) in;

const uint PAD = 4u;
const uint STRIDE_A = TILE_M + PAD; // shared_a row stride (floats)
const uint STRIDE_B = TILE_N + PAD; // shared_b row stride (floats)
// Elements of A's and B's tiles each invocation moves per slice.
const uint LOADS_A = (TILE_M * TILE_K + GROUP_SIZE - 1u) / GROUP_SIZE;
const uint LOADS_B = (TILE_K * TILE_N + GROUP_SIZE - 1u) / GROUP_SIZE;
// 16-byte shared reads when the micro-tile rows start on a 4-float boundary.
const bool VECTOR_A = THREAD_M % 4u == 0u && TILE_M % 4u == 0u;
const bool VECTOR_B = THREAD_N % 4u == 0u && TILE_N % 4u == 0u;
// 16-byte stores of C's runs of four columns (the last phase). Spelled out,
// not `VECTOR_B && ...`: glslang 0.9 emitted that as a specialization-
// constant op that uses VECTOR_B's id before defining it (invalid SPIR-V).
const bool VECTOR_C = VECTOR_STORES != 0u && THREAD_N % 4u == 0u && TILE_N % 4u == 0u;
// The micro-tile in runs of 4 rows / columns where it is a multiple of 4
// (one 16-byte shared read each, conflict-free across a quarter-warp), else
// in one run.
const uint THREADS_M = TILE_M / THREAD_M;
const uint THREADS_N = TILE_N / THREAD_N;
const uint RUN_M = THREAD_M % 4u == 0u ? 4u : THREAD_M;
const uint RUN_N = THREAD_N % 4u == 0u ? 4u : THREAD_N;

// Row of C's tile of the micro-tile's row i, column of its column j.
uint micro_row(uint ty, uint i) {
    return (i / RUN_M) * (THREADS_M * RUN_M) + ty * RUN_M + i % RUN_M;
}
uint micro_col(uint tx, uint j) {
    return (j / RUN_N) * (THREADS_N * RUN_N) + tx * RUN_N + j % RUN_N;
}

layout(set = 0, binding = 0) restrict readonly buffer A { float a[]; };
layout(set = 0, binding = 1) restrict readonly buffer B { float b[]; };
// C twice: as floats, and as vectors of four for the 16-byte stores of the
// last phase (the same buffer; no element is written through both).
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(set = 0, binding = 2) writeonly buffer C4 { vec4 c4[]; };
layout(push_constant) uniform Params {
    uint m;
    uint n;
    uint k;
    uint chunk; // k per chunk, a multiple of TILE_K
} params;

shared vec4 shared_a[(TILE_K * STRIDE_A + 3u) / 4u];
shared vec4 shared_b[(TILE_K * STRIDE_B + 3u) / 4u];

// This invocation's elements of the next slice (the register prefetch):
// element l is the flat tile index s = lid + l*GROUP_SIZE of mod.rs.
float next_a[LOADS_A];
float next_b[LOADS_B];

// Load this invocation's elements of the slice at k0 (A's tile: rows row0..,
// columns k0..; B's tile: rows k0.., columns col0..) into registers, zero
// outside the matrices. Comparisons are against m - row0, n - col0 and
// k - k0, which cannot underflow. `inside` (the same for the whole
// workgroup): the slice lies wholly inside both matrices, so no element
// needs checking.
void load_slice(uint lid, uint row0, uint col0, uint k0, bool inside) {
    uint m = params.m;
    uint n = params.n;
    uint k = params.k;
    if (inside) {
        for (uint l = 0u; l < LOADS_A; l++) {
            uint s = lid + l * GROUP_SIZE;
            if (s < TILE_M * TILE_K) {
                next_a[l] = a[(row0 + s / TILE_K) * k + k0 + s % TILE_K];
            }
        }
        for (uint l = 0u; l < LOADS_B; l++) {
            uint s = lid + l * GROUP_SIZE;
            if (s < TILE_K * TILE_N) {
                next_b[l] = b[(k0 + s / TILE_N) * n + col0 + s % TILE_N];
            }
        }
        return;
    }
    for (uint l = 0u; l < LOADS_A; l++) {
        uint s = lid + l * GROUP_SIZE;
        uint mm = s / TILE_K;
        uint kk = s % TILE_K;
        float value = 0.0;
        if (s < TILE_M * TILE_K && mm < m - row0 && kk < k - k0) {
            value = a[(row0 + mm) * k + k0 + kk];
        }
        next_a[l] = value;
    }
    for (uint l = 0u; l < LOADS_B; l++) {
        uint s = lid + l * GROUP_SIZE;
        uint kk = s / TILE_N;
        uint nn = s % TILE_N;
        float value = 0.0;
        if (s < TILE_K * TILE_N && kk < k - k0 && nn < n - col0) {
            value = b[(k0 + kk) * n + col0 + nn];
        }
        next_b[l] = value;
    }
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint m = params.m;
    uint n = params.n;
    uint k = params.k;
    uint tx = lid % THREADS_N; // micro-tile column
    uint ty = lid / THREADS_N; // micro-tile row
    // Tile counts, rounded up without overflowing uint.
    uint tiles_m = m / TILE_M + (m % TILE_M != 0u ? 1u : 0u);
    uint tiles_n = n / TILE_N + (n % TILE_N != 0u ? 1u : 0u);

    // The chunk of k: indices k_begin .. k_begin + k_len.
    uint k_begin = gl_WorkGroupID.z * params.chunk;
    uint k_len = min(params.chunk, k - k_begin);
    uint slices = k_len / TILE_K + (k_len % TILE_K != 0u ? 1u : 0u);

    float acc[THREAD_M * THREAD_N];
    float a_regs[THREAD_M];
    float b_regs[THREAD_N];

    // The tile: the flat workgroup index over x and y. The plan launches at
    // least one workgroup per tile (x*y >= tiles), so each takes one tile or
    // none (the last row's spare ones); uniform for the whole workgroup.
    // (An `if`, not CUDA's loop: through NVIDIA's Vulkan driver the loop
    // form ran slower, mod.rs.)
    uint tiles = tiles_m * tiles_n;
    uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (tile < tiles) {
        uint row0 = (tile / tiles_n) * TILE_M;
        uint col0 = (tile % tiles_n) * TILE_N;
        for (uint i = 0u; i < THREAD_M * THREAD_N; i++) {
            acc[i] = 0.0;
        }
        // Whether the tile's rows lie inside A and its columns inside B.
        bool tile_inside = TILE_M <= m - row0 && TILE_N <= n - col0;

        // The register prefetch: the first slice now, each next one while the
        // current one is computed.
        load_slice(lid, row0, col0, k_begin, tile_inside && TILE_K <= k - k_begin);
        for (uint slice = 0u; slice < slices; slice++) {
            uint k0 = k_begin + slice * TILE_K;
            // Phase a: both tiles to shared memory (from the registers), zero
            // outside the matrices. -- barrier --
            for (uint l = 0u; l < LOADS_A; l++) {
                uint s = lid + l * GROUP_SIZE;
                if (s < TILE_M * TILE_K) {
                    uint index = (s % TILE_K) * STRIDE_A + s / TILE_K; // shared_a[kk][mm]
                    shared_a[index / 4u][index % 4u] = next_a[l];
                }
            }
            for (uint l = 0u; l < LOADS_B; l++) {
                uint s = lid + l * GROUP_SIZE;
                if (s < TILE_K * TILE_N) {
                    uint index = (s / TILE_N) * STRIDE_B + s % TILE_N; // shared_b[kk][nn]
                    shared_b[index / 4u][index % 4u] = next_b[l];
                }
            }
            barrier();

            if (slice + 1u < slices) {
                load_slice(lid, row0, col0, k0 + TILE_K, tile_inside && TILE_K <= k - (k0 + TILE_K));
            }

            // Phase b: this invocation's outer products. -- barrier --
            for (uint kk = 0u; kk < TILE_K; kk++) {
                uint row_a = kk * STRIDE_A;
                uint row_b = kk * STRIDE_B;
                if (VECTOR_A) {
                    for (uint i = 0u; i < THREAD_M; i += 4u) {
                        vec4 v = shared_a[(row_a + micro_row(ty, i)) / 4u];
                        a_regs[i] = v.x;
                        a_regs[i + 1u] = v.y;
                        a_regs[i + 2u] = v.z;
                        a_regs[i + 3u] = v.w;
                    }
                } else {
                    for (uint i = 0u; i < THREAD_M; i++) {
                        uint index = row_a + micro_row(ty, i);
                        a_regs[i] = shared_a[index / 4u][index % 4u];
                    }
                }
                if (VECTOR_B) {
                    for (uint j = 0u; j < THREAD_N; j += 4u) {
                        vec4 v = shared_b[(row_b + micro_col(tx, j)) / 4u];
                        b_regs[j] = v.x;
                        b_regs[j + 1u] = v.y;
                        b_regs[j + 2u] = v.z;
                        b_regs[j + 3u] = v.w;
                    }
                } else {
                    for (uint j = 0u; j < THREAD_N; j++) {
                        uint index = row_b + micro_col(tx, j);
                        b_regs[j] = shared_b[index / 4u][index % 4u];
                    }
                }
                for (uint i = 0u; i < THREAD_M; i++) {
                    for (uint j = 0u; j < THREAD_N; j++) {
                        acc[i * THREAD_N + j] += a_regs[i] * b_regs[j];
                    }
                }
            }
            barrier();
        }

        // Last phase: store the micro-tile's elements inside C to plane z.
        // With VECTOR_STORES, a 16-byte store per run of four columns that
        // lies inside C where n % 4 == 0 (every run then starts on a 16-byte
        // boundary); else, and at C's edge, one float at a time. (mod.rs
        // says when the plan asks for vector stores.)
        uint plane = gl_WorkGroupID.z * m * n;
        for (uint i = 0u; i < THREAD_M; i++) {
            uint mm = micro_row(ty, i);
            if (mm < m - row0) {
                uint out_row = plane + (row0 + mm) * n + col0;
                if (VECTOR_C && n % 4u == 0u) {
                    for (uint j = 0u; j < THREAD_N; j += 4u) {
                        uint nn = micro_col(tx, j);
                        if (nn + 4u <= n - col0) {
                            uint at = i * THREAD_N + j;
                            c4[(out_row + nn) / 4u] = vec4(acc[at], acc[at + 1u], acc[at + 2u], acc[at + 3u]);
                        } else {
                            for (uint q = 0u; q < 4u; q++) {
                                if (nn + q < n - col0) {
                                    c[out_row + nn + q] = acc[i * THREAD_N + j + q];
                                }
                            }
                        }
                    }
                } else {
                    for (uint j = 0u; j < THREAD_N; j++) {
                        uint nn = micro_col(tx, j);
                        if (nn < n - col0) {
                            c[out_row + nn] = acc[i * THREAD_N + j];
                        }
                    }
                }
            }
        }
    }
}
