#!/usr/bin/python3
"""End-to-end runs of the strider binary: every level renders lit terrain,
scripts steer the PFNN character deterministically (the report's "marker"
keys are its root), the virtual gamepad drives it through SDL, the character
crouches in the tunnel and shows up in the picture, every deformation path
(--skin gpu, --skin-once, --cpu-morph, --hybrid, --skin-method) walks as CPU
skinning does and reports what it used, and bad command lines or files fail
with the documented exit codes.

usage: test_runs.py CASE --strider BIN --imgcheck BIN --viewcheck BIN --out DIR
Runs under xvfb-run (ctest adds it)."""
import argparse
import json
import math
import os
import shutil
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


# Mean root speed of the training samples labelled walk (src/ctrl/ctrl.h).
WALK_CM_S = 83.0


def distance(r, start):
    return math.hypot(r["marker"]["x"] - start["marker"]["x"], r["marker"]["z"] - start["marker"]["z"])


def case_walk(a):
    start = run_spawn(a)
    h = math.radians(start["marker"]["heading_deg"])
    rep = os.path.join(a.out, "walk.json")
    run(["--level", "flat", "--script", os.path.join(HERE, "scripts", "walk_only.script"), "--hidden",
         "--size", "320x180", "--report", rep], a.strider)
    w = report(rep)
    check(w["steps"] == 240, "4 s of script = 240 fixed steps (got %d)" % w["steps"])
    walk = distance(w, start)
    # 4 s from a standstill: about 3.5 s at the walk speed, +-25 %.
    check(0.75 * 3.5 * WALK_CM_S < walk < 1.25 * 3.5 * WALK_CM_S, "walked %.0f cm in 4 s" % walk)
    check(0.8 * WALK_CM_S < w["character"]["speed_cm_s"] < 1.2 * WALK_CM_S,
          "walking root speed %.1f cm/s within 20 %% of %.0f" % (w["character"]["speed_cm_s"], WALK_CM_S))
    check(w["character"]["gait"]["walk"] > 0.9, "walk gait %.2f" % w["character"]["gait"]["walk"])
    # The camera starts behind the character, so "forward" is the spawn heading.
    along = (w["marker"]["x"] - start["marker"]["x"]) * math.sin(h) + (w["marker"]["z"] - start["marker"]["z"]) * math.cos(h)
    check(along > 0.95 * walk, "moved along the camera's forward (%.0f of %.0f cm)" % (along, walk))

    rep = os.path.join(a.out, "walk_run.json")
    run(["--level", "flat", "--script", os.path.join(HERE, "scripts", "walk_forward.script"), "--hidden",
         "--size", "320x180", "--report", rep], a.strider)
    r = report(rep)
    check(r["steps"] == 210, "3.5 s of script = 210 fixed steps (got %d)" % r["steps"])
    dist = distance(r, start)
    # Walking 2 s then running 1.5 s: the running part (what is left after 2 s
    # of walking) must average over twice the walking speed (the trained run
    # is ~3x the walk), and the whole stays short of the wall.
    run_speed = (dist - walk * 2.0 / 4.0) / 1.5
    check(run_speed > 2.0 * walk / 4.0 and dist < 760.0,
          "walked then ran %.0f cm: running part %.0f cm/s vs walking %.0f" % (dist, run_speed, walk / 4.0))
    check(r["character"]["speed_cm_s"] > 2.0 * w["character"]["speed_cm_s"] and r["character"]["gait"]["run"] > 0.9,
          "running root speed %.0f cm/s vs walking %.0f" % (r["character"]["speed_cm_s"], w["character"]["speed_cm_s"]))
    check(r["character"]["nan_resets"] == 0, "no NaN resets")

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
    check(along > 0.9 * math.hypot(dx, dz) and along > 150.0,
          "walk follows the orbited camera (%.0f cm along it)" % along)
    turn = (r2["marker"]["heading_deg"] - math.degrees(yaw) + 180.0) % 360.0 - 180.0
    check(abs(turn) < 15.0, "the character turned to face the new forward (off by %.1f deg)" % turn)

    # Strafe and crouch pass through: sideways to the camera's right (-X at
    # the spawn's yaw 0), still facing forward, crouched.
    rep3 = os.path.join(a.out, "strafe.json")
    run(["--level", "flat", "--script", os.path.join(HERE, "scripts", "strafe_crouch.script"), "--hidden",
         "--size", "320x180", "--report", rep3], a.strider)
    s = report(rep3)["character"]
    side = -(s["x"] - start["marker"]["x"]) * math.cos(h) + (s["z"] - start["marker"]["z"]) * math.sin(h)
    facing = (s["heading_deg"] - start["marker"]["heading_deg"] + 180.0) % 360.0 - 180.0
    check(side > 120.0 and abs(facing) < 25.0 and s["gait"]["crouch"] > 0.9,
          "crouch-strafed %.0f cm to the right, facing off by %.1f deg, crouch gait %.2f" %
          (side, facing, s["gait"]["crouch"]))


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
    # "timings" and "resources" are measurements of this machine; everything
    # the simulation and the deformation produce must match exactly.
    state = [{k: v for k, v in o.items() if k not in ("timings", "resources")} for o in outs]
    differ = sorted(k for k in state[0].keys() | state[1].keys() if state[0].get(k) != state[1].get(k))
    check(state[0] == state[1] and "timings" in outs[0],
          "two runs of one script end in the same state (differing: %s)" % (", ".join(differ) or "none"))


def case_crowd(a):
    """A crowd: the same seed gives the same members on 1 and 2 threads,
    no capsules overlap, and the picture shows more than the player."""
    outs = []
    for threads in (1, 2):
        rep = os.path.join(a.out, "crowd%d.json" % threads)
        png = os.path.join(a.out, "crowd%d.png" % threads)
        run(["--level", "course", "--crowd", "12", "--crowd-seed", "5", "--crowd-threads", str(threads),
             "--frames", "150", "--hidden", "--size", "320x180", "--report", rep, "--screenshot", png], a.strider)
        outs.append(report(rep))
    c = [o["crowd"] for o in outs]
    check(c[0] == c[1] and outs[0]["character"] == outs[1]["character"],
          "1 and 2 threads give the same crowd (%s / %s)" % (c[0]["roots_fnv1a"], c[1]["roots_fnv1a"]))
    check(c[0]["members"] == 12 and c[0]["steps"] == 150, "12 members stepped 150 times (%d, %d)"
          % (c[0]["members"], c[0]["steps"]))
    check(c[0]["overlap_steps"] == 0 and c[0]["min_gap_cm"] >= 0.0,
          "no capsules overlapped (closest %.1f cm)" % c[0]["min_gap_cm"])
    other = os.path.join(a.out, "crowd_seed6.json")
    run(["--level", "course", "--crowd", "12", "--crowd-seed", "6", "--frames", "150", "--hidden", "--size", "320x180",
         "--report", other], a.strider)
    check(report(other)["crowd"]["roots_fnv1a"] != c[0]["roots_fnv1a"], "another seed gives another crowd")
    # Alone, no crowd renderer is made (no second character loaded, no
    # levels of detail built); a script's 'crowd N' (the menu's slider)
    # makes it when the others come, and they are drawn.
    alone = run(["--level", "course", "--frames", "3", "--hidden", "--size", "320x180", "--verbose"], a.strider)
    check("render: crowd:" not in alone.stderr, "alone: no crowd renderer made")
    script = os.path.join(a.out, "crowd_later.script")
    with open(script, "w") as f:
        f.write("0.0 move 0 1\n0.5 crowd 7\n2.0 quit\n")
    later = os.path.join(a.out, "crowd_later.json")
    p = run(["--level", "course", "--script", script, "--hidden", "--size", "320x180", "--verbose", "--report", later],
            a.strider)
    r = report(later)
    drawn = r.get("crowd", {}).get("drawn_by_lod", {})
    check("render: crowd:" in p.stderr and r.get("crowd", {}).get("members") == 7 and
          sum(drawn.get("main", [])) + sum(drawn.get("shadow", [])) > 0,
          "a script's 'crowd 7' made the renderer and drew the others (%s)" % r.get("crowd"))
    for bad in (["--crowd", "-1"], ["--crowd", "5000"], ["--crowd-seed", "3"], ["--marker", "--crowd", "3"],
                ["--crowd", "3", "--crowd-threads", "0"]):
        run(bad + ["--frames", "1", "--hidden"], a.strider, expect=2)


def case_crowd_cpu(a):
    """The crowd skinned on the CPU (--crowd-deform cpu) looks as the GPU-
    skinned one: the same frame of 20 on hills differs by a few levels in
    a few pixels at most (float rounding of the two skinnings); on 1 and 2
    threads the CPU mode's frames are identical; the report names the mode."""
    pngs, reps = {}, {}
    for name, extra in [("gpu", ["--crowd-deform", "gpu"]), ("cpu", ["--crowd-deform", "cpu"]),
                        ("cpu1", ["--crowd-deform", "cpu", "--crowd-threads", "1"]),
                        ("cpu2", ["--crowd-deform", "cpu", "--crowd-threads", "2"])]:
        pngs[name] = os.path.join(a.out, "crowd_%s.png" % name)
        reps[name] = os.path.join(a.out, "crowd_%s.json" % name)
        run(["--level", "hills", "--crowd", "20", "--crowd-seed", "1", "--frames", "90", "--hidden",
             "--size", "640x360", "--screenshot", pngs[name], "--report", reps[name]] + extra, a.strider)
    r = {k: report(v)["crowd"] for k, v in reps.items()}
    check(r["gpu"]["deform"] == "gpu" and r["cpu"]["deform"] == "cpu" and r["cpu"]["cpu_overflow_frames"] == 0,
          "the report names the mode (%s, %s)" % (r["gpu"]["deform"], r["cpu"]["deform"]))
    check(r["cpu"]["cpu_lit"] == sum(r["cpu"]["drawn_by_lod"]["main"]) and r["cpu"]["cpu_lit"] > 5 and
          r["cpu"]["drawn_by_lod"] == r["gpu"]["drawn_by_lod"],
          "CPU mode skins the members in view, culled and leveled as the GPU mode (%s)" % r["cpu"])
    p = run_tool([a.viewcheck, "maxdiff", pngs["gpu"], pngs["cpu"], "8"])
    check(p.returncode == 0, "CPU and GPU skinning give the same picture within 8 levels")
    p = run_tool([a.viewcheck, "coverage", pngs["gpu"], pngs["cpu"], "0", "0.0005"])
    check(p.returncode == 0, "CPU and GPU skinning differ visibly in at most 0.05 % of the pixels")
    p = run_tool([a.viewcheck, "maxdiff", pngs["cpu1"], pngs["cpu2"], "0"])
    check(p.returncode == 0, "CPU mode on 1 and 2 threads: the same picture")
    run(["--marker", "--crowd-deform", "cpu", "--frames", "1", "--hidden"], a.strider, expect=2)
    run(["--crowd", "3", "--crowd-deform", "cuda", "--frames", "1", "--hidden"], a.strider, expect=2)


def run_tool(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    print(p.stdout.strip(), p.stderr.strip())
    return p


def case_gamepad(a):
    rep = os.path.join(a.out, "pad.json")
    run(["--level", "flat", "--virtual-gamepad", "--script", os.path.join(HERE, "scripts", "gamepad.script"),
         "--hidden", "--size", "320x180", "--report", rep], a.strider)
    r = report(rep)
    start = run_spawn(a)
    dist = distance(r, start)
    check(r["gamepads"] == 1 and r["active_gamepad"] != "", "the virtual pad is open and active")
    # 2 s walk + 2 s run: well beyond what 4 s of walking alone gives (~300 cm)
    check(dist > 500.0, "the pad's stick and trigger moved the character %.0f cm" % dist)
    check(r["character"]["gait"]["run"] > 0.9, "the trigger made it run (run gait %.2f)" % r["character"]["gait"]["run"])


def case_tunnel(a):
    """Walking into the crouch tunnel lowers the head by >= 25 %."""
    outside = os.path.join(a.out, "outside.json")
    run(["--level", "tunnel", "--script", os.path.join(HERE, "scripts", "walk_only.script"), "--hidden",
         "--size", "320x180", "--report", outside], a.strider)
    inside = os.path.join(a.out, "inside.json")
    run(["--level", "tunnel", "--script", os.path.join(HERE, "scripts", "tunnel_walk.script"), "--hidden",
         "--size", "320x180", "--report", inside], a.strider)
    o, i = report(outside)["character"], report(inside)["character"]
    # The first section spans z -1300..-100 under a 110 cm ceiling.
    check(o["z"] < -1500.0 and -1250.0 < i["z"] < -150.0,
          "walking outside at z %.0f, inside the tunnel at z %.0f" % (o["z"], i["z"]))
    drop = 1.0 - i["head_height_cm"] / o["head_height_cm"]
    check(drop >= 0.25, "head %.1f cm outside, %.1f cm inside: drop %.0f %%" %
          (o["head_height_cm"], i["head_height_cm"], 100.0 * drop))
    check(i["gait"]["crouch"] > 0.9 and i["head_height_cm"] < 110.0,
          "crouching under the 110 cm ceiling (crouch gait %.2f)" % i["gait"]["crouch"])
    # Blinks come every 2-6 s (a quick second one now and then).
    check(3 <= i["blinks"] <= 12, "%d blinks in 16 s" % i["blinks"])


def case_character(a):
    """The character is drawn in the game; bad network/character files fail
    with one line and exit 1."""
    pngs = {}
    for name, extra in [("with", []), ("without", ["--no-character"]), ("marker", ["--marker"])]:
        png = os.path.join(a.out, "game_%s.png" % name)
        run(["--level", "hills", "--script", os.path.join(HERE, "scripts", "walk_forward.script"), "--hidden",
             "--size", "640x360", "--screenshot", png] + extra, a.strider)
        pngs[name] = png
    for name in ["with", "marker"]:
        p = subprocess.run([a.imgcheck, pngs[name]], capture_output=True, text=True)
        print(p.stdout.strip(), p.stderr.strip())
        check(p.returncode == 0, "the game renders a lit scene (%s)" % name)
    # --no-character runs the same simulation and camera and only skips the
    # draw, so the difference is the character and its shadow: from 5.5 m
    # behind, about 1 % of the frame.
    p = subprocess.run([a.viewcheck, "coverage", pngs["with"], pngs["without"], "0.004", "0.05"],
                       capture_output=True, text=True)
    print(p.stdout.strip(), p.stderr.strip())
    check(p.returncode == 0, "the character covers part of the frame")

    # The jump button reaches the controller through the script and the sim.
    hips = {}
    for name, frames in [("jump", None), ("stand", "96")]:
        rep = os.path.join(a.out, "%s.json" % name)
        args = ["--frames", frames] if frames else ["--script", os.path.join(HERE, "scripts", "jump_in_place.script")]
        run(["--level", "flat", "--hidden", "--size", "320x180", "--report", rep] + args, a.strider)
        hips[name] = report(rep)["character"]
    check(hips["jump"]["gait"]["jump"] > 0.5 and hips["jump"]["hip_height_cm"] > 1.15 * hips["stand"]["hip_height_cm"],
          "the jump button lifts the hip: %.1f cm vs %.1f standing (jump gait %.2f)" %
          (hips["jump"]["hip_height_cm"], hips["stand"]["hip_height_cm"], hips["jump"]["gait"]["jump"]))

    net = os.path.join(a.strider_root, "assets", "network", "pfnn.bin")
    with open(net, "rb") as f:
        data = f.read()
    truncated = os.path.join(a.out, "truncated.bin")
    with open(truncated, "wb") as f:
        f.write(data[:len(data) // 3])
    for args, name in [(["--network", truncated], "truncated.bin"),
                       (["--network", os.path.join(a.out, "no_such.bin")], "no_such.bin"),
                       (["--character", os.path.join(a.out, "no_such.chr")], "no_such.chr")]:
        p = run(args + ["--hidden", "--frames", "1"], a.strider, expect=1)
        check(name in p.stderr and p.stderr.strip().count("\n") == 0, "one error line naming %s: %s" %
              (name, p.stderr.strip()))
    run(["--marker", "--network", truncated, "--hidden", "--frames", "1"], a.strider, expect=2)
    run(["--view", "character", "--marker", "--hidden", "--frames", "1"], a.strider, expect=2)
    case_deform_flags(a)


# The deformation paths on the command line, and what the report says each
# one used. The simulation never reads the deformation, so every path ends a
# walk exactly where CPU skinning does.
DEFORM_RUNS = [
    ("gpu", ["--skin", "gpu"], {"gpu_skin": True, "morph_on_gpu": True, "skin_once": True}),
    ("gpu_once", ["--skin", "gpu", "--skin-once"], {"gpu_skin": True, "morph_on_gpu": True, "skin_once": True}),
    ("gpu_pass", ["--skin", "gpu", "--skin-per-pass"], {"gpu_skin": True, "morph_on_gpu": True, "skin_once": False}),
    ("gpu_cpu_morph", ["--skin", "gpu", "--cpu-morph"], {"gpu_skin": True, "gpu_morph": False, "morph_on_gpu": False}),
    ("hybrid4", ["--hybrid", "4"], {"gpu_skin": False, "hybrid_every": 4}),
    ("dqs", ["--skin-method", "dqs"], {"gpu_skin": False, "method": 2}),
    ("gpu_once_dense2", ["--skin", "gpu", "--skin-once", "--dense", "--influences", "2"],
     {"gpu_skin": True, "morph_on_gpu": True, "skin_once": True}),
]
# A short walk: 0.75 s of fixed steps from a standstill.
SHORT_WALK = "0.0 move 0 1 speed 0\n0.75 quit\n"
SHORT_WALK_STEPS = 45


def finite_numbers(value):
    if isinstance(value, dict):
        return all(finite_numbers(v) for v in value.values())
    if isinstance(value, list):
        return all(finite_numbers(v) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return True


def case_deform_flags(a):
    script = os.path.join(a.out, "short_walk.script")
    with open(script, "w") as f:
        f.write(SHORT_WALK)
    start = run_spawn(a)
    base = ["--level", "flat", "--script", script, "--hidden", "--size", "320x180"]
    reports = {}
    for name, flags, want in [("cpu", [], {"gpu_skin": False, "morph_on_gpu": False})] + DEFORM_RUNS:
        rep = os.path.join(a.out, "deform_%s.json" % name)
        if os.path.exists(rep):
            os.remove(rep)
        run(base + ["--report", rep] + flags, a.strider)
        if not os.path.exists(rep):
            check(False, "%s: no report" % name)
            continue
        r = report(rep)
        reports[name] = r
        fig, t = r.get("figure", {}), r.get("timings", {})
        check(r["steps"] == SHORT_WALK_STEPS and finite_numbers(r), "%s: %d steps, every number finite" %
              (name, r["steps"]))
        moved = distance(r, start)
        check(moved > 10.0 and r["character"]["nan_resets"] == 0, "%s: walked %.1f cm" % (name, moved))
        got = {k: fig.get(k) for k in want}
        check(got == want, "%s: the figure used %s (wanted %s)" % (name, got, want))
        stages = ("input", "simulation", "controller", "deform", "render", "ui", "present")
        check(all(t.get(k + "_ms_median", -1) >= 0 for k in stages) and t.get("present_ms_median", 0) > 0,
              "%s: the report times every stage: %s" % (name, t))
        check(fig.get("deforms", 0) >= SHORT_WALK_STEPS and t.get("frames", 0) >= SHORT_WALK_STEPS and
              t.get("frame_ms_median", 0) > 0 and t.get("render_ms_median", 0) > 0,
              "%s: deformed every frame; median frame %.2f ms, deform %.3f ms, render %.2f ms" %
              (name, t.get("frame_ms_median", -1), t.get("deform_ms_median", -1), t.get("render_ms_median", -1)))
        if name != "cpu" and "cpu" in reports:
            check(r["marker"] == reports["cpu"]["marker"], "%s: ends where CPU skinning does" % name)
    case_phase_modes(a, base, start, reports.get("cpu"))


def case_phase_modes(a, base, start, cubic):
    """--phase-mode starts the controller in that mode; the game builds a
    mode's precomputed slices only then (the constant mode's 50 fp32 slices
    are 106 MB), so a cubic run peaks well below a constant one."""
    runs = {"cubic": cubic}
    for mode in ["linear", "constant"]:
        rep = os.path.join(a.out, "phase_%s.json" % mode)
        run(base + ["--report", rep, "--phase-mode", mode], a.strider)
        runs[mode] = report(rep)
    for mode, r in runs.items():
        if r is None:
            check(False, "%s: no report" % mode)
            continue
        moved = distance(r, start)
        check(r["character"]["phase_mode"] == mode and moved > 10.0 and r["character"]["nan_resets"] == 0,
              "--phase-mode %s: the controller ran in %s and walked %.1f cm" %
              (mode, r["character"]["phase_mode"], moved))
    if all(r is not None for r in runs.values()):
        # The network holds the weights of the mode it runs, and no other's
        # (a slice mode releases the control points it was built from).
        for mode, r in runs.items():
            held = r["network"]["held_mib"]
            others = [m for m in held if m != mode]
            check(held[mode] > 1.0 and all(held[m] == 0.0 for m in others),
                  "--phase-mode %s: weights held %s MiB" % (mode, held))
        # And the process shows it: constant's 50 slices (106 MB) on top.
        rss = {m: r["resources"]["peak_rss_mib"] for m, r in runs.items()}
        check(rss["constant"] - rss["cubic"] > 80.0,
              "slices built only for their mode: peak RSS cubic %.0f, linear %.0f, constant %.0f MiB" %
              (rss["cubic"], rss["linear"], rss["constant"]))


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
    # Deformation flags that do not go together: exit 2, one line.
    for flags in [["--skin-once"], ["--hybrid", "0"], ["--hybrid", "9"], ["--hybrid", "2", "--skin", "gpu"],
                  ["--skin-method", "bogus"], ["--phase-mode", "quadratic"], ["--phase-mode", "cubic", "--marker"],
                  ["--influences", "0"], ["--influences", "5"], ["--influences", "2", "--marker"],
                  ["--dense", "--marker"], ["--active-shapes", "4097", "--view", "character"],
                  ["--active-shapes", "50"], ["--skin-per-pass"], ["--skin-once", "--skin", "gpu", "--skin-per-pass"]]:
        p = run(flags + ["--hidden", "--frames", "1"], a.strider, expect=2)
        check(p.stderr.strip().count("\n") == 0 and flags[0] in p.stderr,
              "%s: one line naming %s: %s" % (" ".join(flags), flags[0], p.stderr.strip()))
    # Outputs that cannot be written fail the run: exit 1 and one error line
    # naming the file, never "wrote" (the PNG and the report go through
    # file_write_all, which checks the write and the close).
    run_fast = ["--hidden", "--frames", "2", "--size", "320x200"]
    outputs = [(["--screenshot", "/nonexistent-strider-dir/x.png"], "/nonexistent-strider-dir/x.png"),
               (["--report", os.path.join(a.out, "no_such_dir", "r.json")], "no_such_dir/r.json")]
    if os.access("/dev/full", os.W_OK):
        outputs += [(["--screenshot", "/dev/full"], "/dev/full"), (["--report", "/dev/full"], "/dev/full")]
    for flags, name in outputs:
        p = run(flags + run_fast, a.strider, expect=1)
        errors = [l for l in p.stderr.splitlines() if "error" in l]
        check(len(errors) == 1 and name in errors[0] and "wrote" not in p.stderr,
              "%s: one error line naming %s, no 'wrote': %s" % (" ".join(flags), name, p.stderr.strip()))
        p = run(flags + run_fast + ["--quiet"], a.strider, expect=1)
        check(p.stderr.strip().count("\n") == 0 and name in p.stderr,
              "%s --quiet: exactly one line: %s" % (" ".join(flags), p.stderr.strip()))
    # A folder given where a file is expected is named as a folder (core/file.c,
    # so every loader says it: the script, the character, the network).
    for flag in ["--script", "--character", "--network"]:
        p = run([flag, "/etc"] + run_fast, a.strider, expect=1)
        check(p.stderr.strip().count("\n") == 0 and "/etc: is a folder, not a file" in p.stderr,
              "%s /etc: one line saying it is a folder: %s" % (flag, p.stderr.strip()))
    # F12's screenshot (here a script's 'screenshot', the same request) goes
    # into the working folder: written and logged with its full path, or,
    # where it cannot be written (/proc), one error line and exit 1.
    shot_script = os.path.join(a.out, "screenshot.script")
    with open(shot_script, "w") as f:
        f.write("0.1 screenshot\n0.2 quit\n")
    shot_dir = os.path.join(a.out, "f12")
    shutil.rmtree(shot_dir, ignore_errors=True)
    os.makedirs(shot_dir)
    cmd = [a.strider, "--script", shot_script, "--hidden", "--size", "320x200"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=shot_dir)
    shots = [n for n in os.listdir(shot_dir) if n.startswith("strider-") and n.endswith(".png")]
    check(p.returncode == 0 and len(shots) == 1 and ("wrote " + os.path.join(shot_dir, shots[0])) in p.stderr,
          "a script screenshot is written into the working folder and logged with its path: %s" % p.stderr.strip())
    p = subprocess.run(cmd + ["--quiet"], capture_output=True, text=True, timeout=120, cwd="/proc")
    check(p.returncode == 1 and p.stderr.strip().count("\n") == 0 and "/proc/strider-" in p.stderr,
          "a screenshot the working folder refuses: exit 1, one line with its path: %s" % p.stderr.strip())
    # A driver that only offers OpenGL 3.3: one line saying what was found.
    env = dict(os.environ, MESA_GL_VERSION_OVERRIDE="3.3")
    p = subprocess.run([a.strider, "--hidden", "--frames", "1"], capture_output=True, text=True, env=env, timeout=120)
    check(p.returncode == 1 and "4.3" in p.stderr and "found only OpenGL 3.3" in p.stderr
          and p.stderr.strip().count("\n") == 0, "too-old GL is one clear line: " + p.stderr.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["levels", "walk", "determinism", "gamepad", "errors", "tunnel", "character", "crowd",
                                     "crowd_cpu"])
    ap.add_argument("--strider", required=True)
    ap.add_argument("--imgcheck", required=True)
    ap.add_argument("--viewcheck", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    # ctest runs in the repository root; the assets are read relative to it.
    a.strider_root = os.path.dirname(os.path.dirname(HERE))
    globals()["case_" + a.case](a)
    print("%d passed, %d failed" % (0 if failures else 1, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
