#!/usr/bin/env bash
# Quick conformance (every group) and then the random group, seed after
# seed, per API in parallel until the deadline; cpu and PoCL in one process.
set -u
B=.carry/rosetta
R=$OUT/r; mkdir -p "$R"
nvidia-smi -L > "$R/gpu.txt" 2>&1
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-random
DEADLINE=$((SECONDS + ${T:-500}))
for sel in cuda vulkan opencl:1 wgpu:0 "cpu --backend opencl:0"; do
  name=$(echo "$sel" | cut -d' ' -f1 | tr ':' '-')
  (
    # shellcheck disable=SC2086
    timeout 200 $B conform --backend $sel --quick --out "$R/quick-$name.json" > "$R/quick-$name.txt" 2>&1
    echo "exit $?" >> "$R/quick-$name.txt"
    seed=20261127
    while [ $SECONDS -lt $((DEADLINE - 60)) ]; do
      # shellcheck disable=SC2086
      timeout $((DEADLINE - SECONDS)) $B conform --backend $sel --group random --seed $seed --random-cases 100 \
        --out "$R/random-$name-$seed.json" > "$R/random-$name-$seed.txt" 2>&1
      echo "exit $?" >> "$R/random-$name-$seed.txt"
      seed=$((seed + 1))
    done
  ) &
done
wait
cd "$R" && for f in quick-*.txt random-*.txt; do echo "== $f"; grep -e "passed" -e "^FAIL" -e "^exit" -e "wall time" "$f" | head -12; done > summary.txt
cp "$R/summary.txt" "$OUT/summary.txt"
xz -9 "$R"/*.json
cd "$OUT" && tar czf random.tgz r && rm -rf r
