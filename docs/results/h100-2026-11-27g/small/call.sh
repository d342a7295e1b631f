#!/usr/bin/env bash
# Chunks of 64 (256 through OpenCL), k <= 256 unsplit (new4) against main (old) and the last commit (new3).
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta_new zz_old zz_new3 zz_new4)
D=$(mktemp -d)
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn
for sel in cuda vulkan opencl:1 wgpu:0; do
  n=$(echo $sel | tr ':' '-')
  ( ROSETTA_CACHE_DIR=/tmp/rc-c-$n timeout 200 .carry/rosetta_new conform --backend $sel --case matmul > $D/conform-matmul-$n.txt 2>&1; echo "exit $?" >> $D/conform-matmul-$n.txt ) &
done; wait
tail -n 4 $D/conform-matmul-*.txt
S=256x256x256,384x384x384,512x512x512,640x640x640,768x768x768,896x896x896,1024x1024x1024,1280x1280x1280,1536x1536x1536,1024x256x1024,512x1024x512,512x4096x512,1000x1000x1000,1500x700x900,256x8192x256,2048x2048x2048
for round in 1 2; do for bin in old new3 new4; do for d in cuda vulkan wgpu:0 opencl:1; do
  echo "== round $round $bin $d" >> $D/defaults.txt
  ROSETTA_CACHE_DIR=/tmp/rc-mm SHAPES=$S VARIANTS=default SAMPLES=20 timeout 100 .carry/zz_$bin $d >> $D/defaults.txt 2>&1
done; done; done
ROSETTA_CACHE_DIR=/tmp/rc-bench timeout 120 .carry/rosetta_new bench --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --op matmul --size large --json $D/bench-matmul.json > $D/bench-matmul.txt 2>&1
grep square $D/bench-matmul.txt
tar czf $OUT/call11.tgz -C $D .
