#!/usr/bin/env bash
# Why wgpu's scan trails Vulkan's: the same GLSL through Vulkan with robust
# buffer access on (ROSETTA_VULKAN_ROBUSTNESS=1, as wgpu always asks) and
# off, beside wgpu, two rounds (8e41f3b's binary).
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
nvidia-smi -L
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-r
for round in 1 2; do
  for robust in 0 1; do
    echo "== round $round robustness $robust"
    ROSETTA_VULKAN_ROBUSTNESS=$robust timeout 60 .carry/rosetta bench --backend vulkan --op scan --op reduce --size large | grep -E "scan|2\^28"
  done
  echo "== round $round wgpu"
  timeout 60 .carry/rosetta bench --backend wgpu:0 --op scan --size large | grep -E "scan"
done
