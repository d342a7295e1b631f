// Litmus harness -- OpenCL C. Each test (mp.cl, sb.cl, lb.cl, corr.cl) is
// appended to this file; see mod.rs for the roles, locations, stress and the
// rule behind each expected outcome (common.wgsl / .rs / .comp / .cu are the
// same harness in the other languages).
//
// Roles: work-group `wg` plays role plan[wg]; roles below test_groups test,
// the others stress. Work-item `lid` of a testing role is thread 0 of
// instance id_0 and thread 1 of instance id_1: in its own work-group at SCOPE
// 0, in the partner role's work-group (role ^ 1) at SCOPE 1.
// Locations: x and y of an instance are STRIDE words apart, y permuted over
// the instances by y_mul; in local memory (wg_locs) at SCOPE 0, in `locs` at
// SCOPE 1.
// Which OpenCL C this is decides what the kernel can say (the backend picks
// -cl-std; the kernel reports what it got in scratch[0], see model()):
// - C11_ATOMICS: the accesses are OpenCL 2.0 atomics (atomic_load_explicit,
//   memory_order_relaxed, at work-group or device scope): OpenCL C 2.0, or
//   3.0 (at device scope with __opencl_c_atomic_scope_device). Otherwise
//   they are volatile loads and stores, and atomic_add / atomic_xchg.
// - DEVICE_FENCES: atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE,
//   memory_order_acq_rel, memory_scope_device): OpenCL C 2.0, or 3.0 with
//   __opencl_c_atomic_order_acq_rel and __opencl_c_atomic_scope_device.
//   Without it the SCOPE 1 SYNC 1 variant cannot be written (OpenCL 1.2 gives
//   no consistency between work-groups): the kernel skips the test and the
//   host reports the variant unsupported.
// Sync points (sync_point()): SCOPE 0 with SYNC 1: barrier(CLK_LOCAL_MEM_FENCE).
// SCOPE 1 with SYNC 1: the device-scope fence above. SYNC 0: nothing.
// Barriers: one after the prologue (local locations zeroed, pre-stress, the
// spin), plus the sync points at SCOPE 0 with SYNC 1. Every barrier is reached
// by the whole work-group: `role` is the same for all its work-items.
// Constants (-D NAME=valueu): GROUP_SIZE, SCOPE (0 work-group / local memory,
// 1 device / global memory across work-groups), SYNC (1 synchronised, 0
// relaxed), STRIDE, SHARED_WORDS (2 * GROUP_SIZE * STRIDE at SCOPE 0, else 1).

#ifdef __OPENCL_C_VERSION__
#define C_VERSION __OPENCL_C_VERSION__
#else
#define C_VERSION 100
#endif

#if C_VERSION >= 200 && C_VERSION < 300
#define C11_ATOMICS 1
#define DEVICE_FENCES 1
#elif C_VERSION >= 300
#if SCOPE == 0 || defined(__opencl_c_atomic_scope_device)
#define C11_ATOMICS 1
#else
#define C11_ATOMICS 0
#endif
#if defined(__opencl_c_atomic_scope_device) && defined(__opencl_c_atomic_order_acq_rel)
#define DEVICE_FENCES 1
#else
#define DEVICE_FENCES 0
#endif
#else
#define C11_ATOMICS 0
#define DEVICE_FENCES 0
#endif

// What this kernel can run, for the host (spec.rs, OpenClModel): bit 31
// present, bit 16 C11_ATOMICS, bit 17 DEVICE_FENCES, bits 0-15 the version.
#define MODEL (0x80000000u | (C11_ATOMICS << 16) | (DEVICE_FENCES << 17) | C_VERSION)
// The test cannot be written in this OpenCL C.
#define SKIP_TEST (SCOPE == 1 && SYNC == 1 && !DEVICE_FENCES)

// What record() adds to a result word: one per write (the host checks that
// every word was written exactly once).
#define WRITTEN 0x10000u
// Stress loads are compared with this (never reached; it keeps them alive).
#define NEVER 0x40000000u
// Words per spin counter (one cache line); role pair p's is at
// SPIN_WORDS * (1 + p) of scratch.
#define SPIN_WORDS 16u

#if SCOPE == 0
#define LOC_SPACE __local
#define MEM_SCOPE memory_scope_work_group
#else
#define LOC_SPACE __global
#define MEM_SCOPE memory_scope_device
#endif

// The kernel arguments: the four buffers, then the params (mod.rs).
#define LITMUS_ARGS                                                             \
    __global uint* locs, __global uint* results, __global const uint* plan,     \
        __global uint* scratch,                                                 \
        uint test_groups,  /* testing roles (even at SCOPE 1) */               \
        uint groups,       /* work-groups launched; plan[groups + wg] */       \
        uint local_mul,    /* odd: permutes the work-items of a role */        \
        uint y_mul,        /* coprime with the instance count */               \
        uint stress_iters, /* per work-item of a stressing work-group */       \
        uint pre_iters,    /* per testing work-item, before the test */        \
        uint pattern,      /* 0 st-st, 1 st-ld, 2 ld-st, 3 ld-ld */            \
        uint spin_iters    /* bound of the wait for the partner */

// The launch as one work-item sees it.
typedef struct {
    LOC_SPACE uint* loc; // the test locations: wg_locs (SCOPE 0) or locs
    __global uint* results;
    __global const uint* plan;
    __global uint* scratch;
    uint test_groups, groups, local_mul, y_mul;
    uint stress_iters, pre_iters, pattern, spin_iters;
} Litmus;

#define LITMUS_INIT(loc)                                                        \
    { loc, results, plan, scratch, test_groups, groups, local_mul, y_mul,       \
      stress_iters, pre_iters, pattern, spin_iters }

// The test locations of this launch (wg_locs is declared in each kernel).
#if SCOPE == 0
#define LOCATIONS wg_locs
#else
#define LOCATIONS locs
#endif

// One work-item's two instances and their locations.
typedef struct {
    uint id_0; // the instance it is thread 0 of
    uint id_1; // the instance it is thread 1 of
    uint x_0, y_0, x_1, y_1;
} At;

At locations(const Litmus* t, uint role, uint lid)
{
    const uint local_1 = lid * t->local_mul % GROUP_SIZE;
    At a;
    uint n, k_0, k_1;
#if SCOPE == 0
    a.id_0 = role * GROUP_SIZE + lid;
    a.id_1 = role * GROUP_SIZE + local_1;
    n = GROUP_SIZE;
    k_0 = lid;
    k_1 = local_1;
#else
    a.id_0 = role * GROUP_SIZE + lid;
    a.id_1 = (role ^ 1u) * GROUP_SIZE + local_1;
    n = t->test_groups * GROUP_SIZE;
    k_0 = a.id_0;
    k_1 = a.id_1;
#endif
    a.x_0 = k_0 * 2u * STRIDE;
    a.y_0 = (k_0 * t->y_mul % n) * 2u * STRIDE + STRIDE;
    a.x_1 = k_1 * 2u * STRIDE;
    a.y_1 = (k_1 * t->y_mul % n) * 2u * STRIDE + STRIDE;
    return a;
}

// Relaxed load / store of a test location; a load / store that synchronised
// variants make read-modify-writes.
#if C11_ATOMICS
#define ATOMIC(p) ((volatile LOC_SPACE atomic_uint*)(p))
uint ld(const Litmus* t, uint i)
{
    return atomic_load_explicit(ATOMIC(t->loc + i), memory_order_relaxed, MEM_SCOPE);
}
void st(const Litmus* t, uint i, uint value)
{
    atomic_store_explicit(ATOMIC(t->loc + i), value, memory_order_relaxed, MEM_SCOPE);
}
uint rmw_ld(const Litmus* t, uint i)
{
    return atomic_fetch_add_explicit(ATOMIC(t->loc + i), 0u, memory_order_relaxed, MEM_SCOPE);
}
void rmw_st(const Litmus* t, uint i, uint value)
{
    atomic_exchange_explicit(ATOMIC(t->loc + i), value, memory_order_relaxed, MEM_SCOPE);
}
#else
uint ld(const Litmus* t, uint i)
{
    return *(volatile LOC_SPACE uint*)(t->loc + i);
}
void st(const Litmus* t, uint i, uint value)
{
    *(volatile LOC_SPACE uint*)(t->loc + i) = value;
}
uint rmw_ld(const Litmus* t, uint i)
{
    return atomic_add((volatile LOC_SPACE uint*)(t->loc + i), 0u);
}
void rmw_st(const Litmus* t, uint i, uint value)
{
    atomic_xchg((volatile LOC_SPACE uint*)(t->loc + i), value);
}
#endif

uint sync_ld(const Litmus* t, uint i)
{
#if SYNC
    return rmw_ld(t, i);
#else
    return ld(t, i);
#endif
}

void sync_st(const Litmus* t, uint i, uint value)
{
#if SYNC
    rmw_st(t, i, value);
#else
    st(t, i, value);
#endif
}

void sync_point(void)
{
#if SYNC && SCOPE == 0
    barrier(CLK_LOCAL_MEM_FENCE);
#elif SYNC && DEVICE_FENCES
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_device);
#endif
}

// Result `which` (0: r0, 1: r1) of `instance`.
void record(const Litmus* t, uint instance, uint which, uint value)
{
    atomic_add((volatile __global uint*)&t->results[2u * instance + which], WRITTEN + value);
}

// `iters` iterations of the stress pattern on scratch[at].
void stress(const Litmus* t, uint iters, uint at)
{
    volatile __global uint* word = &t->scratch[at];
    if (t->pattern == 0u) {
        for (uint i = 0; i < iters; i++) {
            *word = i;
            *word = i + 1u;
        }
    } else if (t->pattern == 1u) {
        for (uint i = 0; i < iters; i++) {
            *word = i;
            if (*word > NEVER) break;
        }
    } else if (t->pattern == 2u) {
        for (uint i = 0; i < iters; i++) {
            if (*word > NEVER) break;
            *word = i;
        }
    } else {
        for (uint i = 0; i < iters; i++) {
            if (*word > NEVER || *word > NEVER) break;
        }
    }
}

// Work-item 0's bounded wait for the partner work-group: count this one in,
// then poll until both are in or spin_iters polls have passed.
void spin(const Litmus* t, uint counter)
{
    volatile __global uint* word = &t->scratch[counter];
    uint seen = atomic_add(word, 1u) + 1u;
    for (uint i = 0; i < t->spin_iters && seen < 2u; i++) {
        seen = atomic_add(word, 0u);
    }
}

// Report MODEL; whether this OpenCL C can run the test (see SKIP_TEST).
bool model(const Litmus* t, uint lid, uint wg)
{
    if (lid == 0u && wg == 0u) {
        *(volatile __global uint*)&t->scratch[0] = MODEL;
    }
    return !SKIP_TEST;
}

// Zero the local locations, pre-stress, and at SCOPE 1 let work-item 0 wait
// for the partner work-group, so that the two run the test together.
// -- barrier --
void prologue(const Litmus* t, __local uint* wg_locs, uint role, uint lid, uint wg)
{
    for (uint i = lid; i < SHARED_WORDS; i += GROUP_SIZE) {
        wg_locs[i] = 0u;
    }
    if (role < t->test_groups) {
        stress(t, t->pre_iters, t->plan[t->groups + wg]);
        if (SCOPE == 1 && lid == 0u) {
            spin(t, SPIN_WORDS * (1u + role / 2u));
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}
