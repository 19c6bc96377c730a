#!/usr/bin/env bash
# Formats every C/C++ source of Strider with clang-format 14 and the
# repository's .clang-format (docs/STYLE_HOUSE.md).
#
#   tools/format.sh            format the files in place
#   tools/format.sh --check    change nothing; print each file that is not
#                              formatted (one line per file) and exit 1 if
#                              there is any (ctest runs this as format_check)
#
# The files: *.c, *.h and *.cpp under src/, tests/, tools/ and shaders/ (the C
# headers GLSL shares) that git tracks, or would track (untracked files it
# does not ignore: a new file is formatted before its first commit, not
# caught by format_check after it). GLSL sources are left alone (see
# .clang-format), and so is anything else that is not ours: there is no
# vendored or generated C in the tree (third-party code comes as Debian
# packages); if some ever lands, add its path to EXCLUDE.
# Exit status: 0 formatted / clean, 1 a file differs (--check), 2 usage or a
# missing tool.
set -euo pipefail
cd "$(dirname "$0")/.."

# Extended regular expression of tracked paths never to format.
EXCLUDE='^$'

usage() {
  echo "usage: tools/format.sh [--check]" >&2
  exit 2
}
check=0
case $# in
  0) ;;
  1) [ "$1" = --check ] || usage; check=1 ;;
  *) usage ;;
esac

# clang-format 14 exactly: another major version formats some constructs
# differently, so a check against it would flag files the house style accepts.
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
  for c in clang-format-14 clang-format; do
    if command -v "$c" >/dev/null 2>&1; then cf=$c; break; fi
  done
fi
if [ -z "$cf" ]; then
  echo "tools/format.sh: clang-format not found: install Debian's clang-format (tools/install-deps.sh)" >&2
  exit 2
fi
if ! "$cf" --version | grep -q 'version 14\.'; then
  echo "tools/format.sh: $cf is not clang-format 14 ($("$cf" --version)): set CLANG_FORMAT to clang-format-14" >&2
  exit 2
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "tools/format.sh: not a git checkout: the file list is git's tracked files" >&2
  exit 2
fi

mapfile -d '' files < <(git ls-files -z --cached --others --exclude-standard -- 'src/*.c' 'src/*.h' 'src/*.cpp' 'tests/*.c' 'tests/*.h' 'tests/*.cpp' \
                          'tools/*.c' 'tools/*.h' 'tools/*.cpp' 'shaders/*.h' | grep -zEv "$EXCLUDE" || true)
if [ ${#files[@]} -eq 0 ]; then
  echo "tools/format.sh: no tracked C/C++ sources found" >&2
  exit 2
fi

if [ $check -eq 0 ]; then
  "$cf" -i --style=file -- "${files[@]}"
  exit 0
fi

# One clang-format run: --dry-run -Werror reports every line that would
# change as FILE:LINE:COL: error: ...; print each such file once.
set +e
out=$("$cf" --dry-run -Werror --style=file -- "${files[@]}" 2>&1)
rc=$?
set -e
bad=$(printf '%s\n' "$out" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ -n "$bad" ]; then
  printf '%s\n' "$bad" | sed 's/$/: not formatted (run tools\/format.sh)/'
  echo "tools/format.sh: $(printf '%s\n' $bad | wc -l) of ${#files[@]} file(s) not formatted" >&2
  exit 1
fi
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" >&2
  echo "tools/format.sh: $cf failed (exit $rc)" >&2
  exit 2
fi
