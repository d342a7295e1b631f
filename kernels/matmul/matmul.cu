// Matmul — CUDA C, compiled by NVRTC (see mod.rs for the algorithm and interface).
//
// Algorithm: pass 1 of C (m×n) = A (m×k) · B (k×n), row-major f32. A block
// computes one TILE_M × TILE_N tile of C (the flat block index over x and y)
// over one chunk of k (z), writing it to plane z of `c` (C itself when k is
// not split; matmul_sum.cu adds the planes). Each thread owns a
// THREAD_M × THREAD_N micro-tile, accumulated in registers: its rows come in
// runs of RUN_M consecutive rows THREADS_M·RUN_M apart, its columns in runs
// of RUN_N (micro_row, micro_col; mod.rs says why). For each TILE_K-wide slice of
// the chunk, the block stages A's tile (transposed, k-major) and B's tile in
// shared memory, zero outside the matrices, and every thread accumulates the
// outer products of its THREAD_M values of shared_a[kk] and THREAD_N values
// of shared_b[kk] (16-byte shared reads).
// How the slices reach shared memory depends on the GPU:
// - sm_80 and later (ASYNC_COPY): asynchronous copies (cp.async) from global
//   to shared memory, STAGES slices in flight in STAGES buffers and no
//   registers held for them: the copies of slice s + STAGES − 1 are issued
//   before slice s is computed. A's elements are copied 4 bytes each, to
//   their transposed places; B's in units of 4 floats of a row, one 16-byte
//   copy each where n % 4 == 0 and b is 16-byte aligned, else four 4-byte
//   copies of the same addresses. A copy of 0 source bytes fills zeros
//   (outside the matrices). Measured with cupy on an H100, 4096³: 41.1
//   TFLOP/s against 39.5 with the register prefetch (scripts/matmul-explore/).
//   A block whose tile lies inside A and B (k aside) copies each slice that
//   ends inside k through copy_slice_inside: the same copies without the
//   bounds checks, which took as many instructions as the copies (128 ×
//   128 × 16: 44.6 TFLOP/s against 42.7).
// - older GPUs: the register prefetch, as in GLSL and OpenCL C: the next
//   slice's elements are loaded into registers while the current slice is
//   computed, then stored to the one buffer.
// Shared memory (dynamic, one block): STAGES buffers (1 without ASYNC_COPY),
// each shared_a (TILE_K rows of TILE_M + PAD f32) then shared_b (TILE_K rows
// of TILE_N + PAD f32) at word TILE_K·(TILE_M + PAD); rows padded by PAD = 4
// floats against bank conflicts, keeping 16-byte alignment. The plan passes
// ASYNC_STAGES (plan.rs) buffers' worth whatever the GPU; the kernel traps if
// it gets less than it uses.
// Barriers: with ASYNC_COPY one per slice (once its copies have landed,
// before the buffer computed last is refilled); without, after each pair of
// tile stores and after computing from them.
// Indices into the matrices are 64-bit (size_t).
// Constants (-D NAME=valueu): GROUP_SIZE, TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N.

#define PAD 4u
#define STRIDE_A (TILE_M + PAD)  // shared_a row stride
#define STRIDE_B (TILE_N + PAD)  // shared_b row stride
#define THREADS_N (TILE_N / THREAD_N)
#define THREADS_M (TILE_M / THREAD_M)
// Elements of A's and B's tiles each thread moves per slice.
#define LOADS_A ((TILE_M * TILE_K + GROUP_SIZE - 1u) / GROUP_SIZE)
#define LOADS_B ((TILE_K * TILE_N + GROUP_SIZE - 1u) / GROUP_SIZE)
#if __CUDA_ARCH__ >= 800
#define ASYNC_COPY 1
#define STAGES 4u  // = ASYNC_STAGES in plan.rs
#else
#define ASYNC_COPY 0
#define STAGES 1u
#endif
#define STAGE_FLOATS (TILE_K * (STRIDE_A + STRIDE_B))
// Two blocks of 256 threads per SM: registers capped at 128, which holds the
// 8×8 accumulators, two sets of operands and the copy addresses (before
// sm_80, the prefetched slice) without spilling. Larger micro-tiles (the
// exploration's, scripts/matmul-explore/) get 256 threads per SM: 255
// registers.
#define THREADS_PER_SM (THREAD_M * THREAD_N <= 64u ? 512u : 256u)
#define MIN_BLOCKS (GROUP_SIZE < THREADS_PER_SM ? THREADS_PER_SM / GROUP_SIZE : 1u)
// 16-byte shared reads and global stores when the micro-tile rows allow them.
#define VECTOR_A (THREAD_M % 4u == 0 && TILE_M % 4u == 0)
#define VECTOR_B (THREAD_N % 4u == 0 && TILE_N % 4u == 0 && TILE_M % 4u == 0)

// The micro-tile in runs of 4 rows / columns where it is a multiple of 4
// (one 16-byte shared read each; a quarter-warp's reads of shared_b are 128
// consecutive bytes, free of bank conflicts), else in one run.
#define RUN_M (THREAD_M % 4u == 0 ? 4u : THREAD_M)
#define RUN_N (THREAD_N % 4u == 0 ? 4u : THREAD_N)
// Row of C's tile of the micro-tile's row i, column of its column j.
__forceinline__ unsigned int micro_row(unsigned int ty, unsigned int i)
{
    return (i / RUN_M) * (THREADS_M * RUN_M) + ty * RUN_M + i % RUN_M;
}
__forceinline__ unsigned int micro_col(unsigned int tx, unsigned int j)
{
    return (j / RUN_N) * (THREADS_N * RUN_N) + tx * RUN_N + j % RUN_N;
}

// The flat element index s = lid + l·GROUP_SIZE of mod.rs, split into the
// tile coordinates. When GROUP_SIZE is a multiple of the tile's row length
// (every tiling of the plan), the split is affine in l — the same mapping,
// written so the compiler keeps one address per thread plus constant offsets.
// A's tile: mm = s / TILE_K (row), kk = s % TILE_K (column).
__forceinline__ unsigned int a_row(unsigned int lid, unsigned int l)
{
#if GROUP_SIZE % TILE_K == 0
    return lid / TILE_K + l * (GROUP_SIZE / TILE_K);
#else
    return (lid + l * GROUP_SIZE) / TILE_K;
#endif
}
__forceinline__ unsigned int a_col(unsigned int lid, unsigned int l)
{
#if GROUP_SIZE % TILE_K == 0
    return lid % TILE_K;
#else
    return (lid + l * GROUP_SIZE) % TILE_K;
#endif
}
// B's tile: kk = s / TILE_N (row), nn = s % TILE_N (column).
__forceinline__ unsigned int b_row(unsigned int lid, unsigned int l)
{
#if GROUP_SIZE % TILE_N == 0
    return lid / TILE_N + l * (GROUP_SIZE / TILE_N);
#else
    return (lid + l * GROUP_SIZE) / TILE_N;
#endif
}
__forceinline__ unsigned int b_col(unsigned int lid, unsigned int l)
{
#if GROUP_SIZE % TILE_N == 0
    return lid % TILE_N;
#else
    return (lid + l * GROUP_SIZE) % TILE_N;
#endif
}
// Whether element l of this thread exists (the last round may be partial).
#define A_FULL (LOADS_A * GROUP_SIZE == TILE_M * TILE_K)
#define B_FULL (LOADS_B * GROUP_SIZE == TILE_K * TILE_N)
// Affine splits: a thread's elements lie a fixed number of rows apart, so
// one running index per matrix reaches all of them (see Loads).
#define AFFINE_A (GROUP_SIZE % TILE_K == 0 && A_FULL)
#define AFFINE_B (GROUP_SIZE % TILE_N == 0 && B_FULL)

// This thread's global loads for one C tile, slice after slice from k_begin:
// element l of A's tile is a[a_index + l·a_step], of B's b[b_index +
// l·b_step]; the indices advance by one slice per load (affine case). Row and column checks
// that don't change along k are made once per tile. Comparisons are against
// m − row0, n − col0 and k − k0, which cannot overflow.
struct Loads {
    size_t a_index, a_step, b_index, b_step;
    unsigned int a_rows;  // bit l: element l's row lies inside A
    bool b_column;        // this thread's column lies inside B
};

__forceinline__ Loads start_loads(unsigned int m, unsigned int n, unsigned int k, unsigned int row0,
                                  unsigned int col0, unsigned int k_begin, unsigned int lid)
{
    Loads loads;
    loads.a_index = (size_t)(row0 + a_row(lid, 0)) * k + k_begin + a_col(lid, 0);
    loads.a_step = (size_t)(GROUP_SIZE / TILE_K) * k;
    loads.a_rows = 0;
#pragma unroll
    for (unsigned int l = 0; l < LOADS_A; ++l) loads.a_rows |= (unsigned int)(a_row(lid, l) < m - row0) << l;
    loads.b_index = ((size_t)k_begin + b_row(lid, 0)) * n + col0 + b_col(lid, 0);
    loads.b_step = (size_t)(GROUP_SIZE / TILE_N) * n;
    loads.b_column = b_col(lid, 0) < n - col0;
    return loads;
}

// Load this thread's elements of the slice at k0 (A's tile: rows row0..,
// columns k0..; B's tile: rows k0.., columns col0..) into registers, zero
// outside the matrices.
__forceinline__ void load_slice(float (&next_a)[LOADS_A], float (&next_b)[LOADS_B], Loads& loads,
                                const float* __restrict__ a, const float* __restrict__ b, unsigned int m,
                                unsigned int n, unsigned int k, unsigned int row0, unsigned int col0,
                                unsigned int k0, unsigned int lid)
{
#if AFFINE_A
    const bool a_column = a_col(lid, 0) < k - k0;
#pragma unroll
    for (unsigned int l = 0; l < LOADS_A; ++l) {
        next_a[l] = ((loads.a_rows >> l) & 1u) && a_column ? a[loads.a_index + l * loads.a_step] : 0.0f;
    }
    loads.a_index += TILE_K;
#else
#pragma unroll
    for (unsigned int l = 0; l < LOADS_A; ++l) {
        const unsigned int mm = a_row(lid, l), kk = a_col(lid, l);
        const bool inside = (A_FULL || lid + l * GROUP_SIZE < TILE_M * TILE_K) && mm < m - row0 && kk < k - k0;
        next_a[l] = inside ? a[(size_t)(row0 + mm) * k + k0 + kk] : 0.0f;
    }
#endif
#if AFFINE_B
#pragma unroll
    for (unsigned int l = 0; l < LOADS_B; ++l) {
        next_b[l] = loads.b_column && b_row(lid, l) < k - k0 ? b[loads.b_index + l * loads.b_step] : 0.0f;
    }
    loads.b_index += (size_t)TILE_K * n;
#else
#pragma unroll
    for (unsigned int l = 0; l < LOADS_B; ++l) {
        const unsigned int kk = b_row(lid, l), nn = b_col(lid, l);
        const bool inside = (B_FULL || lid + l * GROUP_SIZE < TILE_K * TILE_N) && kk < k - k0 && nn < n - col0;
        next_b[l] = inside ? b[(size_t)(k0 + kk) * n + col0 + nn] : 0.0f;
    }
#endif
}

#if ASYNC_COPY
// B's tile in 16-byte units where the tiles' rows keep them aligned.
#define COPY16_B (TILE_N % 4u == 0 && TILE_M % 4u == 0)
#define UNITS_B4 (TILE_K * TILE_N / 4u)
#define LOADS_B4 ((UNITS_B4 + GROUP_SIZE - 1u) / GROUP_SIZE)

__forceinline__ void copy_4(unsigned int to, const float* from, bool inside)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to), "l"(from), "r"(inside ? 4 : 0) : "memory");
}
__forceinline__ void copy_16(unsigned int to, const float* from, bool inside)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(from), "r"(inside ? 16 : 0) : "memory");
}
// The same where the whole source lies inside the matrix (no zero fill, no predicate).
__forceinline__ void copy_4_inside(unsigned int to, const float* from)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(to), "l"(from) : "memory");
}
__forceinline__ void copy_16_inside(unsigned int to, const float* from)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(from) : "memory");
}
__forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Wait until at most `pending` groups of this thread's copies are in flight.
template <unsigned int pending> __forceinline__ void wait_copies()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

// Issue the copies of this thread's elements of the slice at k0 into the
// buffer at shared address `stage` (A's elements as load_slice loads them),
// zero outside the matrices; outside, the source address is the matrix's
// first element, of which no byte is read.
__forceinline__ void copy_slice(unsigned int stage, Loads& loads, const float* __restrict__ a,
                                const float* __restrict__ b, unsigned int m, unsigned int n, unsigned int k,
                                unsigned int row0, unsigned int col0, unsigned int k0, unsigned int lid,
                                bool vector_b)
{
    const unsigned int to_a = stage, to_b = stage + TILE_K * STRIDE_A * 4u;
#if AFFINE_A
    const bool a_column = a_col(lid, 0) < k - k0;
#pragma unroll
    for (unsigned int l = 0; l < LOADS_A; ++l) {
        const bool inside = ((loads.a_rows >> l) & 1u) && a_column;
        copy_4(to_a + (a_col(lid, l) * STRIDE_A + a_row(lid, l)) * 4u, inside ? a + loads.a_index + l * loads.a_step : a,
               inside);
    }
    loads.a_index += TILE_K;
#else
#pragma unroll
    for (unsigned int l = 0; l < LOADS_A; ++l) {
        if (!A_FULL && lid + l * GROUP_SIZE >= TILE_M * TILE_K) continue;
        const unsigned int mm = a_row(lid, l), kk = a_col(lid, l);
        const bool inside = mm < m - row0 && kk < k - k0;
        copy_4(to_a + (kk * STRIDE_A + mm) * 4u, inside ? a + (size_t)(row0 + mm) * k + k0 + kk : a, inside);
    }
#endif
#if COPY16_B
    // B's tile in units of 4 consecutive floats of a row: unit
    // u = lid + l·GROUP_SIZE is row u / (TILE_N / 4), columns from
    // 4·(u % (TILE_N / 4)). One 16-byte copy each where vector_b, else four
    // 4-byte copies of the same addresses: one set of addresses for both
    // (two sets cost registers, and registers are what this kernel is short of).
#pragma unroll
    for (unsigned int l = 0; l < LOADS_B4; ++l) {
        const unsigned int u = lid + l * GROUP_SIZE;
        if (LOADS_B4 * GROUP_SIZE != UNITS_B4 && u >= UNITS_B4) continue;
        const unsigned int kk = u / (TILE_N / 4u), nn = (u % (TILE_N / 4u)) * 4u;
        const unsigned int to = to_b + (kk * STRIDE_B + nn) * 4u;
        const float* from = b + (size_t)(k0 + kk) * n + col0 + nn;
        const bool row_inside = kk < k - k0;
        if (vector_b) {
            const bool inside = row_inside && nn < n - col0;  // n % 4 == 0: all four columns or none
            copy_16(to, inside ? from : b, inside);
        } else {
#pragma unroll
            for (unsigned int q = 0; q < 4u; ++q) {
                const bool inside = row_inside && nn + q < n - col0;
                copy_4(to + q * 4u, inside ? from + q : b, inside);
            }
        }
    }
#else
#if AFFINE_B
#pragma unroll
    for (unsigned int l = 0; l < LOADS_B; ++l) {
        const bool inside = loads.b_column && b_row(lid, l) < k - k0;
        copy_4(to_b + (b_row(lid, l) * STRIDE_B + b_col(lid, l)) * 4u, inside ? b + loads.b_index + l * loads.b_step : b,
               inside);
    }
    loads.b_index += (size_t)TILE_K * n;
#else
#pragma unroll
    for (unsigned int l = 0; l < LOADS_B; ++l) {
        if (!B_FULL && lid + l * GROUP_SIZE >= TILE_K * TILE_N) continue;
        const unsigned int kk = b_row(lid, l), nn = b_col(lid, l);
        const bool inside = kk < k - k0 && nn < n - col0;
        copy_4(to_b + (kk * STRIDE_B + nn) * 4u, inside ? b + (size_t)(k0 + kk) * n + col0 + nn : b, inside);
    }
#endif
#endif
}

// Whether a block can take copy_slice_inside: its tiles lie wholly inside
// A and B (k aside) and B's rows allow 16-byte copies.
#define INSIDE_COPIES (AFFINE_A && COPY16_B && LOADS_B4 * GROUP_SIZE == UNITS_B4)

#if INSIDE_COPIES
// copy_slice for a slice that lies wholly inside both matrices (the tile's
// rows inside A, its columns inside B, k0 + TILE_K <= k, 16-byte copies
// allowed): the same copies without bounds checks, which cost as many
// instructions as the copies themselves. Most slices of a large product.
__forceinline__ void copy_slice_inside(unsigned int stage, Loads& loads, const float* __restrict__ a,
                                       const float* __restrict__ b, unsigned int n, unsigned int col0,
                                       unsigned int k0, unsigned int lid)
{
    const unsigned int to_a = stage, to_b = stage + TILE_K * STRIDE_A * 4u;
#pragma unroll
    for (unsigned int l = 0; l < LOADS_A; ++l)
        copy_4_inside(to_a + (a_col(lid, l) * STRIDE_A + a_row(lid, l)) * 4u, a + loads.a_index + l * loads.a_step);
    loads.a_index += TILE_K;
#pragma unroll
    for (unsigned int l = 0; l < LOADS_B4; ++l) {
        const unsigned int u = lid + l * GROUP_SIZE;
        const unsigned int kk = u / (TILE_N / 4u), nn = (u % (TILE_N / 4u)) * 4u;
        copy_16_inside(to_b + (kk * STRIDE_B + nn) * 4u, b + (size_t)(k0 + kk) * n + col0 + nn);
    }
}
#endif

// The copies of the slice at k0: copy_slice_inside where `inside` (the
// tile lies inside A and B) and the slice ends inside k, else copy_slice.
__forceinline__ void copy_next(unsigned int stage, Loads& loads, const float* __restrict__ a,
                               const float* __restrict__ b, unsigned int m, unsigned int n, unsigned int k,
                               unsigned int row0, unsigned int col0, unsigned int k0, unsigned int lid, bool vector_b,
                               bool inside)
{
#if INSIDE_COPIES
    if (inside && k - k0 >= TILE_K) {
        copy_slice_inside(stage, loads, a, b, n, col0, k0, lid);
        return;
    }
#endif
    copy_slice(stage, loads, a, b, m, n, k, row0, col0, k0, lid, vector_b);
}
#endif

// Phase b, this thread's fragments of row kk: THREAD_M values of shared_a,
// THREAD_N of shared_b (16-byte reads where the runs allow).
__forceinline__ void read_fragments(float (&a_regs)[THREAD_M], float (&b_regs)[THREAD_N], const float* shared_a,
                                    const float* shared_b, unsigned int kk, unsigned int tx, unsigned int ty)
{
    const float* row_a = shared_a + kk * STRIDE_A;
    const float* row_b = shared_b + kk * STRIDE_B;
#if VECTOR_A
#pragma unroll
    for (unsigned int i = 0; i < THREAD_M; i += 4) {
        const float4 v = *reinterpret_cast<const float4*>(row_a + micro_row(ty, i));
        a_regs[i] = v.x, a_regs[i + 1] = v.y, a_regs[i + 2] = v.z, a_regs[i + 3] = v.w;
    }
#else
#pragma unroll
    for (unsigned int i = 0; i < THREAD_M; ++i) a_regs[i] = row_a[micro_row(ty, i)];
#endif
#if VECTOR_B
#pragma unroll
    for (unsigned int j = 0; j < THREAD_N; j += 4) {
        const float4 v = *reinterpret_cast<const float4*>(row_b + micro_col(tx, j));
        b_regs[j] = v.x, b_regs[j + 1] = v.y, b_regs[j + 2] = v.z, b_regs[j + 3] = v.w;
    }
#else
#pragma unroll
    for (unsigned int j = 0; j < THREAD_N; ++j) b_regs[j] = row_b[micro_col(tx, j)];
#endif
}

// Phase b: this thread's outer products over one slice in shared memory.
// The fragments of row kk + 1 are read while row kk's products are
// computed (two register sets), so the products do not wait on shared
// memory's latency (measured on an H100: the loop alone 51.9 TFLOP/s
// against 47.6 without; scripts/matmul-explore/).
__forceinline__ void outer_products(float (&acc)[THREAD_M][THREAD_N], const float* shared_a, const float* shared_b,
                                    unsigned int tx, unsigned int ty)
{
    float a_regs[2][THREAD_M], b_regs[2][THREAD_N];
    read_fragments(a_regs[0], b_regs[0], shared_a, shared_b, 0, tx, ty);
#pragma unroll
    for (unsigned int kk = 0; kk < TILE_K; ++kk) {
        if (kk + 1 < TILE_K) read_fragments(a_regs[(kk + 1) % 2], b_regs[(kk + 1) % 2], shared_a, shared_b, kk + 1, tx, ty);
#pragma unroll
        for (unsigned int i = 0; i < THREAD_M; ++i)
#pragma unroll
            for (unsigned int j = 0; j < THREAD_N; ++j) acc[i][j] += a_regs[kk % 2][i] * b_regs[kk % 2][j];
    }
}

extern "C" __global__ void __launch_bounds__(GROUP_SIZE, MIN_BLOCKS)
matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
       unsigned int m, unsigned int n, unsigned int k, unsigned int chunk)
{
    extern __shared__ __align__(16) float shared[];  // STAGES × (shared_a, shared_b)
#if ASYNC_COPY
    unsigned int dynamic_bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < STAGES * STAGE_FLOATS * 4u) __trap();  // the plan passes too little: fail, never overrun
    const unsigned int shared_base = (unsigned int)__cvta_generic_to_shared(shared);
    const bool vector_b = n % 4u == 0 && ((size_t)b & 15u) == 0;
#endif
    const unsigned int lid = threadIdx.x;
    const unsigned int tx = lid % THREADS_N;  // micro-tile column
    const unsigned int ty = lid / THREADS_N;  // micro-tile row
    const unsigned int tiles_m = m / TILE_M + (m % TILE_M != 0);
    const unsigned int tiles_n = n / TILE_N + (n % TILE_N != 0);

    // The chunk of k: indices k_begin .. k_begin + k_len.
    const unsigned int k_begin = blockIdx.z * chunk;
    const unsigned int k_len = min(chunk, k - k_begin);
    const unsigned int slices = k_len / TILE_K + (k_len % TILE_K != 0);

    // The tile: the flat block index over x and y. The plan launches one
    // block per tile (x·y <= 2^31, so the stride cannot wrap), so this loop
    // runs once; the same for the whole block.
    const unsigned int tiles = tiles_m * tiles_n;
    for (unsigned int tile = blockIdx.y * gridDim.x + blockIdx.x; tile < tiles; tile += gridDim.x * gridDim.y) {
        const unsigned int row0 = (tile / tiles_n) * TILE_M, col0 = (tile % tiles_n) * TILE_N;

        float acc[THREAD_M][THREAD_N];
#pragma unroll
        for (unsigned int i = 0; i < THREAD_M; ++i)
#pragma unroll
            for (unsigned int j = 0; j < THREAD_N; ++j) acc[i][j] = 0.0f;

        Loads loads = start_loads(m, n, k, row0, col0, k_begin, lid);
#if ASYNC_COPY
        // The tile lies inside A and B (k aside) and B takes 16-byte copies:
        // its slices that end inside k take copy_slice_inside.
        const bool inside = INSIDE_COPIES && vector_b && m - row0 >= TILE_M && n - col0 >= TILE_N;
        // The copies of the first STAGES − 1 slices, one group each (empty
        // past the chunk's end, so that group counts stay in step).
#pragma unroll
        for (unsigned int s = 0; s + 1 < STAGES; ++s) {
            if (s < slices) copy_next(shared_base + s * STAGE_FLOATS * 4u, loads, a, b, m, n, k, row0, col0, k_begin + s * TILE_K, lid, vector_b, inside);
            commit_copies();
        }
        for (unsigned int slice = 0; slice < slices; ++slice) {
            // Phase a: this slice's copies have landed (this thread's, then
            // — barrier — everyone's); every thread is past computing the
            // previous slice, so its buffer takes slice + STAGES − 1.
            wait_copies<STAGES - 2u>();
            __syncthreads();
            const unsigned int ahead = slice + STAGES - 1u;
            if (ahead < slices) copy_next(shared_base + (ahead % STAGES) * STAGE_FLOATS * 4u, loads, a, b, m, n, k, row0, col0, k_begin + ahead * TILE_K, lid, vector_b, inside);
            commit_copies();
            // Phase b: every thread's outer products.
            const float* shared_a = shared + (slice % STAGES) * STAGE_FLOATS;  // TILE_K rows of STRIDE_A (A's tile transposed)
            outer_products(acc, shared_a, shared_a + TILE_K * STRIDE_A, tx, ty);
        }
        // Every copy landed and every read done before the buffers serve another tile.
        wait_copies<0>();
        __syncthreads();
#else
        float* shared_a = shared;                      // TILE_K rows of STRIDE_A (A's tile transposed)
        float* shared_b = shared + TILE_K * STRIDE_A;  // TILE_K rows of STRIDE_B
        // The register prefetch: the first slice now, each next one while the
        // current one is computed.
        float next_a[LOADS_A], next_b[LOADS_B];
        load_slice(next_a, next_b, loads, a, b, m, n, k, row0, col0, k_begin, lid);

        for (unsigned int slice = 0; slice < slices; ++slice) {
            const unsigned int k0 = k_begin + slice * TILE_K;
            // Phase a: both tiles to shared memory (from the registers), zero
            // outside the matrices. — barrier —
#pragma unroll
            for (unsigned int l = 0; l < LOADS_A; ++l) {
                if (A_FULL || lid + l * GROUP_SIZE < TILE_M * TILE_K)
                    shared_a[a_col(lid, l) * STRIDE_A + a_row(lid, l)] = next_a[l];
            }
#pragma unroll
            for (unsigned int l = 0; l < LOADS_B; ++l) {
                if (B_FULL || lid + l * GROUP_SIZE < TILE_K * TILE_N)
                    shared_b[b_row(lid, l) * STRIDE_B + b_col(lid, l)] = next_b[l];
            }
            __syncthreads();

            if (slice + 1 < slices) load_slice(next_a, next_b, loads, a, b, m, n, k, row0, col0, k0 + TILE_K, lid);

            // Phase b: every thread's outer products. — barrier —
            outer_products(acc, shared_a, shared_b, tx, ty);
            __syncthreads();
        }
#endif

        // Last phase: store the micro-tile's elements inside C to plane z
        // (a 16-byte store per run where it lies inside C and is aligned).
        // CUDA stores 16 bytes whatever VECTOR_STORES says: ptxas keeps the
        // slice loop as fast with them (mod.rs).
        float* plane = c + (size_t)blockIdx.z * m * n;
#pragma unroll
        for (unsigned int i = 0; i < THREAD_M; ++i) {
            const unsigned int mm = micro_row(ty, i);
            if (mm >= m - row0) continue;
            float* out = plane + (size_t)(row0 + mm) * n + col0;
#if VECTOR_B
#pragma unroll
            for (unsigned int j = 0; j < THREAD_N; j += 4) {
                const unsigned int nn = micro_col(tx, j);
                if (n % 4u == 0 && nn + 4u <= n - col0) {
                    *reinterpret_cast<float4*>(out + nn) =
                        make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
                } else {
#pragma unroll
                    for (unsigned int q = 0; q < 4u; ++q) {
                        if (nn + q < n - col0) out[nn + q] = acc[i][j + q];
                    }
                }
            }
#else
#pragma unroll
            for (unsigned int j = 0; j < THREAD_N; ++j) {
                const unsigned int nn = micro_col(tx, j);
                if (nn < n - col0) out[nn] = acc[i][j];
            }
#endif
        }
    }
}
