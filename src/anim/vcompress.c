#include "anim/vcompress.h"

#include "core/log.h"
#include "core/mathx.h"

#include <math.h>
#include <string.h>

#define UNORM16_MAX 65535.0f
#define SNORM16_MAX 32767.0f
#define SNORM10_MAX 511.0f
#define UNORM8_MAX 255.0f
#define RAD_TO_DEG 57.29577951308232

_Static_assert(sizeof(vcompress_vertex_t) == 24, "the GPU reads 24-byte vertices");
/* Weights below this are treated as unused slots when checking joints. */
#define WEIGHT_UNUSED 1e-6f

/* GL's snorm decode (GL 4.2+): max(c / (2^(b-1) - 1), -1). */
static float snorm_decode(int c, float max) { return fmaxf((float)c / max, -1.0f); }

static float sign_not_zero(float v) { return v >= 0.0f ? 1.0f : -1.0f; }

void vcompress_oct_decode(const int16_t e[2], float out[3])
{
    float x = snorm_decode(e[0], SNORM16_MAX), y = snorm_decode(e[1], SNORM16_MAX);
    float z = 1.0f - fabsf(x) - fabsf(y);
    /* Lower hemisphere: fold the corners back (Cigolle et al. 2014). */
    float t = fmaxf(-z, 0.0f);
    x += x >= 0.0f ? -t : t;
    y += y >= 0.0f ? -t : t;
    float len = sqrtf(x * x + y * y + z * z);
    out[0] = x / len;
    out[1] = y / len;
    out[2] = z / len;
}

void vcompress_oct_encode(const float n[3], int16_t out[2])
{
    float l1 = fabsf(n[0]) + fabsf(n[1]) + fabsf(n[2]);
    if (!(l1 > 0.0f)) {
        out[0] = out[1] = 0;
        return;
    }
    float x = n[0] / l1, y = n[1] / l1;
    if (n[2] < 0.0f) {
        float fx = (1.0f - fabsf(y)) * sign_not_zero(x);
        float fy = (1.0f - fabsf(x)) * sign_not_zero(y);
        x = fx;
        y = fy;
    }
    /* Rounding each coordinate alone is not the closest code: try the four
     * floor/ceil neighbours and keep the one that decodes nearest to n. */
    float bx = floorf(clampf(x, -1, 1) * SNORM16_MAX), by = floorf(clampf(y, -1, 1) * SNORM16_MAX);
    float best = -2.0f;
    for (int i = 0; i < 4; i++) {
        int16_t c[2] = {(int16_t)clampf(bx + (float)(i & 1), -SNORM16_MAX, SNORM16_MAX),
                        (int16_t)clampf(by + (float)(i >> 1), -SNORM16_MAX, SNORM16_MAX)};
        float d[3];
        vcompress_oct_decode(c, d);
        float dot = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
        if (dot > best) {
            best = dot;
            out[0] = c[0];
            out[1] = c[1];
        }
    }
}

static uint32_t snorm10_bits(float v)
{
    int c = (int)lrintf(clampf(v, -1, 1) * SNORM10_MAX);
    return (uint32_t)c & 0x3ffu;
}

static int sign_extend(uint32_t bits, int width)
{
    int shift = 32 - width;
    return (int)(bits << shift) >> shift;
}

/* Largest-remainder rounding: the four unorm8 weights sum to exactly 255,
 * each within 1/255 of its source, and descending order is kept (ties go to
 * the earlier slot). */
static void pack_weights(const float w[4], uint8_t out[4])
{
    int q[4], sum = 0;
    float rem[4];
    for (int i = 0; i < 4; i++) {
        float s = clampf(w[i], 0, 1) * UNORM8_MAX;
        q[i] = (int)floorf(s);
        rem[i] = s - (float)q[i];
        sum += q[i];
    }
    while (sum < VCOMPRESS_WEIGHT_SUM) {
        int k = 0;
        for (int i = 1; i < 4; i++)
            if (rem[i] > rem[k])
                k = i;
        q[k]++;
        rem[k] = -1.0f;
        sum++;
    }
    /* Only reachable when the source sums above 1 (outside the tolerance
     * skin_check_vertices allows): take the excess from the smallest. */
    for (int i = 3; sum > VCOMPRESS_WEIGHT_SUM && i >= 0; i--) {
        int take = q[i] < sum - VCOMPRESS_WEIGHT_SUM ? q[i] : sum - VCOMPRESS_WEIGHT_SUM;
        q[i] -= take;
        sum -= take;
    }
    for (int i = 0; i < 4; i++)
        out[i] = (uint8_t)q[i];
}

static bool validate(const vcompress_pack_job_t *j)
{
    if (!j || j->vertex_count < 1 || !j->positions || !j->normals || !j->joints || !j->weights || !j->out_vertices ||
        !j->out_params) {
        log_error("vcompress: missing arrays or no vertices");
        return false;
    }
    if (j->joint_count < 1 || j->joint_count > VCOMPRESS_MAX_JOINTS) {
        log_error("vcompress: %d joints; uint8 joint indices hold 1 to %d", j->joint_count, VCOMPRESS_MAX_JOINTS);
        return false;
    }
    return true;
}

bool vcompress_pack(const vcompress_pack_job_t *job)
{
    if (!validate(job))
        return false;
    size_t n = (size_t)job->vertex_count;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < n; v++) {
        for (int k = 0; k < 3; k++) {
            float p = job->positions[3 * v + k];
            if (!isfinite(p)) {
                log_error("vcompress: vertex %zu: position is not finite", v);
                return false;
            }
            lo[k] = fminf(lo[k], p);
            hi[k] = fmaxf(hi[k], p);
        }
        for (int i = 0; i < 4; i++) {
            if (job->joints[4 * v + i] >= job->joint_count) {
                log_error("vcompress: vertex %zu: joint %u >= joint count %d", v, job->joints[4 * v + i],
                          job->joint_count);
                return false;
            }
        }
    }
    vcompress_params_t *pp = job->out_params;
    for (int k = 0; k < 3; k++) {
        pp->pos_bias[k] = lo[k];
        /* A flat axis still needs a non-zero extent to divide by. */
        pp->pos_extent[k] = hi[k] > lo[k] ? hi[k] - lo[k] : 1.0f;
    }
    for (size_t v = 0; v < n; v++) {
        vcompress_vertex_t *o = &job->out_vertices[v];
        memset(o, 0, sizeof *o);
        for (int k = 0; k < 3; k++) {
            float f = (job->positions[3 * v + k] - pp->pos_bias[k]) / pp->pos_extent[k];
            o->pos[k] = (uint16_t)lrintf(clampf(f, 0, 1) * UNORM16_MAX);
        }
        vcompress_oct_encode(job->normals + 3 * v, o->normal);
        static const float k_default_tangent[4] = {1, 0, 0, 1};
        const float *t = job->tangents ? job->tangents + 4 * v : k_default_tangent;
        uint32_t w = t[3] < 0.0f ? 0x3u : 0x1u; /* 2-bit signed -1 / +1 */
        o->tangent = snorm10_bits(t[0]) | snorm10_bits(t[1]) << 10 | snorm10_bits(t[2]) << 20 | w << 30;
        for (int i = 0; i < 4; i++)
            o->joints[i] = (uint8_t)job->joints[4 * v + i];
        pack_weights(job->weights + 4 * v, o->weights);
    }
    return true;
}

void vcompress_unpack(const vcompress_params_t *params, const vcompress_vertex_t *v, int n, float *out_pos,
                      float *out_nrm, float *out_tan, uint16_t *out_joints, float *out_weights)
{
    for (size_t i = 0; i < (size_t)(n > 0 ? n : 0); i++) {
        const vcompress_vertex_t *x = &v[i];
        if (out_pos)
            for (int k = 0; k < 3; k++)
                out_pos[3 * i + k] = params->pos_bias[k] + params->pos_extent[k] * ((float)x->pos[k] / UNORM16_MAX);
        if (out_nrm)
            vcompress_oct_decode(x->normal, out_nrm + 3 * i);
        if (out_tan) {
            float t[3];
            for (int k = 0; k < 3; k++)
                t[k] = snorm_decode(sign_extend((x->tangent >> (10 * k)) & 0x3ffu, 10), SNORM10_MAX);
            float len = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
            for (int k = 0; k < 3; k++)
                out_tan[4 * i + k] = len > 0.0f ? t[k] / len : 0.0f;
            out_tan[4 * i + 3] = snorm_decode(sign_extend(x->tangent >> 30, 2), 1.0f) < 0.0f ? -1.0f : 1.0f;
        }
        for (int k = 0; k < 4; k++) {
            if (out_joints)
                out_joints[4 * i + k] = x->joints[k];
            if (out_weights)
                out_weights[4 * i + k] = (float)x->weights[k] / UNORM8_MAX;
        }
    }
}

static double angle_deg(const float *a, const float *b)
{
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    double la = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
    double lb = sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2]);
    if (la <= 0 || lb <= 0)
        return 180.0;
    /* atan2 of |cross| and dot keeps precision at tiny angles. */
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1], cy = (double)a[2] * b[0] - (double)a[0] * b[2],
           cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), d) * RAD_TO_DEG;
}

void vcompress_measure(const vcompress_pack_job_t *job, vcompress_error_t *out)
{
    memset(out, 0, sizeof *out);
    out->bytes_before = VCOMPRESS_RAW_BYTES_PER_VERTEX;
    out->bytes_after = (int)sizeof(vcompress_vertex_t);
    const vcompress_params_t *pp = job->out_params;
    double step = 0, ylo = INFINITY, yhi = -INFINITY;
    for (int k = 0; k < 3; k++)
        step = fmax(step, (double)pp->pos_extent[k] / UNORM16_MAX);
    /* Half a step, plus float rounding of the decode (a few ulp of the bias). */
    out->pos_bound_cm = 0.5 * step + 1e-6 * (fabs((double)pp->pos_bias[0]) + fabs((double)pp->pos_bias[1]) +
                                             fabs((double)pp->pos_bias[2]) + (double)pp->pos_extent[0] +
                                             (double)pp->pos_extent[1] + (double)pp->pos_extent[2]);
    for (size_t v = 0; v < (size_t)job->vertex_count; v++) {
        float p[3], nrm[3], tan[4], w[4];
        uint16_t jn[4];
        vcompress_unpack(pp, &job->out_vertices[v], 1, p, nrm, tan, jn, w);
        for (int k = 0; k < 3; k++)
            out->max_pos_cm = fmax(out->max_pos_cm, fabs((double)p[k] - job->positions[3 * v + k]));
        ylo = fmin(ylo, job->positions[3 * v + 1]);
        yhi = fmax(yhi, job->positions[3 * v + 1]);
        out->max_normal_deg = fmax(out->max_normal_deg, angle_deg(nrm, job->normals + 3 * v));
        if (job->tangents) {
            out->max_tangent_deg = fmax(out->max_tangent_deg, angle_deg(tan, job->tangents + 4 * v));
            out->handedness_flips += (tan[3] < 0) != (job->tangents[4 * v + 3] < 0);
        }
        for (int i = 0; i < 4; i++) {
            out->max_weight = fmax(out->max_weight, fabs((double)w[i] - job->weights[4 * v + i]));
            if (job->weights[4 * v + i] > WEIGHT_UNUSED && jn[i] != job->joints[4 * v + i])
                out->joint_mismatches++;
        }
    }
    out->height_cm = yhi > ylo ? yhi - ylo : 0.0;
}
