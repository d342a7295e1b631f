#version 450
// Reduce -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Values travel as their 32-bit patterns (uint); `combine` and `identity`
// reinterpret them by ELEM and OP, which are specialization constants, so the
// branches fold away when the pipeline is built.
//
// Shared memory: shared_values, GROUP_SIZE words (an array sized by the
// GROUP_SIZE specialization constant), the tree's scratch. (`shared` is a
// keyword in GLSL.)
// Barriers: after the accumulators (or the subgroups' values) are stored,
// and after each tree level.
// Subgroups (SUBGROUPS = 1): GL_KHR_shader_subgroup_arithmetic, compiled in
// when the backend defines HAVE_SUBGROUPS (devices with subgroup arithmetic
// in compute shaders), so this source builds on every device. The subgroup
// size comes from gl_SubgroupSize / gl_NumSubgroups, never assumed.

#ifdef HAVE_SUBGROUPS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(constant_id = 0) const uint GROUP_SIZE = 256;
layout(constant_id = 1) const uint ELEM = 0; // 0 f32, 1 i32, 2 u32
layout(constant_id = 2) const uint OP = 0; // 0 sum, 1 min, 2 max
layout(constant_id = 3) const uint SUBGROUPS = 0;
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Input { uvec4 input_vectors[]; };
layout(set = 0, binding = 1) restrict buffer Out { uint out_values[]; };
layout(push_constant) uniform Params { uint n; } params;

shared uint shared_values[GROUP_SIZE];

// NaN by bits: compilers may fold `x != x`.
bool is_nan(uint bits) {
    return (bits & 0x7fffffffu) > 0x7f800000u;
}

// The order-preserving key of an f32's bits (-0 and +0 share one): keys
// compare exactly as the floats do, also where a device flushes subnormals
// in float comparisons (NVIDIA does). from_key inverts it.
uint ordered_key(uint bits) {
    bits = bits == 0x80000000u ? 0u : bits;
    return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

uint from_key(uint key) {
    return (key & 0x80000000u) != 0u ? (key & 0x7fffffffu) : ~key;
}

// sum 0; min +Inf / i32::MAX / u32::MAX; max -Inf / i32::MIN / 0.
uint identity() {
    if (OP == 0u) {
        return 0u;
    }
    if (OP == 1u) {
        return ELEM == 0u ? 0x7f800000u : (ELEM == 1u ? 0x7fffffffu : 0xffffffffu);
    }
    return ELEM == 0u ? 0xff800000u : (ELEM == 1u ? 0x80000000u : 0u);
}

uint combine(uint a, uint b) {
    if (OP == 0u) {
        if (ELEM == 0u) {
            return floatBitsToUint(uintBitsToFloat(a) + uintBitsToFloat(b));
        }
        return a + b; // i32 and u32: wrapping addition of the same bits
    }
    if (ELEM == 0u) {
        // f32 min / max: NaN if either operand is NaN.
        if (is_nan(a) || is_nan(b)) {
            return is_nan(a) ? a : b;
        }
        // Ordered by key, not float comparison: exact with subnormals too.
        uint ka = ordered_key(a);
        uint kb = ordered_key(b);
        bool take_b = OP == 1u ? kb < ka : kb > ka;
        return take_b ? b : a;
    }
    if (ELEM == 1u) {
        int ia = int(a);
        int ib = int(b);
        return uint(OP == 1u ? min(ia, ib) : max(ia, ib));
    }
    return OP == 1u ? min(a, b) : max(a, b);
}

// combine over the four words of a vector.
uint combine4(uvec4 x) {
    return combine(combine(x.x, x.y), combine(x.z, x.w));
}

#ifdef HAVE_SUBGROUPS
// combine over the invocations of this invocation's subgroup.
uint subgroup_combine(uint x) {
    if (OP == 0u) {
        if (ELEM == 0u) {
            return floatBitsToUint(subgroupAdd(uintBitsToFloat(x)));
        }
        return subgroupAdd(x);
    }
    if (ELEM == 0u) {
        // Subgroup float min/max need not propagate NaN: test for it first
        // (a max over 0/1 flags, which needs only the arithmetic feature).
        if (subgroupMax(is_nan(x) ? 1u : 0u) != 0u) {
            return 0x7fc00000u;
        }
        uint key = ordered_key(x);
        return from_key(OP == 1u ? subgroupMin(key) : subgroupMax(key));
    }
    if (ELEM == 1u) {
        int ix = int(x);
        return uint(OP == 1u ? subgroupMin(ix) : subgroupMax(ix));
    }
    return OP == 1u ? subgroupMin(x) : subgroupMax(x);
}
#endif

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint n = params.n;
    uint stride = GROUP_SIZE * gl_NumWorkGroups.x; // T: invocations in the grid
    uint first = gl_WorkGroupID.x * GROUP_SIZE; // t of this group's lid 0
    uint t = first + lid;

    // Phase 1: grid-stride accumulation into a private accumulator. Vectors
    // first (4 elements each; unrolled by four so that four independent
    // loads are in flight), then the scalar tail from vector n/4.
    uint acc = identity();
    uint vectors = n / 4u;
    uint v = t;
    for (; v + 3u * stride < vectors; v += 4u * stride) {
        uvec4 x0 = input_vectors[v];
        uvec4 x1 = input_vectors[v + stride];
        uvec4 x2 = input_vectors[v + 2u * stride];
        uvec4 x3 = input_vectors[v + 3u * stride];
        acc = combine(acc, combine(combine(combine4(x0), combine4(x1)), combine(combine4(x2), combine4(x3))));
    }
    for (; v < vectors; v += stride) {
        acc = combine(acc, combine4(input_vectors[v]));
    }
    for (uint i = vectors * 4u + t; i < n; i += stride) {
        acc = combine(acc, input_vectors[i / 4u][i % 4u]);
    }

    // Phase 2: one value per tree leaf in shared memory. -- barrier --
    // Without subgroups every invocation is a leaf; with them each subgroup
    // first combines its values and its first invocation stores one leaf.
    uint leaves = GROUP_SIZE;
#ifdef HAVE_SUBGROUPS
    if (SUBGROUPS == 1u) {
        uint value = subgroup_combine(acc);
        if (subgroupElect()) {
            shared_values[gl_SubgroupID] = value;
        }
        leaves = gl_NumSubgroups;
    } else {
        shared_values[lid] = acc;
    }
#else
    shared_values[lid] = acc;
#endif
    barrier();

    // Phase 3..: the shared-memory tree over the leaves, one barrier per
    // level (`leaves` need not be a power of two: the first level folds the
    // upper part onto the lower one).
    uint s = 1u;
    while (s < leaves) {
        s *= 2u;
    }
    for (s /= 2u; s > 0u; s /= 2u) {
        if (lid < s && lid + s < leaves) {
            shared_values[lid] = combine(shared_values[lid], shared_values[lid + s]);
        }
        barrier();
    }

    // Last phase: invocation 0 writes the group's value.
    if (lid == 0u) {
        out_values[gl_WorkGroupID.x] = shared_values[0];
    }
}
