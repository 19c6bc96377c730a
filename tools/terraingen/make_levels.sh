#!/bin/sh
# Regenerates every shipped heightmap in assets/levels/ with strider-terraingen.
# A --slope-limit after --flatten relaxes the blend edges while the flattened
# pads stay locked.
# usage: tools/terraingen/make_levels.sh [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR defaults to build/release, OUT_DIR to assets/levels (the test
#   suite writes elsewhere and compares, to prove the shipped files are current).
# The .lvl files are written by hand; their 'heightmap' lines must repeat the
# --cell and --range given here, and their walls and areas sit on the flat
# regions (--flatten) and boxes (--box) made here. Output is deterministic.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build/release}
case $build in /*) ;; *) build=$root/$build ;; esac
gen=$build/strider-terraingen
out=${2:-$root/assets/levels}
if [ ! -x "$gen" ]; then
  echo "make_levels.sh: $gen not found; build first (cmake --build --preset release)" >&2
  exit 1
fi

# hills: rolling fBm, slopes relaxed to 27 degrees, a flat pad at the spawn.
"$gen" --seed 11 --cell 20 --range -600 600 \
  --fbm 550 2600 5 --slope-limit 27 --smooth 1 \
  --flatten -200 -1900 200 -1500 auto 500 --slope-limit 27 \
  --verify --out "$out/hills.png"

# tunnel: gentle ground, a flat corridor 5 m wide along z for the crouch tunnel.
"$gen" --seed 23 --cell 20 --range -300 300 \
  --fbm 150 3000 4 --slope-limit 25 \
  --flatten -250 -2200 250 2200 auto 500 \
  --verify --out "$out/tunnel.png"

# gaps: a flat track along z with trenches (negative boxes) and low
# obstacles (positive boxes) across it, each preceded by a jump area.
"$gen" --seed 5 --cell 20 --range -300 300 \
  --fbm 80 2500 4 --slope-limit 20 \
  --flatten -330 -2350 330 2350 0 600 \
  --box -340 -1250 340 -1150 -90 \
  --box -340 -310 340 -250 35 \
  --box -340 590 340 750 -120 \
  --box -340 1550 340 1610 45 \
  --verify --out "$out/gaps.png"

# course: fBm hills with ridged crests, a flat tunnel floor (west), a trench
# pad (east) and a flat spawn pad (south).
"$gen" --seed 42 --cell 20 --range -600 600 \
  --fbm 300 2200 5 --ridged 250 3200 4 --slope-limit 27 --smooth 1 \
  --flatten -300 -2100 300 -1700 auto 400 \
  --flatten -1750 -750 -1250 750 auto 500 \
  --flatten 850 -700 1550 700 auto 500 --slope-limit 27 \
  --box 850 -70 1550 70 -100 \
  --verify --out "$out/course.png"

# steps: a terraced hill (30 cm steps joined by short ramps) and, on a flat
# apron to the east, a platform reached by eight 18 cm stairs (50 cm treads) at
# each end.
"$gen" --seed 3 --cell 20 --range -200 800 \
  --cone 0 600 2400 450 --fbm 40 1500 3 --terrace 30 0.6 \
  --flatten -200 -2200 200 -1800 auto 300 \
  --flatten 1250 -1300 1950 1300 auto 400 --slope-limit 30 \
  --box 1400 -1000 1800 1000 18  --box 1400 -950 1800 950 18 \
  --box 1400 -900 1800 900 18  --box 1400 -850 1800 850 18 \
  --box 1400 -800 1800 800 18  --box 1400 -750 1800 750 18 \
  --box 1400 -700 1800 700 18  --box 1400 -650 1800 650 18 \
  --verify --out "$out/steps.png"
