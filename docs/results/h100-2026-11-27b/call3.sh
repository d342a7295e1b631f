#!/usr/bin/env bash
# Call 3: the device-buffer tests (try_clone of a wrapped buffer) through every API.
set -u
. .gl/env.sh
mkdir -p $OUT/c3
cd .carry && xz -d device_buffers.xz && chmod +x device_buffers && cd ..
nvidia-smi -L > $OUT/c3/gpu.txt; cat .carry/commit.txt >> $OUT/c3/gpu.txt
ROSETTA_REQUIRE=cpu,cuda,vulkan,opencl,wgpu RUST_LOG=warn timeout 300 .carry/device_buffers --test-threads=1 > $OUT/c3/device-buffers.txt 2>&1; echo "exit $?" >> $OUT/c3/device-buffers.txt
cat $OUT/c3/device-buffers.txt | tail -20
