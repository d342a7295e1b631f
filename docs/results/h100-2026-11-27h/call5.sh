#!/usr/bin/env bash
# Fresh draws at 75544aa: the random conformance group (seeds from
# 20261127500, 100 cases per op each, every API in its own process) beside
# tests/numpy/fuzz.py at full size (seeds 20261127600-603) through the four
# GPU APIs. On an H200, the benchmark package first.
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
nvidia-smi -L
if nvidia-smi -L | grep -q H200; then TB=300 scripts/gpu-session.sh bench; exit 0; fi
RANDOM_SEED=20261127500 TR=330 scripts/gpu-session.sh random > /tmp/random.log 2>&1 &
FUZZ_SEED=20261127600 TF=270 scripts/gpu-session.sh fuzz > /tmp/fuzz.log 2>&1 &
wait
tail -n 40 /tmp/random.log /tmp/fuzz.log
