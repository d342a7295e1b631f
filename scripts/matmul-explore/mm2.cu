// exploratory variant of matmul.cu
#define PAD 4u
#define STRIDE_A (TILE_M + PAD)
#define STRIDE_B (TILE_N + PAD)
#define THREADS_N (TILE_N / THREAD_N)
#define THREADS_M (TILE_M / THREAD_M)
#ifndef MIN_BLOCKS
#define MIN_BLOCKS (GROUP_SIZE <= 256u ? 512u / GROUP_SIZE : 1u)
#endif
#ifndef LAYOUT
#define LAYOUT 1
#endif
#ifndef DOUBLE
#define DOUBLE 0
#endif
#ifndef VEC
#define VEC 0
#endif
#ifdef IDX32
typedef unsigned int idx_t;
#else
typedef size_t idx_t;
#endif
#define VECTOR_A (THREAD_M % 4u == 0)
#define VECTOR_B (THREAD_N % 4u == 0)
#if LAYOUT >= 1 && VECTOR_A && VECTOR_B
#define QM 4u
#define QN 4u
#else
#define QM THREAD_M
#define QN THREAD_N
#endif
__device__ __forceinline__ unsigned int row_of(unsigned int ty, unsigned int i) { return (i / QM) * (THREADS_M * QM) + ty * QM + i % QM; }
__device__ __forceinline__ unsigned int col_of(unsigned int tx, unsigned int j) { return (j / QN) * (THREADS_N * QN) + tx * QN + j % QN; }

// Loads: W = elements per load (4 with VEC, else 1). A's tile as units of W along k.
#if VEC
#define W 4u
#else
#define W 1u
#endif
#define UNITS_A (TILE_M * TILE_K / W)
#define UNITS_B (TILE_K * TILE_N / W)
#define LOADS_A ((UNITS_A + GROUP_SIZE - 1u) / GROUP_SIZE)
#define LOADS_B ((UNITS_B + GROUP_SIZE - 1u) / GROUP_SIZE)
#define A_FULL (LOADS_A * GROUP_SIZE == UNITS_A)
#define B_FULL (LOADS_B * GROUP_SIZE == UNITS_B)
#define UA_ROW (TILE_K / W)   // units per row of A's tile
#define UB_ROW (TILE_N / W)   // units per row of B's tile
#if VEC
typedef float4 unit_t;
__device__ __forceinline__ float4 zero_unit() { return make_float4(0.f, 0.f, 0.f, 0.f); }
#else
typedef float unit_t;
__device__ __forceinline__ float zero_unit() { return 0.f; }
#endif

struct Loads { idx_t a_index, b_index; unsigned int a_rows; bool b_col; };

extern "C" __global__ void __launch_bounds__(GROUP_SIZE, MIN_BLOCKS)
matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
       unsigned int m, unsigned int n, unsigned int k, unsigned int chunk)
{
    extern __shared__ __align__(16) float shared[];
    const unsigned int lid = threadIdx.x;
#if LAYOUT == 2 && THREADS_N % 8u == 0 && THREADS_M % 4u == 0
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
    // unit coordinates of this thread's first unit (affine in l: GROUP_SIZE % UA_ROW == 0)
    const unsigned int a_r = lid / UA_ROW, a_c = (lid % UA_ROW) * W;
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
        idx_t a_index = (idx_t)(row0 + a_r) * k + k_begin + a_c;
        idx_t b_index = ((idx_t)k_begin + b_r) * n + col0 + b_c;
        unsigned int a_rows = 0;
#pragma unroll
        for (unsigned int l = 0; l < LOADS_A; ++l)
            a_rows |= (unsigned int)((A_FULL || lid + l * GROUP_SIZE < UNITS_A) && a_r + l * (GROUP_SIZE / UA_ROW) < m - row0) << l;
        const bool b_inside = b_c < n - col0;
        unit_t next_a[LOADS_A], next_b[LOADS_B];
#define LOAD_SLICE(K0) { \
            const bool a_column = a_c < k - (K0); \
            _Pragma("unroll") for (unsigned int l = 0; l < LOADS_A; ++l) \
                next_a[l] = ((a_rows >> l) & 1u) && a_column ? *reinterpret_cast<const unit_t*>(a + a_index + l * a_step) : zero_unit(); \
            a_index += TILE_K; \
            _Pragma("unroll") for (unsigned int l = 0; l < LOADS_B; ++l) \
                next_b[l] = (B_FULL || lid + l * GROUP_SIZE < UNITS_B) && b_inside && b_r + l * (GROUP_SIZE / UB_ROW) < k - (K0) ? *reinterpret_cast<const unit_t*>(b + b_index + l * b_step) : zero_unit(); \
            b_index += (idx_t)TILE_K * n; }
#if VEC
#define STORE_SLICE(SA, SB) { \
            _Pragma("unroll") for (unsigned int l = 0; l < LOADS_A; ++l) if (A_FULL || lid + l * GROUP_SIZE < UNITS_A) { \
                const unsigned int mm = a_r + l * (GROUP_SIZE / UA_ROW); \
                (SA)[(a_c + 0) * STRIDE_A + mm] = next_a[l].x; (SA)[(a_c + 1) * STRIDE_A + mm] = next_a[l].y; \
                (SA)[(a_c + 2) * STRIDE_A + mm] = next_a[l].z; (SA)[(a_c + 3) * STRIDE_A + mm] = next_a[l].w; } \
            _Pragma("unroll") for (unsigned int l = 0; l < LOADS_B; ++l) if (B_FULL || lid + l * GROUP_SIZE < UNITS_B) \
                *reinterpret_cast<float4*>((SB) + (b_r + l * (GROUP_SIZE / UB_ROW)) * STRIDE_B + b_c) = next_b[l]; }
#else
#define STORE_SLICE(SA, SB) { \
            _Pragma("unroll") for (unsigned int l = 0; l < LOADS_A; ++l) if (A_FULL || lid + l * GROUP_SIZE < UNITS_A) \
                (SA)[a_c * STRIDE_A + a_r + l * (GROUP_SIZE / UA_ROW)] = next_a[l]; \
            _Pragma("unroll") for (unsigned int l = 0; l < LOADS_B; ++l) if (B_FULL || lid + l * GROUP_SIZE < UNITS_B) \
                (SB)[(b_r + l * (GROUP_SIZE / UB_ROW)) * STRIDE_B + b_c] = next_b[l]; }
#endif
        LOAD_SLICE(k_begin);
#if DOUBLE
        STORE_SLICE(shared, shared + TILE_K * STRIDE_A);
        __syncthreads();
#endif
        for (unsigned int slice = 0; slice < slices; ++slice) {
            const unsigned int k0 = k_begin + slice * TILE_K;
#if DOUBLE
            const unsigned int off = (slice & 1u) * (TILE_K * (STRIDE_A + STRIDE_B));
            const float* shared_a = shared + off;
            const float* shared_b = shared_a + TILE_K * STRIDE_A;
            if (slice + 1 < slices) LOAD_SLICE(k0 + TILE_K);
#else
            float* shared_a = shared;
            float* shared_b = shared + TILE_K * STRIDE_A;
            STORE_SLICE(shared_a, shared_b);
            __syncthreads();
            if (slice + 1 < slices) LOAD_SLICE(k0 + TILE_K);
#endif
#pragma unroll
            for (unsigned int kk = 0; kk < TILE_K; ++kk) {
                float a_regs[THREAD_M], b_regs[THREAD_N];
                const float* row_a = shared_a + kk * STRIDE_A;
                const float* row_b = shared_b + kk * STRIDE_B;
#if VECTOR_A
#pragma unroll
                for (unsigned int i = 0; i < THREAD_M; i += 4) {
                    const float4 v = *reinterpret_cast<const float4*>(row_a + row_of(ty, i));
                    a_regs[i] = v.x, a_regs[i + 1] = v.y, a_regs[i + 2] = v.z, a_regs[i + 3] = v.w;
                }
#else
#pragma unroll
                for (unsigned int i = 0; i < THREAD_M; ++i) a_regs[i] = row_a[row_of(ty, i)];
#endif
#if VECTOR_B
#pragma unroll
                for (unsigned int j = 0; j < THREAD_N; j += 4) {
                    const float4 v = *reinterpret_cast<const float4*>(row_b + col_of(tx, j));
                    b_regs[j] = v.x, b_regs[j + 1] = v.y, b_regs[j + 2] = v.z, b_regs[j + 3] = v.w;
                }
#else
#pragma unroll
                for (unsigned int j = 0; j < THREAD_N; ++j) b_regs[j] = row_b[col_of(tx, j)];
#endif
#pragma unroll
                for (unsigned int i = 0; i < THREAD_M; ++i)
#pragma unroll
                    for (unsigned int j = 0; j < THREAD_N; ++j) acc[i][j] += a_regs[i] * b_regs[j];
            }
#if DOUBLE
            if (slice + 1 < slices) {
                float* sa = shared + (off ^ (TILE_K * (STRIDE_A + STRIDE_B)));
                STORE_SLICE(sa, sa + TILE_K * STRIDE_A);
            }
#endif
            __syncthreads();
        }
        float* plane = c + (idx_t)blockIdx.z * m * n;
#pragma unroll
        for (unsigned int i = 0; i < THREAD_M; ++i) {
            const unsigned int mm = row_of(ty, i);
            if (mm >= m - row0) continue;
            float* out = plane + (idx_t)(row0 + mm) * n + col0;
#if VECTOR_B
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
#else
#pragma unroll
            for (unsigned int j = 0; j < THREAD_N; ++j) {
                const unsigned int nn = col_of(tx, j);
                if (nn < n - col0) out[nn] = acc[i][j];
            }
#endif
        }
    }
}
