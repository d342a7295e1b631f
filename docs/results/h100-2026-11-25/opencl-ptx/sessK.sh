#!/usr/bin/env bash
# Session F, run 6: GLSL matmul with fma() (v8) and without unroll hints (v4), on Vulkan; the committed binary as the baseline.
set -u
. .gl/env.sh
export RUST_LOG=warn
nvidia-smi -L
for v in v8 v4; do xz -dc .carry/rosetta-$v.xz > /tmp/rosetta-$v && chmod +x /tmp/rosetta-$v; done
for v in base v8 v4; do
  bin=/tmp/rosetta-$v; [ $v = base ] && bin=.carry/rosetta
  echo "== $v"
  ROSETTA_CACHE_DIR=/tmp/rc-$v ROSETTA_VULKAN_STATISTICS=1 RUST_LOG=info timeout 100 $bin bench --backend vulkan --op matmul --size large 2>&1 | grep -E "vulkan:0  matmul|TILE_M=128 TILE_N=128 TILE_K=8|rror" | cut -c1-260 | head -6
done
