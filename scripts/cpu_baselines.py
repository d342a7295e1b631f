#!/usr/bin/env python3
"""numpy baselines for the CPU backend's large preset, on this machine: the
same workloads as `rosetta bench --backend cpu --size large --op reduce
--op conv1d --op matmul`, timed with the host clock (median of repeated runs
after warm-up). Prints JSON (and writes it to OUT.json if given):

    cpu_baselines.py [OUT.json]

(with a python3 that has numpy: on Debian, /usr/bin/python3 and
python3-numpy; a pyenv python3 earlier in PATH may lack it).

What is timed, and how it matches rosetta's op:
- sum f32 n=2^26: `np.sum(x)` on float32. numpy accumulates in float32 too
  (pairwise summation in blocks), as rosetta's f32 sum does.
- conv1d n=2^24 taps=9: `np.correlate(x, w, "same")` on float32. For an odd
  number of taps that is exactly rosetta's op, out[i] = sum_j w[j] x[i + j - 4]
  with zeros outside the signal (a same-size, centred cross-correlation;
  `np.convolve` would flip the taps). Checked against a direct sum below.
- matmul 1024x1024x1024: `a @ b` on float32 (row-major), through whatever
  BLAS numpy loads. Debian's python3-numpy links the reference BLAS
  (libblas3) unless an optimised one is installed: run with
  LD_LIBRARY_PATH=<dir of libopenblas0-pthread's libblas.so.3> (or install
  libopenblas0) for the OpenBLAS number. The JSON names the library loaded.

Runs on every core numpy uses (sum and correlate are single-threaded in
numpy; OpenBLAS uses all cores).
"""

import json
import os
import sys
import time

import numpy as np


def median_ms(fn, reps=15, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e3, times[0] * 1e3


def blas_library():
    """The BLAS shared object numpy has loaded, from this process's maps."""
    try:
        with open("/proc/self/maps") as maps:
            libs = {line.split()[-1] for line in maps if "blas" in line.lower()}
    except OSError:
        return "unknown"
    return ", ".join(sorted(os.path.basename(p) + " (" + p + ")" for p in libs)) or "unknown"


def check_correlate_matches_rosetta():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(50).astype(np.float32)
    w = rng.standard_normal(9).astype(np.float32)
    r = len(w) // 2
    padded = np.concatenate([np.zeros(r, np.float32), x, np.zeros(r, np.float32)])
    direct = np.array([np.dot(w.astype(np.float64), padded[i : i + len(w)]) for i in range(len(x))])
    got = np.correlate(x, w, "same")
    assert got.shape == x.shape and np.allclose(got, direct, rtol=1e-5, atol=1e-5), "np.correlate is not rosetta's conv1d"


rows = []


def add(workload, call, ms, best_ms, gbytes=None, gflop=None):
    row = {"workload": workload, "numpy": call, "median_ms": ms, "min_ms": best_ms}
    if gbytes is not None:
        row["gbps"] = gbytes / (ms / 1e3)
    if gflop is not None:
        row["gflops"] = gflop / (ms / 1e3)
    rows.append(row)


def main():
    check_correlate_matches_rosetta()
    rng = np.random.default_rng(0)

    n = 1 << 26
    x = (rng.random(n, dtype=np.float32) * 2 - 1).astype(np.float32)
    y = np.empty_like(x)
    add("copy n=2^26", "np.copyto(y, x)", *median_ms(lambda: np.copyto(y, x)), gbytes=2 * n * 4 / 1e9)
    add("sum f32 n=2^26", "np.sum(x) (float32 accumulation)", *median_ms(lambda: np.sum(x)), gbytes=n * 4 / 1e9)
    del x, y

    n = 1 << 24
    x = (rng.random(n, dtype=np.float32) * 2 - 1).astype(np.float32)
    w = (rng.random(9, dtype=np.float32) * 2 - 1).astype(np.float32)
    add(
        "n=2^24 taps=9",
        'np.correlate(x, w, "same")',
        *median_ms(lambda: np.correlate(x, w, "same"), reps=9),
        gbytes=(2 * n + 9) * 4 / 1e9,
        gflop=2 * n * 9 / 1e9,
    )
    del x

    s = 1024
    a = rng.random((s, s), dtype=np.float32)
    b = rng.random((s, s), dtype=np.float32)
    add(
        "1024x1024x1024",
        "a @ b",
        *median_ms(lambda: a @ b, reps=9),
        gbytes=3 * s * s * 4 / 1e9,
        gflop=2 * s**3 / 1e9,
    )

    report = {
        "schema": "rosetta-cpu-baselines/1",
        "numpy": np.__version__,
        "blas": blas_library(),
        "cpus": os.cpu_count(),
        "results": rows,
    }
    text = json.dumps(report, indent=2)
    print(text)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
