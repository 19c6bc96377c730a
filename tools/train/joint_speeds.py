"""How fast the capture itself moves: the evidence behind the smoothness goals of
docs/MOTION_EVAL.md.

Usage: joint_speeds.py [--data DIR] [--skel FILE] [--json OUT.json] [--max-clips N]
Loads every labelled clip of DIR/manifest.csv as the training pipeline does (60 fps, floor at
y = 0; mirrors add nothing here, they are the same speeds) and measures, per 1/60 s frame and per
manifest category, the quantities `strider eval motion` measures on the displayed pose:
  - every joint's rotation change relative to its parent (local), degrees;
  - knee (lShin, rShin) and elbow (lForeArm, rForeArm) flexion change, degrees: the angle
    between the parent bone and the joint's own bone;
  - heel (foot joint) and toe (end site) displacement and acceleration (|p - 2 p' + p''|), cm.
Prints the 99th and 99.9th percentiles and the maximum of each per category, and over all
clips; --json writes the same numbers. Most clips are 24 fps: resampled to 60 fps (slerp),
each 24 fps frame's change is spread evenly over 2.5 frames, so these are the capture's
angular speeds expressed per 60 Hz step, as the network learnt them.
Does NOT: label, fit terrain, build features or train.
"""
import argparse
import json
import os
import sys

import numpy as np

import motion as M
import prepare
import quat

HINGES = ("lShin", "rShin", "lForeArm", "rForeArm")


def angle_deg(a, b):
    """Angle (deg) of the rotation taking unit quaternions a to b (arrays ..., 4)."""
    d = np.abs(np.sum(a * b, axis=-1))
    return np.degrees(2.0 * np.arccos(np.clip(d, 0.0, 1.0)))


def flexion_deg(gpos, parents, j):
    """Flexion at joint j over all frames: angle between (j - parent) and (child - j)."""
    child = int(np.flatnonzero(np.asarray(parents) == j)[0])
    u = gpos[:, j] - gpos[:, parents[j]]
    v = gpos[:, child] - gpos[:, j]
    c = np.sum(u * v, axis=1) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))
    return np.degrees(np.arccos(np.clip(c, -1.0, 1.0)))


def clip_speeds(m):
    """Per-frame changes of one Motion: (local rotation (F-1, J), flexion (F-1, 4),
    point steps (F-1, 4), point accelerations (F-2, 4)); points are heel, toe of each foot."""
    clip = m.clip
    rot = angle_deg(clip.rot[:-1], clip.rot[1:])
    flex = np.stack([np.abs(np.diff(flexion_deg(m.gpos, clip.parents, clip.names.index(h)))) for h in HINGES],
                    axis=1)
    lt, rt = M.toe_end_indices(clip.end_names)
    pts = np.stack([m.gpos[:, clip.names.index("lFoot")], m.endpos[:, lt], m.gpos[:, clip.names.index("rFoot")],
                    m.endpos[:, rt]], axis=1)
    step = np.linalg.norm(np.diff(pts, axis=0), axis=2)
    acc = np.linalg.norm(pts[2:] - 2.0 * pts[1:-1] + pts[:-2], axis=2)
    return rot, flex, step, acc


def summary(x):
    x = np.asarray(x).ravel()
    if x.size == 0:
        return {"p99": 0.0, "p999": 0.0, "max": 0.0, "n": 0}
    return {"p99": float(np.percentile(x, 99.0)), "p999": float(np.percentile(x, 99.9)), "max": float(x.max()),
            "n": int(x.size)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join("..", "shared", "mocap", "cmu"))
    ap.add_argument("--skel", default=prepare.DEFAULT_SKEL)
    ap.add_argument("--json", default=None)
    ap.add_argument("--max-clips", type=int, default=0)
    a = ap.parse_args(argv)
    import bvh
    try:
        sk = bvh.read_skel(a.skel)
        entries = M.read_manifest(a.data)
    except (bvh.BvhError, OSError) as e:
        print(f"strider-train: error: {e}", file=sys.stderr)
        return 1
    if a.max_clips:
        entries = entries[:a.max_clips]
    per = {}
    names = None
    for row in entries:
        m = M.load_clip(os.path.join(a.data, row["file"]), sk, row["category"])
        if m is None:
            continue
        names = m.clip.names
        rot, flex, step, acc = clip_speeds(m)
        for cat in (row["category"], "all"):
            d = per.setdefault(cat, {"rot": [], "flex_knee": [], "flex_elbow": [], "step": [], "acc": [], "clips": 0})
            d["rot"].append(rot)
            d["flex_knee"].append(flex[:, :2])
            d["flex_elbow"].append(flex[:, 2:])
            d["step"].append(step)
            d["acc"].append(acc)
            d["clips"] += 1
    if not per:
        print("strider-train: error: no clip could be loaded", file=sys.stderr)
        return 1
    out = {}
    print(f"{'category':16s} {'clips':>5s} | {'local rotation, worst joint p99.9 / max (deg)':>46s} | "
          f"{'knee flex p99.9 / max':>22s} | {'elbow flex p99.9 / max':>22s} | {'heel/toe step p99.9 / max (cm)':>30s}")
    for cat in sorted(per, key=lambda c: (c == "all", c)):
        d = per[cat]
        rot = np.concatenate(d["rot"])
        joints = {names[j]: summary(rot[:, j]) for j in range(rot.shape[1])}
        worst = max(joints, key=lambda j: joints[j]["p999"])
        rec = {"clips": d["clips"], "frames": int(rot.shape[0]), "local_rotation_deg": joints,
               "knee_flexion_deg": summary(np.concatenate(d["flex_knee"])),
               "elbow_flexion_deg": summary(np.concatenate(d["flex_elbow"])),
               "point_step_cm": summary(np.concatenate(d["step"])),
               "point_accel_cm": summary(np.concatenate(d["acc"]))}
        out[cat] = rec
        rmax = max(joints.values(), key=lambda s: s["max"])
        rmax_name = max(joints, key=lambda j: joints[j]["max"])
        k, e, s = rec["knee_flexion_deg"], rec["elbow_flexion_deg"], rec["point_step_cm"]
        print(f"{cat:16s} {d['clips']:5d} | {worst:>9s} {joints[worst]['p999']:5.1f} / {rmax_name:>9s} "
              f"{rmax['max']:5.1f}             | {k['p999']:9.1f} / {k['max']:5.1f}     | "
              f"{e['p999']:9.1f} / {e['max']:5.1f}     | {s['p999']:15.1f} / {s['max']:5.1f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
