"""Unit tests of the offline training pipeline (tools/train). Run from the repository root:
/usr/bin/python3 -m unittest tests/train/test_train.py   (or: /usr/bin/python3 tests/train/test_train.py)
They need no mocap data: fixtures are tiny hand-written BVH files and a synthetic walk on the
committed rest skeleton."""
import contextlib
import io
import math
import os
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "train"))
FIX = os.path.join(ROOT, "tests", "train", "fixtures")
SKEL = os.path.join(ROOT, "assets", "skeleton", "cmu21.skel")

import bvh  # noqa: E402
import export as EX  # noqa: E402
import features as FT  # noqa: E402
import labels as L  # noqa: E402
import motion as M  # noqa: E402
import pfnn  # noqa: E402
import prepare  # noqa: E402
import torch  # noqa: E402


def synthetic_walk_bvh(frames=150, fps=24.0, speed=100.0, seed=0, crouch=0.0):
    """BVH text of a crude walk on the rest skeleton: root forward at `speed` cm/s, legs swinging."""
    sk = bvh.read_skel(SKEL)
    rng = np.random.default_rng(seed)
    children = {j: [] for j in range(len(sk.names))}
    for j, p in enumerate(sk.parents):
        if p >= 0:
            children[p].append(j)
    ends = {p: e for e, p in enumerate(sk.end_parents)}
    out = ["HIERARCHY"]

    def emit(j, depth):
        t = "\t" * depth
        kind = "ROOT" if j == 0 else "JOINT"
        out.append(f"{t}{kind} {sk.names[j]}")
        out.append(t + "{")
        o = sk.offsets[j]
        out.append(f"{t}\tOFFSET {o[0]:.5f} {o[1]:.5f} {o[2]:.5f}")
        if j == 0:
            out.append(f"{t}\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation")
        else:
            out.append(f"{t}\tCHANNELS 3 Zrotation Yrotation Xrotation")
        for c in children[j]:
            emit(c, depth + 1)
        if j in ends:
            e = sk.end_offsets[ends[j]]
            out.extend([f"{t}\tEnd Site", f"{t}\t{{", f"{t}\t\tOFFSET {e[0]:.5f} {e[1]:.5f} {e[2]:.5f}", f"{t}\t}}"])
        out.append(t + "}")

    emit(0, 0)
    out += ["MOTION", f"Frames: {frames}", f"Frame Time: {1.0 / fps:.7f}"]
    names = sk.names
    for f in range(frames):
        t = f / fps
        s = math.sin(2 * math.pi * t)
        vals = np.zeros((len(names), 3))
        vals[names.index("lThigh"), 2] = -30 * s - 40 * crouch
        vals[names.index("rThigh"), 2] = 30 * s - 40 * crouch
        vals[names.index("lShin"), 2] = 20 * max(0.0, s) + 80 * crouch
        vals[names.index("rShin"), 2] = 20 * max(0.0, -s) + 80 * crouch
        vals += rng.normal(0, 0.5, vals.shape)
        row = [0.0, 92.0 - 45 * crouch, speed * t]
        for j in range(len(names)):
            row += [vals[j, 0], vals[j, 1], vals[j, 2]]
        out.append(" ".join(f"{v:.4f}" for v in row))
    return "\n".join(out) + "\n"


def synthetic_motion(category="walk", **kw):
    clip = bvh.parse_bvh(synthetic_walk_bvh(**kw), "synthetic.bvh")
    clip = M.resample(clip)
    return M.Motion(clip, "synthetic", category, False)


class TestBvh(unittest.TestCase):
    def test_tiny_bvh_exact_positions(self):
        clip = bvh.read_bvh(os.path.join(FIX, "tiny.bvh"))
        self.assertEqual(clip.names, ["base", "arm"])
        self.assertEqual(clip.frames, 3)
        gpos, _, endpos = bvh.fk(clip)
        # Hand-computed: frame 0 base at (1,2,3) turned 90 deg about Y, arm bent 90 deg about X.
        want_arm = [[1, 12, 3], [-10, 0, 0], [0, 10, 0]]
        want_end = [[6, 12, 3], [-15, 0, 0], [5, 10, 0]]
        np.testing.assert_allclose(gpos[:, 1], want_arm, atol=1e-9)
        np.testing.assert_allclose(endpos[:, 0], want_end, atol=1e-9)
        np.testing.assert_allclose(gpos[:, 0], [[1, 2, 3], [0, 0, 0], [0, 0, 0]], atol=1e-12)

    def test_channel_order_is_honoured(self):
        text = open(os.path.join(FIX, "tiny.bvh")).read().replace(
            "Yrotation Xrotation Zrotation", "Yrotation Zrotation Xrotation")
        # Same numbers, order now Y Z X: frame 1 is Rz(90)... applied after Rx(90): arm -> (0, 0, 10).
        text = text.replace("0.0 0.0 0.0 0.0 90.0 90.0 0.0 0.0", "0.0 0.0 0.0 0.0 90.0 90.0 0.0 0.0")
        clip = bvh.parse_bvh(text, "order.bvh")
        gpos, _, _ = bvh.fk(clip)
        np.testing.assert_allclose(gpos[1, 1], [0, 0, 10], atol=1e-9)

    def test_rest_skeleton_matches_bvh(self):
        sk = bvh.read_skel(SKEL)
        clip = bvh.parse_bvh(synthetic_walk_bvh(frames=10), "synthetic.bvh")
        bvh.check_against_skel(clip, sk)
        clip.offsets[3, 1] += 1.0
        with self.assertRaisesRegex(bvh.BvhError, r"synthetic.bvh:1: joint 'neck' offset differs"):
            bvh.check_against_skel(clip, sk)


class TestBadInput(unittest.TestCase):
    CASES = {
        "truncated.bvh": r"truncated\.bvh:\d+: truncated: 'Frames: 3' but only 2 frame lines",
        "wrong_count.bvh": r"wrong_count\.bvh:20: frame 1 has 7 values, the hierarchy declares 8 channels",
        "bad_channels.bvh": r"bad_channels\.bvh:10: joint 'arm' declares 3 channels but 'End' is not a channel",
        "nan.bvh": r"nan\.bvh:21: (frame 2 contains NaN|non-finite)",
        "empty.bvh": r"empty\.bvh:17: empty clip",
    }

    def test_each_bad_file_one_line_error(self):
        for name, pattern in self.CASES.items():
            with self.subTest(name=name):
                with self.assertRaises(bvh.BvhError) as cm:
                    bvh.read_bvh(os.path.join(FIX, name))
                msg = str(cm.exception)
                self.assertNotIn("\n", msg)
                self.assertRegex(msg, pattern)

    def test_bad_clips_are_skipped_and_logged(self):
        """A manifest with broken clips: each is skipped with one line; a run with none good fails."""
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "train"))
            rows = ["file,cmu_clip,category,cmu_description,frames,seconds,fps,mean_root_speed_units_per_s,note"]
            for name in ("truncated.bvh", "nan.bvh", "empty.bvh", "wrong_count.bvh"):
                with open(os.path.join(FIX, name)) as src, open(os.path.join(d, "train", name), "w") as dst:
                    dst.write(src.read())
                rows.append(f"train/{name},{name[:-4]},walk,x,1,1,24,1,")
            with open(os.path.join(d, "train", "good.bvh"), "w") as f:
                f.write(synthetic_walk_bvh(frames=120))
            rows.append("train/good.bvh,good,walk,x,120,5,24,100,")
            with open(os.path.join(d, "manifest.csv"), "w") as f:
                f.write("\n".join(rows) + "\n")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                info = prepare.build(d, os.path.join(d, "out"), SKEL)
            lines = [ln for ln in err.getvalue().splitlines() if "skip:" in ln]
            self.assertEqual(info["clips_loaded"], 1)
            self.assertEqual(len(info["clips_rejected"]), 4)
            self.assertEqual(len(lines), 4)
            for ln in lines:
                self.assertRegex(ln, r"strider-train: skip: .*\.bvh:\d+: ")
            # Only broken clips: the run must fail.
            os.remove(os.path.join(d, "train", "good.bvh"))
            with open(os.path.join(d, "manifest.csv"), "w") as f:
                f.write("\n".join(rows[:-1]) + "\n")
            with contextlib.redirect_stderr(io.StringIO()):
                with self.assertRaises(SystemExit) as cm:
                    prepare.build(d, os.path.join(d, "out2"), SKEL)
            self.assertIn("no usable clips", str(cm.exception.code))


class TestMotion(unittest.TestCase):
    def test_mirror_twice_is_identity(self):
        m = synthetic_motion()
        mm = M.mirror(M.mirror(m))
        self.assertTrue(np.array_equal(mm.clip.rot, m.clip.rot))
        self.assertTrue(np.array_equal(mm.clip.trans, m.clip.trans))
        self.assertTrue(np.array_equal(mm.clip.offsets, m.clip.offsets))
        self.assertTrue(np.array_equal(mm.gpos, m.gpos))

    def test_mirror_reflects_positions(self):
        m = synthetic_motion()
        mm = M.mirror(m)
        jm = M.mirror_map(m.clip.names)
        want = m.gpos[:, jm] * np.array([-1.0, 1.0, 1.0])
        np.testing.assert_allclose(mm.gpos, want, atol=1e-9)
        self.assertEqual(m.clip.names[jm[m.clip.names.index("lFoot")]], "rFoot")

    def test_resample_keeps_endpoints_and_rate(self):
        clip = bvh.parse_bvh(synthetic_walk_bvh(frames=25), "s.bvh")
        r = M.resample(clip)
        self.assertEqual(r.frames, 61)
        self.assertAlmostEqual(r.frame_time, 1 / 60)
        np.testing.assert_allclose(r.trans[0], clip.trans[0])
        np.testing.assert_allclose(r.trans[-1], clip.trans[-1])
        # 60 fps frame 5 is 24 fps frame 2 exactly; frame 3 is 1.2 source frames (lerp 0.8/0.2).
        np.testing.assert_allclose(r.trans[5, 0], clip.trans[2, 0], rtol=1e-12)
        np.testing.assert_allclose(r.trans[3, 0], 0.8 * clip.trans[1, 0] + 0.2 * clip.trans[2, 0], rtol=1e-12)


class TestLabels(unittest.TestCase):
    def _contacts(self, strikes_l, strikes_r, F, stance=20):
        c = np.zeros((F, 4))
        for f in strikes_l:
            c[f:f + stance, 0:2] = 1
        for f in strikes_r:
            c[f:f + stance, 2:4] = 1
        return c

    def test_phase_values_at_strikes_and_monotonic(self):
        left = [30, 100, 170, 240]
        right = [65, 135, 205]
        c = self._contacts(left, right, 300)
        ph = L.phase_from_contacts(c)
        for f in left:
            self.assertAlmostEqual(ph[f], 0.0, places=9)
        for f in right:
            self.assertAlmostEqual(ph[f], math.pi, places=9)
        d = np.mod(np.diff(ph), 2 * math.pi)
        # Strictly increasing (mod 2 pi) and linear between strikes: constant step in each interval.
        self.assertTrue(np.all(d > 0) and np.all(d < 0.5))
        np.testing.assert_allclose(d[30:64], math.pi / 35, rtol=1e-9)

    def test_phase_steady_when_standing(self):
        ph = L.phase_from_contacts(np.ones((240, 4)))
        d = np.mod(np.diff(ph), 2 * math.pi)
        np.testing.assert_allclose(d, L.STEADY_RATE / L.FPS, rtol=1e-9)
        # A 3 s pause between steps keeps a rate near the standing rate, never a jump.
        c = self._contacts([20], [200], 300, stance=10)
        d = np.mod(np.diff(L.phase_from_contacts(c)), 2 * math.pi)
        self.assertTrue(np.all(d > 0) and np.all(d < 2 * L.STEADY_RATE / L.FPS))

    def test_gait_weights_sum_to_one(self):
        for cat, kw in (("walk", {}), ("run", {"speed": 400.0}), ("idle", {"speed": 0.0}),
                        ("crouch", {"crouch": 1.0}), ("jump", {}), ("sneak", {"crouch": 0.5})):
            with self.subTest(cat=cat):
                m = synthetic_motion(cat, **kw)
                lab = L.label_motion(m)
                g = lab["gait"]
                np.testing.assert_allclose(g.sum(axis=1), 1.0, atol=1e-12)
                self.assertTrue(np.all(g >= 0))
                self.assertTrue(np.all(g[:, L.G_SPARE] == 0))
        g = L.label_motion(synthetic_motion("idle", speed=0.0))["gait"]
        self.assertGreater(g[:, L.G_STAND].mean(), 0.99)
        g = L.label_motion(synthetic_motion("walk", crouch=1.0))["gait"]
        self.assertGreater(g[:, L.G_CROUCH].mean(), 0.99)


class TestFeatures(unittest.TestCase):
    def test_layout_and_root_frame(self):
        import terrain as T
        m = synthetic_motion(frames=120)
        lab = L.label_motion(m)
        fits = T.fit_clip(m, lab["contacts"], T.make_patch_db(1, n=4), np.random.default_rng(0))
        rf = FT.root_frames(m, fits)
        X, Y, P, fr = FT.clip_features(m, lab, rf, fits)
        self.assertEqual(X.shape[1], FT.N_IN)
        self.assertEqual(Y.shape[1], FT.N_OUT)
        self.assertEqual(len(FT.input_layout(bvh.read_skel(SKEL).names)), FT.N_IN)
        # Walking straight along +Z at 100 cm/s: facing +Z, root velocity 100/60 cm per frame forward.
        np.testing.assert_allclose(X[:, FT.IX_DIR_Z + 6], 1.0, atol=1e-3)
        np.testing.assert_allclose(Y[:, FT.OY_RVEL_Z], 100.0 / 60.0, atol=1e-2)
        np.testing.assert_allclose(Y[:, FT.OY_RVEL_X], 0.0, atol=1e-2)
        # The current trajectory point is the root itself.
        np.testing.assert_allclose(X[:, FT.IX_POS_X + 6], 0.0, atol=1e-9)


class TestExport(unittest.TestCase):
    def _net(self, n_in=11, n_out=7, hidden=16):
        torch.manual_seed(0)
        net = pfnn.PFNN(n_in, n_out, hidden)
        with torch.no_grad():
            for b in net.b:
                b.normal_()
        return net.eval()

    def test_export_reload_bit_exact(self):
        net = self._net()
        rng = np.random.default_rng(0)
        Xm, Xs, Ym, Ys = (rng.normal(size=n).astype(np.float32) for n in (11, 11, 7, 7))
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "n.bin")
            EX.write_pfnn(p, net, Xm, np.abs(Xs) + 0.1, Ym, np.abs(Ys) + 0.1)
            r = EX.read_pfnn(p)
            for k in range(3):
                a = net.W[k].detach().numpy()
                self.assertTrue(np.array_equal(a.view(np.uint32), r[f"W{k}"].view(np.uint32)))
                self.assertTrue(np.array_equal(net.b[k].detach().numpy().view(np.uint32), r[f"b{k}"].view(np.uint32)))
            self.assertTrue(np.array_equal(Xm.view(np.uint32), r["Xmean"].view(np.uint32)))
            # Re-export from the reloaded network gives the identical file.
            p2 = os.path.join(d, "n2.bin")
            EX.write_pfnn(p2, EX.net_from_file(r), r["Xmean"], r["Xstd"], r["Ymean"], r["Ystd"])
            with open(p, "rb") as f1, open(p2, "rb") as f2:
                self.assertEqual(f1.read(), f2.read())
            # Little-endian header at the documented offsets.
            with open(p, "rb") as f:
                raw = f.read()
            self.assertEqual(raw[0:4], b"SPFN")
            self.assertEqual(int.from_bytes(raw[12:16], "little"), 11)
            self.assertEqual(int.from_bytes(raw[24:28], "little"), 7)
            self.assertEqual(int.from_bytes(raw[52:56], "little"), EX.fnv1a32(raw[64:]))

    def test_corrupt_files_rejected(self):
        net = self._net()
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "n.bin")
            EX.write_pfnn(p, net, *(np.ones(n, np.float32) for n in (11, 11, 7, 7)))
            with open(p, "rb") as f:
                raw = bytearray(f.read())
            for name, data, pat in (("flip", raw[:100] + bytes([raw[100] ^ 1]) + raw[101:], "byte 52: checksum"),
                                    ("short", raw[:-4], "payload|file size"),
                                    ("head", raw[:10], "byte 0: file is 10 bytes"),
                                    ("magic", b"XXXX" + raw[4:], "byte 0: bad magic")):
                with self.subTest(name=name):
                    q = os.path.join(d, name)
                    with open(q, "wb") as f:
                        f.write(bytes(data))
                    with self.assertRaisesRegex(EX.FormatError, pat):
                        EX.read_pfnn(q)

    def test_forward_formulations_agree(self):
        net = self._net()
        x = torch.randn(64, 11)
        ph = torch.rand(64) * 2 * math.pi
        ph[:4] = torch.tensor([0.0, math.pi / 2, math.pi, 2 * math.pi - 1e-5])
        a = net(x, ph)
        b = net.forward_blend(x, ph)
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
        d = {"Xmean": np.zeros(11), "Xstd": np.ones(11), "Ymean": np.zeros(7), "Ystd": np.ones(7)}
        for k in range(3):
            d[f"W{k}"] = net.W[k].detach().numpy()
            d[f"b{k}"] = net.b[k].detach().numpy()
        for i in range(8):
            np.testing.assert_allclose(EX.reference_forward(d, x[i].numpy(), float(ph[i])), b[i].numpy(), atol=1e-5)
        # Catmull-Rom weights sum to one and interpolate control points exactly.
        c = pfnn.catmull_rom_coeffs(torch.linspace(0, 2 * math.pi, 50, dtype=torch.float64))
        torch.testing.assert_close(c.sum(1), torch.ones(50, dtype=torch.float64))
        c = pfnn.catmull_rom_coeffs(torch.tensor([math.pi / 2], dtype=torch.float64))
        torch.testing.assert_close(c[0], torch.tensor([0.0, 1.0, 0.0, 0.0], dtype=torch.float64))

    def test_refs_roundtrip(self):
        rng = np.random.default_rng(1)
        ph = rng.uniform(0, 6, 5).astype(np.float32)
        X = rng.normal(size=(5, 11)).astype(np.float32)
        Y = rng.normal(size=(5, 7)).astype(np.float32)
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "r.bin")
            EX.write_refs(p, ph, X, Y)
            a, b, c = EX.read_refs(p)
            self.assertTrue(np.array_equal(a, ph) and np.array_equal(b, X) and np.array_equal(c, Y))


class TestTrainResume(unittest.TestCase):
    def test_checkpoint_resume(self):
        import train
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "train"))
            with open(os.path.join(d, "train", "w.bvh"), "w") as f:
                f.write(synthetic_walk_bvh(frames=120))
            with open(os.path.join(d, "manifest.csv"), "w") as f:
                f.write("file,cmu_clip,category\ntrain/w.bvh,w,walk\n")
            out = os.path.join(d, "out")
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                prepare.build(d, out, SKEL)
                h1 = train.train(out, epochs=1, hidden=8, batch=32)
                w1 = torch.load(os.path.join(out, "ckpt.pt"))["model"]["W.0"].clone()
                h2 = train.train(out, epochs=3, hidden=8, batch=32, resume=True)
            self.assertEqual(h1["epoch"], [1])
            self.assertEqual(h2["epoch"], [1, 2, 3])
            self.assertEqual(h2["train_loss"][0], h1["train_loss"][0])
            w3 = torch.load(os.path.join(out, "ckpt.pt"))["model"]["W.0"]
            self.assertFalse(torch.equal(w1, w3))
            with contextlib.redirect_stdout(io.StringIO()):
                with self.assertRaises(SystemExit):
                    train.train(out, epochs=4, hidden=16, batch=32, resume=True)


class TestRepeatable(unittest.TestCase):
    """The same training command gives the same weights: seeds, thread counts, a budget in
    samples, and a stop-and-resume that lands on the weights of an uninterrupted run."""

    def _db(self, d):
        os.makedirs(os.path.join(d, "train"))
        with open(os.path.join(d, "train", "w.bvh"), "w") as f:
            f.write(synthetic_walk_bvh(frames=120))
        with open(os.path.join(d, "manifest.csv"), "w") as f:
            f.write("file,cmu_clip,category\ntrain/w.bvh,w,walk\n")
        out = os.path.join(d, "out")
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            prepare.build(d, out, SKEL)
        return out

    def _weights(self, out):
        return torch.load(os.path.join(out, "ckpt.pt"))["model"]

    def _same(self, a, b):
        return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)

    def test_same_command_same_weights(self):
        import train
        with tempfile.TemporaryDirectory() as d:
            out = self._db(d)
            with contextlib.redirect_stdout(io.StringIO()):
                train.train(out, epochs=2, hidden=8, batch=32, epoch_samples=64)
                w1 = self._weights(out)
                os.remove(os.path.join(out, "ckpt.pt"))
                train.train(out, epochs=2, hidden=8, batch=32, epoch_samples=64)
                w2 = self._weights(out)
                os.remove(os.path.join(out, "ckpt.pt"))
                train.train(out, epochs=2, hidden=8, batch=32, epoch_samples=64, seed=2)
                w3 = self._weights(out)
            self.assertTrue(self._same(w1, w2))
            self.assertFalse(self._same(w1, w3))

    def test_stop_and_resume_lands_on_the_same_weights(self):
        import train
        with tempfile.TemporaryDirectory() as d:
            out = self._db(d)
            with contextlib.redirect_stdout(io.StringIO()):
                train.train(out, epochs=3, hidden=8, batch=32, epoch_samples=64)
                whole = self._weights(out)
                os.remove(os.path.join(out, "ckpt.pt"))
                # A time limit that any epoch passes: stops after the first.
                h = train.train(out, epochs=3, hidden=8, batch=32, epoch_samples=64, max_minutes=1e-9)
                self.assertEqual(h["epoch"], [1])
                train.train(out, epochs=3, hidden=8, batch=32, epoch_samples=64, resume=True)
                resumed = self._weights(out)
            self.assertTrue(self._same(whole, resumed))

    def test_threads_are_honoured(self):
        import threads
        saved = {v: os.environ.get(v) for v in threads.ENV_VARS}
        try:
            threads.limit_env_from_argv(["--out", "x", "--threads", "3"])
            self.assertTrue(all(os.environ[v] == "3" for v in threads.ENV_VARS))
            threads.limit_env_from_argv(["--threads=2"])
            self.assertTrue(all(os.environ[v] == "2" for v in threads.ENV_VARS))
            threads.limit_torch(torch, 1)
            self.assertEqual(torch.get_num_threads(), 1)
        finally:
            for v, x in saved.items():
                if x is None:
                    os.environ.pop(v, None)
                else:
                    os.environ[v] = x

    def test_budget_in_minutes_is_refused(self):
        import pipeline
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = pipeline.main(["--out", "unused", "--budget-minutes", "44"])
        self.assertEqual(rc, 2)
        self.assertEqual(len(err.getvalue().strip().splitlines()), 1)
        self.assertIn("--epochs", err.getvalue())


if __name__ == "__main__":
    unittest.main()
