#!/usr/bin/env bash
# Call 2 (fourteenth session): compiler-option refusals on CUDA and NVIDIA's OpenCL,
# PoCL's quiet builds, and quick conformance on every device at the last library commit.
set -u
. .gl/env.sh
O=$OUT/c2; mkdir -p $O
nvidia-smi -L > $O/gpu.txt
R=.carry/rosetta
export ROSETTA_CACHE_DIR=/tmp/rc-c2
$R devices > $O/devices.txt 2>&1
{
for sel in cuda opencl:1 opencl:0; do
  case $sel in cuda) var=ROSETTA_NVRTC_OPTIONS;; *) var=ROSETTA_OPENCL_OPTIONS;; esac
  for opt in "" "-DOP=2" "-cl-fast-relaxed-math" "--use_fast_math" "-ftz=true" "-UELEM"; do
    echo "--- $sel $var='$opt'"
    env $var="$opt" $R run reduce --backend $sel .carry/in/a12.npy 2>&1; echo "rc=$?"
  done
done
echo "--- PoCL, empty caches: conv2d clamp 1x1 with 31x1 (stderr below, expected empty)"
for sel in opencl:0 opencl:1 cuda vulkan wgpu:0; do
  rm -rf /tmp/pc-q /tmp/rc-q
  POCL_CACHE_DIR=/tmp/pc-q ROSETTA_CACHE_DIR=/tmp/rc-q $R run conv2d --border clamp --backend $sel .carry/in/img1.npy .carry/in/f31x1.npy 2>/tmp/err.txt; echo "$sel rc=$? stderr=[$(cat /tmp/err.txt)]"
done
} > $O/options.txt 2>&1
cat $O/options.txt
timeout 400 $R conform --quick --backend all --out $O/conform-quick.json > $O/conform-quick.txt 2>&1; echo "conform rc=$?" >> $O/conform-quick.txt
tail -15 $O/conform-quick.txt
xz -9 $O/conform-quick.json
