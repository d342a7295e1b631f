#!/usr/bin/env bash
# OpenCL intervals from the first launch's own start: main (rosetta) against the change (rosetta_new).
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta rosetta_new timing_test)
D=$OUT/c3; mkdir -p $D
nvidia-smi -L > $D/gpu.txt; cat $D/gpu.txt
export RUST_LOG=warn
ROSETTA_REQUIRE=cpu,cuda,vulkan,opencl,wgpu timeout 120 .carry/timing_test > $D/timing-test.txt 2>&1; echo "timing test exit $?" | tee -a $D/timing-test.txt
for round in 1 2; do for bin in rosetta rosetta_new; do
  ROSETTA_CACHE_DIR=/tmp/rc-b timeout 120 .carry/$bin bench --backend opencl:1 --op reduce --size large --json $D/bench-$bin-r$round.json > $D/bench-$bin-r$round.txt 2>&1
  echo "== $bin round $round"; grep -E "launch floor|sum .*2\^(16|20|22|24)|sum" $D/bench-$bin-r$round.txt | head -12
done; done
ROSETTA_CACHE_DIR=/tmp/rc-b timeout 200 .carry/rosetta_new conform --backend opencl:1 --quick > $D/conform-quick-opencl1.txt 2>&1; echo "conform exit $?"; tail -n 3 $D/conform-quick-opencl1.txt
