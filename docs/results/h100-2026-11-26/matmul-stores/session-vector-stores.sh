#!/usr/bin/env bash
# matmul with 16-byte stores in GLSL, WGSL and OpenCL C: pass 1 alone over k, the tuner at 1024^3, the benchmark.
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
export RUST_LOG=error
nvidia-smi -L > $OUT/gpu.txt
export ROSETTA_CACHE_DIR=/tmp/rc-s5
P=.carry/exp_fixed
for api in cuda vulkan wgpu:0 opencl:1; do
  KS=8,256,1024 timeout 100 $P $api 2>&1 | grep -v ERROR | tee -a $OUT/fixed.txt
done
G=(--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0)
timeout 150 .carry/rosetta-exp tune "${G[@]}" --op matmul --size medium 2>&1 | grep -v ERROR | tee $OUT/tune-1024.txt
export ROSETTA_CACHE_DIR=/tmp/rc-s5b
timeout 200 .carry/rosetta-exp bench "${G[@]}" --op matmul --size large > $OUT/bench-matmul.txt 2>&1; echo "bench exit $?"
grep matmul $OUT/bench-matmul.txt
