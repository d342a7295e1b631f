#!/usr/bin/env bash
# Call 5 (fourteenth session): sizes near the kernels' 32-bit index limits (2^32 - 1 elements), per API.
set -u
. .gl/env.sh
O=$OUT/c5; mkdir -p $O
nvidia-smi -L > $O/gpu.txt; free -g > $O/host-memory.txt
cd .carry && xz -d zz_big.xz && chmod +x zz_big && cd ..
export ROSETTA_CACHE_DIR=/tmp/rc-c5 RUST_LOG=warn
run() { n=$(echo $1 | tr ':' '-'); timeout $2 .carry/zz_big $1 > $O/big-$n.txt 2>&1; echo "exit $?" >> $O/big-$n.txt; }
run cuda 250 & run vulkan 250 & wait
run opencl:1 250 & run wgpu:0 250 & wait
cat $O/big-*.txt
