#!/usr/bin/env bash
# Session 7, call 4: the helper's adversarial scripts (.carry/adv, from its local pass) through the four GPU APIs at once.
set -u
R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
trap 'tar czf "$R/s4.tgz" -C "$W" .' EXIT
nvidia-smi -L > "$W/gpu.txt"; cat "$W/gpu.txt"
export ROSETTA_BIN=$PWD/.carry/rosetta NUMPY_REF=$PWD/tests/numpy RUST_LOG=off XDG_RUNTIME_DIR=/tmp/rosetta-runtime-0
mkdir -p $XDG_RUNTIME_DIR
export DEVS=cuda,vulkan,opencl:1,wgpu:0 ADV_CACHE=/tmp/adv-cache
ROSETTA_CACHE_DIR=$ADV_CACHE timeout 120 $ROSETTA_BIN tune --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 --op reduce --size small > "$W/tune.txt" 2>&1; echo "tune exit $?"
ls $ADV_CACHE/tuning
cd .carry/adv
python3 -c "import numpy; print('numpy', numpy.__version__)"
for s in t_reduce t_scan t_pad t_imp t_conv t_conv2 t_mm t_mm2 t_hist t_hist2 t_copy; do
  ( timeout ${TS:-400} python3 $s.py > "$W/$s.txt" 2>&1; echo "exit $?" >> "$W/$s.txt" ) &
done
( SEED=7 N=${NF:-80} timeout ${TS:-400} python3 t_forced.py > "$W/t_forced.txt" 2>&1; echo "exit $?" >> "$W/t_forced.txt" ) &
wait
for f in "$W"/t_*.txt; do echo "== $(basename $f): $(grep -c '^  ok' $f) ok, $(grep -c '^FAIL' $f) FAIL, $(tail -1 $f)"; done
grep -h "^FAIL" "$W"/t_*.txt | cut -c1-300 | head -60
