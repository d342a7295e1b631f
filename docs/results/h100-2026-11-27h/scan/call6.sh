#!/usr/bin/env bash
# The scan: main (old: 4-byte stores, two barriers per level of the totals'
# scan), 16-byte stores (vs), and 16-byte stores with the totals' scan
# between two halves of shared memory, one barrier per level (pp).
# `rosetta bench --op scan --size large` through the four APIs, two rounds;
# then the scan cases of conformance with pp.
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta_old rosetta_vs rosetta_pp)
D=$(mktemp -d)
nvidia-smi -L | tee $D/gpu.txt
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-scan
APIS=(--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0)
for round in 1 2; do for bin in old vs pp; do
  echo "== round $round $bin" >> $D/bench-scan.txt
  timeout 100 .carry/rosetta_$bin bench "${APIS[@]}" --op scan --size large >> $D/bench-scan.txt 2>&1
done; done
grep -E "^==|2\^28|2\^24" $D/bench-scan.txt
for sel in cuda vulkan opencl:1 wgpu:0; do
  timeout 200 .carry/rosetta_pp conform --backend $sel --case scan > $D/conform-scan-$(echo $sel | tr ':' '-').txt 2>&1 &
done
wait
tail -n 3 $D/conform-scan-*.txt
tar czf $OUT/call6.tgz -C $D .
