from h import *
rng = np.random.default_rng(13)
f32 = np.float32
def positions(n):
    ps = {0, n - 1}
    for t in [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536, 1 << 18, 1 << 20]:
        for m in [1, 2, 3, 7, (n // t)]:
            for d in [-1, 0, 1]:
                p = m * t + d
                if 0 <= p < n: ps.add(p)
    return sorted(ps)
for n in [1000, 4099, 65537, 262147, (1 << 20) + 7, (1 << 22) + 1, 5_000_011]:
    ps = positions(n)
    # groups of up to 24 impulses with distinct powers of two
    for g in range(0, len(ps), 24):
        chunk = ps[g:g + 24]
        x = np.zeros(n, f32)
        for j, p in enumerate(chunk): x[p] = 2.0 ** j
        want = float(sum(2.0 ** j for j in range(len(chunk))))
        check_all(f'impulse sum n={n} pos={chunk[:3]}..', ['reduce'], [x], lambda g, w=want: None if g[0] == w else f'got {g[0]!r} want {w} (diff {g[0]-w})')
        check_all(f'impulse scan n={n} pos={chunk[:3]}..', ['scan'], [x], lambda g, e=np.cumsum(x.astype(np.float64)).astype(f32): None if np.array_equal(g, e) else f'{np.count_nonzero(g != e)} differ, first at {np.argmax(g != e)}')
        xi = x.astype(np.int32)
        check_all(f'impulse scan i32 n={n}', ['scan'], [xi], lambda g, e=np.cumsum(xi, dtype=np.int32): None if np.array_equal(g, e) else f'{np.count_nonzero(g != e)} differ, first at {np.argmax(g != e)}')
        taps = np.array([1, 2, 4, 8, 16], f32)
        ex = np.convolve(x.astype(np.float64), taps[::-1].astype(np.float64), mode='same')
        check_all(f'impulse conv1d n={n}', ['conv1d'], [x, taps], lambda g, e=ex: None if np.array_equal(g.astype(np.float64), e) else f'{np.count_nonzero(g != e)} differ, first at {np.argmax(g != e)}')
summary()
