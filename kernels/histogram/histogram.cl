// Histogram — OpenCL C (see mod.rs for the algorithm and interface).
//
// Algorithm: privatized (SHARED_BINS == BINS, variant `shared`): each
// workgroup zeroes a shared histogram, counts its grid-stride share of the
// values into it with local atomics, then adds its non-zero bins to the
// global counts with global atomics. Global atomics (SHARED_BINS == 1,
// variant `global-atomics`): the same loop adds to the global counts
// directly. Values: u32 words, f32 words, or u8 bytes four to a word.
// Shared memory: SHARED_BINS words, the workgroup's private histogram (the
// trailing `__local` argument, sized by the launch).
// Barriers (privatized): after zeroing, and after counting (before the merge).
// Atomics: atomic_add on __local uint while counting; atomic_add on
// __global uint when merging (or while counting, on the global path).

#pragma OPENCL FP_CONTRACT OFF

#define PRIVATIZED (SHARED_BINS == BINS)

// The order-preserving key of an f32's bits (−0 and +0 share one), as in
// reduce.cl: comparisons of x with lo, hi and the edges use keys, exact also
// where a device flushes subnormals in float comparisons.
uint ordered_key(uint bits)
{
    bits = bits == 0x80000000u ? 0u : bits;
    return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

uint edge_key(__global const float* restrict edges, uint i)
{
    return ordered_key(as_uint(edges[i]));
}

// The f32 binning rule of mod.rs: an f32 first guess, a bracket around it,
// then binary search by key (at most ceil(log2(BINS)) steps). Returns BINS
// for values that are not counted (outside [lo, hi], NaN).
uint float_bin(uint word, float lo, float hi, float scale, __global const float* restrict edges)
{
    const uint key = ordered_key(word);
    if ((word & 0x7fffffffu) > 0x7f800000u || key < ordered_key(as_uint(lo))
            || key > ordered_key(as_uint(hi))) {
        return BINS;
    }
    const float guess = max(floor((as_float(word) - lo) * scale), 0.0f);
    // min(u32(guess), BINS − 1), without converting an out-of-range float.
    const uint g = guess < (float)BINS ? min((uint)guess, BINS - 1u) : BINS - 1u;
    // [a, b): edges[a] <= x, and b == BINS or x < edges[b].
    uint a = 0u;
    uint b = BINS;
    if (key >= edge_key(edges, g)) {
        a = g;
        if (g + 1u < BINS && key < edge_key(edges, g + 1u)) {
            b = g + 1u;
        }
    } else {
        b = g;
        if (g > 0u && key >= edge_key(edges, g - 1u)) {
            a = g - 1u;
        }
    }
    while (b - a > 1u) {
        const uint m = a + (b - a) / 2u;
        if (key >= edge_key(edges, m)) {
            a = m;
        } else {
            b = m;
        }
    }
    return a;
}

// The bin of one u32 or f32 value word, or BINS when it is not counted.
uint bin_of(uint word, float lo, float hi, float scale, __global const float* restrict edges)
{
#if INPUT == 1
    return float_bin(word, lo, hi, scale, edges);
#else
    return word < BINS ? word : BINS;
#endif
}

// Add k to a bin (bins >= BINS are not counted): a local atomic
// (privatized) or a global one.
void add(uint bin, uint k, __local uint* shared, __global uint* restrict counts)
{
    if (bin < BINS) {
#if PRIVATIZED
        atomic_add(&shared[bin], k);
#else
        atomic_add(&counts[bin], k);
#endif
    }
}

// The four u8 values of a word (one atomic when they are equal).
void count_bytes(uint word, __local uint* shared, __global uint* restrict counts)
{
    const uint b0 = word & 0xffu;
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
void count_word(uint word, float lo, float hi, float scale, __global const float* restrict edges,
                __local uint* shared, __global uint* restrict counts)
{
#if INPUT == 2
    count_bytes(word, shared, counts);
#else
    add(bin_of(word, lo, hi, scale, edges), 1u, shared, counts);
#endif
}

// One 4-word vector (one atomic when all its values share a bin).
void count_vector(uint4 x, float lo, float hi, float scale, __global const float* restrict edges,
                  __local uint* shared, __global uint* restrict counts)
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
    const uint b0 = bin_of(x.x, lo, hi, scale, edges);
    const uint b1 = bin_of(x.y, lo, hi, scale, edges);
    const uint b2 = bin_of(x.z, lo, hi, scale, edges);
    const uint b3 = bin_of(x.w, lo, hi, scale, edges);
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

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void histogram(__global const uint* restrict values, __global uint* restrict counts,
               __global const float* restrict edges, uint n, float lo, float hi, float scale,
               __local uint* shared)
{
    const uint group_size = GROUP_SIZE;
    const uint lid = get_local_id(0);
    const uint stride = get_num_groups(0) * group_size;  // T: invocations in the grid (>= 4)
    const uint t = get_group_id(0) * group_size + lid;

#if PRIVATIZED
    // Phase 1 (privatized): zero the shared histogram. — barrier —
    for (uint b = lid; b < BINS; b += group_size) {
        shared[b] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif

    // Phase 2: grid-stride over the 4-word vectors, then the < 4 tail words
    // (one per invocation t < words % 4), then (u8) the first n % 4 bytes of
    // the partial word. The order of values does not matter for counting.
    const uint words = INPUT == 2 ? n / 4u : n;  // whole words
    const uint vectors = words / 4u;
    __global const uint4* values4 = (__global const uint4*)values;
    for (uint v = t; v < vectors; v += stride) {
        count_vector(values4[v], lo, hi, scale, edges, shared, counts);
    }
    if (t < words % 4u) {
        count_word(values[vectors * 4u + t], lo, hi, scale, edges, shared, counts);
    }
#if INPUT == 2
    if (t == 0u && n % 4u != 0u) {
        const uint word = values[words];
        const uint rest = n % 4u;
        add(word & 0xffu, 1u, shared, counts);
        if (rest > 1u) {
            add((word >> 8) & 0xffu, 1u, shared, counts);
        }
        if (rest > 2u) {
            add((word >> 16) & 0xffu, 1u, shared, counts);
        }
    }
#endif

#if PRIVATIZED
    // Phase 3 (privatized, after a barrier): merge non-zero bins into global
    // memory with atomics.
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < BINS; b += group_size) {
        const uint c = shared[b];
        if (c != 0) {
            atomic_add(&counts[b], c);
        }
    }
#endif
}
