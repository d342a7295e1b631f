#!/usr/bin/env bash
# Session 6, call 4: the launch floor beside the small sums, every GPU API, two rounds.
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s4.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
nvidia-smi -L > "$W/gpu.txt"; nvidia-smi --query-gpu=driver_version --format=csv > "$W/driver.txt"
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-s4
for round in 1 2; do
  timeout 200 /tmp/b/rosetta bench --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --op reduce --size large --json "$W/bench-reduce-$round.json" > "$W/bench-reduce-$round.txt" 2>&1; echo "round $round exit $?"
done
grep -h -e "launch floor" -e "2^16 " -e "2^20 " "$W"/bench-reduce-*.txt
