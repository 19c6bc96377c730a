/* import: the glTF scene's validation (imp_validate) and the build's
 * driver (imp_build): the stages of import_internal.h in order, then the
 * character written out (materials, the "body" and "head" meshes and their
 * blend shapes, the skeleton). import.h says what the import does. */
#include "asset/import.h"
#include "asset/import_internal.h"

#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest |entry| of a node or inverse-bind matrix (metres, scale factors). */
#define IMP_MATRIX_LIMIT 1.0e6f

/* ---------------------------------------------------------------- validation */

static bool validate_bone(const imp_scene_t *s, const imp_mesh_t *m, uint32_t b, const char *src)
{
    const imp_bone_t *bone = &m->bones[b];
    if (bone->node >= s->node_count) {
        log_error("%s: mesh '%s' bone %u: node %u >= node count %u", src, m->name, b, bone->node, s->node_count);
        return false;
    }
    if (!finite_n(bone->inverse_bind, 16, IMP_MATRIX_LIMIT)) {
        log_error("%s: mesh '%s' joint '%s': NaN or out-of-range inverse bind matrix", src, m->name,
                  s->nodes[bone->node].name);
        return false;
    }
    if (bone->weight_count > 0 && (!bone->weight_vertex || !bone->weight_value)) {
        log_error("%s: mesh '%s' joint '%s': %u weights but no weight arrays", src, m->name, s->nodes[bone->node].name,
                  bone->weight_count);
        return false;
    }
    if (bone->weight_count > m->vertex_count) {
        log_error("%s: mesh '%s' joint '%s': %u weights for %u vertices", src, m->name, s->nodes[bone->node].name,
                  bone->weight_count, m->vertex_count);
        return false;
    }
    for (uint32_t i = 0; i < bone->weight_count; i++) {
        if (bone->weight_vertex[i] >= m->vertex_count) {
            log_error("%s: mesh '%s' joint '%s' weight %u: vertex %u >= vertex count %u", src, m->name,
                      s->nodes[bone->node].name, i, bone->weight_vertex[i], m->vertex_count);
            return false;
        }
        float w = bone->weight_value[i];
        /* Exporters round: a weight a little over 1 is clamped (gather_add,
         * import_mesh.c). */
        if (!isfinite(w) || w < 0.0f || w > 1.0f + CHR_WEIGHT_SUM_TOLERANCE) {
            log_error("%s: mesh '%s' joint '%s' weight %u: %.7g is NaN or outside [0, 1]", src, m->name,
                      s->nodes[bone->node].name, i, (double)w);
            return false;
        }
    }
    return true;
}

static bool validate_mesh(const imp_scene_t *s, uint32_t mi, const char *src)
{
    const imp_mesh_t *m = &s->meshes[mi];
    if (!m->name) {
        log_error("%s: mesh %u has no name", src, mi);
        return false;
    }
    if (m->node >= s->node_count || m->material >= s->material_count) {
        log_error("%s: mesh '%s': node %u (of %u) or material %u (of %u) out of range", src, m->name, m->node,
                  s->node_count, m->material, s->material_count);
        return false;
    }
    if (m->vertex_count < 3 || m->vertex_count > CHR_MAX_VERTICES || !m->positions) {
        log_error("%s: mesh '%s': vertex count %u outside 3..%d or no positions", src, m->name, m->vertex_count,
                  CHR_MAX_VERTICES);
        return false;
    }
    size_t vc = m->vertex_count;
    if (!finite_n(m->positions, vc * 3, IMP_COORD_LIMIT_M)) {
        log_error("%s: mesh '%s': NaN, infinite or implausible position (|x| > %g m)", src, m->name,
                  (double)IMP_COORD_LIMIT_M);
        return false;
    }
    if (m->normals && !finite_n(m->normals, vc * 3, IMP_MATRIX_LIMIT)) {
        log_error("%s: mesh '%s': NaN or infinite normal", src, m->name);
        return false;
    }
    if (m->uvs && !finite_n(m->uvs, vc * 2, CHR_POS_LIMIT_CM)) {
        log_error("%s: mesh '%s': NaN, infinite or huge texture coordinate", src, m->name);
        return false;
    }
    if (m->face_count < 1 || m->face_count > CHR_MAX_INDICES / 3 || !m->face_size || !m->face_index) {
        log_error("%s: mesh '%s': face count %u outside 1..%d", src, m->name, m->face_count, CHR_MAX_INDICES / 3);
        return false;
    }
    for (uint32_t f = 0; f < m->face_count; f++) {
        if (m->face_size[f] != 3) {
            log_error("%s: mesh '%s' face %u has %u corners; only triangles are imported", src, m->name, f,
                      m->face_size[f]);
            return false;
        }
    }
    for (size_t i = 0; i < (size_t)m->face_count * 3; i++) {
        if (m->face_index[i] >= m->vertex_count) {
            log_error("%s: mesh '%s' face %zu: vertex %u >= vertex count %u", src, m->name, i / 3, m->face_index[i],
                      m->vertex_count);
            return false;
        }
    }
    if (m->bone_count > IMP_MAX_BONES || (m->bone_count > 0 && !m->bones)) {
        log_error("%s: mesh '%s': bone count %u outside 0..%d", src, m->name, m->bone_count, IMP_MAX_BONES);
        return false;
    }
    for (uint32_t b = 0; b < m->bone_count; b++)
        if (!validate_bone(s, m, b, src))
            return false;
    if (m->target_count > IMP_MAX_TARGETS || (m->target_count > 0 && !m->targets)) {
        log_error("%s: mesh '%s': morph target count %u outside 0..%d", src, m->name, m->target_count, IMP_MAX_TARGETS);
        return false;
    }
    for (uint32_t t = 0; t < m->target_count; t++) {
        const imp_target_t *tg = &m->targets[t];
        size_t n = tg->name ? strlen(tg->name) : 0;
        if (n < 1 || n >= CHR_NAME_MAX) {
            log_error("%s: mesh '%s' morph target %u: name empty or longer than %d characters", src, m->name, t,
                      CHR_NAME_MAX - 1);
            return false;
        }
        if (tg->positions && !finite_n(tg->positions, vc * 3, IMP_COORD_LIMIT_M)) {
            log_error("%s: mesh '%s' morph target '%s': NaN, infinite or implausible position", src, m->name, tg->name);
            return false;
        }
    }
    return true;
}

bool imp_validate(const imp_scene_t *s, const char *src)
{
    if (s->node_count < 1 || s->node_count > IMP_MAX_NODES || !s->nodes) {
        log_error("%s: node count %u outside 1..%d", src, s->node_count, IMP_MAX_NODES);
        return false;
    }
    if (s->mesh_count < 1 || s->mesh_count > IMP_MAX_MESHES || !s->meshes) {
        log_error("%s: %s", src, s->mesh_count < 1 ? "no mesh" : "too many meshes");
        return false;
    }
    if (s->material_count < 1 || s->material_count > IMP_MAX_MATERIALS || !s->materials) {
        log_error("%s: material count %u outside 1..%d", src, s->material_count, IMP_MAX_MATERIALS);
        return false;
    }
    for (uint32_t i = 0; i < s->node_count; i++) {
        const imp_node_t *n = &s->nodes[i];
        if (!n->name || n->parent < -1 || n->parent >= (int)i) {
            log_error("%s: node %u: no name, or parent %d not listed before it", src, i, n->parent);
            return false;
        }
        if (!finite_n(n->local, 16, IMP_MATRIX_LIMIT)) {
            log_error("%s: node '%s': NaN or out-of-range transform", src, n->name);
            return false;
        }
    }
    for (uint32_t i = 0; i < s->material_count; i++) {
        const imp_material_t *m = &s->materials[i];
        if (!m->name || !finite_n(m->color, 4, IMP_MATRIX_LIMIT) || !finite_n(&m->roughness, 1, IMP_MATRIX_LIMIT)) {
            log_error("%s: material %u: no name, or NaN colour/roughness", src, i);
            return false;
        }
    }
    uint64_t vertices = 0, triangles = 0;
    for (uint32_t mi = 0; mi < s->mesh_count; mi++) {
        if (!validate_mesh(s, mi, src))
            return false;
        vertices += s->meshes[mi].vertex_count;
        triangles += s->meshes[mi].face_count;
    }
    if (vertices > CHR_MAX_VERTICES || triangles * 3 > CHR_MAX_INDICES) {
        log_error("%s: %llu vertices / %llu triangles in all, more than a character holds (%d / %d)", src,
                  (unsigned long long)vertices, (unsigned long long)triangles, CHR_MAX_VERTICES, CHR_MAX_INDICES / 3);
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- output */

static void build_free(build_t *b)
{
    free(b->world);
    free(b->joint_of_node);
    free(b->mesh_first);
    free(b->pos);
    free(b->nrm);
    free(b->uv);
    free(b->tan);
    free(b->joints);
    free(b->weights);
    free(b->material);
    free(b->tri);
    free(b->skin_lin);
    free(b->weld);
    free(b->group_tri_offset);
    free(b->group_tri);
    free(b->vert_tri_offset);
    free(b->vert_tri);
    free(b->base_n);
    if (b->target_delta)
        for (uint32_t t = 0; t < b->target_count; t++)
            free(b->target_delta[t]);
    free(b->target_delta);
    free(b->target_delta_count);
    free(b->target_name);
}

static void copy_vertex(const build_t *b, uint32_t v, uint32_t material, chr_vertex_t *out)
{
    memcpy(out->pos, b->pos[v], sizeof out->pos);
    memcpy(out->normal, b->nrm[v], sizeof out->normal);
    memcpy(out->tangent, b->tan[v], sizeof out->tangent);
    memcpy(out->uv, b->uv[v], sizeof out->uv);
    memcpy(out->joints, b->joints[v], sizeof out->joints);
    memcpy(out->weights, b->weights[v], sizeof out->weights);
    out->ao = 1.0f;
    out->material = material;
}

/* Materials used by the meshes, in first-use order (at most CHR_MAX_MATERIALS). */
static bool build_materials(const build_t *b, chr_character_t *c, uint32_t *remap)
{
    const imp_scene_t *s = b->scene;
    for (uint32_t i = 0; i < s->material_count; i++)
        remap[i] = UINT32_MAX;
    for (uint32_t mi = 0; mi < s->mesh_count; mi++) {
        uint32_t src = s->meshes[mi].material;
        if (remap[src] != UINT32_MAX)
            continue;
        if (c->material_count >= CHR_MAX_MATERIALS) {
            log_error("%s: more than %d materials", b->src, CHR_MAX_MATERIALS);
            return false;
        }
        const imp_material_t *m = &s->materials[src];
        chr_material_t *o = &c->materials[c->material_count];
        snprintf(o->name, CHR_NAME_MAX, "%s", m->name[0] ? m->name : "material");
        for (int k = 0; k < 4; k++)
            o->color[k] = fminf(fmaxf(m->color[k], 0.0f), 1.0f);
        o->roughness = fminf(fmaxf(m->roughness, 0.0f), 1.0f);
        o->subsurface = 0.0f;
        remap[src] = c->material_count++;
    }
    return true;
}

/* Meshes: "head" gets every triangle with a vertex some target moves (the
 * blend shapes' mesh), "body" the rest; a vertex both use is copied into
 * both with identical data, so no crack can open between them. */
static bool build_meshes(const build_t *b, chr_character_t *c, const uint32_t *mat_remap)
{
    uint32_t vc = b->vertex_count, tc = b->triangle_count;
    bool ok = true;
    uint8_t *morphed = xcalloc(vc, 1, &ok);
    uint32_t *map = xcalloc(vc, sizeof *map, &ok);
    uint8_t *tri_head = xcalloc(tc, 1, &ok);
    if (!ok) {
        free(morphed);
        free(map);
        free(tri_head);
        log_error("%s: out of memory", b->src);
        return false;
    }
    for (uint32_t t = 0; t < b->target_count; t++)
        for (uint32_t i = 0; i < b->target_delta_count[t]; i++)
            morphed[b->target_delta[t][i].vertex] = 1;
    uint32_t head_tris = 0;
    for (uint32_t t = 0; t < tc; t++) {
        tri_head[t] = morphed[b->tri[t][0]] | morphed[b->tri[t][1]] | morphed[b->tri[t][2]];
        head_tris += tri_head[t];
    }
    /* Which part first: body (skin only), then head (morphed). */
    int parts = 0, head = -1;
    for (int part = 0; part < 2 && ok; part++) {
        uint32_t want = (uint32_t)part, ntri = part ? head_tris : tc - head_tris;
        if (ntri == 0)
            continue;
        for (uint32_t v = 0; v < vc; v++)
            map[v] = UINT32_MAX;
        /* Vertices in increasing merged order, so delta lists stay sorted. */
        for (uint32_t t = 0; t < tc; t++)
            if (tri_head[t] == want)
                for (int k = 0; k < 3; k++)
                    map[b->tri[t][k]] = 0;
        uint32_t n = 0;
        for (uint32_t v = 0; v < vc; v++)
            if (map[v] == 0)
                map[v] = n++;
        chr_mesh_t *m = &c->meshes[c->mesh_count];
        m->vertices = calloc(n, sizeof *m->vertices);
        m->indices = calloc((size_t)ntri * 3, sizeof *m->indices);
        c->mesh_count++;
        if (!m->vertices || !m->indices) {
            ok = false;
            break;
        }
        snprintf(m->name, CHR_NAME_MAX, "%s", part ? "head" : "body");
        /* One-sided unless some material on it is double-sided. */
        bool single = true;
        for (uint32_t v = 0; v < vc; v++)
            if (map[v] != UINT32_MAX && b->scene->materials[b->material[v]].double_sided)
                single = false;
        m->flags = (part ? CHR_MESH_MORPHED : 0u) | (single ? CHR_MESH_SINGLE_SIDED : 0u);
        m->vertex_count = n;
        m->index_count = ntri * 3;
        for (uint32_t v = 0; v < vc; v++)
            if (map[v] != UINT32_MAX)
                copy_vertex(b, v, mat_remap[b->material[v]], &m->vertices[map[v]]);
        uint32_t i = 0;
        for (uint32_t t = 0; t < tc; t++)
            if (tri_head[t] == want)
                for (int k = 0; k < 3; k++)
                    m->indices[i++] = map[b->tri[t][k]];
        parts++;
        if (part == 1)
            head = (int)c->mesh_count - 1;
    }
    /* Blend shapes on the head; a target that moves nothing still gets its
     * (empty) shape, on the first mesh, so its name can be driven. */
    if (ok && parts > 0 && b->target_count > 0) {
        /* map still holds the head's numbering when there is a head. */
        c->shapes = calloc(b->target_count, sizeof *c->shapes);
        ok = c->shapes != NULL;
        for (uint32_t t = 0; t < b->target_count && ok; t++) {
            chr_shape_t *sh = &c->shapes[t];
            c->shape_count = t + 1;
            snprintf(sh->name, CHR_NAME_MAX, "%s", b->target_name[t]);
            sh->mesh = head >= 0 ? (uint32_t)head : 0u;
            sh->category = CHR_SHAPE_MODIFIER;
            sh->deltas = malloc((size_t)(b->target_delta_count[t] ? b->target_delta_count[t] : 1) * sizeof *sh->deltas);
            ok = sh->deltas != NULL;
            uint32_t n = 0;
            for (uint32_t k = 0; ok && head >= 0 && k < b->target_delta_count[t]; k++) {
                uint32_t v = map[b->target_delta[t][k].vertex];
                /* Vertices no triangle uses are not in the character. */
                if (v == UINT32_MAX)
                    continue;
                sh->deltas[n] = b->target_delta[t][k];
                sh->deltas[n].vertex = v;
                n++;
            }
            sh->delta_count = n;
        }
    }
    free(morphed);
    free(map);
    free(tri_head);
    if (!ok)
        log_error("%s: out of memory", b->src);
    return ok && parts > 0;
}

static void build_chr_skeleton(const build_t *b, chr_character_t *c)
{
    skel_t *s = &c->skel;
    const imp_scene_t *sc = b->scene;
    s->joint_count = b->joint_count;
    s->end_count = 0;
    for (int j = 0; j < b->joint_count; j++) {
        uint32_t node = b->joint_node[j];
        snprintf(s->joint_name[j], SKEL_NAME_MAX, "%s", sc->nodes[node].name);
        int p = j == 0 ? -1 : imp_joint_at_or_above(b, sc->nodes[node].parent);
        s->joint_parent[j] = p;
        for (int k = 0; k < 3; k++)
            s->joint_offset[j][k] = b->joint_pos[j][k] - (p >= 0 ? b->joint_pos[p][k] : 0.0f);
        /* World-aligned bind frames: the inverse bind is a translation. */
        float *m = c->bind_inverse[j];
        memset(m, 0, 16 * sizeof *m);
        m[0] = m[5] = m[10] = m[15] = 1.0f;
        for (int k = 0; k < 3; k++)
            m[12 + k] = -b->joint_pos[j][k];
    }
}

bool imp_build(const imp_scene_t *scene, const char *src, chr_character_t *out, imp_info_t *info)
{
    memset(out, 0, sizeof *out);
    if (info)
        memset(info, 0, sizeof *info);
    if (!imp_validate(scene, src))
        return false;
    build_t b;
    memset(&b, 0, sizeof b);
    b.scene = scene;
    b.src = src;
    uint32_t *mat_remap = calloc(scene->material_count, sizeof *mat_remap);
    bool ok = mat_remap != NULL;
    if (!ok)
        log_error("%s: out of memory", src);
    ok = ok && imp_find_skin(&b) && imp_build_skeleton(&b) && imp_place_vertices(&b);
    ok = ok && imp_finish_space(&b) && imp_build_frames(&b) && imp_build_targets(&b);
    if (ok) {
        build_chr_skeleton(&b, out);
        ok = build_materials(&b, out, mat_remap) && build_meshes(&b, out, mat_remap);
    }
    ok = ok && chr_validate(out, src);
    if (ok && info)
        *info = b.info;
    free(mat_remap);
    build_free(&b);
    if (!ok)
        chr_free(out);
    return ok;
}
