#!/usr/bin/env bash
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s10.tgz" -C "$W" .' EXIT
mkdir -p /tmp/b && tar xJf .carry/bins.txz -C /tmp/b
export RUST_LOG=warn ROSETTA_REQUIRE=opencl
for i in 1 2 3 4; do
  for v in 0 old; do
    ROSETTA_CACHE_DIR=/tmp/rc-s10-$v-$i /tmp/b/contract-$v > "$W/c-$v-$i.txt" 2>&1; echo "$v run $i exit $?"
  done
done
for v in 0 old; do
  ROSETTA_CACHE_DIR=/tmp/rc-s10-$v-serial /tmp/b/contract-$v --test-threads=1 > "$W/c-$v-serial.txt" 2>&1; echo "$v serial exit $?"
done
grep -h "Assertion\|test result" "$W"/*.txt | sort | uniq -c
