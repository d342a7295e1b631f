#!/usr/bin/env bash
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
O=$(mktemp -d)
trap 'tar czf "$OUT/s9.tgz" -C "$O" .' EXIT TERM
export RUST_LOG=warn ROSETTA_CACHE_DIR=/tmp/rc-s9
which gdb eu-stack > $O/tools.txt 2>&1; cat $O/tools.txt
timeout 60 .carry/chain_probe wgpu:0 > $O/chain-probe.txt 2>&1; echo "chain exit $?"; cat $O/chain-probe.txt
hang() { # name, command...
  local name=$1; shift
  "$@" > $O/$name.txt 2>&1 &
  local pid=$!
  for i in $(seq 1 20); do sleep 1; kill -0 $pid 2>/dev/null || break; done
  if kill -0 $pid 2>/dev/null; then
    echo "$name: still running after 20 s"
    for p in $pid $(pgrep -P $pid); do gdb -p $p -batch -ex "thread apply all bt" >> $O/$name-stacks.txt 2>&1; done
    kill -9 $pid
    grep -E "^#|^Thread" $O/$name-stacks.txt | grep -v "in ?? ()" | head -80
  fi
  wait $pid; echo "$name exit $?"; tail -5 $O/$name.txt
}
hang par4 .carry/par_probe 4
hang tests-parallel .carry/wgpu-tests
