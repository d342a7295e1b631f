#!/usr/bin/env bash
# Call 4: pass 1 of the matmul through NVIDIA's Vulkan with parts of the kernel taken out (timing only).
set -u
. .gl/env.sh
mkdir -p $OUT/c4
cd .carry && xz -d exp_fixed.xz && chmod +x exp_fixed && cd ..
nvidia-smi -L > $OUT/c4/gpu.txt
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-exp
run() { # label, selector, variants, ks
  echo "--- $1" >> $OUT/c4/fixed.txt
  VARIANTS=$3 KS=$4 timeout 100 .carry/exp_fixed $2 >> $OUT/c4/fixed.txt 2>&1
}
run "cuda base" cuda "128x128x8/8x8+splitk1" 8,64,256
run "cuda base split" cuda "128x128x8/8x8+splitk4,128x128x16/8x8+splitk4" 1024
for v in base storeonly nostores noloads nofma nobarrier; do
  export ROSETTA_EXP_GLSL_DIR=$PWD/.carry/exp/$v
  run "vulkan $v" vulkan "128x128x8/8x8+splitk1" 8,64,256
  run "vulkan $v split" vulkan "128x128x8/8x8+splitk4" 1024
done
unset ROSETTA_EXP_GLSL_DIR
run "vulkan base again" vulkan "128x128x8/8x8+splitk1" 8,256
cat $OUT/c4/fixed.txt
