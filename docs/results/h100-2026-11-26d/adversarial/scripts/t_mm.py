from h import *
rng = np.random.default_rng(6)
f32 = np.float32
def subn(x): return (x != 0) & (np.abs(x) < np.finfo(f32).tiny)
def mm(name, a, b, exact=False):
    with np.errstate(all='ignore'):
        ex = a.astype(np.float64) @ b.astype(np.float64)
        fa = np.abs(np.where(np.isfinite(a), a, 0).astype(np.float64)); fb = np.abs(np.where(np.isfinite(b), b, 0).astype(np.float64))
        tiny = (fa * subn(a)) @ fb + (fa * ~subn(a)) @ (fb * subn(b))
        k = a.shape[1]
        bound = 0.0 if exact else gamma(k) * (fa @ fb) + tiny + 2 * k * MIN_NORMAL
    check_all(name, ['matmul'], [a, b], lambda g: bounded(g, ex, bound))
ints = lambda *s: rng.integers(-8, 9, s).astype(f32)
for m, k, n in [(1, 1, 1), (1, 100003, 1), (1, 65537, 1), (1, 65536, 1), (1, 65535, 1), (2, 100003, 3), (1, (1 << 20) + 1, 1), (1, (1 << 22) + 3, 1),
                (1000, 1, 1000), (1, 1, 4097), (4097, 1, 1), (1, 4097, 1), (65537, 1, 1), (1, 1, 65537), (3, 70001, 2), (17, 100003, 1), (1, 100003, 17),
                (255, 257, 256), (257, 255, 129), (129, 129, 129), (33, 3, 65), (1, 300000, 33), (600, 7, 1), (1, 2, 1 << 18)]:
    mm(f'matmul {m}x{k}x{n} ints', ints(m, k), ints(k, n), True)
# uniform exactness near split-k etc.
for m, k, n in [(64, 16385, 64), (65, 16383, 63), (128, 8193, 1), (1, 65539, 128)]:
    mm(f'matmul {m}x{k}x{n} uniform', rng.uniform(-1, 1, (m, k)).astype(f32), rng.uniform(-1, 1, (k, n)).astype(f32))
    mm(f'matmul {m}x{k}x{n} ints', ints(m, k), ints(k, n), True)
# refusals
check_all('matmul k mismatch', ['matmul'], [ints(2, 3), ints(4, 2)], None, expect_rc=2)
check_all('matmul empty m', ['matmul'], [np.zeros((0, 3), f32), ints(3, 2)], None, expect_rc=2)
check_all('matmul empty k', ['matmul'], [np.zeros((2, 0), f32), np.zeros((0, 2), f32)], None, expect_rc=2)
check_all('matmul empty n', ['matmul'], [ints(2, 3), np.zeros((3, 0), f32)], None, expect_rc=2)
check_all('matmul 1-d a', ['matmul'], [ints(3), ints(3, 2)], None, expect_rc=2)
check_all('matmul 3-d a', ['matmul'], [ints(1, 2, 3), ints(3, 2)], None, expect_rc=2)
check_all('matmul 0-d', ['matmul'], [np.array(2, f32), ints(1, 1)], None, expect_rc=2)
check_all('matmul i32', ['matmul'], [np.ones((2, 2), np.int32), np.ones((2, 2), np.int32)], None, expect_rc=2)
check_all('matmul u8', ['matmul'], [np.ones((2, 2), np.uint8), ints(2, 2)], None, expect_rc=2)
# specials
for v in [np.nan, np.inf, -np.inf, 1e-40, -0.0]:
    for (m, k, n) in [(1, 1, 1), (5, 7, 3), (65, 129, 67), (1, 100003, 1)]:
        a = rng.uniform(-1, 1, (m, k)).astype(f32); b = rng.uniform(-1, 1, (k, n)).astype(f32)
        a[m // 2, k - 1] = v
        mm(f'matmul {m}x{k}x{n} A has {v}', a, b)
        a = rng.uniform(-1, 1, (m, k)).astype(f32); b[0, n - 1] = v
        mm(f'matmul {m}x{k}x{n} B has {v}', a, b)
# -0 result bits: A=-0 row times positive -> numpy gives... sum of -0*x
a = np.full((3, 5), -0.0, f32); b = np.ones((5, 4), f32)
r = check_all('matmul -0 result', ['matmul'], [a, b], lambda g: bounded(g, np.zeros((3, 4)), 0.0))
print('   -0 matmul signbits:', {d: np.signbit(v).all() for d, v in r.items()}, 'numpy:', np.signbit(a @ b).all())
summary()
