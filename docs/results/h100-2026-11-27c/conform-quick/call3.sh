#!/usr/bin/env bash
# Call 3 (fourteenth session): quick conformance on every device, one process per API at once.
set -u
. .gl/env.sh
O=$OUT/c3; mkdir -p $O
nvidia-smi -L > $O/gpu.txt
export ROSETTA_CACHE_DIR=/tmp/rc-c3
for sel in cuda vulkan opencl:1 wgpu:0 "cpu --backend opencl:0"; do
  name=$(echo "$sel" | cut -d' ' -f1 | tr ':' '-')
  ( timeout 330 .carry/rosetta conform --quick --backend $sel --out "$O/conform-quick-$name.json" > "$O/conform-quick-$name.txt" 2>&1
    echo "exit $?" >> "$O/conform-quick-$name.txt" ) &
done
wait
tail -n 8 $O/conform-quick-*.txt
for f in $O/*.json; do xz -9 "$f"; done
