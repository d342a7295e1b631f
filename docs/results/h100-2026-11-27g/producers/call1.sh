#!/usr/bin/env bash
# Producer invocations in the GLSL matmul (experiment): old = main, new = the experiment.
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta rosetta_new zz_old zz_new)
D=$OUT/c1; mkdir -p $D
nvidia-smi -L > $D/gpu.txt; cat $D/gpu.txt
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-exp
timeout 150 .carry/rosetta_new conform --backend vulkan --case matmul > $D/conform-new.txt 2>&1; echo "exit $?" >> $D/conform-new.txt
tail -n 4 $D/conform-new.txt
V1=128x128x8/8x8+splitk4,128x64x8/8x4+splitk2,128x64x16/8x4+splitk2,64x64x8/4x4
V2=128x256x8/8x16,128x128x8/8x8
for round in 1 2; do for bin in old new; do
  echo "== round $round $bin" >> $D/tiles.txt
  timeout 60 env SIZES=1024 VARIANTS=$V1 .carry/zz_$bin vulkan >> $D/tiles.txt 2>&1
  timeout 100 env SIZES=2048,4096 SAMPLES=20 VARIANTS=$V2 .carry/zz_$bin vulkan >> $D/tiles.txt 2>&1
done; done
cat $D/tiles.txt
