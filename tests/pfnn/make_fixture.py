"""Makes the tiny PFNN test fixture in tests/pfnn/fixtures/ with the real training pipeline.

Usage (from the repository root; a few seconds on 2 cores):
  nice /usr/bin/python3 tests/pfnn/make_fixture.py [--hidden 12] [--refs 24] [--work /tmp/pfnn_fixture]
It trains a 282 -> H -> H -> 284 PFNN for one epoch on 2 clips (tools/train/pipeline.py), exports
pfnn.bin + pfnn_ref.bin (docs/FORMATS_PFNN.md), and keeps the first REFS reference vectors (the
first 8 are the control-point and wrap phases), so the committed files stay small.
The weights are barely trained; the fixture tests the C runtime's arithmetic, not the motion.
  /usr/bin/python3 tests/pfnn/make_fixture.py --seeds-only
writes the libFuzzer seeds in tests/pfnn/fuzz_seeds_pfnn/: a valid 5-3-4-2 network with random
weights (the fuzz harness accepts any dims), corrupt variants of it, and a one-record pfnn_ref.bin.
"""
import argparse
import os
import struct
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.join(root, "tools", "train"))
import export as EX  # noqa: E402
import numpy as np  # noqa: E402


def write_seeds(dest, fixture_ref):
    os.makedirs(dest, exist_ok=True)
    rng = np.random.default_rng(11)
    n_in, h0, h1, n_out = 5, 3, 4, 2
    arr = [rng.normal(size=n_in), rng.uniform(0.5, 2, n_in), rng.normal(size=n_out), rng.uniform(0.5, 2, n_out)]
    for _ in range(4):
        for o, i in ((h0, n_in), (h1, h0), (n_out, h1)):
            arr += [rng.uniform(-1, 1, (o, i)), rng.uniform(-0.1, 0.1, o)]
    payload = b"".join(np.ascontiguousarray(a, dtype="<f4").tobytes() for a in arr)

    def image(pay, **over):
        f = dict(n_in=n_in, h0=h0, h1=h1, n_out=n_out, csum=EX.fnv1a32(pay))
        f.update(over)
        return struct.pack("<4s15I", b"SPFN", 1, 64, f["n_in"], f["h0"], f["h1"], f["n_out"], 4, 21, 12, 6, 0,
                           len(pay), f["csum"], 0, 0) + pay

    good = image(payload)
    nan = bytearray(payload)
    nan[40:44] = struct.pack("<f", float("nan"))
    seeds = {
        "valid_5_3_4_2.bin": good,
        "truncated.bin": good[:-7],
        "bad_magic.bin": b"XPFN" + good[4:],
        "bad_checksum.bin": image(payload, csum=1),
        "wrong_dims.bin": image(payload, h0=4),
        "nan_weight.bin": image(bytes(nan)),
    }
    phases, X, Y = EX.read_refs(fixture_ref)
    tmp = os.path.join(dest, "ref_one_record.bin")
    EX.write_refs(tmp, phases[:1].copy(), X[:1], Y[:1])
    for name, data in seeds.items():
        with open(os.path.join(dest, name), "wb") as f:
            f.write(data)
    print(f"make_fixture: {len(seeds) + 1} fuzz seeds in {dest}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hidden", type=int, default=12)
    ap.add_argument("--refs", type=int, default=24)
    ap.add_argument("--work", default="/tmp/pfnn_fixture")
    ap.add_argument("--dest", default=os.path.join(here, "fixtures"))
    ap.add_argument("--seeds-only", action="store_true")
    a = ap.parse_args()
    if a.seeds_only:
        write_seeds(os.path.join(here, "fuzz_seeds_pfnn"), os.path.join(a.dest, "tiny_pfnn_ref.bin"))
        return 0
    net_dir = os.path.join(a.work, "net")
    subprocess.run([sys.executable, os.path.join(root, "tools", "train", "pipeline.py"),
                    "--max-clips", "2", "--epochs", "1", "--batch", "64", "--hidden", str(a.hidden),
                    "--out", os.path.join(a.work, "train"), "--dest", net_dir], check=True, cwd=root)
    os.makedirs(a.dest, exist_ok=True)
    shutil.copyfile(os.path.join(net_dir, "pfnn.bin"), os.path.join(a.dest, "tiny_pfnn.bin"))
    phases, X, Y = EX.read_refs(os.path.join(net_dir, "pfnn_ref.bin"))
    n = min(a.refs, len(phases))
    EX.write_refs(os.path.join(a.dest, "tiny_pfnn_ref.bin"), phases[:n].copy(), X[:n], Y[:n])
    print(f"make_fixture: {a.dest}/tiny_pfnn.bin, tiny_pfnn_ref.bin ({n} vectors)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
