# Times and checks variants of a CUDA matmul kernel against cuBLAS (see README.md).
import cupy as cp, numpy as np, sys, itertools, json
src = open(sys.argv[1]).read()
PAD = 4
def build(tm, tn, tk, thm, thn, extra):
    gs = (tm // thm) * (tn // thn)
    opts = ['--std=c++17', '-default-device', '-lineinfo', '-DGROUP_SIZE=%du' % gs, '-DTILE_M=%du' % tm, '-DTILE_N=%du' % tn,
            '-DTILE_K=%du' % tk, '-DTHREAD_M=%du' % thm, '-DTHREAD_N=%du' % thn] + ['-D' + e for e in extra]
    mod = cp.RawModule(code=src, options=tuple(opts))
    f = mod.get_function('matmul')
    double = any(e.startswith('DOUBLE=1') for e in extra)
    shared = tk * (tm + PAD + tn + PAD) * 4 * (2 if double else 1)
    return f, gs, shared
def run(f, gs, shared, tm, tn, a, b, c, m, n, k):
    tiles_n = (n + tn - 1) // tn; tiles_m = (m + tm - 1) // tm
    f((tiles_n, tiles_m, 1), (gs,), (a, b, c, np.uint32(m), np.uint32(n), np.uint32(k), np.uint32(((k + 7)//8)*8 + 64)), shared_mem=shared)
def bench(f, gs, shared, tm, tn, m, n, k, reps):
    rng = cp.random.default_rng(1)
    a = rng.standard_normal((m, k), dtype=cp.float32); b = rng.standard_normal((k, n), dtype=cp.float32)
    c = cp.zeros((m, n), cp.float32)
    run(f, gs, shared, tm, tn, a, b, c, m, n, k)
    ref = a @ b
    err = float(cp.max(cp.abs(c - ref)) / cp.max(cp.abs(ref)))
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); run(f, gs, shared, tm, tn, a, b, c, m, n, k); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    t = float(np.median(ts))
    return t, 2 * m * n * k / t / 1e9, err
def cublas(m, n, k, reps):
    a = cp.random.standard_normal((m, k), dtype=cp.float32); b = cp.random.standard_normal((k, n), dtype=cp.float32)
    c = a @ b; ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event(); s.record(); cp.matmul(a, b, out=c); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    t = float(np.median(ts)); return t, 2*m*n*k/t/1e9
shapes = [(4096, 4096, 4096), (2048, 2048, 2048), (1024, 1024, 1024)]
for sh in (shapes if len(sys.argv) <= 3 else []):
    t, tf = cublas(*sh, 30); print('cublas %s %.3f ms %.1f TF' % (sh, t, tf), flush=True)
variants = json.loads(sys.argv[2])
for v in variants:
    tiling, extra = v[0], v[1]
    try:
        f, gs, shared = build(*tiling, extra)
    except Exception as ex:
        print('BUILD FAIL', tiling, extra, str(ex)[:2000]); continue
    info = 'regs %d local %d' % (f.num_regs, f.local_size_bytes)
    # ragged correctness
    rag = (1000, 996, 1004) if 'VEC=1' in extra else (1000, 999, 1001)
    _, _, err_r = bench(f, gs, shared, tiling[0], tiling[1], *rag, 1)
    if len(sys.argv) > 3:
        bench(f, gs, shared, tiling[0], tiling[1], 4096, 4096, 4096, 1); continue
    line = '%s %s [%s] ragged err %.2e |' % (tiling, ' '.join(extra), info, err_r)
    for sh in shapes:
        t, tf, err = bench(f, gs, shared, tiling[0], tiling[1], *sh, 20)
        line += ' %d: %.3f ms %.1f TF (err %.1e)' % (sh[0], t, tf, err)
    print(line, flush=True)
