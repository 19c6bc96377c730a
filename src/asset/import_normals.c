/* import_normals: normals and tangents of the build's vertices
 * (import_internal.h): the welded adjacency (triangles by position group
 * and by vertex), computed normals where the file has none, tangents from
 * the UVs (imp_build_frames); the same welded normal and tangent of a
 * morphed surface for the blend shapes (import_shapes.c). */
#include "asset/import_internal.h"

#include "asset/weld.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The edges from corner 0 of triangle C to its corners 1 and 2 over
 * positions P. */
static void tri_edges(const float (*p)[3], const uint32_t c[3], vec3 e1, vec3 e2)
{
    for (int k = 0; k < 3; k++) {
        e1[k] = p[c[1]][k] - p[c[0]][k];
        e2[k] = p[c[2]][k] - p[c[0]][k];
    }
}

/* Area-weighted face normal of triangle T over positions P (not unit). */
static void face_normal(const build_t *b, const float (*p)[3], uint32_t t, vec3 out)
{
    vec3 e1, e2;
    tri_edges(p, b->tri[t], e1, e2);
    glm_vec3_cross(e1, e2, out);
}

/* Welded normal of vertex V's position group over positions P; zero when
 * every adjacent triangle is degenerate. */
void imp_welded_normal(const build_t *b, const float (*p)[3], uint32_t v, float out[3])
{
    uint32_t g = b->weld[v];
    vec3 n = GLM_VEC3_ZERO_INIT;
    for (uint32_t i = b->group_tri_offset[g]; i < b->group_tri_offset[g + 1]; i++) {
        vec3 fn;
        face_normal(b, p, b->group_tri[i], fn);
        glm_vec3_add(n, fn, n);
    }
    if (!normalize3(n))
        n[0] = n[1] = n[2] = 0.0f;
    memcpy(out, n, sizeof n);
}

/* UV tangent (dP/du, with the sign of the bitangent) of vertex V over
 * positions P, orthonormalised against the unit normal N. */
void imp_vertex_tangent(const build_t *b, const float (*p)[3], uint32_t v, const float n[3], float out[4])
{
    /* A copy of N: cglm takes non-const vectors. */
    vec3 nrm = {n[0], n[1], n[2]}, t = GLM_VEC3_ZERO_INIT, bt = GLM_VEC3_ZERO_INIT;
    for (uint32_t i = b->vert_tri_offset[v]; i < b->vert_tri_offset[v + 1]; i++) {
        const uint32_t *c = b->tri[b->vert_tri[i]];
        vec3 e1, e2;
        tri_edges(p, c, e1, e2);
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
    glm_vec3_muladds(nrm, -glm_vec3_dot(t, nrm), t);
    if (!normalize3(t)) {
        /* No usable UVs: any unit vector perpendicular to the normal. */
        vec3 axis = GLM_VEC3_ZERO_INIT;
        axis[fabsf(n[0]) < 0.9f ? 0 : 1] = 1.0f;
        glm_vec3_cross(axis, nrm, t);
        if (!normalize3(t)) {
            t[0] = 1.0f;
            t[1] = t[2] = 0.0f;
        }
    }
    vec3 c;
    glm_vec3_cross(nrm, t, c);
    memcpy(out, t, sizeof t);
    out[3] = glm_vec3_dot(c, bt) < 0.0f ? -1.0f : 1.0f;
}

/* File normals (or computed ones where the file has none) and tangents. */
bool imp_build_frames(build_t *b)
{
    if (!build_adjacency(b)) {
        log_error("%s: out of memory", b->src);
        return false;
    }
    const float(*p)[3] = (const float(*)[3])b->pos;
    for (uint32_t v = 0; v < b->vertex_count; v++) {
        imp_welded_normal(b, p, v, b->base_n[v]);
        if (glm_vec3_norm(b->nrm[v]) == 0.0f) {
            b->info.computed_normals++;
            memcpy(b->nrm[v], b->base_n[v], sizeof b->nrm[v]);
            if (glm_vec3_norm(b->nrm[v]) == 0.0f)
                b->nrm[v][1] = 1.0f; /* a vertex of degenerate triangles only */
        }
        imp_vertex_tangent(b, p, v, b->nrm[v], b->tan[v]);
    }
    return true;
}
