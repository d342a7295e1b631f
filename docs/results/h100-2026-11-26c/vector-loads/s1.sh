#!/usr/bin/env bash
# Session 6, call 1: 16-byte global loads in GLSL/WGSL matmul (VECTOR_LOADS), old vs new.
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s1.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
nvidia-smi -L > "$W/gpu.txt"
export RUST_LOG=warn
APIS=(--backend cuda --backend vulkan --backend wgpu:0)
for round in 1 2; do
  for v in old new; do
    ROSETTA_CACHE_DIR=/tmp/rc-bench-$v timeout 75 /tmp/b/rosetta-$v bench "${APIS[@]}" --op matmul --size large --json "$W/bench-$v-$round.json" > "$W/bench-$v-$round.txt" 2>&1
    echo "bench $v $round exit $?"
  done
done
for v in new old; do
  ROSETTA_CACHE_DIR=/tmp/rc-tune-$v timeout 110 /tmp/b/rosetta-$v tune --backend vulkan --backend wgpu:0 --op matmul --size large > "$W/tune-$v.txt" 2>&1
  echo "tune $v exit $?"
  cp -r /tmp/rc-tune-$v "$W/" 2>/dev/null
done
grep -h -i "matmul" "$W"/bench-*.txt | head -40
grep -v -e ERROR -e WARN "$W"/tune-*.txt | head -80
