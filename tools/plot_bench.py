#!/usr/bin/python3
"""Turns `strider bench ... --csv` files into PNG plots.

usage: /usr/bin/python3 tools/plot_bench.py [--blendshapes CSV] [--skinning CSV]
                                            [--pfnn CSV] --out DIR

- blendshapes: frame time vs active shape count, one line per method
  (log-log, in the style of GPU Gems 3 Fig. 3-6);
- skinning: million vertices per second per path, bars grouped by influence
  count, one bar per thread count;
- pfnn: ms per inference per phase mode and weight type, with the memory
  roofline (weight bytes / measured copy bandwidth) marked.
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


def plot_blendshapes(path, out):
    h, rows = load(path)
    fig, ax = plt.subplots(figsize=(8, 5))
    for method in sorted({r["method"] for r in rows}):
        pts = sorted((int(r["active"]), float(r["median_us"]) / 1000.0) for r in rows if r["method"] == method)
        lo = sorted((int(r["active"]), float(r["min_us"]) / 1000.0) for r in rows if r["method"] == method)
        hi = sorted((int(r["active"]), float(r["max_us"]) / 1000.0) for r in rows if r["method"] == method)
        xs = [max(p[0], 0.5) for p in pts]
        line, = ax.plot(xs, [p[1] for p in pts], marker="o", label=method)
        ax.fill_between(xs, [p[1] for p in lo], [p[1] for p in hi], color=line.get_color(), alpha=0.12)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("active blend shapes (0 drawn at 0.5)")
    ax.set_ylabel("time per frame (ms), median; band = min..max")
    verts = rows[0].get("mesh_vertices", "?")
    ax.set_title("Blend shapes: frame time vs active count (%s vertices)\n%s" % (verts, subtitle(h)), fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bench_blendshapes.png"), dpi=110)


def plot_skinning(path, out):
    h, rows = load(path)
    paths = sorted({r["path"] for r in rows}, key=lambda p: [r["path"] for r in rows].index(p))
    threads = sorted({int(r["threads"]) for r in rows})
    infl = sorted({int(r["influences"]) for r in rows})
    fig, axes = plt.subplots(1, len(infl), figsize=(max(8, 4 * len(infl)), 4.5), sharey=True, squeeze=False)
    for ax, n in zip(axes[0], infl):
        width = 0.8 / len(threads)
        for ti, t in enumerate(threads):
            vals = []
            for p in paths:
                sel = [float(r["mverts_s"]) for r in rows
                       if r["path"] == p and int(r["threads"]) == t and int(r["influences"]) == n]
                vals.append(sel[0] if sel else 0.0)
            ax.bar([i + ti * width for i in range(len(paths))], vals, width, label="%d thread%s" % (t, "s" if t > 1 else ""))
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(paths))])
        ax.set_xticklabels(paths, rotation=35, ha="right", fontsize=8)
        ax.set_title("%d influence%s" % (n, "s" if n > 1 else ""))
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].set_ylabel("million vertices / s (median)")
    axes[0][0].legend(fontsize=8)
    fig.suptitle("Skinning throughput (%s vertices, %s bones)\n%s" % (rows[0]["vertices"], rows[0]["bones"], subtitle(h)),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bench_skinning.png"), dpi=110)


def plot_pfnn(path, out):
    h, rows = load(path)
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blendshapes")
    ap.add_argument("--skinning")
    ap.add_argument("--pfnn")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if not (a.blendshapes or a.skinning or a.pfnn):
        ap.error("give at least one of --blendshapes, --skinning, --pfnn")
    os.makedirs(a.out, exist_ok=True)
    for name, fn in (("blendshapes", plot_blendshapes), ("skinning", plot_skinning), ("pfnn", plot_pfnn)):
        path = getattr(a, name)
        if path:
            if not os.path.exists(path):
                sys.exit("%s: no such file" % path)
            fn(path, a.out)
            print("wrote %s" % os.path.join(a.out, "bench_%s.png" % name))


if __name__ == "__main__":
    main()
