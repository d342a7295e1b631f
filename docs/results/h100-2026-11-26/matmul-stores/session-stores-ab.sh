#!/usr/bin/env bash
# Vulkan matmul: scalar stores (v0, the committed GLSL) / 16-byte stores from scalar accumulators (built in) /
# vec4 accumulators with 16-byte stores (v2): pass 1 over k, then the benchmark.
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
export RUST_LOG=error
nvidia-smi -L > $OUT/gpu.txt
P=.carry/exp_fixed
for round in 1 2; do
for v in v0 built-in v2-acc4; do
  if [ $v = built-in ]; then unset ROSETTA_EXP_GLSL; else export ROSETTA_EXP_GLSL=.carry/glsl/$v.comp; fi
  export ROSETTA_CACHE_DIR=/tmp/rc-s6-$v
  echo "--- $v round $round" | tee -a $OUT/fixed.txt
  KS=8,256,1024 timeout 100 $P vulkan 2>&1 | grep -v ERROR | tee -a $OUT/fixed.txt
  timeout 100 .carry/rosetta-exp bench --backend vulkan --op matmul --size large 2>&1 | grep "matmul " | tee -a $OUT/bench.txt
done
done
