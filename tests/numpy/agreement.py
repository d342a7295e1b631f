#!/usr/bin/env python3
"""`rosetta run` against numpy, for every op, on the devices named on the
command line:  agreement.py ROSETTA_BINARY SEL[,SEL...]

numpy computes each reference independently of rosetta's own host reference
(float64 accumulation; numpy.histogram for f32 bins; explicit padding for the
convolutions). Float results must lie within the error bounds in README.md
(the paragraph after "Layout"), integer results must be equal. Exits 1 on any disagreement."""

import os
import subprocess
import sys
import tempfile

import numpy as np

from reference import U, gamma, windows


def run(binary, sel, args, inputs, tmp):
    paths = []
    for i, arr in enumerate(inputs):
        p = os.path.join(tmp, f"in{i}.npy")
        np.save(p, arr)
        paths.append(p)
    out = os.path.join(tmp, "out.npy")
    cmd = [binary, "run", *args, "--backend", sel, *paths, "-o", out]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return np.load(out)


def check_bounded(name, got, exact, bound):
    err = np.abs(got.astype(np.float64) - exact)
    bad = ~(err <= bound)
    if got.shape != exact.shape or bad.any():
        i = int(np.argmax(bad)) if got.shape == exact.shape else -1
        return f"{name}: shape {got.shape} vs {exact.shape}, first bad at {i}"
    ratio = float(np.max(np.where(bound > 0, err / np.where(bound > 0, bound, 1), 0))) if err.size else 0.0
    print(f"  ok {name} (worst error/bound {ratio:.2e})")
    return None


def check_equal(name, got, expected):
    if got.shape != expected.shape or not np.array_equal(got, expected, equal_nan=got.dtype.kind == "f"):
        return f"{name}: got {got.ravel()[:8]}..., expected {expected.ravel()[:8]}..."
    print(f"  ok {name}")
    return None


def conv_reference(x, w, pad_mode):
    """Cross-correlation with a centred odd filter, same-size output, float64."""
    win = windows(x, w.shape, pad_mode)
    exact = np.einsum("ijkl,kl->ij", win, w.astype(np.float64))
    absum = np.einsum("ijkl,kl->ij", np.abs(win), np.abs(w.astype(np.float64)))
    return exact, absum


def main():
    binary, sels = sys.argv[1], sys.argv[2].split(",")
    rng = np.random.default_rng(20261121)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for sel in sels:
            print(f"{sel}:")
            x = rng.uniform(-1, 1, 100_003).astype(np.float32)
            got = run(binary, sel, ["reduce", "--reduce", "sum"], [x], tmp)
            exact = np.sum(x, dtype=np.float64)
            failures.append(check_bounded("reduce sum f32", got, np.array([exact]),
                                          (x.size - 1) * U * np.sum(np.abs(x), dtype=np.float64)))
            xn = x.copy()
            xn[777] = np.nan
            for op, fn in (("min", np.min), ("max", np.max)):
                failures.append(check_equal(f"reduce {op} f32", run(binary, sel, ["reduce", "--reduce", op], [x], tmp),
                                            np.array([fn(x)], dtype=np.float32)))
                failures.append(check_equal(f"reduce {op} f32 with NaN",
                                            run(binary, sel, ["reduce", "--reduce", op], [xn], tmp),
                                            np.array([fn(xn)], dtype=np.float32)))
            xi = rng.integers(-2**31, 2**31, 65_537, dtype=np.int64).astype(np.int32)
            failures.append(check_equal("reduce sum i32 (wraps)", run(binary, sel, ["reduce"], [xi], tmp),
                                        np.array([np.sum(xi, dtype=np.int32)], dtype=np.int32)))
            xu = xi.view(np.uint32)
            failures.append(check_equal("reduce max u32", run(binary, sel, ["reduce", "--reduce", "max"], [xu], tmp),
                                        np.array([np.max(xu)], dtype=np.uint32)))

            # scan: numpy.cumsum (integers wrap; f32 output i within i·u·Σ|x_j|)
            xs = rng.uniform(-1, 1, 10_007).astype(np.float32)
            exact = np.cumsum(xs.astype(np.float64))
            bound = np.arange(xs.size) * U * np.cumsum(np.abs(xs.astype(np.float64)))
            failures.append(check_bounded("scan f32", run(binary, sel, ["scan"], [xs], tmp), exact, bound))
            failures.append(check_equal("scan i32 (wraps)", run(binary, sel, ["scan"], [xi], tmp),
                                        np.cumsum(xi, dtype=np.int32)))
            # Signed zeros, by bits: numpy.cumsum stays -0 while only -0s are
            # added; the max of -0s is -0.
            zeros = np.where(np.arange(5_000) < 4_000, np.float32(-0.0), np.float32(0.0)).astype(np.float32)
            zeros[4_500] = 1.0
            failures.append(check_equal("scan f32 signed zeros (bits)",
                                        run(binary, sel, ["scan"], [zeros], tmp).view(np.uint32),
                                        np.cumsum(zeros).view(np.uint32)))
            neg = np.full(3_001, -0.0, np.float32)
            failures.append(check_equal("reduce max of -0s (bits)",
                                        run(binary, sel, ["reduce", "--reduce", "max"], [neg], tmp).view(np.uint32),
                                        np.array([np.max(neg)], np.float32).view(np.uint32)))

            v = rng.integers(0, 300, 100_000, dtype=np.uint32)
            failures.append(check_equal("histogram u32 256 bins",
                                        run(binary, sel, ["histogram", "--bins", "256"], [v], tmp),
                                        np.bincount(v[v < 256], minlength=256).astype(np.uint32)))
            pixels = rng.integers(0, 256, 100_003, dtype=np.uint8)
            failures.append(check_equal("histogram u8 (256 bins by default)",
                                        run(binary, sel, ["histogram"], [pixels], tmp),
                                        np.bincount(pixels, minlength=256).astype(np.uint32)))
            f = rng.uniform(-1.5, 1.5, 100_000).astype(np.float32)
            edges = np.linspace(-1.0, 1.0, 101).astype(np.float32)
            f[::97] = edges[(np.arange(f[::97].size) % edges.size)]
            f[5] = np.nan
            failures.append(check_equal("histogram f32 100 bins over [-1, 1]",
                                        run(binary, sel, ["histogram", "--bins", "100", "--range", "-1,1"], [f], tmp),
                                        np.histogram(f, 100, range=(-1.0, 1.0))[0].astype(np.uint32)))
            # An empty range widens by a half each way, as numpy widens it.
            for lo_hi, rng_tuple in (("1,1", (1.0, 1.0)), ("-0,0", (-0.0, 0.0))):
                failures.append(check_equal(f"histogram f32 4 bins over [{lo_hi}]",
                                            run(binary, sel, ["histogram", "--bins", "4", "--range", lo_hi], [f], tmp),
                                            np.histogram(f, 4, range=rng_tuple)[0].astype(np.uint32)))

            s = rng.uniform(-1, 1, 10_001).astype(np.float32)
            taps = rng.uniform(-1, 1, 9).astype(np.float32)
            exact, absum = conv_reference(s[None, :], taps[None, :], "constant")
            failures.append(check_bounded("conv1d 9 taps", run(binary, sel, ["conv1d"], [s, taps], tmp),
                                          exact[0], gamma(9) * absum[0]))
            img = rng.uniform(-1, 1, (123, 77)).astype(np.float32)
            filt = rng.uniform(-1, 1, (5, 7)).astype(np.float32)
            for border, mode in (("zero", "constant"), ("clamp", "edge")):
                exact, absum = conv_reference(img, filt, mode)
                failures.append(check_bounded(f"conv2d 5x7 {border}",
                                              run(binary, sel, ["conv2d", "--border", border], [img, filt], tmp),
                                              exact, gamma(35) * absum))
            img8 = rng.integers(0, 256, (61, 97), dtype=np.uint8)
            exact, absum = conv_reference(img8, filt, "edge")
            failures.append(check_bounded("conv2d u8 image 5x7 clamp",
                                          run(binary, sel, ["conv2d", "--border", "clamp"], [img8, filt], tmp),
                                          exact, gamma(35) * absum))
            a = rng.uniform(-1, 1, (65, 129)).astype(np.float32)
            b = rng.uniform(-1, 1, (129, 17)).astype(np.float32)
            exact = a.astype(np.float64) @ b.astype(np.float64)
            absum = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
            failures.append(check_bounded("matmul 65x129 @ 129x17", run(binary, sel, ["matmul"], [a, b], tmp),
                                          exact, gamma(129) * absum))
    failures = [f for f in failures if f]
    for f in failures:
        print("FAIL", f)
    print("numpy agreement:", "FAIL" if failures else "PASS")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
