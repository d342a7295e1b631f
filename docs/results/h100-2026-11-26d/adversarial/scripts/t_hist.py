from h import *
rng = np.random.default_rng(3)
f32 = np.float32
def eq(expected):
    def c(g):
        if bits_equal(g, expected): return None
        if g.shape != expected.shape: return f'shape {g.shape} {g.dtype} vs {expected.shape} {expected.dtype}'
        bad = np.nonzero(g != expected)[0]
        return f'{len(bad)} bins differ, first {bad[:5]}: got {g[bad[:5]]}, expected {expected[bad[:5]]}; totals {g.sum()} vs {expected.sum()}'
    return c
def nphist(v, bins, lo, hi):
    with np.errstate(invalid='ignore'):
        return np.histogram(v[np.isfinite(v)] if v.dtype.kind == 'f' else v, bins, range=(lo, hi))[0].astype(np.uint32)
def fh(name, v, bins, lo, hi, rs=None):
    rs = rs or f'{lo!r},{hi!r}'
    check_all(name, ['histogram', '--bins', str(bins), '--range', rs], [v], eq(nphist(v, bins, lo, hi)), cross_exact=True)

# range ends not representable in f32: values at f32(lo), f32(hi) and neighbours
for lo, hi in [(0.7, 1.0), (0.1, 0.7), (0.3, 0.1 + 0.2), (-0.7, -0.1), (0.0, 0.1), (1e-3, 0.3), (-1e30, 1e30), (-3.4e38, 3.4e38), (0.1, 0.30000001), (1.0, 16777217.0)]:
    if lo >= hi: continue
    for bins in [1, 2, 3, 7, 100, 255, 256, 257, 4096, 65537]:
        edges = np.linspace(lo, hi, bins + 1).astype(f32)
        if np.any(edges[:-1] >= edges[1:]):
            check_all(f'narrow {lo},{hi} bins={bins}', ['histogram', '--bins', str(bins), '--range', f'{lo!r},{hi!r}'], [np.zeros(3, f32)], None, expect_rc=2)
            continue
        e = np.concatenate([edges, np.nextafter(edges, np.inf, dtype=f32), np.nextafter(edges, -np.inf, dtype=f32)]).astype(f32)
        v = np.concatenate([e, rng.uniform(lo, hi, 5000).astype(f32), np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], f32)]).astype(f32)
        rng.shuffle(v)
        fh(f'hist f32 [{lo},{hi}] bins={bins}', v, bins, lo, hi)
# 1 bin / u8 / u32 edge
for n in [0, 1, 3, 255, 256, 257, 65535, 65537, (1 << 20) + 1]:
    v8 = rng.integers(0, 256, n, dtype=np.uint8)
    for bins in [1, 2, 255, 256]:
        check_all(f'hist u8 n={n} bins={bins}', ['histogram', '--bins', str(bins)], [v8], eq(np.bincount(v8[v8 < bins], minlength=bins)[:bins].astype(np.uint32)), cross_exact=True)
    v = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    if n: v[0] = 0xffffffff; v[-1] = 0
    for bins in [1, 7, 65536, 1 << 20]:
        w = v % np.uint32(bins + 3)
        if n > 2: w[1] = 0xffffffff; w[2] = bins - 1
        check_all(f'hist u32 n={n} bins={bins}', ['histogram', '--bins', str(bins)], [w], eq(np.bincount(w[w < bins].astype(np.int64), minlength=bins).astype(np.uint32)), cross_exact=True)
# u8 multi-dim, u8 bins > 256 refused, 0 bins
check_all('u8 2d', ['histogram'], [np.arange(256, dtype=np.uint8).reshape(16, 16)], eq(np.ones(256, np.uint32)))
check_all('u8 257 bins', ['histogram', '--bins', '257'], [np.arange(10, dtype=np.uint8)], None, expect_rc=2)
check_all('0 bins', ['histogram', '--bins', '0'], [np.arange(10, dtype=np.uint32)], None, expect_rc=2)
check_all('u32 no bins', ['histogram'], [np.arange(10, dtype=np.uint32)], None, expect_rc=2)
check_all('f32 no range', ['histogram', '--bins', '3'], [np.arange(10, dtype=np.float32)], None, expect_rc=2)
check_all('u32 with range', ['histogram', '--bins', '3', '--range', '0,1'], [np.arange(10, dtype=np.uint32)], None, expect_rc=2)
check_all('i32 histogram', ['histogram', '--bins', '3'], [np.arange(10, dtype=np.int32)], None, expect_rc=2)
for r in ['1,0', 'nan,1', '0,inf', '0,1e39', '-1e39,0', '0', '0,1,2', 'a,b', '', ' 0 , 1 ', '0x1,2', '1e-50,1e-45']:
    check_all(f'range {r!r}', ['histogram', '--bins', '3', '--range', r], [np.arange(10, dtype=np.float32)], None, expect_rc=None or 2 if r not in (' 0 , 1 ',) else 0)
# huge bins
check_all('u32 bins=u32max', ['histogram', '--bins', '4294967295'], [np.arange(10, dtype=np.uint32)], None, expect_rc=1)
check_all('u32 bins 2^28', ['histogram', '--bins', str(1 << 28)], [np.array([0, 5, (1 << 28) - 1, 1 << 28], np.uint32)], None, expect_rc=1)
v = np.array([0, 5, (1 << 24) - 1, 1 << 24, 0xffffffff], np.uint32)
check_all('u32 bins 2^24', ['histogram', '--bins', str(1 << 24)], [v], eq(np.bincount(v[v < (1 << 24)].astype(np.int64), minlength=1 << 24).astype(np.uint32)))
v = rng.uniform(-1, 1, 100000).astype(f32)
fh('f32 bins 2^20', v, 1 << 20, -1.0, 1.0)
fh('f32 bins 3e6', v, 3000000, -1.0, 1.0)
# equal range
fh('f32 equal range 5,5', np.array([4.5, 5, 5.5, 4.4999, 5.5001], f32), 3, 5.0, 5.0)
# subnormal range
lo, hi = 0.0, 1e-40
v = np.array([0, 1e-45, 5e-41, 1e-40, 1.1e-40, -1e-45, -0.0], f32)
fh('f32 subnormal range', v, 4, lo, hi)
# all values equal in one bin, many (atomic contention)
v = np.full((1 << 21) + 1, 0.5, f32)
fh('f32 all same', v, 256, 0.0, 1.0)
v = np.full((1 << 21) + 1, 7, np.uint32)
check_all('u32 all same', ['histogram', '--bins', '8'], [v], eq(np.bincount(v, minlength=8).astype(np.uint32)))
summary()
