/* gltf_check: the structure of a glTF document, checked before assimp
 * reads it (asset/gltf.h says what; gltf_internal.h holds what this file
 * shares with gltf.c). Every index assimp follows is bounded here, since
 * assimp (not built with sanitizers) shows an out-of-bounds read only by
 * crashing, if at all. */
#include "asset/gltf_internal.h"

#include "asset/import.h"
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 2, 3))) bool gltf_bad(const gcheck_t *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_error("%s: %s", c->source, msg);
    return false;
}

/* The JSON text of V, for messages (at most SHOWN bytes). */
int gltf_shown_len(const gcheck_t *c, uint32_t v)
{
    size_t n = c->j.v[v].end - c->j.v[v].start;
    return (int)(n > SHOWN ? SHOWN : n);
}
const char *gltf_shown(const gcheck_t *c, uint32_t v) { return c->j.text + c->j.v[v].start; }

void *gltf_track(gcheck_t *c, void *p)
{
    if (!p)
        return NULL;
    uint8_t **o = realloc(c->owned, (c->owned_count + 1) * sizeof *o);
    if (!o) {
        free(p);
        return NULL;
    }
    c->owned = o;
    c->owned[c->owned_count++] = p;
    return p;
}

/* ------------------------------------------------------------------ JSON helpers */

/* Member KEY of OBJ; a duplicate key fails (assimp's parser would take one
 * of them, and it must be the one checked here). */
bool gltf_member(const gcheck_t *c, uint32_t obj, const char *key, const char *what, uint32_t *out)
{
    bool dup = false;
    *out = json_get(&c->j, obj, key, &dup);
    if (dup)
        return gltf_bad(c, "%s: '%s' given twice", what, key);
    return true;
}

/* An optional index member: JSON_NONE when absent, else < LIMIT. */
bool gltf_index(const gcheck_t *c, uint32_t obj, const char *key, uint32_t limit, const char *limit_name,
                const char *what, bool required, uint32_t *out)
{
    uint32_t v;
    if (!gltf_member(c, obj, key, what, &v))
        return false;
    *out = JSON_NONE;
    if (v == JSON_NONE) {
        if (required)
            return gltf_bad(c, "%s: no '%s'", what, key);
        return true;
    }
    uint64_t i;
    if (!json_uint(&c->j, v, UINT32_MAX, &i) || i >= limit)
        return gltf_bad(c, "%s: %s %.*s is not an index of the %u %s", what, key, gltf_shown_len(c, v),
                        gltf_shown(c, v), limit, limit_name);
    *out = (uint32_t)i;
    return true;
}

/* An optional whole number member in [LO, HI] (DEF when absent). */
bool gltf_whole(const gcheck_t *c, uint32_t obj, const char *key, uint64_t lo, uint64_t hi, uint64_t def,
                const char *what, bool required, uint64_t *out)
{
    uint32_t v;
    if (!gltf_member(c, obj, key, what, &v))
        return false;
    *out = def;
    if (v == JSON_NONE)
        return required ? gltf_bad(c, "%s: no '%s'", what, key) : true;
    if (!json_uint(&c->j, v, hi, out) || *out < lo)
        return gltf_bad(c, "%s: %s %.*s is not a whole number from %llu to %llu", what, key, gltf_shown_len(c, v),
                        gltf_shown(c, v), (unsigned long long)lo, (unsigned long long)hi);
    return true;
}

/* An optional member that must be an array (of N numbers when N > 0). */
bool gltf_array(const gcheck_t *c, uint32_t obj, const char *key, uint32_t numbers, const char *what, uint32_t *out)
{
    if (!gltf_member(c, obj, key, what, out))
        return false;
    if (*out == JSON_NONE)
        return true;
    const json_value_t *a = &c->j.v[*out];
    if (a->type != JSON_ARRAY)
        return gltf_bad(c, "%s: '%s' is not an array", what, key);
    if (numbers) {
        if (a->count != numbers)
            return gltf_bad(c, "%s: '%s' has %u values, not %u", what, key, a->count, numbers);
        for (uint32_t e = a->first; e != JSON_NONE; e = c->j.v[e].next)
            if (c->j.v[e].type != JSON_NUMBER)
                return gltf_bad(c, "%s: '%s' holds %.*s, not a number", what, key, gltf_shown_len(c, e),
                                gltf_shown(c, e));
    }
    return true;
}

/* Top-level array KEY: its items' values in *ITEMS (malloc'd, tracked). */
bool gltf_top_array(gcheck_t *c, const char *key, uint32_t max, uint32_t *arr, uint32_t *n, uint32_t **items)
{
    *n = 0;
    if (items)
        *items = NULL;
    if (!gltf_array(c, 0, key, 0, "the document", arr))
        return false;
    if (*arr == JSON_NONE)
        return true;
    *n = c->j.v[*arr].count;
    if (*n > max)
        return gltf_bad(c, "%u %s, more than the %u allowed", *n, key, max);
    if (!items)
        return true;
    *items = gltf_track(c, malloc(((size_t)*n + 1) * sizeof **items));
    if (!*items)
        return gltf_bad(c, "out of memory");
    uint32_t k = 0;
    for (uint32_t e = c->j.v[*arr].first; e != JSON_NONE; e = c->j.v[e].next) {
        if (c->j.v[e].type != JSON_OBJECT)
            return gltf_bad(c, "%s %u is not an object", key, k);
        (*items)[k++] = e;
    }
    return true;
}

/* ------------------------------------------------------------------ the checks */

bool gltf_check_asset(gcheck_t *c)
{
    if (c->j.v[0].type != JSON_OBJECT)
        return gltf_bad(c, "not a glTF file (the JSON is not an object)");
    uint32_t asset, version;
    if (!gltf_member(c, 0, "asset", "the document", &asset) || !gltf_member(c, asset, "version", "asset", &version))
        return false;
    char ver[16];
    if (asset == JSON_NONE || !json_string(&c->j, version, ver, sizeof ver))
        return gltf_bad(c, "not a glTF file (no asset.version)");
    if (strncmp(ver, "2.", 2) != 0)
        return gltf_bad(c, "glTF version '%s'; strider reads glTF 2.0", ver);
    static const char *const lists[] = {"extensionsUsed", "extensionsRequired"};
    for (int l = 0; l < 2; l++) {
        uint32_t a;
        if (!gltf_array(c, 0, lists[l], 0, "the document", &a))
            return false;
        for (uint32_t e = json_child(&c->j, a); e != JSON_NONE; e = json_next(&c->j, e))
            if (json_string_is(&c->j, e, "KHR_draco_mesh_compression"))
                return gltf_bad(c, "uses KHR_draco_mesh_compression: compressed meshes are not imported (their counts "
                                   "cannot be checked before decoding)");
    }
    return true;
}

/* Nodes: indices in range, one parent each, no cycle, depth limited. */
bool gltf_check_nodes(gcheck_t *c)
{
    uint32_t arr;
    if (!gltf_top_array(c, "nodes", UINT32_MAX, &arr, &c->n_node, &c->node))
        return false;
    if (c->n_node > IMP_MAX_NODES)
        return gltf_bad(c, "%u nodes, more than the %d allowed", c->n_node, IMP_MAX_NODES);
    c->parent = gltf_track(c, malloc(((size_t)c->n_node + 1) * sizeof *c->parent));
    int *depth = malloc(((size_t)c->n_node + 1) * sizeof *depth);
    uint32_t *path = malloc(((size_t)c->n_node + 1) * sizeof *path);
    bool ok = c->parent && depth && path;
    if (!ok)
        gltf_bad(c, "out of memory");
    for (uint32_t i = 0; ok && i < c->n_node; i++)
        c->parent[i] = -1, depth[i] = -1;
    char what[48];
    for (uint32_t i = 0; ok && i < c->n_node; i++) {
        uint32_t n = c->node[i], kids, dummy;
        snprintf(what, sizeof what, "node %u", i);
        ok = gltf_array(c, n, "children", 0, what, &kids) &&
             gltf_index(c, n, "mesh", c->n_mesh, "meshes", what, false, &dummy) &&
             gltf_index(c, n, "skin", c->n_skin, "skins", what, false, &dummy) &&
             gltf_index(c, n, "camera", c->n_cam, "cameras", what, false, &dummy) &&
             gltf_array(c, n, "matrix", 16, what, &dummy) && gltf_array(c, n, "translation", 3, what, &dummy) &&
             gltf_array(c, n, "rotation", 4, what, &dummy) && gltf_array(c, n, "scale", 3, what, &dummy);
        for (uint32_t e = json_child(&c->j, kids); ok && e != JSON_NONE; e = json_next(&c->j, e)) {
            uint64_t k;
            if (!json_uint(&c->j, e, UINT32_MAX, &k) || k >= c->n_node || k == i)
                ok = gltf_bad(c, "node %u: child %.*s is not another node of the %u", i, gltf_shown_len(c, e),
                              gltf_shown(c, e), c->n_node);
            else if (c->parent[k] >= 0)
                ok = gltf_bad(c, "node %llu is a child of both node %d and node %u", (unsigned long long)k,
                              c->parent[k], i);
            else
                c->parent[k] = (int)i;
        }
    }
    /* Depth of every node, walking up to a root or a node already known;
     * a walk that comes back to itself is a cycle. */
    for (uint32_t i = 0; ok && i < c->n_node; i++) {
        uint32_t len = 0, at = i;
        while (depth[at] < 0 && c->parent[at] >= 0) {
            path[len++] = at;
            depth[at] = -2 - (int)i; /* on this walk */
            at = (uint32_t)c->parent[at];
            if (depth[at] == -2 - (int)i) {
                ok = gltf_bad(c, "node %u is its own ancestor (a cycle in 'children')", at);
                break;
            }
        }
        if (!ok)
            break;
        int d = depth[at] >= 0 ? depth[at] : 1;
        depth[at] = d;
        while (len > 0)
            depth[path[--len]] = ++d;
        if (depth[i] > GLTF_MAX_NODE_DEPTH)
            ok = gltf_bad(c, "node %u is %d levels deep, more than the %d allowed", i, depth[i], GLTF_MAX_NODE_DEPTH);
        else if (c->pkg && (uint32_t)depth[i] > c->pkg->node_depth)
            c->pkg->node_depth = (uint32_t)depth[i];
    }
    free(depth);
    free(path);
    if (ok && c->pkg)
        c->pkg->nodes = c->n_node;
    return ok;
}

bool gltf_check_scenes(gcheck_t *c)
{
    uint32_t arr, *scene, dummy;
    if (!gltf_top_array(c, "scenes", GLTF_MAX_SCENES, &arr, &c->n_scene, &scene) ||
        !gltf_index(c, 0, "scene", c->n_scene, "scenes", "the document", false, &dummy))
        return false;
    if (c->n_scene == 0)
        return gltf_bad(c, "no scene (a character is a node hierarchy)");
    for (uint32_t s = 0; s < c->n_scene; s++) {
        char what[32];
        snprintf(what, sizeof what, "scene %u", s);
        uint32_t roots;
        if (!gltf_array(c, scene[s], "nodes", 0, what, &roots))
            return false;
        for (uint32_t e = json_child(&c->j, roots); e != JSON_NONE; e = json_next(&c->j, e)) {
            uint64_t k;
            if (!json_uint(&c->j, e, UINT32_MAX, &k) || k >= c->n_node)
                return gltf_bad(c, "scene %u: node %.*s is not an index of the %u nodes", s, gltf_shown_len(c, e),
                                gltf_shown(c, e), c->n_node);
            if (c->parent[k] >= 0)
                return gltf_bad(c, "scene %u: root node %llu is a child of node %d", s, (unsigned long long)k,
                                c->parent[k]);
            /* A root listed twice would be two copies of one subtree. */
            for (uint32_t f = c->j.v[roots].first; f != e; f = c->j.v[f].next)
                if (c->j.v[f].number == c->j.v[e].number)
                    return gltf_bad(c, "scene %u lists node %llu twice", s, (unsigned long long)k);
        }
    }
    return true;
}

bool gltf_check_views(gcheck_t *c)
{
    uint32_t arr;
    if (!gltf_top_array(c, "bufferViews", UINT32_MAX, &arr, &c->n_view, &c->view_v))
        return false;
    c->a_view = arr;
    c->view = gltf_track(c, calloc((size_t)c->n_view + 1, sizeof *c->view));
    if (!c->view)
        return gltf_bad(c, "out of memory");
    for (uint32_t i = 0; i < c->n_view; i++) {
        char what[32];
        snprintf(what, sizeof what, "bufferView %u", i);
        gview_t *v = &c->view[i];
        if (!gltf_index(c, c->view_v[i], "buffer", c->n_buf, "buffers", what, true, &v->buffer) ||
            !gltf_whole(c, c->view_v[i], "byteOffset", 0, GLTF_MAX_BUFFER_BYTES, 0, what, false, &v->offset) ||
            !gltf_whole(c, c->view_v[i], "byteLength", 1, GLTF_MAX_BUFFER_BYTES, 0, what, true, &v->length) ||
            !gltf_whole(c, c->view_v[i], "byteStride", 4, 252, 0, what, false, &v->stride))
            return false;
        if (v->stride % 4)
            return gltf_bad(c, "%s: byteStride %llu is not a multiple of 4", what, (unsigned long long)v->stride);
        uint64_t blen = c->buf[v->buffer].length;
        if (v->offset + v->length > blen)
            return gltf_bad(c, "%s: bytes %llu..%llu, buffer %u has %llu", what, (unsigned long long)v->offset,
                            (unsigned long long)(v->offset + v->length), v->buffer, (unsigned long long)blen);
    }
    return true;
}

static uint32_t comp_size(uint32_t ctype)
{
    switch (ctype) {
    case GL_BYTE:
    case GL_UNSIGNED_BYTE: return 1;
    case GL_SHORT:
    case GL_UNSIGNED_SHORT: return 2;
    case GL_UNSIGNED_INT:
    case GL_FLOAT: return 4;
    default: return 0;
    }
}

/* Bytes of BYTES..BYTES+SIZE inside view VIEW; fails naming WHAT. */
static bool view_span(const gcheck_t *c, const char *what, uint32_t view, uint64_t offset, uint64_t size,
                      const uint8_t **out)
{
    const gview_t *v = &c->view[view];
    if (offset > v->length || size > v->length - offset)
        return gltf_bad(c, "%s: needs bytes %llu..%llu of bufferView %u, which has %llu", what,
                        (unsigned long long)offset, (unsigned long long)(offset + size), view,
                        (unsigned long long)v->length);
    *out = c->buf[v->buffer].data + v->offset + offset;
    return true;
}

static uint32_t read_uint(const uint8_t *p, uint32_t csize)
{
    return csize == 1 ? p[0] : csize == 2 ? (uint32_t)(p[0] | p[1] << 8) : gltf_le32(p);
}

static bool check_sparse(gcheck_t *c, const char *acc_what, uint32_t sparse, gacc_t *a)
{
    char what[48];
    snprintf(what, sizeof what, "%s sparse", acc_what);
    uint64_t count, ctype, ioff, voff;
    uint32_t ind, val, iview, vview;
    if (!gltf_whole(c, sparse, "count", 1, a->count, 0, what, true, &count) ||
        !gltf_member(c, sparse, "indices", what, &ind) || !gltf_member(c, sparse, "values", what, &val))
        return false;
    if (ind == JSON_NONE || c->j.v[ind].type != JSON_OBJECT || val == JSON_NONE || c->j.v[val].type != JSON_OBJECT)
        return gltf_bad(c, "%s: sparse needs 'indices' and 'values' objects", what);
    if (!gltf_index(c, ind, "bufferView", c->n_view, "bufferViews", what, true, &iview) ||
        !gltf_whole(c, ind, "byteOffset", 0, GLTF_MAX_BUFFER_BYTES, 0, what, false, &ioff) ||
        !gltf_whole(c, ind, "componentType", 0, UINT32_MAX, 0, what, true, &ctype) ||
        !gltf_index(c, val, "bufferView", c->n_view, "bufferViews", what, true, &vview) ||
        !gltf_whole(c, val, "byteOffset", 0, GLTF_MAX_BUFFER_BYTES, 0, what, false, &voff))
        return false;
    if (ctype != GL_UNSIGNED_BYTE && ctype != GL_UNSIGNED_SHORT && ctype != GL_UNSIGNED_INT)
        return gltf_bad(c, "%s: sparse indices componentType %llu (5121, 5123 or 5125)", what,
                        (unsigned long long)ctype);
    uint32_t isize = comp_size((uint32_t)ctype);
    const uint8_t *ip, *vp;
    if (!view_span(c, what, iview, ioff, count * isize, &ip) || !view_span(c, what, vview, voff, count * a->elem, &vp))
        return false;
    for (uint64_t k = 0; k < count; k++) {
        uint32_t i = read_uint(ip + k * isize, isize);
        if (i >= a->count)
            return gltf_bad(c, "%s: sparse index %u (entry %llu) is past its %llu elements", what, i,
                            (unsigned long long)k, (unsigned long long)a->count);
    }
    a->sparse = true;
    return true;
}

bool gltf_check_accessors(gcheck_t *c)
{
    uint32_t arr;
    if (!gltf_top_array(c, "accessors", UINT32_MAX, &arr, &c->n_acc, &c->acc_v))
        return false;
    c->a_acc = arr;
    c->acc = gltf_track(c, calloc((size_t)c->n_acc + 1, sizeof *c->acc));
    if (!c->acc)
        return gltf_bad(c, "out of memory");
    static const char *const types[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    static const uint32_t comps[] = {1, 2, 3, 4, 4, 9, 16};
    for (uint32_t i = 0; i < c->n_acc; i++) {
        char what[32];
        snprintf(what, sizeof what, "accessor %u", i);
        gacc_t *a = &c->acc[i];
        uint32_t o = c->acc_v[i], t, view, sparse;
        uint64_t ctype, offset;
        if (!gltf_whole(c, o, "componentType", 0, UINT32_MAX, 0, what, true, &ctype) ||
            !gltf_whole(c, o, "count", 1, UINT32_MAX, 0, what, true, &a->count) ||
            !gltf_member(c, o, "type", what, &t) ||
            !gltf_index(c, o, "bufferView", c->n_view, "bufferViews", what, false, &view) ||
            !gltf_whole(c, o, "byteOffset", 0, GLTF_MAX_BUFFER_BYTES, 0, what, false, &offset) ||
            !gltf_member(c, o, "sparse", what, &sparse))
            return false;
        a->ctype = (uint32_t)ctype;
        a->csize = comp_size(a->ctype);
        if (!a->csize)
            return gltf_bad(c, "%s: componentType %llu is not one of 5120, 5121, 5122, 5123, 5125, 5126", what,
                            (unsigned long long)ctype);
        for (int k = 0; k < 7 && !a->comps; k++)
            if (json_string_is(&c->j, t, types[k])) {
                a->comps = comps[k];
                snprintf(a->type, sizeof a->type, "%s", types[k]);
            }
        if (!a->comps)
            return gltf_bad(c, "%s: type %.*s is not SCALAR, VEC2..4 or MAT2..4", what,
                            t == JSON_NONE ? 6 : gltf_shown_len(c, t), t == JSON_NONE ? "absent" : gltf_shown(c, t));
        /* Matrix columns start on 4-byte boundaries (the spec's padding). */
        a->elem = a->comps * a->csize;
        if (a->csize < 4 && (a->comps == 4 && a->type[0] == 'M'))
            a->elem = 2 * 4 * ((2 * a->csize + 3) / 4);
        else if (a->csize < 4 && a->comps == 9)
            a->elem = 3 * 4 * ((3 * a->csize + 3) / 4);
        if (offset % a->csize)
            return gltf_bad(c, "%s: byteOffset %llu is not a multiple of its %u-byte components", what,
                            (unsigned long long)offset, a->csize);
        if (view != JSON_NONE) {
            const gview_t *v = &c->view[view];
            a->stride = v->stride ? (uint32_t)v->stride : a->elem;
            if (a->stride < a->elem)
                return gltf_bad(c, "%s: elements of %u bytes, bufferView %u's byteStride is %u", what, a->elem, view,
                                a->stride);
            if (!view_span(c, what, view, offset, (a->count - 1) * a->stride + a->elem, &a->data))
                return false;
        } else if (offset) {
            return gltf_bad(c, "%s: byteOffset without a bufferView", what);
        }
        if (sparse != JSON_NONE && !check_sparse(c, what, sparse, a))
            return false;
        /* The spec's all-zero accessor: assimp 5.2 fails on it (and leaks). */
        if (view == JSON_NONE && sparse == JSON_NONE)
            return gltf_bad(c, "%s has neither a bufferView nor sparse values (all-zero accessors are not read)", what);
    }
    return true;
}

/* Accessor K for WHAT: its type and component types must be one of the
 * listed ones (TYPE, then CTYPES ending in 0). */
static bool accessor_is(const gcheck_t *c, const char *what, uint32_t k, const char *type, const uint32_t *ctypes)
{
    const gacc_t *a = &c->acc[k];
    bool ctype_ok = false;
    for (int i = 0; ctypes[i]; i++)
        ctype_ok |= a->ctype == ctypes[i];
    if (strcmp(a->type, type) != 0 || !ctype_ok)
        return gltf_bad(c, "%s: accessor %u is %s of componentType %u, not %s of the types the spec allows", what, k,
                        a->type, a->ctype, type);
    return true;
}

/* Every value of unsigned accessor K is below LIMIT (what it indexes). */
static bool values_below(const gcheck_t *c, const char *what, uint32_t k, uint64_t limit, const char *limit_name)
{
    const gacc_t *a = &c->acc[k];
    if (a->sparse)
        return gltf_bad(c, "%s: accessor %u is sparse (not read for indices or joints)", what, k);
    if (!a->data)
        return true;
    for (uint64_t e = 0; e < a->count; e++)
        for (uint32_t q = 0; q < a->comps; q++) {
            uint32_t v = read_uint(a->data + e * a->stride + q * a->csize, a->csize);
            if (v >= limit)
                return gltf_bad(c, "%s: accessor %u element %llu holds %u, past the %llu %s", what, k,
                                (unsigned long long)e, v, (unsigned long long)limit, limit_name);
        }
    return true;
}

static const uint32_t FLOAT_ONLY[] = {GL_FLOAT, 0};
static const uint32_t INDEX_TYPES[] = {GL_UNSIGNED_BYTE, GL_UNSIGNED_SHORT, GL_UNSIGNED_INT, 0};
static const uint32_t JOINT_TYPES[] = {GL_UNSIGNED_BYTE, GL_UNSIGNED_SHORT, 0};
static const uint32_t WEIGHT_TYPES[] = {GL_FLOAT, GL_UNSIGNED_BYTE, GL_UNSIGNED_SHORT, 0};
static const uint32_t UV_TYPES[] = {GL_FLOAT, GL_UNSIGNED_BYTE, GL_UNSIGNED_SHORT, 0};
static const uint32_t COLOR_TYPES[] = {GL_FLOAT, GL_UNSIGNED_BYTE, GL_UNSIGNED_SHORT, 0};

/* The vertex attributes glTF 2.0 defines; any other name must start with
 * '_' (the spec's application-specific attributes). assimp 5.2 classifies
 * names by prefix ("POSITIONS" counts as POSITION) and numbers each indexed
 * semantic in the order it meets them, so only the spec's exact names pass,
 * numbered 0, 1, ... in order. */
typedef enum attr_kind_t {
    A_POSITION,
    A_NORMAL,
    A_TANGENT,
    A_TEXCOORD,
    A_COLOR,
    A_JOINTS,
    A_WEIGHTS,
    A_CUSTOM,
    A_BAD
} attr_kind_t;

static attr_kind_t attribute_kind(const char *name, uint32_t *index)
{
    static const char *const plain[] = {"POSITION", "NORMAL", "TANGENT"};
    static const char *const indexed[] = {"TEXCOORD_", "COLOR_", "JOINTS_", "WEIGHTS_"};
    *index = 0;
    for (int k = 0; k < 3; k++)
        if (!strcmp(name, plain[k]))
            return (attr_kind_t)k;
    if (name[0] == '_')
        return A_CUSTOM;
    for (int k = 0; k < 4; k++) {
        size_t n = strlen(indexed[k]);
        if (strncmp(name, indexed[k], n) != 0)
            continue;
        const char *d = name + n;
        size_t digits = strspn(d, "0123456789");
        if (digits == 0 || digits > 2 || d[digits] || (d[0] == '0' && digits > 1))
            return A_BAD;
        *index = (uint32_t)atoi(d);
        return (attr_kind_t)(A_TEXCOORD + k);
    }
    return A_BAD;
}

/* The spec's accessor type for a vertex attribute of KIND. */
static bool attribute_ok(const gcheck_t *c, const char *what, attr_kind_t kind, uint32_t k)
{
    switch (kind) {
    case A_POSITION:
    case A_NORMAL: return accessor_is(c, what, k, "VEC3", FLOAT_ONLY);
    case A_TANGENT: return accessor_is(c, what, k, "VEC4", FLOAT_ONLY);
    case A_TEXCOORD: return accessor_is(c, what, k, "VEC2", UV_TYPES);
    case A_JOINTS: return accessor_is(c, what, k, "VEC4", JOINT_TYPES);
    case A_WEIGHTS: return accessor_is(c, what, k, "VEC4", WEIGHT_TYPES);
    case A_COLOR: return accessor_is(c, what, k, strcmp(c->acc[k].type, "VEC3") == 0 ? "VEC3" : "VEC4", COLOR_TYPES);
    default: return true;
    }
}

/* A primitive's attributes (or one morph target's): names the spec
 * defines, accessors in range and of the spec's types, each as long as
 * POSITION (VCOUNT, or set from it). */
static bool check_attributes(gcheck_t *c, const char *what, uint32_t attrs, bool target, uint64_t *vcount)
{
    if (attrs == JSON_NONE || c->j.v[attrs].type != JSON_OBJECT)
        return gltf_bad(c, "%s: no attributes object", what);
    if (!target) {
        uint32_t pos;
        if (!gltf_index(c, attrs, "POSITION", c->n_acc, "accessors", what, true, &pos))
            return false;
        *vcount = c->acc[pos].count;
    }
    char name[64], where[160];
    uint32_t next[A_BAD] = {0};
    for (uint32_t m = c->j.v[attrs].first; m != JSON_NONE; m = c->j.v[m].next) {
        if (!json_key(&c->j, m, name, sizeof name))
            return gltf_bad(c, "%s: an attribute name longer than %zu bytes", what, sizeof name - 1);
        uint32_t index;
        attr_kind_t kind = attribute_kind(name, &index);
        if (kind == A_BAD)
            return gltf_bad(c,
                            "%s: attribute '%s' is not one of glTF 2.0's (POSITION, NORMAL, TANGENT, TEXCOORD_n, "
                            "COLOR_n, JOINTS_n, WEIGHTS_n, or _NAME)",
                            what, name);
        if (kind >= A_TEXCOORD && kind <= A_WEIGHTS && index != next[kind]++)
            return gltf_bad(c, "%s: attribute '%s' comes where index %u is due (numbered 0, 1, ... in order)", what,
                            name, next[kind] - 1);
        snprintf(where, sizeof where, "%s %s", what, name);
        uint64_t k;
        if (!json_uint(&c->j, m, UINT32_MAX, &k) || k >= c->n_acc)
            return gltf_bad(c, "%s: %.*s is not an index of the %u accessors", where, gltf_shown_len(c, m),
                            gltf_shown(c, m), c->n_acc);
        bool typed = target ? kind > A_TANGENT || accessor_is(c, where, (uint32_t)k, "VEC3", FLOAT_ONLY)
                            : attribute_ok(c, where, kind, (uint32_t)k);
        if (!typed)
            return false;
        if (c->acc[k].count != *vcount)
            return gltf_bad(c, "%s: accessor %llu has %llu values, the primitive has %llu vertices", where,
                            (unsigned long long)k, (unsigned long long)c->acc[k].count, (unsigned long long)*vcount);
    }
    return true;
}

bool gltf_check_meshes(gcheck_t *c)
{
    uint32_t arr;
    if (!gltf_top_array(c, "meshes", IMP_MAX_MESHES, &arr, &c->n_mesh, &c->mesh))
        return false;
    uint32_t primitives = 0;
    for (uint32_t i = 0; i < c->n_mesh; i++) {
        char what[96];
        snprintf(what, sizeof what, "mesh %u", i);
        uint32_t prims;
        if (!gltf_array(c, c->mesh[i], "primitives", 0, what, &prims))
            return false;
        if (prims == JSON_NONE || c->j.v[prims].count == 0)
            return gltf_bad(c, "%s: no primitives", what);
        uint32_t p = 0, targets0 = 0;
        for (uint32_t e = c->j.v[prims].first; e != JSON_NONE; e = c->j.v[e].next, p++) {
            snprintf(what, sizeof what, "mesh %u primitive %u", i, p);
            if (++primitives > IMP_MAX_MESHES)
                return gltf_bad(c, "more than %d primitives in all", IMP_MAX_MESHES);
            if (c->j.v[e].type != JSON_OBJECT)
                return gltf_bad(c, "%s is not an object", what);
            uint32_t attrs, indices, targets, dummy, ext;
            uint64_t vcount = 0, mode;
            if (!gltf_member(c, e, "attributes", what, &attrs) || !check_attributes(c, what, attrs, false, &vcount) ||
                !gltf_index(c, e, "indices", c->n_acc, "accessors", what, false, &indices) ||
                !gltf_index(c, e, "material", c->n_mat, "materials", what, false, &dummy) ||
                !gltf_whole(c, e, "mode", 0, 6, 4, what, false, &mode) ||
                !gltf_array(c, e, "targets", 0, what, &targets) || !gltf_member(c, e, "extensions", what, &ext))
                return false;
            if (json_get(&c->j, ext, "KHR_draco_mesh_compression", NULL) != JSON_NONE)
                return gltf_bad(c, "%s uses KHR_draco_mesh_compression: compressed meshes are not imported", what);
            if (indices != JSON_NONE && (!accessor_is(c, what, indices, "SCALAR", INDEX_TYPES) ||
                                         !values_below(c, what, indices, vcount, "vertices")))
                return false;
            uint32_t nt = targets == JSON_NONE ? 0 : c->j.v[targets].count;
            if (nt > IMP_MAX_TARGETS)
                return gltf_bad(c, "%s: %u morph targets, more than the %d allowed", what, nt, IMP_MAX_TARGETS);
            if (p == 0)
                targets0 = nt;
            else if (nt != targets0)
                return gltf_bad(c, "%s: %u morph targets, primitive 0 has %u", what, nt, targets0);
            uint32_t t = 0;
            for (uint32_t te = json_child(&c->j, targets); te != JSON_NONE; te = json_next(&c->j, te), t++) {
                char where[128];
                snprintf(where, sizeof where, "%s morph target %u", what, t);
                if (!check_attributes(c, where, te, true, &vcount))
                    return false;
            }
        }
    }
    return true;
}

bool gltf_check_skins(gcheck_t *c, uint32_t *missing_ibm, uint32_t *max_joints)
{
    *missing_ibm = 0;
    *max_joints = 0;
    for (uint32_t s = 0; s < c->n_skin; s++) {
        char what[32];
        snprintf(what, sizeof what, "skin %u", s);
        uint32_t o = c->skin[s], joints, ibm, dummy;
        if (!gltf_array(c, o, "joints", 0, what, &joints) ||
            !gltf_index(c, o, "skeleton", c->n_node, "nodes", what, false, &dummy) ||
            !gltf_index(c, o, "inverseBindMatrices", c->n_acc, "accessors", what, false, &ibm))
            return false;
        uint32_t n = joints == JSON_NONE ? 0 : c->j.v[joints].count;
        if (n == 0 || n > IMP_MAX_BONES)
            return gltf_bad(c, "%s: %u joints (1..%d)", what, n, IMP_MAX_BONES);
        for (uint32_t e = c->j.v[joints].first; e != JSON_NONE; e = c->j.v[e].next) {
            uint64_t k;
            if (!json_uint(&c->j, e, UINT32_MAX, &k) || k >= c->n_node)
                return gltf_bad(c, "%s: joint %.*s is not an index of the %u nodes", what, gltf_shown_len(c, e),
                                gltf_shown(c, e), c->n_node);
        }
        if (ibm == JSON_NONE) {
            (*missing_ibm)++;
            if (n > *max_joints)
                *max_joints = n;
        } else {
            if (!accessor_is(c, what, ibm, "MAT4", FLOAT_ONLY))
                return false;
            if (c->acc[ibm].count < n)
                return gltf_bad(c, "%s: inverseBindMatrices accessor %u has %llu matrices for %u joints", what, ibm,
                                (unsigned long long)c->acc[ibm].count, n);
        }
    }
    return true;
}

/* The JOINTS_n values of a mesh used with a skin index that skin's joints. */
bool gltf_check_joint_values(gcheck_t *c)
{
    for (uint32_t i = 0; i < c->n_node; i++) {
        uint32_t m, s;
        if (!gltf_index(c, c->node[i], "mesh", c->n_mesh, "meshes", "node", false, &m) ||
            !gltf_index(c, c->node[i], "skin", c->n_skin, "skins", "node", false, &s))
            return false;
        if (m == JSON_NONE || s == JSON_NONE)
            continue;
        uint32_t joints = json_get(&c->j, c->skin[s], "joints", NULL);
        uint64_t nj = c->j.v[joints].count;
        uint32_t prims = json_get(&c->j, c->mesh[m], "primitives", NULL), p = 0;
        for (uint32_t e = json_child(&c->j, prims); e != JSON_NONE; e = json_next(&c->j, e), p++) {
            uint32_t attrs = json_get(&c->j, e, "attributes", NULL);
            for (uint32_t a = json_child(&c->j, attrs); a != JSON_NONE; a = json_next(&c->j, a)) {
                char name[64], what[160];
                if (!json_key(&c->j, a, name, sizeof name) || strncmp(name, "JOINTS_", 7) != 0)
                    continue;
                snprintf(what, sizeof what, "node %u (mesh %u primitive %u, skin %u) %s", i, m, p, s, name);
                if (!values_below(c, what, (uint32_t)c->j.v[a].number, nj, "joints of the skin"))
                    return false;
            }
        }
    }
    return true;
}
