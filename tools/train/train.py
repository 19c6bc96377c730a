"""Stage 2: train the PFNN on db.npz with checkpoints and resume.

Usage: train.py --out DIR [--epochs 36] [--hidden 512] [--batch 512] [--lr 1e-3] [--cycles 2]
            [--threads N] [--max-minutes M] [--budget-minutes M] [--epoch-samples N] [--resume]
Loss: mean squared error of the normalised outputs + L1_GAMMA * sum over layers of mean|W|
(the paper's weight penalty). Optimiser: Adam; learning rate follows cosine warm restarts
(AdamWR-style schedule, cycles of 1, 2, 4 ... units that end exactly at the last epoch).
Writes DIR/ckpt.pt after every epoch (atomic rename), DIR/best.pt (lowest validation loss)
and DIR/history.json. CUDA is used when available.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch

import pfnn

L1_GAMMA = 0.01


def log(msg):
    print(msg, flush=True)


def load_db(out):
    z = np.load(os.path.join(out, "db.npz"))
    return {k: z[k] for k in z.files}


def normalised(db):
    X = (db["X"] - db["Xmean"]) / db["Xstd"]
    Y = (db["Y"] - db["Ymean"]) / db["Ystd"]
    return X.astype(np.float32), Y.astype(np.float32)


def lr_at(frac, lr_max, cycles):
    """Cosine warm restarts over training progress frac in [0,1]; cycle lengths 1:2:4:...
    so the last cycle ends exactly at frac = 1 (the learning rate is then 2% of lr_max)."""
    units = sum(2 ** i for i in range(cycles))
    start = 0.0
    for i in range(cycles):
        length = 2 ** i / units
        if frac < start + length or i == cycles - 1:
            t = min(max((frac - start) / length, 0.0), 1.0)
            return lr_max * (0.02 + 0.98 * 0.5 * (1.0 + math.cos(math.pi * t)))
        start += length
    return lr_max


def save_atomic(obj, path):
    tmp = path + ".tmp"
    torch.save(obj, tmp)
    os.replace(tmp, path)


def evaluate(net, X, Y, P, device, batch=4096):
    net.eval()
    tot = 0.0
    with torch.no_grad():
        for a in range(0, len(X), batch):
            x = torch.from_numpy(X[a:a + batch]).to(device)
            y = torch.from_numpy(Y[a:a + batch]).to(device)
            p = torch.from_numpy(P[a:a + batch]).to(device)
            tot += float(((net(x, p) - y) ** 2).mean(dim=1).sum())
    return tot / max(1, len(X))


def train(out, epochs=36, hidden=512, batch=512, lr=1e-3, cycles=2, threads=1, max_minutes=0.0,
          resume=False, seed=1, max_samples=0, budget_minutes=0.0, epoch_samples=0):
    """Train; progress (for the schedule) is epochs done / epochs, or, with budget_minutes > 0,
    training seconds spent / budget: the run then stops when the budget is used, annealed,
    whatever the machine's speed. epoch_samples > 0 makes an epoch that many samples
    (more frequent checkpoints)."""
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    db = load_db(out)
    X, Y = normalised(db)
    P = db["P"].astype(np.float32)
    val = db["val"]
    Xt, Yt, Pt = X[~val], Y[~val], P[~val]
    Xv, Yv, Pv = X[val], Y[val], P[val]
    if max_samples:
        Xt, Yt, Pt = Xt[:max_samples], Yt[:max_samples], Pt[:max_samples]
    net = pfnn.PFNN(X.shape[1], Y.shape[1], hidden).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    hist = {"epoch": [], "train_loss": [], "val_loss": [], "lr": [], "seconds": [], "samples_per_s": []}
    start_epoch = 0
    spent = 0.0
    best = math.inf
    ck = os.path.join(out, "ckpt.pt")
    if resume and os.path.exists(ck):
        s = torch.load(ck, map_location=device)
        if s["hidden"] != hidden or s["n_in"] != X.shape[1] or s["n_out"] != Y.shape[1]:
            raise SystemExit(f"strider-train: error: {ck}: checkpoint shape differs from the requested network")
        net.load_state_dict(s["model"])
        opt.load_state_dict(s["opt"])
        hist = s["history"]
        start_epoch = s["epoch"]
        spent = s.get("spent_s", 0.0)
        best = s["best_val"]
        torch.set_rng_state(s["rng"])
        log(f"strider-train: resumed from {ck} at epoch {start_epoch}")
    log(f"strider-train: device {device}, threads {threads}, {len(Xt)} train / {len(Xv)} val samples, "
        f"net {X.shape[1]}->{hidden}->{hidden}->{Y.shape[1]}")
    t_start = time.time()
    n = len(Xt)
    steps = max(1, min(epoch_samples or n, n) // batch)
    budget_s = budget_minutes * 60.0
    epoch = start_epoch
    while (epoch < epochs) if not budget_s else (spent < budget_s):
        net.train()
        t0 = time.time()
        perm = torch.randperm(n).numpy()
        tot = 0.0
        done = 0
        for s in range(steps):
            if budget_s:
                frac = (spent + time.time() - t0) / budget_s
                if frac >= 1.0:
                    break
            else:
                frac = (epoch + s / steps) / epochs
            for g in opt.param_groups:
                g["lr"] = lr_at(frac, lr, cycles)
            idx = perm[s * batch:(s + 1) * batch]
            x = torch.from_numpy(Xt[idx]).to(device)
            y = torch.from_numpy(Yt[idx]).to(device)
            p = torch.from_numpy(Pt[idx]).to(device)
            mse = ((net(x, p) - y) ** 2).mean()
            loss = mse + L1_GAMMA * net.l1_penalty()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            tot += float(mse)
            done += 1
        dt = time.time() - t0
        spent += dt
        if done == 0:
            break
        tl = tot / done
        vl = evaluate(net, Xv, Yv, Pv, device) if len(Xv) else float("nan")
        hist["epoch"].append(epoch + 1)
        hist["train_loss"].append(tl)
        hist["val_loss"].append(vl)
        hist["lr"].append(opt.param_groups[0]["lr"])
        hist["seconds"].append(dt)
        hist["samples_per_s"].append(done * batch / dt)
        state = {"model": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch + 1, "history": hist,
                 "best_val": min(best, vl), "hidden": hidden, "n_in": X.shape[1], "n_out": Y.shape[1],
                 "rng": torch.get_rng_state(), "epochs_planned": epochs if not budget_s else 0,
                 "budget_minutes": budget_minutes, "spent_s": spent}
        save_atomic(state, ck)
        if vl < best or not math.isfinite(best):
            best = vl
            save_atomic(state, os.path.join(out, "best.pt"))
        with open(os.path.join(out, "history.json"), "w") as f:
            json.dump(hist, f, indent=1)
        total = f"{epochs}" if not budget_s else f"({spent / 60:.1f}/{budget_minutes:g} min)"
        log(f"strider-train: epoch {epoch + 1} {total} train {tl:.4f} val {vl:.4f} "
            f"lr {hist['lr'][-1]:.2e} {dt:.0f} s ({done * batch / dt:.0f} samples/s)")
        epoch += 1
        if max_minutes and (time.time() - t_start) / 60.0 > max_minutes:
            log(f"strider-train: stopping after epoch {epoch}: time limit {max_minutes} min reached")
            break
    return hist


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join("build", "train"))
    ap.add_argument("--epochs", type=int, default=36)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--cycles", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-minutes", type=float, default=0.0)
    ap.add_argument("--max-samples", type=int, default=0)
    ap.add_argument("--budget-minutes", type=float, default=0.0)
    ap.add_argument("--epoch-samples", type=int, default=0)
    ap.add_argument("--resume", action="store_true")
    a = ap.parse_args(argv)
    train(a.out, a.epochs, a.hidden, a.batch, a.lr, a.cycles, a.threads, a.max_minutes, a.resume,
          max_samples=a.max_samples, budget_minutes=a.budget_minutes, epoch_samples=a.epoch_samples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
