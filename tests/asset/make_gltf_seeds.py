#!/usr/bin/python3
"""Writes the committed seeds of fuzz_gltf (tests/asset/fuzz_seeds_gltf):
a tiny skinned strip (test_import_files.py's) as .gltf and .glb, with a
morph target, and small versions of the hostile cases of tests/hostile.
Same output for the same script: run it again after changing a case.

usage: make_gltf_seeds.py [OUT_DIR]"""
import base64
import copy
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_import_files import accessor, strip  # noqa: E402


def blob_of(doc):
    uri = doc["buffers"][0]["uri"]
    return bytearray(base64.b64decode(uri.split(",", 1)[1]))


def with_blob(doc, blob):
    doc["buffers"][0] = {"byteLength": len(blob),
                         "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}
    return doc


def glb(doc, blob):
    doc = copy.deepcopy(doc)
    doc["buffers"][0] = {"byteLength": len(blob)}
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    bn = bytes(blob) + b"\0" * (-len(blob) % 4)
    body = struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(bn), 0x004E4942) + bn
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body


def text(doc):
    return json.dumps(doc, separators=(",", ":")).encode()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             "fuzz_seeds_gltf")
    os.makedirs(out, exist_ok=True)
    base = strip(joints=3)
    blob = blob_of(base)
    # A morph target moving the top two vertices.
    moved = [0.0] * (14 * 3)
    pos_acc = base["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
    a_t = accessor(base, blob, [0.0, 0.0, 0.1] * 14, "f", 5126, "VEC3", 14)
    base["meshes"][0]["primitives"][0]["targets"] = [{"POSITION": a_t}]
    base["meshes"][0]["extras"] = {"targetNames": ["smile"]}
    with_blob(base, blob)
    seeds = {"strip.gltf": text(base), "strip.glb": glb(base, blob)}

    # The buffer as a file next to the document (the harness names it fuzz.bin).
    ext = copy.deepcopy(base)
    ext["buffers"][0] = {"byteLength": 64, "uri": "fuzz.bin"}
    seeds["external.gltf"] = text(ext)
    for uri in ("../outside/base.bin", "/etc/passwd", "file:///etc/passwd", "a/../../x.bin", "%2e%2e/x.bin"):
        e = copy.deepcopy(base)
        e["buffers"].append({"byteLength": 4, "uri": uri})
        seeds["uri_%d.gltf" % len(seeds)] = text(e)

    noibm = copy.deepcopy(base)
    del noibm["skins"][0]["inverseBindMatrices"]
    seeds["no_ibm.gltf"] = text(noibm)
    seeds["no_ibm.glb"] = glb(noibm, blob)

    deep = copy.deepcopy(base)
    first = len(deep["nodes"])
    for k in range(40):
        deep["nodes"].append({"name": "c%d" % k, "children": [first + k + 1] if k < 39 else []})
    deep["scenes"][0]["nodes"].append(first)
    seeds["chain.gltf"] = text(deep)
    cycle = copy.deepcopy(base)
    cycle["nodes"][1].setdefault("children", []).append(0)
    seeds["cycle.gltf"] = text(cycle)

    nested = b'{"asset":{"version":"2.0"},"extras":' + b"[" * 70 + b"]" * 70 + b"}"
    seeds["nested.gltf"] = nested

    short = copy.deepcopy(base)
    a3 = accessor(short, blob, [0.0] * 9, "f", 5126, "VEC3", 3)
    short["meshes"][0]["primitives"][0]["targets"] = [{"POSITION": a3}]
    with_blob(short, blob)
    seeds["short_target.gltf"] = text(short)

    sparse = copy.deepcopy(base)
    idx = accessor(sparse, blob, [1, 3], "H", 5123, "SCALAR", 2)
    val = accessor(sparse, blob, [0.0, 0.2, 0.0] * 2, "f", 5126, "VEC3", 2)
    sp_view_i = sparse["accessors"][idx]["bufferView"]
    sp_view_v = sparse["accessors"][val]["bufferView"]
    sparse["accessors"].append({"componentType": 5126, "count": 14, "type": "VEC3",
                                "sparse": {"count": 2, "indices": {"bufferView": sp_view_i, "componentType": 5123},
                                           "values": {"bufferView": sp_view_v}}})
    sparse["meshes"][0]["primitives"][0]["targets"] = [{"POSITION": len(sparse["accessors"]) - 1}]
    with_blob(sparse, blob)
    seeds["sparse_target.gltf"] = text(sparse)

    anim = copy.deepcopy(base)
    t_acc = accessor(anim, blob, [0.0, 1.0], "f", 5126, "SCALAR", 2)
    r_acc = accessor(anim, blob, [0.0, 0.0, 0.0, 1.0] * 2, "f", 5126, "VEC4", 2)
    anim["animations"] = [{"samplers": [{"input": t_acc, "output": r_acc}],
                           "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]}]
    with_blob(anim, blob)
    seeds["animated.gltf"] = text(anim)

    good = glb(base, blob)
    for name, length in (("glb_len_x4.glb", 4 * len(good)), ("glb_len_half.glb", len(good) // 2),
                         ("glb_len_max.glb", 0xFFFFFFFF), ("glb_len_0.glb", 0)):
        seeds[name] = good[:8] + struct.pack("<I", length) + good[12:]
    seeds["nan.gltf"] = text(base).replace(b'"translation":[0.0,1.5,0.0]', b'"translation":[NaN,1.5,0.0]', 1)
    seeds["escaped_key.gltf"] = text(ext).replace(b'"uri"', b'"\\u0075ri"', 1)
    for name, data in sorted(seeds.items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("%d seeds in %s" % (len(seeds), out))


if __name__ == "__main__":
    main()
