#!/usr/bin/env bash
# On an H200: the benchmark with vendor baselines and first-op times, then the tuner (main's binary).
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta timing_test)
nvidia-smi -L | tee $OUT/gpu.txt
ROSETTA_REQUIRE=cpu,cuda,vulkan,opencl,wgpu RUST_LOG=warn timeout 120 .carry/timing_test > $OUT/timing-test.txt 2>&1; echo "timing test exit $?" | tee -a $OUT/timing-test.txt
if ! nvidia-smi -L | grep -q H200; then echo "not an H200"; exit 3; fi
TB=${TB:-280} scripts/gpu-session.sh bench
TT=${TT:-170} scripts/gpu-session.sh tune
