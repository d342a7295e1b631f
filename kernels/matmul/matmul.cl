// Matmul — OpenCL C (see mod.rs for the algorithm and interface).
//
// Pass 1 of the product: a workgroup computes one TILE_M × TILE_N tile of C
// (the flat workgroup index over x and y) over one chunk of k (z), writing
// it to plane z of `c` (C itself when k is not split; matmul_sum.cl adds the
// planes).
// Shared memory (the trailing `__local` argument, one block): shared_a
// (TILE_K rows of TILE_M + PAD, A's tile transposed), then shared_b (TILE_K
// rows of TILE_N + PAD), declared float4 for its alignment. PAD = 4 keeps
// rows 16 bytes aligned, so micro-tile reads are float4 loads when THREAD_M /
// THREAD_N are multiples of 4.
// Barriers: after each pair of tile stores, and after computing from them.
// The next slice's elements are loaded from global memory into registers
// while the current slice is computed (register prefetch, as in CUDA and
// GLSL).
// Registers: each invocation's THREAD_M × THREAD_N accumulators (`acc`) and
// the THREAD_M + THREAD_N values of one k step (`a_regs`, `b_regs`). The
// micro-tile's rows come in runs of RUN_M consecutive rows THREADS_M·RUN_M
// apart, its columns in runs of RUN_N (micro_row, micro_col; mod.rs says
// why).
// Indices into the matrices are 64-bit (ulong).

#define PAD 4
#define STRIDE_A (TILE_M + PAD)
#define STRIDE_B (TILE_N + PAD)
#define THREADS_N (TILE_N / THREAD_N)
#define THREADS_M (TILE_M / THREAD_M)
// The micro-tile in runs of 4 rows / columns where it is a multiple of 4
// (one 16-byte shared read each, conflict-free across a quarter-warp), else
// in one run.
#define RUN_M (THREAD_M % 4 == 0 ? 4u : THREAD_M)
#define RUN_N (THREAD_N % 4 == 0 ? 4u : THREAD_N)

// Row of C's tile of the micro-tile's row i, column of its column j.
inline uint micro_row(uint ty, uint i)
{
    return (i / RUN_M) * (THREADS_M * RUN_M) + ty * RUN_M + i % RUN_M;
}
inline uint micro_col(uint tx, uint j)
{
    return (j / RUN_N) * (THREADS_N * RUN_N) + tx * RUN_N + j % RUN_N;
}

// Elements of A's and B's tiles each invocation moves per slice.
#define LOADS_A ((TILE_M * TILE_K + GROUP_SIZE - 1) / GROUP_SIZE)
#define LOADS_B ((TILE_K * TILE_N + GROUP_SIZE - 1) / GROUP_SIZE)
// Whether element l of this invocation exists (the last round may be
// partial).
#define A_FULL (LOADS_A * GROUP_SIZE == TILE_M * TILE_K)
#define B_FULL (LOADS_B * GROUP_SIZE == TILE_K * TILE_N)

// Load this invocation's elements of the slice at k0 (A's tile: rows row0..,
// columns k0..; B's tile: rows k0.., columns col0..) into registers, zero
// outside the matrices. Element l is the flat tile index s = lid +
// l·GROUP_SIZE of mod.rs. Comparisons are against m − row0, n − col0 and
// k − k0, which cannot underflow.
inline void load_slice(float* next_a, float* next_b, __global const float* restrict a,
                       __global const float* restrict b, uint m, uint n, uint k, uint row0,
                       uint col0, uint k0, uint lid)
{
#pragma unroll
    for (uint l = 0; l < LOADS_A; l++) {
        const uint s = lid + l * GROUP_SIZE;
        const uint mm = s / TILE_K;
        const uint kk = s % TILE_K;
        const bool inside = (A_FULL || s < TILE_M * TILE_K) && mm < m - row0 && kk < k - k0;
        next_a[l] = inside ? a[(ulong)(row0 + mm) * k + k0 + kk] : 0.0f;
    }
#pragma unroll
    for (uint l = 0; l < LOADS_B; l++) {
        const uint s = lid + l * GROUP_SIZE;
        const uint kk = s / TILE_N;
        const uint nn = s % TILE_N;
        const bool inside = (B_FULL || s < TILE_K * TILE_N) && kk < k - k0 && nn < n - col0;
        next_b[l] = inside ? b[(ulong)(k0 + kk) * n + col0 + nn] : 0.0f;
    }
}

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void matmul(__global const float* restrict a, __global const float* restrict b,
            __global float* restrict c, uint m, uint n, uint k, uint chunk,
            __local float4* shared_block)
{
    // The argument is typed float4 so the runtime aligns it to 16 bytes,
    // as the float4 reads of phase b need (a float* argument is only
    // 4-byte aligned: NVIDIA faults on the vector reads).
    __local float* shared = (__local float*)shared_block;
    const uint lid = get_local_id(0);
    const uint tx = lid % THREADS_N;
    const uint ty = lid / THREADS_N;
    const uint tiles_m = m / TILE_M + (m % TILE_M != 0);
    const uint tiles_n = n / TILE_N + (n % TILE_N != 0);
    __local float* shared_a = shared;
    __local float* shared_b = shared + TILE_K * STRIDE_A;

    // The chunk of k: indices k_begin .. k_begin + k_len.
    const uint k_begin = (uint)get_group_id(2) * chunk;
    const uint k_len = min(chunk, k - k_begin);
    const uint slices = k_len / TILE_K + (k_len % TILE_K != 0);

    // The tile: the flat workgroup index over x and y. The plan launches one
    // workgroup per tile (x·y <= 2^31, so the stride cannot wrap), so this
    // loop runs once; uniform for the whole workgroup.
    const uint tiles = tiles_m * tiles_n;
    const uint stride = (uint)get_num_groups(0) * (uint)get_num_groups(1);
    for (uint tile = (uint)get_group_id(1) * (uint)get_num_groups(0) + (uint)get_group_id(0); tile < tiles;
         tile += stride) {
        const uint row0 = (tile / tiles_n) * TILE_M;
        const uint col0 = (tile % tiles_n) * TILE_N;

        float acc[THREAD_M][THREAD_N];
#pragma unroll
        for (uint i = 0; i < THREAD_M; i++) {
#pragma unroll
            for (uint j = 0; j < THREAD_N; j++) {
                acc[i][j] = 0.0f;
            }
        }

        // The register prefetch: the first slice now, each next one while the
        // current one is computed.
        float next_a[LOADS_A];
        float next_b[LOADS_B];
        load_slice(next_a, next_b, a, b, m, n, k, row0, col0, k_begin, lid);
        for (uint slice = 0; slice < slices; slice++) {
            const uint k0 = k_begin + slice * TILE_K;
            // Phase a: both tiles to shared memory (from the registers), zero
            // outside the matrices. — barrier —
#pragma unroll
            for (uint l = 0; l < LOADS_A; l++) {
                const uint s = lid + l * GROUP_SIZE;
                if (A_FULL || s < TILE_M * TILE_K) {
                    shared_a[(s % TILE_K) * STRIDE_A + s / TILE_K] = next_a[l];  // shared_a[kk][mm]
                }
            }
#pragma unroll
            for (uint l = 0; l < LOADS_B; l++) {
                const uint s = lid + l * GROUP_SIZE;
                if (B_FULL || s < TILE_K * TILE_N) {
                    shared_b[(s / TILE_N) * STRIDE_B + s % TILE_N] = next_b[l];  // shared_b[kk][nn]
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            if (slice + 1 < slices) {
                load_slice(next_a, next_b, a, b, m, n, k, row0, col0, k0 + TILE_K, lid);
            }

            // Phase b: every invocation's outer products. — barrier —
#pragma unroll
            for (uint kk = 0; kk < TILE_K; kk++) {
                float a_regs[THREAD_M];
                float b_regs[THREAD_N];
                __local const float* a_row = shared_a + kk * STRIDE_A;
                __local const float* b_row = shared_b + kk * STRIDE_B;
#if THREAD_M % 4 == 0
#pragma unroll
                for (uint i = 0; i < THREAD_M; i += 4) {
                    const float4 v = *(__local const float4*)(a_row + micro_row(ty, i));
                    a_regs[i] = v.x;
                    a_regs[i + 1] = v.y;
                    a_regs[i + 2] = v.z;
                    a_regs[i + 3] = v.w;
                }
#else
#pragma unroll
                for (uint i = 0; i < THREAD_M; i++) {
                    a_regs[i] = a_row[micro_row(ty, i)];
                }
#endif
#if THREAD_N % 4 == 0
#pragma unroll
                for (uint j = 0; j < THREAD_N; j += 4) {
                    const float4 v = *(__local const float4*)(b_row + micro_col(tx, j));
                    b_regs[j] = v.x;
                    b_regs[j + 1] = v.y;
                    b_regs[j + 2] = v.z;
                    b_regs[j + 3] = v.w;
                }
#else
#pragma unroll
                for (uint j = 0; j < THREAD_N; j++) {
                    b_regs[j] = b_row[micro_col(tx, j)];
                }
#endif
#pragma unroll
                for (uint i = 0; i < THREAD_M; i++) {
#pragma unroll
                    for (uint j = 0; j < THREAD_N; j++) {
                        acc[i][j] += a_regs[i] * b_regs[j];
                    }
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        // Last phase: store the micro-tile's elements inside C to plane z.
        __global float* plane = c + (ulong)get_group_id(2) * m * n;
#pragma unroll
        for (uint i = 0; i < THREAD_M; i++) {
            const uint row = row0 + micro_row(ty, i);
#pragma unroll
            for (uint j = 0; j < THREAD_N; j++) {
                const uint col = col0 + micro_col(tx, j);
                if (row < m && col < n) {
                    plane[(ulong)row * n + col] = acc[i][j];
                }
            }
        }
    }
}
