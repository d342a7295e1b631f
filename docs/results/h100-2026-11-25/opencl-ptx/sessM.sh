#!/usr/bin/env bash
# Session F, run 8: the final commit on Vulkan: the whole conformance suite and the matmul benchmark.
set -u
. .gl/env.sh
export RUST_LOG=warn
nvidia-smi -L
ROSETTA_CACHE_DIR=/tmp/rc-b timeout 60 .carry/rosetta bench --backend vulkan --op matmul --size large 2>&1 | grep -E "vulkan:0  matmul|rror"
ROSETTA_CACHE_DIR=/tmp/rc-c timeout 200 .carry/rosetta conform --backend vulkan --out $OUT/conform-vulkan.json > /tmp/cv.txt 2>&1; echo "conform exit $?"; tail -n 3 /tmp/cv.txt; grep -h FAIL /tmp/cv.txt | head
