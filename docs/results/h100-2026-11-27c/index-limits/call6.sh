#!/usr/bin/env bash
# Call 6 (fourteenth session): Vulkan and wgpu at their own buffer limits (4292870144 and 2147483632 bytes).
set -u
. .gl/env.sh
O=$OUT/c6; mkdir -p $O
cd .carry && xz -d zz_big.xz && chmod +x zz_big && cd ..
export ROSETTA_CACHE_DIR=/tmp/rc-c6 RUST_LOG=warn
( BIG=1073217536 HALF=1073217536 BIG8=4292870144 SIDE=32760 timeout 280 .carry/zz_big vulkan > $O/big-vulkan.txt 2>&1; echo "exit $?" >> $O/big-vulkan.txt ) &
( BIG=536870908 HALF=536870908 BIG8=2147483632 SIDE=23170 timeout 280 .carry/zz_big wgpu:0 > $O/big-wgpu-0.txt 2>&1; echo "exit $?" >> $O/big-wgpu-0.txt ) &
wait
cat $O/big-*.txt
