from h import *
rng = np.random.default_rng(int(os.environ.get('SEED', 11)))
f32 = np.float32
def byedges(v, edges):
    bins = edges.size - 1
    keep = (v >= edges[0]) & (v <= edges[-1])
    idx = np.minimum(np.searchsorted(edges, v[keep], side='right') - 1, bins - 1)
    return np.bincount(idx, minlength=bins).astype(np.uint32)
def eq(expected, extra=''):
    def c(g):
        if bits_equal(g, expected): return None
        if g.shape != expected.shape: return f'shape {g.shape} vs {expected.shape}'
        bad = np.nonzero(g != expected)[0]
        return f'{len(bad)} bins differ, first {bad[:5]}: got {g[bad[:5]]}, expected {expected[bad[:5]]}; totals {g.sum()} vs {expected.sum()} {extra}'
    return c
def mag(): return float(10.0 ** rng.uniform(-44, 38)) * rng.choice([-1, 1])
cases = []
specials = [(0.0, 1e-40, 1000), (0.0, 1e-40, 7), (-1e-38, 1e-38, 1000), (-1e-38, 1e-38, 2), (-2e-38, 3e-38, 4099), (1e-45, 1e-44, 5), (-1e-44, 0.0, 3),
            (0.0, 1.0, 1 << 23), (1.0, 2.0, 1 << 23), (1.0, 2.0, (1 << 23) - 1), (16777216.0, 16777216.0 + 4096, 4096), (-1.0, 1.0, 3), (0.1, 0.2, 16777215)]
for lo, hi, bins in specials: cases.append((lo, hi, bins))
for _ in range(int(os.environ.get('N', 60))):
    a, b = mag(), mag()
    if rng.random() < 0.3: b = a + abs(a) * 10.0 ** rng.uniform(-6, 1)
    lo, hi = min(a, b), max(a, b)
    bins = int(rng.choice([1, 2, 3, 7, 64, 255, 256, 257, 1000, 4097, 65537, int(rng.integers(1, 300000))]))
    cases.append((lo, hi, bins))
for lo, hi, bins in cases:
    edges = np.linspace(lo, hi, bins + 1).astype(f32) if bins < 20_000_000 else None
    args = ['histogram', '--bins', str(bins), '--range', f'{lo!r},{hi!r}']
    if not (np.isfinite(f32(lo)) and np.isfinite(f32(hi))) or np.any(edges[:-1] >= edges[1:]):
        check_all(f'narrow [{lo!r},{hi!r}] bins={bins}', args, [np.zeros(3, f32)], None, expect_rc=2)
        continue
    pick = edges[rng.integers(0, bins + 1, min(3 * bins + 3, 20000))]
    e = np.concatenate([pick, np.nextafter(pick, np.inf, dtype=f32), np.nextafter(pick, -np.inf, dtype=f32), edges[:2], edges[-2:],
                        np.nextafter(edges[[0, -1]], np.inf, dtype=f32), np.nextafter(edges[[0, -1]], -np.inf, dtype=f32)]).astype(f32)
    with np.errstate(all='ignore'):
        u = (rng.uniform(lo, hi, 20000)).astype(f32)
    v = np.concatenate([e, u, np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45], f32)]).astype(f32)
    rng.shuffle(v)
    ref = byedges(v, edges)
    with np.errstate(all='ignore'):
        nph = np.histogram(v[np.isfinite(v)], bins, range=(lo, hi))[0].astype(np.uint32)
    note = '' if np.array_equal(ref, nph) else '(numpy differs from its own edges here)'
    if note: print('   note: numpy != edges for', lo, hi, bins)
    check_all(f'hist [{lo!r},{hi!r}] bins={bins}', args, [v], eq(ref, note), cross_exact=True)
summary()
