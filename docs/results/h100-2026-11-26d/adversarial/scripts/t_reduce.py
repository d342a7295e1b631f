from h import *
rng = np.random.default_rng(1)
f32 = np.float32
def nanbits(b): return np.array([b], np.uint32).view(np.float32)[0]
QNAN = 0x7fc00000
def eq(expected):
    return lambda g: None if bits_equal(g, expected) else f'got {g!r} bits {g.view(np.uint32) if g.dtype==np.float32 else g}, expected {expected!r}'
# empty / 0-d / 1 elem
for dt in [np.float32, np.int32, np.uint32]:
    e = np.zeros(0, dt)
    check_all(f'sum empty {dt.__name__}', ['reduce'], [e], eq(np.array([0], dt)), cross_exact=True)
    for op in ['min', 'max']:
        check_all(f'{op} empty {dt.__name__}', ['reduce', '--reduce', op], [e], expect_rc=2)
    z = np.array(7, dt)  # 0-d
    for op in ['sum', 'min', 'max']:
        check_all(f'{op} 0-d {dt.__name__}', ['reduce', '--reduce', op], [z], eq(np.array([7], dt)))
    e2 = np.zeros((3, 0, 2), dt)
    check_all(f'sum empty 3d {dt.__name__}', ['reduce'], [e2], eq(np.array([0], dt)))
# -0 sums
for x in [np.array([-0.0], f32), np.full(1000, -0.0, f32), np.full(65537, -0.0, f32)]:
    check_all(f'sum of -0 n={x.size}', ['reduce'], [x], eq(np.array([np.sum(x)], f32)))
    check_all(f'min of -0 n={x.size}', ['reduce', '--reduce', 'min'], [x], eq(np.array([-0.0], f32)))
x = np.array([0.0, -0.0] * 3000, f32)
check_all('min of ±0', ['reduce', '--reduce', 'min'], [x], eq(np.array([-0.0], f32)))
check_all('max of ±0', ['reduce', '--reduce', 'max'], [x], eq(np.array([0.0], f32)))
x = np.array([-0.0, 0.0] * 3000, f32)
check_all('max of ∓0', ['reduce', '--reduce', 'max'], [x], eq(np.array([0.0], f32)))
check_all('min of ∓0', ['reduce', '--reduce', 'min'], [x], eq(np.array([-0.0], f32)))
# NaN variants in min/max: expect canonical quiet NaN
for nb in [0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fbfffff, 0x7fc12345, 0xffffffff]:
    for n, pos in [(1, 0), (2, 1), (257, 256), (65537, 0), (65537, 65536), (1 << 20, 12345)]:
        x = rng.uniform(-1, 1, n).astype(f32)
        x.view(np.uint32)[pos] = nb
        for op in ['min', 'max']:
            check_all(f'{op} nan {nb:#x} n={n} at {pos}', ['reduce', '--reduce', op], [x], eq(np.array([nanbits(QNAN)], f32)))
        check_all(f'sum nan {nb:#x} n={n}', ['reduce'], [x], lambda g: None if np.isnan(g[0]) else f'got {g}')
# inf
for vals, exp in [([np.inf, -np.inf], np.nan), ([np.inf, 1.0], np.inf), ([-np.inf] * 3, -np.inf)]:
    x = np.array(vals + [0.5] * 300, f32)
    check_all(f'sum {vals}', ['reduce'], [x], lambda g, exp=exp: bounded(g, [exp], 0.0))
    check_all(f'min {vals}', ['reduce', '--reduce', 'min'], [x], eq(np.array([np.min(x)], f32)))
    check_all(f'max {vals}', ['reduce', '--reduce', 'max'], [x], eq(np.array([np.max(x)], f32)))
# subnormals only: min/max exact bit-for-bit?
x = np.array([1e-40, -1e-41, 3e-45, -3e-45], f32)
check_all('min subnormals', ['reduce', '--reduce', 'min'], [x], eq(np.array([np.min(x)], f32)))
check_all('max subnormals', ['reduce', '--reduce', 'max'], [x], eq(np.array([np.max(x)], f32)))
x = np.full(1000, 1e-40, f32)
check_all('sum subnormals', ['reduce'], [x], lambda g: bounded(g, [np.sum(x.astype(np.float64))], np.sum(np.abs(x.astype(np.float64))) + 1000*MIN_NORMAL))
# f32 max
x = np.array([3.4e38, 3.4e38, -3.4e38], f32)
check_all('sum overflow', ['reduce'], [x], None)
x = np.array([np.finfo(f32).max] * 2 + [-np.finfo(f32).max] * 2, f32)
r = check_all('sum overflow 2', ['reduce'], [x], None)
print('   overflow results:', {k: v for k, v in r.items()})
x = np.full(1001, np.finfo(f32).max, f32)
check_all('sum to +inf', ['reduce'], [x], lambda g: None if g[0] == np.inf else f'got {g}')
check_all('max f32max', ['reduce', '--reduce', 'max'], [x], eq(np.array([np.finfo(f32).max], f32)))
# integers at limits
for n in [1, 2, 255, 256, 257, 65535, 65536, 65537, (1 << 20) - 1, (1 << 20) + 1, (1<<22)+3]:
    xi = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    xi[0] = np.iinfo(np.int32).min
    xi[-1] = np.iinfo(np.int32).max
    xu = xi.view(np.uint32)
    for op, fn in [('sum', lambda v: np.sum(v, dtype=v.dtype)), ('min', np.min), ('max', np.max)]:
        check_all(f'{op} i32 n={n}', ['reduce', '--reduce', op], [xi], eq(np.array([fn(xi)], np.int32)), cross_exact=True)
        check_all(f'{op} u32 n={n}', ['reduce', '--reduce', op], [xu], eq(np.array([fn(xu)], np.uint32)), cross_exact=True)
xu = np.full(65537, 0xffffffff, np.uint32)
check_all('sum u32 max', ['reduce'], [xu], eq(np.array([np.sum(xu, dtype=np.uint32)], np.uint32)))
check_all('min u32 max', ['reduce', '--reduce', 'min'], [xu], eq(np.array([0xffffffff], np.uint32)))
xi = np.full(65537, -2**31, np.int32)
check_all('max i32 min', ['reduce', '--reduce', 'max'], [xi], eq(np.array([-2**31], np.int32)))
# uint8 reduce: refused?
check_all('reduce u8', ['reduce'], [np.arange(10, dtype=np.uint8)], None, expect_rc=2)
# float sums at odd sizes exact-ish
for n in [255, 256, 257, 65535, 65537, (1 << 20) - 1, (1 << 20) + 1, (1 << 24) + 1]:
    x = rng.integers(-8, 9, n).astype(f32)
    check_all(f'sum exact n={n}', ['reduce'], [x], eq(np.array([np.sum(x.astype(np.int64))], f32)))
    x = rng.uniform(-1, 1, n).astype(f32)
    m = rng.integers(0, n)
    x[m] = -5.0
    check_all(f'min n={n}', ['reduce', '--reduce', 'min'], [x], eq(np.array([np.min(x)], f32)))
# all-ones huge count: exactness 2^24+1 ones -> result 16777217 not representable
x = np.ones((1 << 24) + 3, f32)
check_all('sum ones 2^24+3', ['reduce'], [x], lambda g: bounded(g, [x.size], (x.size - 1) * U * x.size))
summary()
