#!/usr/bin/env bash
# Session 8, call 1: 256x128 / 128x256 tilings (16x8 / 8x16 micro-tiles) against main's.
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s1.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
nvidia-smi -L > "$W/gpu.txt"; cat "$W/gpu.txt"
export RUST_LOG=warn
B="--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0"
ROSETTA_CACHE_DIR=/tmp/rc-conf timeout 150 /tmp/b/rosetta-new conform $B --case 256x128 --case 128x256 > "$W/conform-new.txt" 2>&1; echo "conform exit $?"
tail -8 "$W/conform-new.txt"
run() { # bin api round
  local f="$W/bench-$1-$(echo $2 | tr ":" "-")-r$3.txt"
  ROSETTA_CACHE_DIR=/tmp/rc-$1 timeout 60 /tmp/b/rosetta-$1 bench --backend $2 --op matmul --size large --json "${f%.txt}.json" > "$f" 2>&1
  grep "matmul" "$f" | awk -v t="$1 $2 r$3" '{print t, $0}'
}
for api in cuda vulkan opencl:1 wgpu:0; do run old $api 1; run new $api 1; done
ROSETTA_CACHE_DIR=/tmp/rc-tune timeout 300 /tmp/b/rosetta-new tune $B --op matmul --size large > "$W/tune-new.txt" 2>&1; echo "tune exit $?"
grep -v -e ERROR -e WARN "$W/tune-new.txt" | tail -30
