#!/usr/bin/env bash
# Matmul variants per shape (main's kernels): where 128x64x16/8x4 stands against the default plan.
set -u
. .gl/env.sh
(cd .carry && xz -d -k -f zz_mm.xz && chmod +x zz_mm)
D=$OUT/c5; mkdir -p $D
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-mm
V=default,128x64x16/8x4,128x64x16/8x4+splitk2,128x64x16/8x4+splitk3,128x64x16/8x4+splitk4,128x128x8/8x8+splitk2,128x128x8/8x8+splitk3,128x128x16/8x8+splitk3
S=1024x1024x1024,768x768x768,1536x1536x1536,512x4096x512,2048x512x2048
for round in 1 2; do
for d in cuda vulkan wgpu:0 opencl:1; do
  echo "== round $round $d" >> $D/shapes.txt
  SHAPES=$S VARIANTS=$V timeout 100 .carry/zz_mm $d >> $D/shapes.txt 2>&1
done; done
cat $D/shapes.txt
