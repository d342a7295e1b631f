from h import *
rng = np.random.default_rng(8)
def eq(expected):
    return lambda g: None if bits_equal(g, expected) else f'got {g!r}, expected {expected!r}'
for n in [1, 2, 3, 5, 7, 9, 15, 17, 31, 33, 255, 257, 1023, 1025, 4097, 65537, 65539, (1 << 20) + 3, (1 << 22) + 1]:
    xf = rng.uniform(1, 2, n).astype(np.float32)
    check_all(f'min f32 positive n={n}', ['reduce', '--reduce', 'min'], [xf], eq(np.array([xf.min()], np.float32)))
    check_all(f'max f32 negative n={n}', ['reduce', '--reduce', 'max'], [-xf], eq(np.array([(-xf).max()], np.float32)))
    xu = rng.integers(1000, 2**32, n, dtype=np.uint64).astype(np.uint32)
    check_all(f'min u32 n={n}', ['reduce', '--reduce', 'min'], [xu], eq(np.array([xu.min()], np.uint32)))
    xi = rng.integers(-2**31, -5, n, dtype=np.int64).astype(np.int32)
    check_all(f'max i32 negative n={n}', ['reduce', '--reduce', 'max'], [xi], eq(np.array([xi.max()], np.int32)))
    xi = -xi
    check_all(f'min i32 positive n={n}', ['reduce', '--reduce', 'min'], [xi], eq(np.array([xi.min()], np.int32)))
    # histogram bin 0 counting padding
    v8 = rng.integers(1, 256, n, dtype=np.uint8)
    check_all(f'hist u8 no zeros n={n}', ['histogram'], [v8], eq(np.bincount(v8, minlength=256).astype(np.uint32)))
    vu = rng.integers(1, 100, n, dtype=np.uint32)
    check_all(f'hist u32 no zeros n={n}', ['histogram', '--bins', '100'], [vu], eq(np.bincount(vu, minlength=100).astype(np.uint32)))
    vf = rng.uniform(0.5, 1, n).astype(np.float32)
    check_all(f'hist f32 no zeros n={n}', ['histogram', '--bins', '10', '--range', '0,1'], [vf], eq(np.histogram(vf, 10, range=(0, 1))[0].astype(np.uint32)))
summary()
