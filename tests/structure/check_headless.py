#!/usr/bin/python3
"""The headless programs link no SDL and no GL: neither on their link line
(CMake's link.txt of the target) nor among the shared libraries the binary
needs (readelf -d). strider-eval is the motion evaluation: game, ctrl,
pfnn, world, anim, asset and core, and nothing that opens a window.

usage: check_headless.py BINARY LINK_TXT
       check_headless.py --self-test
"""
import re
import subprocess
import sys

FORBIDDEN = re.compile(r"(SDL|libGL|libEGL|libGLX|libGLEW|libOpenGL|-lGL\b|-lGLEW|-lEGL|-lOpenGL|imgui|strider_(render|ui|app|bench))",
                       re.I)


def problems_in(what, text):
    return ["%s: %s" % (what, m.group(0)) for m in FORBIDDEN.finditer(text)]


def check(binary, link_txt):
    with open(link_txt) as f:
        link = f.read()
    needed = subprocess.run(["readelf", "-d", binary], check=True, capture_output=True, text=True).stdout
    needed = "\n".join(line for line in needed.splitlines() if "(NEEDED)" in line)
    if not needed:
        return ["%s: readelf shows no NEEDED entries (not a dynamic binary?)" % binary]
    return problems_in("%s link line" % link_txt, link) + problems_in("%s needs" % binary, needed)


def self_test():
    bad = problems_in("x", "cc main.o libstrider_eval.a /usr/lib/libSDL2.so -lGL libstrider_render.a")
    good = problems_in("x", "cc main.o libstrider_eval.a libstrider_game.a -lm -lz libstb.so")
    ok = len(bad) == 3 and not good
    print("check_headless self-test: %s" % ("ok" if ok else "FAIL %r %r" % (bad, good)))
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    problems = check(sys.argv[1], sys.argv[2])
    for p in problems:
        print("headless: " + p)
    print("check_headless: %s" % ("ok" if not problems else "%d problem(s)" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
