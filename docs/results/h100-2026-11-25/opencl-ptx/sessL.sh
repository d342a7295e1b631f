#!/usr/bin/env bash
# Session F, run 7: GLSL kernels without [[unroll]] hints (vall: conv1d, conv2d, matmul) against the committed binary, on Vulkan; conformance of vall.
set -u
. .gl/env.sh
export RUST_LOG=warn
nvidia-smi -L
xz -dc .carry/rosetta-vall.xz > /tmp/rosetta-vall && chmod +x /tmp/rosetta-vall
for v in base vall base2 vall2; do
  bin=/tmp/rosetta-vall; case $v in base*) bin=.carry/rosetta;; esac
  echo "== $v"
  ROSETTA_CACHE_DIR=/tmp/rc-${v%2} timeout 100 $bin bench --backend vulkan --op conv1d --op conv2d --op matmul --size large 2>&1 | grep -E "vulkan:0  (conv|matmul)|rror" | cut -c1-150
done
echo "== conform vall"
ROSETTA_CACHE_DIR=/tmp/rcc-vall timeout 100 /tmp/rosetta-vall conform --backend vulkan --case conv1d --case conv2d --case matmul 2>&1 | tail -3
