#!/usr/bin/env bash
# matmul: more tilings (128x64, 64x128, 128x64x16) and forced splits at 1024^3, through the tuner.
set -u
. .gl/env.sh
B=.carry/rosetta-exp
export RUST_LOG=error
nvidia-smi -L > $OUT/gpu.txt
export ROSETTA_CACHE_DIR=/tmp/rc-s2
for api in vulkan wgpu:0; do
  n=$(echo $api | tr -d ':')
  ROSETTA_EXP_SPLITS=1 timeout 150 $B tune --backend $api --op matmul --size medium > $OUT/tune-1024-$n.txt 2>&1; echo "tune 1024 $api exit $?"
  cat $OUT/tune-1024-$n.txt | tr ',' '\n' | sort -t' ' -k3 -n | head -50
done
timeout 300 $B tune --backend vulkan --backend wgpu:0 --backend cuda --op matmul --size large > $OUT/tune-large.txt 2>&1; echo "tune large exit $?"
cat $OUT/tune-large.txt
