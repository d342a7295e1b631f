#!/usr/bin/env bash
# Call 4 (fourteenth session): the adversarial audit programs (scratch examples) through every API.
set -u
. .gl/env.sh
O=$OUT/c4; mkdir -p $O
nvidia-smi -L > $O/gpu.txt
cd .carry && for f in *.xz; do xz -d "$f"; done && chmod +x zz_* && cd ..
export ROSETTA_CACHE_DIR=/tmp/rc-c4 RUST_LOG=warn
for d in cuda vulkan opencl:1 wgpu:0; do
  n=$(echo $d | tr ':' '-')
  ( timeout 280 .carry/zz_audit_ops $d > $O/ops-$n.txt 2>&1; echo "exit $?" >> $O/ops-$n.txt ) &
done
wait
for d in cuda vulkan opencl:1 wgpu:0; do
  n=$(echo $d | tr ':' '-')
  ( for e in buffers order misc limits; do echo "=== $e"; timeout 100 .carry/zz_audit_$e $d 2>&1; echo "exit $?"; done > $O/rest-$n.txt 2>&1 ) &
done
wait
cd $O && for f in *.txt; do echo "== $f: $(grep -c . $f) lines; $(grep -ciE 'FAIL|PANIC|panicked|WRONG' $f) fail-like; $(grep -E '^exit|TOTAL' $f | tr '\n' ' ')"; done
grep -hiE 'FAIL|PANIC|panicked|WRONG' *.txt | grep -v "^ok " | head -40
for f in *.txt; do xz -9 $f; done
