#!/usr/bin/python3
"""Smoke run of `strider bench`: tiny sizes, every benchmark, CSV and JSON
outputs parse and agree with each other, methods agree (exit 0), and bad
arguments give usage errors (exit 2). It checks no timings.

usage: bench_smoke.py --strider BIN --chargen BIN --out DIR"""
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--strider", required=True)
    ap.add_argument("--chargen", required=True)
    ap.add_argument("--pfnn", required=True, help="a small pfnn.bin")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    s = a.strider

    p = os.path.join(a.out, "skinning")
    run([s, "bench", "skinning", "--smoke", "--influences", "1,4", "--csv", p + ".csv", "--json", p + ".json"])
    rows, _ = read_outputs(p)
    check({r["path"] for r in rows} >= {"cpu-reference", "cpu-scalar", "cpu-dqs"}, "skinning covers the CPU paths")
    check(all(float(r["max_pos_err_cm"]) <= 0.017 for r in rows), "skinning paths agree with the reference")

    p = os.path.join(a.out, "pfnn")
    run([s, "bench", "pfnn", "--smoke", "--network", a.pfnn, "--csv", p + ".csv", "--json", p + ".json"])
    rows, _ = read_outputs(p)
    check({r["mode"] for r in rows} == {"constant", "linear", "cubic"}, "pfnn covers the three phase modes")
    check(all(float(r["median_ms"]) > 0 for r in rows), "pfnn timings are positive")

    chr_path = os.path.join(a.out, "shapes256.chr")
    run([a.chargen, "--out", chr_path, "--shapes", "256"])
    p = os.path.join(a.out, "blendshapes")
    run([s, "bench", "blendshapes", "--smoke", "--character", chr_path, "--counts", "0,1,50,256",
         "--csv", p + ".csv", "--json", p + ".json"])
    rows, _ = read_outputs(p)
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

    print("%d passed, %d failed" % (0 if failures else 1, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
