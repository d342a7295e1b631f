# Reduce variants for Nsight Compute: each variant/grid a kernel of its own name, launched 5 times.
# Run from the checkout root: the variants are derived from kernels/reduce/reduce.cu (derive.py).
import cupy as cp, numpy as np
from derive import variants_source
src = variants_source()
variants = [('cur', ['UNROLL_LAST=0', 'FENCE_KIND=0', 'TICKET=0']), ('unroll', ['UNROLL_LAST=1', 'FENCE_KIND=0', 'TICKET=0']),
            ('unroll_acqrel', ['UNROLL_LAST=1', 'FENCE_KIND=1', 'TICKET=0']), ('unroll_ticket', ['UNROLL_LAST=1', 'FENCE_KIND=1', 'TICKET=1'])]
rng = np.random.default_rng(1)
for log2 in (16, 20, 22):
    n = 1 << log2
    x = cp.asarray(rng.random(n, dtype=np.float32)); ref = float(cp.asnumpy(x).astype(np.float64).sum()); out = cp.zeros(1, cp.float32)
    for name, ex in variants:
        for groups in sorted(set([min(1056, n // 1024), max(1, min(1056, n // 4096)), 132])):
            kname = 'r%d_%s_g%d' % (log2, name, groups)
            code = src.replace('reduce(const T*', kname + '(const T*')
            f = cp.RawModule(code=code, options=('--std=c++17', '-DGROUP_SIZE=256u', '-DELEM=0u', '-DOP=0u', '-DSUBGROUPS=1u', '-DLAST_GROUP=1u', *['-D' + e for e in ex])).get_function(kname)
            scratch = cp.zeros(2 + groups, cp.uint32)
            for _ in range(5): f((groups,), (256,), (x, out, scratch, np.uint32(n)))
            got = float(out.get()[0]); print(kname, 'ok' if abs(got - ref) <= 1e-5 * abs(ref) + 1e-3 else 'WRONG', flush=True)
