#!/usr/bin/env python3
"""Random shapes and adversarial values through `rosetta run`, against numpy:
    fuzz.py ROSETTA_BINARY SEL[,SEL...] [--cases N] [--seed S] [--small | --large] [--seconds T]

Each case picks an op, a shape biased towards the edges of the kernels' tiles
(1, primes, powers of two and their neighbours) and one of three kinds of
input: small integers stored as float32 (every sum is exact, so dropped or
repeated work shows as a wrong value, not as noise inside the error bound),
uniform values in [-1, 1], and values with NaN, ±Inf, ±0 and subnormals mixed
in. Float results must lie within the ops' error bounds (README.md, the
paragraph after "Layout"), exact-input and integer results must be equal. The same
seed gives the same cases; `--small` divides the largest sizes by 16 (for
CI), `--large` multiplies the largest lengths by 16 and the largest sides
of images and matrices by 4 and 2 (for a GPU machine: grid-striding,
multi-pass and split-k paths that small shapes never reach); `--seconds`
starts no case after that long (the cases run are reported). Exits 1 on any disagreement, printing the case
and a command that reproduces it."""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from reference import MIN_NORMAL, U, gamma, windows

EDGES = [1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1023, 1024, 1025]


class Case:
    """`check` judges the output; `refused`, when set, is the text of the
    usage error (exit 2) the case must get instead."""

    def __init__(self, name, args, inputs, check, refused=None):
        self.name, self.args, self.inputs, self.check = name, args, inputs, check
        self.refused = refused


SHRINK = 1
# --large: the bounds of lengths grow by GROW, of images' sides by
# GROW_IMAGE and of matrices' sides by GROW_MATRIX (all 1 otherwise, so that
# a seed gives the same cases as without the flag).
GROW = GROW_IMAGE = GROW_MATRIX = 1
# --large: the most float64 window elements a convolution's reference sums.
REFERENCE_BUDGET = 240_000_000


def size(rng, big, grow=None):
    """A length biased towards tile edges, at most `big` divided by SHRINK
    and times `grow` (GROW when not given)."""
    big = max(1, big * (GROW if grow is None else grow) // SHRINK)
    r = rng.random()
    if r < 0.5:
        n = int(rng.choice(EDGES)) * int(rng.choice([1, 1, 1, 3, 17, 257]))
    elif r < 0.8:
        n = int(rng.integers(1, big + 1))
    else:
        p = int(rng.integers(4, max(5, int(np.log2(big)) + 1)))
        n = 2 ** p + int(rng.integers(-2, 3))
    return max(1, min(n, big))


def values(rng, shape, kind):
    if kind == "exact":
        return rng.integers(-8, 9, shape).astype(np.float32)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    if kind == "special" and x.size:
        flat = x.reshape(-1)
        picks = rng.integers(0, flat.size, max(1, flat.size // 50))
        flat[picks] = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40], np.float32), picks.size)
    return x


def bounded(got, exact, bound):
    exact = np.asarray(exact, np.float64)
    if got.shape != exact.shape:
        return f"shape {got.shape}, expected {exact.shape}"
    g = got.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(exact)
    same_inf = np.isinf(exact) & (g == exact)
    ok = both_nan | same_inf | (np.abs(g - exact) <= bound)
    if not ok.all():
        i = int(np.argmax(~ok.reshape(-1)))
        return f"element {i}: got {g.reshape(-1)[i]!r}, expected {exact.reshape(-1)[i]!r} ± {np.broadcast_to(bound, exact.shape).reshape(-1)[i]!r}"
    return None


def equal(got, expected):
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return f"shape/dtype {got.shape} {got.dtype}, expected {expected.shape} {expected.dtype}"
    if not np.array_equal(got, expected, equal_nan=got.dtype.kind == "f"):
        i = int(np.argmax((got != expected).reshape(-1)))
        return f"element {i}: got {got.reshape(-1)[i]!r}, expected {expected.reshape(-1)[i]!r}"
    return None


def subnormal(x):
    return (x != 0) & (np.abs(x) < np.finfo(np.float32).tiny)


def sum_reference(x):
    """float64 sum and the bound (n-1)·u·Σ|x| plus the underflow allowance
    (subnormal terms, 2⁻¹²⁶ per addition); NaN if any NaN or both infinities."""
    x64 = x.astype(np.float64)
    finite = np.isfinite(x64)
    tiny = np.sum(np.abs(x64[subnormal(x)]))
    return np.sum(x64), max(x.size - 1, 0) * U * np.sum(np.abs(x64[finite])) + tiny + max(x.size - 1, 0) * MIN_NORMAL


def conv(x, w, mode):
    win = windows(x, w.shape, mode)
    w64 = w.astype(np.float64)
    taps = w.size
    with np.errstate(invalid="ignore", over="ignore"):
        exact = np.einsum("ijkl,kl->ij", win, w64)
        finite = np.abs(np.where(np.isfinite(win), win, 0))
        absum = np.einsum("ijkl,kl->ij", finite, np.abs(w64))
        # Underflow allowance: terms with a subnormal input, 2⁻¹²⁶ per operation.
        sub_win = subnormal(win.astype(np.float32))
        sub_w = subnormal(w)
        tiny = np.einsum("ijkl,kl->ij", finite * ~sub_win, np.abs(w64) * sub_w) + \
            np.einsum("ijkl,kl->ij", finite * sub_win, np.abs(w64))
    return exact, absum, gamma(taps) * absum + tiny + 2 * taps * MIN_NORMAL


def make_case(rng):
    op = rng.choice(["copy", "reduce", "scan", "histogram", "conv1d", "conv2d", "matmul"])
    kind = rng.choice(["exact", "uniform", "special"], p=[0.5, 0.3, 0.2])
    if op == "copy":
        dtype = rng.choice(["f32", "i32", "u32"])
        n = size(rng, 1 << 20)
        x = values(rng, n, kind) if dtype == "f32" else rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        x = x.view(np.int32) if dtype == "i32" else x
        return Case(f"copy {dtype} n={n} {kind}", ["copy"], [x], lambda g: equal(g, x))
    if op == "reduce":
        red = rng.choice(["sum", "min", "max"])
        dtype = rng.choice(["f32", "i32", "u32"])
        n = size(rng, 1 << 22)
        if dtype == "f32":
            x = values(rng, n, kind)
            if red == "sum":
                exact, bound = sum_reference(x)
                return Case(f"reduce sum f32 n={n} {kind}", ["reduce"], [x],
                            lambda g: bounded(g, [exact], 0.0 if kind == "exact" else bound))
            fn = np.min if red == "min" else np.max
            return Case(f"reduce {red} f32 n={n} {kind}", ["reduce", "--reduce", red], [x],
                        lambda g: equal(g, np.array([fn(x)], np.float32)))
        x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
        x = x.view(np.uint32) if dtype == "u32" else x
        fn = {"sum": lambda v: np.sum(v, dtype=v.dtype), "min": np.min, "max": np.max}[red]
        return Case(f"reduce {red} {dtype} n={n}", ["reduce", "--reduce", red], [x],
                    lambda g: equal(g, np.array([fn(x)], x.dtype)))
    if op == "scan":
        n = size(rng, 1 << 21)
        if rng.random() < 0.3:
            x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
            return Case(f"scan i32 n={n}", ["scan"], [x], lambda g: equal(g, np.cumsum(x, dtype=np.int32)))
        x = values(rng, n, kind if kind != "special" else "uniform")
        exact = np.cumsum(x.astype(np.float64))
        bound = 0.0 if kind == "exact" else np.arange(n) * U * np.cumsum(np.abs(x.astype(np.float64)))
        return Case(f"scan f32 n={n} {kind}", ["scan"], [x], lambda g: bounded(g, exact, bound))
    if op == "histogram":
        n = size(rng, 1 << 22)
        what = rng.choice(["u32", "u8", "f32"])
        if what == "u8":
            bins = int(rng.choice([1, 2, 100, 255, 256]))
            v = rng.integers(0, 256, n, dtype=np.uint8)
            if rng.random() < 0.3:
                v[:] = v[0]
            exp = np.bincount(v[v < bins], minlength=bins)[:bins].astype(np.uint32)
            return Case(f"histogram u8 n={n} bins={bins}", ["histogram", "--bins", str(bins)], [v],
                        lambda g: equal(g, exp))
        if what == "u32":
            bins = size(rng, 1 << 16)
            v = rng.integers(0, int(bins * 1.2) + 1, n, dtype=np.uint64).astype(np.uint32)
            if rng.random() < 0.2:
                v[:] = min(bins - 1, int(v[0]))
            exp = np.bincount(v[v < bins], minlength=bins)[:bins].astype(np.uint32)
            return Case(f"histogram u32 n={n} bins={bins}", ["histogram", "--bins", str(bins)], [v],
                        lambda g: equal(g, exp))
        bins = size(rng, 4096)
        lo = float(np.float32(rng.uniform(-100, 10)))
        hi = float(np.float32(lo + rng.choice([1e-3, 1.0, 37.5, 1e4])))
        v = values(rng, n, kind) * np.float32((hi - lo)) + np.float32(lo)
        edges = np.linspace(lo, hi, bins + 1)
        k = max(1, n // 20)
        v[rng.integers(0, n, k)] = edges[rng.integers(0, bins + 1, k)].astype(np.float32)
        v = v.astype(np.float32)
        name = f"histogram f32 n={n} bins={bins} range={lo!r},{hi!r} {kind}"
        args = ["histogram", "--bins", str(bins), "--range", f"{lo!r},{hi!r}"]
        # The range as Python floats, as the command line gives it: numpy
        # then computes the edges in float64 and rounds them to float32,
        # whatever its version (numpy >= 2 given float32 scalars computes
        # them in float32). Equal edges must be refused, as numpy >= 2.1
        # refuses them ("Too many bins for data range"; older numpy bins
        # into them), so that check does not depend on numpy's version.
        f32_edges = edges.astype(np.float32)
        if np.any(f32_edges[:-1] >= f32_edges[1:]):
            return Case(name, args, [v], None, refused="too narrow for its bins")
        with np.errstate(invalid="ignore"):
            exp = np.histogram(v[np.isfinite(v)], bins, range=(lo, hi))[0].astype(np.uint32)
        return Case(name, args, [v], lambda g: equal(g, exp))
    if op == "conv1d":
        n = size(rng, 1 << 20)
        taps = 2 * int(rng.integers(0, 32)) + 1
        if rng.random() < 0.15:
            # A filter past what shared memory or a register window holds
            # (the `direct` variant), over a signal short enough for numpy.
            taps = 2 * int(rng.integers(32, 10_001)) + 1
            n = min(n, max(1, 20_000_000 // SHRINK // taps))
        if GROW > 1:
            n = min(n, max(1, REFERENCE_BUDGET // taps))
        x, w = values(rng, n, kind), values(rng, taps, "exact" if kind == "exact" else "uniform")
        if kind == "exact" and taps > 1023:
            w = rng.integers(-1, 2, taps).astype(np.float32)  # sums stay below 2^24
        exact, _, bound = conv(x[None, :], w[None, :], "constant")
        bound = 0.0 if kind == "exact" else bound[0]
        return Case(f"conv1d n={n} taps={taps} {kind}", ["conv1d"], [x, w], lambda g: bounded(g, exact[0], bound))
    if op == "conv2d":
        h, w_ = size(rng, 700, GROW_IMAGE), size(rng, 700, GROW_IMAGE)
        fh, fw = 2 * int(rng.integers(0, 6)) + 1, 2 * int(rng.integers(0, 6)) + 1
        if rng.random() < 0.15:
            # A filter past what shared memory or registers hold (the
            # `direct` variant), over an image small enough for numpy.
            fh, fw = 2 * int(rng.integers(0, 60)) + 1, 2 * int(rng.integers(0, 60)) + 1
            while h * w_ * fh * fw > 15_000_000 // SHRINK:
                h, w_ = max(1, h // 2), max(1, w_ // 2)
        # --large: numpy's windows stay within REFERENCE_BUDGET elements.
        while GROW > 1 and h * w_ * fh * fw > REFERENCE_BUDGET:
            h, w_ = max(1, h // 2), max(1, w_ // 2)
        border = rng.choice(["zero", "clamp"])
        if rng.random() < 0.3:
            img = rng.integers(0, 256, (h, w_), dtype=np.uint8)
            kind = "exact"
        else:
            img = values(rng, (h, w_), kind)
        f = values(rng, (fh, fw), "exact" if kind == "exact" else "uniform")
        if kind == "exact" and fh * fw > 81:
            f = rng.integers(-1, 2, (fh, fw)).astype(np.float32)  # sums stay below 2^24
        exact, _, bound = conv(img, f, "constant" if border == "zero" else "edge")
        bound = 0.0 if kind == "exact" else bound
        return Case(f"conv2d {img.dtype} {h}x{w_} filter {fh}x{fw} {border} {kind}",
                    ["conv2d", "--border", border], [img, f], lambda g: bounded(g, exact, bound))
    # One case in five spans many whole tiles (the unchecked loads of
    # slices inside both matrices, several split-k chunks); the rest stay
    # within a few tiles, where most shapes are edges.
    side = 1500 if rng.random() < 0.2 else 300
    m, k, n = size(rng, side, GROW_MATRIX), size(rng, 1 << 14, GROW_MATRIX), size(rng, side, GROW_MATRIX)
    if m * k + k * n > (1 << 22) * GROW // SHRINK:
        k = max(1, (1 << 22) * GROW // SHRINK // (m + n))
    # One special operand: a flushed subnormal times an infinity is NaN
    # where IEEE gives an infinity, and devices may flush.
    a, b = values(rng, (m, k), kind), values(rng, (k, n), "uniform" if kind == "special" else kind)
    with np.errstate(invalid="ignore", over="ignore"):
        exact = a.astype(np.float64) @ b.astype(np.float64)
        fa = np.abs(np.where(np.isfinite(a), a, 0).astype(np.float64))
        fb = np.abs(np.where(np.isfinite(b), b, 0).astype(np.float64))
        sa, sb = subnormal(a), subnormal(b)
        tiny = (fa * sa) @ fb + (fa * ~sa) @ (fb * sb)
        bound = 0.0 if kind == "exact" else gamma(k) * (fa @ fb) + tiny + 2 * k * MIN_NORMAL
    return Case(f"matmul {m}x{k} @ {k}x{n} {kind}", ["matmul"], [a, b], lambda g: bounded(g, exact, bound))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("sels")
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--seconds", type=float, default=None)
    args = ap.parse_args()
    global SHRINK, GROW, GROW_IMAGE, GROW_MATRIX
    if args.small and args.large:
        ap.error("--small and --large exclude each other")
    SHRINK = 16 if args.small else 1
    if args.large:
        GROW, GROW_IMAGE, GROW_MATRIX = 16, 4, 2
    sels = args.sels.split(",")
    rng = np.random.default_rng(args.seed)
    failures = 0
    ran = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.cases):
            if args.seconds is not None and time.monotonic() - started > args.seconds:
                break
            ran += 1
            case = make_case(rng)
            paths = []
            for j, arr in enumerate(case.inputs):
                paths.append(os.path.join(tmp, f"case{i}_in{j}.npy"))
                np.save(paths[-1], arr)
            for sel in sels:
                out = os.path.join(tmp, "out.npy")
                cmd = [args.binary, "run", *case.args, "--backend", sel, *paths, "-o", out]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if case.refused is not None:
                    refused = proc.returncode == 2 and case.refused in proc.stderr
                    why = None if refused else \
                        f"exit {proc.returncode}, expected exit 2 ({case.refused}): {proc.stderr.strip()}"
                elif proc.returncode == 0:
                    why = case.check(np.load(out))
                elif "exceeds" in proc.stderr or "limit" in proc.stderr:
                    print(f"  skip {sel} {case.name}: {proc.stderr.strip()}")
                    continue
                else:
                    why = f"exit {proc.returncode}: {proc.stderr.strip()}"
                if why:
                    failures += 1
                    small = " --small" if args.small else " --large" if args.large else ""
                    print(f"FAIL {sel} case {i} ({case.name}): {why}\n"
                          f"  reproduce: --seed {args.seed} --cases {i + 1}{small}")
                else:
                    print(f"  ok {sel} {case.name}")
    print(f"fuzz: {ran} cases on {', '.join(sels)}:", "FAIL" if failures else "PASS")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
