"""Stage 2: train the PFNN on db.npz with checkpoints and resume.

Usage: train.py --out DIR [--epochs 36] [--epoch-samples N] [--hidden 512] [--batch 512] [--lr 1e-3]
            [--cycles 2] [--threads N] [--seed 1] [--max-minutes M] [--resume]
Loss: mean squared error of the normalised outputs + L1_GAMMA * sum over layers of mean|W|
(the paper's weight penalty). Optimiser: Adam; learning rate follows cosine warm restarts
(AdamWR-style schedule, cycles of 1, 2, 4 ... units that end exactly at the last epoch).
The budget is a number of samples: --epochs epochs of --epoch-samples samples (default: the
whole training set), never a time, so the same command on the same machine (same --threads)
gives the same weights bit for bit: the seed fixes the initial weights, the shuffles and the
dropout, every thread count is honoured (torch's own, its inter-op pool, and the numerical
libraries' through OMP/MKL/OpenBLAS_NUM_THREADS, see threads.py) and torch runs its
deterministic algorithms. --max-minutes stops after the epoch that passes it; --resume then
continues to exactly the weights an uninterrupted run gives (checkpoints hold the optimiser
and the random state, and stop on an epoch boundary).
Writes DIR/ckpt.pt after every epoch (atomic rename), DIR/best.pt (lowest validation loss)
and DIR/history.json. CUDA is used when available (not bit-repeatable there).
"""
import argparse
import json
import math
import os
import sys
import time

import threads as threads_mod

# Run as a script, the numerical libraries' thread counts are set before
# numpy and torch load (they read them once).
if __name__ == "__main__":
    threads_mod.limit_env_from_argv(sys.argv[1:])

import numpy as np  # noqa: E402
import torch  # noqa: E402

import pfnn  # noqa: E402

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
          resume=False, seed=1, max_samples=0, epoch_samples=0):
    """Train; progress (for the schedule) is epochs done / epochs. epoch_samples > 0 makes an
    epoch that many samples (rounded down to whole batches): the budget is epochs x that."""
    threads_mod.limit_torch(torch, threads)
    torch.use_deterministic_algorithms(True)
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
    epoch = start_epoch
    while epoch < epochs:
        net.train()
        t0 = time.time()
        perm = torch.randperm(n).numpy()
        tot = 0.0
        done = 0
        for s in range(steps):
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
                 "rng": torch.get_rng_state(), "epochs_planned": epochs, "epoch_samples": steps * batch,
                 "seed": seed, "threads": threads, "spent_s": spent}
        save_atomic(state, ck)
        if vl < best or not math.isfinite(best):
            best = vl
            save_atomic(state, os.path.join(out, "best.pt"))
        with open(os.path.join(out, "history.json"), "w") as f:
            json.dump(hist, f, indent=1)
        log(f"strider-train: epoch {epoch + 1}/{epochs} train {tl:.4f} val {vl:.4f} "
            f"lr {hist['lr'][-1]:.2e} {dt:.0f} s ({done * batch / dt:.0f} samples/s)")
        epoch += 1
        if max_minutes and epoch < epochs and (time.time() - t_start) / 60.0 > max_minutes:
            log(f"strider-train: stopping after epoch {epoch}: time limit {max_minutes} min reached "
                f"(--resume continues to the same weights)")
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
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-minutes", type=float, default=0.0)
    ap.add_argument("--max-samples", type=int, default=0)
    ap.add_argument("--epoch-samples", type=int, default=0)
    ap.add_argument("--resume", action="store_true")
    a = ap.parse_args(argv)
    train(a.out, a.epochs, a.hidden, a.batch, a.lr, a.cycles, a.threads, a.max_minutes, a.resume,
          seed=a.seed, max_samples=a.max_samples, epoch_samples=a.epoch_samples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
