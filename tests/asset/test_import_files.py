#!/usr/bin/python3
"""strider-import (and `strider --character`) on real and bad glTF files:
the two MakeHuman characters convert silently, RobotExpressive converts with
exactly one warning (its weights are renormalised), and every bad file
(missing, truncated, not glTF, a folder, two skins, more joints than the palette, NaN,
a mesh outside the skin, lines instead of triangles, no skin, a joint map
that does not fit) fails with exit 1 and exactly one line naming the file.
The bad glTF files are written here, from a tiny skinned strip.

usage: test_import_files.py --import BIN --strider BIN --shared DIR --out DIR"""
import argparse
import base64
import json
import math
import os
import struct
import subprocess
import sys

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.returncode, [l for l in p.stderr.splitlines() if l.strip()]


# ------------------------------------------------------------ glTF writer

def accessor(doc, blob, data, fmt, ctype, atype, count, minmax=None):
    """Appends DATA (a flat list) packed with FMT to BLOB as a new accessor."""
    while len(blob) % 4:
        blob.append(0)
    raw = struct.pack("<%d%s" % (len(data), fmt), *data)
    doc["bufferViews"].append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(raw)})
    blob.extend(raw)
    acc = {"bufferView": len(doc["bufferViews"]) - 1, "componentType": ctype, "count": count, "type": atype}
    if minmax:
        acc["min"], acc["max"] = minmax
    doc["accessors"].append(acc)
    return len(doc["accessors"]) - 1


def strip(joints=3, nan=False, mode=4, weight_scale=1.0, skins=1, rigid_extra=False, skinned=True):
    """A vertical strip of quads 1.5 m tall bound to a chain of JOINTS joints."""
    rows = 6
    pos, idx, jnt, wgt = [], [], [], []
    for r in range(rows + 1):
        y = 1.5 * r / rows
        for x in (-0.1, 0.1):
            pos += [x, y, 0.0]
            j = min(joints - 1, int((1.0 - y / 1.5) * joints))
            jnt += [j, max(j - 1, 0) if j > 0 else min(1, joints - 1), 0, 0]
            wgt += [0.5 * weight_scale, 0.5 * weight_scale, 0.0, 0.0]
    if nan:
        pos[4] = float("nan")
    for r in range(rows):
        a = 2 * r
        idx += [a, a + 1, a + 3, a, a + 3, a + 2]
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [], "meshes": [],
           "accessors": [], "bufferViews": [], "buffers": [], "materials": [{"name": "m"}]}
    blob = bytearray()
    nmin = [min(pos[i::3]) for i in range(3)] if not nan else None
    nmax = [max(pos[i::3]) for i in range(3)] if not nan else None
    a_pos = accessor(doc, blob, pos, "f", 5126, "VEC3", len(pos) // 3, (nmin, nmax) if nmin else None)
    a_idx = accessor(doc, blob, idx, "H", 5123, "SCALAR", len(idx))
    a_j = accessor(doc, blob, jnt, "H", 5123, "VEC4", len(jnt) // 4)
    a_w = accessor(doc, blob, wgt, "f", 5126, "VEC4", len(wgt) // 4)
    # Joint chain from the top (y = 1.5) down, root node 0 holds it.
    root = {"name": "Root", "children": []}
    doc["nodes"].append(root)
    first = len(doc["nodes"])
    for j in range(joints):
        node = {"name": "J%d" % j, "translation": [0.0, 1.5 if j == 0 else -1.5 / joints, 0.0]}
        if j + 1 < joints:
            node["children"] = [first + j + 1]
        doc["nodes"].append(node)
    root["children"].append(first)
    ibm = []
    for j in range(joints):
        y = 1.5 - 1.5 * j / joints
        ibm += [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -y, 0, 1]
    a_ibm = accessor(doc, blob, ibm, "f", 5126, "MAT4", joints)
    attrs = {"POSITION": a_pos}
    if skinned:
        attrs.update({"JOINTS_0": a_j, "WEIGHTS_0": a_w})
    doc["meshes"].append({"name": "strip", "primitives": [{"attributes": attrs, "indices": a_idx, "mode": mode,
                                                           "material": 0}]})
    mesh_node = {"name": "Body", "mesh": 0}
    if skinned:
        mesh_node["skin"] = 0
    doc["nodes"].append(mesh_node)
    root["children"].append(len(doc["nodes"]) - 1)
    doc["skins"] = [{"joints": list(range(first, first + joints)), "inverseBindMatrices": a_ibm}] if skinned else []
    if skins == 2:
        # A second skin over the same chain with other bind matrices, on a
        # second mesh (assimp keeps one skin per mesh, so not the same mesh).
        ibm2 = [v * (1.0 if i % 16 != 13 else 0.5) for i, v in enumerate(ibm)]
        a_ibm2 = accessor(doc, blob, ibm2, "f", 5126, "MAT4", joints)
        doc["skins"].append({"joints": list(range(first, first + joints)), "inverseBindMatrices": a_ibm2})
        doc["meshes"].append(dict(doc["meshes"][0], name="strip2"))
        doc["nodes"].append({"name": "Body2", "mesh": 1, "skin": 1})
        root["children"].append(len(doc["nodes"]) - 1)
    if rigid_extra:
        # A mesh on the scene root, outside the skeleton.
        doc["meshes"].append({"name": "stray", "primitives": [{"attributes": {"POSITION": a_pos}, "indices": a_idx}]})
        doc["nodes"].append({"name": "Stray", "mesh": 1})
        doc["scenes"][0]["nodes"].append(len(doc["nodes"]) - 1)
    if not skinned:
        del doc["skins"]
    doc["buffers"].append({"byteLength": len(blob),
                           "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()})
    return doc


def write(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, allow_nan=True)
    return path


# ------------------------------------------------------------ cases

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--import", dest="imp", required=True)
    ap.add_argument("--strider", required=True)
    ap.add_argument("--shared", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    chars = os.path.join(a.shared, "characters")
    out_chr = os.path.join(a.out, "out.chr")

    for name in ("makehuman_cmu31_arkit52_male.glb", "makehuman_cmu31_arkit52_female.glb"):
        rc, lines = run([a.imp, os.path.join(chars, name), "--out", out_chr, "--quiet"])
        check(rc == 0 and lines == [], "%s converts silently with --quiet (rc %d, %s)" % (name, rc, lines))
        check(os.path.getsize(out_chr) > 1000000, "%s: a .chr of %d bytes" % (name, os.path.getsize(out_chr)))
    rc, lines = run([a.imp, os.path.join(chars, "makehuman_cmu31_arkit52_male.glb"), "--out", out_chr])
    check(rc == 0 and len(lines) == 1 and "15066 vertices" in lines[0] and "86 morph targets" in lines[0]
          and "imported in" in lines[0], "summary line: %s" % lines)

    # RobotExpressive: as it is (--no-dress), its weights are renormalised
    # with one warning; to be dressed or driven its rig needs a joint map.
    robot = os.path.join(chars, "RobotExpressive.glb")
    rc, lines = run([a.imp, robot, "--out", out_chr, "--quiet", "--no-dress"])
    check(rc == 0 and len(lines) == 1 and "warning" in lines[0] and "renormalised" in lines[0]
          and "RobotExpressive.glb" in lines[0], "RobotExpressive --no-dress: one warning, renormalised: %s" % lines)
    rc, lines = run([a.imp, robot, "--out", out_chr, "--quiet"])
    check(rc == 1 and len(lines) == 1 and "no usable joint map" in lines[0] and "RobotExpressive.glb" in lines[0],
          "RobotExpressive dressed: one line, no usable joint map: %s" % lines)

    # Bad files for the converter: exit 1, one line naming the file.
    male = open(os.path.join(chars, "makehuman_cmu31_arkit52_male.glb"), "rb").read()
    bad = {}
    bad["missing.glb"] = (os.path.join(a.out, "missing.glb"), "cannot open")
    for n in (100, 20000, len(male) // 2, len(male) - 1):
        p = os.path.join(a.out, "truncated_%d.glb" % n)
        open(p, "wb").write(male[:n])
        bad[os.path.basename(p)] = (p, "")
    p = os.path.join(a.out, "text.glb")
    open(p, "w").write("this is not a glTF file\n")
    bad["text.glb"] = (p, "not a binary glTF")
    p = os.path.join(a.out, "broken.gltf")
    open(p, "w").write('{"asset": {"version": "2.0"}, "nodes": [ {"name": ')
    bad["broken.gltf"] = (p, "")
    p = os.path.join(a.out, "empty.gltf")
    open(p, "w").write("")
    bad["empty.gltf"] = (p, "not a glTF file")
    p = os.path.join(a.out, "folder.glb")
    os.makedirs(p, exist_ok=True)
    bad["folder.glb"] = (p, "is a folder")
    p = os.path.join(a.out, "model.obj")
    open(p, "w").write("v 0 0 0\n")
    bad["model.obj"] = (p, "not a glTF file name")
    bad["two_skins.gltf"] = (write(os.path.join(a.out, "two_skins.gltf"), strip(skins=2)), "two skins")
    bad["joints300.gltf"] = (write(os.path.join(a.out, "joints300.gltf"), strip(joints=300)), "palette")
    bad["nan.gltf"] = (write(os.path.join(a.out, "nan.gltf"), strip(nan=True)), "")
    bad["stray.gltf"] = (write(os.path.join(a.out, "stray.gltf"), strip(rigid_extra=True)),
                         "neither skinned nor attached")
    bad["lines.gltf"] = (write(os.path.join(a.out, "lines.gltf"), strip(mode=1)), "")
    bad["noskin.gltf"] = (write(os.path.join(a.out, "noskin.gltf"), strip(skinned=False)), "no skinned mesh")
    bad["zero_weights.gltf"] = (write(os.path.join(a.out, "zero_weights.gltf"), strip(weight_scale=0.0)),
                                "no skin weight")
    for name, (path, needle) in sorted(bad.items()):
        if os.path.exists(os.path.join(a.out, "bad.chr")):
            os.remove(os.path.join(a.out, "bad.chr"))
        rc, lines = run([a.imp, path, "--out", os.path.join(a.out, "bad.chr")])
        check(rc == 1 and len(lines) == 1 and os.path.basename(path) in lines[0] and needle in lines[0]
              and "error" in lines[0], "%s: exit 1 with one line (%s): rc %d %s" % (name, needle, rc, lines))
        check(not os.path.exists(os.path.join(a.out, "bad.chr")), "%s: nothing written" % name)

    # A good strip with weights summing to 1.5: converted, one warning.
    rc, lines = run([a.imp, write(os.path.join(a.out, "heavy.gltf"), strip(weight_scale=1.5)), "--out", out_chr,
                     "--quiet", "--no-dress"])
    check(rc == 0 and len(lines) == 1 and "renormalised" in lines[0], "unnormalised weights: one warning: %s" % lines)

    # The game refuses the same files before any window opens: one line, exit 1.
    for name in ("two_skins.gltf", "joints300.gltf", "truncated_20000.glb", "text.glb", "missing.glb", "folder.glb"):
        path = bad[name][0]
        rc, lines = run([a.strider, "--character", path, "--hidden", "--frames", "1"])
        check(rc == 1 and len(lines) == 1 and os.path.basename(path) in lines[0],
              "strider --character %s: exit 1 with one line: %s" % (name, lines))

    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
