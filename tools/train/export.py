"""Stage 3: export a trained PFNN for the C runtime, and read it back.

Call order: export.py --out build/train --dest assets/network [--ckpt best.pt] writes
  pfnn.bin      weights + normalisation (byte layout in docs/FORMATS_PFNN.md, all little-endian)
  pfnn.json     text sidecar: data, clips, epochs, losses, date, layout of every index
  pfnn_ref.bin  reference vectors (phase, raw input, raw output) from the torch model in eval mode
read_pfnn(path) / read_refs(path) parse and validate those files (used by tests and report.py).
Errors are one line naming the file and the byte offset. Nothing here trains.
"""
import argparse
import datetime
import json
import os
import struct
import sys

import numpy as np
import torch

import features as FT
import labels as L
import pfnn

MAGIC = b"SPFN"
REF_MAGIC = b"SPFV"
VERSION = 1
HEADER_BYTES = 64
REF_HEADER_BYTES = 32
DTYPE_F32 = 0
# Sanity caps for the reader: far above our sizes, far below anything that could exhaust memory.
MAX_DIM = 8192
N_REF_VECTORS = 128


class FormatError(Exception):
    pass


def fnv1a32(data):
    """FNV-1a 32-bit, the same as file_checksum32() in src/core/file.c."""
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def _weights(net):
    return [(net.W[k].detach().cpu().numpy(), net.b[k].detach().cpu().numpy()) for k in range(3)]


def payload_arrays(net, Xmean, Xstd, Ymean, Ystd):
    arr = [Xmean, Xstd, Ymean, Ystd]
    w = _weights(net)
    for k in range(pfnn.CONTROL_POINTS):
        for W, b in w:
            arr += [W[k], b[k]]
    return [np.ascontiguousarray(a, dtype="<f4") for a in arr]


def write_pfnn(path, net, Xmean, Xstd, Ymean, Ystd, n_joints=FT.NJ):
    payload = b"".join(a.tobytes() for a in payload_arrays(net, Xmean, Xstd, Ymean, Ystd))
    head = struct.pack("<4s15I", MAGIC, VERSION, HEADER_BYTES, net.n_in, net.hidden, net.hidden, net.n_out,
                       pfnn.CONTROL_POINTS, n_joints, FT.TRAJ_POINTS, len(L.GAITS), DTYPE_F32,
                       len(payload), fnv1a32(payload), 0, 0)
    assert len(head) == HEADER_BYTES
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(head)
        f.write(payload)
    os.replace(tmp, path)
    return len(head) + len(payload)


def read_pfnn(path):
    """Return dict: dims, Xmean, Xstd, Ymean, Ystd, W0..W2 (4,out,in), b0..b2 (4,out)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < HEADER_BYTES:
        raise FormatError(f"{path}: byte 0: file is {len(data)} bytes, shorter than the {HEADER_BYTES}-byte header")
    v = struct.unpack_from("<4s15I", data, 0)
    magic, ver, hb, n_in, h0, h1, n_out, ncp, nj, ntraj, ngait, dtype, nbytes, csum = v[:14]
    if magic != MAGIC:
        raise FormatError(f"{path}: byte 0: bad magic {magic!r}, expected {MAGIC!r}")
    if ver != VERSION:
        raise FormatError(f"{path}: byte 4: unsupported version {ver}")
    if hb != HEADER_BYTES:
        raise FormatError(f"{path}: byte 8: header size {hb}, expected {HEADER_BYTES}")
    for off, d in ((12, n_in), (16, h0), (20, h1), (24, n_out)):
        if not 0 < d <= MAX_DIM:
            raise FormatError(f"{path}: byte {off}: dimension {d} out of range 1..{MAX_DIM}")
    if ncp != pfnn.CONTROL_POINTS:
        raise FormatError(f"{path}: byte 28: {ncp} control points, expected {pfnn.CONTROL_POINTS}")
    if dtype != DTYPE_F32:
        raise FormatError(f"{path}: byte 44: unsupported weight type {dtype}")
    floats = 2 * n_in + 2 * n_out + ncp * (h0 * n_in + h0 + h1 * h0 + h1 + n_out * h1 + n_out)
    if nbytes != 4 * floats:
        raise FormatError(f"{path}: byte 48: payload size {nbytes}, the dimensions need {4 * floats}")
    if len(data) != HEADER_BYTES + nbytes:
        raise FormatError(f"{path}: byte {len(data)}: file size {len(data)}, expected {HEADER_BYTES + nbytes}")
    payload = data[HEADER_BYTES:]
    if fnv1a32(payload) != csum:
        raise FormatError(f"{path}: byte 52: checksum mismatch")
    a = np.frombuffer(payload, dtype="<f4")
    if not np.all(np.isfinite(a)):
        bad = int(np.nonzero(~np.isfinite(a))[0][0])
        raise FormatError(f"{path}: byte {HEADER_BYTES + 4 * bad}: non-finite value")
    pos = 0

    def take(*shape):
        nonlocal pos
        n = int(np.prod(shape))
        out = a[pos:pos + n].reshape(shape)
        pos += n
        return out

    out = {"n_in": n_in, "hidden": h0, "hidden1": h1, "n_out": n_out, "n_joints": nj,
           "n_traj": ntraj, "n_gaits": ngait}
    out["Xmean"], out["Xstd"] = take(n_in), take(n_in)
    out["Ymean"], out["Ystd"] = take(n_out), take(n_out)
    sizes = [(h0, n_in), (h1, h0), (n_out, h1)]
    Ws = [[None] * ncp for _ in range(3)]
    bs = [[None] * ncp for _ in range(3)]
    for k in range(ncp):
        for layer, (o, i) in enumerate(sizes):
            Ws[layer][k] = take(o, i)
            bs[layer][k] = take(o)
    for layer in range(3):
        out[f"W{layer}"] = np.stack(Ws[layer])
        out[f"b{layer}"] = np.stack(bs[layer])
    return out


def net_from_file(d):
    net = pfnn.PFNN(d["n_in"], d["n_out"], d["hidden"])
    with torch.no_grad():
        for layer in range(3):
            net.W[layer].copy_(torch.from_numpy(d[f"W{layer}"].copy()))
            net.b[layer].copy_(torch.from_numpy(d[f"b{layer}"].copy()))
    return net.eval()


def reference_forward(d, x, phase):
    """float64 numpy implementation of docs/FORMATS_PFNN.md, from a read_pfnn() dict."""
    x = (np.asarray(x, np.float64) - d["Xmean"]) / d["Xstd"]
    c = pfnn.catmull_rom_coeffs(torch.tensor([float(phase)], dtype=torch.float64)).numpy()[0]
    h = x
    for layer in range(3):
        W = np.tensordot(c, d[f"W{layer}"].astype(np.float64), axes=1)
        b = c @ d[f"b{layer}"].astype(np.float64)
        h = W @ h + b
        if layer < 2:
            h = np.where(h > 0, h, np.expm1(np.minimum(h, 0)))
    return h * d["Ystd"] + d["Ymean"]


def write_refs(path, phases, X, Y):
    n, n_in = X.shape
    n_out = Y.shape[1]
    rec = np.concatenate([phases[:, None], X, Y], axis=1).astype("<f4").tobytes()
    head = struct.pack("<4s7I", REF_MAGIC, VERSION, REF_HEADER_BYTES, n, n_in, n_out, fnv1a32(rec), 0)
    with open(path, "wb") as f:
        f.write(head)
        f.write(rec)


def read_refs(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < REF_HEADER_BYTES:
        raise FormatError(f"{path}: byte 0: shorter than the header")
    magic, ver, hb, n, n_in, n_out, csum, _ = struct.unpack_from("<4s7I", data, 0)
    if magic != REF_MAGIC or ver != VERSION or hb != REF_HEADER_BYTES:
        raise FormatError(f"{path}: byte 0: bad magic/version/header size")
    if not (0 < n_in <= MAX_DIM and 0 < n_out <= MAX_DIM and 0 < n <= 1_000_000):
        raise FormatError(f"{path}: byte 12: counts out of range")
    if len(data) != hb + 4 * n * (1 + n_in + n_out):
        raise FormatError(f"{path}: byte {len(data)}: size does not match the counts")
    rec = data[hb:]
    if fnv1a32(rec) != csum:
        raise FormatError(f"{path}: byte 24: checksum mismatch")
    a = np.frombuffer(rec, dtype="<f4").reshape(n, 1 + n_in + n_out)
    return a[:, 0], a[:, 1:1 + n_in], a[:, 1 + n_in:]


def load_ckpt_net(path):
    s = torch.load(path, map_location="cpu")
    net = pfnn.PFNN(s["n_in"], s["n_out"], s["hidden"])
    net.load_state_dict(s["model"])
    return net.eval(), s


def pick_reference_samples(db, n=N_REF_VECTORS, seed=3):
    """Validation samples spread over the phase, plus the exact control-point phases."""
    rng = np.random.default_rng(seed)
    idx_pool = np.nonzero(db["val"])[0]
    if len(idx_pool) < n:
        idx_pool = np.arange(len(db["P"]))
    idx = rng.choice(idx_pool, size=n, replace=len(idx_pool) < n)
    phases = db["P"][idx].astype(np.float32).copy()
    # Exercise the wrap and every control-point boundary exactly.
    special = np.array([0.0, np.pi / 2, np.pi, 1.5 * np.pi, 2 * np.pi - 1e-4, 0.25, 3.0, 6.0], np.float32)
    phases[:len(special)] = special
    return idx, phases


def export(out, dest, ckpt=None, note=""):
    os.makedirs(dest, exist_ok=True)
    ckpt = ckpt or os.path.join(out, "best.pt")
    net, s = load_ckpt_net(ckpt)
    z = np.load(os.path.join(out, "db.npz"))
    db = {k: z[k] for k in z.files}
    nbytes = write_pfnn(os.path.join(dest, "pfnn.bin"), net, db["Xmean"], db["Xstd"], db["Ymean"], db["Ystd"])
    d = read_pfnn(os.path.join(dest, "pfnn.bin"))
    rnet = net_from_file(d)
    idx, phases = pick_reference_samples(db)
    X = db["X"][idx].astype(np.float32)
    xn = torch.from_numpy((X - d["Xmean"]) / d["Xstd"])
    with torch.no_grad():
        yn = rnet.forward_blend(xn, torch.from_numpy(phases)).numpy()
    Y = (yn * d["Ystd"] + d["Ymean"]).astype(np.float32)
    write_refs(os.path.join(dest, "pfnn_ref.bin"), phases, X, Y)
    ref64 = np.stack([reference_forward(d, X[i], phases[i]) for i in range(len(idx))])
    max_abs = float(np.max(np.abs(ref64 - Y)))
    prep = json.load(open(os.path.join(out, "prepare.json")))
    # The full history (a best.pt checkpoint only holds the epochs up to itself).
    hp = os.path.join(out, "history.json")
    h = json.load(open(hp)) if os.path.exists(hp) else s["history"]
    best_epoch = int(np.argmin(h["val_loss"])) + 1 if h["val_loss"] else 0
    joints = prep["joints"]
    meta = {
        "format": "docs/FORMATS_PFNN.md", "file": "pfnn.bin", "bytes": nbytes,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "data": prep["data"], "clips_loaded": prep["clips_loaded"], "clips_rejected": prep["clips_rejected"],
        "samples": prep["samples"], "train_samples": prep["train_samples"], "val_samples": prep["val_samples"],
        "val_clips": prep["val_clips"],
        "network": {"n_in": net.n_in, "hidden": net.hidden, "n_out": net.n_out,
                    "control_points": pfnn.CONTROL_POINTS, "activation": "elu", "keep_prob": pfnn.KEEP_PROB},
        "epochs_planned": s.get("epochs_planned", 0), "epoch_samples": s.get("epoch_samples", 0),
        "seed": s.get("seed", 1), "threads": s.get("threads", 0),
        "training_seconds": round(float(sum(h["seconds"])), 1),
        "samples_seen": (len(h["epoch"]) * s["epoch_samples"] if s.get("epoch_samples")
                         else int(round(sum(a * b for a, b in zip(h["samples_per_s"], h["seconds"]))))),
        "epochs_run": len(h["epoch"]), "exported_epoch": s["epoch"],
        "best_val_epoch": best_epoch, "train_loss": h["train_loss"], "val_loss": h["val_loss"],
        "checkpoint": os.path.basename(ckpt), "note": note,
        "reference_vectors": {"file": "pfnn_ref.bin", "count": int(len(idx)),
                              "max_abs_diff_torch_fp32_vs_numpy_fp64": max_abs},
        "joints": joints, "gaits": list(L.GAITS), "contacts": list(L.CONTACTS),
        "input_layout": FT.input_layout(joints), "output_layout": FT.output_layout(joints),
    }
    with open(os.path.join(dest, "pfnn.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"strider-train: exported {ckpt} (epoch {s['epoch']}) -> {dest}/pfnn.bin ({nbytes} bytes), "
          f"{len(idx)} reference vectors, fp32-vs-fp64 max |diff| {max_abs:.2e}", flush=True)
    return meta


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join("build", "train"))
    ap.add_argument("--dest", default=os.path.join("assets", "network"))
    ap.add_argument("--ckpt", default=None)
    ap.add_argument("--note", default="")
    a = ap.parse_args(argv)
    try:
        export(a.out, a.dest, a.ckpt, a.note)
    except FormatError as e:
        print(f"strider-train: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
