"""Loading and cleaning of the motion database: BVH -> 60 fps, floor-normalised, mirrored clips.

Call order: sk = bvh.read_skel(...); entries = read_manifest(data_dir);
  m = load_clip(path, sk, category) (None + one logged line if the clip is rejected);
  mm = mirror(m) gives the left/right-swapped copy.
A Motion holds the 60 fps local pose (a bvh.Clip) plus global joint positions/rotations and
end sites from forward kinematics. Units: centimetres, seconds, Y up, +Z forward at rest.
Nothing here labels contacts or phase (labels.py) or builds features (features.py).
"""
import csv
import os
import sys

import numpy as np

import bvh
import quat

FPS = 60.0
# Floor = this percentile of the per-frame lowest toe-tip height, robust to the odd toe dip.
FLOOR_PERCENTILE = 5.0
# A root that moves faster than this between two frames is a capture glitch (sprinting is ~9 m/s).
MAX_ROOT_SPEED_CM_S = 1500.0
# A clip whose resampled length is below this cannot give a single training sample.
MIN_FRAMES_60 = 60


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Motion:
    def __init__(self, clip, name, category, mirrored):
        self.clip = clip
        self.name = name
        self.category = category
        self.mirrored = mirrored
        self.gpos, self.grot, self.endpos = bvh.fk(clip)

    @property
    def frames(self):
        return self.clip.frames


def read_manifest(data_dir):
    """Return a list of dicts (file, cmu_clip, category, ...) for labelled clips only."""
    path = os.path.join(data_dir, "manifest.csv")
    out = []
    with open(path, newline="") as f:
        for ln, row in enumerate(csv.DictReader(f), start=2):
            if "file" not in row or "category" not in row:
                raise bvh.BvhError(f"{path}:{ln}: missing 'file' or 'category' column")
            if row["category"]:
                out.append(row)
    return out


def resample(clip, fps=FPS):
    """Resample to fps: slerp local rotations, lerp local translations. Returns a new Clip."""
    src_dt = clip.frame_time
    # Headers round the frame time (0.0416667 for 24 fps): snap to the integer rate it stands for,
    # so resampled frames land exactly on source frames where the rates allow.
    if abs(1.0 / src_dt - round(1.0 / src_dt)) < 1e-3 * (1.0 / src_dt):
        src_dt = 1.0 / round(1.0 / src_dt)
    n = clip.frames
    dur = (n - 1) * src_dt
    if abs(src_dt * fps - 1.0) < 1e-3:
        out = clip.copy()
        out.frame_time = 1.0 / fps
        return out
    m = int(np.floor(dur * fps + 1e-6)) + 1
    t = np.arange(m) / fps / src_dt
    i0 = np.clip(np.floor(t).astype(np.int64), 0, n - 1)
    i1 = np.minimum(i0 + 1, n - 1)
    a = t - i0
    out = clip.copy()
    out.frame_time = 1.0 / fps
    out.rot = quat.slerp(clip.rot[i0], clip.rot[i1], np.repeat(a[:, None], clip.rot.shape[1], axis=1))
    out.trans = clip.trans[i0] * (1.0 - a)[:, None, None] + clip.trans[i1] * a[:, None, None]
    return out


def mirror_map(names):
    """Index of each joint's left/right counterpart (itself for centre joints)."""
    out = []
    for n in names:
        if n[:1] == "l" and n[1:2].isupper() and ("r" + n[1:]) in names:
            out.append(names.index("r" + n[1:]))
        elif n[:1] == "r" and n[1:2].isupper() and ("l" + n[1:]) in names:
            out.append(names.index("l" + n[1:]))
        else:
            out.append(names.index(n))
    return np.array(out, dtype=np.int64)


def mirror_clip(clip):
    """Mirror across the YZ plane (x -> -x) and swap left/right joints. Exact involution."""
    out = clip.copy()
    jm = mirror_map(clip.names)
    em = mirror_map(clip.end_names)
    # Reflection M = diag(-1,1,1): M R M for a rotation q=(w,x,y,z) is (w,x,-y,-z).
    r = clip.rot[:, jm].copy()
    r[..., 2] *= -1.0
    r[..., 3] *= -1.0
    t = clip.trans[:, jm].copy()
    t[..., 0] *= -1.0
    out.rot = r
    out.trans = t
    out.offsets = clip.offsets[jm].copy()
    out.offsets[:, 0] *= -1.0
    out.end_offsets = clip.end_offsets[em].copy()
    out.end_offsets[:, 0] *= -1.0
    return out


def mirror(m):
    return Motion(mirror_clip(m.clip), m.name, m.category, not m.mirrored)


def toe_end_indices(names):
    return names.index("lFoot_end"), names.index("rFoot_end")


def load_clip(path, sk, category, name=None):
    """Parse, check, resample and floor-normalise one clip. Returns Motion or None (logged)."""
    try:
        clip = bvh.read_bvh(path)
        bvh.check_against_skel(clip, sk)
    except bvh.BvhError as e:
        log(f"strider-train: skip: {e}")
        return None
    clip = resample(clip)
    if clip.frames < MIN_FRAMES_60:
        log(f"strider-train: skip: {path}:0: too short ({clip.frames} frames at 60 fps, need {MIN_FRAMES_60})")
        return None
    root = clip.trans[:, 0]
    step = np.linalg.norm(np.diff(root, axis=0), axis=1) * FPS
    if step.max() > MAX_ROOT_SPEED_CM_S:
        f = int(np.argmax(step))
        log(f"strider-train: skip: {path}:0: root glitch, speed {step[f]:.0f} cm/s at 60 fps frame {f}")
        return None
    _, _, endpos = bvh.fk(clip)
    lt, rt = toe_end_indices(clip.end_names)
    low = np.minimum(endpos[:, lt, 1], endpos[:, rt, 1])
    floor = np.percentile(low, FLOOR_PERCENTILE)
    clip.trans[:, 0, 1] -= floor
    if name is None:
        name = os.path.splitext(os.path.basename(path))[0]
    return Motion(clip, name, category, False)
