#!/usr/bin/env bash
# Seventeenth session, call 2: quick conformance (every group) and the new
# random draws on each GPU API (clean binary), then the GPU mutants
# (rosetta-mut: matmul_sum's dropped min and copy's loop bound, all four GPU
# languages) through the random group and the fixed ops group.
set -u
for b in rosetta rosetta-mut; do
  xz -dkc .carry/$b.xz > .carry/$b 2>/dev/null || python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" .carry/$b.xz .carry/$b
  chmod +x .carry/$b
done
. .gl/env.sh
R=$OUT; W=$(mktemp -d)
trap 'tar czf "$R/call2.tgz" -C "$W" .' EXIT
export RUST_LOG=warn
nvidia-smi -L > $W/gpu.txt 2>&1
start=$(date +%s)
for d in cuda vulkan opencl:1 wgpu:0; do
  n=$(echo $d | tr ':' '-')
  (
    export ROSETTA_CACHE_DIR=/tmp/rc-$n
    timeout 200 .carry/rosetta conform --backend $d --quick > $W/quick-$n.txt 2>&1; echo "exit $?" >> $W/quick-$n.txt
    s=20261700
    while [ $(( $(date +%s) - start )) -lt 330 ]; do
      left=$(( 345 - ($(date +%s) - start) ))
      timeout $left .carry/rosetta conform --backend $d --group random --seed $s --random-cases 100 > $W/random-$n-$s.txt 2>&1
      rc=$?; echo "exit $rc" >> $W/random-$n-$s.txt
      [ $rc -eq 2 ] && break
      s=$((s+1))
    done
  ) &
done
wait
for d in cuda vulkan opencl:1 wgpu:0; do
  n=$(echo $d | tr ':' '-')
  (
    export ROSETTA_CACHE_DIR=/tmp/rcm-$n
    for s in 1 2 3; do
      timeout 60 .carry/rosetta-mut conform --backend $d --group random --seed $s --case 'random copy #' --case 'random matmul #' > $W/mut-$n-$s.txt 2>&1; echo "exit $?" >> $W/mut-$n-$s.txt
    done
    timeout 100 .carry/rosetta-mut conform --backend $d --group ops --case copy --case matmul > $W/mut-$n-fixed.txt 2>&1; echo "exit $?" >> $W/mut-$n-fixed.txt
  ) &
done
wait
cd $W
for f in quick-*.txt; do echo "== $f"; tail -4 $f; done
for f in random-*.txt; do echo "== $f: $(grep -E '^[a-z]+(:[0-9])?: [0-9]+/' $f | head -1) $(tail -1 $f)"; grep -m3 FAIL $f; done
for f in mut-*.txt; do echo "== $f: $(grep -E '^[a-z]+(:[0-9])?: [0-9]+/' $f | head -1) $(tail -1 $f)"; grep -m2 FAIL $f | cut -c1-220; done
