#!/usr/bin/env bash
# Call 4: the contract suites of the GPU APIs (cargo test binaries built
# here), then conformance through CUDA and Vulkan after the last backend
# changes (CUDA's parameter check, Vulkan's refused-batch state).
set -u
W=$(mktemp -d)
tar xJf .carry/bins.txz -C .carry
B=.carry/rosetta
export RUST_LOG=warn
nvidia-smi -L | tee $W/gpu.txt
for api in cuda vulkan wgpu opencl; do
  ( ROSETTA_REQUIRE=$api ROSETTA_CACHE_DIR=/tmp/rc-contract-$api timeout 150 .carry/contract-$api --test-threads 1 > $W/contract-$api.txt 2>&1
    echo "exit $?" >> $W/contract-$api.txt ) &
done
wait
for api in cuda vulkan wgpu opencl; do echo "== contract $api"; grep -E "^test |test result|panicked|^exit" $W/contract-$api.txt | grep -v " ok$" ; grep -c " ok$" $W/contract-$api.txt; done
s=$EPOCHREALTIME
for sel in cuda vulkan; do
  ( ROSETTA_CACHE_DIR=/tmp/rc-c-$sel timeout ${T:-330} $B conform --backend $sel --out $W/conform-$sel.json > $W/conform-$sel.txt 2>&1
    echo "exit $?" >> $W/conform-$sel.txt ) &
done
wait
e=$EPOCHREALTIME
awk -v s="$s" -v e="$e" 'BEGIN { printf "conform wall %.1f s\n", e - s }'
for f in $W/conform-*.txt; do grep -E "passed|conformance:|^exit" $f | tail -n 4; done
tar czf $OUT/call4.tgz -C $W .
