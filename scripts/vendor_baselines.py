#!/usr/bin/env python3
"""Vendor-library baselines for the benchmark's workloads, on the GPU in hand, with
CUDA events (median of repeated runs after warm-up). Prints a table and, with
an argument, writes JSON: vendor_baselines.py [OUT.json]

Needs torch (and cupy for CUB's sum, if present). Matmul runs in strict f32
(TF32 off), as rosetta does."""

import json
import sys

import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")


def time_ms(fn, reps=20, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


rows = []


def add(workload, library, ms, gbytes=None, gflop=None):
    row = {"workload": workload, "library": library, "ms": ms}
    if gbytes is not None:
        row["gbps"] = gbytes / (ms / 1e3)
    if gflop is not None:
        row["gflops"] = gflop / (ms / 1e3)
    rows.append(row)


n = 1 << 28
x = torch.rand(n, device=dev) * 2 - 1
y = torch.empty_like(x)
add("copy n=2^28", "torch", time_ms(lambda: y.copy_(x)), gbytes=2 * n * 4 / 1e9)
add("sum f32 n=2^28", "torch", time_ms(lambda: x.sum()), gbytes=n * 4 / 1e9)
for log in range(16, 23, 2):
    small = x[: 1 << log].clone()
    add(f"sum f32 n=2^{log}", "torch", time_ms(lambda: small.sum()), gbytes=(1 << log) * 4 / 1e9)
# Prefix sum: read + write.
add("scan f32 n=2^28", "torch.cumsum", time_ms(lambda: torch.cumsum(x, 0, out=y)), gbytes=2 * n * 4 / 1e9)
try:
    import cupy

    cx = cupy.asarray(x)
    add("sum f32 n=2^28", "cupy (CUB)", time_ms(lambda: cx.sum()), gbytes=n * 4 / 1e9)
    add("scan f32 n=2^28", "cupy.cumsum (CUB)", time_ms(lambda: cupy.cumsum(cx)), gbytes=2 * n * 4 / 1e9)
except Exception as e:  # cupy missing or failing: the torch rows stand
    print("cupy:", e, file=sys.stderr)
# Histograms of what users' data looks like: uniform, skewed (a normal
# distribution around bin 128, sd 16), constant (every value in one bin).
uniform = torch.randint(0, 256, (n,), device=dev, dtype=torch.int32)
skewed = (torch.randn(n, device=dev) * 16 + 128).clamp(0, 255).to(torch.int32)
constant = torch.full((n,), 17, device=dev, dtype=torch.int32)
for name, v in (("uniform", uniform), ("skewed", skewed), ("constant", constant)):
    vf = v.float()
    add(f"256 bins n=2^28 {name}", "torch.histc", time_ms(lambda: torch.histc(vf, 256, 0, 256)), gbytes=(n + 256) * 4 / 1e9)
    add(f"256 bins n=2^28 {name}", "torch.bincount", time_ms(lambda: torch.bincount(v, minlength=256)), gbytes=(n + 256) * 4 / 1e9)
    del vf
u8 = uniform.to(torch.uint8)
add("256 bins n=2^28 u8", "torch.bincount", time_ms(lambda: torch.bincount(u8, minlength=256)), gbytes=(n + 256 * 4) / 1e9)
del uniform, skewed, constant, u8, y

img = torch.rand(1, 1, 8192, 8192, device=dev)
filt = torch.rand(1, 1, 5, 5, device=dev)
px = 8192 * 8192
add("8192x8192 filter 5x5", "cuDNN (torch)", time_ms(lambda: F.conv2d(img, filt, padding=2)),
    gbytes=(2 * px + 25) * 4 / 1e9, gflop=2 * px * 25 / 1e9)
sig = torch.rand(1, 1, 1 << 26, device=dev)
taps = torch.rand(1, 1, 9, device=dev)
add("n=2^26 taps=9", "cuDNN (torch)", time_ms(lambda: F.conv1d(sig, taps, padding=4)),
    gbytes=(2 * (1 << 26) + 9) * 4 / 1e9, gflop=2 * (1 << 26) * 9 / 1e9)
del img, sig, x

for side in (4096, 2048, 1024):
    a = torch.rand(side, side, device=dev)
    b = torch.rand(side, side, device=dev)
    add(f"{side}x{side}x{side}", "cuBLAS (torch, no TF32)", time_ms(lambda: a @ b),
        gbytes=3 * side * side * 4 / 1e9, gflop=2 * side**3 / 1e9)

print(f"{torch.cuda.get_device_name()} (torch {torch.__version__})")
for r in rows:
    extra = []
    if "gbps" in r:
        extra.append(f"{r['gbps']:.1f} GB/s")
    if "gflops" in r:
        extra.append(f"{r['gflops']:.1f} GFLOP/s")
    print(f"{r['workload']:<24} {r['library']:<26} {r['ms']:9.4f} ms  {'  '.join(extra)}")
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)
