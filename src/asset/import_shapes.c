/* import_shapes: the build's morph targets (import_internal.h), merged by
 * name over the meshes, into sparse deltas in bind space: position deltas
 * where a vertex moves, normal and tangent deltas of every vertex the moved
 * surface touches (imp_build_targets). import.c puts them on the "head"
 * mesh. */
#include "asset/import_internal.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Target position differences below this (cm) are not motion. */
#define IMP_MIN_DELTA_CM 1.0e-5f

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
        imp_welded_normal(b, p, v, nn);
        if (glm_vec3_norm(nn) == 0.0f)
            memcpy(nn, b->base_n[v], sizeof nn);
        glm_vec3_zero(dn);
        if (glm_vec3_norm(b->base_n[v]) > 0.0f)
            glm_vec3_sub(nn, b->base_n[v], dn);
        glm_vec3_add(b->nrm[v], dn, morphed_n);
        if (!normalize3(morphed_n))
            memcpy(morphed_n, b->nrm[v], sizeof morphed_n);
        imp_vertex_tangent(b, p, v, morphed_n, tn);
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

bool imp_build_targets(build_t *b)
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
                    glm_mat3_mulv(b->skin_lin[v], d, dm);
                    glm_vec3_scale(dm, IMP_CM_PER_M, dm);
                    if (glm_vec3_norm(dm) < IMP_MIN_DELTA_CM || ts.stamp_v[v] == ts.id)
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
