#!/usr/bin/env bash
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
O=$OUT
export ROSETTA_CACHE_DIR=/tmp/rc-s16 RUST_LOG=warn
timeout 120 .carry/zero_probe opencl:1 2>&1 | tee $O/zero-probe.txt
timeout 90 .carry/rosetta bench --backend opencl:1 --op chain --op histogram --op reduce --size large > $O/bench-opencl.txt 2>&1; echo "bench exit $?"
grep -E "chain|histogram|sum f32 n=2\^(16|20|28)" $O/bench-opencl.txt
timeout 300 .carry/rosetta conform --backend opencl:1 --out $O/conform-opencl-1.json > $O/conform-opencl-1.txt 2>&1; echo "conform exit $?"
tail -3 $O/conform-opencl-1.txt
