"""`strider eval motion --dump-dir D --dump-member N` on a crowd scenario: member N's displayed
pose, IK on and off (the goals' reference run), in the format of a single scenario's dump (same header), one row a step;
another member's rows differ; the misses name the member with the largest turn; a member past the last is one error
line and exit 1."""
import csv
import os
import re
import subprocess
import sys
import tempfile


def main():
    strider_eval, out = sys.argv[1], tempfile.mkdtemp(prefix="dump_member_")
    fails = 0

    def check(ok, what):
        nonlocal fails
        print(("ok   " if ok else "FAIL ") + what)
        fails += 0 if ok else 1

    def rows(path):
        with open(path) as f:
            return list(csv.reader(f))

    # The goals (the default check) run the IK-off reference too; crowd20_course misses some
    # (exit 1), so a run is judged by its files.
    base = [strider_eval, "motion", "--dump-dir", out]
    subprocess.run(base + ["--scenario", "flat_idle"], capture_output=True, text=True, timeout=300)
    header = rows(os.path.join(out, "flat_idle.csv"))[0]
    for member in (3, 7):
        r = subprocess.run(base + ["--scenario", "crowd20_course", "--dump-member", str(member)], capture_output=True,
                           text=True, timeout=600)
        check(r.returncode in (0, 1) and "error" not in r.stderr,
              "crowd20_course --dump-member %d runs (%d: %s)" % (member, r.returncode, r.stderr.strip()[-200:]))
    # A crowd's misses name the member with the largest turn, for --dump-member.
    turn = re.search(r"largest turn: member (\d+), (\w+) ([\d.]+) deg at step (\d+)", r.stdout)
    check(r.returncode == 1 and turn is not None, "the crowd's misses name the largest turn")
    on3 = rows(os.path.join(out, "crowd20_course_member3.csv"))
    off3 = rows(os.path.join(out, "crowd20_course_member3_ik_off.csv"))
    on7 = rows(os.path.join(out, "crowd20_course_member7.csv"))
    check(on3[0] == header and off3[0] == header, "the members' dumps have the single scenario's columns")
    check(len(on3) == len(off3) == len(on7) == 1801, "a row per step of the 30 s crowd (%d, %d, %d)"
          % (len(on3), len(off3), len(on7)))
    step = header.index("step")
    check([int(r[step]) for r in on3[1:4]] == [1, 2, 3], "steps count from 1")
    if turn:
        check(int(turn.group(1)) < 20 and turn.group(2) + "_x" in header and 0 < float(turn.group(3)) < 180
              and 1 <= int(turn.group(4)) <= 1800, "the largest turn: a member, a joint, a step (%s)" % turn.group(0))
    root = [header.index(c) for c in ("root_x", "root_z")]
    check(any(on3[i][k] != on7[i][k] for i in range(1, len(on3)) for k in root),
          "another member's dump holds another path")
    foot = header.index("lFoot_y")
    check(any(on3[i][foot] != off3[i][foot] for i in range(1, len(on3))), "IK on and off differ")
    r = subprocess.run(base + ["--scenario", "crowd20_course", "--dump-member", "20"], capture_output=True,
                       text=True, timeout=600)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 1 and len(lines) == 1 and "--dump-member 20" in lines[0] and "20 members" in lines[0],
          "a member past the last: one line, exit 1 (%d: %s)" % (r.returncode, r.stderr.strip()))
    print("%d failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
