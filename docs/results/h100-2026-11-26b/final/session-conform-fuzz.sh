#!/usr/bin/env bash
# Call 2: the whole conformance suite on every device (the four GPU APIs,
# cpu and PoCL; one process per API, in parallel), then the numpy fuzzer
# at full size through the four GPU APIs.
set -u
B=.carry/rosetta
W=$(mktemp -d)
export RUST_LOG=warn
nvidia-smi -L > $W/gpu.txt 2>&1; nvidia-smi --query-gpu=driver_version --format=csv >> $W/gpu.txt 2>&1; cat $W/gpu.txt
$B devices > $W/devices.txt 2>&1
s=$EPOCHREALTIME
for sel in cuda vulkan opencl:1 wgpu:0 "cpu --backend opencl:0"; do
  n=$(echo $sel | cut -d' ' -f1 | tr ':' '-')
  # shellcheck disable=SC2086
  ( ROSETTA_CACHE_DIR=/tmp/rc-c-$n timeout ${T:-420} $B conform --backend $sel --out $W/conform-$n.json > $W/conform-$n.txt 2>&1
    echo "exit $?" >> $W/conform-$n.txt ) &
done
wait
e=$EPOCHREALTIME
awk -v s="$s" -v e="$e" 'BEGIN { printf "conform wall %.1f s\n", e - s }'
for f in $W/conform-*.txt; do echo "== $f"; grep -E "passed|conformance:|^exit|FAIL" $f | tail -n 6; done
export ROSETTA_CACHE_DIR=/tmp/rc-fuzz
for i in 0 1 2 3; do
  python3 tests/numpy/fuzz.py $B cuda,vulkan,opencl:1,wgpu:0 --cases 100000 --seed $((20261126 + i)) \
    --seconds ${TF:-120} > $W/fuzz-$i.txt 2>&1 &
done
wait
grep -h -e "^FAIL" -e "reproduce" -e "^fuzz:" $W/fuzz-*.txt
tar czf $OUT/call2.tgz -C $W .
