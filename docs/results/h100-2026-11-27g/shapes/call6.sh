#!/usr/bin/env bash
# The heuristic's new splits and the 128x64x16/8x4 tiling: matmul conformance through every API,
# the new defaults against main's per shape, and the matmul benchmark old/new.
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta rosetta_new zz_old zz_new)
D=$OUT/c6; mkdir -p $D
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn
for sel in cuda vulkan opencl:1 wgpu:0; do
  n=$(echo $sel | tr ':' '-')
  ( ROSETTA_CACHE_DIR=/tmp/rc-c-$n timeout 200 .carry/rosetta_new conform --backend $sel --case matmul > $D/conform-matmul-$n.txt 2>&1; echo "exit $?" >> $D/conform-matmul-$n.txt ) &
done; wait
tail -n 4 $D/conform-matmul-*.txt
S=1024x1024x1024,768x768x768,1536x1536x1536,512x4096x512,2048x512x2048
V=default,128x128x16/8x8+splitk3,128x128x16/8x8+splitk6,128x64x16/8x4+splitk4,128x64x16/8x4+splitk8,128x128x8/8x8+splitk16
for d in cuda vulkan wgpu:0 opencl:1; do
  echo "== old $d" >> $D/shapes.txt
  ROSETTA_CACHE_DIR=/tmp/rc-mm SHAPES=$S VARIANTS=default timeout 60 .carry/zz_old $d >> $D/shapes.txt 2>&1
  echo "== new $d" >> $D/shapes.txt
  ROSETTA_CACHE_DIR=/tmp/rc-mm SHAPES=$S VARIANTS=$V timeout 100 .carry/zz_new $d >> $D/shapes.txt 2>&1
done
grep -E "==|default" $D/shapes.txt | head -80
for bin in rosetta rosetta_new; do
  ROSETTA_CACHE_DIR=/tmp/rc-bench-$bin timeout 150 .carry/$bin bench --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --op matmul --size large --json $D/bench-matmul-$bin.json > $D/bench-matmul-$bin.txt 2>&1
  echo "== bench $bin"; grep -E "square" $D/bench-matmul-$bin.txt
done
