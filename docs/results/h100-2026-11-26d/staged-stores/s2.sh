#!/usr/bin/env bash
# Session 7, call 2: staged stores of C (through shared memory, coalesced) in GLSL, WGSL and OpenCL C (new) against HEAD (old).
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s2.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
nvidia-smi -L > "$W/gpu.txt"; cat "$W/gpu.txt"
export RUST_LOG=warn
for sel in vulkan opencl:1 wgpu:0; do
  n=$(echo $sel | tr ':' '-')
  ( ROSETTA_CACHE_DIR=/tmp/rc-c-$n timeout 200 /tmp/b/rosetta-new conform --backend $sel --case matmul > "$W/conform-matmul-$n.txt" 2>&1; echo "exit $?" >> "$W/conform-matmul-$n.txt" ) &
done
wait
tail -n 3 "$W"/conform-matmul-*.txt
run() { # bin api round
  local f="$W/bench-$1-$(echo $2 | tr ":" "-")-r$3.txt"
  ROSETTA_CACHE_DIR=/tmp/rc-$1 timeout 60 /tmp/b/rosetta-$1 bench --backend $2 --op matmul --size large > "$f" 2>&1
  grep "matmul" "$f" | awk -v t="$1 $2 r$3" '{print t, $4, $5, $6}'
}
for round in 1 2; do
  for api in vulkan wgpu:0 opencl:1; do run old $api $round; run new $api $round; done
done
run new cuda 1
