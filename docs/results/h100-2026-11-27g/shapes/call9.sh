#!/usr/bin/env bash
# The untuned plan per shape: main (old), the cost-model split with chunks of at least 256 (new),
# and with chunks of at least 64 (new2); then the register-prefetch large tiling against 128x64x16 by k.
set -u
. .gl/env.sh
(cd .carry && for f in zz_old.xz zz_new.xz zz_new2.xz; do xz -d -k -f "$f"; done; chmod +x zz_old zz_new zz_new2)
D=$(mktemp -d)
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn
S=256x256x256,384x384x384,512x512x512,640x640x640,768x768x768,896x896x896,1024x1024x1024,1280x1280x1280,1536x1536x1536,1792x1792x1792,2048x2048x2048,1024x256x1024,512x1024x512,2048x128x2048,512x4096x512,2048x512x2048,256x8192x256,1000x1000x1000,1500x700x900,4096x1024x1024,4096x4096x4096
for round in 1 2; do for bin in old new new2; do for d in cuda vulkan wgpu:0 opencl:1; do
  echo "== round $round $bin $d" >> $D/defaults.txt
  ROSETTA_CACHE_DIR=/tmp/rc-mm SHAPES=$S VARIANTS=default SAMPLES=20 timeout 100 .carry/zz_$bin $d >> $D/defaults.txt 2>&1
done; done; done
S2=2048x128x2048,2048x256x2048,2048x512x2048,2048x1024x2048,4096x256x4096,4096x1024x4096,3072x512x3072
V2=128x256x8/8x16,128x64x16/8x4,128x128x8/8x8
for d in vulkan wgpu:0; do
  echo "== $d" >> $D/large-k.txt
  ROSETTA_CACHE_DIR=/tmp/rc-mm SHAPES=$S2 VARIANTS=$V2 SAMPLES=20 timeout 100 .carry/zz_new2 $d >> $D/large-k.txt 2>&1
done
tar czf $OUT/call9.tgz -C $D .
wc -l $D/*.txt
