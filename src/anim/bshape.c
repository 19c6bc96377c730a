#include "anim/bshape.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RAD2DEG 57.29577951308232f
/* Below this squared length a morphed normal or tangent is degenerate and
 * the bind-pose direction is used instead. */
#define BSHAPE_DEGENERATE_SQ 1e-12f
void bshape_set_free(bshape_set_t *set)
{
    free(set->target_source);
    free(set->dense);
    free(set->vertex_offset);
    free(set->pair_target);
    free(set->pair_delta);
    free(set->weight_scratch);
    memset(set, 0, sizeof *set);
}

int bshape_set_find_shape(const bshape_set_t *set, uint32_t shape)
{
    for (uint32_t t = 0; t < set->shape_count; t++)
        if (set->target_source[t] == shape)
            return (int)t;
    return -1;
}

int bshape_set_find_corrective(const bshape_set_t *set, uint32_t corrective)
{
    for (uint32_t t = set->shape_count; t < set->target_count; t++)
        if (set->target_source[t] == corrective)
            return (int)t;
    return -1;
}

bool bshape_validate(const bshape_job_t *job)
{
    if (!job || !job->set) {
        log_error("bshape: no job or no set");
        return false;
    }
    const bshape_set_t *set = job->set;
    if (job->layout == BSHAPE_DENSE ? !set->dense : (job->layout != BSHAPE_SPARSE || !set->vertex_offset)) {
        log_error("bshape: layout %d was not built for this set", (int)job->layout);
        return false;
    }
    if (!job->positions || !job->normals || !job->tangents || !job->ao || !job->out_positions || !job->out_normals ||
        !job->out_tangents || !job->out_ao) {
        log_error("bshape: missing input or output span");
        return false;
    }
    if (job->active_count < 0 || job->active_count > BSHAPE_MAX_ACTIVE ||
        (job->active_count > 0 && (!job->active_target || !job->active_weight))) {
        log_error("bshape: bad active list (%d entries)", job->active_count);
        return false;
    }
    for (int i = 0; i < job->active_count; i++) {
        if (job->active_target[i] >= set->target_count || !isfinite(job->active_weight[i])) {
            log_error("bshape: active entry %d: target %u (of %u), weight %g", i, job->active_target[i],
                      set->target_count, (double)job->active_weight[i]);
            return false;
        }
    }
    return true;
}

/* out = base + acc with the normal renormalised, the tangent Gram-Schmidt
 * orthonormalised against it and AO clamped. ACC holds the summed deltas. */
static void finish_vertex(const bshape_job_t *job, uint32_t v, const float acc[BSHAPE_DELTA_FLOATS])
{
    const float *p = job->positions + (size_t)v * 3, *n = job->normals + (size_t)v * 3;
    const float *t = job->tangents + (size_t)v * 4;
    float *op = job->out_positions + (size_t)v * 3, *on = job->out_normals + (size_t)v * 3;
    float *ot = job->out_tangents + (size_t)v * 4;
    op[0] = p[0] + acc[0];
    op[1] = p[1] + acc[1];
    op[2] = p[2] + acc[2];
    float ao = job->ao[v] + acc[9];
    job->out_ao[v] = ao < 0.0f ? 0.0f : (ao > 1.0f ? 1.0f : ao);
    if (acc[3] == 0.0f && acc[4] == 0.0f && acc[5] == 0.0f && acc[6] == 0.0f && acc[7] == 0.0f && acc[8] == 0.0f) {
        memcpy(on, n, 3 * sizeof *on);
        memcpy(ot, t, 4 * sizeof *ot);
        return;
    }
    float nn[3] = {n[0] + acc[3], n[1] + acc[4], n[2] + acc[5]};
    float len2 = nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2];
    if (len2 < BSHAPE_DEGENERATE_SQ) {
        nn[0] = n[0];
        nn[1] = n[1];
        nn[2] = n[2];
        len2 = nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2];
    }
    float inv = 1.0f / sqrtf(len2);
    for (int k = 0; k < 3; k++)
        on[k] = nn[k] * inv;
    float tt[3] = {t[0] + acc[6], t[1] + acc[7], t[2] + acc[8]};
    for (int attempt = 0; attempt < 2; attempt++) {
        float d = tt[0] * on[0] + tt[1] * on[1] + tt[2] * on[2];
        float g[3] = {tt[0] - on[0] * d, tt[1] - on[1] * d, tt[2] - on[2] * d};
        float g2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
        if (g2 >= BSHAPE_DEGENERATE_SQ) {
            float gi = 1.0f / sqrtf(g2);
            ot[0] = g[0] * gi;
            ot[1] = g[1] * gi;
            ot[2] = g[2] * gi;
            ot[3] = t[3];
            return;
        }
        /* Morphed tangent parallel to the normal: retry with the bind tangent,
         * then with any axis. */
        if (attempt == 0) {
            tt[0] = t[0];
            tt[1] = t[1];
            tt[2] = t[2];
        }
    }
    float ax[3] = {fabsf(on[0]) < 0.9f ? 1.0f : 0.0f, fabsf(on[0]) < 0.9f ? 0.0f : 1.0f, 0.0f};
    float d = ax[0] * on[0] + ax[1] * on[1];
    float g[3] = {ax[0] - on[0] * d, ax[1] - on[1] * d, -on[2] * d};
    float gi = 1.0f / sqrtf(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    ot[0] = g[0] * gi;
    ot[1] = g[1] * gi;
    ot[2] = g[2] * gi;
    ot[3] = t[3];
}

static void copy_base(const bshape_job_t *job)
{
    size_t vc = job->set->vertex_count;
    memcpy(job->out_positions, job->positions, vc * 3 * sizeof(float));
    memcpy(job->out_normals, job->normals, vc * 3 * sizeof(float));
    memcpy(job->out_tangents, job->tangents, vc * 4 * sizeof(float));
    for (size_t v = 0; v < vc; v++) {
        float ao = job->ao[v];
        job->out_ao[v] = ao < 0.0f ? 0.0f : (ao > 1.0f ? 1.0f : ao);
    }
}

/* Dense: the output arrays double as accumulators (positions, normals, the
 * tangent xyz and AO), filled target by target in ascending order. */
static void run_dense(const bshape_job_t *job, const float *w)
{
    const bshape_set_t *set = job->set;
    uint32_t vc = set->vertex_count;
    memset(job->out_positions, 0, (size_t)vc * 3 * sizeof(float));
    memset(job->out_normals, 0, (size_t)vc * 3 * sizeof(float));
    memset(job->out_tangents, 0, (size_t)vc * 4 * sizeof(float));
    memset(job->out_ao, 0, (size_t)vc * sizeof(float));
    for (uint32_t t = 0; t < set->target_count; t++) {
        float wt = w[t];
        if (wt == 0.0f)
            continue;
        const float *d = set->dense + (size_t)t * vc * BSHAPE_DELTA_FLOATS;
        for (uint32_t v = 0; v < vc; v++, d += BSHAPE_DELTA_FLOATS) {
            float *op = job->out_positions + (size_t)v * 3, *on = job->out_normals + (size_t)v * 3;
            float *ot = job->out_tangents + (size_t)v * 4;
            op[0] += wt * d[0];
            op[1] += wt * d[1];
            op[2] += wt * d[2];
            on[0] += wt * d[3];
            on[1] += wt * d[4];
            on[2] += wt * d[5];
            ot[0] += wt * d[6];
            ot[1] += wt * d[7];
            ot[2] += wt * d[8];
            job->out_ao[v] += wt * d[9];
        }
    }
    for (uint32_t v = 0; v < vc; v++) {
        const float *op = job->out_positions + (size_t)v * 3, *on = job->out_normals + (size_t)v * 3;
        const float *ot = job->out_tangents + (size_t)v * 4;
        float acc[BSHAPE_DELTA_FLOATS] = {op[0], op[1], op[2], on[0], on[1],
                                          on[2], ot[0], ot[1], ot[2], job->out_ao[v]};
        finish_vertex(job, v, acc);
    }
}

static void run_sparse(const bshape_job_t *job, const float *w)
{
    const bshape_set_t *set = job->set;
    for (uint32_t v = 0; v < set->vertex_count; v++) {
        float acc[BSHAPE_DELTA_FLOATS] = {0};
        for (uint32_t i = set->vertex_offset[v]; i < set->vertex_offset[v + 1]; i++) {
            float wt = w[set->pair_target[i]];
            if (wt == 0.0f)
                continue;
            const float *d = set->pair_delta + (size_t)i * BSHAPE_DELTA_FLOATS;
            for (int k = 0; k < BSHAPE_DELTA_FLOATS; k++)
                acc[k] += wt * d[k];
        }
        finish_vertex(job, v, acc);
    }
}

bool bshape_run(const bshape_job_t *job)
{
    if (!bshape_validate(job))
        return false;
    bshape_set_t *set = job->set;
    float *w = set->weight_scratch;
    memset(w, 0, (set->target_count ? set->target_count : 1) * sizeof *w);
    bool any = false;
    for (int i = 0; i < job->active_count; i++) {
        w[job->active_target[i]] += job->active_weight[i];
        any |= job->active_weight[i] != 0.0f;
    }
    if (!any)
        copy_base(job);
    else if (job->layout == BSHAPE_DENSE)
        run_dense(job, w);
    else
        run_sparse(job, w);
    return true;
}

float bshape_twist_angle_deg(const float q[4], const float axis[3])
{
    float s = q[3] < 0.0f ? -1.0f : 1.0f;
    float along = s * (q[0] * axis[0] + q[1] * axis[1] + q[2] * axis[2]);
    return 2.0f * atan2f(along, s * q[3]) * RAD2DEG;
}
