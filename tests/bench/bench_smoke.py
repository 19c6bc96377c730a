#!/usr/bin/python3
"""Smoke run of `strider bench`: tiny sizes, every benchmark, CSV and JSON
outputs parse and agree with each other, methods agree (exit 0), and bad
arguments give usage errors (exit 2). It checks no timings.
Without --gl only CPU methods run and no GL context may be opened; with --gl
(run under Xvfb) the GPU blend-shape methods run next to the CPU ones and
must agree with them, the header must name the GL renderer, and a context
older than 4.3 must fail the GPU methods with one line and exit 1.

With --shared, the imported MakeHuman male (a .glb, read as the game reads
it) is a --mesh too: CPU skinning and blend shapes, and with --gl the GPU
paths and the hybrid (its walk clip retargeted onto the MakeHuman rig).

usage: bench_smoke.py --strider BIN --chargen BIN --pfnn FILE --out DIR [--gl] [--shared DIR]"""
import argparse
import csv
import json
import os
import subprocess
import sys

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(cmd, expect=0):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != expect:
        print(p.stdout[-3000:], p.stderr[-3000:])
    check(p.returncode == expect, "exit %d (expected %d): %s" % (p.returncode, expect, " ".join(cmd[1:])))
    return p


def read_outputs(prefix):
    with open(prefix + ".csv") as f:
        lines = [l for l in f if not l.startswith("#")]
    rows = list(csv.DictReader(lines))
    with open(prefix + ".json") as f:
        doc = json.load(f)
    check(len(rows) > 0 and len(rows) == len(doc["rows"]), "%s: CSV and JSON hold the same %d rows" % (prefix, len(rows)))
    check(doc["env"]["cpu"] != "" and doc["env"]["date"] != "" and doc["env"]["build"] != "",
          "%s: header names the CPU, date and build" % prefix)
    return rows, doc


def render_checks(a):
    """`strider bench render`: the game's frames per renderer variant (needs a display)."""
    s = a.strider
    p = os.path.join(a.out, "render")
    png = p + ".png"
    if os.path.exists(png):
        os.remove(png)
    q = run([s, "bench", "render", "--smoke", "--levels", "hills,flat", "--screenshot", png,
             "--csv", p + ".csv", "--json", p + ".json"])
    rows, doc = read_outputs(p)
    variants = ["shipped", "lookup-everywhere", "fog-everywhere", "uncached-shadows", "all-skirts", "all-triangles",
                "no-savings", "scalar-cull"]
    check([(r["level"], r["variant"]) for r in rows] == [(l, v) for l in ("hills", "flat") for v in variants],
          "render: every variant on every level asked for, in order")
    check(all(int(r["frames"]) == 2 and float(r["median_ms"]) > 0 for r in rows),
          "render: each variant timed on its own frames")
    check(all(float(r["over_first"]) == 1.0 for r in rows if r["variant"] == "shipped"),
          "render: ratios are over each level's first variant")
    check(all(r["differing_pixels"] == "0" for r in rows) and {r["width"] for r in rows} == {"160"},
          "render: every variant draws the same picture as the shipped renderer")
    check(doc["env"]["gl_renderer"] not in ("", "none") and "# gl: " + doc["env"]["gl_renderer"] in q.stdout,
          "render: the header names the GL renderer")
    check(os.path.exists(png) and os.path.getsize(png) > 1000, "render: --screenshot writes the last frame")
    plots = os.path.join(a.out, "plots_render")
    run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "plot_bench.py"),
         "--render", p + ".csv", "--out", plots])
    plot = os.path.join(plots, "bench_render.png")
    check(os.path.exists(plot) and os.path.getsize(plot) > 10000, "plot render written")
    q = run([s, "bench", "render", "--smoke", "--crowd", "4", "--variants", "shipped,scalar-cull", "--csv", p + "_crowd.csv",
             "--json", p + "_crowd.json"])
    rows, _ = read_outputs(p + "_crowd")
    check([r["variant"] for r in rows] == ["shipped", "scalar-cull"] and all(r["differing_pixels"] == "0" for r in rows)
          and "3 other characters" in q.stdout,
          "render --crowd: a crowd drawn, the sample cull one triangle at a time keeps the picture")
    q = run([s, "bench", "render", "--smoke", "--variants", "uncached-shadows,shipped"])
    check("uncached-shadows" in q.stdout.split("over_first")[-1].splitlines()[2],
          "render: --variants picks the variants and their order")
    for bad in (["--variants", "faster"], ["--levels", "mars"], ["--size", "8x8"], ["--frames", "0"]):
        r = subprocess.run([s, "bench", "render", "--smoke"] + bad, capture_output=True, text=True, timeout=300)
        check(r.returncode == 2 and r.stderr.strip(), "render %s: usage error (%d)" % (" ".join(bad), r.returncode))
    missing = os.path.join(a.out, "no_such.script")
    r = subprocess.run([s, "bench", "render", "--smoke", "--script", missing], capture_output=True, text=True,
                       timeout=300)
    check(r.returncode == 1 and missing in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          "render: a missing script fails with one line naming it (%d: %s)"
          % (r.returncode, r.stderr.strip()))
    missing = os.path.join(a.out, "no_such.map")
    r = subprocess.run([s, "bench", "render", "--smoke", "--map", missing], capture_output=True, text=True,
                       timeout=300)
    check(r.returncode == 1 and missing in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          "render: a missing joint map fails with one line naming it (%d: %s)" % (r.returncode, r.stderr.strip()))


def crowd_checks(a):
    """`strider bench crowd`: a crowd in the game's steps and frames (needs a display)."""
    s = a.strider
    p = os.path.join(a.out, "crowd")
    q = run([s, "bench", "crowd", "--smoke", "--csv", p + ".csv", "--json", p + ".json"])
    rows, doc = read_outputs(p)
    check([int(r["count"]) for r in rows] == [1, 6] and all(r["placed"] == r["count"] for r in rows),
          "crowd: a row per count, every member placed")
    check(all(int(r["overlap_steps"]) == 0 for r in rows), "crowd: no capsules overlapped")
    check(all(float(r["sim_ms"]) > 0 and float(r["render_ms"]) > 0 and float(r["net_batch_ms"]) > 0 and
              float(r["net_single_ms"]) > 0 for r in rows), "crowd: every part timed")
    check(all(0 < float(r["member_kb"]) <= 64 for r in rows), "crowd: one more member costs at most 64 KB")
    check(int(rows[1]["drawn_main"]) >= 1, "crowd: the other members are drawn")
    check(doc["env"]["gl_renderer"] not in ("", "none") and "# gl: " + doc["env"]["gl_renderer"] in q.stdout,
          "crowd: the header names the GL renderer")
    plots = os.path.join(a.out, "plots_crowd")
    run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "plot_bench.py"), "--crowd",
         p + ".csv", "--out", plots])
    plot = os.path.join(plots, "bench_crowd.png")
    check(os.path.exists(plot) and os.path.getsize(plot) > 10000, "plot crowd written")
    for bad in (["--counts", "0"], ["--counts", "5000"], ["--phase-mode", "quadratic"], ["--frames", "1"]):
        r = subprocess.run([s, "bench", "crowd", "--smoke"] + bad, capture_output=True, text=True, timeout=300)
        check(r.returncode == 2 and r.stderr.strip(), "crowd %s: usage error (%d)" % (" ".join(bad), r.returncode))


def gl_checks(a):
    """GPU blend-shape methods next to the CPU ones (needs a display)."""
    s = a.strider
    chr_path = os.path.join(a.out, "tiny256.chr")
    run([a.chargen, "--tiny", "--shapes", "256", "--out", chr_path])
    p = os.path.join(a.out, "blendshapes_gl")
    q = run([s, "bench", "blendshapes", "--smoke", "--mesh", chr_path, "--counts", "0,1,5,54,256",
             "--csv", p + ".csv", "--json", p + ".json"])
    rows, doc = read_outputs(p)
    check(doc["env"]["gl_renderer"] not in ("", "none") and doc["env"]["gl_version"] not in ("", "none"),
          "header names the GL renderer and version: %s, %s" % (doc["env"]["gl_renderer"], doc["env"]["gl_version"]))
    check("# gl: " + doc["env"]["gl_renderer"] in q.stdout, "the printed header names the GL renderer")
    methods = {"cpu-dense", "cpu-sparse", "gpu-ssbo-dense", "gpu-ssbo-sparse", "gpu-compute-dense",
               "gpu-compute-sparse", "gpu-tf-multipass"}
    check({r["method"] for r in rows} == methods, "all seven methods ran by default")
    check(sorted({int(r["active"]) for r in rows}) == [0, 1, 5, 54, 256], "every count ran")
    for r in rows:
        gpu = r["method"].startswith("gpu-")
        # 1e-4 of the 25.6 cm head; unit vectors and AO 1e-3 (the bench's own bounds).
        ok = float(r["max_diff_cm"]) <= 0.00256 and float(r["max_dir_diff"]) <= 1e-3
        check(ok, "%s at %s shapes agrees with the CPU job (%s cm, %s)" % (r["method"], r["active"], r["max_diff_cm"],
                                                                          r["max_dir_diff"]))
        if r["method"] == "gpu-tf-multipass":
            want = (int(r["active"]) + 3) // 4 + 1
            check(int(r["passes"]) == want, "tf multipass at %s shapes takes %d passes" % (r["active"], want))
        if gpu:
            check(r["timer"] in ("ok", "suspect") and float(r["median_us"]) > 0, "%s has a wall time and a timer verdict"
                  % r["method"])
    # Over-asking caps at the mesh's shapes and says so.
    q = run([s, "bench", "blendshapes", "--smoke", "--counts", "100", "--methods", "gpu-ssbo-sparse,cpu-dense",
             "--interleave"])
    check("capped at the mesh's 61" in q.stdout, "a count above the shape count is capped, and the output says so")
    check("taking turns" in q.stdout, "--interleave is named in the output")
    # No GL 4.3 context: GPU methods fail with one line and exit 1; CPU methods still run.
    env = dict(os.environ, MESA_GL_VERSION_OVERRIDE="3.3")
    p3 = subprocess.run([s, "bench", "blendshapes", "--smoke", "--counts", "1", "--methods", "gpu-ssbo-dense"],
                        capture_output=True, text=True, timeout=300, env=env)
    lines = [l for l in p3.stderr.splitlines() if "strider" in l]
    check(p3.returncode == 1 and len(lines) == 1 and "OpenGL 4.3+" in lines[0],
          "GL 3.3 only: exit 1 with one line (%d: %s)" % (p3.returncode, p3.stderr.strip()))
    p4 = subprocess.run([s, "bench", "blendshapes", "--smoke", "--counts", "1", "--methods", "cpu-sparse"],
                        capture_output=True, text=True, timeout=300, env=env)
    check(p4.returncode == 0, "GL 3.3 only: CPU methods still run")
    print("%d failed" % len(failures))
    return 1 if failures else 0


def gl_skinning_checks(a):
    """GPU skinning paths, the hybrid and compression tables (needs a display)."""
    import re
    s = a.strider
    chr_path = os.path.join(a.out, "tiny_skin.chr")
    run([a.chargen, "--tiny", "--out", chr_path])
    p = os.path.join(a.out, "skinning_gl")
    q = run([s, "bench", "skinning", "--smoke", "--mesh", chr_path, "--paths", "gpu,hybrid,cpu-scalar",
             "--influences", "1,2,4", "--csv", p + ".csv", "--json", p + ".json"])
    rows, doc = read_outputs(p)
    check(doc["env"]["gl_renderer"] not in ("", "none"), "skinning header names the GL renderer")
    gpu_paths = {"gpu-lbs-points", "gpu-lbs-matrix", "gpu-dqs", "gpu-compute", "gpu-unbinned", "gpu-binned",
                 "gpu-compressed", "gpu-skin-once", "gpu-per-pass"}
    check({r["path"] for r in rows} == gpu_paths | {"cpu-scalar", "gpu-hybrid-lerp"},
          "every GPU skinning path ran next to cpu-scalar")
    check([r["influences"] for r in rows if r["path"] == "gpu-hybrid-lerp"] == ["4"], "the hybrid lerp ran once")
    check(all(sorted(int(r["influences"]) for r in rows if r["path"] == g) == [1, 2, 4] for g in gpu_paths),
          "every GPU path ran at influences 1, 2, 4")
    m = re.search(r"^# mesh: .* height ([0-9.]+) cm", q.stdout, re.M)
    height = float(m.group(1)) if m else 0.0
    check(height > 100, "the mesh line gives the height (%s cm)" % height)
    for r in rows:
        if r["path"].startswith("gpu-"):
            ok = float(r["max_pos_err_cm"]) <= 1e-4 * height and float(r["max_nrm_err"]) <= 1e-3
            check(ok and float(r["median_us"]) > 0 and float(r["mverts_s"]) > 0,
                  "%s (%s influences) agrees with the CPU reference and has a time" % (r["path"], r["influences"]))
    for what in ("binned / unbinned", "skin-once / per-pass", "compressed / lbs-matrix"):
        check(re.search(r"^# ratio %s.*: 1 influences [0-9.]+ .* 4 influences [0-9.]+" % re.escape(what), q.stdout,
                        re.M) and any(n.startswith("ratio " + what) for n in doc["notes"]),
              "the %s ratio is printed and in the JSON notes" % what)
    check("# GL_TIME_ELAPSED / glFinish wall time" in q.stdout, "timer queries are compared with wall time")
    comp = [l.split() for l in q.stdout.splitlines() if l.startswith("tiny_skin.chr ")]
    check(len(comp) == 1 and comp[0][1:3] == ["64", "24"], "compression table: 64 -> 24 bytes per vertex")
    hyb = {}
    for l in q.stdout.splitlines():
        f = l.split()
        if len(f) == 11 and f[1].endswith(".bvh") and f[0] in ("lbs-matrix", "dqs"):
            hyb[(f[0], int(f[2]))] = (float(f[5]), float(f[6]), float(f[8]))
    for meth in ("lbs-matrix", "dqs"):
        v = [hyb.get((meth, n)) for n in (2, 4, 8)]
        check(all(v) and v[0][1] < v[1][1] < v[2][1] and v[0][0] > 0 and all(x[2] == 0 for x in v),
              "hybrid %s: mean error grows with N = 2, 4, 8 and is 0 at the keys (%s)" % (meth, v))
    check(any(n.startswith("hybrid lbs-matrix") for n in doc["notes"]), "the hybrid errors are in the JSON notes")
    # CPU paths never open GL, even without a display.
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    p2 = subprocess.run([s, "bench", "skinning", "--smoke", "--paths", "cpu-scalar", "--influences", "4"],
                        capture_output=True, text=True, timeout=300, env=env)
    check(p2.returncode == 0 and "# gl: none" in p2.stdout, "CPU skinning paths run without a display")
    # No GL 4.3 context: a GPU path fails with one line and exit 1.
    env = dict(os.environ, MESA_GL_VERSION_OVERRIDE="3.3")
    p3 = subprocess.run([s, "bench", "skinning", "--smoke", "--mesh", chr_path, "--paths", "gpu-binned"],
                        capture_output=True, text=True, timeout=300, env=env)
    lines = [l for l in p3.stderr.splitlines() if "strider" in l]
    check(p3.returncode == 1 and len(lines) == 1 and "OpenGL 4.3+" in lines[0],
          "skinning, GL 3.3 only: exit 1 with one line (%d: %s)" % (p3.returncode, p3.stderr.strip()))
    plots = os.path.join(a.out, "plots_gl")
    run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "plot_bench.py"),
         "--skinning-paths", p + ".csv", "--out", plots])
    png = os.path.join(plots, "bench_skinning_paths.png")
    check(os.path.exists(png) and os.path.getsize(png) > 10000, "plot skinning_paths written")
    q = run([s, "bench", "skinning", "--paths", "gpu-nothing"], expect=2)
    check("gpu-binned" in q.stderr and "gpu-skin-once" in q.stderr, "an unknown path lists the GPU paths")
    q = run([s, "bench", "skinning", "--smoke", "--paths", "gpu-binned", "--mesh", os.path.join(a.out, "none.chr")],
            expect=1)
    check(len([l for l in q.stderr.splitlines() if "strider" in l]) == 1, "a missing mesh is one line")
    print("%d failed" % len(failures))
    return 1 if failures else 0


def imported_checks(a):
    """The MakeHuman male (.glb) as the benchmarks' --mesh."""
    glb = os.path.join(a.shared, "characters", "makehuman_cmu31_arkit52_male.glb")
    s = a.strider
    p = os.path.join(a.out, "skinning_glb")
    paths = "gpu-lbs-matrix,gpu-skin-once,gpu-per-pass,hybrid,cpu-scalar" if a.gl else "cpu-reference,cpu-scalar"
    run([s, "bench", "skinning", "--smoke", "--mesh", glb, "--paths", paths, "--influences", "4",
         "--csv", p + ".csv", "--json", p + ".json"])
    rows, doc = read_outputs(p)
    check(rows and all(r["vertices"] == "15174" and r["bones"] == "31" for r in rows),
          "skinning the .glb: 15,174 vertices (the head/body seam copied), 31 joints")
    if a.gl:
        check(any("hybrid lbs-matrix" in n for n in doc.get("notes", [])), "the hybrid ran on the retargeted clip")
    p = os.path.join(a.out, "blendshapes_glb")
    methods = "cpu-sparse,gpu-ssbo-sparse,gpu-ssbo-dense" if a.gl else "cpu-dense,cpu-sparse"
    run([s, "bench", "blendshapes", "--smoke", "--mesh", glb, "--counts", "0,8,86", "--methods", methods,
         "--csv", p + ".csv", "--json", p + ".json"])
    rows, _ = read_outputs(p)
    check(sorted({int(r["active"]) for r in rows}) == [0, 8, 86], "blend shapes of the .glb: 0, 8 and all 86")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--strider", required=True)
    ap.add_argument("--chargen", required=True)
    ap.add_argument("--pfnn", required=True, help="a small pfnn.bin")
    ap.add_argument("--out", required=True)
    ap.add_argument("--gl", action="store_true", help="GPU blend-shape methods (needs a display)")
    ap.add_argument("--shared", help="../shared: also benchmark the imported MakeHuman male")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    s = a.strider
    if a.gl:
        rc = gl_checks(a)
        rc = gl_skinning_checks(a) or rc
        render_checks(a)
        crowd_checks(a)
        if a.shared:
            imported_checks(a)
        return 1 if failures else rc
    if a.shared:
        imported_checks(a)

    p = os.path.join(a.out, "skinning")
    q = run([s, "bench", "skinning", "--smoke", "--influences", "1,4", "--csv", p + ".csv", "--json", p + ".json"])
    rows, doc = read_outputs(p)
    check({r["path"] for r in rows} >= {"cpu-reference", "cpu-scalar", "cpu-dqs", "cpu-copy"},
          "skinning covers the CPU paths and the copy floor")
    check(all(r["path"] == "cpu-copy" or float(r["max_pos_err_cm"]) <= 0.017 for r in rows),
          "skinning paths agree with the reference")
    check({r["weights"] for r in rows if r["path"] == "cpu-scalar"} == {"renorm", "given"},
          "each CPU path runs renormalising and with the weights as given")
    check("cpu-scalar, weights given, 4 influences: scalar lbs-matrix 4 influences" in q.stdout,
          "the kernel of each influence count is named next to the table")
    # Thread counts of a row are timed in alternation; the first count's rows read 1.
    cpu = [r for r in rows if r["path"] not in ("cpu-copy",)]
    check(all(float(r["speedup"]) == 1.0 for r in cpu if r["threads"] == "1") and
          all(float(r["speedup"]) > 0 for r in cpu if r["threads"] == "2") and
          {r["threads"] for r in cpu} == {"1", "2"},
          "each CPU row has its speedup over 1 thread, measured in the same run")
    check(any(n.startswith("speedup: the median time at 1 thread") for n in doc["notes"]),
          "the speedup column is explained in the notes")
    copy = [r for r in rows if r["path"] == "cpu-copy"]
    check(sorted(r["threads"] for r in copy) == ["1", "2"] and len({r["checksum"] for r in copy}) == 1 and
          float(copy[0]["speedup"]) == 1.0 and all(float(r["speedup"]) > 0 for r in copy),
          "the copy floor runs at each thread count, with the same bytes out and its speedup")

    p = os.path.join(a.out, "skinning_given")
    run([s, "bench", "skinning", "--smoke", "--paths", "cpu-scalar", "--influences", "2", "--weights", "given",
         "--csv", p + ".csv", "--json", p + ".json"])
    rows, _ = read_outputs(p)
    check(rows and {r["weights"] for r in rows} == {"given"}, "--weights given runs only the prenormalized weighting")
    pw = subprocess.run([s, "bench", "skinning", "--smoke", "--paths", "cpu-scalar", "--weights", "unit"],
                        capture_output=True, text=True)
    check(pw.returncode == 2 and "unit" in pw.stderr, "an unknown weighting is a usage error")
    pm = subprocess.run([s, "bench", "skinning", "--smoke", "--paths", "cpu", "--weights", ",".join(["given"] * 32)],
                        capture_output=True, text=True)
    check(pm.returncode == 2 and "CPU rows" in pm.stderr and pm.stdout == "",
          "more CPU rows than one interleaved run holds is a usage error, before anything runs")

    p = os.path.join(a.out, "pfnn")
    run([s, "bench", "pfnn", "--smoke", "--network", a.pfnn, "--csv", p + ".csv", "--json", p + ".json"])
    rows, _ = read_outputs(p)
    check({r["mode"] for r in rows} == {"constant", "linear", "cubic"}, "pfnn covers the three phase modes")
    check(all(float(r["median_ms"]) > 0 for r in rows), "pfnn timings are positive")
    batch = [r for r in rows if r["path"] == "batch"]
    check({(r["mode"], r["batch"], r["threads"]) for r in batch} ==
          {(m, n, t) for m in ("constant", "linear", "cubic") for n in ("1", "7", "30") for t in ("1", "2")},
          "pfnn batch rows: every mode at the smoke sizes 1, 7, 30 on 1 and 2 threads")
    check(all(r["bit_identical"] == "yes" and float(r["batch_speedup"]) > 0 for r in batch),
          "pfnn batch rows equal pfnn_run bit for bit and have a speedup")

    chr_path = os.path.join(a.out, "shapes256.chr")
    run([a.chargen, "--out", chr_path, "--shapes", "256"])
    p = os.path.join(a.out, "blendshapes")
    run([s, "bench", "blendshapes", "--smoke", "--character", chr_path, "--counts", "0,1,50,256",
         "--methods", "cpu-dense,cpu-sparse", "--csv", p + ".csv", "--json", p + ".json"])
    rows, doc = read_outputs(p)
    check(doc["env"]["gl_renderer"] == "none", "CPU-only blendshapes open no GL context")
    check(sorted({int(r["active"]) for r in rows}) == [0, 1, 50, 256], "blendshapes ran every count")
    by = {}
    for r in rows:
        by.setdefault(r["active"], set()).add(r["checksum"])
    check(all(len(v) == 1 for v in by.values()), "dense and sparse give identical vertices")

    # The plot tool turns the three CSVs into PNGs.
    plots = os.path.join(a.out, "plots")
    run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "plot_bench.py"),
         "--blendshapes", os.path.join(a.out, "blendshapes.csv"), "--skinning", os.path.join(a.out, "skinning.csv"),
         "--pfnn", os.path.join(a.out, "pfnn.csv"), "--out", plots])
    for name in ("blendshapes", "skinning", "pfnn"):
        png = os.path.join(plots, "bench_%s.png" % name)
        check(os.path.exists(png) and os.path.getsize(png) > 10000, "plot %s written" % name)

    # Bad arguments: usage errors that list the valid values.
    q = run([s, "bench", "skinning", "--paths", "gpu-magic"], expect=2)
    check("cpu-reference" in q.stderr, "unknown path lists the valid ones")
    run([s, "bench", "skinning", "--vertices", "-5"], expect=2)
    run([s, "bench", "blendshapes", "--counts", "99999"], expect=2)
    run([s, "bench", "warp-drive"], expect=2)
    run([s, "bench", "pfnn", "--network", os.path.join(a.out, "missing.bin")], expect=1)
    run([s, "bench", "blendshapes", "--character", os.path.join(a.out, "missing.chr")], expect=1)
    q = run([s, "bench", "blendshapes", "--methods", "gpu-warp"], expect=2)
    check("gpu-tf-multipass" in q.stderr, "unknown blend-shape method lists the GPU ones")
    # Every command reads its options through one table (core/args.h): an
    # option without its value is named as such, in one line, whatever the
    # command (it was once taken for an unknown option).
    for cmd, opt in (("pfnn", "--network"), ("skinning", "--bones"), ("blendshapes", "--mesh"),
                     ("render", "--frames")):
        q = run([s, "bench", cmd, opt], expect=2)
        check(q.stderr == "strider bench: option %s needs a value\n" % opt and q.stdout == "",
              "bench %s %s without a value: one line (%s)" % (cmd, opt, q.stderr.strip()))
    q = run([s, "bench", "pfnn", "--bogus"], expect=2)
    check(q.stderr.startswith("strider bench pfnn: unknown option '--bogus'\nusage: strider bench pfnn"),
          "an unknown option is named, then the command's usage")

    print("%d passed, %d failed" % (0 if failures else 1, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
