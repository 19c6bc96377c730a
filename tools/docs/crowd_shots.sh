#!/bin/sh
# The README's crowd pictures: N characters on every built-in level after
# a few seconds of wandering (the same --crowd-seed, so reruns give the
# same pictures on the same build). Needs a display: run under
# xvfb-run -a -s "-screen 0 1280x720x24" on a headless machine.
# usage: tools/docs/crowd_shots.sh [STRIDER] [OUTDIR] [N]
set -eu
strider=${1:-build/release/strider}
out=${2:-docs/images}
n=${3:-40}
for level in flat hills tunnel gaps course steps; do
    "$strider" --level "$level" --crowd "$n" --crowd-seed 7 --frames 240 --hidden --quiet --size 960x540 \
        --screenshot "$out/crowd_$level.png"
done
