#!/usr/bin/env bash
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
O=$(mktemp -d)
trap 'tar czf "$OUT/s12.tgz" -C "$O" .' EXIT TERM
export ROSETTA_CACHE_DIR=/tmp/rc-s12 RUST_LOG=warn
for round in 1 2; do
  for bin in rosetta-old rosetta; do
    timeout 60 .carry/$bin bench --backend opencl:1 --op reduce --op histogram --size large > $O/bench-opencl-$bin-$round.txt 2>&1
    echo "== opencl $bin round $round"; grep -E "sum f32|histogram" $O/bench-opencl-$bin-$round.txt | head -11
  done
done
for c in opencl wgpu; do
  timeout 150 .carry/contract-$c > $O/contract-$c.txt 2>&1; echo "contract $c exit $?"; grep -E "test result|panicked" -A1 $O/contract-$c.txt | head -6
done
for sel in vulkan cuda opencl:1; do
  for run in 1 2 3; do
    timeout 15 .carry/par_probe 4 $sel > $O/par-$sel-$run.txt 2>&1; echo "par $sel run $run exit $?"
  done
done
