#!/usr/bin/env bash
# OpenCL: three asynchronous stages where four do not fit 48 KiB (experiment) vs two (main).
set -u
. .gl/env.sh
nvidia-smi -L > $OUT/gpu.txt
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-exp
V4=128x128x16/8x8,128x256x8/8x16,256x128x8/16x8,128x128x8/8x8
V1=128x128x16/8x8+splitk4,128x256x8/8x16+splitk4,128x256x8/8x16+splitk2,256x128x8/16x8+splitk4,128x128x8/8x8+splitk4
for round in 1 2; do
 for b in base exp; do
  echo "== $b round $round" >> $OUT/tiles.txt
  timeout 100 env SIZES=4096 SAMPLES=40 VARIANTS=$V4 .carry/zz_tiles_$b opencl:1 >> $OUT/tiles.txt 2>&1
  timeout 100 env SIZES=2048 SAMPLES=40 VARIANTS=$V4 .carry/zz_tiles_$b opencl:1 >> $OUT/tiles.txt 2>&1
  timeout 100 env SIZES=1024 SAMPLES=60 VARIANTS=$V1 .carry/zz_tiles_$b opencl:1 >> $OUT/tiles.txt 2>&1
 done
done
cat $OUT/tiles.txt
