#!/usr/bin/env bash
# Call 6 (fifteenth session, at 19fcb8c): quick conformance with every new case,
# one process per GPU API and one for cpu and PoCL together.
set -u
. .gl/env.sh
O=$OUT/c6; mkdir -p $O
nvidia-smi -L > $O/gpu.txt
R=.carry/rosetta
export ROSETTA_CACHE_DIR=/tmp/rc-c6
for sel in cuda vulkan opencl:1 wgpu:0 "cpu --backend opencl:0"; do
  name=$(echo "$sel" | cut -d' ' -f1 | tr ':' '-')
  ( timeout 450 $R conform --quick --backend $sel --out "$O/conform-quick-$name.json" > "$O/conform-quick-$name.txt" 2>&1
    echo "exit $?" >> "$O/conform-quick-$name.txt" ) &
done
wait
grep -h -e "passed" -e "^exit" $O/conform-quick-*.txt
grep -h "^FAIL" $O/conform-quick-*.txt | head -20
grep -h -e "back to back" -e "grid 3 wide" -e "^copy" $O/conform-quick-wgpu-0.txt | head -20
for f in $O/*.json; do xz -9 "$f"; done
tar czf $OUT/c6.tgz -C $OUT c6 && rm -rf $O
