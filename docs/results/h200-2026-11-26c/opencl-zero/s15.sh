#!/usr/bin/env bash
set -u
tar xJf .carry/bins.txz -C .carry
. .gl/env.sh
timeout 100 .carry/wait_probe 2>&1 | grep -v Portable | tee $OUT/zero-probe.txt
