#!/usr/bin/env bash
# Call 3: quick conformance of the CPU-type devices (cpu, PoCL) alone, at fe9a980.
set -u
. .gl/env.sh
O=$OUT/c3; mkdir -p $O
export ROSETTA_CACHE_DIR=/tmp/rc-c3
for sel in cpu opencl:0; do
  name=$(echo "$sel" | tr ':' '-')
  ( timeout 400 .carry/rosetta conform --quick --backend $sel --out "$O/conform-quick-$name.json" > "$O/conform-quick-$name.txt" 2>&1
    echo "exit $?" >> "$O/conform-quick-$name.txt" ) &
done
wait
tail -n 4 $O/conform-quick-*.txt
for f in $O/*.json; do xz -9 "$f"; done
