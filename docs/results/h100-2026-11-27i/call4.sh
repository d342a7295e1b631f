#!/usr/bin/env bash
# Call 4: the whole-rounds rule at the shapes call 3 ran out of time for:
# the untuned plan after the rule (default) against the large tiling the
# plan took before it and the tilings it takes now, each checked against
# the default's C (examples/zz_mm.rs, a scratch timer: a copy of
# docs/results/h100-2026-11-27g/shapes/zz_mm.rs, built with --example).
set -u
. .gl/env.sh
nvidia-smi -L
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta_new zz)
R=$(mktemp -d)
trap 'tar czf "$OUT/call4.tgz" -C "$R" .' EXIT
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-zz
nvidia-smi -L > "$R/gpu.txt"
S=5120x5120x5120,3072x3072x3072,6144x1024x1024,3584x3584x3584,4608x4608x4608
run() { SHAPES=$S VARIANTS=$2 SAMPLES=15 timeout 125 .carry/zz "$1" >> "$R/zz.txt" 2>&1; echo "$1 exit $?" >> "$R/zz.txt"; }
run cuda default,256x128x16/16x8,128x128x16/8x8
run vulkan default,128x256x8/8x16,128x64x16/8x4,128x128x8/8x8
run wgpu:0 default,128x256x8/8x16,128x64x16/8x4,128x128x8/8x8
run opencl:1 default,128x256x8/8x16,128x128x16/8x8,128x64x16/8x4
cat "$R/zz.txt"
