import os, subprocess, sys, tempfile, numpy as np
sys.path.insert(0, os.environ.get('NUMPY_REF', '/work/main/tests/numpy'))
from reference import U, MIN_NORMAL, gamma, windows
BIN = os.environ.get('ROSETTA_BIN', '/work/main/target/release/rosetta')
os.environ['XDG_RUNTIME_DIR'] = '/tmp/rosetta-runtime-0'
DEVS = os.environ.get('DEVS', 'cpu,vulkan,wgpu:0,opencl:0').split(',')
TMP = tempfile.mkdtemp(prefix='adv')
FAILS = []
_n = [0]

def save(arr):
    _n[0] += 1
    p = os.path.join(TMP, f'in{_n[0]}.npy')
    if isinstance(arr, (bytes, bytearray)):
        open(p, 'wb').write(arr)
    else:
        np.save(p, arr)
    return p

def run(args, inputs, dev):
    paths = [i if isinstance(i, str) else save(i) for i in inputs]
    out = os.path.join(TMP, 'out.npy')
    if os.path.exists(out): os.remove(out)
    cmd = [BIN, 'run', *args, '--backend', dev, *paths, '-o', out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    res = np.load(out) if p.returncode == 0 else None
    return p.returncode, p.stderr.strip(), res, cmd

def fail(name, msg):
    FAILS.append(f'{name}: {msg}')
    print('FAIL', name, msg, flush=True)

def ok(name, msg=''):
    print('  ok', name, msg, flush=True)

def bits_equal(a, b):
    a = np.asarray(a); b = np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype: return False
    if a.dtype.kind == 'f':
        return np.array_equal(a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint8), b.view(np.uint32 if b.dtype.itemsize == 4 else np.uint8))
    return np.array_equal(a, b)

def bounded(got, exact, bound):
    exact = np.asarray(exact, np.float64)
    if got.shape != exact.shape: return f'shape {got.shape} vs {exact.shape}'
    g = got.astype(np.float64)
    ok_ = (np.isnan(g) & np.isnan(exact)) | (np.isinf(exact) & (g == exact)) | (np.abs(g - exact) <= bound)
    if not ok_.all():
        i = int(np.argmax(~ok_.reshape(-1)))
        return f'element {i} (of {ok_.size}, {int((~ok_).sum())} bad): got {g.reshape(-1)[i]!r}, expected {exact.reshape(-1)[i]!r} ± {np.broadcast_to(bound, exact.shape).reshape(-1)[i]!r}'
    return None

def check_all(name, args, inputs, check=None, expect_rc=0, expect_text=None, cross_exact=False, devs=None):
    """check(res) -> None or message. expect_rc: required exit code."""
    inputs = [i if isinstance(i, str) else save(i) for i in inputs]
    results = {}
    for d in (devs or DEVS):
        rc, err, res, cmd = run(args, inputs, d)
        tag = f'{name} [{d}]'
        if 'panick' in err or 'RUST_BACKTRACE' in err or rc not in (0, 1, 2):
            fail(tag, f'PANIC/odd rc={rc}: {err[:400]} | {" ".join(cmd)}'); continue
        if err.count('\n') > 0 and rc != 0:
            fail(tag, f'multi-line error rc={rc}: {err[:400]}')
        if rc != expect_rc:
            fail(tag, f'rc={rc} expected {expect_rc}: {err[:300]} | {" ".join(cmd)}'); continue
        if rc != 0:
            if expect_text and expect_text not in err:
                fail(tag, f'error text lacks {expect_text!r}: {err}')
            else:
                ok(tag, f'refused: {err[:150]}')
            continue
        if err: print('   stderr:', err[:200])
        results[d] = res
        if check:
            m = check(res)
            if m: fail(tag, m + ' | ' + ' '.join(cmd))
            else: ok(tag)
    if cross_exact and len(results) > 1:
        ds = list(results)
        for d in ds[1:]:
            if not bits_equal(results[ds[0]], results[d]):
                fail(name, f'devices differ bitwise: {ds[0]} vs {d}')
    return results

def summary():
    print(f'\n{len(FAILS)} failures')
    for f in FAILS: print(' ', f)
