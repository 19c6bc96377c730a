"""Stage 4: evaluate the exported network on held-out clips and draw the report figures.

Usage: report.py --out build/train --dest assets/network
Reads DEST/pfnn.bin (so the numbers describe exactly the shipped file), OUT/db.npz and
OUT/history.json; writes DEST/metrics.json, DEST/loss.png and DEST/stick.png.
Metrics are computed on raw (de-normalised) outputs of the validation clips, with the
network in eval mode (no dropout), phase from the labels. A "mean pose" baseline (predict the
training mean of every output) is reported next to each number for scale.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import export as EX  # noqa: E402
import features as FT  # noqa: E402


def rot6_to_matrix(r):
    """(...,6) -> (...,3,3) by Gram-Schmidt; columns are the images of +X, +Y, +Z."""
    a = r[..., 0:3] / np.maximum(np.linalg.norm(r[..., 0:3], axis=-1, keepdims=True), 1e-9)
    b = r[..., 3:6] - np.sum(a * r[..., 3:6], axis=-1, keepdims=True) * a
    b /= np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-9)
    c = np.cross(a, b)
    return np.stack([a, b, c], axis=-1)


def predict(d, X, P, batch=4096):
    net = EX.net_from_file(d)
    out = []
    with torch.no_grad():
        for a in range(0, len(X), batch):
            x = torch.from_numpy(((X[a:a + batch] - d["Xmean"]) / d["Xstd"]).astype(np.float32))
            p = torch.from_numpy(P[a:a + batch].astype(np.float32))
            out.append(net(x, p).numpy() * d["Ystd"] + d["Ymean"])
    return np.concatenate(out) if out else np.zeros((0, d["n_out"]))


def group_errors(Yp, Y):
    nj = FT.NJ
    e = {}
    fps = 60.0
    e["root_vel_cm_s"] = float(np.mean(np.linalg.norm(Yp[:, 0:2] - Y[:, 0:2], axis=1)) * fps)
    e["root_angvel_deg_s"] = float(np.mean(np.abs(Yp[:, 2] - Y[:, 2])) * fps * 180 / np.pi)
    e["dphase_rad_s"] = float(np.mean(np.abs(Yp[:, 3] - Y[:, 3])) * fps)
    e["contact_accuracy"] = float(np.mean((Yp[:, 4:8] > 0.5) == (Y[:, 4:8] > 0.5)))
    e["contact_accuracy_per_point"] = [float(v) for v in np.mean((Yp[:, 4:8] > 0.5) == (Y[:, 4:8] > 0.5), axis=0)]
    tp = np.stack([Yp[:, 8:14], Yp[:, 14:20]], -1) - np.stack([Y[:, 8:14], Y[:, 14:20]], -1)
    e["future_traj_pos_cm"] = float(np.mean(np.linalg.norm(tp, axis=-1)))
    td = np.stack([Yp[:, 20:26], Yp[:, 26:32]], -1)
    tt = np.stack([Y[:, 20:26], Y[:, 26:32]], -1)
    ang = np.arctan2(td[..., 0] * tt[..., 1] - td[..., 1] * tt[..., 0], np.sum(td * tt, -1))
    e["future_traj_dir_deg"] = float(np.mean(np.abs(ang)) * 180 / np.pi)
    jp = (Yp[:, FT.OY_JPOS:FT.OY_JVEL] - Y[:, FT.OY_JPOS:FT.OY_JVEL]).reshape(-1, nj, 3)
    e["joint_pos_cm"] = float(np.mean(np.linalg.norm(jp, axis=-1)))
    e["joint_pos_cm_per_joint"] = [float(v) for v in np.mean(np.linalg.norm(jp, axis=-1), axis=0)]
    jv = (Yp[:, FT.OY_JVEL:FT.OY_JROT] - Y[:, FT.OY_JVEL:FT.OY_JROT]).reshape(-1, nj, 3)
    e["joint_vel_cm_s"] = float(np.mean(np.linalg.norm(jv, axis=-1)) * fps)
    Rp = rot6_to_matrix(Yp[:, FT.OY_JROT:].reshape(-1, nj, 6))
    Rt = rot6_to_matrix(Y[:, FT.OY_JROT:].reshape(-1, nj, 6))
    tr = np.einsum("...ji,...ji->...", Rp, Rt)
    e["joint_rot_deg"] = float(np.mean(np.degrees(np.arccos(np.clip((tr - 1) / 2, -1, 1)))))
    return e


def plot_loss(hist, path):
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(hist["epoch"], hist["train_loss"], "o-", label="train (dropout on)")
    ax.plot(hist["epoch"], hist["val_loss"], "o-", label="validation clips")
    ax.set_xlabel("epoch")
    ax.set_ylabel("MSE of normalised outputs")
    ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=70)
    plt.close(fig)


def plot_sticks(parents, Yp, Y, titles, path):
    n = len(Yp)
    fig, ax = plt.subplots(1, n, figsize=(2.6 * n, 4.2))
    ax = np.atleast_1d(ax)
    for k in range(n):
        for pose, col, dx, lab in ((Y[k], "k", -45.0, "mocap"), (Yp[k], "tab:red", 45.0, "network")):
            p = pose[FT.OY_JPOS:FT.OY_JVEL].reshape(-1, 3)
            for j, par in enumerate(parents):
                if par >= 0:
                    ax[k].plot([p[j, 2] + dx, p[par, 2] + dx], [p[j, 1], p[par, 1]], col, lw=2)
            ax[k].plot([], [], col, label=lab)
        ax[k].set_aspect("equal")
        ax[k].set_xlim(-110, 110)
        ax[k].set_ylim(-5, 185)
        ax[k].set_title(titles[k], fontsize=8)
        ax[k].set_xticks([])
    ax[0].legend(fontsize=7, loc="upper left")
    fig.suptitle("held-out frames, side view (z forward, y up, cm): mocap left, network right", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=70)
    plt.close(fig)


def report(out, dest, note=""):
    d = EX.read_pfnn(os.path.join(dest, "pfnn.bin"))
    z = np.load(os.path.join(out, "db.npz"))
    val = z["val"]
    X, Y, P = z["X"][val], z["Y"][val], z["P"][val]
    Yp = predict(d, X, P)
    Ybase = np.broadcast_to(z["Ymean"], Y.shape)
    m = {"note": note, "val_samples": int(len(X)),
         "val_clips": int(len(set(z["clip_names"][np.unique(z["clip"][val])]))),
         "network": group_errors(Yp, Y), "mean_output_baseline": group_errors(np.array(Ybase), Y)}
    cats = z["clip_cats"][z["clip"][val]]
    per_cat = {}
    for c in sorted(set(cats)):
        s = cats == c
        jp = (Yp[s, FT.OY_JPOS:FT.OY_JVEL] - Y[s, FT.OY_JPOS:FT.OY_JVEL]).reshape(-1, FT.NJ, 3)
        per_cat[str(c)] = {"samples": int(s.sum()), "joint_pos_cm": float(np.mean(np.linalg.norm(jp, axis=-1))),
                           "contact_accuracy": float(np.mean((Yp[s, 4:8] > 0.5) == (Y[s, 4:8] > 0.5)))}
    m["per_category"] = per_cat
    hist = json.load(open(os.path.join(out, "history.json")))
    m["epochs_run"] = len(hist["epoch"])
    m["final_train_loss"] = hist["train_loss"][-1] if hist["train_loss"] else None
    m["best_val_loss"] = min(hist["val_loss"]) if hist["val_loss"] else None
    with open(os.path.join(dest, "metrics.json"), "w") as f:
        json.dump(m, f, indent=1)
    plot_loss(hist, os.path.join(dest, "loss.png"))
    prep = json.load(open(os.path.join(out, "prepare.json")))
    import bvh
    sk = bvh.read_skel(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "assets", "skeleton", "cmu21.skel"))
    assert prep["joints"] == sk.names
    rng = np.random.default_rng(5)
    pick = np.sort(rng.choice(len(X), size=min(4, len(X)), replace=False)) if len(X) else []
    clip_names = z["clip_names"][z["clip"][val]]
    frames = z["frame"][val]
    titles = [f"{clip_names[i]} f{frames[i]} ({cats[i]})" for i in pick]
    if len(pick):
        plot_sticks(sk.parents, Yp[pick], Y[pick], titles, os.path.join(dest, "stick.png"))
    n = m["network"]
    b = m["mean_output_baseline"]
    print(f"strider-train: validation ({m['val_samples']} samples, {m['val_clips']} clips): joint pos "
          f"{n['joint_pos_cm']:.2f} cm (mean-pose baseline {b['joint_pos_cm']:.2f}), rot {n['joint_rot_deg']:.1f} deg, "
          f"contacts {100 * n['contact_accuracy']:.1f}% (baseline {100 * b['contact_accuracy']:.1f}%), "
          f"root vel {n['root_vel_cm_s']:.1f} cm/s", flush=True)
    return m


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join("build", "train"))
    ap.add_argument("--dest", default=os.path.join("assets", "network"))
    ap.add_argument("--note", default="")
    a = ap.parse_args(argv)
    try:
        report(a.out, a.dest, a.note)
    except EX.FormatError as e:
        print(f"strider-train: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
