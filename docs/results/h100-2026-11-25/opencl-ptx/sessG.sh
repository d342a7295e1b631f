#!/usr/bin/env bash
# Session F, run 2: Vulkan with folded constants (A/B), OpenCL 16-deep slices in two stages, wgpu tuning after the warm-up fix.
set -u
. .gl/env.sh
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-bench
R=$OUT; W=$(mktemp -d)
trap 'tar czf $R/sessG.tgz -C $W .' EXIT
nvidia-smi -L > $W/gpu.txt 2>&1; cat $W/gpu.txt
timeout 100 .carry/rosetta bench --backend vulkan --op matmul --size large > $W/bench-vulkan.txt 2>&1; echo "bench exit $?"; grep matmul $W/bench-vulkan.txt
ROSETTA_CACHE_DIR=/tmp/rc-fold ROSETTA_VULKAN_FOLD_CONSTANTS=1 timeout 100 .carry/rosetta bench --backend vulkan --op matmul --size large > $W/bench-vulkan-fold.txt 2>&1; echo "bench fold exit $?"; grep matmul $W/bench-vulkan-fold.txt
ROSETTA_CACHE_DIR=/tmp/rc-fold2 ROSETTA_VULKAN_FOLD_CONSTANTS=1 ROSETTA_VULKAN_STATISTICS=1 RUST_LOG=info timeout 60 .carry/rosetta bench --backend vulkan --op matmul --size large > $W/stats-fold.txt 2>&1
ROSETTA_CACHE_DIR=/tmp/rc-nofold2 ROSETTA_VULKAN_STATISTICS=1 RUST_LOG=info timeout 60 .carry/rosetta bench --backend vulkan --op matmul --size large > $W/stats-nofold.txt 2>&1
grep -h "statistics" $W/stats-fold.txt $W/stats-nofold.txt | grep "TILE_M=128" | cut -c1-400 | head -6
timeout 100 .carry/rosetta bench --backend opencl:1 --op matmul --size large > $W/bench-opencl.txt 2>&1; echo "bench ocl exit $?"; grep matmul $W/bench-opencl.txt
export ROSETTA_CACHE_DIR=/tmp/rc-tune
timeout 120 .carry/rosetta tune --backend opencl:1 --op matmul --size large > $W/tune-opencl.txt 2>&1; echo "tune ocl exit $?"; grep -v WARN $W/tune-opencl.txt | grep -v ERROR | tail -5
timeout 150 .carry/rosetta tune --backend wgpu:0 --op matmul --size large > $W/tune-wgpu.txt 2>&1; echo "tune wgpu exit $?"; grep -v WARN $W/tune-wgpu.txt | grep -v ERROR | tail -5
export ROSETTA_CACHE_DIR=/tmp/rc-conform
timeout 200 .carry/rosetta conform --backend opencl:1 --case matmul --out $W/conform-opencl-1.json > $W/conform-opencl-1.txt 2>&1; echo "conform exit $?"
tail -n 3 $W/conform-opencl-1.txt; grep -h "FAIL" $W/conform-opencl-1.txt | head
ROSETTA_CACHE_DIR=/tmp/rc-conform-fold ROSETTA_VULKAN_FOLD_CONSTANTS=1 timeout 200 .carry/rosetta conform --backend vulkan --case matmul > $W/conform-vulkan-fold.txt 2>&1; echo "conform fold exit $?"; tail -n 3 $W/conform-vulkan-fold.txt
