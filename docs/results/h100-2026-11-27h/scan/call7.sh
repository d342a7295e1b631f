#!/usr/bin/env bash
# The scan with 16-byte stores as committed: its conformance cases through
# the four APIs, then the tuner over its items per invocation (4, 8, 16).
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
D=$(mktemp -d)
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn
for sel in cuda vulkan opencl:1 wgpu:0; do
  ROSETTA_CACHE_DIR=/tmp/rc-c-$sel timeout 200 .carry/rosetta conform --backend $sel --case scan > $D/conform-scan-$(echo $sel | tr ':' '-').txt 2>&1 &
done
wait
tail -n 3 $D/conform-scan-*.txt
ROSETTA_CACHE_DIR=/tmp/rc-tune timeout 300 .carry/rosetta tune --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --op scan --size large > $D/tune-scan.txt 2>&1; echo "tune exit $?" >> $D/tune-scan.txt
grep -v -e ERROR -e WARN $D/tune-scan.txt
tar czf $OUT/call7.tgz -C $D .
