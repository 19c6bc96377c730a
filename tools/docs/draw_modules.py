#!/usr/bin/python3
"""Draws src/'s modules and the includes between them as an SVG, one row
per layer of docs/ARCHITECTURE.md, at any commit: an arrow per pair of
modules with the number of #include lines on it; arrows that point up the
layer order or sideways between commands are red.

usage: draw_modules.py [--rev REV] OUT.svg     (run in the repository;
                                                default REV: the work tree)
"""
import os
import re
import subprocess
import sys

LAYERS = [["core"], ["anim"], ["asset"], ["pfnn"], ["world"], ["ctrl"], ["game"], ["render"], ["ui"],
          ["app", "bench", "eval"]]
ALLOWED_SIDEWAYS = {("bench", "app")}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([a-z_]+)/', re.M)


def files_at(rev):
    if rev is None:
        for d, _, fs in os.walk("src"):
            for f in fs:
                p = os.path.join(d, f)
                if p.endswith((".c", ".h", ".cpp")):
                    with open(p, encoding="utf-8", errors="replace") as fh:
                        yield p, fh.read()
        return
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "src"], check=True,
                           capture_output=True, text=True).stdout.split()
    for p in names:
        if p.endswith((".c", ".h", ".cpp")):
            yield p, subprocess.run(["git", "show", "%s:%s" % (rev, p)], check=True, capture_output=True,
                                    text=True, errors="replace").stdout


def edges(rev):
    count, modules = {}, set()
    for path, text in files_at(rev):
        parts = path.split("/")
        if len(parts) < 3:
            continue
        mod = parts[1]
        modules.add(mod)
        for m in INCLUDE_RE.finditer(text):
            used = m.group(1)
            if used != mod and used != "shaders":
                count[(mod, used)] = count.get((mod, used), 0) + 1
    return modules, count


def draw(modules, count, title):
    rank = {m: i for i, layer in enumerate(LAYERS) for m in layer}
    rows = [[m for m in layer if m in modules] for layer in LAYERS]
    extra = sorted(m for m in modules if m not in rank)  # modules a layer list does not know (yet)
    if extra:
        rows.append(extra)
    rows = [r for r in rows if r]
    bw, bh, gx, gy = 110, 34, 40, 56
    width = 60 + max(len(r) for r in rows) * (bw + gx) + 420
    pos = {}
    for i, r in enumerate(reversed(rows)):
        y = 80 + i * (bh + gy)
        x0 = 40 + (max(len(q) for q in rows) - len(r)) * (bw + gx) / 2
        if len(r) == 1:  # single modules zig-zag, so arrows that skip layers do not run through them
            x0 += (-1 if i % 2 else 1) * (bw + gx) * 0.6
        for j, m in enumerate(r):
            pos[m] = (x0 + 100 + j * (bw + gx), y)
    height = 80 + len(rows) * (bh + gy) + 20
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="13">' % (width, height),
           '<defs><marker id="a" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker>'
           '<marker id="r" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#d22"/></marker></defs>',
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="20" y="28" font-size="15" font-weight="bold">%s</text>' % title]
    bad = 0
    for (a, b), n in sorted(count.items()):
        if a not in pos or b not in pos:
            continue
        up = a in rank and b in rank and (rank[b] > rank[a] or (rank[b] == rank[a] and (a, b) not in ALLOWED_SIDEWAYS))
        up = up or a not in rank or b not in rank
        bad += n if up else 0
        (x1, y1), (x2, y2) = pos[a], pos[b]
        sx, sy = x1 + bw / 2, y1 + (0 if y2 < y1 else bh)
        ex, ey = x2 + bw / 2, y2 + (bh if y2 < y1 else 0)
        if y1 == y2:
            sy, ey = y1 + bh / 2, y2 + bh / 2
            sx, ex = (x1 + bw, x2) if x2 > x1 else (x1, x2 + bw)
        colour = "#d22" if up else "#888"
        # Arrows that skip layers bow out to the side, the further the more.
        skip = abs(y2 - y1) / (bh + gy)
        side = 1 if (sum(map(ord, a + b)) % 2) else -1
        cx, cy = (sx + ex) / 2 + (side * 45 * (skip - 1) if skip > 1 else 0), (sy + ey) / 2
        if y1 == y2:  # between commands: over the top, the further apart the higher
            sx, ex = x1 + bw / 2, x2 + bw / 2
            sy = ey = y1
            cy = y1 - 14 * abs(x2 - x1) / (bw + gx)
        out.append('<path d="M%.0f,%.0f Q%.0f,%.0f %.0f,%.0f" fill="none" stroke="%s" stroke-width="%.1f" '
                   'marker-end="url(#%s)"/>' % (sx, sy, cx, cy, ex, ey, colour, 1.0 + min(n, 20) / 8.0,
                                                 "r" if up else "a"))
        lx, ly = 0.25 * sx + 0.5 * cx + 0.25 * ex, 0.25 * sy + 0.5 * cy + 0.25 * ey
        out.append('<text x="%.0f" y="%.0f" fill="%s" font-size="10">%d</text>' % (lx + 3, ly, colour, n))
    for m, (x, y) in pos.items():
        out.append('<rect x="%.0f" y="%.0f" width="%d" height="%d" rx="6" fill="#eef3fb" stroke="#345"/>' %
                   (x, y, bw, bh))
        out.append('<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>' % (x + bw / 2, y + bh / 2 + 5, m))
    out.append('<text x="%d" y="%d" fill="#d22">includes against the layer order: %d</text>' %
               (width - 300, height - 12, bad))
    out.append("</svg>")
    return "\n".join(out) + "\n", bad


def main():
    args = sys.argv[1:]
    rev = None
    if len(args) == 3 and args[0] == "--rev":
        rev, args = args[1], args[2:]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    modules, count = edges(rev)
    svg, bad = draw(modules, count, "src/ modules and their includes at %s" % (rev or "the work tree"))
    with open(args[0], "w") as f:
        f.write(svg)
    print("%s: %d modules, %d module pairs, %d includes against the layer order" %
          (args[0], len(modules), len(count), bad))
    return 0


if __name__ == "__main__":
    sys.exit(main())
