#!/usr/bin/env bash
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s9.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
nvidia-smi -L > "$W/gpu.txt"
export ROSETTA_CACHE_DIR=/tmp/rc-s9 RUST_LOG=warn
ROSETTA_REQUIRE=opencl /tmp/b/contract-0 > "$W/contract-opencl.txt" 2>&1; echo "opencl contract exit $?"
ROSETTA_REQUIRE=wgpu /tmp/b/contract-1 > "$W/contract-wgpu.txt" 2>&1; echo "wgpu contract exit $?"
timeout 300 /tmp/b/rosetta conform --backend opencl:1 --backend wgpu:0 --quick > "$W/conform-quick.txt" 2>&1; echo "conform exit $?"
grep -h "test result" "$W"/contract-*.txt; tail -4 "$W/conform-quick.txt"
