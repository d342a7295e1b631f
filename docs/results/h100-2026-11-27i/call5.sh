#!/usr/bin/env bash
# Call 5, the last commit's binary: on an H200 the benchmark package and
# the whole suite; elsewhere the whole suite (four GPU APIs at once), then
# the matmul benchmark at the presets and, untuned, at four shapes whose
# plan the whole-rounds rule changed.
set -u
. .gl/env.sh
nvidia-smi -L
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
if nvidia-smi -L | grep -q H200; then
    TB=240 scripts/gpu-session.sh bench > /dev/null 2>&1
    T=300 scripts/gpu-session.sh conform
    exit 0
fi
T=290 scripts/gpu-session.sh conform
R=$(mktemp -d)
trap 'tar czf "$OUT/call5.tgz" -C "$R" .' EXIT
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-call5
APIS=(--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0)
timeout 100 .carry/rosetta bench "${APIS[@]}" --op matmul --size large --json "$R/bench-matmul.json" > "$R/bench-matmul.txt" 2>&1; echo "exit $?" >> "$R/bench-matmul.txt"
timeout 150 .carry/rosetta bench "${APIS[@]}" --op matmul --shape 3000x1000x2000 --shape 3072x3072x3072 --shape 6144x1024x1024 --shape 5120 --json "$R/bench-shapes.json" > "$R/bench-shapes.txt" 2>&1; echo "exit $?" >> "$R/bench-shapes.txt"
grep -e matmul -e exit "$R"/bench-*.txt
