#include "asset/chr_bshape.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void delta_pack(const chr_delta_t *d, float out[BSHAPE_DELTA_FLOATS])
{
    out[0] = d->dpos[0];
    out[1] = d->dpos[1];
    out[2] = d->dpos[2];
    out[3] = d->dnormal[0];
    out[4] = d->dnormal[1];
    out[5] = d->dnormal[2];
    out[6] = d->dtangent[0];
    out[7] = d->dtangent[1];
    out[8] = d->dtangent[2];
    out[9] = d->dao;
}

/* The deltas of target T (shape or corrective) of SET. */
static void target_deltas(const chr_character_t *c, const bshape_set_t *set, uint32_t t, const chr_delta_t **deltas,
                          uint32_t *count)
{
    if (t < set->shape_count) {
        const chr_shape_t *s = &c->shapes[set->target_source[t]];
        *deltas = s->deltas;
        *count = s->delta_count;
    } else {
        const chr_corrective_t *k = &c->correctives[set->target_source[t]];
        *deltas = k->deltas;
        *count = k->delta_count;
    }
}

/* From the sparse pairs when the set has them (they are the chr's deltas,
 * packed and reordered: the same values land in the same places), so a
 * caller that let the chr's copy go can still ask for the dense layout. */
static bool build_dense(bshape_set_t *set, const chr_character_t *c)
{
    size_t n = (size_t)set->target_count * set->vertex_count * BSHAPE_DELTA_FLOATS;
    set->dense = calloc(n ? n : 1, sizeof *set->dense);
    if (!set->dense)
        return false;
    if (set->vertex_offset) {
        for (uint32_t v = 0; v < set->vertex_count; v++)
            for (uint32_t i = set->vertex_offset[v]; i < set->vertex_offset[v + 1]; i++)
                memcpy(set->dense + ((size_t)set->pair_target[i] * set->vertex_count + v) * BSHAPE_DELTA_FLOATS,
                       set->pair_delta + (size_t)i * BSHAPE_DELTA_FLOATS, BSHAPE_DELTA_FLOATS * sizeof *set->dense);
        return true;
    }
    for (uint32_t t = 0; t < set->target_count; t++) {
        const chr_delta_t *d;
        uint32_t count;
        target_deltas(c, set, t, &d, &count);
        float *base = set->dense + (size_t)t * set->vertex_count * BSHAPE_DELTA_FLOATS;
        for (uint32_t i = 0; i < count; i++)
            delta_pack(&d[i], base + (size_t)d[i].vertex * BSHAPE_DELTA_FLOATS);
    }
    return true;
}

/* Counting sort of the shape-major entries into vertex-major pairs; targets
 * are visited in ascending order, so each vertex's pairs stay sorted. */
static bool build_sparse(bshape_set_t *set, const chr_character_t *c)
{
    uint32_t vc = set->vertex_count;
    set->vertex_offset = calloc((size_t)vc + 1, sizeof *set->vertex_offset);
    if (!set->vertex_offset)
        return false;
    uint64_t total = 0;
    for (uint32_t t = 0; t < set->target_count; t++) {
        const chr_delta_t *d;
        uint32_t count;
        target_deltas(c, set, t, &d, &count);
        for (uint32_t i = 0; i < count; i++)
            set->vertex_offset[d[i].vertex + 1]++;
        total += count;
    }
    if (total > UINT32_MAX)
        return false;
    for (uint32_t v = 0; v < vc; v++)
        set->vertex_offset[v + 1] += set->vertex_offset[v];
    set->pair_count = (uint32_t)total;
    set->pair_target = malloc((total ? total : 1) * sizeof *set->pair_target);
    set->pair_delta = malloc((total ? total : 1) * BSHAPE_DELTA_FLOATS * sizeof *set->pair_delta);
    uint32_t *fill = malloc(((size_t)vc + 1) * sizeof *fill);
    if (!set->pair_target || !set->pair_delta || !fill) {
        free(fill);
        return false;
    }
    memcpy(fill, set->vertex_offset, ((size_t)vc + 1) * sizeof *fill);
    for (uint32_t t = 0; t < set->target_count; t++) {
        const chr_delta_t *d;
        uint32_t count;
        target_deltas(c, set, t, &d, &count);
        for (uint32_t i = 0; i < count; i++) {
            uint32_t slot = fill[d[i].vertex]++;
            set->pair_target[slot] = t;
            delta_pack(&d[i], set->pair_delta + (size_t)slot * BSHAPE_DELTA_FLOATS);
        }
    }
    free(fill);
    return true;
}

bool chr_bshape_set_build(bshape_set_t *set, const chr_character_t *c, uint32_t mesh, unsigned build_flags)
{
    memset(set, 0, sizeof *set);
    if (!c || mesh >= c->mesh_count) {
        log_error("bshape: mesh %u out of range", mesh);
        return false;
    }
    set->mesh = mesh;
    set->vertex_count = c->meshes[mesh].vertex_count;
    for (uint32_t s = 0; s < c->shape_count; s++)
        set->shape_count += c->shapes[s].mesh == mesh;
    for (uint32_t k = 0; k < c->corrective_count; k++)
        set->corrective_count += c->correctives[k].mesh == mesh;
    set->target_count = set->shape_count + set->corrective_count;
    uint32_t tc = set->target_count ? set->target_count : 1;
    set->target_source = malloc(tc * sizeof *set->target_source);
    set->weight_scratch = calloc(tc, sizeof *set->weight_scratch);
    if (!set->target_source || !set->weight_scratch)
        goto oom;
    uint32_t t = 0;
    for (uint32_t s = 0; s < c->shape_count; s++)
        if (c->shapes[s].mesh == mesh)
            set->target_source[t++] = s;
    for (uint32_t k = 0; k < c->corrective_count; k++)
        if (c->correctives[k].mesh == mesh)
            set->target_source[t++] = k;
    /* The loader checks these, but a hand-built character may not have been. */
    for (t = 0; t < set->target_count; t++) {
        const chr_delta_t *d;
        uint32_t count;
        target_deltas(c, set, t, &d, &count);
        for (uint32_t i = 0; i < count; i++) {
            if (d[i].vertex >= set->vertex_count) {
                log_error("bshape: mesh '%s' target %u: delta vertex %u >= vertex count %u", c->meshes[mesh].name, t,
                          d[i].vertex, set->vertex_count);
                bshape_set_free(set);
                return false;
            }
        }
    }
    if ((build_flags & BSHAPE_BUILD_DENSE) && !build_dense(set, c))
        goto oom;
    if ((build_flags & BSHAPE_BUILD_SPARSE) && !build_sparse(set, c))
        goto oom;
    return true;
oom:
    log_error("bshape: mesh '%s': out of memory for %u targets x %u vertices", c->meshes[mesh].name, set->target_count,
              set->vertex_count);
    bshape_set_free(set);
    return false;
}

bool chr_bshape_set_add_layouts(bshape_set_t *set, const chr_character_t *c, unsigned build_flags)
{
    if (!c || set->mesh >= c->mesh_count || c->meshes[set->mesh].vertex_count != set->vertex_count) {
        log_error("bshape: adding a layout to a set of another character");
        return false;
    }
    bool ok = true;
    if ((build_flags & BSHAPE_BUILD_DENSE) && !set->dense && !build_dense(set, c))
        ok = false;
    if (ok && (build_flags & BSHAPE_BUILD_SPARSE) && !set->vertex_offset && !build_sparse(set, c)) {
        /* A half-built sparse layout is no layout. */
        free(set->vertex_offset);
        free(set->pair_target);
        free(set->pair_delta);
        set->vertex_offset = set->pair_target = NULL;
        set->pair_delta = NULL;
        set->pair_count = 0;
        ok = false;
    }
    if (!ok) {
        log_error("bshape: mesh '%s': out of memory for %u targets x %u vertices", c->meshes[set->mesh].name,
                  set->target_count, set->vertex_count);
        return false;
    }
    return true;
}

uint32_t chr_bshape_target_deltas(const bshape_set_t *set, uint32_t target, chr_delta_t *out, uint32_t capacity)
{
    if (!set->vertex_offset || target >= set->target_count)
        return 0;
    uint32_t n = 0;
    for (uint32_t v = 0; v < set->vertex_count; v++) {
        for (uint32_t i = set->vertex_offset[v]; i < set->vertex_offset[v + 1]; i++) {
            if (set->pair_target[i] != target)
                continue;
            if (n < capacity) {
                const float *d = set->pair_delta + (size_t)i * BSHAPE_DELTA_FLOATS;
                chr_delta_t *o = &out[n];
                o->vertex = v;
                memcpy(o->dpos, d, sizeof o->dpos);
                memcpy(o->dnormal, d + 3, sizeof o->dnormal);
                memcpy(o->dtangent, d + 6, sizeof o->dtangent);
                o->dao = d[9];
            }
            n++;
        }
    }
    return n;
}

void chr_bshape_corrective_weights(const chr_character_t *c, const pose_t *pose, float *out_weights)
{
    for (uint32_t k = 0; k < c->corrective_count; k++) {
        const chr_corrective_t *cr = &c->correctives[k];
        float w = 0.0f;
        if ((int)cr->joint < pose->joint_count && cr->angle_full_deg != cr->angle_zero_deg) {
            float a = bshape_twist_angle_deg(pose->rot[cr->joint], cr->axis);
            w = (a - cr->angle_zero_deg) / (cr->angle_full_deg - cr->angle_zero_deg);
            w = w < 0.0f ? 0.0f : (w > 1.0f ? 1.0f : w);
            if (!isfinite(w))
                w = 0.0f;
        }
        out_weights[k] = w;
    }
}
