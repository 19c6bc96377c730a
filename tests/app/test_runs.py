#!/usr/bin/python3
"""End-to-end runs of the strider binary: every level renders lit terrain,
scripts steer the marker deterministically, the virtual gamepad drives it
through SDL, and bad command lines fail with the documented exit codes.

usage: test_runs.py CASE --strider BIN --imgcheck BIN --out DIR
Runs under xvfb-run (ctest adds it)."""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LEVELS = ["flat", "hills", "tunnel", "gaps", "course", "steps"]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(args, strider, expect=0):
    cmd = [strider] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != expect:
        print("command:", " ".join(cmd))
        print(p.stdout[-2000:])
        print(p.stderr[-2000:])
    check(p.returncode == expect, "exit %d (expected %d): %s" % (p.returncode, expect, " ".join(args)))
    return p


def report(path):
    with open(path) as f:
        return json.load(f)


def case_levels(a):
    for lvl in LEVELS:
        png = os.path.join(a.out, "level_%s.png" % lvl)
        run(["--level", lvl, "--frames", "30", "--hidden", "--size", "640x360", "--screenshot", png], a.strider)
        p = subprocess.run([a.imgcheck, png], capture_output=True, text=True)
        print(p.stdout.strip(), p.stderr.strip())
        check(p.returncode == 0, "level %s renders lit terrain" % lvl)


def case_walk(a):
    rep = os.path.join(a.out, "walk.json")
    run(["--level", "flat", "--script", os.path.join(HERE, "scripts", "walk_forward.script"), "--hidden",
         "--size", "320x180", "--report", rep], a.strider)
    r = report(rep)
    check(r["steps"] == 300, "5 s of script = 300 fixed steps (got %d)" % r["steps"])
    start = run_spawn(a)
    dx = r["marker"]["x"] - start["marker"]["x"]
    dz = r["marker"]["z"] - start["marker"]["z"]
    dist = math.hypot(dx, dz)
    # Walk 3 s at ~110 cm/s, run 2 s at ~320 cm/s, minus acceleration: ~800-1000 cm
    check(700.0 < dist < 1100.0, "walked then ran %.0f cm" % dist)
    # The camera starts behind the marker, so "forward" is the spawn heading.
    h = math.radians(start["marker"]["heading_deg"])
    along = dx * math.sin(h) + dz * math.cos(h)
    check(along > 0.95 * dist, "moved along the camera's forward (%.0f of %.0f cm)" % (along, dist))

    rep2 = os.path.join(a.out, "orbit.json")
    run(["--level", "flat", "--script", os.path.join(HERE, "scripts", "orbit_then_walk.script"), "--hidden",
         "--size", "320x180", "--report", rep2], a.strider)
    r2 = report(rep2)
    yaw = math.radians(r2["camera"]["yaw_deg"])
    check(abs(math.degrees(yaw - h) % 360.0 - 90.0) < 1.0,
          "camera orbited 90 degrees (%.1f)" % ((math.degrees(yaw - h)) % 360.0))
    dx = r2["marker"]["x"] - start["marker"]["x"]
    dz = r2["marker"]["z"] - start["marker"]["z"]
    along = dx * math.sin(yaw) + dz * math.cos(yaw)
    check(along > 0.9 * math.hypot(dx, dz) and along > 200.0,
          "walk follows the orbited camera (%.0f cm along it)" % along)


def run_spawn(a):
    rep = os.path.join(a.out, "spawn.json")
    run(["--level", "flat", "--frames", "1", "--hidden", "--size", "320x180", "--report", rep], a.strider)
    return report(rep)


def case_determinism(a):
    outs = []
    for i in range(2):
        rep = os.path.join(a.out, "det%d.json" % i)
        run(["--level", "hills", "--script", os.path.join(HERE, "scripts", "walk_forward.script"), "--hidden",
             "--size", "320x180", "--report", rep], a.strider)
        outs.append(report(rep))
    check(outs[0] == outs[1], "two runs of one script end in the same state")


def case_gamepad(a):
    rep = os.path.join(a.out, "pad.json")
    run(["--level", "flat", "--virtual-gamepad", "--script", os.path.join(HERE, "scripts", "gamepad.script"),
         "--hidden", "--size", "320x180", "--report", rep], a.strider)
    r = report(rep)
    start = run_spawn(a)
    dist = math.hypot(r["marker"]["x"] - start["marker"]["x"], r["marker"]["z"] - start["marker"]["z"])
    check(r["gamepads"] == 1 and r["active_gamepad"] != "", "the virtual pad is open and active")
    # 2 s walk + 2 s run: well beyond what 4 s of walking alone would give (~440 cm)
    check(dist > 600.0, "the pad's stick and trigger moved the marker %.0f cm" % dist)


def case_errors(a):
    run(["--frobnicate"], a.strider, expect=2)
    run(["--frames", "-3"], a.strider, expect=2)
    run(["--size", "10x10"], a.strider, expect=2)
    run(["--level", "atlantis", "--hidden", "--frames", "1"], a.strider, expect=2)
    run(["--script", os.path.join(a.out, "no_such.script"), "--hidden", "--frames", "1"], a.strider, expect=1)
    bad = os.path.join(a.out, "bad.script")
    with open(bad, "w") as f:
        f.write("0 move 0 1\n0.5 levitate 1\n")
    p = run(["--script", bad, "--hidden", "--frames", "1"], a.strider, expect=1)
    check("bad.script:2:" in p.stderr and p.stderr.count("\n") == 1, "one line naming file:line: " + p.stderr.strip())
    p = run(["--help"], a.strider, expect=0)
    check("--level" in p.stdout and "exit codes" in p.stdout, "--help lists options and exit codes")
    run(["bench", "nothing"], a.strider, expect=2)
    # A driver that only offers OpenGL 3.3: one line saying what was found.
    env = dict(os.environ, MESA_GL_VERSION_OVERRIDE="3.3")
    p = subprocess.run([a.strider, "--hidden", "--frames", "1"], capture_output=True, text=True, env=env, timeout=120)
    check(p.returncode == 1 and "4.3" in p.stderr and "found only OpenGL 3.3" in p.stderr
          and p.stderr.strip().count("\n") == 0, "too-old GL is one clear line: " + p.stderr.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["levels", "walk", "determinism", "gamepad", "errors"])
    ap.add_argument("--strider", required=True)
    ap.add_argument("--imgcheck", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    globals()["case_" + a.case](a)
    print("%d passed, %d failed" % (0 if failures else 1, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
