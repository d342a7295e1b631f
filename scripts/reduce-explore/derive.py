# kernels/reduce/reduce.cu with the switches of the variants measured on 2026-11-24 and not kept, derived from
# the kernel when redncu.py runs (no copy kept; that day's copy is `git show b3bdfad:scripts/reduce-explore/reduce_x.cu`):
#   UNROLL_LAST=1  the last group loads four values before combining them
#   FENCE_KIND=1   fence.acq_rel.gpu instead of __threadfence()
#   TICKET=1       the arrival ticket an atom.acq_rel.gpu add, no separate fence
KERNEL = 'kernels/reduce/reduce.cu'


def _replace(src, old, new):
    if src.count(old) != 1:
        raise SystemExit('derive.py: kernels/reduce/reduce.cu no longer has the text to patch once:\n' + old)
    return src.replace(old, new)


def variants_source():
    src = open(KERNEL).read()
    src = _replace(src, '''        __threadfence();
        const unsigned int ticket = atomicAdd(&scratch[0], 1u);''', '''#if TICKET == 0
        FENCE();
        const unsigned int ticket = atomicAdd(&scratch[0], 1u);
#else
        unsigned int ticket;
        asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(ticket) : "l"(&scratch[0]) : "memory");
#endif''')
    src = _replace(src, '''    __threadfence();
    T last = identity();
    for (unsigned int g = lid; g < gridDim.x; g += GROUP_SIZE) {
        last = combine(last, from_bits(load_relaxed(&scratch[1 + g])));
    }''', '''    FENCE();
    T last = identity();
#if UNROLL_LAST
    unsigned int g = lid;
    for (; g + 3 * GROUP_SIZE < gridDim.x; g += 4 * GROUP_SIZE) {
        const unsigned int w0 = load_relaxed(&scratch[1 + g]);
        const unsigned int w1 = load_relaxed(&scratch[1 + g + GROUP_SIZE]);
        const unsigned int w2 = load_relaxed(&scratch[1 + g + 2 * GROUP_SIZE]);
        const unsigned int w3 = load_relaxed(&scratch[1 + g + 3 * GROUP_SIZE]);
        last = combine(last, from_bits(w0));
        last = combine(last, from_bits(w1));
        last = combine(last, from_bits(w2));
        last = combine(last, from_bits(w3));
    }
    for (; g < gridDim.x; g += GROUP_SIZE) {
        last = combine(last, from_bits(load_relaxed(&scratch[1 + g])));
    }
#else
    for (unsigned int g = lid; g < gridDim.x; g += GROUP_SIZE) {
        last = combine(last, from_bits(load_relaxed(&scratch[1 + g])));
    }
#endif''')
    fence = '''#if FENCE_KIND == 0
#define FENCE() __threadfence()
#else
#define FENCE() asm volatile("fence.acq_rel.gpu;" ::: "memory")
#endif
'''
    return _replace(src, '// Device-scope relaxed accesses to the scratch buffer', fence + '// Device-scope relaxed accesses to the scratch buffer')
