#!/usr/bin/env bash
# The benchmark at the current code: the first op cold and warm,
# `rosetta bench --size large` through the four APIs (untuned), and the
# vendor baselines right after (scripts/gpu-session.sh bench).
set -u
. .gl/env.sh
(cd .carry && for f in *.xz; do xz -d -k -f "$f"; done; chmod +x rosetta)
nvidia-smi -L
TB=${TB:-330} scripts/gpu-session.sh bench
