#!/usr/bin/env bash
# Call 2: `--shape` on the GPU — matmul tuned at two shapes no preset has,
# through the four APIs, then benchmarked with that cache and with none
# (the plan's heuristic); then the rest of call 1's tuning cache: wgpu's
# three cubes and OpenCL's 2048³ and 1024³ (named as shapes).
set -u
. .gl/env.sh
nvidia-smi -L
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
B=.carry/rosetta
R=$(mktemp -d)
trap 'tar czf "$OUT/call2.tgz" -C "$R" .' EXIT
export RUST_LOG=warn
export ROSETTA_CACHE_DIR=/tmp/rc-shape
APIS=(--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0)
SHAPES=(--shape 512x512x512 --shape 3000x1000x2000)
nvidia-smi -L > "$R/gpu.txt"
timeout 240 $B tune "${APIS[@]}" --op matmul "${SHAPES[@]}" > "$R/tune-shapes.txt" 2>&1; echo "tune shapes exit $?" | tee -a "$R/tune-shapes.txt"
timeout 60 $B bench "${APIS[@]}" --op matmul "${SHAPES[@]}" --json "$R/bench-tuned.json" > "$R/bench-tuned.txt" 2>&1; echo "bench tuned exit $?" | tee -a "$R/bench-tuned.txt"
ROSETTA_CACHE_DIR=off timeout 60 $B bench "${APIS[@]}" --op matmul "${SHAPES[@]}" --json "$R/bench-untuned.json" > "$R/bench-untuned.txt" 2>&1; echo "bench untuned exit $?" | tee -a "$R/bench-untuned.txt"
grep -v -e ERROR -e WARN "$R/tune-shapes.txt"
grep matmul "$R/bench-tuned.txt" "$R/bench-untuned.txt"
export ROSETTA_CACHE_DIR=/tmp/rc-tune
timeout 130 $B tune --backend opencl:1 --op matmul --shape 2048 --shape 1024 > "$R/tune-opencl.txt" 2>&1; echo "tune opencl exit $?" | tee -a "$R/tune-opencl.txt"
grep -v -e ERROR -e WARN "$R/tune-opencl.txt"
left=$(( 575 - SECONDS ))
timeout $left $B tune --backend wgpu:0 --op matmul --size large > "$R/tune-wgpu.txt" 2>&1; echo "tune wgpu exit $?" | tee -a "$R/tune-wgpu.txt"
grep -v -e ERROR -e WARN "$R/tune-wgpu.txt"
tar czf "$R/tuning-cache.tgz" -C /tmp rc-shape/tuning rc-tune/tuning 2>/dev/null
