# One 4096^3 product for Nsight Compute to profile (see README.md):
#   ncu --set full -k regex:'matmul|gemm' python3 scripts/matmul-explore/profile.py cublas
#   ncu --set full -k regex:matmul python3 scripts/matmul-explore/profile.py SOURCE.cu|derive:NAME TM,TN,TK,THM,THN [DEFINE ...]
import cupy as cp, numpy as np, sys
from derive import source  # derive:NAME forms of kernels/matmul/matmul.cu

m = n = k = 4096
a = cp.random.standard_normal((m, k), dtype=cp.float32); b = cp.random.standard_normal((k, n), dtype=cp.float32)
c = cp.empty((m, n), cp.float32)
if sys.argv[1] == 'cublas':
    cp.matmul(a, b, out=c)
else:
    tm, tn, tk, thm, thn = map(int, sys.argv[2].split(','))
    gs = (tm // thm) * (tn // thn)
    opts = ('--std=c++17', '-default-device', '-lineinfo', '-DGROUP_SIZE=%du' % gs, '-DTILE_M=%du' % tm, '-DTILE_N=%du' % tn,
            '-DTILE_K=%du' % tk, '-DTHREAD_M=%du' % thm, '-DTHREAD_N=%du' % thn) + tuple('-D' + d for d in sys.argv[3:])
    f = cp.RawKernel(source(sys.argv[1]), 'matmul', options=opts)
    shared = 4 * tk * (tm + 4 + tn + 4) * 4
    f.max_dynamic_shared_size_bytes = shared
    f((n // tn, m // tm, 1), (gs,), (a, b, c, np.uint32(m), np.uint32(n), np.uint32(k), np.uint32(k)), shared_mem=shared)
cp.cuda.Device().synchronize()
