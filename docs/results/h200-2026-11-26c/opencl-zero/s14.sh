#!/usr/bin/env bash
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
export ROSETTA_CACHE_DIR=/tmp/rc-s14 RUST_LOG=warn
timeout 60 .carry/wait_probe 2>&1 | tee $OUT/wait-probe.txt
timeout 120 .carry/chain_probe opencl:1 cuda vulkan 2>&1 | tee $OUT/chain-probe.txt
