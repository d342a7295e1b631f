#!/usr/bin/env bash
# matmul pass 1 alone (no split) over k: the intercept is its fixed cost per launch.
set -u
. .gl/env.sh
export RUST_LOG=error
nvidia-smi -L > $OUT/gpu.txt
export ROSETTA_CACHE_DIR=/tmp/rc-s4
P=.carry/exp_fixed
for api in cuda vulkan wgpu:0 opencl:1; do
  timeout 100 $P $api 2>&1 | grep -v ERROR | tee -a $OUT/fixed.txt
done
echo "--- vulkan, GLSL without the epilogue's stores" | tee -a $OUT/fixed.txt
ROSETTA_EXP_GLSL=.carry/glsl/v1-nostore.comp timeout 100 $P vulkan 2>&1 | grep -v ERROR | tee -a $OUT/fixed.txt
echo "--- vulkan, folded constants" | tee -a $OUT/fixed.txt
ROSETTA_VULKAN_FOLD_CONSTANTS=1 KS=8,1024 timeout 100 $P vulkan 2>&1 | grep -v ERROR | tee -a $OUT/fixed.txt
