#!/usr/bin/env bash
# wgpu one-launch sums: conformance of reduce on wgpu, the latency mode, a fuzz on wgpu.
set -u
. .gl/env.sh
B=.carry/rosetta
export RUST_LOG=warn
nvidia-smi -L > $OUT/gpu.txt
export ROSETTA_CACHE_DIR=/tmp/rc-s1
timeout 240 $B conform --backend wgpu:0 --case reduce --out $OUT/conform-wgpu-reduce.json > $OUT/conform-wgpu-reduce.txt 2>&1; echo "conform exit $?"
tail -3 $OUT/conform-wgpu-reduce.txt
grep -c "one-launch" $OUT/conform-wgpu-reduce.txt
G=(--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0)
for r in 1 2; do
timeout 150 $B bench "${G[@]}" --op reduce --size large --json $OUT/bench-reduce-$r.json > $OUT/bench-reduce-$r.txt 2>&1; echo "bench exit $?"
done
timeout 200 $B tune "${G[@]}" --op reduce --size large > $OUT/tune-reduce.txt 2>&1; echo "tune exit $?"
grep -v -e ERROR -e WARN $OUT/bench-reduce-1.txt $OUT/bench-reduce-2.txt | grep -i "sum f32\|variant" 
grep -v -e ERROR -e WARN $OUT/tune-reduce.txt | grep "wgpu\|sum f32" | head -30
export ROSETTA_CACHE_DIR=/tmp/rc-fuzz
python3 tests/numpy/fuzz.py $B wgpu:0 --cases 100000 --seed 20261126 --seconds 100 > $OUT/fuzz-wgpu.txt 2>&1; echo "fuzz exit $?"
grep -h -e "^FAIL" -e "reproduce" -e "^fuzz:" $OUT/fuzz-wgpu.txt
