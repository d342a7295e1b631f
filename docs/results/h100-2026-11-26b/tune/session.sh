#!/usr/bin/env bash
# Call 1: tune every op on the four GPU APIs (large preset), keep the cache.
set -u
B=.carry/rosetta
W=$(mktemp -d)
export ROSETTA_CACHE_DIR=/tmp/rc-final
export RUST_LOG=warn
nvidia-smi -L > $W/gpu.txt 2>&1; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv >> $W/gpu.txt 2>&1
cat $W/gpu.txt
s=$EPOCHREALTIME
timeout ${TT:-540} $B tune --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --size large > $W/tune.txt 2>&1; echo "tune exit $?"
e=$EPOCHREALTIME
awk -v s="$s" -v e="$e" 'BEGIN { printf "tune wall %.1f s\n", e - s }' | tee -a $W/tune.txt
grep -v -e ERROR -e WARN $W/tune.txt | tail -n 80
mkdir -p $W/cache && cp -r /tmp/rc-final/tuning $W/cache/ 2>/dev/null
tar czf $OUT/call1.tgz -C $W .
