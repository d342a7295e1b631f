#!/usr/bin/env bash
# At 8e41f3b (the last kernel change): the scan's benchmark through the
# four APIs, untuned, then the whole suite (scripts/gpu-session.sh conform,
# one process per API). On an H200, the benchmark package first.
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
nvidia-smi -L
if nvidia-smi -L | grep -q H200; then TB=250 scripts/gpu-session.sh bench > /dev/null 2>&1; fi
ROSETTA_CACHE_DIR=/tmp/rc-b RUST_LOG=warn timeout 60 .carry/rosetta bench --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --op scan --size large --json $OUT/bench-scan.json > $OUT/bench-scan.txt 2>&1
cat $OUT/bench-scan.txt
T=400 scripts/gpu-session.sh conform
