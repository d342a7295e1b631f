#version 450
// Histogram -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Shared memory: shared_counts, SHARED_BINS words (an array sized by the
// SHARED_BINS specialization constant), the workgroup's private histogram
// when SHARED_BINS == BINS; one unused word on the global-atomics path.
// (`shared` is a keyword in GLSL.)
// Barriers: after zeroing it, and after counting (before the merge).
// Atomics: atomicAdd on shared memory while counting, atomicAdd on the
// global counts when merging (or while counting, on the global path).

layout(constant_id = 0) const uint GROUP_SIZE = 256;
layout(constant_id = 1) const uint BINS = 256;
layout(constant_id = 2) const uint SHARED_BINS = 1; // BINS (privatized) or 1 (global atomics)
layout(constant_id = 3) const uint INPUT = 0; // 0 u32, 1 f32
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Values { uvec4 values[]; };
layout(set = 0, binding = 1) restrict buffer Counts { uint counts[]; };
layout(set = 0, binding = 2) restrict readonly buffer Edges { float edges[]; };
layout(push_constant) uniform Params {
    uint n;
    float lo;
    float hi;
    float scale;
} params;

shared uint shared_counts[SHARED_BINS];

const bool PRIVATIZED = SHARED_BINS == BINS;

// NaN by bits: compilers may fold `x != x`.
bool is_nan(uint bits) {
    return (bits & 0x7fffffffu) > 0x7f800000u;
}

// The order-preserving key of an f32's bits (-0 and +0 share one), as in
// reduce.comp: comparisons of x with lo, hi and the edges use keys, exact
// also where a device flushes subnormals in float comparisons.
uint ordered_key(uint bits) {
    bits = bits == 0x80000000u ? 0u : bits;
    return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

// The f32 binning rule of mod.rs: an f32 first guess, corrected against the
// edges by key. Returns BINS for values that are not counted (outside
// [lo, hi], NaN).
uint float_bin(uint word) {
    uint key = ordered_key(word);
    if (is_nan(word) || key < ordered_key(floatBitsToUint(params.lo))
            || key > ordered_key(floatBitsToUint(params.hi))) {
        return BINS;
    }
    float x = uintBitsToFloat(word);
    float guess = max(floor((x - params.lo) * params.scale), 0.0);
    uint i = uint(min(guess, float(BINS - 1u)));
    while (i > 0u && key < ordered_key(floatBitsToUint(edges[i]))) {
        i -= 1u;
    }
    while (i < BINS - 1u && key >= ordered_key(floatBitsToUint(edges[i + 1u]))) {
        i += 1u;
    }
    return i;
}

// The bin of one input word, or BINS if it is not counted.
uint bin_of(uint word) {
    if (INPUT == 1u) {
        return float_bin(word);
    }
    return word < BINS ? word : BINS;
}

void count(uint word) {
    uint bin = bin_of(word);
    if (bin < BINS) {
        if (PRIVATIZED) {
            atomicAdd(shared_counts[bin], 1u);
        } else {
            atomicAdd(counts[bin], 1u);
        }
    }
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = params.n;
    uint stride = GROUP_SIZE * gl_NumWorkGroups.x; // T: invocations in the grid
    uint first = gl_WorkGroupID.x * GROUP_SIZE; // t of this group's lid 0
    uint t = first + lid;

    // Phase 1 (privatized): zero the shared histogram. -- barrier --
    if (PRIVATIZED) {
        for (uint b = lid; b < BINS; b += GROUP_SIZE) {
            shared_counts[b] = 0u;
        }
        barrier();
    }

    // Phase 2: grid-stride over the values, vectors first, then the tail
    // from vector n/4 (the order of a vector's four words does not matter
    // for counting).
    uint vectors = n / 4u;
    for (uint v = t; v < vectors; v += stride) {
        uvec4 x = values[v];
        count(x.x);
        count(x.y);
        count(x.z);
        count(x.w);
    }
    for (uint i = vectors * 4u + t; i < n; i += stride) {
        count(values[i / 4u][i % 4u]);
    }

    // Phase 3 (privatized, after a barrier): merge non-zero bins into global
    // memory with atomics.
    if (PRIVATIZED) {
        barrier();
        for (uint b = lid; b < BINS; b += GROUP_SIZE) {
            uint c = shared_counts[b];
            if (c != 0u) {
                atomicAdd(counts[b], c);
            }
        }
    }
}
