// Reduce — OpenCL C (see mod.rs for the algorithm and interface).
//
// Shared memory: GROUP_SIZE words, the tree's scratch (`shared`, a __local
// array declared in the kernel, sized by the GROUP_SIZE define).
// Barriers: after the accumulators are stored, and after each tree level.
// SUBGROUPS = 1: each subgroup first combines its accumulators with
// sub_group_reduce_* (cl_khr_subgroups, cl_intel_subgroups or OpenCL C 3.0's
// __opencl_c_subgroups), one value per subgroup goes to shared memory, and
// the tree runs over those; subgroup size and count come from the builtins
// (32 on NVIDIA, the whole X dimension on PoCL, 8–32 on Intel), never assumed.

// LAST_GROUP (one launch, the last work-group combining the others' values)
// needs a device-scope fence, which OpenCL C 1.2 lacks (its fences order one
// work-item's accesses only, spec 3.3.1): the plan never sets it here.
#if LAST_GROUP
#error "LAST_GROUP = 1 needs a device-scope fence: not in OpenCL C 1.2"
#endif

#if SUBGROUPS
#if defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#elif defined(cl_intel_subgroups)
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#elif !defined(__opencl_c_subgroups)
#error "SUBGROUPS = 1 needs cl_khr_subgroups, cl_intel_subgroups or __opencl_c_subgroups"
#endif
#endif

// T: the type `combine` works on. i32 sums use uint arithmetic (the same bits,
// and wrapping is defined for unsigned types only).
#if ELEM == 0
typedef float T;
typedef float4 T4;
#elif ELEM == 1 && OP != 0
typedef int T;
typedef int4 T4;
#else
typedef uint T;
typedef uint4 T4;
#endif

// identity: sum 0; min +Inf / i32::MAX / u32::MAX; max −Inf / i32::MIN / 0.
#if OP == 0
#define IDENTITY ((T)0)
#elif OP == 1 && ELEM == 0
#define IDENTITY as_float(0x7f800000u)
#elif OP == 1 && ELEM == 1
#define IDENTITY INT_MAX
#elif OP == 1
#define IDENTITY UINT_MAX
#elif ELEM == 0
#define IDENTITY as_float(0xff800000u)
#elif ELEM == 1
#define IDENTITY INT_MIN
#else
#define IDENTITY 0u
#endif

// NaN by its bits: fast-math compilers may fold `x != x` to false.
bool is_nan_bits(float x)
{
    return (as_uint(x) & 0x7fffffffu) > 0x7f800000u;
}

// The total-order key of an f32's bits: keys compare as the floats do, and
// -0 below +0 (IEEE 754's minimum / maximum), so min and max give the same
// bits whatever the order of combining; exact also where a device flushes
// subnormals in float comparisons. from_key inverts it.
uint total_key(uint bits)
{
    return (bits & 0x80000000u) != 0u ? ~bits : (bits | 0x80000000u);
}

uint from_key(uint key)
{
    return (key & 0x80000000u) != 0u ? (key & 0x7fffffffu) : ~key;
}

T combine(T a, T b)
{
#if OP == 0
    return a + b;
#elif ELEM == 0
    // f32 min / max: NaN if either operand is NaN, else the smaller / larger.
    if (is_nan_bits(a)) {
        return a;
    }
    if (is_nan_bits(b)) {
        return b;
    }
    // Ordered by key, not float comparison: exact with subnormals too.
#if OP == 1
    return total_key(as_uint(b)) < total_key(as_uint(a)) ? b : a;
#else
    return total_key(as_uint(b)) > total_key(as_uint(a)) ? b : a;
#endif
#elif OP == 1
    return min(a, b);
#else
    return max(a, b);
#endif
}

#if SUBGROUPS
// The subgroup's combined accumulators (the same value in every invocation).
T subgroup_combine(T acc)
{
#if OP == 0
    return sub_group_reduce_add(acc);
#elif ELEM == 0
    // f32 min / max over the keys (exact with subnormals); NaN first, as the
    // keys do not order it.
    if (sub_group_any(is_nan_bits(acc))) {
        return as_float(0x7fc00000u);
    }
#if OP == 1
    return as_float(from_key(sub_group_reduce_min(total_key(as_uint(acc)))));
#else
    return as_float(from_key(sub_group_reduce_max(total_key(as_uint(acc)))));
#endif
#elif OP == 1
    return sub_group_reduce_min(acc);
#else
    return sub_group_reduce_max(acc);
#endif
}
#endif

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void reduce(__global const T* restrict input, __global T* restrict out,
            __global uint* scratch, uint n)  // scratch: unused here (LAST_GROUP)
{
    __local T shared[GROUP_SIZE];
    const uint group_size = GROUP_SIZE;
    const uint lid = get_local_id(0);
    const uint stride = get_num_groups(0) * group_size; // invocations in the grid
    const uint first = get_group_id(0) * group_size;    // t of this group's lid 0

    // Phase 1: grid-stride accumulation into a private accumulator. Vectors
    // first (4 elements each, one 16-byte load), then the scalar tail.
    // Invocations of one row touch consecutive vectors (coalesced loads).
    T acc = IDENTITY;
    const uint vectors = n / 4;
    __global const T4* input4 = (__global const T4*)input;
    for (uint v = first + lid; v < vectors; v += stride) {
        const T4 x = input4[v];
        acc = combine(acc, combine(combine(x.x, x.y), combine(x.z, x.w)));
    }
    for (ulong i = (ulong)vectors * 4 + first + lid; i < n; i += stride) {
        acc = combine(acc, input[i]);
    }

#if SUBGROUPS
    // Phase 2 (subgroups): each subgroup combines its accumulators; its
    // first invocation stores the result at shared[subgroup id]. — barrier —
    const T partial = subgroup_combine(acc);
    if (get_sub_group_local_id() == 0) {
        shared[get_sub_group_id()] = partial;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // Phase 3..: the shared-memory tree over the `count` subgroup values,
    // one barrier per level (`count` need not be a power of two).
    const uint count = get_num_sub_groups();
    uint top = 1;
    while (top < count) {
        top <<= 1;
    }
    for (uint s = top / 2; s > 0; s >>= 1) {
        if (lid < s && lid + s < count) {
            shared[lid] = combine(shared[lid], shared[lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#else
    // Phase 2: accumulators to shared memory. — barrier —
    shared[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);

    // Phase 3..: the shared-memory tree, one barrier per level.
    for (uint s = group_size / 2; s > 0; s >>= 1) {
        if (lid < s) {
            shared[lid] = combine(shared[lid], shared[lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif

    // Last phase: invocation 0 writes the group's value.
    if (lid == 0) {
        out[get_group_id(0)] = shared[0];
    }
}
