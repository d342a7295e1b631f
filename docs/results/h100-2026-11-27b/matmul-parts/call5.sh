#!/usr/bin/env bash
# Call 5: the next slice's loads issued before the barrier (GLSL, timing), 1024^3 split and 4096^3.
set -u
. .gl/env.sh
mkdir -p $OUT/c5
cd .carry && xz -d exp_fixed.xz && chmod +x exp_fixed && cd ..
nvidia-smi -L > $OUT/c5/gpu.txt
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-exp
run() { echo "--- $1" >> $OUT/c5/fixed.txt; shift; timeout 120 env "$@" .carry/exp_fixed vulkan >> $OUT/c5/fixed.txt 2>&1; }
for round in 1 2; do
for v in base earlyload; do
  D=$PWD/.carry/exp2/$v
  run "$v 1024 split (round $round)" ROSETTA_EXP_GLSL_DIR=$D VARIANTS=128x128x8/8x8+splitk4 KS=1024
  run "$v 1024 k=8,256 unsplit" ROSETTA_EXP_GLSL_DIR=$D VARIANTS=128x128x8/8x8+splitk1 KS=8,256
  run "$v 2048" ROSETTA_EXP_GLSL_DIR=$D VARIANTS=128x256x8/8x16,128x128x8/8x8 KS=2048 M=2048 N=2048
  run "$v 4096" ROSETTA_EXP_GLSL_DIR=$D VARIANTS=128x256x8/8x16,128x128x8/8x8 KS=4096 M=4096 N=4096
done
done
cat $OUT/c5/fixed.txt
