#!/usr/bin/env bash
# Session F, run 1: OpenCL with NVIDIA inline PTX (probe, one-launch sum, cp.async matmul).
set -u
. .gl/env.sh
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-bench
R=$OUT; W=$(mktemp -d)
trap 'tar czf $R/sessF.tgz -C $W .' EXIT
nvidia-smi -L > $W/gpu.txt 2>&1; cat $W/gpu.txt
RUST_LOG=rosetta_backend_opencl=debug timeout 60 .carry/rosetta devices > $W/devices.txt 2>&1; echo "devices exit $?"
grep -i "ptx\|probe" $W/devices.txt | head -20
timeout 150 .carry/rosetta bench --backend cuda --backend opencl:1 --op matmul --op reduce --size large --json $W/bench.json > $W/bench.txt 2>&1; echo "bench exit $?"
grep -v WARN $W/bench.txt | grep -v ERROR | grep -E "matmul|sum|copy|variant" | head -40
ROSETTA_OPENCL_OPTIONS=-cl-nv-maxrregcount=128 timeout 100 .carry/rosetta bench --backend opencl:1 --op matmul --size large > $W/bench-maxrreg128.txt 2>&1; echo "bench128 exit $?"
grep -E "matmul" $W/bench-maxrreg128.txt | head
ROSETTA_CACHE_DIR=/tmp/rc-verbose RUST_LOG=rosetta_backend_opencl=debug ROSETTA_OPENCL_OPTIONS=-cl-nv-verbose timeout 100 .carry/rosetta bench --backend opencl:1 --op matmul --op reduce --size small > $W/verbose.txt 2>&1; echo "verbose exit $?"
grep -E "Used [0-9]+ registers|spill|error" $W/verbose.txt | sort | uniq -c | head -30
export ROSETTA_CACHE_DIR=/tmp/rc-conform
timeout 200 .carry/rosetta conform --backend opencl:1 --case matmul --case reduce --out $W/conform-opencl-1.json > $W/conform-opencl-1.txt 2>&1; echo "conform exit $?"
tail -n 4 $W/conform-opencl-1.txt
grep -h "FAIL\|error" $W/conform-opencl-1.txt | head -20
export ROSETTA_CACHE_DIR=/tmp/rc-tune
timeout 120 .carry/rosetta tune --backend opencl:1 --op matmul --op reduce --size large > $W/tune-opencl.txt 2>&1; echo "tune exit $?"; grep -v WARN $W/tune-opencl.txt | grep -v ERROR | tail -40
