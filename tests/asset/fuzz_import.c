/* libFuzzer harness for the import's validation and build (asset/import.h):
 * the bytes are decoded into a small plain-array scene (nodes, meshes with
 * faces, bones and weights, morph targets, materials) the way a parser
 * could hand one over: counts, indices, parents, weights and floats all
 * come from the input, including out-of-range and non-finite ones. Any
 * scene must either build into a character that passes chr_validate() and
 * round-trips through chr_serialize()/chr_parse(), or fail with one
 * message. An input of zero bytes decodes to a valid one-triangle scene
 * ("zero is the default" throughout), so mutations start from valid data. */
#include "asset/character.h"
#include "asset/import.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { F_NODES = 8, F_MESHES = 3, F_VERTS = 24, F_FACES = 16, F_BONES = 5, F_TARGETS = 3, F_MATS = 2 };

typedef struct src_t {
    const uint8_t *p;
    size_t n, at;
} src_t;

static uint8_t byte(src_t *s) { return s->at < s->n ? s->p[s->at++] : 0; }

/* Mostly small finite values; a 0xFF prefix reads raw float bits (NaN,
 * infinities, huge values). */
static float value(src_t *s, float base)
{
    uint8_t b = byte(s);
    if (b == 0xFF) {
        uint32_t u = (uint32_t)byte(s) | (uint32_t)byte(s) << 8 | (uint32_t)byte(s) << 16 | (uint32_t)byte(s) << 24;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    return base + ((int)b - (b >= 128 ? 256 : 0)) * 0.01f;
}

static const char *const NAMES[] = {"Hips",      "Spine",   "Head",
                                    "LeftUpLeg", "LeftLeg", "LeftFoot",
                                    "Hips",      "",        "a_name_that_is_much_too_long_for_a_joint"};

typedef struct scene_store_t {
    imp_node_t nodes[F_NODES];
    imp_mesh_t meshes[F_MESHES];
    imp_material_t mats[F_MATS];
    float pos[F_MESHES][F_VERTS * 3], nrm[F_MESHES][F_VERTS * 3], uv[F_MESHES][F_VERTS * 2];
    uint32_t face_size[F_MESHES][F_FACES], face_index[F_MESHES][F_FACES * 3];
    imp_bone_t bones[F_MESHES][F_BONES];
    uint32_t wv[F_MESHES][F_BONES][F_VERTS + 1];
    float ww[F_MESHES][F_BONES][F_VERTS + 1];
    imp_target_t targets[F_MESHES][F_TARGETS];
    float tpos[F_MESHES][F_TARGETS][F_VERTS * 3];
    char tname[F_MESHES][F_TARGETS][40];
} scene_store_t;

static void decode(src_t *s, scene_store_t *st, imp_scene_t *sc)
{
    memset(st, 0, sizeof *st);
    sc->node_count = 1 + byte(s) % F_NODES;
    sc->mesh_count = 1 + byte(s) % F_MESHES;
    sc->material_count = 1 + byte(s) % F_MATS;
    for (uint32_t i = 0; i < sc->node_count; i++) {
        imp_node_t *n = &st->nodes[i];
        n->name = NAMES[(i + byte(s)) % (sizeof NAMES / sizeof NAMES[0])];
        /* 0 -> the previous node (a chain), anything else another parent or an invalid one. */
        n->parent = (int)i - 1 - (int)(byte(s) % (i + 2));
        if (n->parent < -1)
            n->parent = (int)i + 1;
        n->local[0] = n->local[5] = n->local[10] = n->local[15] = 1.0f;
        n->local[12] = value(s, 0.0f);
        n->local[13] = value(s, i == 0 ? 0.9f : 0.2f);
        n->local[14] = value(s, 0.0f);
        if (byte(s) == 1)
            n->local[0] = value(s, 1.0f);
    }
    for (uint32_t i = 0; i < sc->material_count; i++) {
        st->mats[i].name = "skin";
        for (int k = 0; k < 4; k++)
            st->mats[i].color[k] = value(s, 0.5f);
        st->mats[i].roughness = value(s, 0.5f);
    }
    for (uint32_t mi = 0; mi < sc->mesh_count; mi++) {
        imp_mesh_t *m = &st->meshes[mi];
        m->name = "mesh";
        m->node = byte(s) % (sc->node_count + 1);
        m->material = byte(s) % (sc->material_count + 1);
        m->vertex_count = 3 + byte(s) % (F_VERTS - 2);
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            /* A fan around the origin unless the bytes say otherwise. */
            st->pos[mi][v * 3] = value(s, 0.1f * cosf((float)v));
            st->pos[mi][v * 3 + 1] = value(s, 0.05f * (float)v);
            st->pos[mi][v * 3 + 2] = value(s, 0.1f * sinf((float)v));
            st->nrm[mi][v * 3 + 2] = value(s, 1.0f);
            st->uv[mi][v * 2] = value(s, (float)v * 0.1f);
            st->uv[mi][v * 2 + 1] = value(s, (float)(v % 2));
        }
        m->positions = st->pos[mi];
        uint8_t opt = byte(s);
        m->normals = (opt & 1) ? NULL : st->nrm[mi];
        m->uvs = (opt & 2) ? NULL : st->uv[mi];
        m->face_count = 1 + byte(s) % F_FACES;
        for (uint32_t f = 0; f < m->face_count; f++) {
            /* 248: a corner out of range; 249 and up: 2..8 corners. */
            uint8_t b = byte(s);
            st->face_size[mi][f] = b < 249 ? 3 : (uint32_t)b - 247;
            for (int k = 0; k < 3; k++) {
                uint32_t idx = (f + (uint32_t)k + byte(s)) % m->vertex_count;
                st->face_index[mi][f * 3 + k] = b == 248 ? idx + m->vertex_count : idx;
            }
        }
        m->face_size = st->face_size[mi];
        m->face_index = st->face_index[mi];
        m->bone_count = (1 + byte(s)) % (F_BONES + 1);
        for (uint32_t bi = 0; bi < m->bone_count; bi++) {
            imp_bone_t *b = &st->bones[mi][bi];
            b->node = (bi + byte(s)) % (sc->node_count + 1);
            b->inverse_bind[0] = b->inverse_bind[5] = b->inverse_bind[10] = b->inverse_bind[15] = 1.0f;
            b->inverse_bind[13] = value(s, -0.9f);
            b->weight_count = m->vertex_count - byte(s) % (m->vertex_count + 1);
            for (uint32_t i = 0; i < b->weight_count; i++) {
                st->wv[mi][bi][i] = (i + byte(s)) % (m->vertex_count + 1);
                st->ww[mi][bi][i] = bi == 0 ? 1.0f - byte(s) / 200.0f : byte(s) / 200.0f;
            }
            b->weight_vertex = st->wv[mi][bi];
            b->weight_value = st->ww[mi][bi];
        }
        m->bones = st->bones[mi];
        m->target_count = byte(s) % (F_TARGETS + 1);
        for (uint32_t t = 0; t < m->target_count; t++) {
            imp_target_t *tg = &st->targets[mi][t];
            uint8_t nb = byte(s);
            snprintf(st->tname[mi][t], sizeof st->tname[mi][t], "%s", nb < 200 ? "target" : NAMES[nb % 9]);
            if (nb < 200)
                st->tname[mi][t][5] = (char)('a' + t + nb % 3);
            tg->name = st->tname[mi][t];
            for (uint32_t v = 0; v < m->vertex_count * 3; v++)
                st->tpos[mi][t][v] = st->pos[mi][v] + (byte(s) % 4 == 0 ? value(s, 0.0f) : 0.0f);
            tg->positions = (nb & 1) && nb > 200 ? NULL : st->tpos[mi][t];
        }
        m->targets = st->targets[mi];
    }
    sc->nodes = st->nodes;
    sc->meshes = st->meshes;
    sc->materials = st->mats;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    log_set_level(LOG_QUIET);
    static scene_store_t st;
    imp_scene_t sc;
    src_t s = {data, size, 0};
    decode(&s, &st, &sc);
    chr_character_t c;
    imp_info_t info;
    if (!imp_build(&sc, "fuzz.gltf", &c, &info))
        return 0;
    if (!chr_validate(&c, "fuzz"))
        abort();
    uint8_t *bytes = NULL;
    size_t n = 0;
    if (!chr_serialize(&c, &bytes, &n))
        abort();
    static chr_character_t back;
    if (!chr_parse(&back, bytes, n, "fuzz.chr"))
        abort();
    if (back.mesh_count != c.mesh_count || back.shape_count != c.shape_count)
        abort();
    chr_free(&back);
    free(bytes);
    chr_free(&c);
    return 0;
}
