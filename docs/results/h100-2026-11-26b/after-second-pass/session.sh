#!/usr/bin/env bash
# Call 5: after the second adversarial pass (wgpu's params check, Vulkan's
# readonly and constant checks): the contract suites of Vulkan and wgpu,
# then conformance through Vulkan and wgpu.
set -u
W=$(mktemp -d)
tar xJf .carry/bins.txz -C .carry
B=.carry/rosetta
export RUST_LOG=warn
nvidia-smi -L | tee $W/gpu.txt
for api in vulkan wgpu; do
  ( ROSETTA_REQUIRE=$api ROSETTA_CACHE_DIR=/tmp/rc-contract-$api timeout 120 .carry/contract-$api --test-threads 1 > $W/contract-$api.txt 2>&1
    echo "exit $?" >> $W/contract-$api.txt ) &
done
wait
for api in vulkan wgpu; do echo "== contract $api"; grep -E "test result|panicked|^exit|FAILED" $W/contract-$api.txt; done
s=$EPOCHREALTIME
for sel in vulkan wgpu:0; do
  n=$(echo $sel | tr ':' '-')
  ( ROSETTA_CACHE_DIR=/tmp/rc-c-$n timeout ${T:-280} $B conform --backend $sel --out $W/conform-$n.json > $W/conform-$n.txt 2>&1
    echo "exit $?" >> $W/conform-$n.txt ) &
done
wait
e=$EPOCHREALTIME
awk -v s="$s" -v e="$e" 'BEGIN { printf "conform wall %.1f s\n", e - s }'
for f in $W/conform-*.txt; do grep -E "passed|conformance:|^exit" $f | tail -n 4; done
tar czf $OUT/call5.tgz -C $W .
