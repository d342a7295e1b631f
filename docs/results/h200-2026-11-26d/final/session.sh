#!/usr/bin/env bash
# Final: conformance of the four GPU APIs (in parallel), then the whole benchmark, large, untuned.
set -u
. .gl/env.sh
export RUST_LOG=warn
B=.carry/rosetta
nvidia-smi -L > $OUT/gpu.txt
$B devices > $OUT/devices.txt 2>&1
for sel in cuda vulkan opencl:1 wgpu:0; do
  n=$(echo $sel | tr ':' '-')
  ( ROSETTA_CACHE_DIR=/tmp/rc-final-c timeout 250 $B conform --backend $sel --out $OUT/conform-$n.json > $OUT/conform-$n.txt 2>&1
    echo "exit $?" >> $OUT/conform-$n.txt ) &
done
wait
tail -n 4 $OUT/conform-*.txt
export ROSETTA_CACHE_DIR=/tmp/rc-final-b
timeout 320 $B bench --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --size large --json $OUT/bench.json > $OUT/bench.txt 2>&1; echo "bench exit $?"
grep -v -e ERROR -e WARN $OUT/bench.txt | grep -e "reduce  sum f32 n=2^\(16\|20\|28\)" -e matmul -e histogram -e conv -e chain
