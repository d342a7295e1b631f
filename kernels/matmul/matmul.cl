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
// Barriers: after each pair of tile loads, and after computing from them.
// Registers: each invocation's THREAD_M × THREAD_N accumulators (`acc`) and
// the THREAD_M + THREAD_N values of one k step (`a_regs`, `b_regs`).
// Indices into the matrices are 64-bit (ulong).

#define PAD 4
#define STRIDE_A (TILE_M + PAD)
#define STRIDE_B (TILE_N + PAD)
#define THREADS_N (TILE_N / THREAD_N)

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void matmul(__global const float* restrict a, __global const float* restrict b,
            __global float* restrict c, uint m, uint n, uint k, uint chunk,
            __local float4* shared_block)
{
    // The argument is typed float4 so the runtime aligns it to 16 bytes,
    // as the float4 reads of phase b need (a float* argument is only
    // 4-byte aligned: NVIDIA faults on the vector reads).
    __local float* shared = (__local float*)shared_block;
    const uint group_size = GROUP_SIZE;
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

        for (uint slice = 0; slice < slices; slice++) {
            const uint k0 = k_begin + slice * TILE_K;
            // Phase a: both tiles, zero outside the matrices. — barrier —
            for (uint s = lid; s < TILE_M * TILE_K; s += group_size) {
                const uint mm = s / TILE_K;
                const uint kk = s % TILE_K;
                const uint row = row0 + mm;
                const uint col = k0 + kk;
                shared_a[kk * STRIDE_A + mm] =
                    row < m && col < k ? a[(ulong)row * k + col] : 0.0f;
            }
            for (uint s = lid; s < TILE_K * TILE_N; s += group_size) {
                const uint kk = s / TILE_N;
                const uint nn = s % TILE_N;
                const uint row = k0 + kk;
                const uint col = col0 + nn;
                shared_b[kk * STRIDE_B + nn] =
                    row < k && col < n ? b[(ulong)row * n + col] : 0.0f;
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            // Phase b: every invocation's outer products. — barrier —
#pragma unroll
            for (uint kk = 0; kk < TILE_K; kk++) {
                float a_regs[THREAD_M];
                float b_regs[THREAD_N];
                __local const float* a_row = shared_a + kk * STRIDE_A + ty * THREAD_M;
                __local const float* b_row = shared_b + kk * STRIDE_B + tx * THREAD_N;
#if THREAD_M % 4 == 0
#pragma unroll
                for (uint i = 0; i < THREAD_M; i += 4) {
                    const float4 v = *(__local const float4*)(a_row + i);
                    a_regs[i] = v.x;
                    a_regs[i + 1] = v.y;
                    a_regs[i + 2] = v.z;
                    a_regs[i + 3] = v.w;
                }
#else
#pragma unroll
                for (uint i = 0; i < THREAD_M; i++) {
                    a_regs[i] = a_row[i];
                }
#endif
#if THREAD_N % 4 == 0
#pragma unroll
                for (uint j = 0; j < THREAD_N; j += 4) {
                    const float4 v = *(__local const float4*)(b_row + j);
                    b_regs[j] = v.x;
                    b_regs[j + 1] = v.y;
                    b_regs[j + 2] = v.z;
                    b_regs[j + 3] = v.w;
                }
#else
#pragma unroll
                for (uint j = 0; j < THREAD_N; j++) {
                    b_regs[j] = b_row[j];
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
            const uint row = row0 + ty * THREAD_M + i;
#pragma unroll
            for (uint j = 0; j < THREAD_N; j++) {
                const uint col = col0 + tx * THREAD_N + j;
                if (row < m && col < n) {
                    plane[(ulong)row * n + col] = acc[i][j];
                }
            }
        }
    }
}
