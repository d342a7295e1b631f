#!/usr/bin/env bash
# Call 5: quick conformance on PoCL (opencl:0) alone, at 0c05450.
set -u
. .gl/env.sh
O=$OUT/c5; mkdir -p $O
export ROSETTA_CACHE_DIR=/tmp/rc-c5
timeout 400 .carry/rosetta conform --quick --backend opencl:0 --out $O/conform-quick-opencl-0.json > $O/conform-quick-opencl-0.txt 2>&1; echo "exit $?" >> $O/conform-quick-opencl-0.txt
tail -n 4 $O/conform-quick-opencl-0.txt
grep "^FAIL" $O/conform-quick-opencl-0.txt | head
xz -9 $O/*.json
