#!/usr/bin/env bash
set -u
. .gl/env.sh
(cd .carry && xz -d -k -f zz_exp.xz && chmod +x zz_exp)
D=$OUT/c2; mkdir -p $D
nvidia-smi -L > $D/gpu.txt; cat $D/gpu.txt
for v in "v0 0 1" "v1 64 3" "v2 64 2" "v3 32 2" "v4 64 3" "v5 64 2"; do
  set -- $v
  export ROSETTA_CACHE_DIR=/tmp/rc-$1 ROSETTA_EXP_GLSL_DIR=.carry/exp/$1 ROSETTA_EXP_PRODUCERS=$2 ROSETTA_EXP_STAGES=$3
  RUST_LOG=info ROSETTA_VULKAN_STATISTICS=1 SIZES=1024 SAMPLES=3 VARIANTS=128x128x8/8x8+splitk4,128x256x8/8x16 timeout 60 .carry/zz_exp vulkan > $D/stats-$1.txt 2>&1
  echo "== $1" >> $D/tiles.txt
  RUST_LOG=warn SIZES=1024 SAMPLES=30 VARIANTS=128x128x8/8x8+splitk4,128x64x16/8x4+splitk2 timeout 60 .carry/zz_exp vulkan >> $D/tiles.txt 2>&1
  RUST_LOG=warn SIZES=4096 SAMPLES=10 VARIANTS=128x256x8/8x16,128x128x8/8x8 timeout 60 .carry/zz_exp vulkan >> $D/tiles.txt 2>&1
done
cat $D/tiles.txt
grep -h -i -E "regist|shared|spill|local" $D/stats-*.txt | cut -c1-300 | head -60
