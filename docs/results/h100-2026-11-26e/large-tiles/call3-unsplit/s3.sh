#!/usr/bin/env bash
# Session 8, call 3: every tiling unsplit (ROSETTA_EXPERIMENT_NOSPLIT, an experiment build) at the large sizes.
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s3.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
nvidia-smi -L > "$W/gpu.txt"; cat "$W/gpu.txt"
export RUST_LOG=warn
for api in vulkan wgpu:0 cuda; do
  ROSETTA_EXPERIMENT_NOSPLIT=1 ROSETTA_CACHE_DIR=/tmp/rc-tune timeout 150 /tmp/b/rosetta-new tune --backend $api --op matmul --size large >> "$W/tune-nosplit.txt" 2>&1; echo "tune $api exit $?"
done
grep -v -e ERROR -e WARN "$W/tune-nosplit.txt" | grep square
