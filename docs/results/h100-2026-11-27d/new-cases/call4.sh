#!/usr/bin/env bash
# Call 4 (fifteenth session, at 0c05450): quick conformance with the new cases
# on every device, one process per API; then a small benchmark through the
# GPU APIs compared with itself.
set -u
. .gl/env.sh
O=$OUT/c4; mkdir -p $O
nvidia-smi -L > $O/gpu.txt
R=.carry/rosetta
export ROSETTA_CACHE_DIR=/tmp/rc-c4
for sel in cuda vulkan opencl:1 wgpu:0 cpu opencl:0; do
  name=$(echo "$sel" | tr ':' '-')
  ( timeout 400 $R conform --quick --backend $sel --out "$O/conform-quick-$name.json" > "$O/conform-quick-$name.txt" 2>&1
    echo "exit $?" >> "$O/conform-quick-$name.txt" ) &
done
wait
tail -n 3 $O/conform-quick-*.txt
grep -h "^FAIL" $O/conform-quick-*.txt | head -20
timeout 150 $R bench --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --size small --json $O/bench-small.json > $O/bench-small.txt 2>&1; echo "bench exit $?"
timeout 150 $R bench --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --size small --compare $O/bench-small.json > $O/bench-compare.txt 2>&1; echo "compare exit $?"
tail -n 2 $O/bench-compare.txt
grep -c " ok " $O/bench-small.txt; grep -i "error\|wrong" $O/bench-small.txt | head -5
for f in $O/*.json; do xz -9 "$f"; done
tar czf $OUT/c4.tgz -C $OUT c4 && rm -rf $O
