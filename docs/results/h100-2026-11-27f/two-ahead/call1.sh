#!/usr/bin/env bash
set -u
. .gl/env.sh
mkdir -p $OUT/c1
nvidia-smi -L > $OUT/c1/gpu.txt
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-exp
V1=128x128x8/8x8+splitk4,128x128x16/8x8+splitk4,128x64x16/8x4+splitk2,128x64x8/8x4+splitk2
V2=128x256x8/8x16,128x128x8/8x8,128x128x16/8x8
for round in 1 2; do
for bin in old new; do
for d in vulkan wgpu:0; do
  echo "== round $round $bin $d" >> $OUT/c1/tiles.txt
  timeout 100 env SIZES=1024 VARIANTS=$V1 .carry/zz_$bin $d >> $OUT/c1/tiles.txt 2>&1
  timeout 100 env SIZES=2048,4096 SAMPLES=20 VARIANTS=$V2 .carry/zz_$bin $d >> $OUT/c1/tiles.txt 2>&1
done; done; done
cat $OUT/c1/tiles.txt
