#!/usr/bin/env python3
"""The documentation's rules that no renderer checks.

  check_docs.py ROOT        check the tree at ROOT; exit 0, or 1 with one line per problem
  check_docs.py --self-test plant each kind of break in a scratch tree and expect exactly those

Rules:
  - every relative link and image in the Markdown files (README.md, docs/, tools/, assets/ and
    any other .md outside build/, out/ and hidden folders) names a file or folder that exists,
    inside the repository (a link out of it, to ../shared say, breaks in any other clone);
  - a link's #fragment into a Markdown file names one of its headings (GitHub's anchors);
  - README.md is at most 300 lines: it is the front door, the depth lives in docs/;
  - every docs/*.md is linked from README.md (its "where to read on"), so no page is lost.

What it reads as a link: [text](target), ![alt](target), [text](target "title"),
reference definitions ([id]: target) and HTML src="..." / href="..." attributes; fenced code
blocks and `code spans` are skipped. URLs with a scheme (https:, mailto:) are not fetched.
Does NOT: check external URLs, spelling, or whether the prose is true.
"""

import os
import re
import sys
import tempfile
import unicodedata
import urllib.parse

README_MAX_LINES = 300
SKIP_DIRS = {"build", "out", "node_modules", "__pycache__"}

INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ATTR = re.compile(r"""\b(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def strip_code_spans(line):
    """The line with `code spans` blanked out (a link inside one is text, not a link)."""
    return re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)


def prose_lines(text):
    """(line number, line) for every line outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark[0] * len(mark)
                continue
            if mark.startswith(fence):
                fence = None
                continue
        if fence is None:
            yield n, line


def slug(heading):
    """GitHub's anchor for a heading's text: lower case, markup and punctuation dropped,
    spaces to hyphens (hyphens and underscores kept)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.lower()
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "-_" or cat[0] in "LN":
            out.append(ch)
        elif ch == " ":
            out.append("-")
    return "".join(out)


def anchors(path, cache):
    if path not in cache:
        seen = {}
        found = set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in prose_lines(text):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            k = seen.get(base, 0)
            seen[base] = k + 1
            found.add(base if k == 0 else "%s-%d" % (base, k))
        # HTML anchors written by hand: <a name="x"> or id="x"
        for m in re.finditer(r"""<a\s+(?:name|id)\s*=\s*["']([^"']+)["']""", text, re.I):
            found.add(m.group(1))
        cache[path] = found
    return cache[path]


def links(text):
    """(line number, target) of every link and image in Markdown text."""
    for n, line in prose_lines(text):
        plain = strip_code_spans(line)
        for m in INLINE_LINK.finditer(plain):
            yield n, m.group(1).strip("<>")
        m = REF_DEF.match(plain)
        if m:
            yield n, m.group(1).strip("<>")
        for m in HTML_ATTR.finditer(plain):
            yield n, m.group(1)


def markdown_files(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("."))
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.join(d, f)


def check(root, counts=None):
    """The problems found under root, one line each; counts (a dict) gets files and links."""
    root = os.path.realpath(root)
    counts = {} if counts is None else counts
    counts.update(files=0, links=0)
    problems = []
    cache = {}
    readme = os.path.join(root, "README.md")
    if not os.path.isfile(readme):
        problems.append("README.md: missing")
    else:
        with open(readme, encoding="utf-8") as f:
            n = len(f.read().splitlines())
        if n > README_MAX_LINES:
            problems.append("README.md: %d lines, more than %d (move the depth to docs/)"
                            % (n, README_MAX_LINES))
    linked = set()  # files README.md links to
    for path in markdown_files(root):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        counts["files"] += 1
        for line, target in links(text):
            counts["links"] += 1
            where = "%s:%d: link '%s'" % (rel, line, target)
            if SCHEME.match(target) or target.startswith("//"):
                continue
            part, _, frag = target.partition("#")
            part = urllib.parse.unquote(part.split("?", 1)[0])
            if part == "":
                dest = path
            else:
                if part.startswith("/"):
                    problems.append(where + ": absolute path (write it relative to the file)")
                    continue
                dest = os.path.realpath(os.path.join(os.path.dirname(path), part))
                if dest != root and not dest.startswith(root + os.sep):
                    problems.append(where + ": leads out of the repository")
                    continue
                if not os.path.exists(dest):
                    problems.append(where + ": no such file")
                    continue
                if path == readme:
                    linked.add(dest)
            if frag and dest.endswith(".md") and os.path.isfile(dest):
                if urllib.parse.unquote(frag) not in anchors(dest, cache):
                    problems.append(where + ": no heading '#%s' in %s" % (frag, os.path.relpath(dest, root)))
    docs = os.path.join(root, "docs")
    if os.path.isfile(readme) and os.path.isdir(docs):
        for f in sorted(os.listdir(docs)):
            page = os.path.join(docs, f)
            if f.endswith(".md") and os.path.isfile(page) and os.path.realpath(page) not in linked:
                problems.append("README.md: docs/%s is not linked (add it to \"Where to read on\")" % f)
    return problems


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test():
    """A clean tree passes; each planted break is reported, and nothing else."""
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "repo")
        write(root, "docs/images/a.png", "")
        write(root, "tools/x/README.md", "# Tool\n\nBack to [the README](../../README.md#quick-start).\n")
        write(root, "docs/GUIDE.md",
              "# Guide\n\n## Importing glTF 2.0\n\n## Measured: `strider eval motion`\n\n## Same\n\n## Same\n\n"
              "![a](images/a.png) [self](#importing-gltf-20) [eval](#measured-strider-eval-motion) "
              "[second](#same-1) [up](../README.md) [tool](../tools/x/README.md) [dir](images/)\n"
              "[titled](images/a.png \"a title\") <img src=\"images/a.png\"> [web](https://example.org/x.md)\n"
              "```\n[in a fence](nowhere.md)\n# not a heading\n```\n"
              "`[in a span](nowhere.md)`\n\n[ref]: images/a.png\n")
        write(root, "README.md", "# R\n\n## Quick start\n\n![p](docs/images/a.png) [g](docs/GUIDE.md#same)\n")
        got = check(root)
        if got:
            print("self-test: the clean tree was refused:\n  " + "\n  ".join(got))
            return 1

        write(root, "README.md",
              "# R\n\n## Quick start\n\n![p](docs/images/gone.png) [g](docs/GUIDE.md#nowhere)\n"
              "[s](../shared/x.md) [abs](/etc/passwd) [m](docs/MISSING.md)\n" + "x\n" * 300)
        write(root, "docs/ORPHAN.md", "# Nobody links here\n")
        write(root, "docs/GUIDE.md", "# Guide\n\n[ref]: images/b.png\n<img src=\"images/c.png\">\n[back](#guide) [no](#nope)\n")
        got = check(root)
        want = [
            "README.md: 306 lines, more than 300",
            "README.md:5: link 'docs/images/gone.png': no such file",
            "README.md:5: link 'docs/GUIDE.md#nowhere': no heading '#nowhere'",
            "README.md:6: link '../shared/x.md': leads out of the repository",
            "README.md:6: link '/etc/passwd': absolute path",
            "README.md:6: link 'docs/MISSING.md': no such file",
            "docs/GUIDE.md:3: link 'images/b.png': no such file",
            "docs/GUIDE.md:4: link 'images/c.png': no such file",
            "docs/GUIDE.md:5: link '#nope': no heading '#nope'",
            "README.md: docs/ORPHAN.md is not linked",
        ]
        missing = [w for w in want if not any(g.startswith(w) for g in got)]
        extra = [g for g in got if not any(g.startswith(w) for w in want)]
        if missing or extra or len(got) != len(want):
            print("self-test: planted breaks not reported exactly")
            for m in missing:
                print("  missing: " + m)
            for e in extra:
                print("  unexpected: " + e)
            return 1
    print("self-test: %d planted breaks found, the clean tree passes" % len(want))
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2 or argv[1].startswith("-"):
        print("usage: check_docs.py ROOT | --self-test", file=sys.stderr)
        return 2
    if not os.path.isdir(argv[1]):
        print("check_docs: %s: not a folder" % argv[1], file=sys.stderr)
        return 2
    counts = {}
    problems = check(argv[1], counts)
    for p in problems:
        print("docs: " + p)
    if problems:
        return 1
    print("docs: all %d links and images in %d Markdown files resolve; README.md within %d lines"
          % (counts["links"], counts["files"], README_MAX_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
