// Reduce — CUDA C, compiled by NVRTC (see mod.rs for the algorithm and interface).
//
// Algorithm: grid-stride accumulation of 4-word vectors (then the scalar
// tail) into a private accumulator; a shared-memory tree per block, whose
// first levels are warp shuffles when SUBGROUPS = 1 (one value per warp goes
// to shared memory); thread 0 writes the block's value to out[blockIdx.x].
// With LAST_GROUP = 1, thread 0 publishes the value in the scratch buffer
// instead, and the last block to arrive combines every block's value and
// writes out[0].
// Shared memory: shared[GROUP_SIZE] (static array), the tree's scratch;
// with LAST_GROUP = 1 also is_last, the last-block flag.
// Barriers: after the accumulators (or the warps' values) are stored, and
// after each tree level; with LAST_GROUP = 1, after the flag is stored and
// in the last block's second tree. Every thread reaches every
// __syncthreads: the loops around them depend only on constants and
// warpSize, the branch around the last block's part on a value the whole
// block read from shared memory.
// Fences: __threadfence() (device scope) before the arrival ticket, and in
// the last block after it: the release and acquire that make the published
// values visible to the last block.
// Constants (-D NAME=valueu): GROUP_SIZE, ELEM (0 f32, 1 i32, 2 u32),
// OP (0 sum, 1 min, 2 max), SUBGROUPS (0 / 1), LAST_GROUP (0 / 1).

// The element type. An i32 sum is the u32 sum of the same bits (signed
// overflow is undefined in C), so it runs on unsigned words.
#if ELEM == 0
typedef float T;
typedef float4 T4;
#elif ELEM == 1 && OP != 0
typedef int T;
typedef int4 T4;
#else
typedef unsigned int T;
typedef uint4 T4;
#endif

// Enough blocks per SM to fill it (2048 threads on sm_80/sm_90), so the
// plan's one wave of blocks is resident at once: caps registers at 32.
#define MIN_BLOCKS (GROUP_SIZE >= 64u ? 2048u / GROUP_SIZE : 32u)

// NaN by bits: fast-math folding can't remove it.
__forceinline__ bool is_nan(float x) { return (__float_as_uint(x) & 0x7fffffffu) > 0x7f800000u; }

// The total-order key of an f32's bits: keys compare as the floats do, and
// -0 below +0 (IEEE 754's minimum / maximum), so min and max give the same
// bits whatever the order of combining; exact also where a device flushes
// subnormals in float comparisons (mod.rs, "Ordering floats exactly").
__forceinline__ unsigned int total_key(unsigned int bits)
{
    return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

// identity and combine (mod.rs, "Semantics of combine").
#if OP == 0
#if ELEM == 0
__forceinline__ T identity() { return __uint_as_float(0x80000000u); }  // -0: x + -0 == x for every x
#else
__forceinline__ T identity() { return (T)0; }
#endif
__forceinline__ T combine(T a, T b) { return a + b; }
#elif ELEM == 0
__forceinline__ T identity() { return __uint_as_float(OP == 1 ? 0x7f800000u : 0xff800000u); }
__forceinline__ T combine(T a, T b) {
    if (is_nan(a) || is_nan(b)) return __uint_as_float(0x7fc00000u);
    // Ordered by key, not float comparison: exact with subnormals too.
#if OP == 1
    return total_key(__float_as_uint(b)) < total_key(__float_as_uint(a)) ? b : a;
#else
    return total_key(__float_as_uint(b)) > total_key(__float_as_uint(a)) ? b : a;
#endif
}
#elif ELEM == 1
__forceinline__ T identity() { return OP == 1 ? 0x7fffffff : (-0x7fffffff - 1); }
__forceinline__ T combine(T a, T b) { return OP == 1 ? min(a, b) : max(a, b); }
#else
__forceinline__ T identity() { return OP == 1 ? 0xffffffffu : 0u; }
__forceinline__ T combine(T a, T b) { return OP == 1 ? min(a, b) : max(a, b); }
#endif

// One vector's four elements, pairwise.
__forceinline__ T combine4(T4 v) { return combine(combine(v.x, v.y), combine(v.z, v.w)); }

// A value's 32 bits, and back (the scratch buffer holds words).
__forceinline__ unsigned int to_bits(float x) { return __float_as_uint(x); }
__forceinline__ unsigned int to_bits(int x) { return (unsigned int)x; }
__forceinline__ unsigned int to_bits(unsigned int x) { return x; }
__forceinline__ T from_bits(unsigned int bits) {
#if ELEM == 0
    return __uint_as_float(bits);
#else
    return (T)bits;
#endif
}

// Device-scope relaxed accesses to the scratch buffer (morally strong in
// the PTX memory model, so the fences order them; plain accesses are not).
// Before sm_70 (no .relaxed in PTX) volatile accesses, the pre-Volta idiom.
__forceinline__ unsigned int load_relaxed(const unsigned int* word) {
#if __CUDA_ARCH__ >= 700
    unsigned int value;
    asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(value) : "l"(word) : "memory");
    return value;
#else
    return *(const volatile unsigned int*)word;
#endif
}
__forceinline__ void store_relaxed(unsigned int* word, unsigned int value) {
#if __CUDA_ARCH__ >= 700
    asm volatile("st.relaxed.gpu.u32 [%0], %1;" ::"l"(word), "r"(value) : "memory");
#else
    *(volatile unsigned int*)word = value;
#endif
}

// Phases 2 and 3: the block's accumulators combined into one value, valid
// in thread 0 (the same in the last block's second tree).
__device__ __forceinline__ T group_combine(T acc, T* shared, unsigned int lid)
{
#if SUBGROUPS
    // Phase 2 (subgroups): each warp combines its values with shuffles (the
    // warp size is read at run time, never assumed); its lane 0 stores the
    // warp's value in shared[warp]. — barrier —
    const unsigned int lanes = GROUP_SIZE < (unsigned int)warpSize ? GROUP_SIZE : (unsigned int)warpSize;
    const unsigned int mask = lanes >= 32u ? 0xffffffffu : (1u << lanes) - 1u;
    for (unsigned int offset = lanes / 2; offset > 0; offset /= 2) {
        acc = combine(acc, __shfl_xor_sync(mask, acc, offset));
    }
    const unsigned int values = GROUP_SIZE / lanes;  // one per warp
    if (lid % lanes == 0) shared[lid / lanes] = acc;
    __syncthreads();
#else
    // Phase 2: accumulators to shared memory. — barrier —
    const unsigned int values = GROUP_SIZE;
    shared[lid] = acc;
    __syncthreads();
#endif

    // Phase 3..: the shared-memory tree, one level (and barrier) per step.
    for (unsigned int s = values / 2; s > 0; s /= 2) {
        if (lid < s) shared[lid] = combine(shared[lid], shared[lid + s]);
        __syncthreads();
    }
    return lid == 0 ? shared[0] : acc;  // only thread 0's is the block's
}

extern "C" __global__ void __launch_bounds__(GROUP_SIZE, MIN_BLOCKS)
reduce(const T* __restrict__ input, T* __restrict__ out, unsigned int* scratch, unsigned int n)
{
    __shared__ T shared[GROUP_SIZE];
    const unsigned int lid = threadIdx.x;
    const size_t stride = (size_t)GROUP_SIZE * gridDim.x;  // T: threads in the grid
    const size_t first = (size_t)blockIdx.x * GROUP_SIZE;  // t of this block's lid 0

    // Phase 1: grid-stride accumulation into a private accumulator. Vectors
    // first (4 elements each, one 16-byte load), then the scalar tail.
    // Four vectors are loaded before they are combined, so each thread keeps
    // four loads in flight.
    T acc = identity();
    const size_t vectors = n / 4u;
    const T4* __restrict__ input4 = reinterpret_cast<const T4*>(input);
    size_t row = first + lid;
    for (; row + 3 * stride < vectors; row += 4 * stride) {
        const T4 v0 = input4[row];
        const T4 v1 = input4[row + stride];
        const T4 v2 = input4[row + 2 * stride];
        const T4 v3 = input4[row + 3 * stride];
        acc = combine(acc, combine4(v0));
        acc = combine(acc, combine4(v1));
        acc = combine(acc, combine4(v2));
        acc = combine(acc, combine4(v3));
    }
    for (; row < vectors; row += stride) {
        acc = combine(acc, combine4(input4[row]));
    }
    for (size_t i = vectors * 4 + first + lid; i < n; i += stride) {
        acc = combine(acc, input[i]);
    }

    // Phases 2 and 3: the block's value (in thread 0).
    const T value = group_combine(acc, shared, lid);

#if LAST_GROUP
    // Phase 4 (LAST_GROUP = 1): thread 0 publishes the value in
    // scratch[1 + block], fences (release) and takes an arrival ticket from
    // scratch[0]; the block with the last ticket is the last to arrive, and
    // thread 0 tells the block in is_last. — barrier —
    __shared__ unsigned int is_last;
    if (lid == 0) {
        store_relaxed(&scratch[1 + blockIdx.x], to_bits(value));
        __threadfence();
        const unsigned int ticket = atomicAdd(&scratch[0], 1u);
        is_last = ticket == gridDim.x - 1 ? 1u : 0u;
    }
    __syncthreads();
    if (is_last == 0u) return;  // the whole block: not the last

    // Phase 5 (the last block): fence (acquire), then combine the blocks'
    // values in block order (thread lid takes lid, lid + GROUP_SIZE, ...)
    // and with the same tree: the order depends only on the grid, so the
    // result is deterministic. Thread 0 writes it and resets the counter for
    // the next launch (every block has taken its ticket). — barriers —
    __threadfence();
    T last = identity();
    for (unsigned int g = lid; g < gridDim.x; g += GROUP_SIZE) {
        last = combine(last, from_bits(load_relaxed(&scratch[1 + g])));
    }
    const T total = group_combine(last, shared, lid);
    if (lid == 0) {
        out[0] = total;
        store_relaxed(&scratch[0], 0u);
    }
#else
    // Last phase: thread 0 writes the block's value.
    if (lid == 0) out[blockIdx.x] = value;
#endif
}
