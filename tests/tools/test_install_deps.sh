#!/usr/bin/env bash
# tools/install-deps.sh's three ways in, without installing anything:
#   1. a user with sudo: the script re-runs itself through sudo, with its
#      arguments (a fake sudo on PATH records the call);
#   2. a user without sudo: exit 1 and one line naming root and sudo;
#   3. root: no sudo; apt-get update, then apt-get install of the packages
#      (fake apt-get and apt-cache on PATH record the calls).
# The user cases run as 'nobody' when this test runs as root (CI), through
# setpriv (util-linux); as any other user they run as that user.
# usage: test_install_deps.sh REPO_ROOT
set -u
root=${1:?usage: test_install_deps.sh REPO_ROOT}
failures=0
check() { # CONDITION_STATUS WHAT
  if [ "$1" -eq 0 ]; then echo "ok   $2"; else echo "FAIL $2"; failures=$((failures + 1)); fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
# A copy of the script where any user can read it, with no executable bit
# (the re-run must not depend on it).
cp "$root/tools/install-deps.sh" "$work/install-deps.sh"
chmod 644 "$work/install-deps.sh"
# PATH holds only what the script may use, so the machine's own sudo (or
# its absence) does not decide the result.
mkdir "$work/bin" "$work/log"
chmod 777 "$work/log"
for tool in bash id sed head; do
  ln -s "$(command -v $tool)" "$work/bin/$tool"
done
fake() { # NAME: a command that appends its arguments to log/NAME
  printf '#!/bin/sh\necho "$*" >> %s/log/%s\nexit 0\n' "$work" "$1" > "$work/bin/$1"
  chmod 755 "$work/bin/$1"
}

as_user() { # command... as a non-root user
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
  else
    "$@"
  fi
}
if [ "$(id -u)" -eq 0 ] && ! command -v setpriv >/dev/null 2>&1; then
  echo "SKIP: running as root without setpriv (util-linux): cannot test the user paths"
  exit 77
fi

# 2. No sudo on PATH.
out=$(as_user env -i PATH="$work/bin" bash "$work/install-deps.sh" 2>&1)
rc=$?
check $([ $rc -eq 1 ]; echo $?) "no root, no sudo: exit 1 (got $rc)"
check $([ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ $out == *"needs root"* ]] && [[ $out == *"sudo is not installed"* ]]; echo $?) \
  "no root, no sudo: one line naming root and sudo: $out"

# 1. sudo on PATH: the script hands itself and its arguments to sudo.
fake sudo
out=$(as_user env -i PATH="$work/bin" bash "$work/install-deps.sh" --one "two words" 2>&1)
rc=$?
check $([ $rc -eq 0 ]; echo $?) "no root, sudo: the sudo run's exit status (got $rc): $out"
call=$(cat "$work/log/sudo" 2>/dev/null)
check $([ "$call" = "-- bash $work/install-deps.sh --one two words" ]; echo $?) "no root, sudo: re-runs itself through sudo with its arguments: '$call'"
check $([ ! -e "$work/log/apt-get" ]; echo $?) "no root: apt-get is never run without sudo"

# 3. Root: apt-get directly, sudo never (only when this test runs as root).
if [ "$(id -u)" -eq 0 ]; then
  rm -f "$work/log/sudo"
  fake apt-get
  fake apt-cache
  out=$(env -i PATH="$work/bin" bash "$work/install-deps.sh" 2>&1)
  rc=$?
  check $([ $rc -eq 0 ]; echo $?) "root: exit 0 (got $rc): $out"
  check $([ ! -e "$work/log/sudo" ]; echo $?) "root: sudo is not called"
  calls=$(cat "$work/log/apt-get" 2>/dev/null)
  check $([[ $(head -n1 <<<"$calls") == update ]] && [[ $(sed -n 2p <<<"$calls") == "install -y --no-install-recommends build-essential cmake"* ]]; echo $?) \
    "root: apt-get update, then install: $(tr '\n' '|' <<<"$calls" | cut -c1-160)"
else
  echo "(root path not checked: this test is not running as root)"
fi

echo "test_install_deps: $([ $failures -eq 0 ] && echo ok || echo "$failures failure(s)")"
[ $failures -eq 0 ]
