# Times and checks matmul kernel variants against cuBLAS through cupy (see README.md):
#   python3 mm3.py VARIANTS.json
# Each variant: [source file, [TILE_M, TILE_N, TILE_K, THREAD_M, THREAD_N], [defines], shared-bytes formula]
# where the formula is "single" (one slice: matmul.cu before the asynchronous copies), "cuda4" (matmul.cu
# now: four buffers), "double" (mm2.cu DOUBLE=1) or "stages" (mm3.cu).
import cupy as cp, numpy as np, sys, json
from derive import source  # derive:NAME forms of kernels/matmul/matmul.cu

def shared_bytes(kind, tm, tn, tk, extra):
    if kind == 'cuda4':  # kernels/matmul/matmul.cu: ASYNC_STAGES buffers
        return 4 * tk * (tm + 4 + tn + 4) * 4
    if kind == 'stages':
        stages = int(next((e.split('=')[1] for e in extra if e.startswith('STAGES=')), 3))
        return stages * (tm * (tk + 4) + tk * (tn + 4)) * 4
    return tk * (tm + 4 + tn + 4) * 4 * (2 if kind == 'double' else 1)

def build(path, tiling, extra, kind, name):
    tm, tn, tk, thm, thn = tiling
    gs = (tm // thm) * (tn // thn)
    src = source(path).replace('\nmatmul(', '\n' + name + '(')
    opts = ['--std=c++17', '-default-device', '-lineinfo', '-DGROUP_SIZE=%du' % gs, '-DTILE_M=%du' % tm, '-DTILE_N=%du' % tn,
            '-DTILE_K=%du' % tk, '-DTHREAD_M=%du' % thm, '-DTHREAD_N=%du' % thn] + ['-D' + e for e in extra]
    f = cp.RawKernel(src, name, options=tuple(opts))
    shared = shared_bytes(kind, tm, tn, tk, extra)
    if shared > 48 * 1024:
        f.max_dynamic_shared_size_bytes = shared
    return f, gs, shared

def run(f, gs, shared, tm, tn, a, b, c, m, n, k):
    tiles_n = (n + tn - 1) // tn; tiles_m = (m + tm - 1) // tm
    f((tiles_n, tiles_m, 1), (gs,), (a, b, c, np.uint32(m), np.uint32(n), np.uint32(k), np.uint32(((k + 63) // 64) * 64)), shared_mem=shared)

def timed(fn, reps):
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))

def check_and_time(f, gs, shared, tm, tn, m, n, k, reps):
    rng = cp.random.default_rng(1)
    a = rng.standard_normal((m, k), dtype=cp.float32); b = rng.standard_normal((k, n), dtype=cp.float32)
    c = cp.full((m, n), cp.nan, cp.float32)
    run(f, gs, shared, tm, tn, a, b, c, m, n, k)
    ref = a.astype(cp.float64) @ b.astype(cp.float64)
    bound = 2 * k * 2.0 ** -24 * (cp.abs(a).astype(cp.float64) @ cp.abs(b).astype(cp.float64))
    ok = bool(cp.all(cp.abs(c - ref) <= bound))
    if reps == 0:
        return ok, 0.0
    return ok, timed(lambda: run(f, gs, shared, tm, tn, a, b, c, m, n, k), reps)

shapes = [(4096, 4096, 4096), (2048, 2048, 2048), (1024, 1024, 1024)]
for sh in shapes:
    m, n, k = sh
    a = cp.random.standard_normal((m, k), dtype=cp.float32); b = cp.random.standard_normal((k, n), dtype=cp.float32)
    c = a @ b
    t = timed(lambda: cp.matmul(a, b, out=c), 30)
    print('cublas %d: %.3f ms %.1f TF' % (m, t, 2 * m * n * k / t / 1e9), flush=True)
for idx, (path, tiling, extra, kind) in enumerate(json.loads(open(sys.argv[1]).read())):
    try:
        f, gs, shared = build(path, tiling, extra, kind, 'mm_v%d' % idx)
        info = 'regs %d local %d' % (f.num_regs, f.local_size_bytes)
    except Exception as ex:
        print('BUILD FAIL', path, tiling, extra, str(ex)[:1500], flush=True); continue
    vec = 'VEC=1' in extra
    ragged = [(1000, 996, 1004), (5, 12, 8), (129, 260, 36)] if vec else [(1000, 999, 1001), (1, 1, 1), (129, 257, 33)]
    oks = [check_and_time(f, gs, shared, tiling[0], tiling[1], *r, 0)[0] for r in ragged]
    line = '%s %s %s [%s] ragged %s |' % (path.split('/')[-1], tiling, ' '.join(extra), info, 'ok' if all(oks) else 'WRONG %s' % oks)
    for sh in shapes:
        ok, t = check_and_time(f, gs, shared, tiling[0], tiling[1], *sh, 20)
        line += ' %d: %.3f ms %.1f TF%s' % (sh[0], t, 2 * sh[0] ** 3 / t / 1e9, '' if ok else ' WRONG')
    print(line, flush=True)
