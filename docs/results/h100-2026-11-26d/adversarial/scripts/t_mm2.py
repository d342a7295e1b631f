from h import *
rng = np.random.default_rng(9)
f32 = np.float32
def mmcheck(name, a, b):
    with np.errstate(all='ignore'):
        ex = a.astype(np.float64) @ b.astype(np.float64)
        fa = np.abs(np.where(np.isfinite(a), a, 0).astype(np.float64)); fb = np.abs(np.where(np.isfinite(b), b, 0).astype(np.float64))
        k = a.shape[1]
        bound = gamma(k) * (fa @ fb) + 2 * k * MIN_NORMAL
    check_all(name, ['matmul'], [a, b], lambda g: bounded(g, ex, bound))
for m, k, n in [(1, 1, 1), (3, 5, 4), (64, 64, 64), (65, 300, 70), (1, 70000, 2), (128, 4096, 128)]:
    a = rng.uniform(-1, 1, (m, k)).astype(f32); b = rng.uniform(-1, 1, (k, n)).astype(f32)
    a[0, k // 2] = np.inf; b[k // 2, :] = 0.0
    mmcheck(f'inf*0 {m}x{k}x{n}', a, b)
    a = rng.uniform(-1, 1, (m, k)).astype(f32); b = np.zeros((k, n), f32)
    a[m - 1, 0] = np.nan
    mmcheck(f'nan*0 zero B {m}x{k}x{n}', a, b)
    a = np.zeros((m, k), f32); b = rng.uniform(-1, 1, (k, n)).astype(f32); b[k - 1, n - 1] = -np.inf
    mmcheck(f'0*-inf zero A {m}x{k}x{n}', a, b)
    a = np.full((m, k), 3e38, f32); b = np.ones((k, n), f32)
    mmcheck(f'overflow {m}x{k}x{n}', a, b)
    a = rng.uniform(-1, 1, (m, k)).astype(f32); b = rng.uniform(-1, 1, (k, n)).astype(f32)
    a[:, 0] = np.inf; b[0, :] = -1.0; a[:, -1] = np.inf; b[-1, :] = 1.0
    mmcheck(f'inf-inf {m}x{k}x{n}', a, b)
summary()
