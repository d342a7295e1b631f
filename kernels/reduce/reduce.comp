#version 450
#extension GL_KHR_memory_scope_semantics : require
// Reduce -- GLSL for Vulkan (see mod.rs for the algorithm and interface).
//
// Values travel as their 32-bit patterns (uint); `combine` and `identity`
// reinterpret them by ELEM and OP, which are specialization constants, so the
// branches fold away when the pipeline is built.
//
// Shared memory: shared_values, GROUP_SIZE words (an array sized by the
// GROUP_SIZE specialization constant), the tree's scratch. (`shared` is a
// keyword in GLSL.)
// With LAST_GROUP = 1 also is_last, the last-group flag.
// Barriers: after the accumulators (or the subgroups' values) are stored,
// and after each tree level; with LAST_GROUP = 1, after the flag is stored
// and in the last group's second tree (the branch around it is uniform: the
// whole group reads the flag from shared memory).
// Fences (LAST_GROUP = 1): memoryBarrier(device, buffer, acquire-release)
// before the arrival ticket and in the last group after it, the release and
// acquire that make the published values visible to the last group. (The
// shader keeps the GLSL450 memory model, as the litmus tests do: device
// scope needs no vulkanMemoryModel feature there.)
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
layout(constant_id = 4) const uint LAST_GROUP = 0;
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) restrict readonly buffer Input { uvec4 input_vectors[]; };
layout(set = 0, binding = 1) restrict buffer Out { uint out_values[]; };
layout(set = 0, binding = 2) coherent buffer Scratch { uint scratch[]; };
layout(push_constant) uniform Params { uint n; } params;

shared uint shared_values[GROUP_SIZE];
shared uint is_last;

// NaN by bits: compilers may fold `x != x`.
bool is_nan(uint bits) {
    return (bits & 0x7fffffffu) > 0x7f800000u;
}

// The total-order key of an f32's bits: keys compare as the floats do, and
// -0 below +0 (IEEE 754's minimum / maximum), so min and max give the same
// bits whatever the order of combining; exact also where a device flushes
// subnormals in float comparisons. from_key inverts it.
uint total_key(uint bits) {
    return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

uint from_key(uint key) {
    return (key & 0x80000000u) != 0u ? (key & 0x7fffffffu) : ~key;
}

// sum -0 (f32; x + -0 == x for every x, -0 included) / 0; min +Inf /
// i32::MAX / u32::MAX; max -Inf / i32::MIN / 0.
uint identity() {
    if (OP == 0u) {
        return ELEM == 0u ? 0x80000000u : 0u;
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
        // f32 min / max: the quiet NaN 0x7fc00000 if either operand is NaN
        // (whatever its payload: the same bits on every device).
        if (is_nan(a) || is_nan(b)) {
            return 0x7fc00000u;
        }
        // Ordered by key, not float comparison: exact with subnormals too.
        uint ka = total_key(a);
        uint kb = total_key(b);
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
            float sum = subgroupAdd(uintBitsToFloat(x));
            // A subgroup of -0s sums to -0, but drivers may add from +0
            // (lavapipe does): any other zeros, or values, sum as they are.
            // (A min over 0/1 flags: the arithmetic feature only.)
            if (subgroupMin(x == 0x80000000u ? 1u : 0u) == 1u) {
                return 0x80000000u;
            }
            return floatBitsToUint(sum);
        }
        return subgroupAdd(x);
    }
    if (ELEM == 0u) {
        // Subgroup float min/max need not propagate NaN: test for it first
        // (a max over 0/1 flags, which needs only the arithmetic feature).
        if (subgroupMax(is_nan(x) ? 1u : 0u) != 0u) {
            return 0x7fc00000u;
        }
        uint key = total_key(x);
        return from_key(OP == 1u ? subgroupMin(key) : subgroupMax(key));
    }
    if (ELEM == 1u) {
        int ix = int(x);
        return uint(OP == 1u ? subgroupMin(ix) : subgroupMax(ix));
    }
    return OP == 1u ? subgroupMin(x) : subgroupMax(x);
}
#endif

// Phases 2 and 3: the group's accumulators combined into one value, valid
// in invocation 0 (the same in the last group's second tree).
uint group_combine(uint acc, uint lid) {
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
    return lid == 0u ? shared_values[0] : acc; // only invocation 0's is the group's
}

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

    // Phases 2 and 3: the group's value (in invocation 0).
    uint value = group_combine(acc, lid);

    if (LAST_GROUP == 1u) {
        // Phase 4 (LAST_GROUP = 1): invocation 0 publishes the value in
        // scratch[1 + group], fences (release) and takes an arrival ticket
        // from scratch[0]; the group with the last ticket is the last to
        // arrive, and invocation 0 tells the group in is_last. -- barrier --
        uint groups = gl_NumWorkGroups.x;
        if (lid == 0u) {
            atomicStore(scratch[1u + gl_WorkGroupID.x], value, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
            memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
            uint ticket = atomicAdd(scratch[0], 1u);
            is_last = ticket == groups - 1u ? 1u : 0u;
        }
        barrier();
        if (is_last == 0u) {
            return; // the whole group: not the last
        }

        // Phase 5 (the last group): fence (acquire), then combine the
        // groups' values in group order (invocation lid takes lid,
        // lid + GROUP_SIZE, ...) with the same tree: the order depends only
        // on the grid, so the result is deterministic. Invocation 0 writes
        // it and resets the counter for the next launch (every group has
        // taken its ticket). -- barriers --
        memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
        uint last = identity();
        for (uint g = lid; g < groups; g += GROUP_SIZE) {
            last = combine(last, atomicLoad(scratch[1u + g], gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed));
        }
        uint total = group_combine(last, lid);
        if (lid == 0u) {
            out_values[0] = total;
            atomicStore(scratch[0], 0u, gl_ScopeDevice, gl_StorageSemanticsNone, gl_SemanticsRelaxed);
        }
        return;
    }

    // Last phase: invocation 0 writes the group's value.
    if (lid == 0u) {
        out_values[gl_WorkGroupID.x] = value;
    }
}
