#!/usr/bin/env bash
# Session 7, call 1: phase b reading row kk+1's operands while row kk multiplies, in GLSL and WGSL (new) against HEAD (old).
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s1.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
nvidia-smi -L > "$W/gpu.txt"; cat "$W/gpu.txt"
export RUST_LOG=warn
run() { # bin api round
  local f="$W/bench-$1-$(echo $2 | tr ":" "-")-r$3.txt"
  ROSETTA_CACHE_DIR=/tmp/rc-$1 timeout 60 /tmp/b/rosetta-$1 bench --backend $2 --op matmul --size large --json "${f%.txt}.json" > "$f" 2>&1
  grep "matmul" "$f" | awk -v t="$1 $2 r$3" '{print t, $0}'
}
for round in 1 2; do
  for api in vulkan wgpu:0; do run old $api $round; run new $api $round; done
done
run new cuda 1
ROSETTA_CACHE_DIR=/tmp/rc-tune timeout 240 /tmp/b/rosetta-new tune --backend vulkan --backend wgpu:0 --op matmul --size large > "$W/tune-new.txt" 2>&1; echo "tune exit $?"
grep -v -e ERROR -e WARN "$W/tune-new.txt" | tail -60
