// Histogram — CUDA C, compiled by NVRTC (see mod.rs for the algorithm and interface).
//
// Algorithm: privatized (SHARED_BINS == BINS, variant `shared`): each block
// zeroes a shared histogram, counts its grid-stride share of the values into
// it with shared atomics, then adds its non-zero bins to the global counts
// with global atomics. Global atomics (SHARED_BINS == 1, variant
// `global-atomics`): the same loop adds to the global counts directly.
// Values: u32 words, f32 words, or u8 bytes four to a word.
// Shared memory: shared[SHARED_BINS] words, dynamic (extern __shared__,
// sized by the launch; the backend raises the limit past 48 KB).
// Barriers (privatized): after zeroing, and after counting (before the merge).
// Atomics: atomicAdd on shared memory while counting, atomicAdd on the
// global counts when merging (or while counting, on the global path).
// Constants (-D NAME=valueu): GROUP_SIZE, BINS, SHARED_BINS, INPUT (0 u32, 1 f32, 2 u8).

#define PRIVATIZED (SHARED_BINS == BINS)
// Enough blocks per SM to fill it (2048 threads on sm_80/sm_90).
#define MIN_BLOCKS (GROUP_SIZE >= 64u ? 2048u / GROUP_SIZE : 32u)

// The order-preserving key of an f32's bits (-0 and +0 share one), as in
// reduce.cu: comparisons of x with lo, hi and the edges use keys, exact also
// where a device flushes subnormals in float comparisons.
__forceinline__ unsigned int ordered_key(unsigned int bits)
{
    bits = bits == 0x80000000u ? 0u : bits;
    return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

__forceinline__ unsigned int edge_key(const float* __restrict__ edges, unsigned int i)
{
    return ordered_key(__float_as_uint(edges[i]));
}

// The f32 binning rule of mod.rs: an f32 first guess, a bracket around it,
// then binary search by key (at most ceil(log2(BINS)) steps). Returns BINS
// for values not counted (outside [lo, hi], NaN).
__forceinline__ unsigned int float_bin(unsigned int word, float lo, float hi, float scale,
                                      const float* __restrict__ edges)
{
    const unsigned int key = ordered_key(word);
    if ((word & 0x7fffffffu) > 0x7f800000u || key < ordered_key(__float_as_uint(lo))
        || key > ordered_key(__float_as_uint(hi)))
        return BINS;
    // One subtraction, one multiplication, each rounded (no FMA contraction).
    const float guess = fmaxf(floorf(__fmul_rn(__fsub_rn(__uint_as_float(word), lo), scale)), 0.0f);
    // Saturating conversion; the integer min keeps g in range.
    const unsigned int g = min(__float2uint_rz(fminf(guess, (float)(BINS - 1u))), BINS - 1u);
    // [a, b): edges[a] <= x, and b == BINS or x < edges[b].
    unsigned int a = 0u, b = BINS;
    if (key >= edge_key(edges, g)) {
        a = g;
        if (g + 1u < BINS && key < edge_key(edges, g + 1u)) b = g + 1u;
    } else {
        b = g;
        if (g > 0u && key >= edge_key(edges, g - 1u)) a = g - 1u;
    }
    while (b - a > 1u) {
        const unsigned int m = a + (b - a) / 2u;
        if (key >= edge_key(edges, m)) a = m; else b = m;
    }
    return a;
}

// The bin of one u32 or f32 value word, or BINS when it is not counted.
__forceinline__ unsigned int bin_of(unsigned int word, float lo, float hi, float scale,
                                   const float* __restrict__ edges)
{
#if INPUT == 1
    return float_bin(word, lo, hi, scale, edges);
#else
    return word < BINS ? word : BINS;
#endif
}

// Add k to a bin (bins >= BINS are not counted): a shared atomic
// (privatized) or a global one.
__forceinline__ void add(unsigned int bin, unsigned int k, unsigned int* shared,
                        unsigned int* __restrict__ counts)
{
    if (bin < BINS) {
#if PRIVATIZED
        atomicAdd(&shared[bin], k);
#else
        atomicAdd(&counts[bin], k);
#endif
    }
}

// The four u8 values of a word (one atomic when they are equal).
__forceinline__ void count_bytes(unsigned int word, unsigned int* shared,
                                unsigned int* __restrict__ counts)
{
    const unsigned int b0 = word & 0xffu;
    if (word == b0 * 0x01010101u) {
        add(b0, 4u, shared, counts);
        return;
    }
    add(b0, 1u, shared, counts);
    add((word >> 8) & 0xffu, 1u, shared, counts);
    add((word >> 16) & 0xffu, 1u, shared, counts);
    add(word >> 24, 1u, shared, counts);
}

// One whole word of input.
__forceinline__ void count_word(unsigned int word, float lo, float hi, float scale,
                               const float* __restrict__ edges, unsigned int* shared,
                               unsigned int* __restrict__ counts)
{
#if INPUT == 2
    count_bytes(word, shared, counts);
#else
    add(bin_of(word, lo, hi, scale, edges), 1u, shared, counts);
#endif
}

// One 4-word vector (one atomic when all its values share a bin).
__forceinline__ void count_vector(uint4 x, float lo, float hi, float scale,
                                 const float* __restrict__ edges, unsigned int* shared,
                                 unsigned int* __restrict__ counts)
{
#if INPUT == 2
    if (x.x == x.y && x.x == x.z && x.x == x.w && x.x == (x.x & 0xffu) * 0x01010101u) {
        add(x.x & 0xffu, 16u, shared, counts);
        return;
    }
    count_bytes(x.x, shared, counts);
    count_bytes(x.y, shared, counts);
    count_bytes(x.z, shared, counts);
    count_bytes(x.w, shared, counts);
#else
    const unsigned int b0 = bin_of(x.x, lo, hi, scale, edges);
    const unsigned int b1 = bin_of(x.y, lo, hi, scale, edges);
    const unsigned int b2 = bin_of(x.z, lo, hi, scale, edges);
    const unsigned int b3 = bin_of(x.w, lo, hi, scale, edges);
    if (b0 == b1 && b0 == b2 && b0 == b3) {
        add(b0, 4u, shared, counts);
        return;
    }
    add(b0, 1u, shared, counts);
    add(b1, 1u, shared, counts);
    add(b2, 1u, shared, counts);
    add(b3, 1u, shared, counts);
#endif
}

extern "C" __global__ void __launch_bounds__(GROUP_SIZE, MIN_BLOCKS)
histogram(const unsigned int* __restrict__ values, unsigned int* __restrict__ counts,
          const float* __restrict__ edges, unsigned int n, float lo, float hi, float scale)
{
    extern __shared__ unsigned int shared[];  // SHARED_BINS words
    const unsigned int lid = threadIdx.x;
    const size_t stride = (size_t)GROUP_SIZE * gridDim.x;  // T: threads in the grid (>= 4)
    const size_t t = (size_t)blockIdx.x * GROUP_SIZE + lid;

#if PRIVATIZED
    // Phase 1 (privatized): zero the shared histogram. — barrier —
    for (unsigned int b = lid; b < BINS; b += GROUP_SIZE) shared[b] = 0;
    __syncthreads();
#endif

    // Phase 2: grid-stride over the 4-word vectors (two 16-byte loads in
    // flight per thread), then the < 4 tail words (one per thread t <
    // words % 4), then (u8) the first n % 4 bytes of the partial word. The
    // order of values does not matter for counting.
    const size_t words = INPUT == 2 ? n / 4u : n;  // whole words
    const size_t vectors = words / 4u;
    const uint4* __restrict__ values4 = reinterpret_cast<const uint4*>(values);
    size_t v = t;
    for (; v + stride < vectors; v += 2 * stride) {
        const uint4 x0 = values4[v];
        const uint4 x1 = values4[v + stride];
        count_vector(x0, lo, hi, scale, edges, shared, counts);
        count_vector(x1, lo, hi, scale, edges, shared, counts);
    }
    for (; v < vectors; v += stride) {
        count_vector(values4[v], lo, hi, scale, edges, shared, counts);
    }
    if (t < words % 4u) {
        count_word(values[vectors * 4u + t], lo, hi, scale, edges, shared, counts);
    }
#if INPUT == 2
    if (t == 0 && n % 4u != 0u) {
        const unsigned int word = values[words];
        const unsigned int rest = n % 4u;
        add(word & 0xffu, 1u, shared, counts);
        if (rest > 1u) add((word >> 8) & 0xffu, 1u, shared, counts);
        if (rest > 2u) add((word >> 16) & 0xffu, 1u, shared, counts);
    }
#endif

#if PRIVATIZED
    // Phase 3 (privatized, after a barrier): merge the non-zero bins into
    // global memory with atomics.
    __syncthreads();
    for (unsigned int b = lid; b < BINS; b += GROUP_SIZE) {
        const unsigned int c = shared[b];
        if (c != 0) atomicAdd(&counts[b], c);
    }
#endif
}
