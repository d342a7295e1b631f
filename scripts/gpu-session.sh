#!/usr/bin/env bash
# One session on the GPU machine (see ../shared/device/README.md): run from the
# checkout root there with `.gl` and `.carry` (the stripped binary) carried.
#   scripts/gpu-session.sh conform   # the suite, one process per API in parallel
#   scripts/gpu-session.sh bench     # cold/warm first op, benchmark, vendor baselines
#   scripts/gpu-session.sh tune      # every variant of matmul, histogram and conv2d
# Results go to $OUT (the folder that comes back) as one tarball,
# session-MODE.tgz: fewer files than the device tool's limit on returned
# files. The build that runs here: `cargo build --release --features
# cli,all-backends` (the binary needs `cli`), stripped into .carry/rosetta.
set -u
. .gl/env.sh
B=.carry/rosetta
RESULTS=${OUT:-/tmp/out}
OUT=$(mktemp -d)
mkdir -p "$RESULTS"
trap 'tar czf "$RESULTS/session-${1:-none}.tgz" -C "$OUT" .' EXIT
export RUST_LOG=${RUST_LOG:-warn}
nvidia-smi -L > "$OUT/gpu.txt" 2>&1
"$B" devices > "$OUT/devices.txt" 2>&1

case "${1:-}" in
conform)
    # Conformance does not need the GPU to itself, so the APIs run at once
    # (each writes its own JSON; `rosetta report --merge` joins them).
    T=${T:-520}
    export ROSETTA_CACHE_DIR=/tmp/rc-conform
    for sel in cuda vulkan opencl:1 wgpu:0 "cpu --backend opencl:0"; do
        name=$(echo "$sel" | cut -d' ' -f1 | tr ':' '-')
        # shellcheck disable=SC2086
        ( timeout "$T" "$B" conform --backend $sel --out "$OUT/conform-$name.json" > "$OUT/conform-$name.txt" 2>&1
          echo "exit $?" >> "$OUT/conform-$name.txt" ) &
    done
    wait
    tail -n 6 "$OUT"/conform-*.txt
    ;;
bench)
    # The first op of a fresh process, cold and warm compiled-kernel caches.
    python3 -c "import numpy as np; np.save('/tmp/v.npy', (np.arange(1<<24) % 256).astype(np.uint32))"
    for api in cuda vulkan opencl:1 wgpu:0; do
        dir=/tmp/rc-first-$(echo $api | tr ':' '-'); rm -rf "$dir"
        for run in cold warm; do
            s=$EPOCHREALTIME
            ROSETTA_CACHE_DIR=$dir "$B" run histogram --backend "$api" --bins 256 /tmp/v.npy -o /tmp/h.npy > /dev/null 2>&1
            e=$EPOCHREALTIME
            awk -v a="$api" -v r="$run" -v s="$s" -v e="$e" 'BEGIN { printf "%s %s %.3f s\n", a, r, e - s }' >> "$OUT/first-op.txt"
        done
    done
    cat "$OUT/first-op.txt"
    export ROSETTA_CACHE_DIR=/tmp/rc-bench
    timeout "${TB:-330}" "$B" bench --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 \
        --size large --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1; echo "bench exit $?"
    timeout 120 python3 scripts/vendor_baselines.py "$OUT/vendor.json" > "$OUT/vendor.txt" 2>&1; echo "vendor exit $?"
    tail -n 60 "$OUT/bench.txt"; cat "$OUT/vendor.txt"
    ;;
tune)
    export ROSETTA_CACHE_DIR=/tmp/rc-tune
    timeout "${TT:-300}" "$B" tune --backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0 \
        --op matmul --op histogram --op conv2d --size large > "$OUT/tune.txt" 2>&1; echo "tune exit $?"
    grep -v -e ERROR -e WARN "$OUT/tune.txt"
    ;;
*)
    echo "usage: $0 conform|bench|tune" >&2; exit 2 ;;
esac
