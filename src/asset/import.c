#include "asset/import.h"

#include "asset/weld.h"

#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest |entry| of a node or inverse-bind matrix (metres, scale factors). */
#define IMP_MATRIX_LIMIT 1.0e6f
/* Inverse bind matrices of one joint in two meshes count as the same skin
 * when no entry differs by more than this (relative to the matrix scale). */
#define IMP_SAME_BIND_TOLERANCE 1.0e-4f
/* Normals shorter than this in the file are treated as missing. */
#define IMP_MIN_NORMAL_LENGTH 1.0e-6f
/* Influences kept per vertex while gathering (before the largest 4 are taken). */
#define IMP_GATHER 8
/* Target position differences below this (cm) are not motion. */
#define IMP_MIN_DELTA_CM 1.0e-5f

/* ---------------------------------------------------------------- small math */

/* Column-major 4x4: element (row r, column c) is m[c * 4 + r]. */
static void mat4_mul(const float a[16], const float b[16], float out[16])
{
    float r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            float s = 0.0f;
            for (int k = 0; k < 4; k++)
                s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    memcpy(out, r, sizeof r);
}

static void mat4_point(const float m[16], const float p[3], float out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

static void mat3_vec(const float m[9], const float v[3], float out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m[r] * v[0] + m[3 + r] * v[1] + m[6 + r] * v[2];
}

/* The linear part of M (column-major 3x3) and, for normals, its cofactor
 * matrix with the sign of the determinant: the inverse transpose up to a
 * positive scale, which the normalisation after every use removes (and
 * which stays defined for a singular matrix). */
static void mat4_linear(const float m[16], float lin[9], float normal[9])
{
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            lin[c * 3 + r] = m[c * 4 + r];
#define A(r, c) lin[(c)*3 + (r)]
    float cof[9];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) {
            int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
            cof[c * 3 + r] = A(r1, c1) * A(r2, c2) - A(r1, c2) * A(r2, c1);
        }
    float det = A(0, 0) * cof[0] + A(0, 1) * cof[3] + A(0, 2) * cof[6];
#undef A
    float sign = det < 0.0f ? -1.0f : 1.0f;
    for (int i = 0; i < 9; i++)
        normal[i] = sign * cof[i];
}

static float len3(const float v[3]) { return sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static bool normalize3(float v[3])
{
    float l = len3(v);
    if (!(l > 1e-12f) || !isfinite(l))
        return false;
    v[0] /= l;
    v[1] /= l;
    v[2] /= l;
    return true;
}

static void cross3(const float a[3], const float b[3], float out[3])
{
    float r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(out, r, sizeof r);
}

static float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static bool finite_n(const float *v, size_t n, float limit)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || fabsf(v[i]) > limit)
            return false;
    return true;
}

static void *xcalloc(size_t n, size_t size, bool *ok)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *ok = false;
    return p;
}

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
        /* Exporters round: a weight a little over 1 is clamped (gather_add). */
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

/* ---------------------------------------------------------------- skeleton */

/* Everything imp_build() works on; freed by build_free(). */
typedef struct build_t {
    const imp_scene_t *scene;
    const char *src;
    float (*world)[16]; /* node_count rest world transforms */
    int *joint_of_node; /* node -> joint index, -1 if not a joint */
    int joint_count;
    uint32_t joint_node[SKEL_MAX_JOINTS];
    float joint_pos[SKEL_MAX_JOINTS][3]; /* model space, cm after finish_space() */
    const imp_mesh_t *skin;              /* the reference skinned mesh */
    /* Merged vertices (all meshes), model space. */
    uint32_t vertex_count, triangle_count;
    uint32_t *mesh_first; /* mesh_count + 1: first merged vertex of each mesh */
    float (*pos)[3];
    float (*nrm)[3]; /* unit, or zero where the file had none */
    float (*uv)[2];
    float (*tan)[4];
    uint16_t (*joints)[4];
    float (*weights)[4];
    uint32_t *material; /* scene material */
    uint32_t (*tri)[3];
    /* Pre-skinning of each mesh vertex: for morph deltas (bind space). */
    float (*skin_lin)[9]; /* per merged vertex: blended linear part */
    /* Normals from positions, welded over identical positions. */
    uint32_t *weld; /* vertex -> weld group */
    uint32_t group_count;
    uint32_t *group_tri_offset, *group_tri; /* group -> triangles (CSR) */
    uint32_t *vert_tri_offset, *vert_tri;   /* vertex -> triangles (CSR) */
    float (*base_n)[3];                     /* computed (welded) normal per vertex, from the base positions */
    /* Targets, merged by name. */
    uint32_t target_count;
    char (*target_name)[CHR_NAME_MAX];
    chr_delta_t **target_delta;
    uint32_t *target_delta_count;
    imp_info_t info;
} build_t;

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

static bool same_bind(const float a[16], const float b[16])
{
    float scale = 1.0f;
    for (int i = 0; i < 16; i++)
        scale = fmaxf(scale, fabsf(a[i]));
    for (int i = 0; i < 16; i++)
        if (fabsf(a[i] - b[i]) > IMP_SAME_BIND_TOLERANCE * scale)
            return false;
    return true;
}

/* The bone of MESH bound to NODE, or NULL. */
static const imp_bone_t *find_bone(const imp_mesh_t *m, uint32_t node)
{
    for (uint32_t i = 0; i < m->bone_count; i++)
        if (m->bones[i].node == node)
            return &m->bones[i];
    return NULL;
}

/* Exactly one skin: every skinned mesh binds the same joints with the same
 * inverse bind matrices (several meshes sharing a skin are fine). */
static bool find_skin(build_t *b)
{
    const imp_scene_t *s = b->scene;
    for (uint32_t mi = 0; mi < s->mesh_count; mi++) {
        const imp_mesh_t *m = &s->meshes[mi];
        if (m->bone_count == 0)
            continue;
        for (uint32_t i = 0; i < m->bone_count; i++)
            for (uint32_t k = 0; k < i; k++)
                if (m->bones[i].node == m->bones[k].node) {
                    log_error("%s: mesh '%s' binds joint '%s' twice", b->src, m->name, s->nodes[m->bones[i].node].name);
                    return false;
                }
        if (!b->skin) {
            b->skin = m;
            continue;
        }
        bool same = m->bone_count == b->skin->bone_count;
        for (uint32_t i = 0; same && i < m->bone_count; i++) {
            const imp_bone_t *o = find_bone(b->skin, m->bones[i].node);
            same = o && same_bind(o->inverse_bind, m->bones[i].inverse_bind);
        }
        if (!same) {
            log_error("%s: two skins (meshes '%s' and '%s' bind different joints or bind poses); strider imports a "
                      "character with one skin",
                      b->src, b->skin->name, m->name);
            return false;
        }
    }
    if (!b->skin) {
        log_error("%s: no skinned mesh (no joints with vertex weights): not a skinned character", b->src);
        return false;
    }
    return true;
}

/* Nearest joint at or above NODE, or -1. */
static int joint_at_or_above(const build_t *b, int node)
{
    while (node >= 0 && b->joint_of_node[node] < 0)
        node = b->scene->nodes[node].parent;
    return node >= 0 ? b->joint_of_node[node] : -1;
}

/* Joints: the skin's nodes, the nodes between them and their common
 * ancestor, which becomes the root. Node order is parents first, so
 * numbering marked nodes in node order keeps parents before children. */
static bool build_skeleton(build_t *b)
{
    const imp_scene_t *s = b->scene;
    uint32_t nc = s->node_count;
    bool ok = true;
    b->world = xcalloc(nc, sizeof *b->world, &ok);
    b->joint_of_node = xcalloc(nc, sizeof *b->joint_of_node, &ok);
    uint8_t *mark = xcalloc(nc, 1, &ok);
    int *depth = xcalloc(nc, sizeof *depth, &ok);
    if (!ok) {
        free(mark);
        free(depth);
        log_error("%s: out of memory", b->src);
        return false;
    }
    for (uint32_t i = 0; i < nc; i++) {
        const imp_node_t *n = &s->nodes[i];
        if (n->parent < 0) {
            memcpy(b->world[i], n->local, sizeof b->world[i]);
            depth[i] = 0;
        } else {
            mat4_mul(b->world[n->parent], n->local, b->world[i]);
            depth[i] = depth[n->parent] + 1;
        }
        b->joint_of_node[i] = -1;
    }
    /* Common ancestor of every skin joint: walk the deeper one up. */
    int lca = (int)b->skin->bones[0].node;
    for (uint32_t i = 0; i < b->skin->bone_count; i++) {
        int x = (int)b->skin->bones[i].node;
        while (lca != x && lca >= 0 && x >= 0) {
            if (depth[lca] >= depth[x])
                lca = s->nodes[lca].parent;
            else
                x = s->nodes[x].parent;
        }
        if (lca < 0 || x < 0) {
            log_error("%s: the skin's joints '%s' and '%s' share no root node", b->src,
                      s->nodes[b->skin->bones[0].node].name, s->nodes[b->skin->bones[i].node].name);
            free(mark);
            free(depth);
            return false;
        }
    }
    for (uint32_t i = 0; i < b->skin->bone_count; i++)
        for (int x = (int)b->skin->bones[i].node; x >= 0 && !mark[x]; x = s->nodes[x].parent) {
            mark[x] = 1;
            if (x == lca)
                break;
        }
    mark[lca] = 1;
    int count = 0;
    for (uint32_t i = 0; i < nc; i++)
        count += mark[i];
    free(depth);
    if (count > SKEL_MAX_JOINTS) {
        log_error("%s: %d joints, more than the %d the skinning palette holds", b->src, count, SKEL_MAX_JOINTS);
        free(mark);
        return false;
    }
    int j = 0;
    for (uint32_t i = 0; i < nc; i++) {
        if (!mark[i])
            continue;
        const char *name = s->nodes[i].name;
        size_t len = strlen(name);
        if (len < 1 || len >= SKEL_NAME_MAX) {
            log_error("%s: joint node %u: name '%.40s' empty or longer than %d characters", b->src, i, name,
                      SKEL_NAME_MAX - 1);
            free(mark);
            return false;
        }
        for (int k = 0; k < j; k++)
            if (strcmp(s->nodes[b->joint_node[k]].name, name) == 0) {
                log_error("%s: two joints are named '%s'", b->src, name);
                free(mark);
                return false;
            }
        b->joint_of_node[i] = j;
        b->joint_node[j] = i;
        for (int k = 0; k < 3; k++)
            b->joint_pos[j][k] = b->world[i][12 + k];
        j++;
    }
    free(mark);
    b->joint_count = j;
    b->info.joints = (uint32_t)j;
    return true;
}

/* ---------------------------------------------------------------- vertices */

typedef struct gather_t {
    int n;
    int joint[IMP_GATHER];
    float w[IMP_GATHER];
    float sum; /* every weight, kept or not */
    int total; /* influences seen */
} gather_t;

static void gather_add(gather_t *g, int joint, float w)
{
    w = fminf(w, 1.0f);
    g->sum += w;
    if (w <= 0.0f)
        return;
    g->total++;
    for (int k = 0; k < g->n; k++)
        if (g->joint[k] == joint) {
            g->w[k] += w;
            g->total--;
            return;
        }
    if (g->n < IMP_GATHER) {
        g->joint[g->n] = joint;
        g->w[g->n] = w;
        g->n++;
        return;
    }
    int min = 0;
    for (int k = 1; k < g->n; k++)
        if (g->w[k] < g->w[min])
            min = k;
    if (w > g->w[min]) {
        g->joint[min] = joint;
        g->w[min] = w;
    }
}

/* The largest 4 influences of G, sorted descending, renormalised; the
 * palette matrices S blended by them give the vertex's pre-skinning. */
static void gather_finish(const gather_t *g, uint16_t joints[4], float weights[4])
{
    int order[IMP_GATHER] = {0};
    for (int k = 0; k < g->n; k++)
        order[k] = k;
    for (int a = 1; a < g->n; a++)
        for (int k = a; k > 0 && g->w[order[k]] > g->w[order[k - 1]]; k--) {
            int t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    int keep = g->n < 4 ? g->n : 4;
    float sum = 0.0f;
    for (int k = 0; k < keep; k++)
        sum += g->w[order[k]];
    for (int k = 0; k < 4; k++) {
        joints[k] = k < keep ? (uint16_t)g->joint[order[k]] : (uint16_t)g->joint[order[0]];
        weights[k] = k < keep ? g->w[order[k]] / sum : 0.0f;
    }
    /* Division leaves the sum within a few ulps of 1; put the remainder on
     * the largest weight so the sum is as exact as floats allow. */
    float total = weights[0] + weights[1] + weights[2] + weights[3];
    weights[0] += 1.0f - total;
    for (int k = 1; k < 4; k++)
        if (weights[k] > weights[0])
            weights[k] = weights[0];
}

static bool alloc_vertices(build_t *b)
{
    const imp_scene_t *s = b->scene;
    bool ok = true;
    b->mesh_first = xcalloc(s->mesh_count + 1, sizeof *b->mesh_first, &ok);
    if (!ok)
        return false;
    uint32_t v = 0, t = 0;
    for (uint32_t mi = 0; mi < s->mesh_count; mi++) {
        b->mesh_first[mi] = v;
        v += s->meshes[mi].vertex_count;
        t += s->meshes[mi].face_count;
    }
    b->mesh_first[s->mesh_count] = v;
    b->vertex_count = v;
    b->triangle_count = t;
    b->info.source_vertices = v;
    b->info.source_triangles = t;
    b->pos = xcalloc(v, sizeof *b->pos, &ok);
    b->nrm = xcalloc(v, sizeof *b->nrm, &ok);
    b->uv = xcalloc(v, sizeof *b->uv, &ok);
    b->tan = xcalloc(v, sizeof *b->tan, &ok);
    b->joints = xcalloc(v, sizeof *b->joints, &ok);
    b->weights = xcalloc(v, sizeof *b->weights, &ok);
    b->material = xcalloc(v, sizeof *b->material, &ok);
    b->skin_lin = xcalloc(v, sizeof *b->skin_lin, &ok);
    b->tri = xcalloc(t, sizeof *b->tri, &ok);
    return ok;
}

/* Per skin joint: S = world(joint) x inverse_bind (mesh -> rest model
 * space), its linear part and the linear part's inverse transpose. */
typedef struct joint_skin_t {
    float s[16], lin[9], nrm[9];
} joint_skin_t;

/* Mesh MI into the merged arrays: skinned once at the rest pose (or rigidly
 * with its node when unskinned), weights gathered and checked. */
static bool place_mesh(build_t *b, uint32_t mi, joint_skin_t *js, gather_t *g)
{
    const imp_scene_t *s = b->scene;
    const imp_mesh_t *m = &s->meshes[mi];
    uint32_t first = b->mesh_first[mi], vc = m->vertex_count;
    memset(g, 0, (size_t)vc * sizeof *g);
    if (m->bone_count > 0) {
        b->info.skinned_meshes++;
        for (uint32_t bi = 0; bi < m->bone_count; bi++) {
            const imp_bone_t *bone = &m->bones[bi];
            int j = b->joint_of_node[bone->node];
            for (uint32_t i = 0; i < bone->weight_count; i++)
                gather_add(&g[bone->weight_vertex[i]], j, bone->weight_value[i]);
        }
    } else {
        int j = joint_at_or_above(b, (int)m->node);
        if (j < 0) {
            log_error("%s: mesh '%s' is neither skinned nor attached to a joint of the skin", b->src, m->name);
            return false;
        }
        b->info.rigid_meshes++;
        for (uint32_t i = 0; i < vc; i++)
            gather_add(&g[i], j, 1.0f);
    }
    /* Rigid meshes ride on their own node, whatever joint they follow. */
    joint_skin_t rigid;
    memcpy(rigid.s, b->world[m->node], sizeof rigid.s);
    mat4_linear(rigid.s, rigid.lin, rigid.nrm);
    for (uint32_t i = 0; i < vc; i++) {
        gather_t *gv = &g[i];
        uint32_t v = first + i;
        if (gv->n == 0 || !(gv->sum > 0.0f)) {
            log_error("%s: mesh '%s' vertex %u has no skin weight", b->src, m->name, i);
            return false;
        }
        if (fabsf(gv->sum - 1.0f) > CHR_WEIGHT_SUM_TOLERANCE) {
            if (b->info.renormalised == 0 || fabsf(gv->sum - 1.0f) > fabsf(b->info.worst_weight_sum - 1.0f))
                b->info.worst_weight_sum = gv->sum;
            b->info.renormalised++;
        }
        if (gv->total > CHR_MAX_INFLUENCES)
            b->info.truncated++;
        gather_finish(gv, b->joints[v], b->weights[v]);
        /* Blend the pre-skinning matrices of the kept influences. */
        float sm[16] = {0}, lin[9] = {0}, nm[9] = {0};
        for (int k = 0; k < 4; k++) {
            float w = b->weights[v][k];
            if (w == 0.0f)
                continue;
            const joint_skin_t *x = m->bone_count > 0 ? &js[b->joints[v][k]] : &rigid;
            for (int e = 0; e < 16; e++)
                sm[e] += w * x->s[e];
            for (int e = 0; e < 9; e++) {
                lin[e] += w * x->lin[e];
                nm[e] += w * x->nrm[e];
            }
        }
        mat4_point(sm, &m->positions[(size_t)i * 3], b->pos[v]);
        memcpy(b->skin_lin[v], lin, sizeof lin);
        if (m->normals) {
            mat3_vec(nm, &m->normals[(size_t)i * 3], b->nrm[v]);
            if (len3(b->nrm[v]) < IMP_MIN_NORMAL_LENGTH || !normalize3(b->nrm[v]))
                memset(b->nrm[v], 0, sizeof b->nrm[v]);
        }
        if (m->uvs)
            memcpy(b->uv[v], &m->uvs[(size_t)i * 2], sizeof b->uv[v]);
        b->material[v] = m->material;
    }
    uint32_t tri_first = 0;
    for (uint32_t k = 0; k < mi; k++)
        tri_first += s->meshes[k].face_count;
    for (uint32_t f = 0; f < m->face_count; f++)
        for (int c = 0; c < 3; c++)
            b->tri[tri_first + f][c] = first + m->face_index[(size_t)f * 3 + c];
    return true;
}

static bool place_vertices(build_t *b)
{
    const imp_scene_t *s = b->scene;
    if (!alloc_vertices(b)) {
        log_error("%s: out of memory", b->src);
        return false;
    }
    joint_skin_t *js = calloc((size_t)b->joint_count, sizeof *js);
    uint32_t max_vc = 0;
    for (uint32_t mi = 0; mi < s->mesh_count; mi++)
        if (s->meshes[mi].vertex_count > max_vc)
            max_vc = s->meshes[mi].vertex_count;
    gather_t *g = calloc(max_vc, sizeof *g);
    if (!js || !g) {
        free(js);
        free(g);
        log_error("%s: out of memory", b->src);
        return false;
    }
    /* Joints that are not bones of the skin (the path to the root) carry no
     * weight; their S is the identity. */
    for (int j = 0; j < b->joint_count; j++) {
        const imp_bone_t *bone = find_bone(b->skin, b->joint_node[j]);
        static const float id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        if (bone)
            mat4_mul(b->world[b->joint_node[j]], bone->inverse_bind, js[j].s);
        else
            memcpy(js[j].s, id, sizeof id);
        mat4_linear(js[j].s, js[j].lin, js[j].nrm);
    }
    bool ok = true;
    for (uint32_t mi = 0; mi < s->mesh_count && ok; mi++)
        ok = place_mesh(b, mi, js, g);
    free(js);
    free(g);
    /* Triangles that repeat a corner draw nothing: dropped. */
    uint32_t kept = 0;
    for (uint32_t t = 0; ok && t < b->triangle_count; t++) {
        const uint32_t *c = b->tri[t];
        if (c[0] != c[1] && c[1] != c[2] && c[0] != c[2])
            memmove(b->tri[kept++], c, sizeof b->tri[0]);
    }
    if (ok && kept == 0) {
        log_error("%s: no triangle with three different corners", b->src);
        return false;
    }
    b->info.dropped_triangles = b->triangle_count - kept;
    b->triangle_count = kept;
    return ok;
}

/* Metres -> centimetres; the soles on y = 0 and the root joint above the
 * origin. False (one line) when node transforms put anything beyond the
 * format's range. */
static bool finish_space(build_t *b)
{
    float min_y = INFINITY, max_y = -INFINITY;
    for (uint32_t v = 0; v < b->vertex_count; v++) {
        min_y = fminf(min_y, b->pos[v][1]);
        max_y = fmaxf(max_y, b->pos[v][1]);
    }
    float shift[3] = {-b->joint_pos[0][0], -min_y, -b->joint_pos[0][2]};
    for (uint32_t v = 0; v < b->vertex_count; v++)
        for (int k = 0; k < 3; k++)
            b->pos[v][k] = (b->pos[v][k] + shift[k]) * IMP_CM_PER_M;
    for (int j = 0; j < b->joint_count; j++)
        for (int k = 0; k < 3; k++)
            b->joint_pos[j][k] = (b->joint_pos[j][k] + shift[k]) * IMP_CM_PER_M;
    b->info.height_cm = (max_y - min_y) * IMP_CM_PER_M;
    bool ok = finite_n(&b->joint_pos[0][0], (size_t)b->joint_count * 3, CHR_POS_LIMIT_CM);
    for (uint32_t v = 0; v < b->vertex_count && ok; v++)
        ok = finite_n(b->pos[v], 3, CHR_POS_LIMIT_CM);
    if (!ok)
        log_error("%s: with its node transforms the character reaches beyond +-%g m (or NaN)", b->src,
                  (double)(CHR_POS_LIMIT_CM / IMP_CM_PER_M));
    return ok;
}

/* ---------------------------------------------------------------- normals, tangents */

/* CSR table from KEY (n entries, values < key_count) to the triangle of
 * each entry (entry e belongs to triangle e / 3). */
static bool csr_build(const uint32_t *key, uint32_t n, uint32_t key_count, uint32_t **offset, uint32_t **items)
{
    bool ok = true;
    *offset = xcalloc((size_t)key_count + 1, sizeof **offset, &ok);
    *items = xcalloc(n, sizeof **items, &ok);
    if (!ok)
        return false;
    for (uint32_t e = 0; e < n; e++)
        (*offset)[key[e] + 1]++;
    for (uint32_t k = 0; k < key_count; k++)
        (*offset)[k + 1] += (*offset)[k];
    uint32_t *fill = malloc(((size_t)key_count + 1) * sizeof *fill);
    if (!fill)
        return false;
    memcpy(fill, *offset, ((size_t)key_count + 1) * sizeof *fill);
    for (uint32_t e = 0; e < n; e++)
        (*items)[fill[key[e]]++] = e / 3;
    free(fill);
    return true;
}

static bool build_adjacency(build_t *b)
{
    uint32_t vc = b->vertex_count, n = b->triangle_count * 3;
    bool ok = true;
    b->weld = xcalloc(vc, sizeof *b->weld, &ok);
    uint32_t *key = xcalloc(n, sizeof *key, &ok);
    b->base_n = xcalloc(vc, sizeof *b->base_n, &ok);
    if (!ok || !weld_positions((const float(*)[3])b->pos, vc, b->weld, &b->group_count)) {
        free(key);
        return false;
    }
    const uint32_t *corner = &b->tri[0][0];
    for (uint32_t e = 0; e < n; e++)
        key[e] = b->weld[corner[e]];
    ok = csr_build(key, n, b->group_count, &b->group_tri_offset, &b->group_tri) &&
         csr_build(corner, n, vc, &b->vert_tri_offset, &b->vert_tri);
    free(key);
    return ok;
}

/* Area-weighted face normal of triangle T over positions P (not unit). */
static void face_normal(const build_t *b, const float (*p)[3], uint32_t t, float out[3])
{
    const uint32_t *c = b->tri[t];
    float e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = p[c[1]][k] - p[c[0]][k];
        e2[k] = p[c[2]][k] - p[c[0]][k];
    }
    cross3(e1, e2, out);
}

/* Welded normal of vertex V's position group over positions P; zero when
 * every adjacent triangle is degenerate. */
static void welded_normal(const build_t *b, const float (*p)[3], uint32_t v, float out[3])
{
    uint32_t g = b->weld[v];
    float n[3] = {0, 0, 0};
    for (uint32_t i = b->group_tri_offset[g]; i < b->group_tri_offset[g + 1]; i++) {
        float fn[3];
        face_normal(b, p, b->group_tri[i], fn);
        for (int k = 0; k < 3; k++)
            n[k] += fn[k];
    }
    if (!normalize3(n))
        n[0] = n[1] = n[2] = 0.0f;
    memcpy(out, n, sizeof n);
}

/* UV tangent (dP/du, with the sign of the bitangent) of vertex V over
 * positions P, orthonormalised against the unit normal N. */
static void vertex_tangent(const build_t *b, const float (*p)[3], uint32_t v, const float n[3], float out[4])
{
    float t[3] = {0, 0, 0}, bt[3] = {0, 0, 0};
    for (uint32_t i = b->vert_tri_offset[v]; i < b->vert_tri_offset[v + 1]; i++) {
        const uint32_t *c = b->tri[b->vert_tri[i]];
        float e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = p[c[1]][k] - p[c[0]][k];
            e2[k] = p[c[2]][k] - p[c[0]][k];
        }
        float du1 = b->uv[c[1]][0] - b->uv[c[0]][0], dv1 = b->uv[c[1]][1] - b->uv[c[0]][1];
        float du2 = b->uv[c[2]][0] - b->uv[c[0]][0], dv2 = b->uv[c[2]][1] - b->uv[c[0]][1];
        float det = du1 * dv2 - du2 * dv1;
        if (!(fabsf(det) > 1e-12f))
            continue;
        /* Weighting by the UV area's sign only keeps big triangles from
         * dominating less than area weighting would; 1/det scales both. */
        float r = 1.0f / det;
        for (int k = 0; k < 3; k++) {
            t[k] += (e1[k] * dv2 - e2[k] * dv1) * r;
            bt[k] += (e2[k] * du1 - e1[k] * du2) * r;
        }
    }
    float d = dot3(t, n);
    for (int k = 0; k < 3; k++)
        t[k] -= n[k] * d;
    if (!normalize3(t)) {
        /* No usable UVs: any unit vector perpendicular to the normal. */
        float axis[3] = {0.0f, 0.0f, 0.0f};
        axis[fabsf(n[0]) < 0.9f ? 0 : 1] = 1.0f;
        cross3(axis, n, t);
        if (!normalize3(t)) {
            t[0] = 1.0f;
            t[1] = t[2] = 0.0f;
        }
    }
    float c[3];
    cross3(n, t, c);
    memcpy(out, t, sizeof t);
    out[3] = dot3(c, bt) < 0.0f ? -1.0f : 1.0f;
}

/* File normals (or computed ones where the file has none) and tangents. */
static bool build_frames(build_t *b)
{
    if (!build_adjacency(b)) {
        log_error("%s: out of memory", b->src);
        return false;
    }
    const float(*p)[3] = (const float(*)[3])b->pos;
    for (uint32_t v = 0; v < b->vertex_count; v++) {
        welded_normal(b, p, v, b->base_n[v]);
        if (len3(b->nrm[v]) == 0.0f) {
            b->info.computed_normals++;
            memcpy(b->nrm[v], b->base_n[v], sizeof b->nrm[v]);
            if (len3(b->nrm[v]) == 0.0f)
                b->nrm[v][1] = 1.0f; /* a vertex of degenerate triangles only */
        }
        vertex_tangent(b, p, v, b->nrm[v], b->tan[v]);
    }
    return true;
}

/* ---------------------------------------------------------------- targets */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* Index of target NAME, added when new; -1 when out of memory or too many. */
static int target_slot(build_t *b, const char *name, uint32_t capacity)
{
    for (uint32_t t = 0; t < b->target_count; t++)
        if (strcmp(b->target_name[t], name) == 0)
            return (int)t;
    if (b->target_count >= capacity)
        return -1;
    snprintf(b->target_name[b->target_count], CHR_NAME_MAX, "%s", name);
    return (int)b->target_count++;
}

/* Scratch for one target at a time: moved positions and stamps. */
typedef struct target_scratch_t {
    float (*p)[3];     /* positions with the target applied */
    uint32_t *stamp_v; /* vertex listed for this target (stamp == id) */
    uint32_t *list;    /* vertices with a delta, unsorted */
    float (*dpos)[3];  /* per vertex, valid where stamp_v == id */
    uint32_t id;
} target_scratch_t;

/* Normal and tangent deltas of the moved vertices and of every vertex whose
 * triangles they belong to, into the target's sorted delta list. */
static bool finish_target(build_t *b, target_scratch_t *ts, uint32_t t, uint32_t moved)
{
    uint32_t n = moved;
    /* Every corner of a triangle with a moved corner, and every vertex
     * welded to one, has a new normal. */
    for (uint32_t i = 0; i < moved; i++) {
        uint32_t v = ts->list[i];
        for (uint32_t k = b->vert_tri_offset[v]; k < b->vert_tri_offset[v + 1]; k++) {
            const uint32_t *c = b->tri[b->vert_tri[k]];
            for (int e = 0; e < 3; e++) {
                uint32_t g = b->weld[c[e]];
                for (uint32_t q = b->group_tri_offset[g]; q < b->group_tri_offset[g + 1]; q++) {
                    const uint32_t *c2 = b->tri[b->group_tri[q]];
                    for (int e2 = 0; e2 < 3; e2++) {
                        uint32_t w = c2[e2];
                        if (b->weld[w] == g && ts->stamp_v[w] != ts->id) {
                            ts->stamp_v[w] = ts->id;
                            memset(ts->dpos[w], 0, sizeof ts->dpos[w]);
                            ts->list[n++] = w;
                        }
                    }
                }
            }
        }
    }
    qsort(ts->list, n, sizeof *ts->list, cmp_u32);
    chr_delta_t *d = malloc((size_t)(n ? n : 1) * sizeof *d);
    if (!d) {
        for (uint32_t i = 0; i < n; i++)
            memcpy(ts->p[ts->list[i]], b->pos[ts->list[i]], sizeof ts->p[0]);
        return false;
    }
    const float(*p)[3] = (const float(*)[3])ts->p;
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = ts->list[i];
        float nn[3], dn[3], morphed_n[3], tn[4];
        welded_normal(b, p, v, nn);
        if (len3(nn) == 0.0f)
            memcpy(nn, b->base_n[v], sizeof nn);
        for (int k = 0; k < 3; k++) {
            dn[k] = len3(b->base_n[v]) > 0.0f ? nn[k] - b->base_n[v][k] : 0.0f;
            morphed_n[k] = b->nrm[v][k] + dn[k];
        }
        if (!normalize3(morphed_n))
            memcpy(morphed_n, b->nrm[v], sizeof morphed_n);
        vertex_tangent(b, p, v, morphed_n, tn);
        chr_delta_t *x = &d[count];
        x->vertex = v;
        memcpy(x->dpos, ts->dpos[v], sizeof x->dpos);
        memcpy(x->dnormal, dn, sizeof dn);
        for (int k = 0; k < 3; k++)
            x->dtangent[k] = tn[3] == b->tan[v][3] ? tn[k] - b->tan[v][k] : 0.0f;
        x->dao = 0.0f;
        if (x->dpos[0] != 0.0f || x->dpos[1] != 0.0f || x->dpos[2] != 0.0f || dn[0] != 0.0f || dn[1] != 0.0f ||
            dn[2] != 0.0f || x->dtangent[0] != 0.0f || x->dtangent[1] != 0.0f || x->dtangent[2] != 0.0f)
            count++;
    }
    b->target_delta[t] = d;
    b->target_delta_count[t] = count;
    /* Back to the base positions for the next target. */
    for (uint32_t i = 0; i < n; i++)
        memcpy(ts->p[ts->list[i]], b->pos[ts->list[i]], sizeof ts->p[0]);
    return true;
}

static bool build_targets(build_t *b)
{
    const imp_scene_t *s = b->scene;
    uint32_t capacity = 0;
    for (uint32_t mi = 0; mi < s->mesh_count; mi++)
        capacity += s->meshes[mi].target_count;
    if (capacity == 0)
        return true;
    bool ok = true;
    b->target_name = xcalloc(capacity, sizeof *b->target_name, &ok);
    b->target_delta = xcalloc(capacity, sizeof *b->target_delta, &ok);
    b->target_delta_count = xcalloc(capacity, sizeof *b->target_delta_count, &ok);
    target_scratch_t ts = {0};
    ts.p = xcalloc(b->vertex_count, sizeof *ts.p, &ok);
    ts.stamp_v = xcalloc(b->vertex_count, sizeof *ts.stamp_v, &ok);
    ts.list = xcalloc(b->vertex_count, sizeof *ts.list, &ok);
    ts.dpos = xcalloc(b->vertex_count, sizeof *ts.dpos, &ok);
    if (ok)
        memcpy(ts.p, b->pos, (size_t)b->vertex_count * sizeof *ts.p);
    for (uint32_t mi = 0; mi < s->mesh_count && ok; mi++)
        for (uint32_t t = 0; t < s->meshes[mi].target_count; t++)
            if (target_slot(b, s->meshes[mi].targets[t].name, capacity) < 0)
                ok = false;
    for (uint32_t t = 0; t < b->target_count && ok; t++) {
        ts.id = t + 1;
        uint32_t moved = 0;
        for (uint32_t mi = 0; mi < s->mesh_count; mi++) {
            const imp_mesh_t *m = &s->meshes[mi];
            for (uint32_t k = 0; k < m->target_count; k++) {
                const imp_target_t *tg = &m->targets[k];
                if (strcmp(tg->name, b->target_name[t]) != 0 || !tg->positions)
                    continue;
                for (uint32_t i = 0; i < m->vertex_count; i++) {
                    float d[3], dm[3];
                    for (int c = 0; c < 3; c++)
                        d[c] = tg->positions[(size_t)i * 3 + c] - m->positions[(size_t)i * 3 + c];
                    if (d[0] == 0.0f && d[1] == 0.0f && d[2] == 0.0f)
                        continue;
                    uint32_t v = b->mesh_first[mi] + i;
                    /* Deltas live in bind space: through the pre-skinning. */
                    mat3_vec(b->skin_lin[v], d, dm);
                    for (int c = 0; c < 3; c++)
                        dm[c] *= IMP_CM_PER_M;
                    if (len3(dm) < IMP_MIN_DELTA_CM || ts.stamp_v[v] == ts.id)
                        continue;
                    ts.stamp_v[v] = ts.id;
                    memcpy(ts.dpos[v], dm, sizeof dm);
                    ts.list[moved++] = v;
                }
            }
        }
        for (uint32_t i = 0; i < moved; i++)
            for (int c = 0; c < 3; c++)
                ts.p[ts.list[i]][c] = b->pos[ts.list[i]][c] + ts.dpos[ts.list[i]][c];
        ok = finish_target(b, &ts, t, moved);
    }
    b->info.targets = b->target_count;
    free(ts.p);
    free(ts.stamp_v);
    free(ts.list);
    free(ts.dpos);
    if (!ok)
        log_error("%s: out of memory building %u morph targets", b->src, capacity);
    return ok;
}

/* ---------------------------------------------------------------- output */

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
        int p = j == 0 ? -1 : joint_at_or_above(b, sc->nodes[node].parent);
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
    ok = ok && find_skin(&b) && build_skeleton(&b) && place_vertices(&b);
    ok = ok && finish_space(&b) && build_frames(&b) && build_targets(&b);
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
