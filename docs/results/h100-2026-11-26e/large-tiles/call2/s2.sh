#!/usr/bin/env bash
# Session 8, call 2: tune the 128x256 / 256x128 tilings on every API (vector stores off past 8x8 micro-tiles).
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s2.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
nvidia-smi -L > "$W/gpu.txt"; cat "$W/gpu.txt"
export RUST_LOG=warn
B="--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0"
ROSETTA_CACHE_DIR=/tmp/rc-conf timeout 60 /tmp/b/rosetta-new conform $B --case 256x128 --case 128x256 > "$W/conform-new.txt" 2>&1; echo "conform exit $?"
tail -6 "$W/conform-new.txt"
for api in wgpu:0 opencl:1 vulkan cuda; do
  ROSETTA_CACHE_DIR=/tmp/rc-tune timeout 125 /tmp/b/rosetta-new tune --backend $api --op matmul --size large >> "$W/tune-new.txt" 2>&1; echo "tune $api exit $?"
done
grep -v -e ERROR -e WARN "$W/tune-new.txt" | grep square
