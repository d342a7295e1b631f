#!/usr/bin/env bash
# Session 7, call 3: staged stores of C in GLSL ([[unroll]] on the epilogue's loops) and WGSL (constant trip counts), against HEAD (old).
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s3.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
nvidia-smi -L > "$W/gpu.txt"; cat "$W/gpu.txt"
export RUST_LOG=warn
run() { # bin api round
  local f="$W/bench-$1-$(echo $2 | tr ":" "-")-r$3.txt"
  ROSETTA_CACHE_DIR=/tmp/rc-$1 timeout 60 /tmp/b/rosetta-$1 bench --backend $2 --op matmul --size large > "$f" 2>&1
  grep "matmul" "$f" | awk -v t="$1 $2 r$3" '{print t, $4, $5, $6, $7}'
}
for round in 1 2; do
  for api in vulkan wgpu:0; do run old $api $round; run new $api $round; done
done
for bin in old new; do
  ROSETTA_VULKAN_STATISTICS=1 RUST_LOG=rosetta_backend_vulkan=info ROSETTA_CACHE_DIR=/tmp/rc-s-$bin timeout 60 /tmp/b/rosetta-$bin bench --backend vulkan --op matmul --size large > "$W/stats-$bin.txt" 2>&1
  grep -i -E "matmul.*(regist|local|shared|spill)|statistic" "$W/stats-$bin.txt" | head -12
done
