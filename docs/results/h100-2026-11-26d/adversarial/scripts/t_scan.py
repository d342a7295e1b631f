from h import *
rng = np.random.default_rng(2)
f32 = np.float32
def eq(expected):
    def c(g):
        if bits_equal(g, expected): return None
        if g.shape != expected.shape: return f'shape {g.shape} {g.dtype} vs {expected.shape} {expected.dtype}'
        bad = np.nonzero(g.view(np.uint32) != expected.view(np.uint32))[0] if g.dtype.itemsize == 4 else np.nonzero(g != expected)[0]
        i = bad[0]
        return f'{len(bad)} differ, first at {i}: got {g[i]!r}, expected {expected[i]!r}'
    return c
def fscan(x):
    exact = np.cumsum(x.astype(np.float64))
    bound = np.arange(x.size) * U * np.cumsum(np.abs(np.where(np.isfinite(x), x, 0).astype(np.float64))) + np.arange(x.size) * MIN_NORMAL
    return lambda g: bounded(g, exact, bound)
for dt in [np.float32, np.int32, np.uint32]:
    check_all(f'scan empty {dt.__name__}', ['scan'], [np.zeros(0, dt)], eq(np.zeros(0, dt)))
    check_all(f'scan 1 {dt.__name__}', ['scan'], [np.array([5], dt)], eq(np.array([5], dt)))
    check_all(f'scan 0-d {dt.__name__}', ['scan'], [np.array(5, dt)], None, expect_rc=2)
    check_all(f'scan 2-d {dt.__name__}', ['scan'], [np.ones((2, 3), dt)], None, expect_rc=2)
    check_all(f'scan 2-d 1-row {dt.__name__}', ['scan'], [np.ones((1, 3), dt)], None, expect_rc=2)
check_all('scan u8', ['scan'], [np.ones(5, np.uint8)], None, expect_rc=2)
for n in [2, 3, 255, 256, 257, 1023, 1025, 4095, 4097, 65535, 65536, 65537, (1 << 20) - 1, (1 << 20) + 1, (1 << 22) + 5, 3 * (1 << 21) + 1]:
    xi = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    check_all(f'scan i32 n={n}', ['scan'], [xi], eq(np.cumsum(xi, dtype=np.int32)), cross_exact=True)
    xu = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    check_all(f'scan u32 n={n}', ['scan'], [xu], eq(np.cumsum(xu, dtype=np.uint32)), cross_exact=True)
    xf = rng.integers(-8, 9, n).astype(f32)
    check_all(f'scan f32 exact n={n}', ['scan'], [xf], eq(np.cumsum(xf.astype(np.float64)).astype(f32)))
# specials in scan
for n in [7, 257, 4097, 65537, (1 << 20) + 1]:
    x = rng.uniform(-1, 1, n).astype(f32)
    for pos in sorted({0, n // 2, n - 1}):
        for v in [np.nan, np.inf, -np.inf]:
            y = x.copy(); y[pos] = v
            check_all(f'scan f32 {v} at {pos} n={n}', ['scan'], [y], fscan(y))
    y = x.copy(); y[n // 3] = np.inf; y[2 * n // 3] = -np.inf
    check_all(f'scan f32 inf then -inf n={n}', ['scan'], [y], fscan(y))
    y = x.copy(); y.view(np.uint32)[n//2] = 0x7f800001
    check_all(f'scan f32 sNaN n={n}', ['scan'], [y], fscan(y))
    y = x.copy(); y[::5] = 1e-40
    check_all(f'scan f32 subnormals n={n}', ['scan'], [y], fscan(y))
# -0 scans by bits
for n in [1, 2, 257, 65537]:
    z = np.full(n, -0.0, f32)
    check_all(f'scan -0 n={n}', ['scan'], [z], eq(np.cumsum(z)))
# overflow to inf
x = np.full(4097, 3e38, f32)
check_all('scan overflow', ['scan'], [x], lambda g: None if np.isinf(g[2:]).all() and g[0] == f32(3e38) else f'got {g[:4]}')
summary()
