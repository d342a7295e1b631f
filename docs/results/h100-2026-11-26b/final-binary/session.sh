#!/usr/bin/env bash
# Call 6, the final binary (66861d3): conformance through CUDA and NVIDIA's
# OpenCL, and the numpy fuzzer through the four GPU APIs, at once.
set -u
W=$(mktemp -d)
tar xJf .carry/bins.txz -C .carry
B=.carry/rosetta
export RUST_LOG=warn
nvidia-smi -L | tee $W/gpu.txt
for sel in cuda opencl:1; do
  n=$(echo $sel | tr ':' '-')
  ( ROSETTA_CACHE_DIR=/tmp/rc-c-$n timeout 220 $B conform --backend $sel --out $W/conform-$n.json > $W/conform-$n.txt 2>&1
    echo "exit $?" >> $W/conform-$n.txt ) &
done
for i in 0 1 2 3; do
  ( ROSETTA_CACHE_DIR=/tmp/rc-fuzz python3 tests/numpy/fuzz.py $B cuda,vulkan,opencl:1,wgpu:0 --cases 100000 \
      --seed $((20261200 + i)) --seconds 110 > $W/fuzz-$i.txt 2>&1 ) &
done
wait
for f in $W/conform-*.txt; do grep -E "passed|conformance:|^exit" $f | tail -n 4; done
grep -h -e "^FAIL" -e "reproduce" -e "^fuzz:" $W/fuzz-*.txt
tar czf $OUT/call6.tgz -C $W .
