. .gl/env.sh
export RUST_LOG=warn
for round in 1 2; do
  for b in rosetta rosetta-gate; do
    ROSETTA_CACHE_DIR=/tmp/rc-$b timeout 100 .carry/$b bench --backend opencl:1 --op reduce --size large --json $OUT/bench-$b-r$round.json > $OUT/bench-$b-r$round.txt 2>&1
    echo "$b round $round exit $?"
    grep -E "launch floor|n=2\^(16|20|22|28) " $OUT/bench-$b-r$round.txt | awk '{print $1,$3,$4,$5,$6,$7}'
  done
done
ROSETTA_CACHE_DIR=/tmp/rc-gate timeout 200 .carry/rosetta-gate conform --backend opencl:1 --quick > $OUT/conform-gate.txt 2>&1; echo "conform exit $?"; tail -3 $OUT/conform-gate.txt
ROSETTA_CACHE_DIR=/tmp/rc-gate timeout 100 .carry/rosetta-gate bench --backend opencl:1 --op matmul --op conv2d --size large > $OUT/bench-gate-other.txt 2>&1; echo "other exit $?"; grep -E "matmul|conv2d" $OUT/bench-gate-other.txt | awk '{print $1,$3,$4,$5,$6,$7,$8}'
