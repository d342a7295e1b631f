#!/usr/bin/env bash
# Session 6: wgpu params as immediates, A/B against the uniform arena.
set -u
. .gl/env.sh
B=.carry/rosetta
O=$(mktemp -d)
trap 'tar czf "$OUT/s6.tgz" -C "$O" .' EXIT
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-s6
nvidia-smi -L > $O/gpu.txt; cat $O/gpu.txt
which nsys ncu > $O/tools.txt 2>&1; cat $O/tools.txt
for round in 1 2; do
  for mode in uniform immediate; do
    ROSETTA_WGPU_PARAMS=$mode timeout 120 $B bench --backend wgpu:0 --op reduce --size large > $O/bench-reduce-wgpu-$mode-$round.txt 2>&1
    echo "== wgpu $mode round $round"; grep -E "sum f32" $O/bench-reduce-wgpu-$mode-$round.txt | head -8
  done
  timeout 120 $B bench --backend vulkan --op reduce --size large > $O/bench-reduce-vulkan-$round.txt 2>&1
  echo "== vulkan round $round"; grep -E "sum f32" $O/bench-reduce-vulkan-$round.txt | head -8
done
timeout 200 $B bench --backend wgpu:0 --size large --json $O/bench-wgpu.json > $O/bench-wgpu.txt 2>&1; echo "bench exit $?"
grep -v -e WARN $O/bench-wgpu.txt | tail -40
timeout 300 $B conform --backend wgpu:0 --out $O/conform-wgpu.json > $O/conform-wgpu.txt 2>&1; echo "conform exit $?"
tail -4 $O/conform-wgpu.txt
