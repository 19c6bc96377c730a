#!/usr/bin/python3
"""Hostile inputs: every numbered case of the review "a glTF from the internet
must not read outside its folder, crash or hang the importer" as a test with
its exact line and exit code (1 for data, 2 for usage), run against the
programs as a user runs them.

  gltf    cases 1-10: glTF files built here from the MakeHuman male of
          ../shared (split into .gltf + .bin, or as .glb) with one hostile
          change each, through strider-import and `strider --character`
  inputs  cases 11-19: FIFOs, over-long paths, --hidden without an end,
          implausible numbers (pfnn.bin, BVH), damaged PNG heightmaps, a NUL
          in a script, empty list items, strider-chargen's options, and the
          network's and heightmap's error lines
  strace  `strace -f -e trace=openat` of strider-import on the escaping
          files and a good split model: no file outside the model's folder
          is opened (nor tried), and of it only the .gltf and its .bin

Every program runs with a timeout, so a hang fails the case instead of the
suite. Files are written under --out; nothing of ../shared is changed.

usage: test_hostile.py gltf|inputs|strace --strider BIN --import BIN --chargen BIN
                       --shared DIR --root DIR --out DIR"""
import argparse
import copy
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

failures = []
TIMEOUT_S = 60


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(cmd, timeout=TIMEOUT_S, env=None):
    """(exit code or 'timeout', stderr lines, stdout)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace", env=env)
    except subprocess.TimeoutExpired:
        return "timeout", [], ""
    return p.returncode, [l for l in p.stderr.splitlines() if l.strip()], p.stdout


def errors(lines):
    """The lines that say something went wrong (not infos, warnings or the
    windowing system's own chatter)."""
    return [l for l in lines if l.startswith("strider") and not l.startswith("strider: warning:")
            and not (l.startswith("strider: ") and not l.startswith("strider: error:") and "(try --help)" not in l)]


def expect(what, cmd, rc, line, timeout=TIMEOUT_S):
    """CMD exits with RC and says exactly LINE (as its only error line)."""
    got_rc, lines, _ = run(cmd, timeout)
    got = errors(lines)
    ok = got_rc == rc and got == [line]
    check(ok, "%s: exit %s, %s" % (what, rc, line[:160]))
    if not ok:
        print("     got exit %s, lines %s" % (got_rc, got if got else lines))


# ------------------------------------------------------------ glTF helpers

def glb_split(data):
    """(JSON document, BIN chunk bytes) of a .glb."""
    length = struct.unpack_from("<I", data, 8)[0]
    pos, doc, blob = 12, None, b""
    while pos < length:
        n, kind = struct.unpack_from("<II", data, pos)
        body = data[pos + 8:pos + 8 + n]
        if kind == 0x4E4F534A:
            doc = json.loads(body)
        elif kind == 0x004E4942:
            blob = body
        pos += 8 + n
    return doc, blob


def glb_join(doc, blob):
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    bn = bytes(blob) + b"\0" * (-len(blob) % 4)
    body = struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(bn), 0x004E4942) + bn
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def write_gltf(folder, name, doc, uri="model.bin", blob=None):
    """FOLDER/NAME with buffer 0 at URI (and BLOB written there if given)."""
    os.makedirs(folder, exist_ok=True)
    doc = copy.deepcopy(doc)
    doc["buffers"][0]["uri"] = uri
    if blob is not None:
        with open(os.path.join(folder, uri), "wb") as f:
            f.write(blob)
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        json.dump(doc, f, allow_nan=True)
    return path


def refused(path):
    return "%s: " % path


ONLY = "only relative paths inside the model's folder, or data: URIs, are read"


def case_gltf(a):
    out = os.path.join(a.out, "gltf")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    male_glb = os.path.join(a.shared, "characters", "makehuman_cmu31_arkit52_male.glb")
    doc, blob = glb_split(open(male_glb, "rb").read())
    chr_out = os.path.join(out, "out.chr")
    imp = lambda path, *more: [a.imp, path, "--out", chr_out, "--quiet"] + list(more)  # noqa: E731
    game = lambda path: [a.strider, "--character", path, "--hidden", "--frames", "1", "--quiet"]  # noqa: E731

    # The split model converts as the .glb does (the base every case changes).
    good = write_gltf(os.path.join(out, "good"), "model.gltf", doc, blob=blob)
    rc, lines, _ = run(imp(good))
    check(rc == 0 and lines == [], "the split MakeHuman male converts (rc %s, %s)" % (rc, lines))
    good_chr = open(chr_out, "rb").read() if rc == 0 else b""
    rc, _, _ = run(imp(male_glb))
    check(rc == 0 and open(chr_out, "rb").read() == good_chr, "... to the same .chr as the .glb")

    # 1. A buffer outside the folder: by '..', by ten levels of '..', by a symlink.
    outside = os.path.join(out, "outside")
    os.makedirs(outside)
    with open(os.path.join(outside, "base.bin"), "wb") as f:
        f.write(blob)
    p = write_gltf(os.path.join(out, "case1"), "up.gltf", doc, uri="../outside/base.bin")
    line = "strider: error: %s: buffer 0: uri '../outside/base.bin' climbs out of the model's folder; %s" % (p, ONLY)
    expect("1 uri ../outside/base.bin (import)", imp(p), 1, line)
    expect("1 uri ../outside/base.bin (game)", game(p), 1, line)
    ten = "../" * 10 + os.path.abspath(outside).lstrip("/") + "/base.bin"
    p = write_gltf(os.path.join(out, "case1"), "ten.gltf", doc, uri=ten)
    expect("1 ten levels of ../", imp(p), 1,
           "strider: error: %s: buffer 0: uri '%s' climbs out of the model's folder; %s" % (p, ten, ONLY))
    link_dir = os.path.join(out, "case1link")
    os.makedirs(link_dir)
    os.symlink("../outside/base.bin", os.path.join(link_dir, "link.bin"))
    p = write_gltf(link_dir, "link.gltf", doc, uri="link.bin")
    line = ("strider: error: %s: buffer 0: uri 'link.bin' resolves to '%s', outside the model's folder '%s'"
            % (p, os.path.realpath(os.path.join(outside, "base.bin")), os.path.realpath(link_dir)))
    expect("1 a symlink out of the folder (import)", imp(p), 1, line)
    expect("1 a symlink out of the folder (game)", game(p), 1, line)

    # 2. One more primitive whose indices come from /etc/passwd.
    d2 = copy.deepcopy(doc)
    d2["buffers"].append({"byteLength": 4, "uri": "../../../../etc/passwd"})
    d2["bufferViews"].append({"buffer": 1, "byteLength": 4})
    d2["accessors"].append({"bufferView": len(d2["bufferViews"]) - 1, "componentType": 5123, "count": 2,
                            "type": "SCALAR"})
    prim = copy.deepcopy(d2["meshes"][0]["primitives"][0])
    prim.pop("targets", None)
    prim["indices"] = len(d2["accessors"]) - 1
    d2["meshes"][0]["primitives"].append(prim)
    p = write_gltf(os.path.join(out, "case2"), "passwd.gltf", d2, blob=blob)
    line = ("strider: error: %s: buffer 1: uri '../../../../etc/passwd' climbs out of the model's folder; %s"
            % (p, ONLY))
    if os.path.exists(chr_out):
        os.remove(chr_out)
    expect("2 indices from /etc/passwd (import)", imp(p), 1, line)
    check(not os.path.exists(chr_out), "2 nothing written")
    expect("2 indices from /etc/passwd (game)", game(p), 1, line)

    # 3. /etc/passwd as the only buffer, and as a file:// URI.
    for uri, why in (("/etc/passwd", "is an absolute path"), ("file:///etc/passwd", "names a scheme ('file:')")):
        p = write_gltf(os.path.join(out, "case3"), "abs%d.gltf" % len(uri), doc, uri=uri)
        line = "strider: error: %s: buffer 0: uri '%s' %s; %s" % (p, uri, why, ONLY)
        expect("3 uri %s (import)" % uri, imp(p), 1, line)
        expect("3 uri %s (game)" % uri, game(p), 1, line)

    # 4. A skin without inverseBindMatrices: identity, as the spec says; the
    # same .chr as with identity matrices written out.
    d4 = copy.deepcopy(doc)
    del d4["skins"][0]["inverseBindMatrices"]
    p = write_gltf(os.path.join(out, "case4"), "no_ibm.gltf", d4, blob=blob)
    rc, lines, _ = run(imp(p, "--no-dress"))
    check(rc == 0 and lines == [], "4 no inverseBindMatrices imports (rc %s, %s)" % (rc, lines))
    no_ibm = open(chr_out, "rb").read() if rc == 0 else b"none"
    d4b = copy.deepcopy(doc)
    joints = len(d4b["skins"][0]["joints"])
    ident = struct.pack("<16f", 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1) * joints
    d4b["bufferViews"].append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(ident)})
    d4b["accessors"].append({"bufferView": len(d4b["bufferViews"]) - 1, "componentType": 5126, "count": joints,
                             "type": "MAT4"})
    d4b["skins"][0]["inverseBindMatrices"] = len(d4b["accessors"]) - 1
    d4b["buffers"][0]["byteLength"] = len(blob) + len(ident)
    p = write_gltf(os.path.join(out, "case4"), "identity.gltf", d4b, uri="identity.bin", blob=blob + ident)
    rc, lines, _ = run(imp(p, "--no-dress"))
    check(rc == 0 and open(chr_out, "rb").read() == no_ibm,
          "4 ... the same .chr as explicit identity matrices (rc %s)" % rc)
    rc, lines, _ = run(game(os.path.join(out, "case4", "no_ibm.gltf")), timeout=120)
    check(rc == 0 and errors(lines) == [], "4 the game starts with it (rc %s, %s)" % (rc, errors(lines)))

    # 5. Node chains 20,000 and 50,000 deep; 1,100 deep (under the node limit).
    for depth in (20000, 50000, 1100):
        d5 = copy.deepcopy(doc)
        first = len(d5["nodes"])
        for k in range(depth):
            d5["nodes"].append({"name": "c%d" % k, "children": [first + k + 1]} if k + 1 < depth else
                               {"name": "c%d" % k})
        d5["scenes"][0]["nodes"].append(first)
        p = write_gltf(os.path.join(out, "case5"), "chain%d.gltf" % depth, d5, blob=blob)
        n = len(d5["nodes"])
        if n > 4096:
            line = "strider: error: %s: %d nodes, more than the 4096 allowed" % (p, n)
        else:
            line = "strider: error: %s: node %d is 1025 levels deep, more than the 1024 allowed" % (p, first + 1024)
        expect("5 a node chain %d deep (import)" % depth, imp(p), 1, line)
        expect("5 a node chain %d deep (game)" % depth, game(p), 1, line)

    # 6. JSON nested 1,000,000 levels deep.
    p = os.path.join(out, "case6", "nested.gltf")
    os.makedirs(os.path.dirname(p))
    text = json.dumps(doc, separators=(",", ":"))
    head = '{"extras":'
    with open(p, "w") as f:
        f.write(head + "[" * 1000000 + "]" * 1000000 + "," + text[1:])
    line = "strider: error: %s: invalid JSON: byte %d (line 1): nested deeper than 64 levels" % (p, len(head) + 63)
    expect("6 JSON nested 1,000,000 deep (import)", imp(p), 1, line)
    expect("6 JSON nested 1,000,000 deep (game)", game(p), 1, line)

    # 7. A buffer that is a FIFO: refused at once, nothing waits.
    d7 = os.path.join(out, "case7")
    os.makedirs(d7)
    os.mkfifo(os.path.join(d7, "fifo.bin"))
    p = write_gltf(d7, "fifo.gltf", doc, uri="fifo.bin")
    line = "strider: error: %s: buffer 0: %s: not a regular file (a FIFO)" % (p, os.path.realpath(
        os.path.join(d7, "fifo.bin")))
    expect("7 a FIFO buffer (import)", imp(p), 1, line, timeout=20)
    expect("7 a FIFO buffer (game)", game(p), 1, line, timeout=30)

    # 8. 4 GiB: declared, and as the real size of a sparse file.
    d8 = os.path.join(out, "case8")
    os.makedirs(d8)
    with open(os.path.join(d8, "big.bin"), "wb") as f:
        f.truncate(4 << 30)
    big = copy.deepcopy(doc)
    big["buffers"][0]["byteLength"] = 4 << 30
    p = write_gltf(d8, "declared.gltf", big, uri="big.bin")
    expect("8 byteLength 4 GiB", imp(p), 1,
           "strider: error: %s: buffer 0: byteLength 4294967296 is not a whole number from 1 to 268435456" % p,
           timeout=20)
    p = write_gltf(d8, "sparse.gltf", doc, uri="big.bin")
    expect("8 a sparse 4 GiB file", imp(p), 1,
           "strider: error: %s: buffer 0: 'big.bin' is 4294967296 bytes, more than the 268435456 allowed" % p,
           timeout=20)
    # Two files, each under the cap, together over it: refused before either is read.
    with open(os.path.join(d8, "half.bin"), "wb") as f:
        f.truncate((128 << 20) + 1)
    two = copy.deepcopy(doc)
    two["buffers"].append({"byteLength": 4, "uri": "half2.bin"})
    os.link(os.path.join(d8, "half.bin"), os.path.join(d8, "half2.bin"))
    p = write_gltf(d8, "two.gltf", two, uri="half.bin")
    expect("8 two files over the cap together", imp(p), 1,
           "strider: error: %s: buffer files of %d bytes together (up to buffer 1), more than the 268435456 allowed"
           % (p, 2 * ((128 << 20) + 1)), timeout=20)
    for name in ("half.bin", "half2.bin"):
        os.remove(os.path.join(d8, name))
    os.remove(os.path.join(d8, "big.bin"))

    # 9. A morph target with 3 (or 7,533) values for 15,066 vertices.
    names = doc["meshes"][0].get("extras", {}).get("targetNames", [])
    t = names.index("browDownLeft") if "browDownLeft" in names else 0
    for count in (3, 7533):
        d9 = copy.deepcopy(doc)
        target = d9["meshes"][0]["primitives"][0]["targets"][t]
        # A plain accessor over the mesh's own positions, COUNT long.
        base = d9["accessors"][d9["meshes"][0]["primitives"][0]["attributes"]["POSITION"]]
        d9["accessors"].append({"bufferView": base["bufferView"], "byteOffset": base.get("byteOffset", 0),
                                "componentType": 5126, "count": count, "type": "VEC3"})
        target["POSITION"] = len(d9["accessors"]) - 1
        p = write_gltf(os.path.join(out, "case9"), "target%d.gltf" % count, d9, blob=blob)
        expect("9 morph target %d with %d values" % (t, count), imp(p), 1,
               "strider: error: %s: mesh 0 primitive 0 morph target %d POSITION: accessor %d has %d values, the "
               "primitive has 15066 vertices" % (p, t, len(d9["accessors"]) - 1, count))

    # 10. A .glb whose length field lies; a NaN in the JSON.
    male = open(male_glb, "rb").read()
    for name, length in (("x4", 4 * len(male)), ("half", len(male) // 2), ("max", 0xFFFFFFFF), ("zero", 0)):
        p = os.path.join(out, "case10", "length_%s.glb" % name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(male[:8] + struct.pack("<I", length) + male[12:])
        line = "strider: error: %s: binary glTF header length %d, the file is %d bytes" % (p, length, len(male))
        expect("10 .glb length %s (import)" % name, imp(p), 1, line)
        expect("10 .glb length %s (game)" % name, game(p), 1, line)
    d10 = copy.deepcopy(doc)
    d10["nodes"][0]["translation"] = [float("nan"), 0.0, 0.0]
    p = write_gltf(os.path.join(out, "case10"), "nan.gltf", d10, blob=blob)
    nan_at = open(p).read().index("NaN")
    expect("10 NaN in the JSON", imp(p), 1,
           "strider: error: %s: invalid JSON: byte %d (line 1): unexpected 'N'" % (p, nan_at))


# ------------------------------------------------------------ older inputs

def png_chunks(data):
    pos, out = 8, []
    while pos + 12 <= len(data):
        n = struct.unpack_from(">I", data, pos)[0]
        out.append((pos, data[pos + 4:pos + 8].decode("latin1"), n))
        pos += 12 + n
    return out


def png_reseal(data):
    data = bytearray(data)
    for pos, kind, n in png_chunks(data):
        struct.pack_into(">I", data, pos + 8 + n, zlib.crc32(bytes(data[pos + 4:pos + 8 + n])))
    return bytes(data)


def data_copy(a, folder):
    """A data folder whose files are links to the source tree's, so one of
    them can be replaced."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "assets", "levels"))
    os.symlink(os.path.join(a.root, "shaders"), os.path.join(folder, "shaders"))
    for d in os.listdir(os.path.join(a.root, "assets")):
        if d != "levels":
            os.symlink(os.path.join(a.root, "assets", d), os.path.join(folder, "assets", d))
    for f in os.listdir(os.path.join(a.root, "assets", "levels")):
        os.symlink(os.path.join(a.root, "assets", "levels", f), os.path.join(folder, "assets", "levels", f))
    return os.path.join(folder, "assets", "levels")


def long_path(base, total, name):
    """A path of exactly TOTAL bytes under BASE (folders of 200 bytes)."""
    path = base
    while total - len(path) - 1 > 200 + len(name) + 1:
        path = os.path.join(path, "d" * 200)
    pad = total - len(path) - 1 - len(name)
    return os.path.join(path, "f" * pad + name)


def case_inputs(a):
    out = os.path.join(a.out, "inputs")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    S = a.strider
    male = os.path.join(a.shared, "characters", "makehuman_cmu31_arkit52_male.glb")

    # 11. A FIFO as any input (and as strider-import's output): refused at once.
    fifo = {}
    for ext in ("script", "chr", "glb", "gltf", "bin", "bvh", "vac", "map"):
        fifo[ext] = os.path.join(out, "fifo." + ext)
        os.mkfifo(fifo[ext])
    why = "not a regular file (a FIFO)"
    hidden = ["--hidden", "--frames", "1", "--quiet"]
    for what, cmd, path in (
            ("--script", [S, "--script", fifo["script"]] + hidden, fifo["script"]),
            ("--character .chr", [S, "--character", fifo["chr"]] + hidden, fifo["chr"]),
            ("--character .glb", [S, "--character", fifo["glb"]] + hidden, fifo["glb"]),
            ("--character .gltf", [S, "--character", fifo["gltf"]] + hidden, fifo["gltf"]),
            ("--network", [S, "--network", fifo["bin"]] + hidden, fifo["bin"]),
            ("--pose", [S, "--view", "character", "--pose", fifo["bvh"]] + hidden, fifo["bvh"]),
            ("--clip", [S, "--view", "character", "--clip", fifo["vac"]] + hidden, fifo["vac"]),
            ("--map", [S, "--character", male, "--map", fifo["map"]] + hidden, fifo["map"]),
            ("strider-import in", [a.imp, fifo["glb"], "--out", os.path.join(out, "x.chr")], fifo["glb"]),
            ("bench --mesh", [S, "bench", "skinning", "--mesh", fifo["chr"], "--smoke"], fifo["chr"])):
        expect("11 a FIFO as %s" % what, cmd, 1, "strider: error: %s: %s" % (path, why), timeout=30)
    expect("11 a FIFO as strider-import --out", [a.imp, male, "--out", fifo["chr"], "--quiet"], 1,
           "strider: error: %s: cannot open for writing: not a regular file (a FIFO or socket)" % fifo["chr"],
           timeout=30)
    levels = data_copy(a, os.path.join(out, "data_fifo"))
    os.remove(os.path.join(levels, "flat.lvl"))
    os.mkfifo(os.path.join(levels, "flat.lvl"))
    expect("11 a FIFO as a level file (--data)", [S, "--data", os.path.join(out, "data_fifo"), "--level", "flat"]
           + hidden, 1, "strider: error: %s: %s" % (os.path.join(levels, "flat.lvl"), why), timeout=60)

    # 12. Paths over 1,023 bytes: read whole (a good file where the old cut
    # ended must not be read instead), and over the system's 4,095 refused.
    bad = b"this is not what the option asks for\n"
    for what, opt, good_src, name, extra in (
            ("--character (game)", "--character", os.path.join(a.root, "assets", "characters", "strider.chr"),
             ".chr", []),
            ("--character (viewer)", "--character",
             os.path.join(a.root, "assets", "characters", "strider.chr"), ".chr", ["--view", "character"]),
            ("--network", "--network", os.path.join(a.root, "assets", "network", "pfnn.bin"), ".bin", []),
            ("--clip", "--clip", os.path.join(a.root, "assets", "clips", "talk.vac"), ".vac",
             ["--view", "character"])):
        p = long_path(os.path.join(out, "long"), 1100, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(bad)
        shutil.copyfile(good_src, p[:1023])
        rc, lines, _ = run([S] + extra + [opt, p] + hidden, timeout=120)
        got = errors(lines)
        check(rc == 1 and len(got) == 1 and got[0].startswith("strider: error: %s: " % p),
              "12 %s: a 1,100-byte path is read whole (exit %s, %s)" % (what, rc, [l[-90:] for l in got]))
        os.remove(p[:1023])
        os.remove(p)
        huge = "/" + "x/" * 2500 + "a" + name
        expect("12 %s: a %d-byte path" % (what, len(huge)), [S] + extra + [opt, huge] + hidden, 2,
               "strider: %s: path of %d bytes, longer than the 4095 the system allows (try --help)"
               % (opt, len(huge)))
    p = long_path(os.path.join(out, "long"), 1100, ".skel")
    with open(p, "wb") as f:
        f.write(bad)
    shutil.copyfile(os.path.join(a.root, "assets", "skeleton", "cmu21.skel"), p[:1023])
    rc, lines, _ = run([a.imp, male, "--out", os.path.join(out, "x.chr"), "--skeleton", p, "--quiet"])
    check(rc == 1 and len(lines) == 1 and lines[0].startswith("strider: error: %s:" % p),
          "12 strider-import --skeleton: a 1,100-byte path is read whole (exit %s, %s)"
          % (rc, [l[-90:] for l in lines]))
    huge = "/" + "x/" * 2500 + "a.skel"
    expect("12 strider-import --skeleton: a %d-byte path" % len(huge),
           [a.imp, male, "--out", os.path.join(out, "x.chr"), "--skeleton", huge], 2,
           "strider: error: import: --skeleton: path of %d bytes, longer than the 4095 the system allows" % len(huge))

    # 13. --hidden must end by itself.
    expect("13 --hidden without --frames or a script", [S, "--hidden", "--level", "flat"], 2,
           "strider: --hidden needs --frames N or a --script that quits (a hidden window cannot be closed) "
           "(try --help)", timeout=30)
    walk = os.path.join(out, "walk.script")
    with open(walk, "w") as f:
        f.write("0 move 0 1\n")
    expect("13 --hidden with a script without quit", [S, "--hidden", "--level", "flat", "--script", walk], 2,
           "strider: error: %s: no 'quit' line, and --hidden without --frames would run forever (give --frames N)"
           % walk, timeout=60)

    # 14. Finite but absurd numbers: a network (the loader's ranges, docs/FORMATS_PFNN.md
    # section 8) and a BVH clip.
    net = bytearray(open(os.path.join(a.root, "assets", "network", "pfnn.bin"), "rb").read())
    n_in, n_out = 282, 284
    h0, h1 = struct.unpack_from("<II", net, 16)
    blocks = {"Ymean": (2 * n_in, "Ymean[0] = 1e+38 is outside [-50, 50] (root velocity (cm/frame))"),
              "Ystd": (2 * n_in + n_out, "Ystd[0] = 1e+38 is outside [1e-06, 500] (root velocity (cm/frame))"),
              "W0": (2 * n_in + 2 * n_out, "W0 of control point 0, value 0, = 1e+38 is outside [-100, 100]"),
              "b2": (2 * n_in + 2 * n_out + h0 * n_in + h0 + h1 * h0 + h1 + n_out * h1,
                     "b2 of control point 0, value 0, = 1e+38 is outside [-100, 100]")}
    for field, (index, why) in blocks.items():
        b = bytearray(net)
        struct.pack_into("<f", b, 64 + 4 * index, 1e38)
        struct.pack_into("<I", b, 52, fnv1a(bytes(b[64:])))
        p = os.path.join(out, "net_%s.bin" % field)
        with open(p, "wb") as f:
            f.write(b)
        expect("14 pfnn.bin with 1e38 in %s" % field, [S, "--network", p] + hidden, 1,
               "strider: error: %s: byte %d: %s" % (p, 64 + 4 * index, why), timeout=60)
    clip = os.path.join(a.root, "tests", "anim", "fixtures", "tiny.bvh")
    lines = open(clip).read().split("\n")
    motion = lines.index("MOTION")
    for what, edit in (("root channel", "frame"), ("OFFSET", "offset")):
        l2 = list(lines)
        if edit == "frame":
            vals = l2[motion + 3].split()
            vals[0] = "1e38"
            l2[motion + 3] = " ".join(vals)
            at = motion + 4
            why = "frame 0: joint '%s' Xposition 1e+38 outside +-100000" % bvh_root(lines)
        else:
            k = next(i for i, l in enumerate(l2) if "OFFSET" in l)
            l2[k] = "\tOFFSET 1e38 0 0"
            at = k + 1
            why = "OFFSET value 1e+38 outside +-1000"
        p = os.path.join(out, "huge_%s.bvh" % edit)
        with open(p, "w") as f:
            f.write("\n".join(l2))
        expect("14 a BVH with 1e38 in its %s" % what, [S, "--view", "character", "--pose", p] + hidden, 1,
               "strider: error: %s:%d: %s" % (p, at, why), timeout=60)

    # 15. Damaged heightmaps: a chunk CRC, the Adler-32, flipped deflate bits.
    png = open(os.path.join(a.root, "assets", "levels", "hills.png"), "rb").read()
    idat = next(c for c in png_chunks(png) if c[1] == "IDAT")
    pos, _, n = idat
    width, height = struct.unpack_from(">II", png, 16)
    need = height * (1 + 2 * width)
    lvl_line = next(i + 1 for i, l in enumerate(open(os.path.join(a.root, "assets", "levels", "hills.lvl")))
                    if l.startswith("heightmap"))
    for what, damage in (("a chunk CRC", "crc"), ("the zlib Adler-32", "adler"), ("a deflate data bit", "bit"),
                         ("a deflate block length", "len")):
        levels = data_copy(a, os.path.join(out, "data_" + damage))
        b = bytearray(png)
        if damage == "crc":
            b[pos + 8 + n] ^= 0x01
        elif damage == "adler":
            b[pos + 8 + n - 1] ^= 0x01
        elif damage == "bit":
            b[pos + 8 + n // 2] ^= 0x10
        else:
            b[pos + 8 + 2 + 1] ^= 0x01
        if damage != "crc":
            b = bytearray(png_reseal(b))
        os.remove(os.path.join(levels, "hills.png"))
        target = os.path.join(levels, "hills.png")
        with open(target, "wb") as f:
            f.write(b)
        lvl = os.path.join(levels, "hills.lvl")
        head = "strider: error: %s:%d: heightmap: %s: " % (lvl, lvl_line, target)
        if damage == "crc":
            stored = struct.unpack_from(">I", b, pos + 8 + n)[0]
            line = head + "corrupt PNG: chunk 'IDAT' at byte %d: CRC 0x%08x, its bytes hash to 0x%08x" % (
                pos, stored, zlib.crc32(bytes(b[pos + 4:pos + 8 + n])))
        else:
            zwhy = "invalid stored block lengths" if damage == "len" else "incorrect data check"
            line = head + "PNG image data does not inflate to the %d bytes a %dx%d image needs (zlib: %s)" % (
                need, width, height, zwhy)
        expect("15 a heightmap with damaged %s" % what,
               [S, "--data", os.path.join(out, "data_" + damage), "--level", "hills"] + hidden, 1, line, timeout=60)

    # 16. A NUL byte in a script line.
    p = os.path.join(out, "nul.script")
    with open(p, "wb") as f:
        f.write(b"0 quit\0IGNORED\n")
    expect("16 a NUL in a script", [S, "--script", p] + hidden, 1,
           "strider: error: %s:1: NUL byte at column 7; a text file holds none" % p)

    # 17. Empty list items, and a list longer than the old 512-byte buffer.
    ints = "a comma-separated list of whole numbers from %d to %d"
    for opt, value, k, lo, hi, bench in (("--vertices", ",,,", 1, 1, 4000000, "skinning"),
                                         ("--threads", ",", 1, 1, 64, "skinning"),
                                         ("--influences", ",,", 1, 1, 4, "skinning"),
                                         ("--counts", ",,,", 1, 0, 4096, "blendshapes"),
                                         ("--vertices", "1000,,2000", 2, 1, 4000000, "skinning")):
        expect("17 bench %s %s '%s'" % (bench, opt, value), [S, "bench", bench, opt, value], 2,
               "strider bench: %s: item %d of '%s' is empty; %s needs %s" % (opt, k, value, opt, ints % (lo, hi)))
    value = "0" * 600 + "5000000"
    expect("17 a %d-byte list item is read whole" % len(value), [S, "bench", "skinning", "--vertices", value], 2,
           "strider bench: --vertices needs a whole number from 1 to 4000000, got '%s'" % value)

    # 18. strider-chargen: --help is help, unknown options are usage errors.
    rc, lines, stdout = run([a.chargen, "--help"])
    check(rc == 0 and stdout.startswith("usage: strider-chargen") and lines == [],
          "18 strider-chargen --help prints the usage, exit 0 (rc %s, %s)" % (rc, lines))
    expect("18 strider-chargen --bogus", [a.chargen, "--bogus"], 2,
           "strider: error: chargen: unknown option '--bogus' (try --help)")
    expect("18 strider-chargen --out without a value", [a.chargen, "--out"], 2,
           "strider: error: chargen: --out needs a value")

    # 19. Network errors name the file (and fail); heightmap errors name the
    # .lvl line (case 15). A network whose values are in range but wrong:
    # a truncated file.
    p = os.path.join(out, "short.bin")
    with open(p, "wb") as f:
        f.write(net[:1000])
    expect("19 a truncated network", [S, "--network", p] + hidden, 1,
           "strider: error: %s: byte 1000: file size 1000, the header says %d (truncated or padded)"
           % (p, len(net)))


def fnv1a(data):
    h = 2166136261
    for byte in data:
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def bvh_root(lines):
    return next(l.split()[1] for l in lines if l.strip().startswith("ROOT"))


# ------------------------------------------------------------ strace

def case_strace(a):
    strace = shutil.which("strace")
    if not strace:
        check(False, "strace is installed (tools/install-deps.sh)")
        return
    out = os.path.join(a.out, "strace")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    male_glb = os.path.join(a.shared, "characters", "makehuman_cmu31_arkit52_male.glb")
    doc, blob = glb_split(open(male_glb, "rb").read())
    outside = os.path.join(out, "outside")
    os.makedirs(outside)
    with open(os.path.join(outside, "base.bin"), "wb") as f:
        f.write(blob)
    skel = os.path.join(a.root, "assets", "skeleton", "cmu21.skel")
    cases = []
    model = os.path.join(out, "good")
    cases.append(("a good split model", write_gltf(model, "model.gltf", doc, blob=blob), 0,
                  {"model.gltf", "model.bin"}))
    for name, uri in (("up", "../outside/base.bin"), ("ten", "../" * 10 + outside.lstrip("/") + "/base.bin"),
                      ("abs", os.path.join(outside, "base.bin")), ("etc", "/etc/passwd"),
                      ("file", "file://" + os.path.join(outside, "base.bin"))):
        cases.append(("uri " + uri, write_gltf(os.path.join(out, name), "model.gltf", doc, uri=uri), 1,
                      {"model.gltf"}))
    link = os.path.join(out, "link")
    os.makedirs(link)
    os.symlink(os.path.join(outside, "base.bin"), os.path.join(link, "base.bin"))
    cases.append(("a symlink out", write_gltf(link, "model.gltf", doc, uri="base.bin"), 1, {"model.gltf"}))
    d2 = copy.deepcopy(doc)
    d2["buffers"].append({"byteLength": 4, "uri": "../../../../etc/passwd"})
    cases.append(("a second buffer from /etc/passwd", write_gltf(os.path.join(out, "etc2"), "model.gltf", d2,
                                                                   blob=blob), 1, {"model.gltf"}))
    chr_out = os.path.join(out, "out.chr")
    # LeakSanitizer cannot run under ptrace (it aborts the ASan build at
    # exit); the other tests check leaks.
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(o for o in (env.get("ASAN_OPTIONS", ""), "detect_leaks=0") if o)
    for what, path, rc_want, inside_want in cases:
        folder = os.path.realpath(os.path.dirname(path))
        trace = os.path.join(out, "trace.txt")
        rc, lines, _ = run([strace, "-f", "-qq", "-e", "trace=openat", "-o", trace, a.imp, path, "--out", chr_out,
                            "--skeleton", skel, "--quiet"], env=env)
        opened = []
        for l in open(trace):
            if "openat(" not in l:
                continue
            name = l.split('"', 2)[1]
            full = name if name.startswith("/") else os.path.join(os.getcwd(), name)
            opened.append(os.path.realpath(full))
        system = ("/etc/ld.so.cache", "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/proc/", "/sys/",
                  "/dev/", "/usr/share/locale", "/etc/localtime")
        mine = {os.path.realpath(skel), os.path.realpath(chr_out)}
        inside = {os.path.relpath(p, folder) for p in opened if p.startswith(folder + "/")}
        stray = [p for p in opened if not p.startswith(folder + "/") and p not in mine and not p.startswith(system)]
        check(rc == rc_want and inside == inside_want and not stray,
              "strace, %s: exit %s; opened in the folder %s; outside it %s"
              % (what, rc, sorted(inside), stray or "nothing but the skeleton, the output and system libraries"))
        check(not any("passwd" in p or p.startswith(os.path.realpath(outside)) for p in opened),
              "strace, %s: neither /etc/passwd nor the outside folder is opened or tried" % what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=("gltf", "inputs", "strace"))
    ap.add_argument("--strider", required=True)
    ap.add_argument("--import", dest="imp", required=True)
    ap.add_argument("--chargen", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    {"gltf": case_gltf, "inputs": case_inputs, "strace": case_strace}[a.case](a)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
