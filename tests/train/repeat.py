"""The documented training command twice, smoke-sized (2 clips, 1 epoch, a 32-wide network),
on this machine: the exported weights must be the same bytes. It goes through pipeline.main as
run.sh does, each run in a fresh process, so the thread variables are set before numpy and torch
load, as they are for a user.
Usage: /usr/bin/python3 tests/train/repeat.py DATA_DIR OUT_DIR   (exit 0 on success)."""
import filecmp
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def fail(msg):
    print(f"repeat: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 3:
        fail("usage: repeat.py DATA_DIR OUT_DIR")
    data, out = sys.argv[1], sys.argv[2]
    if not os.path.exists(os.path.join(data, "manifest.csv")):
        fail(f"{data}/manifest.csv not found (set STRIDER_SHARED_DIR)")
    runs = []
    for k in (1, 2):
        d = os.path.join(out, f"run{k}")
        shutil.rmtree(d, ignore_errors=True)
        cmd = [os.path.join(ROOT, "tools", "train", "run.sh"), "--smoke", "--data", data, "--out", d, "--threads", "1"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"run {k} exited {r.returncode}: {r.stderr.strip().splitlines()[-1:] }")
        runs.append(os.path.join(d, "network"))
    for name in ("pfnn.bin", "pfnn_ref.bin"):
        a, b = (os.path.join(r, name) for r in runs)
        if not filecmp.cmp(a, b, shallow=False):
            fail(f"{name} differs between two runs of the same command")
    print(f"repeat: OK: two runs gave the same pfnn.bin ({os.path.getsize(os.path.join(runs[0], 'pfnn.bin'))} bytes) "
          f"and reference vectors")


if __name__ == "__main__":
    main()
