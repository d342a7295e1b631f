#!/usr/bin/env bash
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
O=$(mktemp -d)
trap 'tar czf "$OUT/s11.tgz" -C "$O" .' EXIT TERM
export ROSETTA_CACHE_DIR=/tmp/rc-s11 RUST_LOG=warn
for run in 1 2 3 4 5 6; do
  for bin in par_probe_old par_probe; do
    timeout 15 .carry/$bin 4 > $O/$bin-$run.txt 2>&1; echo "$bin run $run exit $?"
  done
done
for run in 1 2 3 4; do
  timeout 20 .carry/wgpu-tests > $O/wgpu-tests-$run.txt 2>&1; echo "wgpu-tests parallel run $run exit $?"
done
timeout 60 .carry/rosetta bench --backend wgpu:0 --op chain --op reduce --size large > $O/bench-wgpu.txt 2>&1; echo "bench exit $?"
grep -E "sum f32|chain" $O/bench-wgpu.txt
timeout 120 .carry/rosetta conform --backend wgpu:0 --out $O/conform-wgpu.json > $O/conform-wgpu.txt 2>&1; echo "conform exit $?"
tail -3 $O/conform-wgpu.txt
