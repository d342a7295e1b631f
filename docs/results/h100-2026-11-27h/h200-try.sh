#!/usr/bin/env bash
# Only on an H200: the benchmark package (scripts/gpu-session.sh
# bench: first op cold and warm, `rosetta bench --size large`, vendor
# baselines). On anything else, print the card and stop.
set -u
. .gl/env.sh
nvidia-smi -L
nvidia-smi -L | grep -q H200 || exit 0
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
TB=${TB:-330} scripts/gpu-session.sh bench
