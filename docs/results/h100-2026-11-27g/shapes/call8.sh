#!/usr/bin/env bash
# Small products: what the tilings and splits give where the plan takes 32x32 or 64x64 tiles.
set -u
. .gl/env.sh
(cd .carry && xz -d -k -f zz_new.xz && chmod +x zz_new)
D=$(mktemp -d)
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn
S=256x256x256,384x384x384,512x512x512,640x640x640,1024x256x1024,512x1024x512,2048x128x2048
V=default,32x32x8/2x2+splitk2,64x64x8/4x4,64x64x8/4x4+splitk2,64x64x8/4x4+splitk4,128x64x16/8x4,128x64x16/8x4+splitk2,128x64x16/8x4+splitk4,128x64x16/8x4+splitk8,128x128x16/8x8+splitk4,128x128x16/8x8+splitk8,128x128x8/8x8+splitk4
for d in cuda vulkan wgpu:0 opencl:1; do
  echo "== $d" >> $D/small.txt
  ROSETTA_CACHE_DIR=/tmp/rc-mm SHAPES=$S VARIANTS=$V SAMPLES=30 timeout 120 .carry/zz_new $d >> $D/small.txt 2>&1
done
tar czf $OUT/call8.tgz -C $D .
wc -l $D/small.txt
