#!/usr/bin/env bash
# Call 7 (fourteenth session): matmul with operands at the 32-bit index limits, and at Vulkan's and wgpu's buffer limits.
set -u
. .gl/env.sh
O=$OUT/c7; mkdir -p $O
cd .carry && xz -d zz_bigmm.xz && chmod +x zz_bigmm && cd ..
export ROSETTA_CACHE_DIR=/tmp/rc-c7 RUST_LOG=warn
run() { n=$(echo $1 | tr ':' '-'); timeout 300 env SHAPES="$2" .carry/zz_bigmm $1 > $O/bigmm-$n.txt 2>&1; echo "exit $?" >> $O/bigmm-$n.txt; }
run cuda "1,4294967295,1;65537,65535,1;1,65535,65537;2,2147483647,3" &
run opencl:1 "1,4294967295,1;65537,65535,1;1,65535,65537;2,2147483647,3" &
wait
run vulkan "1,4294967295,1;1,1073217536,1;16411,65395,1;2,536608768,3" &
run wgpu:0 "1,4294967295,1;1,536870908,1;8191,65543,1;2,268435454,3" &
wait
cat $O/bigmm-*.txt
