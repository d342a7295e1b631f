#!/usr/bin/env bash
# The new scan (8e41f3b) against fresh random draws: `conform --group random
# --case "random scan"`, 1000 cases per seed, seeds 20261127700-, through the
# four APIs at once for about 200 s. On an H200, the benchmark package first.
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
nvidia-smi -L
if nvidia-smi -L | grep -q H200; then TB=250 scripts/gpu-session.sh bench > /dev/null 2>&1; fi
export RUST_LOG=warn
D=$(mktemp -d)
for sel in cuda vulkan opencl:1 wgpu:0; do
  ( for seed in 20261127700 20261127701 20261127702; do
      ROSETTA_CACHE_DIR=/tmp/rc-s timeout 70 .carry/rosetta conform --backend $sel --group random --case "random scan" --random-cases 1000 --seed $seed > $D/scan-random-$(echo $sel | tr ':' '-')-$seed.txt 2>&1
      echo "exit $?" >> $D/scan-random-$(echo $sel | tr ':' '-')-$seed.txt
    done ) &
done
wait
tail -qn 4 $D/scan-random-*.txt | grep -E "passed|exit|FAIL"
tar czf $OUT/call11.tgz -C $D .
