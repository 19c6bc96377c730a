"""Stage 1 of the pipeline: motion database -> labels.npz + db.npz (features, split, normalisation).

Usage: prepare.py --data DIR --out DIR [--skel FILE] [--max-clips N]
Loads every labelled clip of the manifest (train/ and extra_60fps/), rejects broken ones with a
logged one-line reason, resamples to 60 fps, normalises the floor, adds the mirrored copy,
labels contacts/phase/gait, fits terrain and builds features. The validation split is by
clip (a clip and its mirror stay together), balanced over categories.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

import bvh
import features as FT
import labels as L
import motion as M
import terrain as T

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SKEL = os.path.normpath(os.path.join(HERE, "..", "..", "assets", "skeleton", "cmu21.skel"))


def load_all(data, skel_path, max_clips=0, log=M.log):
    sk = bvh.read_skel(skel_path)
    entries = M.read_manifest(data)
    if max_clips > 0:
        entries = entries[:max_clips]
    motions = []
    rejected = []
    for e in entries:
        m = M.load_clip(os.path.join(data, e["file"]), sk, e["category"], name=e["cmu_clip"] or None)
        if m is None:
            rejected.append(e["file"])
            continue
        motions.append(m)
        motions.append(M.mirror(m))
    log(f"strider-train: loaded {len(motions) // 2} clips (+ mirrors), rejected {len(rejected)}")
    return sk, motions, rejected


def build(data, out, skel_path, max_clips=0, seed=1234, log=M.log):
    t0 = time.time()
    os.makedirs(out, exist_ok=True)
    sk, motions, rejected = load_all(data, skel_path, max_clips, log)
    if not motions:
        raise SystemExit("strider-train: error: no usable clips in " + data)
    db = T.make_patch_db(seed)
    rng = np.random.default_rng(seed)
    labs = []
    Xs, Ys, Ps, clip_of, frame_of = [], [], [], [], []
    rms = []
    for ci, m in enumerate(motions):
        lab = L.label_motion(m)
        fits = T.fit_clip(m, lab["contacts"], db, rng)
        rms += [r for (_, _, _, r) in fits]
        rf = FT.root_frames(m, fits)
        lab["root_height"] = rf.height
        labs.append(lab)
        X, Y, P, fr = FT.clip_features(m, lab, rf, fits)
        if not np.all(np.isfinite(X)) or not np.all(np.isfinite(Y)):
            log(f"strider-train: skip: {m.clip.path}:0: non-finite features")
            continue
        Xs.append(X)
        Ys.append(Y)
        Ps.append(P)
        clip_of.append(np.full(len(P), ci))
        frame_of.append(fr)
    L.save_labels(os.path.join(out, "labels.npz"), motions, labs)
    X = np.concatenate(Xs).astype(np.float32)
    Y = np.concatenate(Ys).astype(np.float32)
    P = np.concatenate(Ps).astype(np.float32)
    clip_of = np.concatenate(clip_of)
    frame_of = np.concatenate(frame_of)
    names = [m.name for m in motions]
    cats = [m.category for m in motions]
    val_names = FT.split_by_clip(names, cats)
    is_val_clip = np.array([n in val_names for n in names])
    val = is_val_clip[clip_of]
    Xm, Xsd, Ym, Ysd = FT.normalisation(X[~val].astype(np.float64), Y[~val].astype(np.float64))
    np.savez(os.path.join(out, "db.npz"), X=X, Y=Y, P=P, clip=clip_of, frame=frame_of, val=val,
             Xmean=Xm.astype(np.float32), Xstd=Xsd.astype(np.float32),
             Ymean=Ym.astype(np.float32), Ystd=Ysd.astype(np.float32),
             clip_names=np.array(names), clip_cats=np.array(cats),
             clip_mirrored=np.array([m.mirrored for m in motions]),
             clip_paths=np.array([m.clip.path for m in motions]))
    info = {
        "data": os.path.abspath(data), "clips_loaded": len(motions) // 2,
        "clips_rejected": rejected, "motions_with_mirrors": len(motions),
        "samples": int(len(P)), "train_samples": int((~val).sum()), "val_samples": int(val.sum()),
        "val_clips": sorted(val_names), "joints": sk.names,
        "terrain_fit_rms_cm_median": float(np.median(rms)) if rms else 0.0,
        "terrain_fit_rms_cm_p95": float(np.percentile(rms, 95)) if rms else 0.0,
        "seconds": round(time.time() - t0, 1),
    }
    with open(os.path.join(out, "prepare.json"), "w") as f:
        json.dump(info, f, indent=1)
    log(f"strider-train: {info['samples']} samples ({info['train_samples']} train, "
        f"{info['val_samples']} val from {len(val_names)} clips), terrain rms median "
        f"{info['terrain_fit_rms_cm_median']:.2f} cm, {info['seconds']} s")
    return info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join("..", "shared", "mocap", "cmu"))
    ap.add_argument("--out", default=os.path.join("build", "train"))
    ap.add_argument("--skel", default=DEFAULT_SKEL)
    ap.add_argument("--max-clips", type=int, default=0)
    a = ap.parse_args(argv)
    try:
        build(a.data, a.out, a.skel, a.max_clips)
    except bvh.BvhError as e:
        print(f"strider-train: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
