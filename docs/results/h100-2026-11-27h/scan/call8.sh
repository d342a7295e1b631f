#!/usr/bin/env bash
# WGSL's scan with its elements held as vec4s (w4) against the committed
# form (fcc6881): the tuner over items per invocation through wgpu:0, two
# binaries alternating, then the scan cases through wgpu:0 with w4.
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta rosetta_w4)
D=$(mktemp -d)
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn
for round in 1 2; do for bin in rosetta rosetta_w4; do
  echo "== round $round $bin" >> $D/tune-wgpu.txt
  rm -rf /tmp/rc-w; ROSETTA_CACHE_DIR=/tmp/rc-w timeout 100 .carry/$bin tune --backend wgpu:0 --op scan --size large >> $D/tune-wgpu.txt 2>&1
done; done
grep -v -e ERROR -e WARN -e "tuning cache" $D/tune-wgpu.txt
ROSETTA_CACHE_DIR=/tmp/rc-c timeout 200 .carry/rosetta_w4 conform --backend wgpu:0 --case scan > $D/conform-scan-w4.txt 2>&1
tail -n 3 $D/conform-scan-w4.txt
tar czf $OUT/call8.tgz -C $D .
