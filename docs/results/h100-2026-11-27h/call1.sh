#!/usr/bin/env bash
# On an H200: the benchmark with vendor baselines and the first op cold and
# warm (the must-show). On an H100: the tuner over matmul with the
# chunk counts around the plan's (`MatmulVariant::for_tuning`), then the
# benchmark with that cache and without.
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
nvidia-smi -L | tee $OUT/gpu.txt
if nvidia-smi -L | grep -q H200; then
    TB=${TB:-300} scripts/gpu-session.sh bench
    exit 0
fi
APIS=(--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0)
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-tune
timeout 270 .carry/rosetta tune "${APIS[@]}" --op matmul --size large > $OUT/tune-matmul.txt 2>&1; echo "tune exit $?" | tee -a $OUT/tune-matmul.txt
grep -v -e ERROR -e WARN $OUT/tune-matmul.txt
timeout 110 .carry/rosetta bench "${APIS[@]}" --op matmul --size large --json $OUT/bench-tuned.json > $OUT/bench-tuned.txt 2>&1; echo "bench tuned exit $?"
ROSETTA_CACHE_DIR=/tmp/rc-untuned timeout 110 .carry/rosetta bench "${APIS[@]}" --op matmul --size large --json $OUT/bench-untuned.json > $OUT/bench-untuned.txt 2>&1; echo "bench untuned exit $?"
tail -n 25 $OUT/bench-tuned.txt $OUT/bench-untuned.txt
