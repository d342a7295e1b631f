#!/usr/bin/env bash
# Session 7, call 8: C's tiles in bands of SWIZZLE tile rows (derive:swizzle) against matmul.cu's row order, CUDA through cupy.
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"
nvidia-smi -L | tee "$R/gpu.txt"
timeout 400 python3 scripts/matmul-explore/mm3.py .carry/swz.json 2>&1 | tee "$R/swizzle.txt"
