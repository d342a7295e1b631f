#!/usr/bin/env bash
# Session 6b: wgpu timestamps at pass ends, A/B against encoder timestamps.
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
O=$(mktemp -d)
trap 'tar czf "$OUT/s7.tgz" -C "$O" .' EXIT TERM
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-s7
nvidia-smi -L
for t in bind_groups_never_outlive_a_freed_buffer marks_keep_their_place_in_the_queue pass_ends_never_overwrite_a_held_mark; do
  timeout 25 .carry/wgpu-tests --exact tests::$t --test-threads=1 > $O/wgpu-test-$t.txt 2>&1; echo "test $t exit $?"; tail -3 $O/wgpu-test-$t.txt
done
for round in 1 2; do
  for bin in rosetta-imm rosetta; do
    timeout 40 .carry/$bin bench --backend wgpu:0 --op reduce --size large > $O/bench-reduce-$bin-$round.txt 2>&1
    echo "== wgpu $bin round $round"; grep -E "sum f32" $O/bench-reduce-$bin-$round.txt | head -8
  done
  ROSETTA_WGPU_PARAMS=uniform timeout 40 .carry/rosetta bench --backend wgpu:0 --op reduce --size large > $O/bench-reduce-uniform-$round.txt 2>&1
  echo "== wgpu new uniform round $round"; grep -E "sum f32" $O/bench-reduce-uniform-$round.txt | head -8
  timeout 40 .carry/rosetta bench --backend vulkan --op reduce --size large > $O/bench-reduce-vulkan-$round.txt 2>&1
  echo "== vulkan round $round"; grep -E "sum f32" $O/bench-reduce-vulkan-$round.txt | head -8
done
timeout 130 .carry/rosetta bench --backend wgpu:0 --size large --json $O/bench-wgpu.json > $O/bench-wgpu.txt 2>&1; echo "bench exit $?"
grep -v -e WARN -e ERROR $O/bench-wgpu.txt | tail -40
timeout 120 .carry/rosetta conform --backend wgpu:0 --out $O/conform-wgpu.json > $O/conform-wgpu.txt 2>&1; echo "conform exit $?"
tail -4 $O/conform-wgpu.txt
