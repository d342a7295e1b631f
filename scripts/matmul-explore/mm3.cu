// Exploratory: the matmul tiles staged through cp.async (sm_80+) in STAGES
// shared buffers, no staging registers. A's tile kept m-major (as in global
// memory) and read as float4 along k; B's tile k-major as in matmul.cu.
// Switches: STAGES, VEC (16-byte copies; k % 4 == 0 and n % 4 == 0, else
// 4-byte copies), ROWMAP (0: runs of 4 rows as matmul.cu; 1: row
// i·THREADS_M + ty), LAYOUT (1: tx = lid % THREADS_N; 2: 8 × 4 lanes per
// warp), IDX32, ALAYOUT (0: A m-major; 1: A transposed, k-major as in
// matmul.cu, copied 4 bytes at a time, read as in matmul.cu with runs of 4).
#define PAD_A 4u
#define PAD_B 4u
#define STRIDE_A (TILE_K + PAD_A)
#define STRIDE_B (TILE_N + PAD_B)
#define THREADS_N (TILE_N / THREAD_N)
#define THREADS_M (TILE_M / THREAD_M)
#ifndef MIN_BLOCKS
#define MIN_BLOCKS (GROUP_SIZE <= 256u ? 512u / GROUP_SIZE : 1u)
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef ROWMAP
#define ROWMAP 1
#endif
#ifndef LAYOUT
#define LAYOUT 1
#endif
#ifndef ALAYOUT
#define ALAYOUT 0
#endif
#if ALAYOUT == 1
#undef ROWMAP
#define ROWMAP 0
#define STRIDE_AT (TILE_M + PAD_A)
#define A_FLOATS (TILE_K * STRIDE_AT)
#define WA 1u
#else
#define A_FLOATS (TILE_M * STRIDE_A)
#define WA W
#endif
#ifdef IDX32
typedef unsigned int idx_t;
#else
typedef size_t idx_t;
#endif
#if VEC
#define W 4u
#else
#define W 1u
#endif
#define STAGE_FLOATS (A_FLOATS + TILE_K * STRIDE_B)
#define UA_ROW (TILE_K / WA)
#define UB_ROW (TILE_N / W)
#define UNITS_A (TILE_M * TILE_K / WA)
#define UNITS_B (TILE_K * TILE_N / W)
#define LOADS_A (UNITS_A / GROUP_SIZE)
#define LOADS_B (UNITS_B / GROUP_SIZE)

__device__ __forceinline__ unsigned int row_of(unsigned int ty, unsigned int i)
{
#if ROWMAP == 1
    return i * THREADS_M + ty;
#else
    return (i / 4u) * (THREADS_M * 4u) + ty * 4u + i % 4u;
#endif
}
__device__ __forceinline__ unsigned int col_of(unsigned int tx, unsigned int j)
{
    return (j / 4u) * (THREADS_N * 4u) + tx * 4u + j % 4u;
}

__device__ __forceinline__ void copy_word(unsigned int dst, const float* src, bool inside)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(inside ? 4 : 0));
}
__device__ __forceinline__ void copy_unit(unsigned int dst, const float* src, bool inside)
{
#if VEC
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(inside ? 16 : 0));
#else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(inside ? 4 : 0));
#endif
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void wait_groups() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

extern "C" __global__ void __launch_bounds__(GROUP_SIZE, MIN_BLOCKS)
matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
       unsigned int m, unsigned int n, unsigned int k, unsigned int chunk)
{
    extern __shared__ __align__(16) float shared[];
    const unsigned int shared_base = (unsigned int)__cvta_generic_to_shared(shared);
    const unsigned int lid = threadIdx.x;
#if LAYOUT == 2
    const unsigned int warp = lid / 32u, lane = lid % 32u;
    const unsigned int tx = (warp % (THREADS_N / 8u)) * 8u + lane % 8u;
    const unsigned int ty = (warp / (THREADS_N / 8u)) * 4u + lane / 8u;
#else
    const unsigned int tx = lid % THREADS_N;
    const unsigned int ty = lid / THREADS_N;
#endif
    const unsigned int tiles_m = m / TILE_M + (m % TILE_M != 0);
    const unsigned int tiles_n = n / TILE_N + (n % TILE_N != 0);
    const unsigned int k_begin = blockIdx.z * chunk;
    const unsigned int k_len = min(chunk, k - k_begin);
    const unsigned int slices = k_len / TILE_K + (k_len % TILE_K != 0);
    const unsigned int tiles = tiles_m * tiles_n;
    const unsigned int a_r = lid / UA_ROW, a_c = (lid % UA_ROW) * WA;
    const unsigned int b_r = lid / UB_ROW, b_c = (lid % UB_ROW) * W;
    const idx_t a_step = (idx_t)(GROUP_SIZE / UA_ROW) * k;
    const idx_t b_step = (idx_t)(GROUP_SIZE / UB_ROW) * n;
    for (unsigned int tile = blockIdx.y * gridDim.x + blockIdx.x; tile < tiles; tile += gridDim.x * gridDim.y) {
        const unsigned int row0 = (tile / tiles_n) * TILE_M, col0 = (tile % tiles_n) * TILE_N;
        float acc[THREAD_M][THREAD_N];
#pragma unroll
        for (unsigned int i = 0; i < THREAD_M; ++i)
#pragma unroll
            for (unsigned int j = 0; j < THREAD_N; ++j) acc[i][j] = 0.0f;
        const float* a_next = a + (idx_t)(row0 + a_r) * k + k_begin + a_c;
        const float* b_next = b + ((idx_t)k_begin + b_r) * n + col0 + b_c;
        unsigned int a_rows = 0;
#pragma unroll
        for (unsigned int l = 0; l < LOADS_A; ++l) a_rows |= (unsigned int)(a_r + l * (GROUP_SIZE / UA_ROW) < m - row0) << l;
        const bool b_inside = b_c < n - col0;
        // Issue the copies of the slice at k0 into stage st.
        auto issue = [&](unsigned int st, unsigned int k0) {
            const unsigned int sa = shared_base + st * STAGE_FLOATS * 4u;
            const unsigned int sb = sa + A_FLOATS * 4u;
            const bool a_column = a_c < k - k0;
#pragma unroll
            for (unsigned int l = 0; l < LOADS_A; ++l) {
                const bool inside = ((a_rows >> l) & 1u) && a_column;
#if ALAYOUT == 1
                copy_word(sa + (a_c * STRIDE_AT + a_r + l * (GROUP_SIZE / UA_ROW)) * 4u, inside ? a_next + l * a_step : a, inside);
#else
                copy_unit(sa + ((a_r + l * (GROUP_SIZE / UA_ROW)) * STRIDE_A + a_c) * 4u, inside ? a_next + l * a_step : a, inside);
#endif
            }
            a_next += TILE_K;
#pragma unroll
            for (unsigned int l = 0; l < LOADS_B; ++l) {
                const bool inside = b_inside && b_r + l * (GROUP_SIZE / UB_ROW) < k - k0;
                copy_unit(sb + ((b_r + l * (GROUP_SIZE / UB_ROW)) * STRIDE_B + b_c) * 4u, inside ? b_next + l * b_step : b, inside);
            }
            b_next += (idx_t)TILE_K * n;
        };
#pragma unroll
        for (unsigned int s = 0; s + 1 < STAGES; ++s) {
            if (s < slices) issue(s, k_begin + s * TILE_K);
            commit();
        }
        for (unsigned int slice = 0; slice < slices; ++slice) {
            wait_groups<STAGES - 2>();
            __syncthreads();
            {
                const unsigned int ahead = slice + STAGES - 1;
                if (ahead < slices) issue(ahead % STAGES, k_begin + ahead * TILE_K);
                commit();
            }
            const float* sa = shared + (slice % STAGES) * STAGE_FLOATS;
            const float* sb = sa + A_FLOATS;
#if ALAYOUT == 1
#pragma unroll
            for (unsigned int kk = 0; kk < TILE_K; ++kk) {
                float av[THREAD_M], bv[THREAD_N];
#pragma unroll
                for (unsigned int i = 0; i < THREAD_M; i += 4) {
                    const float4 v = *reinterpret_cast<const float4*>(sa + kk * STRIDE_AT + row_of(ty, i));
                    av[i] = v.x, av[i + 1] = v.y, av[i + 2] = v.z, av[i + 3] = v.w;
                }
#pragma unroll
                for (unsigned int j = 0; j < THREAD_N; j += 4) {
                    const float4 v = *reinterpret_cast<const float4*>(sb + kk * STRIDE_B + col_of(tx, j));
                    bv[j] = v.x, bv[j + 1] = v.y, bv[j + 2] = v.z, bv[j + 3] = v.w;
                }
#pragma unroll
                for (unsigned int i = 0; i < THREAD_M; ++i)
#pragma unroll
                    for (unsigned int j = 0; j < THREAD_N; ++j) acc[i][j] += av[i] * bv[j];
            }
#else
#pragma unroll
            for (unsigned int k4 = 0; k4 < TILE_K; k4 += 4) {
                float4 av[THREAD_M];
#pragma unroll
                for (unsigned int i = 0; i < THREAD_M; ++i) av[i] = *reinterpret_cast<const float4*>(sa + row_of(ty, i) * STRIDE_A + k4);
#pragma unroll
                for (unsigned int q = 0; q < 4; ++q) {
                    float bv[THREAD_N];
                    const float* row_b = sb + (k4 + q) * STRIDE_B;
#pragma unroll
                    for (unsigned int j = 0; j < THREAD_N; j += 4) {
                        const float4 v = *reinterpret_cast<const float4*>(row_b + col_of(tx, j));
                        bv[j] = v.x, bv[j + 1] = v.y, bv[j + 2] = v.z, bv[j + 3] = v.w;
                    }
#pragma unroll
                    for (unsigned int i = 0; i < THREAD_M; ++i) {
                        const float ai = q == 0 ? av[i].x : q == 1 ? av[i].y : q == 2 ? av[i].z : av[i].w;
#pragma unroll
                        for (unsigned int j = 0; j < THREAD_N; ++j) acc[i][j] += ai * bv[j];
                    }
                }
            }
#endif
        }
        wait_groups<0>();
        __syncthreads();
        float* plane = c + (idx_t)blockIdx.z * m * n;
#pragma unroll
        for (unsigned int i = 0; i < THREAD_M; ++i) {
            const unsigned int mm = row_of(ty, i);
            if (mm >= m - row0) continue;
            float* out = plane + (idx_t)(row0 + mm) * n + col0;
#pragma unroll
            for (unsigned int j = 0; j < THREAD_N; j += 4) {
                const unsigned int nn = col_of(tx, j);
                if (n % 4u == 0 && nn + 4u <= n - col0) {
                    *reinterpret_cast<float4*>(out + nn) = make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
                } else {
#pragma unroll
                    for (unsigned int q = 0; q < 4u; ++q) if (nn + q < n - col0) out[nn + q] = acc[i][j + q];
                }
            }
        }
    }
}
