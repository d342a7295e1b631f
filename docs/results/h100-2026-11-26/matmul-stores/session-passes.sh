#!/usr/bin/env bash
# matmul 1024^3: where the time goes. Pass 1 or the split-K sum pass run twice (same result), so
# the difference to once is one such pass (with its dispatch boundary).
set -u
. .gl/env.sh
B=.carry/rosetta-exp
export RUST_LOG=error
nvidia-smi -L > $OUT/gpu.txt
export ROSETTA_CACHE_DIR=/tmp/rc-s3
for api in cuda vulkan opencl:1 wgpu:0; do
  for combo in "1 1" "2 1" "1 2" "1 3"; do
    set -- $combo
    ROSETTA_EXP_PASS1=$1 ROSETTA_EXP_SUM=$2 timeout 100 $B tune --backend $api --op matmul --size medium 2>&1 | grep -v -e ERROR -e "tuning cache" | sed "s/^/pass1x$1 sumx$2 /" | tee -a $OUT/passes.txt
  done
done
