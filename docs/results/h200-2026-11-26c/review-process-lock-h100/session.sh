#!/usr/bin/env bash
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
export ROSETTA_CACHE_DIR=/tmp/rc-s17 RUST_LOG=warn
for sel in vulkan wgpu:0; do
  for run in 1 2 3 4; do
    timeout 20 .carry/par_probe 4 $sel > $OUT/par-$sel-$run.txt 2>&1; echo "par $sel run $run exit $?"
  done
done
timeout 200 .carry/rosetta conform --backend vulkan --backend wgpu:0 --out $OUT/conform.json > $OUT/conform.txt 2>&1; echo "conform exit $?"
grep -E "passed|conformance:" $OUT/conform.txt | tail -4
