// Litmus harness -- CUDA C, compiled by NVRTC. Each test (mp.cu, sb.cu,
// lb.cu, corr.cu) is appended to this file; see mod.rs for the roles,
// locations, stress and the rule behind each expected outcome (common.wgsl /
// .rs / .comp / .cl are the same harness in the other languages).
//
// Roles: block `wg` plays role plan[wg]; roles below test_groups test, the
// others stress. Thread `lid` of a testing role is thread 0 of instance id_0
// and thread 1 of instance id_1: in its own block at SCOPE 0, in the partner
// role's block (role ^ 1) at SCOPE 1.
// Locations: x and y of an instance are STRIDE words apart, y permuted over
// the instances by y_mul; in shared memory (wg_locs) at SCOPE 0, in `locs` at
// SCOPE 1. Every access to them is a PTX relaxed atomic at the variant's
// scope (ld.relaxed.cta / .gpu, st.relaxed.*, inline PTX: sm_70 and later).
// Not `volatile`: ptxas (CUDA 13.0, sm_90) was seen to swap the values of two
// back-to-back ld.volatile of one address (CoRR's two reads), which these
// tests must not depend on.
// Sync points (sync_point()): SCOPE 0 with SYNC 1: __syncthreads(). SCOPE 1
// with SYNC 1: __threadfence() (fence.sc.gpu). SYNC 0: nothing.
// Barriers: one after the prologue (shared locations zeroed, pre-stress, the
// spin), plus the sync points at SCOPE 0 with SYNC 1. Every __syncthreads()
// is reached by the whole block: `role` is the same for all its threads.
// Constants (-D NAME=valueu): GROUP_SIZE, SCOPE (0 workgroup / shared memory,
// 1 device / global memory across blocks), SYNC (1 synchronised, 0 relaxed),
// STRIDE, SHARED_WORDS (2 * GROUP_SIZE * STRIDE at SCOPE 0, else 1).

// What record() adds to a result word: one per write (the host checks that
// every word was written exactly once).
#define WRITTEN 0x10000u
// Stress loads are compared with this (never reached; it keeps them alive).
#define NEVER 0x40000000u
// Words per spin counter (one cache line); role pair p's is at
// SPIN_WORDS * (1 + p) of scratch.
#define SPIN_WORDS 16u

// The kernel arguments: the four buffers, then the params (mod.rs).
#define LITMUS_ARGS                                                             \
    unsigned int* locs, unsigned int* results, const unsigned int* plan,        \
        unsigned int* scratch,                                                  \
        unsigned int test_groups,  /* testing roles (even at SCOPE 1) */       \
        unsigned int groups,       /* blocks launched; plan[groups + wg] */    \
        unsigned int local_mul,    /* odd: permutes the threads of a role */   \
        unsigned int y_mul,        /* coprime with the instance count */       \
        unsigned int stress_iters, /* per thread of a stressing block */       \
        unsigned int pre_iters,    /* per testing thread, before the test */   \
        unsigned int pattern,      /* 0 st-st, 1 st-ld, 2 ld-st, 3 ld-ld */    \
        unsigned int spin_iters    /* bound of the wait for the partner */

// The launch as one thread sees it.
struct Litmus {
    unsigned int* loc; // the test locations: wg_locs (SCOPE 0) or locs
    unsigned int* results;
    const unsigned int* plan;
    unsigned int* scratch;
    unsigned int test_groups, groups, local_mul, y_mul;
    unsigned int stress_iters, pre_iters, pattern, spin_iters;
};

#define LITMUS_INIT(loc)                                                        \
    { loc, results, plan, scratch, test_groups, groups, local_mul, y_mul,       \
      stress_iters, pre_iters, pattern, spin_iters }

__shared__ unsigned int wg_locs[SHARED_WORDS];

// One thread's two instances and their locations.
struct At {
    unsigned int id_0; // the instance it is thread 0 of
    unsigned int id_1; // the instance it is thread 1 of
    unsigned int x_0, y_0, x_1, y_1;
};

__device__ At locations(const Litmus& t, unsigned int role, unsigned int lid)
{
    const unsigned int local_1 = lid * t.local_mul % GROUP_SIZE;
    At a;
    unsigned int n, k_0, k_1;
#if SCOPE == 0
    a.id_0 = role * GROUP_SIZE + lid;
    a.id_1 = role * GROUP_SIZE + local_1;
    n = GROUP_SIZE;
    k_0 = lid;
    k_1 = local_1;
#else
    a.id_0 = role * GROUP_SIZE + lid;
    a.id_1 = (role ^ 1u) * GROUP_SIZE + local_1;
    n = t.test_groups * GROUP_SIZE;
    k_0 = a.id_0;
    k_1 = a.id_1;
#endif
    a.x_0 = k_0 * 2u * STRIDE;
    a.y_0 = (k_0 * t.y_mul % n) * 2u * STRIDE + STRIDE;
    a.x_1 = k_1 * 2u * STRIDE;
    a.y_1 = (k_1 * t.y_mul % n) * 2u * STRIDE + STRIDE;
    return a;
}

// The PTX scope of the test locations' accesses: the block (shared memory)
// or the GPU.
#if SCOPE == 0
#define PTX_SCOPE "cta"
#else
#define PTX_SCOPE "gpu"
#endif

// Relaxed atomic load / store of a test location (generic addressing: the
// locations are shared or global memory).
__device__ __forceinline__ unsigned int ld(const Litmus& t, unsigned int i)
{
    unsigned int value;
    asm volatile("ld.relaxed." PTX_SCOPE ".u32 %0, [%1];" : "=r"(value) : "l"(&t.loc[i]) : "memory");
    return value;
}

__device__ __forceinline__ void st(const Litmus& t, unsigned int i, unsigned int value)
{
    asm volatile("st.relaxed." PTX_SCOPE ".u32 [%0], %1;" ::"l"(&t.loc[i]), "r"(value) : "memory");
}

// A load / store that synchronised variants make read-modify-writes.
__device__ __forceinline__ unsigned int sync_ld(const Litmus& t, unsigned int i)
{
#if SYNC
    return atomicAdd(&t.loc[i], 0u);
#else
    return ld(t, i);
#endif
}

__device__ __forceinline__ void sync_st(const Litmus& t, unsigned int i, unsigned int value)
{
#if SYNC
    atomicExch(&t.loc[i], value);
#else
    st(t, i, value);
#endif
}

__device__ __forceinline__ void sync_point()
{
#if SYNC && SCOPE == 0
    __syncthreads();
#elif SYNC
    __threadfence();
#endif
}

// Result `which` (0: r0, 1: r1) of `instance`.
__device__ __forceinline__ void record(const Litmus& t, unsigned int instance, unsigned int which,
                                       unsigned int value)
{
    atomicAdd(&t.results[2u * instance + which], WRITTEN + value);
}

// `iters` iterations of the stress pattern on scratch[at].
__device__ void stress(const Litmus& t, unsigned int iters, unsigned int at)
{
    volatile unsigned int* word = &t.scratch[at];
    if (t.pattern == 0u) {
        for (unsigned int i = 0; i < iters; i++) {
            *word = i;
            *word = i + 1u;
        }
    } else if (t.pattern == 1u) {
        for (unsigned int i = 0; i < iters; i++) {
            *word = i;
            if (*word > NEVER) break;
        }
    } else if (t.pattern == 2u) {
        for (unsigned int i = 0; i < iters; i++) {
            if (*word > NEVER) break;
            *word = i;
        }
    } else {
        for (unsigned int i = 0; i < iters; i++) {
            if (*word > NEVER || *word > NEVER) break;
        }
    }
}

// Thread 0's bounded wait for the partner block: count this one in, then poll
// until both are in or spin_iters polls have passed.
__device__ void spin(const Litmus& t, unsigned int counter)
{
    unsigned int seen = atomicAdd(&t.scratch[counter], 1u) + 1u;
    for (unsigned int i = 0; i < t.spin_iters && seen < 2u; i++) {
        seen = atomicAdd(&t.scratch[counter], 0u);
    }
}

// Zero the shared locations, pre-stress, and at SCOPE 1 let thread 0 wait for
// the partner block, so that the two run the test together. -- barrier --
__device__ void prologue(const Litmus& t, unsigned int role, unsigned int lid, unsigned int wg)
{
    for (unsigned int i = lid; i < SHARED_WORDS; i += GROUP_SIZE) {
        wg_locs[i] = 0u;
    }
    if (role < t.test_groups) {
        stress(t, t.pre_iters, t.plan[t.groups + wg]);
        if (SCOPE == 1 && lid == 0u) {
            spin(t, SPIN_WORDS * (1u + role / 2u));
        }
    }
    __syncthreads();
}

// The test locations of this launch.
#if SCOPE == 0
#define LOCATIONS wg_locs
#else
#define LOCATIONS locs
#endif
