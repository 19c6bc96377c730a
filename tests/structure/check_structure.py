#!/usr/bin/python3
"""The house rules of src/ that a compiler does not check:

1. layers: src/ is a stack of modules (docs/ARCHITECTURE.md)
       core -> anim -> asset -> pfnn -> world -> ctrl -> game -> render -> ui
       -> the commands: app, bench, eval
   and a module includes headers of, and links, only modules below it (and
   itself). The commands stand side by side and do not use each other, but
   for ALLOWED_SIDEWAYS (bench render plays the game's own frames). So no
   cycle can form, and the headless part (up to game) never sees a window.
2. gl: every gl* call and every GL header lives in src/render/, in the GPU
   benchmark engines of src/bench/gpu/, or in the UI bridge
   src/ui/ui_bridge.cpp. Comments and string literals do not count.
3. size: no .c file in src/ is longer than MAX_C_LINES lines.
4. function: no function in a .c file of src/ is longer than
   MAX_FUNCTION_LINES lines, from the line of its name to its closing brace
   (as ctags counts), found by matching the braces of top-level bodies with
   comments, strings and preprocessor lines blanked.
Files and functions still being split in other branches are listed in
ALLOWED_LONG (path, or path:function -> why); an entry that no longer breaks
its rule is reported too, so the list is emptied as the work lands.
5. types: every typedef in src/, tests/ and tools/ names a type ending in
   _t, and a tagged struct/union/enum carries its typedef's name as its tag
   (typedef struct pose_t { ... } pose_t;). docs/STYLE_HOUSE.md says why.

usage: check_structure.py ROOT      check ROOT/src (and, for types, ROOT/tests
                                    and ROOT/tools); exit 1 with one line per
                                    broken rule (file:line: rule: what)
       check_structure.py --self-test
                                    plant one break of each rule (and things
                                    that look like breaks but are not) in a
                                    scratch tree and check that exactly the
                                    breaks are reported
"""
import os
import re
import sys
import tempfile

LAYERS = [["core"], ["anim"], ["asset"], ["pfnn"], ["world"], ["ctrl"], ["game"], ["render"], ["ui"],
          ["app", "bench", "eval"]]
RANK = {m: i for i, layer in enumerate(LAYERS) for m in layer}
ALLOWED_SIDEWAYS = {("bench", "app"): "bench render plays the game's frames through app_run()"}
GL_ALLOWED_DIRS = ["src/render/", "src/bench/gpu/"]
GL_ALLOWED_FILES = ["src/ui/ui_bridge.cpp"]
MAX_C_LINES = 1000
MAX_FUNCTION_LINES = 120
# Code allowed to break the size rules, each with its reason: empty since
# the long files and functions of issue 31 were split. An entry fails the
# check once it no longer breaks the rule, so the list only shrinks.
ALLOWED_LONG = {}
SOURCE_EXT = (".c", ".h", ".cpp")

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([a-z_]+)/[^"]*"', re.M)
GL_CALL_RE = re.compile(r"\bgl[A-Z][A-Za-z0-9_]*\s*\(")
GL_HEADER_RE = re.compile(r"^\s*#\s*include\s*<(GL/|GLES|SDL2?/SDL_opengl)", re.M)
LINK_RE = re.compile(r"\bstrider_(" + "|".join(sorted(RANK)) + r")(_\w+)?\b")
TYPE_DIRS = ["src", "tests", "tools"]
TYPE_SUFFIX = "_t"
# Names a third-party header declares, which a forward typedef may repeat.
FOREIGN_TYPE_RE = re.compile(r"^(SDL_|Im[A-Z]|GL[A-Za-z])")
TYPEDEF_RE = re.compile(r"\btypedef\b")
TAG_RE = re.compile(r"\s*(?:const\s+)?(struct|union|enum)\s+([A-Za-z_]\w*)")
FNPTR_NAME_RE = re.compile(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)")
IDENT_RE = re.compile(r"[A-Za-z_]\w*")


def strip_comments_and_strings(text):
    """C/C++ text with comments and string/char literals blanked, newlines
    kept (so line numbers stay right)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


PREPROCESSOR_RE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
NAME_BEFORE_PAREN_RE = re.compile(r"([A-Za-z_]\w*)\s*$")
POINTER_DECLARATOR_RE = re.compile(r"\s*\*\s*([A-Za-z_]\w*)\s*\(")


def function_before(code, brace):
    """(name, line of the name) when the '{' at BRACE opens a function body:
    it follows the ')' of a parameter list, and the name is the identifier
    before that list's '('. None for initialisers (= {), struct, union and
    enum bodies."""
    def back_over(j, close, open_):
        """The index of the OPEN_ matching the CLOSE at J (-1 if none)."""
        level = 0
        while j >= 0:
            level += {close: 1, open_: -1}.get(code[j], 0)
            if level == 0:
                return j
            j -= 1
        return -1

    j = brace - 1
    while j >= 0 and code[j].isspace():
        j -= 1
    returns_array = j >= 0 and code[j] == "]"
    while j >= 0 and code[j] == "]":  # const float (*f(void))[3] {
        j = back_over(j, "]", "[") - 1
        while j >= 0 and code[j].isspace():
            j -= 1
    if j < 0 or code[j] != ")":
        return None
    k = back_over(j, ")", "(")
    if returns_array:
        m = POINTER_DECLARATOR_RE.match(code, k + 1, j)
    else:
        m = NAME_BEFORE_PAREN_RE.search(code, 0, max(k, 0))
    return (m.group(1), line_of(code, m.start(1))) if k > 0 and m else None


def functions(code):
    """(name, first line, last line) of each function defined at the top
    level of CODE (comments and strings already blanked; preprocessor lines
    are blanked here, so a macro's braces do not count)."""
    code = PREPROCESSOR_RE.sub(lambda m: "\n" * m.group(0).count("\n"), code)
    found, depth, current = [], 0, None
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                current = function_before(code, i)
            depth += 1
        elif c == "}" and depth > 0:
            depth -= 1
            if depth == 0 and current:
                found.append((current[0], current[1], line_of(code, i)))
                current = None
    return found


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def typedefs(code):
    """(name, position of the name, tag or None) of each typedef in CODE (C
    with comments and strings blanked): the declarator ends at the first ';'
    outside braces; a function pointer's name is the one in (*name)."""
    found = []
    for m in TYPEDEF_RE.finditer(code):
        depth, i, n = 0, m.end(), len(code)
        body = []
        while i < n and not (code[i] == ";" and depth == 0):
            c = code[i]
            if c == "}":
                depth -= 1
            # The declarators, with the braces' contents blanked.
            body.append(c if depth == 0 else " ")
            if c == "{":
                depth += 1
            i += 1
        decl = "".join(body)
        tag = TAG_RE.match(decl)
        fn = FNPTR_NAME_RE.search(decl)
        if fn:
            names = [(fn.group(1), m.end() + fn.start(1))]
        else:
            names, start = [], 0
            rest = decl[tag.end():] if tag else decl
            offset = m.end() + (tag.end() if tag else 0)
            for part in rest.split(","):
                idents = list(IDENT_RE.finditer(part.split("[")[0]))
                if idents:
                    names.append((idents[-1].group(0), offset + start + idents[-1].start()))
                start += len(part) + 1
        for name, pos in names:
            found.append((name, pos, tag.group(2) if tag else None))
    return found


def check_types(root):
    problems = []
    for top in TYPE_DIRS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                with open(path, encoding="utf-8", errors="replace") as fh:
                    code = strip_comments_and_strings(fh.read())
                for name, pos, tag in typedefs(code):
                    if FOREIGN_TYPE_RE.match(name):
                        continue
                    if not name.endswith(TYPE_SUFFIX):
                        problems.append("%s:%d: types: typedef %s does not end in %s (docs/STYLE_HOUSE.md)" %
                                        (rel, line_of(code, pos), name, TYPE_SUFFIX))
                    elif tag and tag != name:
                        problems.append("%s:%d: types: typedef %s has the tag %s (the tag carries the typedef's name)" %
                                        (rel, line_of(code, pos), name, tag))
    return problems


def sources(root):
    src = os.path.join(root, "src")
    for d, _, files in os.walk(src):
        for f in sorted(files):
            path = os.path.join(d, f)
            yield os.path.relpath(path, root).replace(os.sep, "/"), path


def layer_problem(module, used):
    """Why MODULE may not use USED (a module name), or None when it may."""
    if used not in RANK or used == module:
        return None
    if RANK[used] < RANK[module] or (module, used) in ALLOWED_SIDEWAYS:
        return None
    if RANK[used] == RANK[module]:
        return "a command beside it"
    return "a layer above it"


def check(root, allowed=None):
    allowed = ALLOWED_LONG if allowed is None else allowed
    used = set()
    problems = []
    for rel, path in sources(root):
        parts = rel.split("/")
        module = parts[1] if len(parts) > 2 else ""
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if rel.endswith("CMakeLists.txt") and module in RANK:
            for m in LINK_RE.finditer(text):
                problem = layer_problem(module, m.group(1))
                if problem:
                    problems.append("%s:%d: layers: %s links %s (%s)" %
                                    (rel, line_of(text, m.start()), module, m.group(0), problem))
        if not rel.endswith(SOURCE_EXT):
            continue
        if module in RANK:
            for m in INCLUDE_RE.finditer(text):
                problem = layer_problem(module, m.group(1))
                if problem:
                    problems.append("%s:%d: layers: %s includes %s/ (%s)" %
                                    (rel, line_of(text, m.start()), module, m.group(1), problem))
        gl_ok = rel in GL_ALLOWED_FILES or any(rel.startswith(d) for d in GL_ALLOWED_DIRS)
        if not gl_ok:
            code = strip_comments_and_strings(text)
            for m in GL_CALL_RE.finditer(code):
                problems.append("%s:%d: gl: %s) outside %s" %
                                (rel, line_of(code, m.start()), m.group(0).rstrip(" ("),
                                 ", ".join(GL_ALLOWED_DIRS + GL_ALLOWED_FILES)))
            for m in GL_HEADER_RE.finditer(code):
                problems.append("%s:%d: gl: includes a GL header outside %s" %
                                (rel, line_of(code, m.start()), ", ".join(GL_ALLOWED_DIRS + GL_ALLOWED_FILES)))
        if rel.endswith(".c"):
            lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
            if lines > MAX_C_LINES:
                if rel in allowed:
                    used.add(rel)
                else:
                    problems.append("%s:%d: size: %d lines, more than %d" % (rel, lines, lines, MAX_C_LINES))
            for name, first, last in functions(strip_comments_and_strings(text)):
                length = last - first + 1
                if length <= MAX_FUNCTION_LINES:
                    continue
                key = "%s:%s" % (rel, name)
                if key in allowed:
                    used.add(key)
                else:
                    problems.append("%s:%d: function: %s is %d lines, more than %d" %
                                    (rel, first, name, length, MAX_FUNCTION_LINES))
    for key in sorted(set(allowed) - used):
        problems.append("%s: allowed: no longer too long; remove it from ALLOWED_LONG" % key)
    return problems + check_types(root)


def self_test():
    planted = {
        # breaks
        "src/anim/uses_bench.c": '#include "bench/skin_bench.h"\n',
        "src/render/uses_app.h": '#include "app/platform.h"\n',
        "src/pfnn/CMakeLists.txt": "strider_module(pfnn SOURCES a.c LIBS strider_core strider_bench_engines)\n",
        "src/anim/uses_asset.h": '#include "asset/character.h"\n',
        "src/ctrl/uses_render.h": '#include "render/gfx.h"\n',
        "src/eval/uses_app.c": '#include "app/sim.h"\n',
        "src/game/CMakeLists.txt": "strider_module(game SOURCES a.c LIBS strider_ctrl strider_render)\n",
        "src/world/draws.c": "void f(void)\n{\n    glDrawArrays(0, 0, 3);\n}\n",
        "src/app/gl_header.c": "#include <GL/glew.h>\n",
        "src/core/long.c": "int x;\n" * (MAX_C_LINES + 1),
        "src/anim/bare.h": ("/* typedef int fine; */\n"
                            "typedef struct bare {\n    int a;\n} bare;\n"
                            "typedef enum { A, B } bare_kind;\n"),
        "tests/anim/fn.c": "typedef void (*draw_fn)(void *user, int (*cmp)(int, int));\n",
        "tools/chargen/tag.h": "typedef struct tag_s {\n    int a;\n} tag_t;\ntypedef float ok_vec_t[3], bad_vec[4];\n",
        # not breaks: comments, strings, allowed places, other names
        "src/anim/fine.c": ('#include "anim/skin.h"\n#include "core/log.h"\n'
                            "/* glFinish() brackets the time; see bench/gpu */\n"
                            '// glDrawArrays(...) in a comment\nconst char *s = "glClear(";\n'
                            "int bench_gl_open(void);\nint gl_test(void);\n"),
        "src/app/app.c": '#include "game/sim.h"\n#include "render/gfx.h"\n',
        "src/bench/bench_render.c": '#include "app/app.h"\n#include "core/report.h"\n',
        "src/asset/chr.h": '#include "anim/skel.h"\n#include "asset/other.h"\n',
        "src/render/gfx.c": "#include <GL/glew.h>\nvoid g(void) { glClear(0); }\n",
        "src/bench/gpu/engine.c": "#include <GL/glew.h>\nvoid h(void) { glFinish(); }\n",
        "src/ui/ui_bridge.cpp": "void u() { glViewport(0, 0, 1, 1); }\n",
        "src/core/exact.c": "int y;\n" * MAX_C_LINES,
        "src/core/long_fn.c": ("static int\nlong_fn(int a,\n        int b)\n{\n    (void)\"}\";\n    /* } */\n"
                               + "    a += b;\n" * (MAX_FUNCTION_LINES - 6) + "    return a;\n}\n"),
        "src/core/exact_fn.c": ("/* { a brace in a comment } */\nint exact_fn(void)\n{\n    const char *s = \"}}\";\n"
                                + "    (void)s;\n" * (MAX_FUNCTION_LINES - 5) + "    return '}';\n}\n"
                                + "#define DEFINE_LONG(name) int name(void) { \\\n"
                                + "        ; \\\n" * (MAX_FUNCTION_LINES + 5) + "    }\n"
                                + "static const int table[] = {\n" + "    1,\n" * (MAX_FUNCTION_LINES + 5) + "};\n"
                                + "struct big {\n" + "    int f;\n" * (MAX_FUNCTION_LINES + 5) + "};\n"
                                + "int after(void) { return 0; }\n"),
        "src/core/long_rows.c": ("const float (*long_rows(void))[3]\n{\n" + "    ;\n" * MAX_FUNCTION_LINES
                                 + "    return 0;\n}\n"),
        "src/core/allowed_fn.c": "void allowed_fn(void)\n{\n" + "    ;\n" * MAX_FUNCTION_LINES + "}\n",
        "src/core/allowed_long.c": "int z;\n" * (MAX_C_LINES + 1),
        "src/render/CMakeLists.txt": "strider_module(render SOURCES gfx.c LIBS strider_core strider_world)\n",
        "src/eval/CMakeLists.txt": "strider_module(eval SOURCES a.c LIBS strider_game strider_core)\n",
        "src/anim/good_types.h": ("typedef struct pose_t {\n    float rot[4]; /* typedef x y; */\n} pose_t;\n"
                                  "typedef struct skin_pool_t skin_pool_t;\n"
                                  "typedef enum skin_isa_t { SKIN_A, SKIN_B } skin_isa_t;\n"
                                  "typedef void (*gfx_draw_fn_t)(void *user, struct pose_t *p);\n"
                                  "typedef unsigned (*hash_fn_t)(const char *s, unsigned (*mix)(unsigned));\n"
                                  'typedef struct SDL_Window SDL_Window;\nconst char *s = "typedef int x;";\n'
                                  "typedef float mat34_t[3][4];\ntypedef struct {\n    int a;\n} anon_t;\n"),
    }
    expected = [
        "src/anim/uses_bench.c:1: layers:",
        "src/render/uses_app.h:1: layers:",
        "src/pfnn/CMakeLists.txt:1: layers:",
        "src/anim/uses_asset.h:1: layers:",
        "src/ctrl/uses_render.h:1: layers:",
        "src/eval/uses_app.c:1: layers:",
        "src/game/CMakeLists.txt:1: layers:",
        "src/world/draws.c:3: gl: glDrawArrays",
        "src/app/gl_header.c:1: gl: includes a GL header",
        "src/core/long.c:%d: size:" % (MAX_C_LINES + 1),
        "src/core/long_fn.c:2: function: long_fn is %d lines" % (MAX_FUNCTION_LINES + 1),
        "src/core/long_rows.c:1: function: long_rows is %d lines" % (MAX_FUNCTION_LINES + 4),
        "src/core/stale.c:gone: allowed: no longer too long",
        "src/anim/bare.h:4: types: typedef bare does not",
        "src/anim/bare.h:5: types: typedef bare_kind does not",
        "tests/anim/fn.c:1: types: typedef draw_fn does not",
        "tools/chargen/tag.h:3: types: typedef tag_t has the tag tag_s",
        "tools/chargen/tag.h:4: types: typedef bad_vec does not",
    ]
    allowed = {"src/core/allowed_fn.c:allowed_fn": "test", "src/core/allowed_long.c": "test",
               "src/core/stale.c:gone": "test"}
    with tempfile.TemporaryDirectory() as root:
        for rel, text in planted.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        got = check(root, allowed)
    failures = 0
    for e in expected:
        hits = [p for p in got if p.startswith(e)]
        print(("ok   " if len(hits) == 1 else "FAIL ") + "reported once: " + e)
        failures += len(hits) != 1
    extra = [p for p in got if not any(p.startswith(e) for e in expected)]
    for p in extra:
        print("FAIL reported but not a break: " + p)
    failures += len(extra)
    print("check_structure self-test: %s" % ("ok" if not failures else "%d failure(s)" % failures))
    return 1 if failures else 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2 or not os.path.isdir(os.path.join(sys.argv[1], "src")):
        print("usage: check_structure.py ROOT | --self-test (ROOT holds src/)", file=sys.stderr)
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    print("check_structure: %s" % ("ok" if not problems else "%d problem(s)" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
