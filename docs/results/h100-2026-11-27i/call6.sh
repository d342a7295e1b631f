#!/usr/bin/env bash
# Call 6, the last commit's binary: --shape through the four GPU APIs —
# shapes past the device's limits (typed errors, exit 1, no abort), the
# least shapes of every op and form (each output checked), and tune then
# bench of a user's matmul shape (tuned, right).
set -u
. .gl/env.sh
nvidia-smi -L
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
R=$(mktemp -d)
trap 'tar czf "$OUT/call6.tgz" -C "$R" .' EXIT
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-call6
nvidia-smi -L > "$R/gpu.txt"
for be in cuda vulkan opencl:1 wgpu:0; do
  for args in "matmul 2^24x2^24x2^8" "reduce 2^40" "scan 2^36" "conv2d 2^20x2^20" "copy 2^40" \
              "copy 1" "reduce 1" "scan 1" "histogram 1x1" "histogram 5x3" "conv1d 1x1" "conv1d 3x7" \
              "conv2d 1x1x1" "conv2d 2x3x5x7" "matmul 1" "matmul 1x1000x3" "matmul 1000x1x3"; do
    set -- $args
    timeout 60 .carry/rosetta bench --backend $be --op $1 --shape $2 --size small > "$R/o.txt" 2>&1; rc=$?
    echo "$be $args rc $rc | $(grep -v -e '^device' -e 'copy n=2^20' -e 'launch floor' -e WARN "$R/o.txt" | tr -s ' ' | tr '\n' ' ')" >> "$R/shapes.txt"
  done
done
for be in cuda vulkan opencl:1 wgpu:0; do
  timeout 60 .carry/rosetta tune --backend $be --op matmul --shape 700x300x500 >> "$R/tune.txt" 2>&1; echo "tune $be exit $?" >> "$R/tune.txt"
  timeout 60 .carry/rosetta bench --backend $be --op matmul --shape 700x300x500 --shape 600x257x511 --json "$R/bench-$be.json" >> "$R/bench.txt" 2>&1; echo "bench $be exit $?" >> "$R/bench.txt"
done
cat "$R/shapes.txt"; grep -v -e ERROR -e WARN "$R/tune.txt"; grep -e matmul -e exit "$R/bench.txt"
