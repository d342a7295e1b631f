#!/usr/bin/env python3
"""What CUDA's launch floor is made of (run on the GPU machine; cupy is there).

Times a one-word copy kernel and cupy's sum of 2^20 f32 (CUB) with CUDA
events, as `rosetta bench` does (event, work, event, from an idle GPU), and
again with a spin kernel enqueued first, so that the host has enqueued the
events and the work before the GPU reaches them: the difference is host
enqueue time inside the interval. Medians of 2000 samples, microseconds.
"""
import cupy as cp
import numpy as np

copy = cp.RawKernel(r'''
extern "C" __global__ void copy1(const unsigned* a, unsigned* b) { b[threadIdx.x] = a[threadIdx.x]; }
''', 'copy1')
spin = cp.RawKernel(r'''
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
}
''', 'spin')

a = cp.ones(1, cp.uint32)
b = cp.zeros(1, cp.uint32)
x = cp.ones(1 << 20, cp.float32)
e0, e1 = cp.cuda.Event(), cp.cuda.Event()


def one_word():
    copy((1,), (1,), (a, b))


def cub_sum():
    return x.sum()


def median_us(work, gated, samples=2000):
    times = []
    for _ in range(50):
        work()
    cp.cuda.Device().synchronize()
    for _ in range(samples):
        if gated:
            spin((1,), (1,), (np.int64(200_000),))  # ~100 µs at 1.98 GHz
        e0.record()
        work()
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1) * 1000.0)
    return float(np.median(times))


assert int(cub_sum()) == 1 << 20
for name, work in [("one-word copy (launch floor)", one_word), ("cupy sum 2^20 f32 (CUB)", cub_sum)]:
    print(f"{name}: idle {median_us(work, False):.1f} µs, behind a spin kernel {median_us(work, True):.1f} µs")
