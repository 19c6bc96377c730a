#include "kr.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct kr_state_t {
    const clip_t *in;
    tween_mode_t mode;
    uint32_t n;
    bool *keep;
    uint32_t *list;   /* kept original indices, ascending */
    float *list_time; /* their times */
    float *err;       /* per original key: error of the current reduction, cm */
} kr_state_t;

/* Kept keys without SKIP (UINT32_MAX: none) into s->list; returns the count. */
static uint32_t build_list(kr_state_t *s, uint32_t skip)
{
    uint32_t m = 0;
    for (uint32_t k = 0; k < s->n; k++)
        if (s->keep[k] && k != skip) {
            s->list[m] = k;
            s->list_time[m] = s->in->key_time[k];
            m++;
        }
    return m;
}

/* Largest vertex distance (cm) between original key I and the clip rebuilt
 * from the M listed keys at I's time. */
static float error_at(const kr_state_t *s, uint32_t m, uint32_t i)
{
    const clip_t *c = s->in;
    tween_timing_t t = {.key_count = (int)m,
                        .fps = c->fps,
                        .key_times = s->list_time,
                        .duration_s = c->duration_s,
                        .loop = (c->flags & CLIP_LOOP) != 0};
    tween_span_t span;
    tween_locate(&t, (double)c->key_time[i], &span);
    float w[TWEEN_SPAN_KEYS];
    tween_weights(s->mode, &span, w);
    if (span.frac == 0.0) {
        w[0] = w[2] = w[3] = 0.0f;
        w[1] = 1.0f;
    }
    size_t stride = (size_t)c->vertex_count * 3;
    const float *k[TWEEN_SPAN_KEYS];
    for (int j = 0; j < TWEEN_SPAN_KEYS; j++)
        k[j] = c->offset + s->list[span.key[j]] * stride;
    const float *orig = c->offset + i * stride;
    float worst_sq = 0.0f;
    for (size_t v = 0; v < stride; v += 3) {
        float d_sq = 0.0f;
        for (int a = 0; a < 3; a++) {
            float p = w[0] * k[0][v + a] + w[1] * k[1][v + a] + w[2] * k[2][v + a] + w[3] * k[3][v + a];
            float d = p - orig[v + a];
            d_sq += d * d;
        }
        worst_sq = fmaxf(worst_sq, d_sq);
    }
    return sqrtf(worst_sq);
}

/* Removing listed key P (of M listed) changes the rebuild of the original
 * keys between its REACH-th kept neighbours on either side (cyclic when
 * looping; every key when a loop has too few keys for distinct
 * neighbours). Returns the largest error there with P removed, and writes
 * each into OUT_ERR when given (keys outside keep their errors). */
static float window_error(kr_state_t *s, uint32_t p, uint32_t m, float *out_err)
{
    bool loop = (s->in->flags & CLIP_LOOP) != 0;
    int reach = s->mode == TWEEN_HERMITE ? 2 : 1;
    uint32_t n = s->n, from, to; /* exclusive bounds, original indices */
    bool all = loop && m <= (uint32_t)(2 * reach);
    int lo = (int)p - reach, hi = (int)p + reach;
    if (loop) {
        from = s->list[(uint32_t)(((lo % (int)m) + (int)m) % (int)m)];
        to = s->list[(uint32_t)hi % m];
    } else {
        from = s->list[lo < 0 ? 0 : (uint32_t)lo];
        to = s->list[hi >= (int)m ? m - 1 : (uint32_t)hi];
    }
    uint32_t removed = s->list[p];
    uint32_t m_after = build_list(s, removed);
    float worst = 0.0f;
    uint32_t count = all ? n : (to + n - from - 1) % n;
    for (uint32_t c = 0, i = all ? 0 : (from + 1) % n; c < count; c++, i = (i + 1) % n) {
        float e = s->keep[i] && i != removed ? 0.0f : error_at(s, m_after, i);
        if (out_err)
            out_err[i] = e;
        worst = fmaxf(worst, e);
    }
    build_list(s, UINT32_MAX);
    return worst;
}

bool kr_reduce(const clip_t *in, tween_mode_t mode, float bound_cm, clip_t *out, kr_result_t *res)
{
    memset(res, 0, sizeof *res);
    if (!(bound_cm >= 0.0f) || (unsigned)mode >= TWEEN_MODE_COUNT || in->key_count < 1) {
        log_error("keyreduce: bad bound %g or mode %d", (double)bound_cm, (int)mode);
        return false;
    }
    kr_state_t s = {.in = in, .mode = mode, .n = in->key_count};
    s.keep = malloc(s.n * sizeof *s.keep);
    s.list = malloc(s.n * sizeof *s.list);
    s.list_time = malloc(s.n * sizeof *s.list_time);
    s.err = calloc(s.n, sizeof *s.err);
    bool ok = s.keep && s.list && s.list_time && s.err;
    if (!ok) {
        log_error("keyreduce: out of memory for %u keys", s.n);
        goto done;
    }
    for (uint32_t k = 0; k < s.n; k++)
        s.keep[k] = true;
    bool loop = (in->flags & CLIP_LOOP) != 0;
    for (;;) {
        uint32_t m = build_list(&s, UINT32_MAX);
        /* A loop keeps key 0; a clamped clip both ends. */
        uint32_t first = 1, last = loop ? m - 1 : m - 2;
        if (m <= (loop ? 1u : 2u))
            break;
        float best = INFINITY;
        uint32_t best_p = 0;
        for (uint32_t p = first; p <= last; p++) {
            float e = window_error(&s, p, m, NULL);
            if (e < best) {
                best = e;
                best_p = p;
            }
        }
        if (!(best <= bound_cm))
            break;
        uint32_t key = s.list[best_p];
        window_error(&s, best_p, m, s.err);
        s.keep[key] = false;
    }
    uint32_t kept = build_list(&s, UINT32_MAX);
    for (uint32_t k = 0; k < s.n; k++)
        res->max_error_cm = fmaxf(res->max_error_cm, s.keep[k] ? 0.0f : s.err[k]);
    res->kept = kept;
    res->removed = s.n - kept;
    memset(out, 0, sizeof *out);
    if (!clip_alloc(out, in->vertex_count, kept)) {
        ok = false;
        goto done;
    }
    memcpy(out->mesh, in->mesh, sizeof out->mesh);
    out->mesh_vertex_count = in->mesh_vertex_count;
    out->flags = in->flags;
    out->fps = in->fps;
    out->duration_s = in->duration_s;
    out->pos_step_cm = in->pos_step_cm;
    memcpy(out->vertex, in->vertex, in->vertex_count * sizeof *out->vertex);
    size_t per_key = (size_t)in->vertex_count * 3;
    for (uint32_t j = 0; j < kept; j++) {
        out->key_time[j] = in->key_time[s.list[j]];
        memcpy(out->q_offset + j * per_key, in->q_offset + s.list[j] * per_key, per_key);
        memcpy(out->q_normal + j * per_key, in->q_normal + s.list[j] * per_key, per_key);
        memcpy(out->q_ao + j * in->vertex_count, in->q_ao + s.list[j] * in->vertex_count, in->vertex_count);
    }
    clip_decode(out);
done:
    free(s.keep);
    free(s.list);
    free(s.list_time);
    free(s.err);
    return ok;
}
