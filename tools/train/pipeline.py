"""The whole training pipeline in one call: prepare -> train -> export -> report.

Usage (through run.sh): pipeline.py --data DIR --out DIR [--dest DIR] [--epochs N]
  [--epoch-samples N] [--threads N] [--seed S] [--smoke] [--hidden H] [--batch B] [--lr LR]
  [--cycles C] [--max-minutes M] [--resume] [--max-clips N] [--skip-prepare]
The budget is --epochs epochs of --epoch-samples samples (default: the training set), so the
same command on the same machine gives the same weights, bit for bit (train.py).
--smoke: 2 clips, 1 epoch, a 32-wide network (a fast end-to-end check, used by ctest).
--dest defaults to OUT/network; pass --dest assets/network to ship the result.
Each stage is also a script of its own (prepare.py, train.py, export.py, report.py).
"""
import argparse
import os
import sys
import time

import threads


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join("..", "shared", "mocap", "cmu"))
    ap.add_argument("--out", default=os.path.join("build", "train"))
    ap.add_argument("--dest", default=None)
    ap.add_argument("--skel", default=None)
    ap.add_argument("--epochs", type=int, default=36)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--cycles", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-minutes", type=float, default=0.0)
    ap.add_argument("--budget-minutes", type=float, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--epoch-samples", type=int, default=0)
    ap.add_argument("--max-clips", type=int, default=0)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--skip-prepare", action="store_true")
    a = ap.parse_args(argv)
    if a.budget_minutes is not None:
        print("strider-train: error: --budget-minutes is gone: a budget in minutes made the amount of training "
              "depend on the machine's speed; give --epochs N --epoch-samples N (the shipped network's 44 "
              "minutes were 79 epochs of 124,000 samples)", file=sys.stderr)
        return 2
    if a.threads < 1:
        print(f"strider-train: error: --threads must be 1 or more, got {a.threads}", file=sys.stderr)
        return 2
    # Before numpy and torch load: they size their thread pools once.
    threads.limit_env(a.threads)
    import bvh
    import export as EX
    import prepare
    import report
    import train
    if a.smoke:
        a.max_clips, a.epochs, a.hidden, a.batch = 2, 1, 32, 64
    dest = a.dest or os.path.join(a.out, "network")
    t0 = time.time()
    try:
        if not (a.skip_prepare and os.path.exists(os.path.join(a.out, "db.npz"))):
            prepare.build(a.data, a.out, a.skel or prepare.DEFAULT_SKEL, a.max_clips)
        train.train(a.out, a.epochs, a.hidden, a.batch, a.lr, a.cycles, a.threads, a.max_minutes, a.resume,
                    seed=a.seed, epoch_samples=a.epoch_samples)
        EX.export(a.out, dest)
        report.report(a.out, dest)
    except (bvh.BvhError, EX.FormatError) as e:
        print(f"strider-train: error: {e}", file=sys.stderr)
        return 1
    print(f"strider-train: pipeline done in {time.time() - t0:.0f} s -> {dest}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
