#!/usr/bin/env bash
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
O=$(mktemp -d)
trap 'tar czf "$OUT/s10.tgz" -C "$O" .' EXIT TERM
export ROSETTA_CACHE_DIR=/tmp/rc-s10
for run in 1 2 3; do
  RUST_LOG=rosetta_backend_wgpu=debug,wgpu_core=info,wgpu_hal=info timeout 20 .carry/par_probe 4 > $O/par-$run.txt 2>&1; echo "run $run exit $?"
  grep -v "^\s" $O/par-$run.txt | sed 's/\x1b\[[0-9;]*m//g' | grep -v "EGL\|GL_" | tail -25
done
