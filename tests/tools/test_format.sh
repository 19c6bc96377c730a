#!/usr/bin/env bash
# tools/format.sh in a scratch git repository holding a copy of the script
# and of .clang-format, one formatted and one badly formatted C file, a new
# badly formatted file not yet added, and one git ignores:
#   1. --check lists exactly the two bad files, a line each, and exits 1;
#   2. a file git ignores, and a GLSL file, are never looked at (a new file
#      that git would track is, so it is formatted before its first commit);
#   3. without arguments the bad file is formatted in place, the good one is
#      left byte for byte, and --check then exits 0 and prints nothing;
#   4. an unknown argument is a usage error: exit 2.
# usage: test_format.sh REPO_ROOT
set -u
root=${1:?usage: test_format.sh REPO_ROOT}
failures=0
check() { # CONDITION_STATUS WHAT
  if [ "$1" -eq 0 ]; then echo "ok   $2"; else echo "FAIL $2"; failures=$((failures + 1)); fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tools" "$work/src/core" "$work/shaders" "$work/src/build"
cp "$root/tools/format.sh" "$work/tools/format.sh"
cp "$root/.clang-format" "$work/.clang-format"
printf 'int good(int a)\n{\n    int b = a + 1;\n    return b * 2;\n}\n' > "$work/src/core/good.c"
printf 'int  bad( int a ){return a+1;}\n' > "$work/src/core/bad.c"
printf 'int  untracked( int a ){return a;}\n' > "$work/src/core/untracked.c"
printf 'int  ignored( int a ){return a;}\n' > "$work/src/build/ignored.c"
printf 'void main(){gl_Position=vec4(0.0);}\n' > "$work/shaders/x.vert"
printf 'build/\n' > "$work/.gitignore"
git -C "$work" init -q
git -C "$work" add tools .clang-format .gitignore src/core/good.c src/core/bad.c shaders/x.vert
good_before=$(cat "$work/src/core/good.c")

out=$(bash "$work/tools/format.sh" --check 2>/dev/null)
rc=$?
check $((rc != 1)) "--check on a bad file exits 1 (got $rc)"
want=$(printf 'src/core/bad.c: not formatted (run tools/format.sh)\nsrc/core/untracked.c: not formatted (run tools/format.sh)')
check $([ "$out" = "$want" ]; echo $?) "--check lists exactly the two bad files, a line each (got: $out)"

bash "$work/tools/format.sh"
rc=$?
check $rc "formatting in place exits 0 (got $rc)"
check $([ "$(cat "$work/src/core/bad.c")" = "$(printf 'int bad(int a) { return a + 1; }')" ]; echo $?) \
  "the bad file is formatted (got: $(cat "$work/src/core/bad.c"))"
check $([ "$(cat "$work/src/core/good.c")" = "$good_before" ]; echo $?) "the formatted file is left as it was"
check $([ "$(cat "$work/src/core/untracked.c")" = "$(printf 'int untracked(int a) { return a; }')" ]; echo $?) \
  "a new file not yet added is formatted (got: $(cat "$work/src/core/untracked.c"))"
check $(grep -q 'ignored( int' "$work/src/build/ignored.c"; echo $?) "an ignored file is left alone"
check $(grep -q 'void main(){' "$work/shaders/x.vert"; echo $?) "a GLSL file is left alone"

out=$(bash "$work/tools/format.sh" --check 2>&1)
rc=$?
check $rc "--check after formatting exits 0 (got $rc)"
check $([ -z "$out" ]; echo $?) "--check after formatting prints nothing (got: $out)"

bash "$work/tools/format.sh" --fix >/dev/null 2>&1
rc=$?
check $((rc != 2)) "an unknown argument exits 2 (got $rc)"

echo "test_format: $failures failure(s)"
[ $failures -eq 0 ]
