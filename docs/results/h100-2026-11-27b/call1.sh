#!/usr/bin/env bash
# Call 1: the small-op probe (idle vs queued), then conformance at HEAD.
set -u
. .gl/env.sh
mkdir -p $OUT/c1
cd .carry && xz -d chains.xz probe.xz && chmod +x chains probe && cd ..
nvidia-smi -L > $OUT/c1/gpu.txt; nvidia-smi --query-gpu=driver_version --format=csv >> $OUT/c1/gpu.txt
cat .carry/commit.txt >> $OUT/c1/gpu.txt
export RUST_LOG=warn
PADS=0,1,4 timeout 60 .carry/probe cuda vulkan opencl:1 wgpu:0 > $OUT/c1/probe.txt 2>&1; echo "probe exit $?" >> $OUT/c1/probe.txt
cat $OUT/c1/probe.txt
T=510 OUT=$OUT/c1 scripts/gpu-session.sh conform > $OUT/c1/conform-summary.txt 2>&1
tail -40 $OUT/c1/conform-summary.txt
