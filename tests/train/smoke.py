"""Smoke run of the whole training pipeline on 2 clips, 1 epoch, a 32-wide network, then checks
that the exported file reloads and reproduces its own reference vectors.
Usage: /usr/bin/python3 tests/train/smoke.py DATA_DIR OUT_DIR   (exit 0 on success)."""
import os
import shutil
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "train"))
import export as EX  # noqa: E402
import pipeline  # noqa: E402

# The smoke run must stay far below the 2-minute CI budget.
TIME_LIMIT_S = 100.0


def fail(msg):
    print(f"smoke: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 3:
        fail("usage: smoke.py DATA_DIR OUT_DIR")
    data, out = sys.argv[1], sys.argv[2]
    if not os.path.exists(os.path.join(data, "manifest.csv")):
        fail(f"{data}/manifest.csv not found (set STRIDER_SHARED_DIR)")
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.time()
    rc = pipeline.main(["--smoke", "--data", data, "--out", out, "--threads", "1"])
    dt = time.time() - t0
    if rc != 0:
        fail(f"pipeline returned {rc}")
    dest = os.path.join(out, "network")
    for name in ("pfnn.bin", "pfnn.json", "pfnn_ref.bin", "metrics.json", "loss.png", "stick.png"):
        if not os.path.getsize(os.path.join(dest, name)) > 0:
            fail(f"{name} missing or empty")
    d = EX.read_pfnn(os.path.join(dest, "pfnn.bin"))
    ph, X, Y = EX.read_refs(os.path.join(dest, "pfnn_ref.bin"))
    if len(ph) < 100:
        fail(f"only {len(ph)} reference vectors")
    err = max(float(np.max(np.abs(EX.reference_forward(d, X[i], ph[i]) - Y[i]) / (1.0 + np.abs(Y[i]))))
              for i in range(len(ph)))
    if err > 1e-4:
        fail(f"fp64 forward pass differs from the reference vectors by {err:.2e}")
    if dt > TIME_LIMIT_S:
        fail(f"took {dt:.0f} s, limit {TIME_LIMIT_S:.0f} s")
    print(f"smoke: OK in {dt:.1f} s, {len(ph)} reference vectors reproduced (max rel err {err:.1e})")


if __name__ == "__main__":
    main()
