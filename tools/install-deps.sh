#!/usr/bin/env bash
# Installs every Debian package Strider needs to build, run and test.
# Works on Debian 12 and Ubuntu 22.04+. Run it as it is, as root (a
# container, a CI image: no sudo there) or as a user with sudo: it then
# re-runs itself through sudo. Neither root nor sudo: one line saying so,
# exit 1. tests/tools/test_install_deps.sh checks both paths without
# installing anything.
set -euo pipefail

packages=(
  # build
  build-essential cmake pkg-config
  # libraries (headers)
  libsdl2-dev libglew-dev libcglm-dev libstb-dev libimgui-dev libgl-dev
  # PNG heightmaps: chunk CRCs and the zlib stream's Adler-32 are checked
  zlib1g-dev
  # glTF 2.0 character import (strider-import, --character FILE.glb)
  libassimp-dev
  # the crowd's levels of detail (mesh simplification, asset/lod.c)
  libmeshoptimizer-dev
  # headless OpenGL 4.5 for the GL tests: Xvfb + Mesa llvmpipe
  xvfb xauth libgl1-mesa-dri libglx-mesa0
  # the format check (tools/format.sh --check; its version is pinned, as
  # another major version formats some constructs differently)
  clang-format-14
  # fuzz targets (libFuzzer)
  clang libclang-rt-dev
  # the hostile-input test traces the importer's openat calls
  strace
  # training pipeline and plots (tools/train, tools/plot_bench.py)
  python3 python3-numpy python3-torch python3-matplotlib libopenblas0-pthread
)

if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "$0: installing packages needs root, and sudo is not installed: run it as root (su -c $0)" >&2
    exit 1
  fi
  # Through bash, so that a copy without the executable bit still runs.
  exec sudo -- bash "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
# Debian 12 names the libFuzzer runtime after clang's major version.
if ! apt-cache show libclang-rt-dev >/dev/null 2>&1; then
  major=$(apt-cache depends clang | sed -n 's/.*Depends: clang-\([0-9]*\).*/\1/p' | head -n1)
  packages=("${packages[@]/libclang-rt-dev/libclang-rt-${major:-14}-dev}")
fi
apt-get install -y --no-install-recommends "${packages[@]}"
