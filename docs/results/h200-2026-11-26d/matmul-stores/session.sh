#!/usr/bin/env bash
# VECTOR_STORES as committed: matmul conformance on the four GPU APIs, then the matmul benchmark twice.
set -u
. .gl/env.sh
export RUST_LOG=error
nvidia-smi -L > $OUT/gpu.txt
B=.carry/rosetta
for sel in cuda vulkan opencl:1 wgpu:0; do
  n=$(echo $sel | tr -d ':')
  ( ROSETTA_CACHE_DIR=/tmp/rc-s7c-$n timeout 200 $B conform --backend $sel --case matmul > $OUT/conform-matmul-$n.txt 2>&1; echo "exit $?" >> $OUT/conform-matmul-$n.txt ) &
done
wait
tail -n 4 $OUT/conform-matmul-*.txt
G=(--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0)
export ROSETTA_CACHE_DIR=/tmp/rc-s7
for r in 1 2; do
timeout 150 $B bench "${G[@]}" --op matmul --size large > $OUT/bench-matmul-$r.txt 2>&1; echo "bench exit $?"
grep "matmul " $OUT/bench-matmul-$r.txt
done
