from h import *
rng = np.random.default_rng(4)
f32 = np.float32
def subn(x): return (x != 0) & (np.abs(x) < np.finfo(f32).tiny)
def conv(x, w, mode):
    win = windows(x, w.shape, mode)
    w64 = w.astype(np.float64)
    taps = w.size
    with np.errstate(invalid='ignore', over='ignore'):
        exact = np.einsum('ijkl,kl->ij', win, w64)
        finite = np.abs(np.where(np.isfinite(win), win, 0))
        absum = np.einsum('ijkl,kl->ij', finite, np.abs(np.where(np.isfinite(w64), w64, 0)))
        tiny = np.einsum('ijkl,kl->ij', finite * ~subn(win.astype(f32)), np.abs(w64) * subn(w)) + np.einsum('ijkl,kl->ij', finite * subn(win.astype(f32)), np.abs(w64))
    return exact, gamma(taps) * absum + np.nan_to_num(tiny) + 2 * taps * MIN_NORMAL
def c1(name, x, w, exact_ok=False):
    ex, b = conv(x[None, :], w[None, :], 'constant')
    check_all(name, ['conv1d'], [x, w], lambda g: bounded(g, ex[0], 0.0 if exact_ok else b[0]))
def c2(name, img, f, border, exact_ok=False):
    ex, b = conv(img, f, 'constant' if border == 'zero' else 'edge')
    check_all(name, ['conv2d', '--border', border], [img, f], lambda g: bounded(g, ex, 0.0 if exact_ok else b))
ints = lambda *s: rng.integers(-8, 9, s).astype(f32)
# conv2d shapes
for h, w in [(1, 1), (1, 7), (7, 1), (1, 1000), (1000, 1), (3, 3), (2, 2), (1, 65537), (65537, 1), (257, 255), (17, 4097)]:
    for kh, kw in [(1, 1), (3, 3), (1, 5), (5, 1), (2 * h + 1 if h < 600 else 5, 1), (1, 2 * w + 1) if w < 600 else (1, 3), (2 * h + 1 if h < 30 else 3, 2 * w + 1 if w < 30 else 3), (9, 9)]:
        for border in ['zero', 'clamp']:
            img = ints(h, w)
            c2(f'conv2d {h}x{w} f{kh}x{kw} {border}', img, ints(kh, kw), border, True)
        img8 = rng.integers(0, 256, (h, w), dtype=np.uint8)
        c2(f'conv2d u8 {h}x{w} f{kh}x{kw} clamp', img8, ints(kh, kw), 'clamp', True)
        c2(f'conv2d u8 {h}x{w} f{kh}x{kw} zero', img8, ints(kh, kw), 'zero', True)
# u8 extremes
img8 = np.full((33, 35), 255, np.uint8); img8[::2, ::3] = 0
c2('conv2d u8 255s', img8, rng.uniform(-1, 1, (5, 5)).astype(f32), 'zero')
# odd u8 widths (packing)
for w in [1, 2, 3, 4, 5, 6, 7, 9, 13, 63, 65, 127, 129]:
    img8 = rng.integers(0, 256, (11, w), dtype=np.uint8)
    for border in ['zero', 'clamp']:
        c2(f'conv2d u8 11x{w} f3x5 {border}', img8, ints(3, 5), border, True)
# empty images
check_all('conv2d 0x5', ['conv2d'], [np.zeros((0, 5), f32), ints(3, 3)], lambda g: None if g.shape == (0, 5) else f'shape {g.shape}')
check_all('conv2d 5x0', ['conv2d'], [np.zeros((5, 0), f32), ints(3, 3)], lambda g: None if g.shape == (5, 0) else f'shape {g.shape}')
check_all('conv2d u8 0x0', ['conv2d'], [np.zeros((0, 0), np.uint8), ints(3, 3)], lambda g: None if g.shape == (0, 0) else f'shape {g.shape}')
check_all('conv2d filter 0x3', ['conv2d'], [ints(4, 4), np.zeros((0, 3), f32)], None, expect_rc=2)
check_all('conv2d filter 2x3', ['conv2d'], [ints(4, 4), ints(2, 3)], None, expect_rc=2)
check_all('conv2d 1-d filter', ['conv2d'], [ints(4, 4), ints(3)], None, expect_rc=2)
check_all('conv2d 3-d image', ['conv2d'], [ints(2, 4, 4), ints(3, 3)], None, expect_rc=2)
check_all('conv2d 1-d image', ['conv2d'], [ints(4), ints(3, 3)], None, expect_rc=2)
check_all('conv2d i32 image', ['conv2d'], [np.ones((4, 4), np.int32), ints(3, 3)], None, expect_rc=2)
check_all('conv2d u8 filter', ['conv2d'], [ints(4, 4), np.ones((3, 3), np.uint8)], None, expect_rc=2)
# conv2d specials
img = rng.uniform(-1, 1, (40, 50)).astype(f32)
for v in [np.nan, np.inf, -np.inf, 1e-40]:
    for (r, c) in [(0, 0), (39, 49), (20, 0), (0, 25), (20, 25)]:
        y = img.copy(); y[r, c] = v
        for border in ['zero', 'clamp']:
            c2(f'conv2d {v} at {r},{c} {border}', y, rng.uniform(-1, 1, (3, 5)).astype(f32), border)
    f = rng.uniform(-1, 1, (3, 5)).astype(f32); f[0, 0] = v
    for border in ['zero', 'clamp']:
        c2(f'conv2d filter corner {v} {border}', img, f, border)
summary()
