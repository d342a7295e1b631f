#!/usr/bin/env bash
# Call 2: where NVIDIA's OpenCL marker intervals spend their time; new chain seeds and fuzz seeds.
set -u
. .gl/env.sh
mkdir -p $OUT/c2
cd .carry && xz -d chains.xz && chmod +x chains && cd ..
nvidia-smi -L > $OUT/c2/gpu.txt
timeout 60 .carry/clprobe > $OUT/c2/clprobe.txt 2>&1; echo "exit $?" >> $OUT/c2/clprobe.txt
cat $OUT/c2/clprobe.txt
export RUST_LOG=warn
( ROSETTA_REQUIRE=cpu,cuda,vulkan,opencl,wgpu ROSETTA_CHAIN_SEEDS=269..=300 timeout 400 .carry/chains > $OUT/c2/chains-269-300.txt 2>&1; echo "exit $?" >> $OUT/c2/chains-269-300.txt ) &
FUZZ_SEED=20261500 TF=140 OUT=$OUT/c2 scripts/gpu-session.sh fuzz > $OUT/c2/fuzz-summary.txt 2>&1
wait
tail -n 5 $OUT/c2/chains-269-300.txt
tail -n 15 $OUT/c2/fuzz-summary.txt
