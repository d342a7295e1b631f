#!/usr/bin/env bash
# Call 3: large matmul tilings where their rounds of workgroups are not
# full. Every variant at shapes whose 256x128 / 128x256 tiles leave the
# last round part-empty (and controls), through CUDA and Vulkan
# (`tune --shape` prints each variant's time); then the untuned plan of
# the binary before (old) and after (new) the whole-rounds rule, every API.
set -u
. .gl/env.sh
nvidia-smi -L
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta_old rosetta_new)
R=$(mktemp -d)
trap 'tar czf "$OUT/call3.tgz" -C "$R" .' EXIT
export RUST_LOG=warn
nvidia-smi -L > "$R/gpu.txt"
SH=""
for s in 3000x1000x2000 3072x512x3072 2304x2304x2304 2560x2560x2560 2816x2816x2816 3072x3072x3072 3584x3584x3584 5120x5120x5120 6144x1024x1024 4608x4608x4608; do SH="$SH --shape $s"; done
for api in cuda vulkan; do
  ROSETTA_CACHE_DIR=/tmp/rc-$api timeout 165 .carry/rosetta_new tune --backend $api --op matmul $SH > "$R/tune-$api.txt" 2>&1; echo "tune $api exit $?" | tee -a "$R/tune-$api.txt"
  grep -v -e ERROR -e WARN "$R/tune-$api.txt"
done
for bin in old new; do
  ROSETTA_CACHE_DIR=off timeout 110 .carry/rosetta_$bin bench --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --op matmul $SH --json "$R/bench-$bin.json" > "$R/bench-$bin.txt" 2>&1; echo "bench $bin exit $?" | tee -a "$R/bench-$bin.txt"
done
grep matmul "$R"/bench-*.txt
