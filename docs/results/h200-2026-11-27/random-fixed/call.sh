#!/usr/bin/env bash
# At the commit with the reference fix: the seed that failed, the lone-NaN
# cases, then new seeds of the random group per GPU API until the deadline.
set -u
B=.carry/rosetta
R=$OUT/r; mkdir -p "$R"
nvidia-smi -L > "$R/gpu.txt" 2>&1
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-random
DEADLINE=$((SECONDS + ${T:-300}))
for sel in cuda vulkan opencl:1 wgpu:0; do
  name=$(echo "$sel" | tr ':' '-')
  (
    $B conform --backend $sel --case 'lone' > "$R/lone-$name.txt" 2>&1; echo "exit $?" >> "$R/lone-$name.txt"
    seed=20261155
    while [ $SECONDS -lt $((DEADLINE - 40)) ]; do
      timeout $((DEADLINE - SECONDS)) $B conform --backend $sel --group random --seed $seed --random-cases 100 \
        --out "$R/random-$name-$seed.json" > "$R/random-$name-$seed.txt" 2>&1
      rc=$?
      echo "exit $rc" >> "$R/random-$name-$seed.txt"
      # A usage error or a run that could not start ends this API's loop.
      [ $rc = 2 ] && break
      [ $seed = 20261155 ] && seed=20261200 || seed=$((seed + 1))
    done
  ) &
done
wait
cd "$R" && for f in lone-*.txt random-*.txt; do echo "== $f"; grep -e "passed" -e "^FAIL" -e "^exit" "$f" | head -12; done > summary.txt
cp summary.txt "$OUT/summary.txt"
xz -9 "$R"/*.json
cd "$OUT" && tar czf random2.tgz r/*.json.xz r/summary.txt r/gpu.txt r/lone-*.txt && rm -rf r
