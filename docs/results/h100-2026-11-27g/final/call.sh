#!/usr/bin/env bash
# The final plan: defaults per shape (main against the last commit), the matmul benchmark, then the whole suite.
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; mv rosetta rosetta_main; mv rosetta_new rosetta; chmod +x rosetta rosetta_main zz_old zz_new3)
D=$(mktemp -d)
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn
S=256x256x256,512x512x512,768x768x768,896x896x896,1024x1024x1024,1280x1280x1280,1536x1536x1536,1792x1792x1792,2048x2048x2048,1024x256x1024,2048x128x2048,2048x256x2048,512x4096x512,2048x512x2048,3072x512x3072,256x8192x256,1000x1000x1000,1500x700x900,4096x1024x1024,4096x4096x4096
for bin in old new3; do for d in cuda vulkan wgpu:0 opencl:1; do
  echo "== $bin $d" >> $D/defaults.txt
  ROSETTA_CACHE_DIR=/tmp/rc-mm SHAPES=$S VARIANTS=default SAMPLES=20 timeout 100 .carry/zz_$bin $d >> $D/defaults.txt 2>&1
done; done
ROSETTA_CACHE_DIR=/tmp/rc-bench timeout 120 .carry/rosetta bench --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --op matmul --size large --json $D/bench-matmul.json > $D/bench-matmul.txt 2>&1
grep square $D/bench-matmul.txt
tar czf $OUT/call10.tgz -C $D .
T=${T:-380} scripts/gpu-session.sh conform
