#!/usr/bin/env bash
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
O=$OUT/pocl; mkdir -p $O
export ROSETTA_CACHE_DIR=/tmp/rc-s13 RUST_LOG=warn
for bin in contract-opencl-old contract-opencl; do
  for run in 1 2 3; do
    timeout 60 .carry/$bin > $O/$bin-parallel-$run.txt 2>&1; echo "$bin parallel run $run exit $?"
  done
  timeout 100 .carry/$bin --test-threads=1 > $O/$bin-serial.txt 2>&1; echo "$bin serial exit $?"; grep "test result" $O/$bin-serial.txt
done
(cd $O && tar czf ../pocl.tgz . ) && rm -rf $O
T=480 bash scripts/gpu-session.sh conform
