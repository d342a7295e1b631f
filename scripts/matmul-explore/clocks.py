# SM clock and power while cuBLAS and matmul.cu's 128x128x8/8x8 run 4096^3 back to back (CUDA events time them):
#   python3 scripts/matmul-explore/clocks.py
# What the clock is under each kernel sets its FP32 peak: SMs x 128 FMA lanes x 2 x clock.
import cupy as cp, numpy as np, subprocess, threading, time

def sample(stop, out):
    while not stop.is_set():
        r = subprocess.run(['nvidia-smi', '--query-gpu=clocks.sm,clocks.max.sm,power.draw,power.limit,clocks_throttle_reasons.active',
                            '--format=csv,noheader,nounits'], capture_output=True, text=True).stdout.strip()
        out.append(r)
        time.sleep(0.1)

def under_load(name, fn, seconds=3.0):
    fn(); cp.cuda.Device().synchronize()
    stop, out = threading.Event(), []
    t = threading.Thread(target=sample, args=(stop, out)); t.start()
    t0 = time.time(); n = 0; ev = []
    while time.time() - t0 < seconds:
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); fn(); e.record(); ev.append((s, e)); n += 1
        if len(ev) > 8: ev[0][1].synchronize(); ev.pop(0)
    cp.cuda.Device().synchronize(); stop.set(); t.join()
    ms = float(np.median([cp.cuda.get_elapsed_time(s, e) for s, e in ev]))
    sm = cp.cuda.runtime.getDeviceProperties(0)['multiProcessorCount']
    clocks = [int(l.split(',')[0]) for l in out[2:] if l]
    mhz = float(np.median(clocks)) if clocks else float('nan')
    print('%s: %.3f ms %.1f TFLOP/s; SM clock median %.0f MHz (peak at that clock %.1f TFLOP/s); samples: %s' % (
        name, ms, 2 * 4096 ** 3 / ms / 1e9, mhz, sm * 256 * mhz * 1e6 / 1e12, ' | '.join(out[2:8])), flush=True)

m = n = k = 4096
a = cp.random.standard_normal((m, k), dtype=cp.float32); b = cp.random.standard_normal((k, n), dtype=cp.float32)
c = cp.empty((m, n), cp.float32)
under_load('cublas', lambda: cp.matmul(a, b, out=c))
src = open('kernels/matmul/matmul.cu').read()
for tiling in [(128, 128, 8, 8, 8), (128, 128, 8, 8, 16)]:
    tm, tn, tk, thm, thn = tiling
    gs = (tm // thm) * (tn // thn)
    f = cp.RawKernel(src, 'matmul', options=('--std=c++17', '-default-device', '-DGROUP_SIZE=%du' % gs, '-DTILE_M=%du' % tm,
                     '-DTILE_N=%du' % tn, '-DTILE_K=%du' % tk, '-DTHREAD_M=%du' % thm, '-DTHREAD_N=%du' % thn))
    shared = 4 * tk * (tm + 4 + tn + 4) * 4
    f.max_dynamic_shared_size_bytes = shared
    under_load('matmul.cu %s' % (tiling,), lambda: f((n // tn, m // tm, 1), (gs,), (a, b, c, np.uint32(m), np.uint32(n), np.uint32(k), np.uint32(k)), shared_mem=shared))
