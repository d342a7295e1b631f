// Reduce — OpenCL C (see mod.rs for the algorithm and interface).
//
// Algorithm: grid-stride accumulation of 4-word vectors (then the scalar
// tail) into a private accumulator; a shared-memory tree per work-group,
// whose first levels are subgroup reductions when SUBGROUPS = 1 (one value
// per subgroup goes to shared memory); invocation 0 writes the group's
// value to out[group]. With LAST_GROUP = 1, invocation 0 publishes the
// value in the scratch buffer instead, and the last group to arrive
// combines every group's value and writes out[0].
// Shared memory: GROUP_SIZE words, the tree's scratch (`shared`, a __local
// array declared in the kernel, sized by the GROUP_SIZE define); with
// LAST_GROUP = 1 also is_last, the last-group flag.
// Barriers: after the accumulators (or the subgroups' values) are stored,
// and after each tree level; with LAST_GROUP = 1, after the flag is stored
// and in the last group's second tree. Every invocation reaches every
// barrier: the loops around them depend only on constants and the subgroup
// count, the branch around the last group's part on a value the whole
// group read from shared memory.
// SUBGROUPS = 1: each subgroup first combines its accumulators with
// sub_group_reduce_* (cl_khr_subgroups, cl_intel_subgroups or OpenCL C 3.0's
// __opencl_c_subgroups); subgroup size and count come from the builtins
// (32 on NVIDIA, the whole X dimension on PoCL, 8–32 on Intel), never assumed.
// LAST_GROUP = 1 needs a device-scope fence, which OpenCL C 1.2 lacks (its
// fences order one work-item's accesses only, spec 3.3.1): it is built only
// where the driver takes NVIDIA's inline PTX (ROSETTA_PTX_FENCE, defined by
// the backend after running the forms below on the device): `membar.gl`,
// with relaxed device-scope loads and stores of the scratch words, as the
// CUDA version does.

#if LAST_GROUP && !defined(ROSETTA_PTX_FENCE)
#error "LAST_GROUP = 1 needs a device-scope fence: not in OpenCL C 1.2 (NVIDIA's inline PTX has one)"
#endif

// The backend says which extension the device's subgroup built-ins come
// from (ROSETTA_SUBGROUPS_INTEL / _KHR; neither where OpenCL C 3.0's
// feature needs no pragma): enabling one the device does not list makes
// some compilers warn on stderr (PoCL 5, about cl_khr_subgroups).
#if SUBGROUPS
#if defined(ROSETTA_SUBGROUPS_INTEL)
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#elif defined(ROSETTA_SUBGROUPS_KHR)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
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

// identity: sum −0 (f32; x + −0 == x for every x, −0 included) / 0; min +Inf /
// i32::MAX / u32::MAX; max −Inf / i32::MIN / 0.
#if OP == 0 && ELEM == 0
#define IDENTITY as_float(0x80000000u)
#elif OP == 0
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
    // f32 min / max: the quiet NaN 0x7fc00000 if either operand is NaN
    // (whatever its payload: the same bits on every device), else the
    // smaller / larger.
    if (is_nan_bits(a) || is_nan_bits(b)) {
        return as_float(0x7fc00000u);
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
#if OP == 0 && ELEM == 0
    T sum = sub_group_reduce_add(acc);
    // A subgroup of −0s sums to −0, but drivers may add from +0 (lavapipe
    // does through Vulkan): any other zeros, or values, sum as they are.
    return sub_group_all(as_uint(acc) == 0x80000000u) ? as_float(0x80000000u) : sum;
#elif OP == 0
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

#if LAST_GROUP
// Device-scope relaxed accesses to the scratch buffer and the device fence
// (PTX: morally strong, so the fence orders them; plain accesses are not).
uint load_relaxed(__global const uint* word)
{
    uint value;
    __asm__ __volatile__("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"((ulong)word) : "memory");
    return value;
}
void store_relaxed(__global uint* word, uint value)
{
    __asm__ __volatile__("st.relaxed.gpu.global.u32 [%0], %1;" :: "l"((ulong)word), "r"(value) : "memory");
}
void device_fence(void)
{
    __asm__ __volatile__("membar.gl;" ::: "memory");
}
#endif

// A value's 32 bits, and back (the scratch buffer holds words).
#if ELEM == 0
#define TO_BITS(x) as_uint(x)
#define FROM_BITS(bits) as_float(bits)
#else
#define TO_BITS(x) ((uint)(x))
#define FROM_BITS(bits) ((T)(bits))
#endif

// Phases 2 and 3: the group's accumulators combined into one value, valid
// in invocation 0 (the same in the last group's second tree).
T group_combine(T acc, __local T* shared, uint lid)
{
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
    for (uint s = GROUP_SIZE / 2; s > 0; s >>= 1) {
        if (lid < s) {
            shared[lid] = combine(shared[lid], shared[lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    return lid == 0 ? shared[0] : acc;  // only invocation 0's is the group's
}

__kernel __attribute__((reqd_work_group_size(GROUP_SIZE, 1, 1)))
void reduce(__global const T* restrict input, __global T* restrict out,
            __global uint* scratch, uint n)  // scratch: used with LAST_GROUP = 1
{
    __local T shared[GROUP_SIZE];
    const uint group_size = GROUP_SIZE;
    const uint lid = get_local_id(0);
    const uint stride = get_num_groups(0) * group_size; // invocations in the grid
    const uint first = get_group_id(0) * group_size;    // t of this group's lid 0

    // Phase 1: grid-stride accumulation into a private accumulator. Vectors
    // first (4 elements each, one 16-byte load; unrolled by four so that
    // four independent loads are in flight), then the scalar tail.
    // Invocations of one row touch consecutive vectors (coalesced loads).
    T acc = IDENTITY;
    const uint vectors = n / 4;
    __global const T4* input4 = (__global const T4*)input;
    ulong v = first + lid;
    for (; v + 3 * (ulong)stride < vectors; v += 4 * (ulong)stride) {
        const T4 x0 = input4[v];
        const T4 x1 = input4[v + stride];
        const T4 x2 = input4[v + 2 * (ulong)stride];
        const T4 x3 = input4[v + 3 * (ulong)stride];
        acc = combine(acc, combine(combine(x0.x, x0.y), combine(x0.z, x0.w)));
        acc = combine(acc, combine(combine(x1.x, x1.y), combine(x1.z, x1.w)));
        acc = combine(acc, combine(combine(x2.x, x2.y), combine(x2.z, x2.w)));
        acc = combine(acc, combine(combine(x3.x, x3.y), combine(x3.z, x3.w)));
    }
    for (; v < vectors; v += stride) {
        const T4 x = input4[v];
        acc = combine(acc, combine(combine(x.x, x.y), combine(x.z, x.w)));
    }
    for (ulong i = (ulong)vectors * 4 + first + lid; i < n; i += stride) {
        acc = combine(acc, input[i]);
    }

    // Phases 2 and 3: the group's value (in invocation 0).
    const T value = group_combine(acc, shared, lid);

#if LAST_GROUP
    // Phase 4 (LAST_GROUP = 1): invocation 0 publishes the value in
    // scratch[1 + group], fences (release) and takes an arrival ticket from
    // scratch[0]; the group with the last ticket is the last to arrive, and
    // invocation 0 tells the group in is_last. — barrier —
    __local uint is_last;
    const uint groups = get_num_groups(0);
    if (lid == 0) {
        store_relaxed(&scratch[1 + get_group_id(0)], TO_BITS(value));
        device_fence();
        const uint ticket = atomic_add(&scratch[0], 1u);
        is_last = ticket == groups - 1 ? 1u : 0u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (is_last == 0u) {
        return;  // the whole group: not the last
    }

    // Phase 5 (the last group): fence (acquire), then combine the groups'
    // values in group order (invocation lid takes lid, lid + GROUP_SIZE, ...)
    // and with the same tree: the order depends only on the grid, so the
    // result is deterministic. Invocation 0 writes it and resets the counter
    // for the next launch (every group has taken its ticket). — barriers —
    device_fence();
    T last = IDENTITY;
    for (uint g = lid; g < groups; g += group_size) {
        last = combine(last, FROM_BITS(load_relaxed(&scratch[1 + g])));
    }
    const T total = group_combine(last, shared, lid);
    if (lid == 0) {
        out[0] = total;
        store_relaxed(&scratch[0], 0u);
    }
#else
    // Last phase: invocation 0 writes the group's value.
    if (lid == 0) {
        out[get_group_id(0)] = value;
    }
#endif
}
