"""The whole training pipeline in one call: prepare -> train -> export -> report.

Usage (through run.sh): pipeline.py --data DIR --out DIR [--dest DIR] [--epochs N] [--threads N]
  [--smoke] [--hidden H] [--batch B] [--lr LR] [--cycles C] [--max-minutes M] [--resume]
  [--budget-minutes M] [--epoch-samples N] [--max-clips N] [--skip-prepare]
--budget-minutes: the learning-rate schedule runs over this much training time instead of
  --epochs, and training stops when it is spent (adapts to a busy machine).
--smoke: 2 clips, 1 epoch, a 32-wide network (a fast end-to-end check, used by ctest).
--dest defaults to OUT/network; pass --dest assets/network to ship the result.
Each stage is also a script of its own (prepare.py, train.py, export.py, report.py).
"""
import argparse
import os
import sys
import time

import bvh
import export as EX
import prepare
import report
import train


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join("..", "shared", "mocap", "cmu"))
    ap.add_argument("--out", default=os.path.join("build", "train"))
    ap.add_argument("--dest", default=None)
    ap.add_argument("--skel", default=prepare.DEFAULT_SKEL)
    ap.add_argument("--epochs", type=int, default=36)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--cycles", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-minutes", type=float, default=0.0)
    ap.add_argument("--budget-minutes", type=float, default=0.0)
    ap.add_argument("--epoch-samples", type=int, default=0)
    ap.add_argument("--max-clips", type=int, default=0)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--skip-prepare", action="store_true")
    a = ap.parse_args(argv)
    if a.smoke:
        a.max_clips, a.epochs, a.hidden, a.batch = 2, 1, 32, 64
    dest = a.dest or os.path.join(a.out, "network")
    t0 = time.time()
    try:
        if not (a.skip_prepare and os.path.exists(os.path.join(a.out, "db.npz"))):
            prepare.build(a.data, a.out, a.skel, a.max_clips)
        train.train(a.out, a.epochs, a.hidden, a.batch, a.lr, a.cycles, a.threads, a.max_minutes, a.resume,
                    budget_minutes=a.budget_minutes, epoch_samples=a.epoch_samples)
        EX.export(a.out, dest)
        report.report(a.out, dest)
    except (bvh.BvhError, EX.FormatError) as e:
        print(f"strider-train: error: {e}", file=sys.stderr)
        return 1
    print(f"strider-train: pipeline done in {time.time() - t0:.0f} s -> {dest}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
