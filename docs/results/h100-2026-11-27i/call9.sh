#!/usr/bin/env bash
# Call 9, the library tuner (a1b1bbf) through `rosetta tune`: on an H200 the
# benchmark package and the suite (h200-try.sh); elsewhere tune then bench
# of a user's matmul shape and a conv2d shape through the four GPU APIs.
set -u
. .gl/env.sh
nvidia-smi -L
if nvidia-smi -L | grep -q H200; then bash docs/results/h100-2026-11-27i/h200-try.sh; exit 0; fi
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
R=$OUT/call9; mkdir -p "$R"
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-call9
nvidia-smi -L > "$R/gpu.txt"
APIS=(--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0)
timeout 200 .carry/rosetta tune "${APIS[@]}" --op matmul --shape 1500x700x900 > "$R/tune-matmul.txt" 2>&1; echo "exit $?" >> "$R/tune-matmul.txt"
timeout 120 .carry/rosetta tune "${APIS[@]}" --op conv2d --shape 3000x2000x7 > "$R/tune-conv2d.txt" 2>&1; echo "exit $?" >> "$R/tune-conv2d.txt"
timeout 100 .carry/rosetta bench "${APIS[@]}" --op matmul --shape 1500x700x900 --shape 1400x600x1000 --json "$R/bench-matmul.json" > "$R/bench-matmul.txt" 2>&1; echo "exit $?" >> "$R/bench-matmul.txt"
timeout 100 .carry/rosetta bench "${APIS[@]}" --op conv2d --shape 3000x2000x7 --json "$R/bench-conv2d.json" > "$R/bench-conv2d.txt" 2>&1; echo "exit $?" >> "$R/bench-conv2d.txt"
grep -v -e ERROR -e WARN "$R"/tune-*.txt; grep -e matmul -e conv2d -e exit "$R"/bench-*.txt
