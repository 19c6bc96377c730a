"""A frame strip of a crowd in play: N characters wandering on a level, one
frame every K fixed steps, side by side, the step above each frame.

Usage (under Xvfb):
  xvfb-run -a -s "-screen 0 1280x720x24" /usr/bin/python3 tools/docs/crowd_strip.py \
      [--strider build/release/strider] [--level course] [--crowd 30] [--seed 7] \
      [--from-step 180] [--every 10] [--frames 6] --out strip.png

It plays a script that only takes screenshots (the player stands; the
others wander on --crowd-seed) in a temporary folder, so the frames are the
game's own (`strider --script S --hidden`), then lays them out in one row.
Needs Debian python3-pil (Pillow); run with /usr/bin/python3. Exit 1 when
the run fails, 2 on a usage error.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SIZE = (480, 300)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--strider", default=os.path.join(ROOT, "build", "release", "strider"))
    ap.add_argument("--level", default="course")
    ap.add_argument("--crowd", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--from-step", type=int, default=180)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--frames", type=int, default=6)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.crowd < 2 or a.frames < 1 or a.every < 1 or a.from_step < 0:
        ap.error("--crowd >= 2, --frames >= 1, --every >= 1, --from-step >= 0")
    steps = [a.from_step + k * a.every for k in range(a.frames)]
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "strip.script")
        with open(script, "w") as f:
            # A screenshot at time T is taken after the step that ends there.
            for s in steps:
                f.write("%.6f screenshot\n" % (s / 60.0))
            f.write("%.6f quit\n" % ((steps[-1] + 2) / 60.0))
        cmd = [os.path.abspath(a.strider), "--data", ROOT, "--level", a.level, "--crowd", str(a.crowd),
               "--crowd-seed", str(a.seed), "--script", script, "--hidden", "--quiet",
               "--size", "%dx%d" % SIZE]
        if subprocess.run(cmd, cwd=tmp).returncode != 0:
            print("crowd_strip: strider failed: %s" % " ".join(cmd), file=sys.stderr)
            return 1
        shots = sorted(glob.glob(os.path.join(tmp, "strider-*.png")))
        if len(shots) != a.frames:
            print("crowd_strip: %d screenshots, expected %d" % (len(shots), a.frames), file=sys.stderr)
            return 1
        label = 18
        strip = Image.new("RGB", (SIZE[0] * a.frames, SIZE[1] + label), (255, 255, 255))
        draw = ImageDraw.Draw(strip)
        for k, path in enumerate(shots):
            strip.paste(Image.open(path).convert("RGB"), (k * SIZE[0], label))
            draw.text((k * SIZE[0] + 6, 3), "step %d (%.2f s)" % (steps[k], steps[k] / 60.0), fill=(0, 0, 0))
        strip.save(a.out)
    print("crowd_strip: wrote %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
