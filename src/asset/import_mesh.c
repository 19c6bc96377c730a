/* import_mesh: every mesh of the scene into the build's one vertex array
 * (import_internal.h): skinned once at the rest pose (or rigidly with its
 * node), the largest 4 weights of each vertex, the file's normals and UVs,
 * the triangles (imp_place_vertices); then centimetres, the soles on y = 0
 * and the root over the origin (imp_finish_space). */
#include "asset/import_internal.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Normals shorter than this in the file are treated as missing. */
#define IMP_MIN_NORMAL_LENGTH 1.0e-6f
/* Influences kept per vertex while gathering (before the largest 4 are taken). */
#define IMP_GATHER 8

/* ---------------------------------------------------------------- small math */

/* The linear part of M (column-major 16 floats) and, for normals, its
 * cofactor matrix with the sign of the determinant: the inverse transpose up
 * to a positive scale, which the normalisation after every use removes (and
 * which stays defined for a singular matrix). A cofactor matrix's columns
 * are the cross products of the other two columns, in cyclic order; the
 * determinant is the triple product. */
static void mat4_linear(const float m[16], mat3 lin, mat3 normal)
{
    for (int c = 0; c < 3; c++)
        memcpy(lin[c], &m[c * 4], sizeof lin[c]);
    for (int c = 0; c < 3; c++)
        glm_vec3_cross(lin[(c + 1) % 3], lin[(c + 2) % 3], normal[c]);
    float det = glm_vec3_dot(lin[0], normal[0]);
    glm_mat3_scale(normal, det < 0.0f ? -1.0f : 1.0f);
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
    float s[16];
    mat3 lin, nrm;
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
        int j = imp_joint_at_or_above(b, (int)m->node);
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
        mat4 sm = GLM_MAT4_ZERO_INIT;
        mat3 lin = GLM_MAT3_ZERO_INIT, nm = GLM_MAT3_ZERO_INIT;
        for (int k = 0; k < 4; k++) {
            float w = b->weights[v][k];
            if (w == 0.0f)
                continue;
            joint_skin_t *x = m->bone_count > 0 ? &js[b->joints[v][k]] : &rigid;
            for (int e = 0; e < 16; e++)
                sm[e / 4][e % 4] += w * x->s[e];
            for (int c = 0; c < 3; c++) {
                glm_vec3_muladds(x->lin[c], w, lin[c]);
                glm_vec3_muladds(x->nrm[c], w, nm[c]);
            }
        }
        const float *pos = &m->positions[(size_t)i * 3];
        vec3 p = {pos[0], pos[1], pos[2]};
        glm_mat4_mulv3(sm, p, 1.0f, b->pos[v]);
        memcpy(b->skin_lin[v], lin, sizeof lin);
        if (m->normals) {
            const float *fn = &m->normals[(size_t)i * 3];
            vec3 n = {fn[0], fn[1], fn[2]};
            glm_mat3_mulv(nm, n, b->nrm[v]);
            if (glm_vec3_norm(b->nrm[v]) < IMP_MIN_NORMAL_LENGTH || !normalize3(b->nrm[v]))
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

bool imp_place_vertices(build_t *b)
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
        const imp_bone_t *bone = imp_find_bone(b->skin, b->joint_node[j]);
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
bool imp_finish_space(build_t *b)
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
