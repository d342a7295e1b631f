#!/usr/bin/env bash
# One session on the GPU machine (see ../shared/device/README.md): run from the
# checkout root there with `.gl` and `.carry` (the stripped binary) carried.
#   scripts/gpu-session.sh conform   # the suite, one process per API in parallel
#   scripts/gpu-session.sh bench     # cold/warm first op, benchmark, vendor baselines
#   scripts/gpu-session.sh tune      # every variant of matmul, histogram and conv2d
#   scripts/gpu-session.sh latency   # the sums: benchmark, and every reduce variant
#   scripts/gpu-session.sh robustness  # Vulkan with and without robust buffer access
#   scripts/gpu-session.sh profile   # Nsight Compute on the CUDA kernels still short of target
#   scripts/gpu-session.sh conv2d    # conv2d: benchmark (default variant), every variant, cuDNN
#   scripts/gpu-session.sh conform-all       # several GPUs (nvidia-h200-x2): `conform --backend all`
#   scripts/gpu-session.sh conform-one-gpu   # the same on the first GPU only (and the CPU devices)
#   scripts/gpu-session.sh fuzz      # random shapes and values through `rosetta run` on each API, against numpy
#   scripts/gpu-session.sh fuzz-large  # the same with fuzz.py --large (lengths x16, sides x4 / x2)
#   scripts/gpu-session.sh random    # the random group, seed after seed, per API until TR seconds
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
# The H200 through each API (opencl:0 is PoCL, wgpu:1 its GL adapter).
GPU_APIS=(--backend cuda --backend vulkan --backend opencl:1 --backend wgpu:0)
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
    timeout "${TB:-330}" "$B" bench "${GPU_APIS[@]}" \
        --size large --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1; echo "bench exit $?"
    timeout 120 python3 scripts/vendor_baselines.py "$OUT/vendor.json" > "$OUT/vendor.txt" 2>&1; echo "vendor exit $?"
    tail -n 60 "$OUT/bench.txt"; cat "$OUT/vendor.txt"
    ;;
tune)
    # Matmul's chunk counts of k take most of it: the three large cubes
    # through CUDA alone took 270 s with a cold kernel cache on an H100.
    export ROSETTA_CACHE_DIR=/tmp/rc-tune
    timeout "${TT:-590}" "$B" tune "${GPU_APIS[@]}" \
        --op matmul --op histogram --op conv2d --size large > "$OUT/tune.txt" 2>&1; echo "tune exit $?"
    grep -v -e ERROR -e WARN "$OUT/tune.txt"
    ;;
latency)
    # Sums from 2^16 to 2^28: the benchmark (the default variant), then the
    # tuner's timing of every variant (one launch and two) per size class.
    export ROSETTA_CACHE_DIR=/tmp/rc-latency
    timeout "${TB:-150}" "$B" bench "${GPU_APIS[@]}" \
        --op reduce --size large --json "$OUT/bench-reduce.json" > "$OUT/bench-reduce.txt" 2>&1; echo "bench exit $?"
    timeout "${TT:-200}" "$B" tune "${GPU_APIS[@]}" \
        --op reduce --size large > "$OUT/tune-reduce.txt" 2>&1; echo "tune exit $?"
    grep -v -e ERROR -e WARN "$OUT/bench-reduce.txt" "$OUT/tune-reduce.txt"
    ;;
fuzz|fuzz-large)
    # tests/numpy/fuzz.py at full size (not CI's --small), or --large, four
    # seeds at once, each case through all four APIs (the same cases on each).
    export ROSETTA_CACHE_DIR=/tmp/rc-fuzz
    SEED=${FUZZ_SEED:-$(date +%Y%m%d)}
    SIZE=()
    [ "$1" = fuzz-large ] && SIZE=(--large)
    for i in 0 1 2 3; do
        python3 tests/numpy/fuzz.py "$B" cuda,vulkan,opencl:1,wgpu:0 --cases 100000 ${SIZE[@]+"${SIZE[@]}"} \
            --seed $((SEED + i)) --seconds "${TF:-300}" > "$OUT/fuzz-$i.txt" 2>&1 &
    done
    wait
    grep -h -e "^FAIL" -e "reproduce" -e "^fuzz:" "$OUT"/fuzz-*.txt
    ;;
random)
    # `conform --group random`, 100 cases per op per seed, seeds from
    # RANDOM_SEED on; each API in its own process (cpu and PoCL together)
    # until TR seconds have passed. A usage error ends an API's loop (a
    # binary without that API would otherwise restart until the deadline).
    export ROSETTA_CACHE_DIR=/tmp/rc-random
    DEADLINE=$((SECONDS + ${TR:-300}))
    for sel in cuda vulkan opencl:1 wgpu:0 "cpu --backend opencl:0"; do
        name=$(echo "$sel" | cut -d' ' -f1 | tr ':' '-')
        (
            seed=${RANDOM_SEED:-$(date +%Y%m%d)}
            while [ $SECONDS -lt $((DEADLINE - 30)) ]; do
                # shellcheck disable=SC2086
                timeout $((DEADLINE - SECONDS)) "$B" conform --backend $sel --group random --seed "$seed" \
                    --random-cases 100 > "$OUT/random-$name-$seed.txt" 2>&1
                rc=$?
                echo "exit $rc" >> "$OUT/random-$name-$seed.txt"
                [ $rc = 2 ] && break
                seed=$((seed + 1))
            done
        ) &
    done
    wait
    grep -h -e "passed" -e "^FAIL" "$OUT"/random-*.txt | sort | uniq -c
    ;;
robustness)
    # What wgpu's mandatory robust buffer access costs: the Vulkan backend
    # with and without it (ROSETTA_VULKAN_ROBUSTNESS), on the ops where wgpu
    # trails Vulkan.
    export ROSETTA_CACHE_DIR=/tmp/rc-robust
    for robust in 0 1; do
        ROSETTA_VULKAN_ROBUSTNESS=$robust timeout "${TB:-150}" "$B" bench --backend vulkan \
            --op histogram --op reduce --op conv1d --size large --json "$OUT/bench-robust-$robust.json" \
            > "$OUT/bench-robust-$robust.txt" 2>&1; echo "robustness $robust exit $?"
    done
    grep -v -e ERROR -e WARN "$OUT"/bench-robust-*.txt
    ;;
profile)
    # Nsight Compute on one launch of each CUDA kernel still short of its
    # target, on the benchmark's shapes: what bounds it (shared memory,
    # DRAM, latency), and the kernel's own duration beside the benchmark's
    # event-timed figure.
    python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(1)
np.save('/tmp/img.npy', rng.random((8192, 8192), dtype=np.float32))
np.save('/tmp/f5.npy', rng.random((5, 5), dtype=np.float32))
np.save('/tmp/sig.npy', rng.random(1 << 26, dtype=np.float32))
np.save('/tmp/t9.npy', rng.random(9, dtype=np.float32))
np.save('/tmp/s20.npy', rng.random(1 << 20, dtype=np.float32))
np.save('/tmp/h28.npy', (np.arange(1 << 28, dtype=np.uint32) * 2654435761 >> 24).astype(np.uint32))
PY
    export ROSETTA_CACHE_DIR=/tmp/rc-profile
    # OPS=conv2d,conv1d limits the kernels; TUNED=1 profiles the variants
    # the tuner picks for CUDA (`rosetta tune` first) instead of the defaults.
    OPS=${OPS:-conv2d,conv1d,reduce,histogram}
    if [ "${TUNED:-0}" = 1 ]; then
        # shellcheck disable=SC2046
        timeout 120 "$B" tune --backend cuda $(echo "$OPS" | tr ',' '\n' | sed 's/^/--op /') \
            --size large > "$OUT/tune-profile.txt" 2>&1; echo "tune exit $?"
        grep -e "->" "$OUT/tune-profile.txt"
    fi
    for job in "conv2d /tmp/img.npy /tmp/f5.npy" "conv1d /tmp/sig.npy /tmp/t9.npy" \
               "reduce /tmp/s20.npy" "histogram --bins 256 /tmp/h28.npy"; do
        name=${job%% *}
        case ",$OPS," in *",$name,"*) ;; *) continue ;; esac
        # shellcheck disable=SC2086
        timeout "${TP:-90}" ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section Occupancy --section LaunchStats -k "regex:^$name" \
            "$B" run $job --backend cuda -o /tmp/o.npy > "$OUT/ncu-$name.txt" 2>&1
        echo "$name exit $?"
    done
    grep -h -e "^  [a-z]" -e "Duration" -e "Throughput" -e "Shared" -e "Registers" "$OUT"/ncu-*.txt | head -80
    ;;
conv2d)
    # The conv2d benchmark with the default variant, every variant through
    # the tuner, and cuDNN on the same GPU right after.
    export ROSETTA_CACHE_DIR=/tmp/rc-conv2d
    timeout "${TB:-150}" "$B" bench "${GPU_APIS[@]}" \
        --op conv2d --size large --json "$OUT/bench-conv2d.json" > "$OUT/bench-conv2d.txt" 2>&1; echo "bench exit $?"
    timeout "${TT:-200}" "$B" tune "${GPU_APIS[@]}" \
        --op conv2d --size large > "$OUT/tune-conv2d.txt" 2>&1; echo "tune exit $?"
    timeout 150 python3 scripts/vendor_baselines.py "$OUT/vendor.json" > "$OUT/vendor.txt" 2>&1; echo "vendor exit $?"
    grep -v -e ERROR -e WARN "$OUT/bench-conv2d.txt" "$OUT/tune-conv2d.txt"; grep -i -e conv -e cudnn "$OUT/vendor.txt" || true
    ;;
conform-all|conform-one-gpu)
    # Hosts with several GPUs: the device list twice (indices must not
    # move between runs), then the whole suite in one process, every device
    # of every API (`conform-all`) or only those on the first GPU by PCI bus
    # id plus the CPU devices (`conform-one-gpu`); `rosetta conform` runs
    # different physical devices at once, so the wall times compare.
    "$B" devices --json > "$OUT/devices-1.json" 2> /dev/null
    "$B" devices --json > "$OUT/devices-2.json" 2> /dev/null
    cmp -s "$OUT/devices-1.json" "$OUT/devices-2.json" && echo "device lists identical" || echo "DEVICE LISTS DIFFER"
    if [ "$1" = conform-all ]; then
        SEL=(--backend all)
    else
        read -r -a SEL < <(python3 - "$OUT/devices-1.json" <<'PY'
import json, sys
devices = [d for api in json.load(open(sys.argv[1]))["apis"] for d in api.get("devices", [])]
bus = lambda d: d.get("physical", {}).get("pci_bus_id")
first = min(bus(d) for d in devices if d["caps"]["device_type"] != "cpu" and bus(d))
print(" ".join(f"--backend {d['api']}:{d['index']}" for d in devices
               if d["caps"]["device_type"] == "cpu" or bus(d) == first))
PY
)
    fi
    echo "selection: ${SEL[*]}" | tee "$OUT/selection.txt"
    export ROSETTA_CACHE_DIR=/tmp/rc-$1
    s=$EPOCHREALTIME
    timeout "${T:-575}" "$B" conform "${SEL[@]}" --out "$OUT/$1.json" > "$OUT/$1.txt" 2>&1
    echo "exit $?" >> "$OUT/$1.txt"
    e=$EPOCHREALTIME
    awk -v s="$s" -v e="$e" 'BEGIN { printf "process wall time %.1f s\n", e - s }' | tee -a "$OUT/$1.txt"
    grep -E "^[a-z]+:[0-9]+: |wall time|conformance:|^exit" "$OUT/$1.txt"
    ;;
*)
    echo "usage: $0 conform|bench|tune|latency|fuzz|fuzz-large|random|robustness|profile|conv2d|conform-all|conform-one-gpu" >&2; exit 2 ;;
esac
