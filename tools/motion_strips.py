"""Frame strips of the character in play, foot IK on above the network alone (IK off) below,
side view, every fixed step around a moment worth looking at: a toe-off, a heel strike, a
landing, a crouch-jump and a stair step.

Usage (under Xvfb):
  xvfb-run -a -s "-screen 0 1280x720x24" /usr/bin/python3 tools/motion_strips.py \
      [--strider build/release/strider] [--out strips/] [--cases toe_off,heel_strike,...] [--frames 12]

For each case it plays a script through the game (`strider --script S --hidden`) twice, with
and without `--no-ik`, from the same inputs; the first, IK-on run also writes `--dump-pose`,
from which the moment is found (a toe's contact ending, a heel's beginning, the first contact
after a jump's flight, the last before a crouch-jump's, the root's largest step up on `steps`).
The script then has a `screenshot` on every step from a few before the moment, each PNG is
cropped around the character (the camera follows it, so it stays near the middle), and the
two runs' crops are laid out in two rows, the step number above each column, into
OUT/CASE.png. The camera looks from the character's side: the scripts walk it to the
camera's right (`move 1 0`) or orbit the camera round first.
Needs Debian python3-pil (Pillow); run with /usr/bin/python3. Exit 1 when a run fails or a
moment is not found, 2 on a usage error.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

from PIL import Image, ImageDraw, ImageFont

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SIZE = (640, 480)
# Crop around the character (pixels of a SIZE screenshot): the camera keeps it near the middle.
CROP = (190, 30, 450, 470)
BEFORE = 4  # steps shown before the moment

# name: (level, script, seconds to play, how the moment is found, what the strip shows). At the
# start the camera looks along +z behind the character: `move 1 0` walks it towards -x, seen
# from its side; after the camera has orbited 90 degrees, `move 1 0` walks it towards +z.
CASES = {
    "toe_off": ("flat", "0.0 move 1 0 speed 0\n", 6.0, "toe_off", "walking: a toe leaving the ground"),
    "heel_strike": ("flat", "0.0 move 1 0 speed 0\n", 6.0, "heel_strike", "walking: a heel coming down"),
    "landing": ("flat", "0.0 move 1 0 speed 0\n1.5 jump 1\n1.6 jump 0\n", 6.0, "landing",
                "a walking jump's landing"),
    "crouch_jump": ("flat", "0.0 move 1 0 speed 0 crouch 1\n1.8 crouch 0 jump 1\n1.9 jump 0\n", 6.0, "take_off",
                    "a crouched walk into a jump: the take-off"),
    # From the spawn east to the platform's stairs (x 1400..1800, 18 cm steps from z -1000),
    # then, the camera orbited to the side, north up the first stair.
    "stair_step": ("steps", "0.0 move -1 0 speed 1\n6.8 move 0 0\n7.2 orbit 90 0\n8.2 orbit 0 0 move 1 0 speed 1\n"
                   "10.5 speed 0\n", 16.2, "step_up", "walking up the first 18 cm stair"),
}


def fail(msg, code=1):
    print(f"motion_strips: error: {msg}", file=sys.stderr)
    sys.exit(code)


def run(strider, level, script_text, seconds, work, tag, ik, dump=None, shots=()):
    path = os.path.join(work, f"{tag}.script")
    # Halve the camera's distance over the first half second (zoom is log-distance per second).
    lines = ["0.0 zoom 1.39\n0.5 zoom 0\n", script_text]
    for s in shots:
        lines.append(f"{s / 60.0:.4f} screenshot\n")
    end = (max(shots) + 2) / 60.0 if shots else seconds
    lines.append(f"{end:.4f} quit\n")
    # Events must not go back in time: sort the timed lines (stable for equal times).
    body = "".join(lines).splitlines()
    body = sorted((ln for ln in body if ln.strip()), key=lambda ln: float(ln.split()[0]))
    with open(path, "w") as f:
        f.write("\n".join(body) + "\n")
    cmd = [strider, "--data", ROOT, "--level", level, "--script", path, "--hidden",
           "--size", f"{SIZE[0]}x{SIZE[1]}"]
    if not ik:
        cmd.append("--no-ik")
    if dump:
        cmd += ["--dump-pose", dump]
    r = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}: {(r.stderr.strip().splitlines() or [''])[-1]}")


def read_dump(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        fail(f"{path}: no rows")
    return rows


def find_moment(rows, how):
    """The step (1-based, as the dump counts) of the moment HOW."""
    on = lambda r, p: r[f"contact_{p}"] == "1"  # noqa: E731
    pts = ("l_heel", "l_toe", "r_heel", "r_toe")
    first = 90  # after the start: 1.5 s
    flight = 0
    for i in range(max(first, 1), len(rows)):
        a, b = rows[i - 1], rows[i]
        flight = flight + 1 if not any(on(a, p) for p in pts) else 0
        # A push-off's end: a toe lets go with its heel already up.
        if how == "toe_off" and any(on(a, t) and not on(b, t) and not on(a, h) and not on(b, h)
                                    for t, h in (("l_toe", "l_heel"), ("r_toe", "r_heel"))):
            return int(b["step"])
        if how == "heel_strike" and any(not on(a, p) and on(b, p) for p in ("l_heel", "r_heel")) and i > first + 20:
            return int(b["step"])
        # The first contact after a jump's flight of 6 steps or more.
        if how == "landing" and float(b["gait_jump"]) > 0.3 and flight >= 6 and any(on(b, p) for p in pts):
            return int(b["step"])
    if how == "take_off":
        for i in range(1, len(rows)):
            a, b = rows[i - 1], rows[i]
            if float(b["gait_jump"]) > 0.3 and any(on(a, p) for p in pts) and not any(on(b, p) for p in pts):
                return int(b["step"])
    if how == "step_up":
        # The terrain is sampled every 20 cm, so a stair's edge is a ramp the root climbs over
        # about ten steps: the last such climb of 8 cm or more (the first stair of the flight).
        y = [float(r["root_y"]) for r in rows]
        at = None
        for i in range(first, len(rows) - 10):
            if y[i + 10] - y[i] > 8.0 and (i == 0 or y[i] - y[i - 10] < 2.0):
                at = int(rows[i + 5]["step"])
        if at is not None:
            return at
    fail(f"no {how} found in the run")


def label_font():
    for p in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",):
        if os.path.exists(p):
            return ImageFont.truetype(p, 13)
    return ImageFont.load_default()


def strip(work, steps, out, title):
    font = label_font()
    w, h = CROP[2] - CROP[0], CROP[3] - CROP[1]
    top, left = 38, 70
    img = Image.new("RGB", (left + w * len(steps), top + 2 * h), "white")
    d = ImageDraw.Draw(img)
    d.text((6, 4), title, fill="black", font=font)
    for row, tag in enumerate(("on", "off")):
        d.text((6, top + row * h + h // 2 - 8), "IK on" if tag == "on" else "IK off", fill="black", font=font)
        for col, s in enumerate(steps):
            path = os.path.join(work, tag, f"strider-{s:06d}.png")
            if not os.path.exists(path):
                fail(f"screenshot {path} missing")
            with Image.open(path) as shot:
                img.paste(shot.convert("RGB").crop(CROP), (left + col * w, top + row * h))
            if row == 0:
                d.text((left + col * w + 4, top - 16), str(s), fill="black", font=font)
    img.save(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--strider", default=os.path.join(ROOT, "build", "release", "strider"))
    ap.add_argument("--out", default="strips")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--frames", type=int, default=12)
    a = ap.parse_args(argv)
    names = [c for c in a.cases.split(",") if c]
    bad = [c for c in names if c not in CASES]
    if bad or not names:
        fail(f"unknown case '{','.join(bad)}' (cases: {','.join(CASES)})", 2)
    if not 1 <= a.frames <= 60:
        fail(f"--frames must be 1..60, got {a.frames}", 2)
    if not os.access(a.strider, os.X_OK):
        fail(f"{a.strider}: not an executable (build it, or give --strider)")
    os.makedirs(a.out, exist_ok=True)
    for name in names:
        level, script, seconds, how, title = CASES[name]
        with tempfile.TemporaryDirectory() as work:
            dump = os.path.join(work, "dump.csv")
            run(a.strider, level, script, seconds, work, "probe", True, dump=dump)
            moment = find_moment(read_dump(dump), how)
            steps = list(range(max(1, moment - BEFORE), max(1, moment - BEFORE) + a.frames))
            for tag, ik in (("on", True), ("off", False)):
                os.makedirs(os.path.join(work, tag))
                run(a.strider, level, script, seconds, os.path.join(work, tag), tag, ik, shots=steps)
            out = os.path.join(a.out, f"{name}.png")
            strip(work, steps, out, f"{title} (step {moment}; steps {steps[0]}-{steps[-1]}, 1/60 s apart; "
                                    f"top: foot IK on, bottom: the network alone)")
            print(f"motion_strips: {out}: {how} at step {moment}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
