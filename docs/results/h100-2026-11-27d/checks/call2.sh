#!/usr/bin/env bash
# Call 2 (fifteenth session, at fe9a980): one-line option refusals, tuned choices
# that do not plan the shape, quick conformance per API and numpy fuzz at once.
set -u
. .gl/env.sh
O=$OUT/c2; mkdir -p $O
nvidia-smi -L > $O/gpu.txt
R=.carry/rosetta
$R devices > $O/devices.txt 2>&1
python3 -c "
import numpy as np
np.save('/tmp/a12.npy', np.arange(12, dtype=np.float32))
np.save('/tmp/a.npy', np.ones((1,600000),np.float32)); np.save('/tmp/b.npy', np.ones((600000,1),np.float32))"
{
for sel in cuda opencl:1 opencl:0; do
  case $sel in cuda) var=ROSETTA_NVRTC_OPTIONS;; *) var=ROSETTA_OPENCL_OPTIONS;; esac
  for opt in "" "-DOP=2" "--use_fast_math"; do
    ROSETTA_CACHE_DIR=/tmp/rc-o env $var="$opt" $R run reduce --backend $sel /tmp/a12.npy >/tmp/o.txt 2>/tmp/e.txt
    echo "$sel $var='$opt' rc=$? stdout=[$(cat /tmp/o.txt)] stderr lines=$(wc -l < /tmp/e.txt): $(head -c 160 /tmp/e.txt)"
  done
done
echo "--- a stored matmul choice that does not plan 1x600000x1 (75000 chunks > 65535)"
for sel in cuda vulkan opencl:1 wgpu:0; do
  C=/tmp/rc-tuned-$(echo $sel | tr ':' '-'); rm -rf $C
  ROSETTA_CACHE_DIR=$C $R tune --backend $sel --op scan --size small > /dev/null 2>&1
  F=$(ls $C/tuning/*.json)
  python3 - "$F" <<'PY'
import json,sys
f=sys.argv[1]; d=json.load(open(f))
d['choices']['matmul/m<=2^0 n<=2^0 k<=2^20']={'variant':'32x32x8/2x2+splitk4294967295','median_s':1}
json.dump(d,open(f,'w'))
PY
  ROSETTA_CACHE_DIR=$C RUST_LOG=rosetta_kernels=debug $R run matmul --backend $sel /tmp/a.npy /tmp/b.npy -o /tmp/c.npy 2>/tmp/e.txt; rc=$?
  echo "$sel rc=$rc result=$(python3 -c "import numpy as np; print(np.load('/tmp/c.npy').ravel())") log=$(grep -c 'does not plan this shape' /tmp/e.txt)"
done
} > $O/checks.txt 2>&1
cat $O/checks.txt
export ROSETTA_CACHE_DIR=/tmp/rc-c2
for sel in cuda vulkan opencl:1 wgpu:0 "cpu --backend opencl:0"; do
  name=$(echo "$sel" | cut -d' ' -f1 | tr ':' '-')
  ( timeout 330 $R conform --quick --backend $sel --out "$O/conform-quick-$name.json" > "$O/conform-quick-$name.txt" 2>&1
    echo "exit $?" >> "$O/conform-quick-$name.txt" ) &
done
for i in 0 1 2 3; do
  ROSETTA_CACHE_DIR=/tmp/rc-fuzz timeout 330 python3 tests/numpy/fuzz.py $R cuda,vulkan,opencl:1,wgpu:0 --cases 100000 \
    --seed $((20261800 + i)) --seconds 200 > "$O/fuzz-$i.txt" 2>&1 &
done
wait
tail -n 4 $O/conform-quick-*.txt
grep -h -e "^FAIL" -e "reproduce" -e "^fuzz:" $O/fuzz-*.txt
for f in $O/*.json; do xz -9 "$f"; done
