#!/usr/bin/env bash
# Builds Strider and runs the whole test suite twice: an optimised release
# build (including bounded fuzzing runs), then an ASan+UBSan build.
# GL tests run under xvfb-run with Mesa llvmpipe, so no GPU or display is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
for preset in release asan; do
  echo "== $preset: configure, build, test"
  cmake --preset "$preset"
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
