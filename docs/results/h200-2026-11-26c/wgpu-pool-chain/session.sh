#!/usr/bin/env bash
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
O=$(mktemp -d)
trap 'tar czf "$OUT/s8.tgz" -C "$O" .' EXIT TERM
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-s8
timeout 120 .carry/chain_probe wgpu:0 vulkan opencl:1 cuda > $O/chain-probe.txt 2>&1; echo "chain exit $?"; cat $O/chain-probe.txt
for t in bind_groups_are_reused_while_their_buffers_live the_pipeline_cache_survives_damage; do
  timeout 25 .carry/wgpu-tests --exact tests::$t --test-threads=1 > $O/wgpu-test-$t.txt 2>&1; echo "test $t exit $?"; tail -3 $O/wgpu-test-$t.txt
done
timeout 40 .carry/wgpu-tests --test-threads=1 > $O/wgpu-tests-serial.txt 2>&1; echo "serial exit $?"; tail -3 $O/wgpu-tests-serial.txt
timeout 40 .carry/wgpu-tests > $O/wgpu-tests-parallel.txt 2>&1; echo "parallel exit $?"; tail -8 $O/wgpu-tests-parallel.txt
