// Histogram — OpenCL C (see mod.rs for the algorithm and interface).
//
// Shared memory: SHARED_BINS words, the workgroup's private histogram (the
// trailing `__local` argument, sized by the launch).
// Barriers: after zeroing it, and after counting (before the merge); the
// global-atomics path (SHARED_BINS = 1) has none.
// Atomics: atomic_inc on __local uint while counting; atomic_add on
// __global uint when merging (or atomic_inc on __global uint on the
// global-atomics path).

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

// The f32 binning rule of mod.rs: an f32 first guess, corrected against the
// edges by key. Returns BINS for values that are not counted (outside
// [lo, hi], NaN).
uint float_bin(uint word, float lo, float hi, float scale, __global const float* restrict edges)
{
    const uint key = ordered_key(word);
    if ((word & 0x7fffffffu) > 0x7f800000u || key < ordered_key(as_uint(lo))
            || key > ordered_key(as_uint(hi))) {
        return BINS;
    }
    const float guess = max(floor((as_float(word) - lo) * scale), 0.0f);
    // min(u32(guess), BINS − 1), without converting an out-of-range float.
    uint i = guess < (float)BINS ? min((uint)guess, BINS - 1u) : BINS - 1u;
    while (i > 0 && key < ordered_key(as_uint(edges[i]))) {
        i -= 1;
    }
    while (i < BINS - 1u && key >= ordered_key(as_uint(edges[i + 1]))) {
        i += 1;
    }
    return i;
}

// The bin of one input word, or BINS when it is not counted.
uint bin_of(uint word, float lo, float hi, float scale, __global const float* restrict edges)
{
#if INPUT == 1
    return float_bin(word, lo, hi, scale, edges);
#else
    return word < BINS ? word : BINS;
#endif
}

void count(uint word, float lo, float hi, float scale, __global const float* restrict edges,
           __global uint* restrict counts, __local uint* shared)
{
    const uint bin = bin_of(word, lo, hi, scale, edges);
    if (bin < BINS) {
#if PRIVATIZED
        atomic_inc(&shared[bin]);
#else
        atomic_inc(&counts[bin]);
#endif
    }
}

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void histogram(__global const uint* restrict values, __global uint* restrict counts,
               __global const float* restrict edges, uint n, float lo, float hi, float scale,
               __local uint* shared)
{
    const uint group_size = GROUP_SIZE;
    const uint lid = get_local_id(0);

#if PRIVATIZED
    // Phase 1 (privatized): zero the shared histogram. — barrier —
    for (uint b = lid; b < BINS; b += group_size) {
        shared[b] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif

    // Phase 2: grid-stride over the values, vectors first (one uint4 load,
    // four counts), then the tail.
    const uint stride = get_num_groups(0) * group_size;
    const uint first = get_group_id(0) * group_size;
    const uint vectors = n / 4;
    __global const uint4* values4 = (__global const uint4*)values;
    for (uint v = first + lid; v < vectors; v += stride) {
        const uint4 w = values4[v];
        count(w.x, lo, hi, scale, edges, counts, shared);
        count(w.y, lo, hi, scale, edges, counts, shared);
        count(w.z, lo, hi, scale, edges, counts, shared);
        count(w.w, lo, hi, scale, edges, counts, shared);
    }
    for (ulong i = (ulong)vectors * 4 + first + lid; i < n; i += stride) {
        count(values[i], lo, hi, scale, edges, counts, shared);
    }

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
