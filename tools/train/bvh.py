"""BVH parsing, the Strider rest skeleton (.skel) and forward kinematics.

Call order: skel = read_skel(path); clip = read_bvh(path); check_against_skel(clip, skel);
then fk(clip) gives global joint positions/rotations and end-site positions.
Any channel order is accepted: a joint's local transform is
  T(offset + position channels) * R(c0) * R(c1) * R(c2)   (rotation channels in file order),
so "Zrotation Yrotation Xrotation" means R = Rz*Ry*Rx, angles in degrees.
Errors raise BvhError whose text is one line "FILE:LINE: problem". Nothing here resamples,
mirrors or labels (see motion.py / labels.py). Every array returned is owned by the caller.
"""
import math
import numpy as np

import quat

AXES = {"X": np.array([1.0, 0.0, 0.0]), "Y": np.array([0.0, 1.0, 0.0]), "Z": np.array([0.0, 0.0, 1.0])}
POS_CHANNELS = ("Xposition", "Yposition", "Zposition")
ROT_CHANNELS = ("Xrotation", "Yrotation", "Zrotation")
# Offsets in the .skel file are printed with 5 decimals; allow for rounding of the retarget.
SKEL_OFFSET_TOL = 2e-3
# Guards against absurd files (a real clip has 21 joints and a few thousand frames).
MAX_JOINTS = 256
MAX_FRAMES = 1_000_000


class BvhError(Exception):
    """A data error with a one-line message naming the file and the line."""


class Clip:
    """A parsed BVH clip.

    names: joint names (file order, parents first); parents: int array, -1 for the root;
    offsets: (J,3); channels: list of channel-name lists per joint;
    end_names/end_parents/end_offsets: end sites; frame_time: seconds;
    rot: (F,J,4) local quaternions; trans: (F,J,3) local translations (offset + position channels).
    """

    def __init__(self):
        self.path = ""
        self.names = []
        self.parents = []
        self.offsets = []
        self.channels = []
        self.end_names = []
        self.end_parents = []
        self.end_offsets = []
        self.frame_time = 0.0
        self.rot = None
        self.trans = None

    @property
    def frames(self):
        return 0 if self.rot is None else self.rot.shape[0]

    def copy(self):
        c = Clip()
        c.path = self.path
        c.names = list(self.names)
        c.parents = np.array(self.parents)
        c.offsets = np.array(self.offsets)
        c.channels = [list(ch) for ch in self.channels]
        c.end_names = list(self.end_names)
        c.end_parents = np.array(self.end_parents)
        c.end_offsets = np.array(self.end_offsets)
        c.frame_time = self.frame_time
        c.rot = self.rot.copy()
        c.trans = self.trans.copy()
        return c


def _tokens(text):
    """Yield (token, line_number) pairs."""
    for ln, line in enumerate(text.split("\n"), start=1):
        for tok in line.split():
            yield tok, ln


def _number(path, tok, ln):
    try:
        v = float(tok)
    except ValueError:
        raise BvhError(f"{path}:{ln}: expected a number, got '{tok[:32]}'") from None
    if not math.isfinite(v):
        raise BvhError(f"{path}:{ln}: non-finite number '{tok[:32]}'")
    return v


def read_bvh(path):
    """Parse a BVH file into a Clip. Raises BvhError on any malformed input."""
    try:
        with open(path, "r", encoding="ascii", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise BvhError(f"{path}:0: cannot read ({e.strerror})") from None
    return parse_bvh(text, path)


def parse_bvh(text, path="<string>"):
    lines = text.split("\n")
    toks = list(_tokens(text))
    pos = 0
    last_line = len(lines)

    def need(what):
        nonlocal pos
        if pos >= len(toks):
            raise BvhError(f"{path}:{last_line}: unexpected end of file, expected {what}")
        t = toks[pos]
        pos += 1
        return t

    def expect(word):
        tok, ln = need(f"'{word}'")
        if tok != word:
            raise BvhError(f"{path}:{ln}: expected '{word}', got '{tok[:32]}'")
        return ln

    clip = Clip()
    clip.path = path
    expect("HIERARCHY")
    tok, ln = need("'ROOT'")
    if tok != "ROOT":
        raise BvhError(f"{path}:{ln}: expected 'ROOT', got '{tok[:32]}'")

    # Iterative descent with an explicit stack of joint indices.
    def read_joint(parent):
        nonlocal pos
        name, ln = need("a joint name")
        if len(clip.names) >= MAX_JOINTS:
            raise BvhError(f"{path}:{ln}: more than {MAX_JOINTS} joints")
        idx = len(clip.names)
        clip.names.append(name)
        clip.parents.append(parent)
        expect("{")
        expect("OFFSET")
        off = []
        for _ in range(3):
            t, l2 = need("an OFFSET value")
            off.append(_number(path, t, l2))
        clip.offsets.append(off)
        t, l2 = need("'CHANNELS'")
        if t != "CHANNELS":
            raise BvhError(f"{path}:{l2}: expected 'CHANNELS' for joint '{name}', got '{t[:32]}'")
        t, l2 = need("a channel count")
        try:
            n = int(t)
        except ValueError:
            raise BvhError(f"{path}:{l2}: bad channel count '{t[:32]}'") from None
        if n < 0 or n > 6:
            raise BvhError(f"{path}:{l2}: channel count {n} out of range 0..6 for joint '{name}'")
        chans = []
        for _ in range(n):
            c, l3 = need("a channel name")
            if c not in POS_CHANNELS and c not in ROT_CHANNELS:
                raise BvhError(f"{path}:{l3}: joint '{name}' declares {n} channels but "
                               f"'{c[:32]}' is not a channel name")
            if c in chans:
                raise BvhError(f"{path}:{l3}: joint '{name}' repeats channel '{c}'")
            chans.append(c)
        clip.channels.append(chans)
        while True:
            t, l4 = need("'JOINT', 'End' or '}'")
            if t == "}":
                return
            if t == "JOINT":
                read_joint(idx)
            elif t == "End":
                expect("Site")
                expect("{")
                expect("OFFSET")
                eo = []
                for _ in range(3):
                    v, l5 = need("an OFFSET value")
                    eo.append(_number(path, v, l5))
                expect("}")
                clip.end_names.append(name + "_end")
                clip.end_parents.append(idx)
                clip.end_offsets.append(eo)
            else:
                raise BvhError(f"{path}:{l4}: unexpected '{t[:32]}' in joint '{name}'")

    read_joint(-1)
    expect("MOTION")
    expect("Frames:")
    t, ln = need("the frame count")
    try:
        nframes = int(t)
    except ValueError:
        raise BvhError(f"{path}:{ln}: bad frame count '{t[:32]}'") from None
    if nframes <= 0:
        raise BvhError(f"{path}:{ln}: empty clip (Frames: {nframes})")
    if nframes > MAX_FRAMES:
        raise BvhError(f"{path}:{ln}: frame count {nframes} exceeds {MAX_FRAMES}")
    expect("Frame")
    expect("Time:")
    t, ln = need("the frame time")
    ft = _number(path, t, ln)
    if not (1e-4 < ft < 1.0):
        raise BvhError(f"{path}:{ln}: frame time {ft} s out of range")
    clip.frame_time = ft

    nch = sum(len(c) for c in clip.channels)
    # Frame data is line-oriented: one line per frame with exactly nch values.
    data_start = toks[pos][1] if pos < len(toks) else last_line + 1
    data = np.empty((nframes, nch))
    f = 0
    for ln in range(data_start, len(lines) + 1):
        line = lines[ln - 1].split()
        if not line:
            continue
        if f >= nframes:
            raise BvhError(f"{path}:{ln}: more frame lines than 'Frames: {nframes}'")
        if len(line) != nch:
            raise BvhError(f"{path}:{ln}: frame {f} has {len(line)} values, "
                           f"the hierarchy declares {nch} channels")
        try:
            row = np.array([float(v) for v in line])
        except ValueError:
            bad = next(v for v in line if not _isfloat(v))
            raise BvhError(f"{path}:{ln}: expected a number, got '{bad[:32]}'") from None
        if not np.all(np.isfinite(row)):
            raise BvhError(f"{path}:{ln}: frame {f} contains NaN or infinite values")
        data[f] = row
        f += 1
    if f < nframes:
        raise BvhError(f"{path}:{len(lines)}: truncated: 'Frames: {nframes}' but only {f} frame lines")

    clip.parents = np.array(clip.parents, dtype=np.int64)
    clip.offsets = np.array(clip.offsets, dtype=np.float64)
    clip.end_parents = np.array(clip.end_parents, dtype=np.int64)
    clip.end_offsets = np.array(clip.end_offsets, dtype=np.float64).reshape(-1, 3)
    J = len(clip.names)
    clip.rot = np.zeros((nframes, J, 4))
    clip.rot[..., 0] = 1.0
    clip.trans = np.repeat(clip.offsets[None], nframes, axis=0)
    col = 0
    for j, chans in enumerate(clip.channels):
        for c in chans:
            v = data[:, col]
            col += 1
            if c in POS_CHANNELS:
                clip.trans[:, j, POS_CHANNELS.index(c)] += v
            else:
                r = quat.from_axis_angle(AXES[c[0]], np.radians(v))
                clip.rot[:, j] = quat.mul(clip.rot[:, j], r)
    return clip


def _isfloat(s):
    try:
        float(s)
        return True
    except ValueError:
        return False


class Skeleton:
    """The rest skeleton from a .skel file: joints (with parents and offsets) and end sites."""

    def __init__(self):
        self.names = []
        self.parents = []
        self.offsets = []
        self.end_names = []
        self.end_parents = []
        self.end_offsets = []


def read_skel(path):
    sk = Skeleton()
    try:
        with open(path, "r", encoding="ascii", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise BvhError(f"{path}:0: cannot read ({e.strerror})") from None
    seen_header = False
    for ln, line in enumerate(lines, start=1):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if not seen_header:
            if line != ["strider-skeleton", "1"]:
                raise BvhError(f"{path}:{ln}: expected header 'strider-skeleton 1'")
            seen_header = True
            continue
        if len(line) != 6 or line[0] not in ("joint", "end"):
            raise BvhError(f"{path}:{ln}: expected 'joint|end NAME PARENT OX OY OZ'")
        kind, name, parent = line[0], line[1], line[2]
        off = [_number(path, t, ln) for t in line[3:6]]
        if parent == "-":
            pidx = -1
            if kind != "joint" or sk.names:
                raise BvhError(f"{path}:{ln}: only the first joint may be the root")
        else:
            if parent not in sk.names:
                raise BvhError(f"{path}:{ln}: parent '{parent}' is not a joint defined above")
            pidx = sk.names.index(parent)
        if kind == "joint":
            if name in sk.names:
                raise BvhError(f"{path}:{ln}: duplicate joint '{name}'")
            sk.names.append(name)
            sk.parents.append(pidx)
            sk.offsets.append(off)
        else:
            sk.end_names.append(name)
            sk.end_parents.append(pidx)
            sk.end_offsets.append(off)
    if not sk.names:
        raise BvhError(f"{path}:{len(lines)}: no joints")
    sk.parents = np.array(sk.parents, dtype=np.int64)
    sk.offsets = np.array(sk.offsets)
    sk.end_parents = np.array(sk.end_parents, dtype=np.int64)
    sk.end_offsets = np.array(sk.end_offsets).reshape(-1, 3)
    return sk


def check_against_skel(clip, sk):
    """Raise BvhError (naming the BVH) if the clip's hierarchy differs from the rest skeleton."""
    p = clip.path
    if clip.names != sk.names:
        raise BvhError(f"{p}:1: joint names/order differ from the rest skeleton "
                       f"({len(clip.names)} joints, expected {len(sk.names)})")
    if not np.array_equal(clip.parents, sk.parents):
        j = int(np.nonzero(clip.parents != sk.parents)[0][0])
        raise BvhError(f"{p}:1: joint '{clip.names[j]}' has a different parent than the rest skeleton")
    d = np.abs(clip.offsets - sk.offsets).max(axis=1)
    if d.max() > SKEL_OFFSET_TOL:
        j = int(np.argmax(d))
        raise BvhError(f"{p}:1: joint '{clip.names[j]}' offset differs from the rest skeleton by {d[j]:.4f}")
    if not np.array_equal(clip.end_parents, sk.end_parents):
        raise BvhError(f"{p}:1: end sites differ from the rest skeleton")
    d = np.abs(clip.end_offsets - sk.end_offsets).max(axis=1) if len(sk.end_offsets) else np.zeros(1)
    if d.max() > SKEL_OFFSET_TOL:
        raise BvhError(f"{p}:1: end-site offset differs from the rest skeleton by {d.max():.4f}")
    for j, chans in enumerate(clip.channels):
        has_pos = any(c in POS_CHANNELS for c in chans)
        if j == 0 and not all(c in chans for c in POS_CHANNELS):
            raise BvhError(f"{p}:1: root joint lacks position channels")
        if j > 0 and has_pos:
            raise BvhError(f"{p}:1: joint '{clip.names[j]}' has position channels (only the root may)")


def fk(clip):
    """Forward kinematics. Returns (gpos (F,J,3), grot (F,J,4), endpos (F,E,3))."""
    F, J = clip.rot.shape[:2]
    gpos = np.zeros((F, J, 3))
    grot = np.zeros((F, J, 4))
    for j in range(J):
        p = clip.parents[j]
        if p < 0:
            grot[:, j] = clip.rot[:, j]
            gpos[:, j] = clip.trans[:, j]
        else:
            grot[:, j] = quat.mul(grot[:, p], clip.rot[:, j])
            gpos[:, j] = gpos[:, p] + quat.rotate(grot[:, p], clip.trans[:, j])
    E = len(clip.end_parents)
    endpos = np.zeros((F, E, 3))
    for e in range(E):
        p = clip.end_parents[e]
        endpos[:, e] = gpos[:, p] + quat.rotate(grot[:, p], np.broadcast_to(clip.end_offsets[e], (F, 3)))
    return gpos, grot, endpos
