// Histogram — CUDA C, compiled by NVRTC (see mod.rs for the algorithm and interface).
//
// Algorithm: privatized (SHARED_BINS == BINS): each block zeroes a shared
// histogram, counts its grid-stride share of the values into it with shared
// atomics, then adds its non-zero bins to the global counts with global
// atomics. Global atomics (SHARED_BINS == 1): the same loop adds to the
// global counts directly.
// Shared memory: shared[SHARED_BINS] words, dynamic (extern __shared__,
// sized by the launch; the backend raises the limit past 48 KB).
// Barriers (privatized): after zeroing, and after counting (before the merge).
// Constants (-D NAME=valueu): GROUP_SIZE, BINS, SHARED_BINS, INPUT (0 u32, 1 f32).

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

// The f32 binning rule of mod.rs: an f32 first guess, corrected against the
// edges by key. Returns BINS for values not counted (outside [lo, hi], NaN).
__forceinline__ unsigned int float_bin(unsigned int word, float lo, float hi, float scale, const float* __restrict__ edges)
{
    const unsigned int key = ordered_key(word);
    if ((word & 0x7fffffffu) > 0x7f800000u || key < ordered_key(__float_as_uint(lo))
        || key > ordered_key(__float_as_uint(hi)))
        return BINS;
    // One subtraction, one multiplication, each rounded (no FMA contraction).
    const float guess = floorf(__fmul_rn(__fsub_rn(__uint_as_float(word), lo), scale));
    unsigned int i = min(__float2uint_rz(guess), BINS - 1u);  // saturating conversion
    while (i > 0 && key < ordered_key(__float_as_uint(edges[i]))) i -= 1;
    while (i < BINS - 1u && key >= ordered_key(__float_as_uint(edges[i + 1]))) i += 1;
    return i;
}

// The bin of one value word, or BINS when it is not counted.
__forceinline__ unsigned int bin_of(unsigned int word, float lo, float hi, float scale, const float* __restrict__ edges)
{
#if INPUT == 1
    return float_bin(word, lo, hi, scale, edges);
#else
    return word < BINS ? word : BINS;
#endif
}

// Count one value: a shared atomic (privatized) or a global one.
__forceinline__ void count(unsigned int bin, unsigned int* shared, unsigned int* __restrict__ counts)
{
    if (bin < BINS) {
#if PRIVATIZED
        atomicAdd(&shared[bin], 1u);
#else
        atomicAdd(&counts[bin], 1u);
#endif
    }
}

extern "C" __global__ void __launch_bounds__(GROUP_SIZE, MIN_BLOCKS)
histogram(const unsigned int* __restrict__ values, unsigned int* __restrict__ counts,
          const float* __restrict__ edges, unsigned int n, float lo, float hi, float scale)
{
    extern __shared__ unsigned int shared[];  // SHARED_BINS words
    const unsigned int lid = threadIdx.x;

#if PRIVATIZED
    // Phase 1: zero the shared histogram. — barrier —
    for (unsigned int b = lid; b < BINS; b += GROUP_SIZE) shared[b] = 0;
    __syncthreads();
#endif

    // Phase 2: grid-stride over the values, vectors first (two 16-byte loads
    // in flight per thread), then the scalar tail. The order of a vector's
    // four words does not matter for counting.
    const size_t stride = (size_t)GROUP_SIZE * gridDim.x;  // T: threads in the grid
    const size_t first = (size_t)blockIdx.x * GROUP_SIZE;  // t of this block's lid 0
    const size_t vectors = n / 4u;
    const uint4* __restrict__ values4 = reinterpret_cast<const uint4*>(values);
    size_t row = first + lid;
    for (; row + stride < vectors; row += 2 * stride) {
        const uint4 v0 = values4[row];
        const uint4 v1 = values4[row + stride];
        count(bin_of(v0.x, lo, hi, scale, edges), shared, counts);
        count(bin_of(v0.y, lo, hi, scale, edges), shared, counts);
        count(bin_of(v0.z, lo, hi, scale, edges), shared, counts);
        count(bin_of(v0.w, lo, hi, scale, edges), shared, counts);
        count(bin_of(v1.x, lo, hi, scale, edges), shared, counts);
        count(bin_of(v1.y, lo, hi, scale, edges), shared, counts);
        count(bin_of(v1.z, lo, hi, scale, edges), shared, counts);
        count(bin_of(v1.w, lo, hi, scale, edges), shared, counts);
    }
    for (; row < vectors; row += stride) {
        const uint4 v = values4[row];
        count(bin_of(v.x, lo, hi, scale, edges), shared, counts);
        count(bin_of(v.y, lo, hi, scale, edges), shared, counts);
        count(bin_of(v.z, lo, hi, scale, edges), shared, counts);
        count(bin_of(v.w, lo, hi, scale, edges), shared, counts);
    }
    for (size_t i = vectors * 4 + first + lid; i < n; i += stride) {
        count(bin_of(values[i], lo, hi, scale, edges), shared, counts);
    }

#if PRIVATIZED
    // Phase 3 (after a barrier): merge the non-zero bins into global memory
    // with atomics.
    __syncthreads();
    for (unsigned int b = lid; b < BINS; b += GROUP_SIZE) {
        const unsigned int c = shared[b];
        if (c != 0) atomicAdd(&counts[b], c);
    }
#endif
}
