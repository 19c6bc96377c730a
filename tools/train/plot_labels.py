"""Plot the saved labels of one clip against its motion (foot heights, hip speed, head height).

Usage: plot_labels.py --labels build/train/labels.npz --clip 105_01 [--mirror] --out clip.png
Reads only labels.npz (written by prepare.py) and the BVH path it came from; writes one PNG.
"""
import argparse
import os
import sys

import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import labels as L  # noqa: E402


def plot(lab_path, clip, mirror, out, data=None, skel=None):
    z = np.load(lab_path)
    key = clip + ("_mirror" if mirror else "")
    if f"{key}/phase" not in z:
        avail = sorted({k.split("/")[0] for k in z.files})
        raise SystemExit(f"strider-train: error: {lab_path}: no clip '{key}' (have {', '.join(avail[:10])} ...)")
    ph, c, g, hip = (z[f"{key}/{k}"] for k in ("phase", "contacts", "gait", "hip"))
    t = np.arange(len(ph)) / L.FPS
    fig, ax = plt.subplots(4, 1, figsize=(10, 9), sharex=True)
    ax[0].plot(t, ph, "k.", ms=2)
    ax[0].set_ylabel("phase (rad)")
    for k, name in enumerate(L.CONTACTS):
        ax[1].fill_between(t, k + 0.1, k + 0.1 + 0.8 * c[:, k], step="mid", alpha=0.7)
    ax[1].set_yticks(np.arange(4) + 0.5)
    ax[1].set_yticklabels(L.CONTACTS)
    ax[1].set_ylabel("contacts")
    ax[2].stackplot(t, g.T, labels=L.GAITS)
    ax[2].legend(loc="upper right", fontsize=7, ncol=6)
    ax[2].set_ylabel("gait")
    spd = L.labels_speed(hip[:, [0, 2]].astype(np.float64))
    ax[3].plot(t, spd, label="hip speed (cm/s)")
    ax[3].plot(t, hip[:, 1], label="hip height (cm)")
    if f"{key}/root_height" in z:
        ax[3].plot(t, z[f"{key}/root_height"], label="terrain under root (cm)")
    ax[3].legend(fontsize=7)
    ax[3].set_xlabel("time (s)")
    fig.suptitle(f"{key} ({z[f'{key}/category']})")
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", default=os.path.join("build", "train", "labels.npz"))
    ap.add_argument("--clip", required=True)
    ap.add_argument("--mirror", action="store_true")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    plot(a.labels, a.clip, a.mirror, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
