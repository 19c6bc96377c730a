#!/usr/bin/python3
"""The tables of tools/gpu-check.sh's run, from its output folder.

usage: tools/gpu_check_summary.py OUT_DIR

Reads the benchmarks' CSVs, the runs' --report JSONs and the sweep's
screenshots that tools/gpu-check.sh wrote into OUT_DIR, writes
OUT_DIR/summary.txt (printed too), OUT_DIR/sweep.txt and the GPU Gems 3
Fig. 3-6 plot (bench_blendshapes.png, GPU methods by their timer queries),
and exits 1 when a run failed or a GPU picture differs from the CPU's.
GPU times are GL timer queries (the GPU's own clock), CPU times the
report's stage medians. Needs numpy and matplotlib (Debian's
python3-numpy and python3-matplotlib; the GPU machine's python3 has both).
"""
import csv
import glob
import json
import os
import sys

import numpy as np

# A GPU picture agrees with the CPU's when no more than this share of its
# pixels differs by more than PIXEL_LEVELS in a channel (the two paths round
# differently; a wrong deformation moves thousands of pixels).
PIXEL_LEVELS = 48
PIXEL_SHARE = 0.0005


def load_csv(path):
    if not os.path.exists(path):
        return None, []
    header, lines = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                key, _, value = line[1:].strip().partition(": ")
                header[key] = value
            else:
                lines.append(line)
    return header, list(csv.DictReader(lines))


def load_report(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def fmt(v, digits=3):
    return "-" if v is None or v != v else ("%.*f" % (digits, v))


def table(title, cols, rows):
    out = ["", title]
    widths = [max(len(str(c)), *(len(str(r[i])) for r in rows)) if rows else len(str(c)) for i, c in enumerate(cols)]
    out.append("  ".join(str(c).ljust(w) for c, w in zip(cols, widths)))
    out.append("  ".join("-" * w for w in widths))
    for r in rows:
        out.append("  ".join(str(v).ljust(w) for v, w in zip(r, widths)))
    return out


def blendshape_rows(rows, active):
    return {r["method"]: r for r in rows if int(r["active"]) == active}


def gpu_us(r):
    """A GPU row's time: the timer query of frames queued back to back (the
    GPU's clocks up, as in a game) where the benchmark gives it."""
    v = num(r.get("gpu_pipelined_us"))
    return v if v > 0 else num(r.get("gpu_query_us"))


def label(key):
    return "GPU per pass" if key.endswith("perpass") else "GPU skin once"


def read_png(path):
    import matplotlib.image as mpimg

    a = mpimg.imread(path)
    if a.dtype != np.uint8:
        a = np.round(a * 255.0).astype(np.int16)
    return a[..., :3].astype(np.int16)


def sweep(out, lines):
    d = os.path.join(out, "sweep")
    pairs = os.path.join(d, "pairs.txt")
    bad = 0
    rows = []
    if not os.path.exists(pairs):
        return 1, ["", "sweep: not run"]
    for line in open(pairs):
        name, ref = line.split()
        rc = open(os.path.join(out, "rc_" + name)).read().strip() if os.path.exists(
            os.path.join(out, "rc_" + name)) else "?"
        rep = load_report(os.path.join(d, name + ".json"))
        fig = (rep or {}).get("figure", {})
        where = "gpu_skin=%s morph_on_gpu=%s skin_once=%s hybrid=%s" % (
            fig.get("gpu_skin"), fig.get("morph_on_gpu"), fig.get("skin_once"), fig.get("hybrid_every"))
        if rc != "0":
            rows.append((name, ref, rc, "-", "-", "FAIL (exit %s)" % rc, where))
            bad += 1
            continue
        if ref == "-":
            rows.append((name, ref, rc, "-", "-", "ran", where))
            continue
        a_path, b_path = os.path.join(d, name + ".png"), os.path.join(d, ref + ".png")
        if not (os.path.exists(a_path) and os.path.exists(b_path)):
            rows.append((name, ref, rc, "-", "-", "FAIL (no picture)", where))
            bad += 1
            continue
        a, b = read_png(a_path), read_png(b_path)
        if a.shape != b.shape:
            rows.append((name, ref, rc, "-", "-", "FAIL (sizes differ)", where))
            bad += 1
            continue
        diff = np.abs(a - b).max(axis=2)
        over = int((diff > PIXEL_LEVELS).sum())
        share = over / diff.size
        ok = share <= PIXEL_SHARE
        bad += not ok
        rows.append((name, ref, rc, "%d (%.4f%%)" % (over, 100 * share), int(diff.max()), "ok" if ok else "FAIL",
                     where))
    text = table("sweep: each switch's picture against the CPU path's (pixels differing by more than %d levels; "
                 "ok up to %.2f%%)" % (PIXEL_LEVELS, 100 * PIXEL_SHARE),
                 ["run", "reference", "exit", "pixels > %d" % PIXEL_LEVELS, "max diff", "verdict", "deformed"], rows)
    with open(os.path.join(out, "sweep.txt"), "w") as f:
        f.write("\n".join(text) + "\n")
    return bad, text


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    lines = ["# Strider on this machine (tools/gpu-check.sh)"]
    if os.path.exists(os.path.join(out, "machine.txt")):
        lines += [l.rstrip() for l in open(os.path.join(out, "machine.txt"))]
    failed = 0
    for rc in glob.glob(os.path.join(out, "rc_*")):
        if open(rc).read().strip() != "0":
            lines.append("FAILED run: %s (exit %s)" % (os.path.basename(rc)[3:], open(rc).read().strip()))
            failed = 1

    # Blend shapes: the head, and the Dawn-scale mesh.
    goals = []
    for tag, title in (("head", "shipped head"), ("dawn", "Dawn-scale head")):
        h, rows = load_csv(os.path.join(out, "bench_blendshapes_%s.csv" % tag))
        if not rows:
            continue
        if tag == "head":
            lines.append("GL: %s" % h.get("gl", "?"))
        lines.append("character: %s" % h.get("character", "?"))
        counts = sorted({int(r["active"]) for r in rows})
        methods = []
        for r in rows:
            if r["method"] not in methods:
                methods.append(r["method"])
        trows = []
        for m in methods:
            row = [m]
            for c in counts:
                r = blendshape_rows(rows, c).get(m)
                if not r:
                    row.append("-")
                elif m.startswith("gpu-"):
                    row.append(fmt(gpu_us(r), 1))
                else:
                    row.append(fmt(num(r["median_us"]), 1))
            trows.append(row)
        lines += table("blend shapes, %s (%s vertices): us per frame by active shapes; GPU: timer query of frames "
                       "queued back to back, CPU: wall"
                       % (title, rows[0]["mesh_vertices"]), ["method"] + [str(c) for c in counts], trows)
        at = 50 if 50 in counts else counts[-1]
        by = blendshape_rows(rows, at)
        tf = gpu_us(by["gpu-tf-multipass"]) if "gpu-tf-multipass" in by else float("nan")
        ratios = []
        for m in ("gpu-ssbo-dense", "gpu-ssbo-sparse", "gpu-compute-dense", "gpu-compute-sparse"):
            q = gpu_us(by[m]) if m in by else float("nan")
            if q == q and tf == tf:
                ratios.append("%s %.2fx" % (m, tf / q))
        if ratios:
            lines.append("stream-out multipass over one pass at %d shapes (timer queries): %s" % (at, ", ".join(ratios)))
        if tag == "head":
            best = min((gpu_us(by[m]), m) for m in by if m.startswith("gpu-") and m != "gpu-tf-multipass")
            goals.append(("GPU blend shapes, shipped head, %d active, GPU time" % at, "<= 20 us",
                          "%.1f us (%s)" % best))
            one = max((tf / gpu_us(by[m]), m) for m in ("gpu-ssbo-dense", "gpu-ssbo-sparse") if m in by)
            goals.append(("single pass (vertex shader) over stream-out multipass, %d shapes" % at, ">= 3x",
                          "%.2fx (%s)" % one))

    # Skinning paths.
    for tag, title in (("head", "shipped character"), ("dawn", "Dawn-scale mesh")):
        h, rows = load_csv(os.path.join(out, "bench_skinning_%s.csv" % tag))
        rows = [r for r in rows if r.get("isa") == "gpu"]
        if not rows:
            continue
        infl = sorted({int(r["influences"]) for r in rows})
        paths = []
        for r in rows:
            if r["path"] not in paths:
                paths.append(r["path"])
        trows = []
        for p in paths:
            row = [p]
            for k in infl:
                r = next((r for r in rows if r["path"] == p and int(r["influences"]) == k), None)
                if not r:
                    row.append("-")
                    continue
                q = gpu_us(r)
                row.append("%s us = %s G/s" % (fmt(q, 1), fmt(int(r["vertices"]) / q * 1e-3, 2)))
            trows.append(row)
        lines += table("skinning, %s (%s vertices, %s bones): GPU time (timer query, repeats queued back to back) "
                       "and vertices per second"
                       % (title, rows[0]["vertices"], rows[0]["bones"]), ["path"] + ["%d infl." % k for k in infl], trows)
        if tag == "dawn":
            r = next((r for r in rows if r["path"] == "gpu-compute" and int(r["influences"]) == 4), None)
            if r:
                goals.append(("GPU skinning, Dawn mesh, 4 influences, GPU time", ">= 5 G vertices/s",
                              "%.2f G vertices/s (gpu-compute, %.1f us)" % (
                                  int(r["vertices"]) / gpu_us(r) * 1e-3, gpu_us(r))))

    # The game and the viewer: CPU stage medians and GPU times.
    runs = [("game_cpu", "game hills 1080p, --skin cpu"),
            ("game_gpuskinperpass", "game hills 1080p, --skin gpu --skin-per-pass"),
            ("game_gpu", "game hills 1080p, --skin gpu (skin once)"),
            ("dawn_cpu", "Dawn viewer 1080p, 50 shapes, --skin cpu"),
            ("dawn_gpuskinperpass", "Dawn viewer 1080p, 50 shapes, --skin gpu --skin-per-pass"),
            ("dawn_gpu", "Dawn viewer 1080p, 50 shapes, --skin gpu (skin once)"),
            ("dawn_gpucpumorph", "Dawn viewer 1080p, 50 shapes, --skin gpu --cpu-morph")]
    trows, got = [], {}
    for key, title in runs:
        rep = load_report(os.path.join(out, key + ".json"))
        if not rep:
            continue
        t = rep.get("timings", {})
        got[key] = t
        trows.append((title, fmt(t.get("deform_ms_median")), fmt(t.get("gpu_character_ms_median")),
                      fmt(t.get("gpu_character_deform_ms_median")),
                      fmt(t.get("render_ms_median")), fmt(t.get("present_ms_median")),
                      fmt(t.get("frame_ms_median")), fmt(t.get("gpu_frame_ms_median"))))
    if trows:
        lines += table("frames (medians, ms): deform = the stage's CPU time; character GPU = its compute pass and "
                       "both passes' draws (timestamps); present includes the one wait for the GPU",
                       ["run", "deform CPU", "character GPU", "of it compute", "render CPU", "present", "frame",
                        "GPU frame"], trows)
    for key, goal, what in (("dawn_gpuskinperpass", "<= 0.3 ms", "deform CPU"), ("dawn_gpu", "<= 0.3 ms", "deform CPU")):
        if key in got:
            goals.append(("Dawn mesh, 50 shapes, %s: %s" % (label(key), what), goal,
                          "%.3f ms" % got[key]["deform_ms_median"]))
    for key in ("dawn_gpuskinperpass", "dawn_gpu"):
        if key in got:
            goals.append(("Dawn mesh, 50 shapes, %s: GPU time of morph + skin + both passes" % label(key), "<= 0.2 ms",
                          "%.3f ms" % got[key]["gpu_character_ms_median"]))
    for key in ("game_gpuskinperpass", "game_gpu"):
        if key in got:
            goals.append(("game 1080p, %s: deform stage CPU" % label(key), "<= 0.1 ms",
                          "%.3f ms" % got[key]["deform_ms_median"]))
    for mesh, cpu, gpus in (("game character", "game_cpu", ("game_gpuskinperpass", "game_gpu")),
                            ("Dawn mesh", "dawn_cpu", ("dawn_gpuskinperpass", "dawn_gpu"))):
        if cpu in got:
            c = got[cpu]["deform_ms_median"] + max(got[cpu]["gpu_character_ms_median"], 0)
            for g in gpus:
                if g in got:
                    v = got[g]["deform_ms_median"] + max(got[g]["gpu_character_ms_median"], 0)
                    goals.append(("%s: GPU path (%s) vs CPU path, deform CPU + character GPU" % (
                        mesh, "per pass" if g.endswith("perpass") else "skin once"),
                                  "GPU cheaper", "%.3f vs %.3f ms (%.1fx)" % (v, c, c / v if v > 0 else float("nan"))))

    # The crowd: bench crowd's medians per count, the game's frames with a crowd.
    h, rows = load_csv(os.path.join(out, "bench_crowd.csv"))
    if rows:
        cols = ["count", "threads", "sim_ms", "net_batch_ms", "net_single_ms", "net_speedup", "deform_ms",
                "render_ms", "frame_ms", "fps", "drawn_main", "min_gap_cm", "overlap_steps"]
        lines += table("crowd, hills 1920x1080 (bench crowd, medians, ms; render between two glFinish)", cols,
                       [[r.get(c, "-") if c in ("count", "threads", "drawn_main", "overlap_steps")
                         else fmt(num(r.get(c)), 2) for c in cols] for r in rows])
        for r in rows:
            n = int(r["count"])
            if n in (100, 1000):
                goals.append(("crowd of %d at 1920x1080: frame (simulated, deformed, drawn)" % n,
                              ">= %d FPS" % (240 if n == 100 else 60),
                              "%.0f FPS (%.2f ms)" % (num(r["fps"]), num(r["frame_ms"]))))
            if n == 100:
                goals.append(("crowd of 100: batched network against 100 single inferences", ">= 5x",
                              "%.2fx" % num(r["net_speedup"])))
    trows = []
    for n in (100, 1000):
        rep = load_report(os.path.join(out, "game_crowd%d.json" % n))
        if not rep:
            continue
        t, c = rep.get("timings", {}), rep.get("crowd", {})
        f = t.get("frame_ms_median")
        trows.append(("--crowd %d" % n, fmt(t.get("controller_ms_median")), fmt(t.get("deform_ms_median")),
                      fmt(t.get("render_ms_median")), fmt(t.get("present_ms_median")), fmt(f),
                      fmt(1000.0 / f if f else None, 1), fmt(t.get("gpu_frame_ms_median")),
                      fmt(t.get("gpu_crowd_ms_median")), c.get("overlap_steps", "-")))
    if trows:
        lines += table("the game with a crowd, hills 1920x1080, no vsync (report medians, ms)",
                       ["run", "controller", "deform", "render CPU", "present", "frame", "FPS", "GPU frame",
                        "crowd GPU", "overlap steps"], trows)
    h, rows = load_csv(os.path.join(out, "bench_skinning_cpu.csv"))
    rows = [r for r in rows if r.get("weights") == "given" and r.get("path") in ("cpu-avx2", "cpu-avx512")]
    if rows:
        trows = []
        for k in sorted({int(r["influences"]) for r in rows}):
            by = {r["path"]: num(r["median_us"]) for r in rows if int(r["influences"]) == k}
            if "cpu-avx2" in by and "cpu-avx512" in by:
                trows.append((k, fmt(by["cpu-avx2"], 1), fmt(by["cpu-avx512"], 1),
                              "%.2fx" % (by["cpu-avx2"] / by["cpu-avx512"])))
        lines += table("CPU skinning, 1 pinned thread (bench skinning, medians, us)",
                       ["influences", "cpu-avx2", "cpu-avx512", "avx512 speed-up"], trows)
        if trows:
            goals.append(("CPU skinning, AVX-512 against AVX2, 1-4 influences", ">= 1.15x",
                          " ".join(r[3] for r in trows)))

    bad, text = sweep(out, lines)
    lines += text
    failed |= bad > 0
    goals.insert(0, ("every switch on this GPU: runs, agrees with the CPU", "all",
                     "%s" % ("all" if bad == 0 else "%d failed (sweep.txt)" % bad)))
    lines += table("goals of the GPU issue", ["measure", "goal", "measured"], goals)

    # GPU Gems 3 Fig. 3-6 from the GPU's own clock.
    csvs = [p for p in (os.path.join(out, "bench_blendshapes_head.csv"), os.path.join(out, "bench_blendshapes_dawn.csv"))
            if os.path.exists(p)]
    if csvs:
        try:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import plot_bench

            plot_bench.plot_blendshapes(csvs, out, True)
            lines.append("")
            lines.append("wrote %s" % os.path.join(out, "bench_blendshapes.png"))
        except Exception as e:  # the tables stand without the plot
            lines.append("no plot: %s" % e)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
