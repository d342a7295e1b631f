from h import *
def eq(expected):
    def c(g):
        if bits_equal(g, expected): return None
        if g.shape != expected.shape: return f'shape {g.shape} vs {expected.shape}'
        bad = np.nonzero(g != expected)[0]
        return f'{len(bad)} differ, first {bad[:5]}: got {g[bad[:5]]}, expected {expected[bad[:5]]}'
    return c
n = (1 << 25) - 3
x = np.ones(n, np.int32)
check_all(f'sum i32 ones n={n}', ['reduce'], [x], eq(np.array([n], np.int32)))
x[-1] = -7; x[n // 3] = -9
check_all(f'min i32 n={n}', ['reduce', '--reduce', 'min'], [x], eq(np.array([-9], np.int32)))
check_all(f'scan i32 n={n}', ['scan'], [x], eq(np.cumsum(x, dtype=np.int32)))
del x
n8 = (1 << 27) - 1
v = np.full(n8, 7, np.uint8); v[-1] = 200; v[0] = 0
exp = np.zeros(256, np.uint32); exp[7] = n8 - 2; exp[200] = 1; exp[0] = 1
check_all(f'hist u8 n={n8}', ['histogram'], [v], eq(exp))
del v
vf = np.full(n, 0.25, np.float32); vf[-1] = 0.75
exp = np.zeros(4, np.uint32); exp[1] = n - 1; exp[3] = 1
check_all(f'hist f32 n={n}', ['histogram', '--bins', '4', '--range', '0,1'], [vf], eq(exp))
summary()
