#!/usr/bin/env bash
# Session 6, call 2: which of A's / B's tiles gain from 16-byte loads (VECTOR_LOADS bits), per tiling.
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s2.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
nvidia-smi -L > "$W/gpu.txt"
export RUST_LOG=warn
run() { # bin api vl tiling
  local f="$W/$1-$(echo $2 | tr ":" "-")-vl$3-$(echo $4 | tr "/" "_")-r$round.txt"
  RX_VL=$3 RX_MM="$4" ROSETTA_CACHE_DIR=/tmp/rc-$RANDOM timeout 40 /tmp/b/rosetta-$1 bench --backend $2 --op matmul --size large > "$f" 2>&1
  grep matmul "$f" | awk -v t="$1 $2 vl$3 $4" '{print t, $5, $6, $7}'
}
for round in 1 2; do
  for t in 128x128x8/8x8 128x128x16/8x8; do
    [ $t = 128x128x8/8x8 ] && run old vulkan 0 $t
    for vl in 0 1 2 3; do run new vulkan $vl $t; done
    [ $t = 128x128x8/8x8 ] && run old wgpu:0 0 $t
    for vl in 0 3; do run new wgpu:0 $vl $t; done
  done
done
