"""Network features (inputs X, outputs Y, phase P) from labelled, terrain-fitted 60 fps motions.

Call order: rf = root_frames(m, fits); X, Y, P, frames = clip_features(m, lab, rf, fits);
then split_by_clip(...) and normalisation(X, Y) on the training part.
The exact meaning of every index is listed in docs/FORMATS_PFNN.md and built by input_layout()
and output_layout() below, which the exporter writes into the sidecar. Units: cm, radians,
per-frame quantities are per 1/60 s. Nothing here trains or exports.
"""
import numpy as np

import labels as L
import quat
import terrain as T

TRAJ_POINTS = 12
TRAJ_STEP = 10                 # frames between trajectory points at 60 fps
TRAJ_PAST = 6                  # points at offsets -60..-10; point 6 is the current frame
FUTURE_POINTS = 6              # output points at next frame + 10..60 frames
TERRAIN_SIDE_CM = 25.0
FORWARD_SIGMA = 20.0           # frames; smoothing of the facing direction (paper: 20)
MARGIN = 20                    # frames of real data required on each side of a sample
NJ = 21
NGAIT = len(L.GAITS)

# Input layout offsets.
IX_POS_X, IX_POS_Z, IX_DIR_X, IX_DIR_Z = 0, 12, 24, 36
IX_GAIT = 48
IX_H_L, IX_H_C, IX_H_R = 120, 132, 144
IX_JPOS = 156
IX_JVEL = IX_JPOS + NJ * 3
N_IN = IX_JVEL + NJ * 3
# Output layout offsets.
OY_RVEL_X, OY_RVEL_Z, OY_RANG, OY_DPHASE, OY_CONTACT = 0, 1, 2, 3, 4
OY_TPOS_X, OY_TPOS_Z, OY_TDIR_X, OY_TDIR_Z = 8, 14, 20, 26
OY_JPOS = 32
OY_JVEL = OY_JPOS + NJ * 3
OY_JROT = OY_JVEL + NJ * 3
N_OUT = OY_JROT + NJ * 6


def input_groups():
    """(name, start, end, std_scale) per input group; scale divides the group std (paper)."""
    return [("traj_pos", 0, 24, 1.0), ("traj_dir", 24, 48, 1.0), ("gait", 48, 120, 1.0),
            ("terrain", 120, 156, 1.0), ("joint_pos", IX_JPOS, IX_JVEL, 0.1),
            ("joint_vel", IX_JVEL, N_IN, 0.1)]


def output_groups():
    return [("root_vel", 0, 2), ("root_angvel", 2, 3), ("dphase", 3, 4), ("contacts", 4, 8),
            ("traj_pos", 8, 20), ("traj_dir", 20, 32), ("joint_pos", OY_JPOS, OY_JVEL),
            ("joint_vel", OY_JVEL, OY_JROT), ("joint_rot", OY_JROT, N_OUT)]


def input_layout(joints):
    n = []
    for ax in ("pos_x", "pos_z", "dir_x", "dir_z"):
        n += [f"traj{j}_{ax}" for j in range(TRAJ_POINTS)]
    for j in range(TRAJ_POINTS):
        n += [f"traj{j}_gait_{g}" for g in L.GAITS]
    for side in ("left", "centre", "right"):
        n += [f"traj{j}_height_{side}" for j in range(TRAJ_POINTS)]
    for kind in ("prev_pos", "prev_vel"):
        for name in joints:
            n += [f"{name}_{kind}_{a}" for a in "xyz"]
    assert len(n) == N_IN
    return n


def output_layout(joints):
    n = ["root_vel_x", "root_vel_z", "root_angvel", "dphase"] + [f"contact_{c}" for c in L.CONTACTS]
    for ax in ("pos_x", "pos_z", "dir_x", "dir_z"):
        n += [f"future{k + 1}_{ax}" for k in range(FUTURE_POINTS)]
    for kind in ("pos", "vel"):
        for name in joints:
            n += [f"{name}_{kind}_{a}" for a in "xyz"]
    for name in joints:
        n += [f"{name}_rot_{c}" for c in ("ax_x", "ax_y", "ax_z", "ay_x", "ay_y", "ay_z")]
    assert len(n) == N_OUT
    return n


class RootFrames:
    """Per-frame character root: xz (F,2), yaw (F,), forward dir (F,2), height (F,)."""


def root_frames(m, fits):
    names = m.clip.names
    g = m.gpos
    across = (g[:, names.index("lShldr")] - g[:, names.index("rShldr")]
              + g[:, names.index("lThigh")] - g[:, names.index("rThigh")])
    fwd = np.stack([-across[:, 2], across[:, 0]], axis=1)
    fwd = L.gaussian_filter1d(fwd, FORWARD_SIGMA)
    fwd /= np.maximum(np.linalg.norm(fwd, axis=1, keepdims=True), 1e-9)
    rf = RootFrames()
    rf.xz = g[:, 0][:, [0, 2]].copy()
    rf.dir = fwd
    # Yaw about +Y that maps +Z to the facing direction: dir = (sin yaw, cos yaw).
    rf.yaw = np.arctan2(fwd[:, 0], fwd[:, 1])
    idx = T.frame_terrains(fits, m.frames)
    rf.height = np.zeros(m.frames)
    for k, (f0, f1, t, _) in enumerate(fits):
        rf.height[f0:f1] = t.height(rf.xz[f0:f1])
    rf.terrain_idx = idx
    return rf


def _rot2(yaw, v):
    """Rotate (...,2) xz vectors by -yaw (world -> root frame). yaw broadcasts."""
    c, s = np.cos(yaw), np.sin(yaw)
    # R(yaw) maps root +Z to (sin, cos); its inverse applied to (x, z):
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1]], axis=-1)


def _traj_at(rf, gait, frames):
    """Root xz, dir and gait at (possibly out-of-range) frames, extrapolating at constant velocity."""
    F = rf.xz.shape[0]
    k = min(10, F - 1)
    v_start = (rf.xz[k] - rf.xz[0]) / k
    v_end = (rf.xz[-1] - rf.xz[-1 - k]) / k
    fc = np.clip(frames, 0, F - 1)
    xz = rf.xz[fc].copy()
    lo = frames < 0
    hi = frames > F - 1
    xz[lo] += v_start * (frames[lo] - 0)[..., None]
    xz[hi] += v_end * (frames[hi] - (F - 1))[..., None]
    return xz, rf.dir[fc], gait[fc]


def local_pose(m, rf):
    """Joint positions, velocities (cm per frame) and 6-D rotations in each frame's root frame."""
    F = m.frames
    root3 = np.stack([rf.xz[:, 0], rf.height, rf.xz[:, 1]], axis=1)
    qinv = quat.from_yaw(-rf.yaw)[:, None]
    pos = quat.rotate(qinv, m.gpos - root3[:, None])
    vel = np.zeros_like(pos)
    vel[1:] = quat.rotate(qinv[1:], m.gpos[1:] - m.gpos[:-1])
    vel[0] = vel[1] if F > 1 else 0.0
    rot = quat.to_matrix(quat.mul(np.broadcast_to(qinv, m.grot.shape), m.grot))
    # 6-D rotation: first column (image of +X) then second column (image of +Y).
    rot6 = np.concatenate([rot[..., :, 0], rot[..., :, 1]], axis=-1)
    return pos, vel, rot6


def clip_features(m, lab, rf, fits):
    """Return X (N,N_IN), Y (N,N_OUT), P (N,) phase, frames (N,) for the usable frames."""
    F = m.frames
    first = max(2, MARGIN)
    last = F - 1 - max(1, MARGIN)
    if last < first:
        return (np.zeros((0, N_IN)), np.zeros((0, N_OUT)), np.zeros(0), np.zeros(0, np.int64))
    fr = np.arange(first, last + 1)
    n = len(fr)
    pos, vel, rot6 = local_pose(m, rf)
    gait = lab["gait"]
    phase = lab["phase"]
    X = np.zeros((n, N_IN))
    Y = np.zeros((n, N_OUT))
    offs = (np.arange(TRAJ_POINTS) - TRAJ_PAST) * TRAJ_STEP
    tf = fr[:, None] + offs[None]
    xz, d, g = _traj_at(rf, gait, tf)
    yaw = rf.yaw[fr][:, None]
    lxz = _rot2(yaw, xz - rf.xz[fr][:, None])
    ld = _rot2(yaw, d)
    X[:, IX_POS_X:IX_POS_X + 12] = lxz[..., 0]
    X[:, IX_POS_Z:IX_POS_Z + 12] = lxz[..., 1]
    X[:, IX_DIR_X:IX_DIR_X + 12] = ld[..., 0]
    X[:, IX_DIR_Z:IX_DIR_Z + 12] = ld[..., 1]
    X[:, IX_GAIT:IX_GAIT + 12 * NGAIT] = g.reshape(n, -1)
    # Left of a direction (dx, dz) is (dz, -dx): facing +Z, the character's left is +X.
    left = np.stack([d[..., 1], -d[..., 0]], axis=-1) * TERRAIN_SIDE_CM
    for col, pts in ((IX_H_L, xz + left), (IX_H_C, xz), (IX_H_R, xz - left)):
        h = np.zeros((n, TRAJ_POINTS))
        for k, (f0, f1, t, _) in enumerate(fits):
            sel = rf.terrain_idx[fr] == k
            if np.any(sel):
                h[sel] = t.height(pts[sel])
        X[:, col:col + 12] = h - rf.height[fr][:, None]
    X[:, IX_JPOS:IX_JVEL] = pos[fr - 1].reshape(n, -1)
    X[:, IX_JVEL:N_IN] = vel[fr - 1].reshape(n, -1)

    dxz = _rot2(yaw[:, 0], rf.xz[fr + 1] - rf.xz[fr])
    Y[:, OY_RVEL_X] = dxz[:, 0]
    Y[:, OY_RVEL_Z] = dxz[:, 1]
    Y[:, OY_RANG] = np.angle(np.exp(1j * (rf.yaw[fr + 1] - rf.yaw[fr])))
    Y[:, OY_DPHASE] = np.mod(phase[fr + 1] - phase[fr], 2 * np.pi)
    Y[:, OY_CONTACT:OY_CONTACT + 4] = lab["contacts"][fr]
    nf = fr + 1
    tf2 = nf[:, None] + (np.arange(1, FUTURE_POINTS + 1) * TRAJ_STEP)[None]
    xz2, d2, _ = _traj_at(rf, gait, tf2)
    yaw2 = rf.yaw[nf][:, None]
    lxz2 = _rot2(yaw2, xz2 - rf.xz[nf][:, None])
    ld2 = _rot2(yaw2, d2)
    Y[:, OY_TPOS_X:OY_TPOS_X + 6] = lxz2[..., 0]
    Y[:, OY_TPOS_Z:OY_TPOS_Z + 6] = lxz2[..., 1]
    Y[:, OY_TDIR_X:OY_TDIR_X + 6] = ld2[..., 0]
    Y[:, OY_TDIR_Z:OY_TDIR_Z + 6] = ld2[..., 1]
    Y[:, OY_JPOS:OY_JVEL] = pos[fr].reshape(n, -1)
    Y[:, OY_JVEL:OY_JROT] = vel[fr].reshape(n, -1)
    Y[:, OY_JROT:N_OUT] = rot6[fr].reshape(n, -1)
    return X, Y, phase[fr].copy(), fr


def split_by_clip(names, categories, frac=0.12, seed=7):
    """Validation clip names: per category round(frac*n) clips (at least 1), seeded."""
    rng = np.random.default_rng(seed)
    val = set()
    for cat in sorted(set(categories)):
        cl = sorted({n for n, c in zip(names, categories) if c == cat})
        k = max(1, int(round(frac * len(cl)))) if len(cl) > 1 else 0
        for i in rng.permutation(len(cl))[:k]:
            val.add(cl[i])
    return val


def normalisation(X, Y):
    """Mean/std with the paper's per-group std sharing and joint input down-weighting."""
    Xm, Ym = X.mean(axis=0), Y.mean(axis=0)
    Xs, Ys = X.std(axis=0), Y.std(axis=0)
    for _, a, b, scale in input_groups():
        Xs[a:b] = Xs[a:b].mean() / scale
    for _, a, b in output_groups():
        Ys[a:b] = Ys[a:b].mean()
    Xs[Xs < 1e-6] = 1.0
    Ys[Ys < 1e-6] = 1.0
    return Xm, Xs, Ym, Ys
