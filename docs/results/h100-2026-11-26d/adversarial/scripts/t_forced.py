import json, glob
from h import *
import h
os.environ['ROSETTA_CACHE_DIR'] = os.environ.get('ADV_CACHE', '/tmp/adv/cache')
rng = np.random.default_rng(int(os.environ.get('SEED', 21)))
f32 = np.float32
FILES = glob.glob(os.environ.get('ADV_CACHE', '/tmp/adv/cache') + '/tuning/*.json')
base = {f: json.load(open(f)) for f in FILES}
def force(key, variant):
    for f, d in base.items():
        d = json.loads(json.dumps(d)); d['choices'] = {key: {'variant': variant, 'median_s': 1e-6, 'measured': {variant: 1e-6}}}
        json.dump(d, open(f, 'w'))
l2 = lambda x: 64 - len(bin(max(1, x) - 1)) + 2 if x > 1 else 0
def log2c(x):
    x = max(1, x); return (x - 1).bit_length()
def subn(x): return (x != 0) & (np.abs(x) < np.finfo(f32).tiny)
EDGES = [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025]
def size(big):
    r = rng.random()
    if r < 0.5: n = int(rng.choice(EDGES)) * int(rng.choice([1, 1, 3, 17, 257]))
    elif r < 0.8: n = int(rng.integers(1, big + 1))
    else: n = 2 ** int(rng.integers(4, max(5, int(np.log2(big)) + 1))) + int(rng.integers(-2, 3))
    return max(1, min(n, big))
MM = ['128x128x16/8x8', '128x128x8/8x8', '64x64x8/4x4', '32x32x8/2x2', '128x128x64/4x16', '64x64x64/4x4', '32x32x64/2x2']
C2 = ['window32x128', 'window32x64', 'window32x32', 'global128x64', 'global128x32', 'tile32x32', 'tile32x16', 'tile32x8', 'tile16x16', 'tile16x8', 'tile8x8']
C1 = ['items1', 'items2', 'items4', 'items8', 'items16', 'window4', 'window8']
for case in range(int(os.environ.get('N', 40))):
    op = rng.choice(['matmul', 'conv2d', 'conv1d', 'histogram', 'reduce'], p=[0.35, 0.25, 0.15, 0.15, 0.1])
    if op == 'matmul':
        m, k, n = size(300), size(20000), size(300)
        if m * k + k * n > 3_000_000: k = max(1, 3_000_000 // (m + n))
        v = str(rng.choice(MM))
        if rng.random() < 0.6: v += f'+splitk{int(rng.choice([1, 2, 3, 5, 7, 16, 64, 1000, 100000]))}'
        force(f'matmul/m<=2^{log2c(m)} n<=2^{log2c(n)} k<=2^{log2c(k)}', v)
        a = rng.integers(-8, 9, (m, k)).astype(f32); b = rng.integers(-8, 9, (k, n)).astype(f32)
        ex = a.astype(np.float64) @ b.astype(np.float64)
        check_all(f'forced {v} matmul {m}x{k}x{n}', ['matmul'], [a, b], lambda g, ex=ex: bounded(g, ex, 0.0))
    elif op == 'conv2d':
        hh, ww = size(600), size(600)
        kh, kw = 2 * int(rng.integers(0, 8)) + 1, 2 * int(rng.integers(0, 8)) + 1
        u8 = rng.random() < 0.4
        img = rng.integers(0, 256, (hh, ww), dtype=np.uint8) if u8 else rng.integers(-8, 9, (hh, ww)).astype(f32)
        f = rng.integers(-8, 9, (kh, kw)).astype(f32)
        border = str(rng.choice(['zero', 'clamp']))
        v = str(rng.choice(C2))
        force(f'conv2d/{"u8" if u8 else "f32"} {kh}x{kw} pixels<=2^{log2c(hh * ww)}', v)
        win = windows(img, f.shape, 'constant' if border == 'zero' else 'edge')
        ex = np.einsum('ijkl,kl->ij', win, f.astype(np.float64))
        check_all(f'forced {v} conv2d {img.dtype} {hh}x{ww} f{kh}x{kw} {border}', ['conv2d', '--border', border], [img, f], lambda g, ex=ex: bounded(g, ex, 0.0))
    elif op == 'conv1d':
        n = size(1 << 20); taps = 2 * int(rng.integers(0, 200)) + 1
        x = rng.integers(-8, 9, n).astype(f32); w = rng.integers(-8, 9, taps).astype(f32)
        v = str(rng.choice(C1))
        force(f'conv1d/taps<=2^{log2c(taps)} n<=2^{log2c(n)}', v)
        ex = windows(x[None, :], (1, taps), 'constant').reshape(n, taps) @ w.astype(np.float64)
        check_all(f'forced {v} conv1d n={n} taps={taps}', ['conv1d'], [x, w], lambda g, ex=ex: bounded(g, ex, 0.0))
    elif op == 'histogram':
        n = size(1 << 21); v = str(rng.choice(['shared', 'global-atomics']))
        kind = rng.choice(['u8', 'u32', 'f32'])
        if kind == 'u8':
            bins = int(rng.choice([1, 2, 17, 255, 256])); x = rng.integers(0, 256, n, dtype=np.uint8)
            exp = np.bincount(x[x < bins], minlength=bins)[:bins].astype(np.uint32); args = ['histogram', '--bins', str(bins)]
        elif kind == 'u32':
            bins = size(1 << 16); x = rng.integers(0, int(bins * 1.2) + 1, n, dtype=np.uint64).astype(np.uint32)
            exp = np.bincount(x[x < bins], minlength=bins)[:bins].astype(np.uint32); args = ['histogram', '--bins', str(bins)]
        else:
            bins = size(8192); x = rng.uniform(-1.2, 1.2, n).astype(f32)
            e = np.linspace(-1.0, 1.0, bins + 1).astype(f32); x[rng.integers(0, n, n // 10 + 1)] = e[rng.integers(0, bins + 1, n // 10 + 1)]
            exp = np.histogram(x, bins, range=(-1.0, 1.0))[0].astype(np.uint32); args = ['histogram', '--bins', str(bins), '--range', '-1,1']
        force(f'histogram/{kind} bins<=2^{log2c(bins)} n<=2^{log2c(n)}', v)
        check_all(f'forced {v} histogram {kind} n={n} bins={bins}', args, [x], lambda g, exp=exp: None if bits_equal(g, exp) else f'{np.count_nonzero(g != exp)} bins differ', cross_exact=True)
    else:
        n = size(1 << 22); v = str(rng.choice(['tree', 'subgroups', 'tree-one-launch', 'subgroups-one-launch']))
        dt = rng.choice(['f32', 'i32', 'u32']); red = str(rng.choice(['sum', 'min', 'max']))
        if dt == 'f32': x = rng.integers(-8, 9, n).astype(f32)
        else: x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
        if dt == 'u32': x = x.view(np.uint32)
        fn = {'sum': lambda v: np.sum(v.astype(np.float64)).astype(f32) if v.dtype == f32 else np.sum(v, dtype=v.dtype), 'min': np.min, 'max': np.max}[red]
        exp = np.array([fn(x)], x.dtype)
        force(f'reduce/{dt} {red} n<=2^{log2c(n)}', v)
        check_all(f'forced {v} reduce {red} {dt} n={n}', ['reduce', '--reduce', red], [x], lambda g, exp=exp: None if bits_equal(g, exp) else f'got {g} want {exp}')
summary()
