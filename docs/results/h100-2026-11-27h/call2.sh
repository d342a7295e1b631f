#!/usr/bin/env bash
# OpenCL's least chunk of k: per shape, the untuned plan (chunks of at least
# 256) against the choices chunks of 128 and of 64 would make (forced;
# opencl-chunks/shapes.txt, from the plan with H100-like capabilities), two
# rounds; then the tuner at 1024^3 through vulkan, opencl:1 and wgpu:0 with
# the chunk counts around the plan's.
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta zz_mm)
D=$(mktemp -d)
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn
for round in 1 2; do
  echo "== round $round" >> $D/opencl-chunks.txt
  while read -r shape variants; do
    ROSETTA_CACHE_DIR=/tmp/rc-mm SHAPES=$shape VARIANTS=$variants SAMPLES=30 timeout 60 .carry/zz_mm opencl:1 >> $D/opencl-chunks.txt 2>&1
  done < docs/results/h100-2026-11-27h/opencl-chunks/shapes.txt
done
cat $D/opencl-chunks.txt
ROSETTA_CACHE_DIR=/tmp/rc-tune timeout 300 .carry/rosetta tune --backend vulkan --backend opencl:1 --backend wgpu:0 --op matmul --size medium > $D/tune-medium.txt 2>&1; echo "tune exit $?" >> $D/tune-medium.txt
grep -v -e ERROR -e WARN $D/tune-medium.txt
tar czf $OUT/call2.tgz -C $D .
