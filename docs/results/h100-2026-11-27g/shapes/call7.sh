#!/usr/bin/env bash
# The untuned plan per shape: main (old) against the new splits and tiling (new), two rounds.
set -u
. .gl/env.sh
(cd .carry && for f in zz_old.xz zz_new.xz; do xz -d -k -f "$f"; done; chmod +x zz_old zz_new)
D=$(mktemp -d)
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn
S=512x512x512,640x640x640,768x768x768,896x896x896,1024x1024x1024,1280x1280x1280,1536x1536x1536,1792x1792x1792,2048x2048x2048,2560x2560x2560,3072x3072x3072,512x4096x512,2048x512x2048,1024x256x1024,256x8192x256,1000x1000x1000,1500x700x900,4096x1024x1024
for round in 1 2; do for bin in old new; do for d in cuda vulkan wgpu:0 opencl:1; do
  echo "== round $round $bin $d" >> $D/defaults.txt
  ROSETTA_CACHE_DIR=/tmp/rc-mm SHAPES=$S VARIANTS=default SAMPLES=30 timeout 100 .carry/zz_$bin $d >> $D/defaults.txt 2>&1
done; done; done
tar czf $OUT/call7.tgz -C $D .
wc -l $D/defaults.txt
