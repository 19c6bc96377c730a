#include "anim/tween.h"

#include "core/log.h"

#include <math.h>
#include <string.h>

/* Normals shorter than this (squared) after interpolation keep key[1]'s. */
#define TWEEN_MIN_NORMAL_SQ 1e-20f

static double key_time(const tween_timing_t *t, int idx)
{
    return t->key_times ? (double)t->key_times[idx] : idx / (double)t->fps;
}

static double loop_period(const tween_timing_t *t)
{
    return t->key_times ? (double)t->duration_s : t->key_count / (double)t->fps;
}

static bool timing_uses_fps(const tween_timing_t *t) { return t->key_times == NULL; }

bool tween_timing_check(const tween_timing_t *t)
{
    if (!t || t->key_count < 1 || t->key_count > TWEEN_MAX_KEYS) {
        log_error("tween: key count %d outside 1..%d", t ? t->key_count : 0, TWEEN_MAX_KEYS);
        return false;
    }
    if (timing_uses_fps(t)) {
        if (!(isfinite(t->fps) && t->fps > 0.0f)) {
            log_error("tween: fps %g must be finite and > 0", (double)t->fps);
            return false;
        }
        return true;
    }
    if (t->key_times[0] != 0.0f) {
        log_error("tween: the first key time is %g s, not 0", (double)t->key_times[0]);
        return false;
    }
    for (int k = 1; k < t->key_count; k++)
        if (!(isfinite(t->key_times[k]) && t->key_times[k] > t->key_times[k - 1])) {
            log_error("tween: key time %d (%g s) is not finite or not after the previous key", k,
                      (double)t->key_times[k]);
            return false;
        }
    if (t->loop && !(isfinite(t->duration_s) && t->duration_s > t->key_times[t->key_count - 1])) {
        log_error("tween: loop period %g s must be finite and after the last key (%g s)", (double)t->duration_s,
                  (double)t->key_times[t->key_count - 1]);
        return false;
    }
    return true;
}

/* Index and unwrapped time of key J (any integer near the segment). */
static void neighbour(const tween_timing_t *t, int j, int *idx, double *time)
{
    int n = t->key_count;
    if (t->loop) {
        int wraps = j >= 0 ? j / n : -((-j + n - 1) / n);
        *idx = j - wraps * n;
        *time = key_time(t, *idx) + wraps * loop_period(t);
    } else {
        *idx = j < 0 ? 0 : (j >= n ? n - 1 : j);
        *time = key_time(t, *idx);
    }
}

/* Largest k with key_times[k] <= x (x >= key_times[0]). */
static int search_key(const tween_timing_t *t, double x)
{
    int lo = 0, hi = t->key_count - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if ((double)t->key_times[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void tween_locate(const tween_timing_t *t, double time_s, tween_span_t *out)
{
    int n = t->key_count;
    int k = 0;
    double f = 0.0;
    if (n > 1 && timing_uses_fps(t)) {
        /* Gosselin: key units = time x fps; wrap into [0, n) or clamp to [0, n - 1]. */
        double u = time_s * (double)t->fps;
        if (t->loop)
            u -= floor(u / n) * n;
        else if (u < 0.0)
            u = 0.0;
        else if (u > n - 1)
            u = n - 1;
        double fl = floor(u);
        k = (int)fl;
        f = u - fl;
    } else if (n > 1) {
        double x = time_s;
        double last = (double)t->key_times[n - 1];
        if (t->loop) {
            double d = (double)t->duration_s;
            x -= floor(x / d) * d;
        } else if (x < 0.0) {
            x = 0.0;
        } else if (x > last) {
            x = last;
        }
        k = search_key(t, x);
        double t0 = (double)t->key_times[k];
        double t1 = k + 1 < n ? (double)t->key_times[k + 1] : (t->loop ? (double)t->duration_s : t0);
        f = t1 > t0 ? (x - t0) / (t1 - t0) : 0.0;
    }
    if (f < TWEEN_SNAP) {
        f = 0.0;
    } else if (f > 1.0 - TWEEN_SNAP) {
        k++;
        f = 0.0;
    }
    if (t->loop)
        k %= n;
    else if (k >= n - 1) {
        k = n - 1;
        f = 0.0;
    }
    for (int i = 0; i < TWEEN_SPAN_KEYS; i++)
        neighbour(t, k - 1 + i, &out->key[i], &out->time[i]);
    out->frac = f;
}

void tween_weights(tween_mode_t mode, const tween_span_t *span, float out_w[TWEEN_SPAN_KEYS])
{
    double s = span->frac;
    double w[TWEEN_SPAN_KEYS] = {0.0, 1.0 - s, s, 0.0};
    double h = span->time[2] - span->time[1];
    if (mode == TWEEN_HERMITE && h > 0.0) {
        double s2 = s * s, s3 = s2 * s;
        double h00 = 2.0 * s3 - 3.0 * s2 + 1.0, h10 = s3 - 2.0 * s2 + s;
        double h01 = -2.0 * s3 + 3.0 * s2, h11 = s3 - s2;
        /* Tangents (per second) times the segment length h: Catmull-Rom
         * divided by the real spacing of the neighbours. */
        double d1 = span->time[2] - span->time[0], d2 = span->time[3] - span->time[1];
        double c1 = d1 > 0.0 ? h / d1 : 0.0, c2 = d2 > 0.0 ? h / d2 : 0.0;
        w[0] = -h10 * c1;
        w[1] = h00 - h11 * c2;
        w[2] = h01 + h10 * c1;
        w[3] = h11 * c2;
    }
    for (int i = 0; i < TWEEN_SPAN_KEYS; i++)
        out_w[i] = (float)w[i];
}

bool tween_validate(const tween_job_t *job)
{
    if (!job) {
        log_error("tween: no job");
        return false;
    }
    const tween_timing_t *t = &job->timing;
    if ((unsigned)job->mode >= TWEEN_MODE_COUNT) {
        log_error("tween: unknown mode %d", (int)job->mode);
        return false;
    }
    if (t->key_count < 1 || t->key_count > TWEEN_MAX_KEYS || job->vertex_count < 1) {
        log_error("tween: %d keys, %d vertices (need 1..%d keys and >= 1 vertex)", t->key_count, job->vertex_count,
                  TWEEN_MAX_KEYS);
        return false;
    }
    if (timing_uses_fps(t) ? !(isfinite(t->fps) && t->fps > 0.0f)
                           : (t->loop && !(isfinite(t->duration_s) && t->duration_s > 0.0f))) {
        log_error("tween: fps %g / loop period %g s must be finite and > 0", (double)t->fps, (double)t->duration_s);
        return false;
    }
    if (!isfinite(job->time_s)) {
        log_error("tween: time %g s is not finite", job->time_s);
        return false;
    }
    if (!job->positions || !job->out_positions || (job->normals && !job->out_normals) || (job->ao && !job->out_ao)) {
        log_error("tween: missing position, normal or AO arrays");
        return false;
    }
    return true;
}

static void copy_key(const tween_job_t *job, int key)
{
    size_t base = (size_t)key * (size_t)job->vertex_count * 3;
    const float *p = job->positions + base;
    const float *nr = job->normals ? job->normals + base : NULL;
    const float *ao = job->ao ? job->ao + base / 3 : NULL;
    if (!job->out_vertex) {
        memcpy(job->out_positions, p, (size_t)job->vertex_count * 3 * sizeof(float));
        if (nr)
            memcpy(job->out_normals, nr, (size_t)job->vertex_count * 3 * sizeof(float));
        if (ao)
            memcpy(job->out_ao, ao, (size_t)job->vertex_count * sizeof(float));
        return;
    }
    for (int i = 0; i < job->vertex_count; i++) {
        size_t o = (size_t)job->out_vertex[i] * 3;
        memcpy(job->out_positions + o, p + (size_t)i * 3, 3 * sizeof(float));
        if (nr)
            memcpy(job->out_normals + o, nr + (size_t)i * 3, 3 * sizeof(float));
        if (ao)
            job->out_ao[job->out_vertex[i]] = ao[i];
    }
}

bool tween_run(const tween_job_t *job)
{
    if (!tween_validate(job))
        return false;
    tween_span_t span;
    tween_locate(&job->timing, job->time_s, &span);
    if (span.frac == 0.0) {
        /* At a key: the key itself, bit for bit. */
        copy_key(job, span.key[1]);
        return true;
    }
    float w[TWEEN_SPAN_KEYS];
    tween_weights(job->mode, &span, w);
    /* LINEAR: two keys; HERMITE: four. */
    int first = job->mode == TWEEN_LINEAR ? 1 : 0, last = job->mode == TWEEN_LINEAR ? 2 : 3;
    size_t stride = (size_t)job->vertex_count * 3;
    const float *kp[TWEEN_SPAN_KEYS], *kn[TWEEN_SPAN_KEYS], *ka[TWEEN_SPAN_KEYS];
    for (int i = 0; i < TWEEN_SPAN_KEYS; i++) {
        kp[i] = job->positions + (size_t)span.key[i] * stride;
        kn[i] = job->normals ? job->normals + (size_t)span.key[i] * stride : NULL;
        ka[i] = job->ao ? job->ao + (size_t)span.key[i] * (size_t)job->vertex_count : NULL;
    }
    for (int v = 0; v < job->vertex_count; v++) {
        size_t in = (size_t)v * 3;
        size_t o = job->out_vertex ? (size_t)job->out_vertex[v] * 3 : in;
        float p[3] = {0.0f, 0.0f, 0.0f}, nr[3] = {0.0f, 0.0f, 0.0f};
        for (int i = first; i <= last; i++)
            for (int c = 0; c < 3; c++)
                p[c] += w[i] * kp[i][in + c];
        memcpy(job->out_positions + o, p, sizeof p);
        if (job->ao) {
            float a = 0.0f;
            for (int i = first; i <= last; i++)
                a += w[i] * ka[i][v];
            /* The cubic may overshoot the keys' range. */
            job->out_ao[o / 3] = a < 0.0f ? 0.0f : (a > 1.0f ? 1.0f : a);
        }
        if (!job->normals)
            continue;
        for (int i = first; i <= last; i++)
            for (int c = 0; c < 3; c++)
                nr[c] += w[i] * kn[i][in + c];
        /* Cebenoyan: the blended normal is shorter than unit (and the cubic
         * may overshoot), so rescale it to unit length. */
        float len_sq = nr[0] * nr[0] + nr[1] * nr[1] + nr[2] * nr[2];
        if (len_sq > TWEEN_MIN_NORMAL_SQ) {
            float inv = 1.0f / sqrtf(len_sq);
            for (int c = 0; c < 3; c++)
                nr[c] *= inv;
        } else {
            memcpy(nr, kn[1] + in, sizeof nr);
        }
        memcpy(job->out_normals + o, nr, sizeof nr);
    }
    return true;
}

bool tween_skin_run(const tween_job_t *tween, const skin_job_t *skin)
{
    if (!tween_validate(tween) || !skin_validate(skin))
        return false;
    if (skin->positions != tween->out_positions || (tween->normals && skin->normals != tween->out_normals)) {
        log_error("tween: the skinning job must read the tweened positions and normals");
        return false;
    }
    if (!tween->out_vertex && skin->vertex_count < tween->vertex_count) {
        log_error("tween: %d tweened vertices but the skinning job has %d", tween->vertex_count, skin->vertex_count);
        return false;
    }
    return tween_run(tween) && skin_run(skin);
}

const char *tween_mode_name(tween_mode_t mode)
{
    switch (mode) {
    case TWEEN_LINEAR: return "linear";
    case TWEEN_HERMITE: return "Hermite (Catmull-Rom)";
    default: return "unknown";
    }
}
