#!/usr/bin/env bash
# Call 1: matmul tilings outside TILINGS at 1024^3 and 2048^3, each API.
set -u
. .gl/env.sh
mkdir -p $OUT/c1
nvidia-smi -L > $OUT/c1/gpu.txt
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-exp
V1=128x128x8/8x8+splitk4,128x128x16/8x8+splitk4,128x64x8/8x4+splitk2,128x64x8/8x4+splitk4,128x64x8/8x4+splitk8,64x128x8/4x8+splitk4,128x64x16/8x4+splitk2,128x64x16/8x4+splitk4,64x128x16/4x8+splitk4,128x128x8/8x8+splitk3,128x128x8/8x8+splitk6,128x128x16/8x8+splitk3,128x128x16/8x8+splitk6,64x64x8/4x4+splitk2,64x64x16/4x4+splitk2,64x64x16/4x4+splitk1,128x128x8/8x8+splitk4,128x128x16/8x8+splitk4
V2=256x128x16/16x8,128x256x8/8x16,128x128x16/8x8,128x128x8/8x8,128x64x16/8x4,128x64x8/8x4,64x128x8/4x8,128x128x16/8x8+splitk2,256x128x16/16x8
for d in cuda vulkan opencl:1 wgpu:0; do
  timeout 200 env SIZES=1024 VARIANTS=$V1 .carry/zz_tiles $d >> $OUT/c1/tiles.txt 2>&1
  timeout 200 env SIZES=2048 SAMPLES=30 VARIANTS=$V2 .carry/zz_tiles $d >> $OUT/c1/tiles.txt 2>&1
done
cat $OUT/c1/tiles.txt
