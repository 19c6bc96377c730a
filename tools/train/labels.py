"""Per-frame labels of a 60 fps Motion: foot contacts, phase and gait weights.

Call order: lab = label_motion(m) -> dict of arrays (see below); save_labels(path, labs) writes
one npz with every clip (plot_labels.py draws them against the clip).
  contacts (F,4) float 0/1, order: left heel, left toe, right heel, right toe
           (heel = the foot joint, toe = the foot's end site);
  phase    (F,)  radians in [0, 2pi): 0 at a left heel strike, pi at a right heel strike,
           linear in between; a steady rate while standing;
  gait     (F,6) weights stand, walk, run, crouch, jump, spare (spare is always 0), sum 1.
Nothing here touches terrain (terrain.py) or network features (features.py).
"""
import numpy as np

FPS = 60.0
GAITS = ("stand", "walk", "run", "crouch", "jump", "spare")
G_STAND, G_WALK, G_RUN, G_CROUCH, G_JUMP, G_SPARE = range(6)
CONTACTS = ("l_heel", "l_toe", "r_heel", "r_toe")

# Contact thresholds, from the height/speed percentiles of stance feet in the walk, run and idle
# clips (heel = ankle joint, ~4-7 cm above the floor when planted; toe tip ~0-4 cm).
HEEL_HEIGHT_CM = 10.0
TOE_HEIGHT_CM = 6.0
CONTACT_SPEED_CM_S = 70.0
# steps_obstacles clips stand on real steps: there only speed decides, with a looser height cap.
STEPS_HEIGHT_CM = 60.0
# Majority filter width (frames) that removes single-frame contact flicker; then contact gaps
# shorter than CONTACT_MIN_GAP frames are closed and contacts shorter than CONTACT_MIN_RUN dropped,
# so a heel that briefly lifts does not count as a new heel strike.
CONTACT_FILTER = 5
CONTACT_MIN_GAP = 8
CONTACT_MIN_RUN = 4

# Phase: one cycle per second while standing; a gap between heel strikes longer than this is a pause.
STEADY_RATE = 2.0 * np.pi / 1.0
MAX_STEP_GAP_S = 1.5
# Heel strikes closer than this (a two-footed landing, a shuffle) count as one strike.
MIN_STEP_GAP_S = 0.15

# Gait rules. Speed of the hip projected on the floor, smoothed (sigma in seconds).
SPEED_SIGMA_S = 0.25
STAND_SPEED_CM_S = 20.0
WALK_TO_RUN_CM_S = 300.0
IDLE_TO_WALK_CM_S = 45.0
# Crouch when the head joint is below this (standing head joint height ~140 cm).
CROUCH_HEAD_CM = 115.0
# Jump: at least this many frames with no contact at all, padded by JUMP_PAD_S each side.
JUMP_MIN_FLIGHT = 6
JUMP_PAD_S = 0.25
GAIT_SIGMA_S = 0.1

CATEGORY_GAIT = {
    "walk": G_WALK, "walk_turn": G_WALK, "walk_backward": G_WALK, "sidestep": G_WALK,
    "start_stop": G_WALK, "steps_obstacles": G_WALK, "run": G_RUN, "run_turn": G_RUN,
    "crouch": G_CROUCH, "sneak": G_WALK, "jump": G_WALK, "idle": G_STAND,
}


def gaussian_filter1d(x, sigma, axis=0):
    """Gaussian smoothing with edge replication (sigma in samples)."""
    if sigma <= 0:
        return x.copy()
    r = int(np.ceil(3 * sigma))
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma) ** 2)
    k /= k.sum()
    x = np.moveaxis(x, axis, 0)
    pad = np.concatenate([np.repeat(x[:1], r, 0), x, np.repeat(x[-1:], r, 0)], 0)
    out = np.zeros_like(x, dtype=np.float64)
    for i, w in enumerate(k):
        out += w * pad[i:i + x.shape[0]]
    return np.moveaxis(out, 0, axis)


def _speed(p):
    v = np.gradient(p, axis=0) * FPS
    return np.linalg.norm(v, axis=-1)


def _majority(c, w):
    r = w // 2
    pad = np.concatenate([np.repeat(c[:1], r), c, np.repeat(c[-1:], r)])
    s = np.convolve(pad.astype(np.float64), np.ones(w), mode="valid")
    return (s > r).astype(np.float64)


def contacts(m):
    names = m.clip.names
    lf, rf = names.index("lFoot"), names.index("rFoot")
    lt, rt = m.clip.end_names.index("lFoot_end"), m.clip.end_names.index("rFoot_end")
    pts = [(m.gpos[:, lf], HEEL_HEIGHT_CM), (m.endpos[:, lt], TOE_HEIGHT_CM),
           (m.gpos[:, rf], HEEL_HEIGHT_CM), (m.endpos[:, rt], TOE_HEIGHT_CM)]
    out = np.zeros((m.frames, 4))
    for k, (p, h) in enumerate(pts):
        if m.category == "steps_obstacles":
            h = STEPS_HEIGHT_CM
        c = (p[:, 1] < h) & (_speed(p) < CONTACT_SPEED_CM_S)
        c = _majority(c, CONTACT_FILTER) if m.frames >= CONTACT_FILTER else c.astype(np.float64)
        out[:, k] = _clean_runs(c > 0.5)
    return out


def _clean_runs(on):
    """Close short gaps, then drop short contacts (both in frames, see CONTACT_MIN_*)."""
    on = on.copy()
    F = len(on)
    for val, short in ((False, CONTACT_MIN_GAP), (True, CONTACT_MIN_RUN)):
        f = 0
        while f < F:
            e = f
            while e < F and on[e] == on[f]:
                e += 1
            # Only interior runs: a run touching the clip edge may continue outside it.
            if on[f] == val and e - f < short and f > 0 and e < F:
                on[f:e] = not val
            f = e
    return on.astype(np.float64)


def heel_strikes(c):
    """Frames where a heel contact starts: returns sorted list of (frame, base phase)."""
    ev = []
    for col, base in ((0, 0.0), (2, np.pi)):
        on = c[:, col] > 0.5
        starts = np.nonzero(on[1:] & ~on[:-1])[0] + 1
        ev += [(int(f), base) for f in starts]
    ev.sort()
    # Both heels striking together (a landing): keep the first so the phase never jumps.
    out = []
    for f, b in ev:
        if out and (f - out[-1][0]) < MIN_STEP_GAP_S * FPS:
            continue
        out.append((f, b))
    return out


def phase_from_contacts(c, fps=FPS):
    """Unwrapped-then-wrapped phase (F,) from contact labels (F,4)."""
    F = c.shape[0]
    t = np.arange(F) / fps
    ev = heel_strikes(c)
    if not ev:
        return np.mod(STEADY_RATE * t, 2 * np.pi)
    keys_f = [ev[0][0]]
    keys_u = [ev[0][1]]
    rates = []
    for (f0, b0), (f1, b1) in zip(ev[:-1], ev[1:]):
        gap = (f1 - f0) / fps
        delta = np.mod(b1 - b0, 2 * np.pi)
        if delta < 1e-9:
            delta = 2 * np.pi
        # A pause between steps: add whole cycles so the rate stays near the standing rate.
        n = max(0, int(round((STEADY_RATE * gap - delta) / (2 * np.pi))))
        delta += 2 * np.pi * n
        keys_f.append(f1)
        keys_u.append(keys_u[-1] + delta)
        rates.append(delta / gap)
    kf = np.array(keys_f, dtype=np.float64)
    ku = np.array(keys_u)
    u = np.interp(np.arange(F), kf, ku)
    first_rate = rates[0] if rates and (kf[1] - kf[0]) / fps < MAX_STEP_GAP_S else STEADY_RATE
    last_rate = rates[-1] if rates and (kf[-1] - kf[-2]) / fps < MAX_STEP_GAP_S else STEADY_RATE
    before = np.arange(F) < kf[0]
    after = np.arange(F) > kf[-1]
    u[before] = ku[0] - first_rate * (kf[0] - np.arange(F)[before]) / fps
    u[after] = ku[-1] + last_rate * (np.arange(F)[after] - kf[-1]) / fps
    return np.mod(u, 2 * np.pi)


def gait_weights(m, c):
    F = m.frames
    names = m.clip.names
    base = CATEGORY_GAIT.get(m.category, G_WALK)
    g = np.full(F, base, dtype=np.int64)
    hip = m.gpos[:, names.index("hip")][:, [0, 2]]
    spd = labels_speed(hip)
    if base in (G_WALK, G_RUN):
        g[spd < STAND_SPEED_CM_S] = G_STAND
    if base == G_WALK:
        g[spd > WALK_TO_RUN_CM_S] = G_RUN
    if base == G_STAND:
        g[spd > IDLE_TO_WALK_CM_S] = G_WALK
    head = m.gpos[:, names.index("head"), 1]
    g[head < CROUCH_HEAD_CM] = G_CROUCH
    if m.category == "jump":
        air = c.sum(axis=1) < 0.5
        pad = int(round(JUMP_PAD_S * FPS))
        f = 0
        while f < F:
            if air[f]:
                e = f
                while e < F and air[e]:
                    e += 1
                if e - f >= JUMP_MIN_FLIGHT:
                    g[max(0, f - pad):min(F, e + pad)] = G_JUMP
                f = e
            else:
                f += 1
    onehot = np.zeros((F, len(GAITS)))
    onehot[np.arange(F), g] = 1.0
    w = gaussian_filter1d(onehot, GAIT_SIGMA_S * FPS)
    w[:, G_SPARE] = 0.0
    w /= w.sum(axis=1, keepdims=True)
    return w


def labels_speed(xz):
    """Smoothed horizontal speed (cm/s) of a (F,2) floor-projected path."""
    return gaussian_filter1d(_speed(xz), SPEED_SIGMA_S * FPS)


def label_motion(m):
    c = contacts(m)
    return {"contacts": c, "phase": phase_from_contacts(c), "gait": gait_weights(m, c)}


def save_labels(path, motions, labs):
    """One npz: for clip k the arrays '<key>/contacts', '/phase', '/gait', '/hip' (F,3)."""
    out = {}
    for m, lab in zip(motions, labs):
        key = m.name + ("_mirror" if m.mirrored else "")
        for k, v in lab.items():
            out[f"{key}/{k}"] = v.astype(np.float32)
        out[f"{key}/hip"] = m.gpos[:, 0].astype(np.float32)
        out[f"{key}/category"] = np.array(m.category)
    np.savez_compressed(path, **out)
