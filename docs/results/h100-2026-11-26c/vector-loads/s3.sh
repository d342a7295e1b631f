#!/usr/bin/env bash
# Session 6, call 3: the Vulkan driver's statistics for each VECTOR_LOADS form and tiling.
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s3.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
python3 -c "import numpy as np; np.save('/tmp/a.npy', np.ones((512,512),np.float32))"
for t in 128x128x8/8x8 128x128x16/8x8; do
  for vl in 0 1 2 3; do
    f="$W/stats-vl$vl-$(echo $t | tr / _).txt"
    RX_VL=$vl RX_MM=$t ROSETTA_CACHE_DIR=/tmp/rc-$RANDOM ROSETTA_VULKAN_STATISTICS=1 RUST_LOG=rosetta_backend_vulkan=info \
      /tmp/b/rosetta-new run matmul --backend vulkan /tmp/a.npy /tmp/a.npy -o /tmp/c.npy > "$f" 2>&1
    echo "== vl$vl $t"; grep -i "matmul" "$f" | grep -v matmul_sum | head -3 | cut -c1-600
  done
done
export RUST_LOG=warn
for fold in 0 1; do for vl in 0 3; do for t in 128x128x8/8x8 128x128x16/8x8; do
  ROSETTA_VULKAN_FOLD_CONSTANTS=$fold RX_VL=$vl RX_MM=$t ROSETTA_CACHE_DIR=/tmp/rc-$RANDOM timeout 40 /tmp/b/rosetta-new bench --backend vulkan --op matmul --size large 2>&1 | grep "matmul" | awk -v t="fold$fold vl$vl $t" '{print t, $5, $6, $7}'
done; done; done
