// Matmul — OpenCL C (see mod.rs for the algorithm and interface).
//
// Pass 1 of the product: a workgroup computes one TILE_M × TILE_N tile of C
// (the flat workgroup index over x and y) over one chunk of k (z), writing
// it to plane z of `c` (C itself when k is not split; matmul_sum.cl adds the
// planes). Each invocation owns a THREAD_M × THREAD_N micro-tile,
// accumulated in registers (`acc`): its rows come in runs of RUN_M
// consecutive rows THREADS_M·RUN_M apart, its columns in runs of RUN_N
// (micro_row, micro_col; mod.rs says why).
// How the slices reach shared memory depends on the device:
// - where the driver takes NVIDIA's inline PTX with cp.async
//   (ROSETTA_PTX_ASYNC_COPY, defined by the backend after running those
//   forms on the device; sm_80 and later): ASYNC_COPY, as in the CUDA
//   version — asynchronous copies from global to shared memory, STAGES
//   slices in flight in STAGES buffers and no registers held for them, and
//   copy_slice_inside (no bounds checks) for slices wholly inside both
//   matrices;
// - elsewhere the register prefetch: the next slice's elements are loaded
//   into registers while the current slice is computed, then stored to the
//   one buffer; without bounds checks where the slice lies wholly inside
//   both matrices (as in GLSL and WGSL).
// Shared memory (the trailing `__local` argument, one block): STAGES
// buffers (1 without ASYNC_COPY), each shared_a (TILE_K rows of TILE_M +
// PAD, A's tile transposed) then shared_b (TILE_K rows of TILE_N + PAD),
// declared float4 for its alignment. PAD = 4 keeps rows 16 bytes aligned,
// so micro-tile reads are float4 loads when THREAD_M / THREAD_N are
// multiples of 4. With ASYNC_COPY the plan passes STAGES buffers' worth
// (4, or 2 where 4 exceed 48 KiB); the kernel traps if it gets less than
// it uses.
// Barriers: with ASYNC_COPY one per slice (once its copies have landed,
// before the buffer computed last is refilled); without, after each pair of
// tile stores and after computing from them.
// Registers: the accumulators and two sets of THREAD_M + THREAD_N operands
// (row kk + 1's are read while row kk's multiply).
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

#define STAGE_FLOATS (TILE_K * (STRIDE_A + STRIDE_B))
#if defined(ROSETTA_PTX_ASYNC_COPY)
#define ASYNC_COPY 1
// ASYNC_STAGES buffers where they fit in 48 KiB (NVIDIA's OpenCL has no
// more __local memory), else 2: plan.rs's Tiling::stages, the same rule.
#define ASYNC_STAGES 4u  // = ASYNC_STAGES in plan.rs
#define STAGES (ASYNC_STAGES * STAGE_FLOATS * 4u <= 49152u ? ASYNC_STAGES : 2u)
#else
#define ASYNC_COPY 0
#define STAGES 1u
#endif

// The flat element index s = lid + l·GROUP_SIZE of mod.rs, split into the
// tile coordinates. When GROUP_SIZE is a multiple of the tile's row length
// (every tiling of the plan), the split is affine in l — the same mapping,
// written so the compiler keeps one address per invocation plus constant
// offsets. A's tile: mm = s / TILE_K (row), kk = s % TILE_K (column).
inline uint a_row(uint lid, uint l)
{
#if GROUP_SIZE % TILE_K == 0
    return lid / TILE_K + l * (GROUP_SIZE / TILE_K);
#else
    return (lid + l * GROUP_SIZE) / TILE_K;
#endif
}
inline uint a_col(uint lid, uint l)
{
#if GROUP_SIZE % TILE_K == 0
    return lid % TILE_K;
#else
    return (lid + l * GROUP_SIZE) % TILE_K;
#endif
}
// B's tile: kk = s / TILE_N (row), nn = s % TILE_N (column).
inline uint b_row(uint lid, uint l)
{
#if GROUP_SIZE % TILE_N == 0
    return lid / TILE_N + l * (GROUP_SIZE / TILE_N);
#else
    return (lid + l * GROUP_SIZE) / TILE_N;
#endif
}
inline uint b_col(uint lid, uint l)
{
#if GROUP_SIZE % TILE_N == 0
    return lid % TILE_N;
#else
    return (lid + l * GROUP_SIZE) % TILE_N;
#endif
}
#if ASYNC_COPY
// Affine splits: an invocation's elements lie a fixed number of rows apart,
// so one running index per matrix reaches all of them (see Loads).
#define AFFINE_A (GROUP_SIZE % TILE_K == 0 && A_FULL)
#define AFFINE_B (GROUP_SIZE % TILE_N == 0 && B_FULL)
// B's tile in 16-byte units where the tiles' rows keep them aligned.
#define COPY16_B (TILE_N % 4 == 0 && TILE_M % 4 == 0)
#define UNITS_B4 (TILE_K * TILE_N / 4)
#define LOADS_B4 ((UNITS_B4 + GROUP_SIZE - 1) / GROUP_SIZE)
// Whether a workgroup can take copy_slice_inside: its tiles lie wholly
// inside A and B (k aside) and B's rows allow 16-byte copies.
#define INSIDE_COPIES (AFFINE_A && COPY16_B && LOADS_B4 * GROUP_SIZE == UNITS_B4)

// This invocation's global elements for one C tile, slice after slice from
// k_begin: element l of A's tile is a[a_index + l·a_step], of B's b[b_index
// + l·b_step]; the indices advance by one slice per copy (affine case). Row
// and column checks that don't change along k are made once per tile.
// Comparisons are against m − row0, n − col0 and k − k0, which cannot
// overflow.
typedef struct {
    ulong a_index, a_step, b_index, b_step;
    uint a_rows;    // bit l: element l's row lies inside A
    uint b_column;  // this invocation's column lies inside B
} Loads;

inline Loads start_loads(uint m, uint n, uint k, uint row0, uint col0, uint k_begin, uint lid)
{
    Loads loads;
    loads.a_index = (ulong)(row0 + a_row(lid, 0)) * k + k_begin + a_col(lid, 0);
    loads.a_step = (ulong)(GROUP_SIZE / TILE_K) * k;
    loads.a_rows = 0;
#pragma unroll
    for (uint l = 0; l < LOADS_A; l++) {
        loads.a_rows |= (uint)(a_row(lid, l) < m - row0) << l;
    }
    loads.b_index = ((ulong)k_begin + b_row(lid, 0)) * n + col0 + b_col(lid, 0);
    loads.b_step = (ulong)(GROUP_SIZE / TILE_N) * n;
    loads.b_column = b_col(lid, 0) < n - col0;
    return loads;
}

// NVIDIA's cp.async through inline PTX (the forms ptx.rs runs before it
// defines ROSETTA_PTX_ASYNC_COPY). `to` is a shared-memory address, `from`
// a global one; a copy of 0 source bytes fills zeros.
inline void copy_4(uint to, __global const float* from, bool inside)
{
    __asm__ __volatile__("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(to), "l"((ulong)from), "r"(inside ? 4u : 0u) : "memory");
}
inline void copy_16(uint to, __global const float* from, bool inside)
{
    __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(to), "l"((ulong)from), "r"(inside ? 16u : 0u) : "memory");
}
// The same where the whole source lies inside the matrix.
inline void copy_4_inside(uint to, __global const float* from)
{
    __asm__ __volatile__("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(to), "l"((ulong)from) : "memory");
}
inline void copy_16_inside(uint to, __global const float* from)
{
    __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(to), "l"((ulong)from) : "memory");
}
inline void commit_copies(void)
{
    __asm__ __volatile__("cp.async.commit_group;" ::: "memory");
}
// Wait until at most STAGES − 2 groups of this invocation's copies are in
// flight (the count is an immediate).
inline void wait_copies_ahead(void)
{
#if STAGES == 4
    __asm__ __volatile__("cp.async.wait_group 2;" ::: "memory");
#elif STAGES == 2
    __asm__ __volatile__("cp.async.wait_group 0;" ::: "memory");
#else
#error "wait_copies_ahead has immediates for STAGES = 2 and 4"
#endif
}
inline void wait_copies_all(void)
{
    __asm__ __volatile__("cp.async.wait_group 0;" ::: "memory");
}

// Issue the copies of this invocation's elements of the slice at k0 into
// the buffer at shared address `stage`, zero outside the matrices;
// outside, the source address is the matrix's first element, of which no
// byte is read.
inline void copy_slice(uint stage, Loads* loads, __global const float* restrict a,
                       __global const float* restrict b, uint m, uint n, uint k, uint row0,
                       uint col0, uint k0, uint lid, bool vector_b)
{
    const uint to_a = stage;
    const uint to_b = stage + TILE_K * STRIDE_A * 4u;
#if AFFINE_A
    const bool a_column = a_col(lid, 0) < k - k0;
#pragma unroll
    for (uint l = 0; l < LOADS_A; l++) {
        const bool inside = ((loads->a_rows >> l) & 1u) && a_column;
        copy_4(to_a + (a_col(lid, l) * STRIDE_A + a_row(lid, l)) * 4u,
               inside ? a + loads->a_index + l * loads->a_step : a, inside);
    }
    loads->a_index += TILE_K;
#else
#pragma unroll
    for (uint l = 0; l < LOADS_A; l++) {
        if (!A_FULL && lid + l * GROUP_SIZE >= TILE_M * TILE_K) {
            continue;
        }
        const uint mm = a_row(lid, l);
        const uint kk = a_col(lid, l);
        const bool inside = mm < m - row0 && kk < k - k0;
        copy_4(to_a + (kk * STRIDE_A + mm) * 4u, inside ? a + (ulong)(row0 + mm) * k + k0 + kk : a, inside);
    }
#endif
#if COPY16_B
    // B's tile in units of 4 consecutive floats of a row: unit
    // u = lid + l·GROUP_SIZE is row u / (TILE_N / 4), columns from
    // 4·(u % (TILE_N / 4)). One 16-byte copy each where vector_b, else four
    // 4-byte copies of the same addresses (one set of addresses for both).
#pragma unroll
    for (uint l = 0; l < LOADS_B4; l++) {
        const uint u = lid + l * GROUP_SIZE;
        if (LOADS_B4 * GROUP_SIZE != UNITS_B4 && u >= UNITS_B4) {
            continue;
        }
        const uint kk = u / (TILE_N / 4);
        const uint nn = (u % (TILE_N / 4)) * 4;
        const uint to = to_b + (kk * STRIDE_B + nn) * 4u;
        __global const float* from = b + (ulong)(k0 + kk) * n + col0 + nn;
        const bool row_inside = kk < k - k0;
        if (vector_b) {
            const bool inside = row_inside && nn < n - col0;  // n % 4 == 0: all four columns or none
            copy_16(to, inside ? from : b, inside);
        } else {
#pragma unroll
            for (uint q = 0; q < 4u; q++) {
                const bool inside = row_inside && nn + q < n - col0;
                copy_4(to + q * 4u, inside ? from + q : b, inside);
            }
        }
    }
#elif AFFINE_B
#pragma unroll
    for (uint l = 0; l < LOADS_B; l++) {
        const bool inside = loads->b_column && b_row(lid, l) < k - k0;
        copy_4(to_b + (b_row(lid, l) * STRIDE_B + b_col(lid, l)) * 4u,
               inside ? b + loads->b_index + l * loads->b_step : b, inside);
    }
    loads->b_index += (ulong)TILE_K * n;
#else
#pragma unroll
    for (uint l = 0; l < LOADS_B; l++) {
        if (!B_FULL && lid + l * GROUP_SIZE >= TILE_K * TILE_N) {
            continue;
        }
        const uint kk = b_row(lid, l);
        const uint nn = b_col(lid, l);
        const bool inside = kk < k - k0 && nn < n - col0;
        copy_4(to_b + (kk * STRIDE_B + nn) * 4u, inside ? b + (ulong)(k0 + kk) * n + col0 + nn : b, inside);
    }
#endif
}

#if INSIDE_COPIES
// copy_slice for a slice that lies wholly inside both matrices (the tile's
// rows inside A, its columns inside B, k0 + TILE_K <= k, 16-byte copies
// allowed): the same copies without bounds checks, which cost as many
// instructions as the copies themselves. Most slices of a large product.
inline void copy_slice_inside(uint stage, Loads* loads, __global const float* restrict a,
                              __global const float* restrict b, uint n, uint col0, uint k0, uint lid)
{
    const uint to_a = stage;
    const uint to_b = stage + TILE_K * STRIDE_A * 4u;
#pragma unroll
    for (uint l = 0; l < LOADS_A; l++) {
        copy_4_inside(to_a + (a_col(lid, l) * STRIDE_A + a_row(lid, l)) * 4u, a + loads->a_index + l * loads->a_step);
    }
    loads->a_index += TILE_K;
#pragma unroll
    for (uint l = 0; l < LOADS_B4; l++) {
        const uint u = lid + l * GROUP_SIZE;
        const uint kk = u / (TILE_N / 4);
        const uint nn = (u % (TILE_N / 4)) * 4;
        copy_16_inside(to_b + (kk * STRIDE_B + nn) * 4u, b + (ulong)(k0 + kk) * n + col0 + nn);
    }
}
#endif

// The copies of the slice at k0: copy_slice_inside where `inside` (the
// tile lies inside A and B) and the slice ends inside k, else copy_slice.
inline void copy_next(uint stage, Loads* loads, __global const float* restrict a,
                      __global const float* restrict b, uint m, uint n, uint k, uint row0, uint col0,
                      uint k0, uint lid, bool vector_b, bool inside)
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

// Load this invocation's elements of the slice at k0 (A's tile: rows row0..,
// columns k0..; B's tile: rows k0.., columns col0..) into registers, zero
// outside the matrices. Element l is the flat tile index s = lid +
// l·GROUP_SIZE of mod.rs. Comparisons are against m − row0, n − col0 and
// k − k0, which cannot underflow. `inside` (the same for the whole
// workgroup): the slice lies wholly inside both matrices, so no element
// needs checking.
inline void load_slice(float* next_a, float* next_b, __global const float* restrict a,
                       __global const float* restrict b, uint m, uint n, uint k, uint row0,
                       uint col0, uint k0, uint lid, bool inside)
{
    if (inside) {
#pragma unroll
        for (uint l = 0; l < LOADS_A; l++) {
            const uint s = lid + l * GROUP_SIZE;
            if (A_FULL || s < TILE_M * TILE_K) {
                next_a[l] = a[(ulong)(row0 + a_row(lid, l)) * k + k0 + a_col(lid, l)];
            }
        }
#pragma unroll
        for (uint l = 0; l < LOADS_B; l++) {
            const uint s = lid + l * GROUP_SIZE;
            if (B_FULL || s < TILE_K * TILE_N) {
                next_b[l] = b[(ulong)(k0 + b_row(lid, l)) * n + col0 + b_col(lid, l)];
            }
        }
        return;
    }
#pragma unroll
    for (uint l = 0; l < LOADS_A; l++) {
        const uint s = lid + l * GROUP_SIZE;
        const uint mm = a_row(lid, l);
        const uint kk = a_col(lid, l);
        const bool inside = (A_FULL || s < TILE_M * TILE_K) && mm < m - row0 && kk < k - k0;
        next_a[l] = inside ? a[(ulong)(row0 + mm) * k + k0 + kk] : 0.0f;
    }
#pragma unroll
    for (uint l = 0; l < LOADS_B; l++) {
        const uint s = lid + l * GROUP_SIZE;
        const uint kk = b_row(lid, l);
        const uint nn = b_col(lid, l);
        const bool inside = (B_FULL || s < TILE_K * TILE_N) && kk < k - k0 && nn < n - col0;
        next_b[l] = inside ? b[(ulong)(k0 + kk) * n + col0 + nn] : 0.0f;
    }
}

// Phase b, this invocation's fragments of row kk: THREAD_M values of
// shared_a, THREAD_N of shared_b (16-byte reads where the runs allow).
inline void read_fragments(float* a_regs, float* b_regs, __local const float* shared_a,
                           __local const float* shared_b, uint kk, uint tx, uint ty)
{
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
}

// Phase b: this invocation's outer products over one slice in shared
// memory. The fragments of row kk + 1 are read while row kk's products
// are computed (two register sets), so the products do not wait on shared
// memory's latency (as in the CUDA version).
inline void outer_products(float acc[THREAD_M][THREAD_N], __local const float* shared_a,
                           __local const float* shared_b, uint tx, uint ty)
{
    float a_regs[2][THREAD_M];
    float b_regs[2][THREAD_N];
    read_fragments(a_regs[0], b_regs[0], shared_a, shared_b, 0, tx, ty);
#pragma unroll
    for (uint kk = 0; kk < TILE_K; kk++) {
        if (kk + 1 < TILE_K) {
            read_fragments(a_regs[(kk + 1) % 2], b_regs[(kk + 1) % 2], shared_a, shared_b, kk + 1, tx, ty);
        }
#pragma unroll
        for (uint i = 0; i < THREAD_M; i++) {
#pragma unroll
            for (uint j = 0; j < THREAD_N; j++) {
                acc[i][j] += a_regs[kk % 2][i] * b_regs[kk % 2][j];
            }
        }
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
#if ASYNC_COPY
    uint dynamic_bytes;
    __asm__ __volatile__("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_bytes));
    if (dynamic_bytes < STAGES * STAGE_FLOATS * 4u) {
        __asm__ __volatile__("trap;");  // the plan passes too little: fail, never overrun
    }
    const uint shared_base = (uint)(ulong)shared_block;
    const bool vector_b = n % 4u == 0 && ((ulong)b & 15u) == 0;
#endif
    const uint lid = get_local_id(0);
    const uint tx = lid % THREADS_N;
    const uint ty = lid / THREADS_N;
    const uint tiles_m = m / TILE_M + (m % TILE_M != 0);
    const uint tiles_n = n / TILE_N + (n % TILE_N != 0);

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

#if ASYNC_COPY
        Loads loads = start_loads(m, n, k, row0, col0, k_begin, lid);
        // The tile lies inside A and B (k aside) and B takes 16-byte copies:
        // its slices that end inside k take copy_slice_inside.
        const bool inside = INSIDE_COPIES && vector_b && m - row0 >= TILE_M && n - col0 >= TILE_N;
        // The copies of the first STAGES − 1 slices, one group each (empty
        // past the chunk's end, so that group counts stay in step).
#pragma unroll
        for (uint s = 0; s + 1 < STAGES; s++) {
            if (s < slices) {
                copy_next(shared_base + s * STAGE_FLOATS * 4u, &loads, a, b, m, n, k, row0, col0,
                          k_begin + s * TILE_K, lid, vector_b, inside);
            }
            commit_copies();
        }
        for (uint slice = 0; slice < slices; slice++) {
            // Phase a: this slice's copies have landed (this invocation's,
            // then — barrier — everyone's); every invocation is past computing
            // the previous slice, so its buffer takes slice + STAGES − 1.
            wait_copies_ahead();
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint ahead = slice + STAGES - 1u;
            if (ahead < slices) {
                copy_next(shared_base + (ahead % STAGES) * STAGE_FLOATS * 4u, &loads, a, b, m, n, k, row0,
                          col0, k_begin + ahead * TILE_K, lid, vector_b, inside);
            }
            commit_copies();
            // Phase b: every invocation's outer products.
            __local const float* shared_a = shared + (slice % STAGES) * STAGE_FLOATS;  // A's tile transposed
            outer_products(acc, shared_a, shared_a + TILE_K * STRIDE_A, tx, ty);
        }
        // Every copy landed and every read done before the buffers serve
        // another tile.
        wait_copies_all();
        barrier(CLK_LOCAL_MEM_FENCE);
#else
        __local float* shared_a = shared;
        __local float* shared_b = shared + TILE_K * STRIDE_A;
        // The register prefetch: the first slice now, each next one while the
        // current one is computed.
        float next_a[LOADS_A];
        float next_b[LOADS_B];
        // Whether the tile's rows lie inside A and its columns inside B.
        const bool tile_inside = m - row0 >= TILE_M && n - col0 >= TILE_N;
        load_slice(next_a, next_b, a, b, m, n, k, row0, col0, k_begin, lid,
                   tile_inside && k - k_begin >= TILE_K);
        for (uint slice = 0; slice < slices; slice++) {
            const uint k0 = k_begin + slice * TILE_K;
            // Phase a: both tiles to shared memory (from the registers), zero
            // outside the matrices. — barrier —
#pragma unroll
            for (uint l = 0; l < LOADS_A; l++) {
                const uint s = lid + l * GROUP_SIZE;
                if (A_FULL || s < TILE_M * TILE_K) {
                    shared_a[a_col(lid, l) * STRIDE_A + a_row(lid, l)] = next_a[l];  // shared_a[kk][mm]
                }
            }
#pragma unroll
            for (uint l = 0; l < LOADS_B; l++) {
                const uint s = lid + l * GROUP_SIZE;
                if (B_FULL || s < TILE_K * TILE_N) {
                    shared_b[b_row(lid, l) * STRIDE_B + b_col(lid, l)] = next_b[l];  // shared_b[kk][nn]
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            if (slice + 1 < slices) {
                load_slice(next_a, next_b, a, b, m, n, k, row0, col0, k0 + TILE_K, lid,
                           tile_inside && k - (k0 + TILE_K) >= TILE_K);
            }

            // Phase b: every invocation's outer products. — barrier —
            outer_products(acc, shared_a, shared_b, tx, ty);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
#endif

        // Last phase: store the micro-tile's elements inside C to plane z,
        // 4 bytes at a time whatever VECTOR_STORES says: with any other form
        // of this phase NVIDIA's OpenCL ran the 16-deep slice loop slower
        // (H200, 4096^3: 41.3 against 44.5 TFLOP/s) and the split 1024^3 did
        // not gain (30.7 against 30.6; mod.rs).
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
