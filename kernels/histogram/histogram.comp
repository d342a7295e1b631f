#version 450
// Histogram -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Algorithm: privatized (SHARED_BINS == BINS, variant `shared`): each
// workgroup zeroes a shared histogram, counts its grid-stride share of the
// values into it with shared atomics, then adds its non-zero bins to the
// global counts with global atomics. Global atomics (SHARED_BINS == 1,
// variant `global-atomics`): the same loop adds to the global counts
// directly. Values: u32 words, f32 words, or u8 bytes four to a word.
// Shared memory: shared_counts, SHARED_BINS words (an array sized by the
// SHARED_BINS specialization constant), the workgroup's private histogram
// when SHARED_BINS == BINS; one unused word on the global-atomics path.
// (`shared` is a keyword in GLSL.)
// Barriers (privatized): after zeroing, and after counting (before the merge).
// Atomics: atomicAdd on shared memory while counting, atomicAdd on the
// global counts when merging (or while counting, on the global path).

layout(constant_id = 0) const uint GROUP_SIZE = 256;
layout(constant_id = 1) const uint BINS = 256;
layout(constant_id = 2) const uint SHARED_BINS = 1; // BINS (privatized) or 1 (global atomics)
layout(constant_id = 3) const uint INPUT = 0; // 0 u32, 1 f32, 2 u8
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Values { uvec4 values[]; };
layout(set = 0, binding = 1) restrict buffer Counts { uint counts[]; };
layout(set = 0, binding = 2) restrict readonly buffer Edges { float edges[]; };
layout(push_constant) uniform Params {
    uint n; // values (u8: bytes)
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

uint edge_key(uint i) {
    return ordered_key(floatBitsToUint(edges[i]));
}

// The f32 binning rule of mod.rs: an f32 first guess, a bracket around it,
// then binary search by key (at most ceil(log2(BINS)) steps). Returns BINS
// for values that are not counted (outside [lo, hi], NaN).
uint float_bin(uint word) {
    uint key = ordered_key(word);
    if (is_nan(word) || key < ordered_key(floatBitsToUint(params.lo))
            || key > ordered_key(floatBitsToUint(params.hi))) {
        return BINS;
    }
    float guess = max(floor((uintBitsToFloat(word) - params.lo) * params.scale), 0.0);
    uint g = min(uint(min(guess, float(BINS - 1u))), BINS - 1u);
    // [a, b): edges[a] <= x, and b == BINS or x < edges[b].
    uint a = 0u;
    uint b = BINS;
    if (key >= edge_key(g)) {
        a = g;
        if (g + 1u < BINS && key < edge_key(g + 1u)) {
            b = g + 1u;
        }
    } else {
        b = g;
        if (g > 0u && key >= edge_key(g - 1u)) {
            a = g - 1u;
        }
    }
    while (b - a > 1u) {
        uint m = a + (b - a) / 2u;
        if (key >= edge_key(m)) {
            a = m;
        } else {
            b = m;
        }
    }
    return a;
}

// The bin of one u32 or f32 value word, or BINS if it is not counted.
uint bin_of(uint word) {
    if (INPUT == 1u) {
        return float_bin(word);
    }
    return word < BINS ? word : BINS;
}

// Add k to a bin (bins >= BINS are not counted).
void add(uint bin, uint k) {
    if (bin < BINS) {
        if (PRIVATIZED) {
            atomicAdd(shared_counts[bin], k);
        } else {
            atomicAdd(counts[bin], k);
        }
    }
}

// The four u8 values of a word (one atomic when they are equal).
void count_bytes(uint word) {
    uint b0 = word & 0xffu;
    if (word == b0 * 0x01010101u) {
        add(b0, 4u);
        return;
    }
    add(b0, 1u);
    add((word >> 8u) & 0xffu, 1u);
    add((word >> 16u) & 0xffu, 1u);
    add(word >> 24u, 1u);
}

// One whole word of input.
void count_word(uint word) {
    if (INPUT == 2u) {
        count_bytes(word);
    } else {
        add(bin_of(word), 1u);
    }
}

// One 4-word vector (one atomic when all its values share a bin).
void count_vector(uvec4 x) {
    if (INPUT == 2u) {
        if (all(equal(x, uvec4(x.x))) && x.x == (x.x & 0xffu) * 0x01010101u) {
            add(x.x & 0xffu, 16u);
            return;
        }
        count_bytes(x.x);
        count_bytes(x.y);
        count_bytes(x.z);
        count_bytes(x.w);
        return;
    }
    uvec4 b = uvec4(bin_of(x.x), bin_of(x.y), bin_of(x.z), bin_of(x.w));
    if (all(equal(b, uvec4(b.x)))) {
        add(b.x, 4u);
        return;
    }
    add(b.x, 1u);
    add(b.y, 1u);
    add(b.z, 1u);
    add(b.w, 1u);
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = params.n;
    uint stride = GROUP_SIZE * gl_NumWorkGroups.x; // T: invocations in the grid (>= 4)
    uint t = gl_WorkGroupID.x * GROUP_SIZE + lid;

    // Phase 1 (privatized): zero the shared histogram. -- barrier --
    if (PRIVATIZED) {
        for (uint b = lid; b < BINS; b += GROUP_SIZE) {
            shared_counts[b] = 0u;
        }
        barrier();
    }

    // Phase 2: grid-stride over the 4-word vectors, then the < 4 tail words
    // (one per invocation t < words % 4), then (u8) the first n % 4 bytes of
    // the partial word. The order of values does not matter for counting.
    uint words = INPUT == 2u ? n / 4u : n; // whole words
    uint vectors = words / 4u;
    for (uint v = t; v < vectors; v += stride) {
        count_vector(values[v]);
    }
    if (t < words % 4u) {
        count_word(values[vectors][t]);
    }
    if (INPUT == 2u && t == 0u && n % 4u != 0u) {
        uint word = values[words / 4u][words % 4u];
        uint rest = n % 4u;
        add(word & 0xffu, 1u);
        if (rest > 1u) {
            add((word >> 8u) & 0xffu, 1u);
        }
        if (rest > 2u) {
            add((word >> 16u) & 0xffu, 1u);
        }
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
