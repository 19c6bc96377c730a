"""Terrain fitting as in Holden et al. 2017 (PFNN), section 4.

Call order: db = make_patch_db(seed); fits = fit_clip(m, contacts, db, rng) -> list of
(first_frame, last_frame_exclusive, Terrain); Terrain.height(xz) gives heights (cm) at (N,2) points.
A patch is a procedural height function (sums of sinusoids; some terraced, some sloped), so it
is defined everywhere. For every window of WINDOW_S seconds the best patch and placement
(rotation + translation) is chosen so that the foot contacts lie on it and the swinging feet do
not go below it; the remaining contact residuals are then removed with a Gaussian RBF
correction, so contacts lie on the terrain. Nothing here builds network features.
"""
import numpy as np

FPS = 60.0
N_PATCHES = 48
PLACEMENTS = 8
WINDOW_S = 4.0
# Height of each foot point above the ground when it is planted (from the idle clips):
# the heel point is the ankle joint, the toe point is the toe tip.
HEEL_ABOVE_GROUND_CM = 5.0
TOE_ABOVE_GROUND_CM = 1.0
# Swinging feet below the terrain cost this much more than contact misfit (per cm^2).
COLLISION_WEIGHT = 4.0
RBF_SIGMA_CM = 60.0
RBF_REG = 1e-2
# Placement translations are drawn within this square (cm) of the patch origin.
PLACE_RANGE_CM = 3000.0


class Patch:
    """h(x,z) = sum_k a_k sin(kx_k x + kz_k z + p_k) + gx x + gz z, optionally terraced."""

    def __init__(self, amp, kx, kz, ph, gx, gz, step):
        self.amp, self.kx, self.kz, self.ph = amp, kx, kz, ph
        self.gx, self.gz, self.step = gx, gz, step

    def eval(self, x, z):
        h = self.gx * x + self.gz * z
        for a, kx, kz, p in zip(self.amp, self.kx, self.kz, self.ph):
            h = h + a * np.sin(kx * x + kz * z + p)
        if self.step > 0:
            # Terraces with a smooth riser: continuous height, flat treads.
            q = h / self.step
            fl = np.floor(q)
            fr = np.clip((q - fl - 0.8) / 0.2, 0.0, 1.0)
            h = self.step * (fl + fr * fr * (3 - 2 * fr))
        return h


def make_patch_db(seed=1234, n=N_PATCHES):
    rng = np.random.default_rng(seed)
    db = []
    for i in range(n):
        kind = i % 4
        k = 5
        wl = rng.uniform(150.0, 1200.0, k)
        ang = rng.uniform(0, 2 * np.pi, k)
        kx = 2 * np.pi / wl * np.cos(ang)
        kz = 2 * np.pi / wl * np.sin(ang)
        ph = rng.uniform(0, 2 * np.pi, k)
        total = rng.uniform(5.0, 60.0)
        amp = rng.dirichlet(np.ones(k)) * total
        gx = gz = 0.0
        step = 0.0
        if kind == 1:
            step = rng.uniform(12.0, 35.0)
            amp = amp * 2.0
        elif kind == 2:
            g = rng.uniform(0.02, 0.15)
            a = rng.uniform(0, 2 * np.pi)
            gx, gz = g * np.cos(a), g * np.sin(a)
            amp = amp * 0.3
        elif kind == 3 and i < 8:
            amp = amp * 0.05
        db.append(Patch(amp, kx, kz, ph, gx, gz, step))
    return db


class Terrain:
    """A fitted terrain: a placed patch plus offset plus RBF correction."""

    def __init__(self, patch, rot, center, shift, offset, rbf_pts, rbf_w):
        self.patch, self.rot, self.center, self.shift = patch, rot, center, shift
        self.offset, self.rbf_pts, self.rbf_w = offset, rbf_pts, rbf_w

    def base(self, xz):
        c, s = np.cos(self.rot), np.sin(self.rot)
        d = xz - self.center
        u = c * d[..., 0] - s * d[..., 1] + self.shift[0]
        v = s * d[..., 0] + c * d[..., 1] + self.shift[1]
        return self.patch.eval(u, v) + self.offset

    def height(self, xz):
        h = self.base(xz)
        if len(self.rbf_pts):
            d2 = np.sum((xz[..., None, :] - self.rbf_pts) ** 2, axis=-1)
            h = h + np.exp(-d2 / RBF_SIGMA_CM ** 2) @ self.rbf_w
        return h


def _foot_points(m, c):
    """Ground-contact estimates: (points (N,3) of planted feet, points (M,3) of swinging feet)."""
    names = m.clip.names
    ends = m.clip.end_names
    src = [(m.gpos[:, names.index("lFoot")], HEEL_ABOVE_GROUND_CM),
           (m.endpos[:, ends.index("lFoot_end")], TOE_ABOVE_GROUND_CM),
           (m.gpos[:, names.index("rFoot")], HEEL_ABOVE_GROUND_CM),
           (m.endpos[:, ends.index("rFoot_end")], TOE_ABOVE_GROUND_CM)]
    return [(p - np.array([0.0, h, 0.0])) for p, h in src]


def _runs(mask):
    """[start, end) of runs of True."""
    d = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.nonzero(d == 1)[0], np.nonzero(d == -1)[0]))


def fit_window(ground, c, f0, f1, db, rng):
    """Fit one window [f0, f1). ground: list of 4 (F,3) foot ground points; c: (F,4) contacts."""
    plant = []
    swing = []
    for k in range(4):
        p = ground[k][f0:f1]
        on = c[f0:f1, k] > 0.5
        # One point per footstep: the mean of each contact run (the RBF needs distinct points).
        for a, b in _runs(on):
            plant.append(p[a:b].mean(axis=0))
        sw = p[~on][::4]
        if len(sw):
            swing.append(sw)
    plant = np.array(plant).reshape(-1, 3)
    swing = np.concatenate(swing) if swing else np.zeros((0, 3))
    allp = np.concatenate([plant, swing]) if len(plant) else swing
    center = allp[:, [0, 2]].mean(axis=0) if len(allp) else np.zeros(2)
    best = (np.inf, None)
    rots = rng.uniform(0, 2 * np.pi, (len(db), PLACEMENTS))
    shifts = rng.uniform(-PLACE_RANGE_CM, PLACE_RANGE_CM, (len(db), PLACEMENTS, 2))
    for pi, patch in enumerate(db):
        for j in range(PLACEMENTS):
            t = Terrain(patch, rots[pi, j], center, shifts[pi, j], 0.0, np.zeros((0, 2)), np.zeros(0))
            if len(plant):
                hp = t.base(plant[:, [0, 2]])
                off = np.mean(plant[:, 1] - hp)
                err = np.mean((plant[:, 1] - hp - off) ** 2)
            else:
                off = 0.0 if not len(swing) else np.min(swing[:, 1] - t.base(swing[:, [0, 2]]))
                err = 0.0
            if len(swing):
                hs = t.base(swing[:, [0, 2]]) + off
                err += COLLISION_WEIGHT * np.mean(np.maximum(0.0, hs - swing[:, 1]) ** 2)
            if err < best[0]:
                best = (err, (patch, rots[pi, j], shifts[pi, j], off))
    patch, rot, shift, off = best[1]
    t = Terrain(patch, rot, center, shift, off, np.zeros((0, 2)), np.zeros(0))
    if len(plant):
        q = plant[:, [0, 2]]
        r = plant[:, 1] - t.base(q)
        d2 = np.sum((q[:, None] - q[None]) ** 2, axis=-1)
        A = np.exp(-d2 / RBF_SIGMA_CM ** 2) + RBF_REG * np.eye(len(q))
        t.rbf_pts = q
        t.rbf_w = np.linalg.solve(A, r)
    return t, best[0], plant


def fit_clip(m, c, db, rng):
    """Split the clip into windows and fit each. Returns list of (f0, f1, Terrain, rms_after_cm)."""
    F = m.frames
    win = int(WINDOW_S * FPS)
    bounds = list(range(0, F, win)) + [F]
    # A short last window joins the previous one.
    if len(bounds) > 2 and bounds[-1] - bounds[-2] < win // 2:
        bounds.pop(-2)
    ground = _foot_points(m, c)
    out = []
    for f0, f1 in zip(bounds[:-1], bounds[1:]):
        t, err, plant = fit_window(ground, c, f0, f1, db, rng)
        rms = float(np.sqrt(np.mean((t.height(plant[:, [0, 2]]) - plant[:, 1]) ** 2))) if len(plant) else 0.0
        out.append((f0, f1, t, rms))
    return out


def frame_terrains(fits, F):
    """Index (F,) of the fitted window that owns each frame."""
    idx = np.zeros(F, dtype=np.int64)
    for k, (f0, f1, _, _) in enumerate(fits):
        idx[f0:f1] = k
    return idx
