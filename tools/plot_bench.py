#!/usr/bin/python3
"""Turns `strider bench ... --csv` files into PNG plots.

usage: /usr/bin/python3 tools/plot_bench.py [--blendshapes CSV [CSV ...]] [--query]
                                            [--skinning CSV] [--skinning-paths CSV [CSV ...]]
                                            [--pfnn CSV] [--render CSV] [--crowd CSV...] --out DIR

- blendshapes: frame time vs active shape count, one line per method, CPU
  solid and GPU dashed (log-log, in the style of GPU Gems 3 Fig. 3-6); one
  panel per CSV (e.g. the default character and the Dawn-scale mesh). GPU
  times are the benchmark's glFinish-bracketed wall times, or with --query
  its GL timer queries (the GPU's own clock, of frames queued back to back
  where the CSV has gpu_pipelined_us; trust them on a real GPU, not on
  llvmpipe, whose queries the benchmark marks suspect); methods the
  benchmark skipped (its "# ... skipped:" lines) are named in the panel;
  counts capped at the mesh's shape count are plotted once, at the count
  actually applied;
- skinning: million vertices per second per path, bars grouped by influence
  count, one bar per thread count, the copy floor at each thread count as
  a line;
- skinning-paths: one panel per skinning CSV, every path (CPU at one
  thread, GPU) by influence count, log scale (bench_skinning_paths.png);
- pfnn: ms per inference per phase mode and weight type, with the memory
  roofline (weight bytes / measured copy bandwidth) marked;
- render: the game's render time per renderer variant, grouped by level,
  with each variant's ratio over the level's first.
Each plot's subtitle carries the CPU, GL renderer and date from the CSV header."""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    header = {}
    lines = []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                key, _, value = line[1:].strip().partition(": ")
                header[key] = value
            else:
                lines.append(line)
    rows = list(csv.DictReader(lines))
    if not rows:
        sys.exit("%s: no rows" % path)
    return header, rows


def subtitle(h):
    return "%s | %s | %s" % (h.get("cpu", "?"), h.get("gl", "?"), h.get("date", "?"))


# One colour per method in every panel, so a skipped method does not shift them.
METHOD_COLOURS = {"cpu-dense": "C0", "cpu-sparse": "C1", "gpu-ssbo-dense": "C2", "gpu-ssbo-sparse": "C3",
                  "gpu-tf-multipass": "C4", "gpu-compute-dense": "C5", "gpu-compute-sparse": "C6"}


def blendshapes_panel(ax, path, query=False):
    h, rows = load(path)
    # Methods in the order the benchmark ran them; CPU solid, GPU dashed.
    methods = []
    for r in rows:
        if r["method"] not in methods:
            methods.append(r["method"])
    for method in methods:
        by_active = {}
        for r in rows:
            # A capped count repeats the same active set: keep its first row.
            if r["method"] == method and int(r["active"]) not in by_active:
                by_active[int(r["active"])] = r
        xs = sorted(by_active)
        gpu = method.startswith("gpu-")
        if gpu and query:
            # The GPU's own clock (no band): frames queued back to back where
            # the benchmark timed them so, else the glFinish-bracketed query.
            def gpu_us(r):
                v = float(r.get("gpu_pipelined_us") or "nan")
                return v if v > 0 else float(r["gpu_query_us"])
            med = [gpu_us(by_active[x]) / 1000.0 for x in xs]
            lo = hi = med
        else:
            med = [float(by_active[x]["median_us"]) / 1000.0 for x in xs]
            lo = [float(by_active[x]["min_us"]) / 1000.0 for x in xs]
            hi = [float(by_active[x]["max_us"]) / 1000.0 for x in xs]
        px = [max(x, 0.5) for x in xs]
        line, = ax.plot(px, med, marker="s" if gpu else "o", linestyle="--" if gpu else "-", label=method,
                        color=METHOD_COLOURS.get(method))
        ax.fill_between(px, lo, hi, color=line.get_color(), alpha=0.12)
    notes = ["%s skipped: %s" % (k.split(" skipped")[0], v) for k, v in h.items() if k.endswith(" skipped")]
    if notes:
        ax.text(0.01, 0.01, "\n".join(notes), transform=ax.transAxes, fontsize=7, va="bottom")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("active blend shapes (0 drawn at 0.5)")
    ax.set_ylabel("time per frame (ms), median; band = min..max")
    mesh = h.get("character", "?").split(",")[0]
    ax.set_title("%s: %s vertices\n%s\n%s | %s" % (os.path.basename(mesh), rows[0].get("mesh_vertices", "?"),
                                                  h.get("cpu", "?"), h.get("gl", "?"), h.get("date", "?")), fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def plot_blendshapes(paths, out, query=False):
    if isinstance(paths, str):
        paths = [paths]
    fig, axes = plt.subplots(1, len(paths), figsize=(8 * len(paths), 5.5), squeeze=False)
    for ax, path in zip(axes[0], paths):
        blendshapes_panel(ax, path, query)
    fig.suptitle("Blend shapes: frame time vs active count (GPU Gems 3 Fig. 3-6 style; GPU = %s)" %
                 ("GL timer query" if query else "glFinish wall time"), fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bench_blendshapes.png"), dpi=110)


def plot_skinning(path, out):
    h, rows = load(path)
    # One bar group per path and weighting ("renorm": the kept weights and
    # the output directions renormalised; "given": ozz's SkinningJob work);
    # the copy floor (no influence count) is a dashed line in every panel.
    floor = [(int(r["threads"]), float(r["mverts_s"])) for r in rows if r["path"] == "cpu-copy"]
    rows = [r for r in rows if r["influences"] != "-"]

    def label(r):
        w = r.get("weights", "renorm")
        return r["path"] if w in ("renorm", "-") else "%s (%s)" % (r["path"], w)
    labels = []
    for r in rows:
        if label(r) not in labels:
            labels.append(label(r))
    threads = sorted({int(r["threads"]) for r in rows})
    infl = sorted({int(r["influences"]) for r in rows})
    fig, axes = plt.subplots(1, len(infl), figsize=(max(8, 4 * len(infl)), 4.5), sharey=True, squeeze=False)
    for ax, n in zip(axes[0], infl):
        width = 0.8 / len(threads)
        for ti, t in enumerate(threads):
            vals = []
            for lab in labels:
                sel = [float(r["mverts_s"]) for r in rows
                       if label(r) == lab and int(r["threads"]) == t and int(r["influences"]) == n]
                vals.append(sel[0] if sel else 0.0)
            ax.bar([i + ti * width for i in range(len(labels))], vals, width, label="%d thread%s" % (t, "s" if t > 1 else ""))
        for k, (t, v) in enumerate(floor):
            ax.axhline(v, color="0.3", linestyle=("--", ":", "-.")[k % 3], linewidth=1,
                       label="memcpy floor (%d thread%s)" % (t, "s" if t > 1 else ""))
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(labels))])
        ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=8)
        ax.set_title("%d influence%s" % (n, "s" if n > 1 else ""))
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].set_ylabel("million vertices / s (median)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Skinning throughput (%s vertices, %s bones)\n%s" % (rows[0]["vertices"], rows[0]["bones"], subtitle(h)),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bench_skinning.png"), dpi=110)


def plot_skinning_paths(paths, out):
    """One panel per skinning CSV (e.g. the default character and the big
    mesh): million vertices per second of every path at one thread (CPU)
    or on the GPU, bars per influence count, log scale; GPU times are the
    glFinish-bracketed wall times. The pass paths count mesh vertices through
    both passes (depth + main), so they are not vertex-shader throughput."""
    fig, axes = plt.subplots(len(paths), 1, figsize=(10, 4.2 * len(paths)), squeeze=False)
    for ax, path in zip(axes[:, 0], paths):
        h, rows = load(path)
        rows = [r for r in rows if int(r["threads"]) == 1 and r["influences"] != "-"]
        names = []
        for r in rows:
            if r["path"] not in names:
                names.append(r["path"])
        infl = sorted({int(r["influences"]) for r in rows})
        width = 0.8 / max(1, len(infl))
        for k, n in enumerate(infl):
            vals = []
            for p in names:
                sel = [float(r["mverts_s"]) for r in rows if r["path"] == p and int(r["influences"]) == n]
                vals.append(sel[0] if sel else 0.0)
            ax.bar([i + k * width for i in range(len(names))], vals, width,
                   label="%d influence%s" % (n, "s" if n > 1 else ""))
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(names))])
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("million vertices / s (median)")
        mesh = rows[0].get("mesh", "?") if rows else "?"
        ax.set_title("Skinning paths, %s (%s vertices, %s bones)\n%s"
                     % (mesh, rows[0]["vertices"] if rows else "?", rows[0]["bones"] if rows else "?", subtitle(h)),
                     fontsize=9)
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bench_skinning_paths.png"), dpi=110)


def plot_pfnn(path, out):
    h, rows = load(path)
    # One bar per pfnn_run row; the batch rows (ms per character of a
    # batch) are a table, not bars on this axis.
    rows = [r for r in rows if r.get("path", "single") == "single"]
    labels = ["%s\n%s" % (r["mode"], r["dtype"]) for r in rows]
    med = [float(r["median_ms"]) for r in rows]
    lo = [float(r["median_ms"]) - float(r["min_ms"]) for r in rows]
    hi = [float(r["max_ms"]) - float(r["median_ms"]) for r in rows]
    roof = [float(r["roofline_ms"]) for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.bar(range(len(rows)), med, yerr=[lo, hi], capsize=3, label="measured (median, min..max)")
    ax.scatter(range(len(rows)), roof, color="black", marker="_", s=400, zorder=3,
               label="roofline: weight bytes / copy bandwidth")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("ms per inference")
    ax.set_title("PFNN inference per phase mode\n%s" % subtitle(h), fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bench_pfnn.png"), dpi=110)


def plot_render(path, out):
    """`strider bench render`: the glFinish-bracketed render time of each
    variant (min..max bars), grouped by level, each bar labelled with its
    ratio over the level's first variant."""
    h, rows = load(path)
    levels = []
    for r in rows:
        if r["level"] not in levels:
            levels.append(r["level"])
    variants = []
    for r in rows:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    width = 0.8 / len(variants)
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(levels) * len(variants) / 2), 4.8))
    for k, v in enumerate(variants):
        xs, med, lo, hi, ratio = [], [], [], [], []
        for i, lev in enumerate(levels):
            sel = [r for r in rows if r["level"] == lev and r["variant"] == v]
            if not sel:
                continue
            r = sel[0]
            xs.append(i + k * width)
            med.append(float(r["median_ms"]))
            lo.append(float(r["median_ms"]) - float(r["min_ms"]))
            hi.append(float(r["max_ms"]) - float(r["median_ms"]))
            ratio.append(float(r["over_first"]))
        ax.bar(xs, med, width, yerr=[lo, hi], capsize=2, label=v)
        for x, m, q in zip(xs, med, ratio):
            ax.text(x, m * 0.5, "%.2fx" % q, ha="center", va="center", rotation=90, fontsize=7, color="white")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(levels))])
    ax.set_xticklabels(levels)
    ax.set_ylabel("render ms per frame (median, min..max)")
    size = "%sx%s" % (rows[0]["width"], rows[0]["height"])
    ax.set_title("Render time per variant, %s (bars: ratio over the level's first)\n%s" % (size, subtitle(h)),
                 fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bench_render.png"), dpi=110)


def plot_crowd(paths, out):
    """`strider bench crowd`: per count (several CSVs are merged, e.g. the
    small counts and a 1000 run), the simulation's parts per character
    (stacked, the total per step above each bar) and the network's ms per
    character as one batch against one inference each, log-log."""
    rows, h = [], {}
    for p in paths:
        h, r = load(p)
        rows += r
    rows.sort(key=lambda r: int(r["count"]))
    n = [int(r["count"]) for r in rows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.4))
    bottom = [0.0] * len(rows)
    for col, label in (("begin_ms", "intents, first halves"), ("net_batch_ms", "network (batch)"),
                       ("finish_ms", "second halves")):
        v = [float(r[col]) / c for r, c in zip(rows, n)]
        a1.bar([str(c) for c in n], v, bottom=bottom, label=label)
        bottom = [b + x for b, x in zip(bottom, v)]
    for i, (b, r) in enumerate(zip(bottom, rows)):
        a1.text(i, b, "%.2f ms a step" % float(r["sim_ms"]), ha="center", va="bottom", fontsize=8)
    a1.set_xlabel("characters")
    a1.set_ylabel("simulation ms per character per step (median)")
    a1.legend(fontsize=8)
    a1.grid(True, axis="y", alpha=0.3)
    for col, label in (("net_batch_ms", "one batch"), ("net_single_ms", "one inference each")):
        a2.plot(n, [float(r[col]) / int(r["count"]) for r in rows], marker="o", label=label)
    for c, r in zip(n, rows):
        a2.annotate("%.2fx" % float(r["net_speedup"]), (c, float(r["net_batch_ms"]) / c), fontsize=8,
                    textcoords="offset points", xytext=(4, -12))
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("characters")
    a2.set_ylabel("network ms per character per step (median)")
    a2.legend(fontsize=8)
    a2.grid(True, alpha=0.3)
    mode = "cubic"
    for k, v in h.items():
        if "phase mode" in k or "phase mode" in v:
            mode = (k + v).split("phase mode ")[1].split(",")[0]
    fig.suptitle("Crowd: simulation per step (%s phase mode, the level rendered between steps)\n%s"
                 % (mode, subtitle(h)), fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bench_crowd.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blendshapes", nargs="+", help="one or more blendshapes CSVs (one panel each)")
    ap.add_argument("--skinning")
    ap.add_argument("--skinning-paths", nargs="+", help="skinning CSVs with GPU paths (one panel each)")
    ap.add_argument("--pfnn")
    ap.add_argument("--render", help="a `strider bench render` CSV")
    ap.add_argument("--crowd", nargs="+", help="`strider bench crowd` CSVs (their rows merged)")
    ap.add_argument("--query", action="store_true",
                    help="blendshapes: GPU methods by their GL timer query, not the glFinish wall time")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if not (a.blendshapes or a.skinning or a.pfnn or a.skinning_paths or a.render or a.crowd):
        ap.error("give at least one of --blendshapes, --skinning, --skinning-paths, --pfnn, --render, --crowd")
    os.makedirs(a.out, exist_ok=True)
    for name, fn in (("blendshapes", plot_blendshapes), ("skinning", plot_skinning),
                     ("skinning_paths", plot_skinning_paths), ("pfnn", plot_pfnn), ("render", plot_render),
                     ("crowd", plot_crowd)):
        path = getattr(a, name)
        if path:
            for p in path if isinstance(path, list) else [path]:
                if not os.path.exists(p):
                    sys.exit("%s: no such file" % p)
            if name == "blendshapes":
                fn(path, a.out, a.query)
            else:
                fn(path, a.out)
            print("wrote %s" % os.path.join(a.out, "bench_%s.png" % name))


if __name__ == "__main__":
    main()
