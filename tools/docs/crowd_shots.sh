#!/bin/sh
# The README's crowd pictures: N characters on every built-in level after
# a few seconds of wandering (the same --crowd-seed, so reruns give the
# same pictures on the same build). Needs a display: run under
# xvfb-run -a -s "-screen 0 1280x720x24" on a headless machine.
# usage: tools/docs/crowd_shots.sh [STRIDER] [OUTDIR] [N]
# Writes OUTDIR/crowd_LEVEL.png per level and OUTDIR/crowd_levels.png (all six;
# the one docs/images keeps). Needs Debian python3-pil.
set -eu
strider=${1:-build/release/strider}
out=${2:-docs/images}
n=${3:-40}
for level in flat hills tunnel gaps course steps; do
    "$strider" --level "$level" --crowd "$n" --crowd-seed 7 --frames 240 --hidden --quiet --size 960x540 \
        --screenshot "$out/crowd_$level.png"
done
# One picture for the README: the six in a grid of two columns, each named.
/usr/bin/python3 - "$out" <<'PY'
import sys
from PIL import Image, ImageDraw
out = sys.argv[1]
levels = ["flat", "hills", "tunnel", "gaps", "course", "steps"]
w, h = 480, 270
grid = Image.new("RGB", (2 * w, 3 * h))
draw = ImageDraw.Draw(grid)
for i, level in enumerate(levels):
    x, y = (i % 2) * w, (i // 2) * h
    grid.paste(Image.open("%s/crowd_%s.png" % (out, level)).convert("RGB").resize((w, h), Image.LANCZOS), (x, y))
    draw.rectangle((x + 4, y + 4, x + 8 + 7 * len(level), y + 18), fill=(0, 0, 0))
    draw.text((x + 6, y + 5), level, fill=(255, 255, 255))
grid.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save("%s/crowd_levels.png" % out, optimize=True)
PY
