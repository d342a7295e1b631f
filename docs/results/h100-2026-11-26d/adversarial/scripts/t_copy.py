from h import *
rng = np.random.default_rng(7)
def same(x): return lambda g: None if bits_equal(g, x) else f'got {g.shape} {g.dtype} vs {x.shape} {x.dtype}; {np.count_nonzero(g.view(np.uint8) != x.view(np.uint8)) if g.shape==x.shape and g.dtype==x.dtype else ""}'
for x in [np.zeros(0, np.float32), np.array(5, np.int32), np.zeros((2, 0, 3), np.uint32), np.arange(24, dtype=np.float32).reshape(2, 3, 4),
          np.array([0x7f800001, 0xffc12345, 0x00000001, 0x80000000], np.uint32).view(np.float32)]:
    check_all(f'copy {x.shape} {x.dtype}', ['copy'], [x], same(x), cross_exact=True)
for n in [1, 3, 255, 257, 65535, 65537, (1 << 20) - 1, (1 << 20) + 1, (1 << 24) + 5]:
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    check_all(f'copy f32 bits n={n}', ['copy'], [x], same(x))
check_all('copy u8', ['copy'], [np.arange(5, dtype=np.uint8)], None, expect_rc=None)
summary()
