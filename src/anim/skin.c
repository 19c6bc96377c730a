#include "anim/skin.h"
#include "anim/skin_internal.h"

#include "core/cpu.h"
#include "core/log.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* skin_check_vertices: tolerated |sum of weights - 1|. */
#define SKIN_WEIGHT_SUM_TOL 1.0e-3f

typedef enum skin_layout_t { SKIN_LAYOUT_COLS, SKIN_LAYOUT_DUP, SKIN_LAYOUT_DQ } skin_layout_t;

/* ---------------------------------------------------------------- CPU ISA */

bool skin_isa_supported(skin_isa_t isa)
{
    switch (isa) {
    case SKIN_ISA_AUTO:
    case SKIN_ISA_SCALAR: return true;
#if SKIN_X86
    case SKIN_ISA_SSE2:
        /* Part of the x86-64 baseline. */
        return true;
    case SKIN_ISA_AVX2: return cpu_has(CPU_AVX2) && cpu_has(CPU_FMA);
    case SKIN_ISA_AVX512:
        /* The kernel uses the F, VL, DQ and BW subsets, and FMA. */
        return cpu_has(CPU_AVX512F) && cpu_has(CPU_AVX512VL) && cpu_has(CPU_AVX512DQ) && cpu_has(CPU_AVX512BW) &&
               cpu_has(CPU_AVX2) && cpu_has(CPU_FMA);
#else
    case SKIN_ISA_SSE2:
    case SKIN_ISA_AVX2:
    case SKIN_ISA_AVX512: return false;
#endif
    }
    return false;
}

skin_isa_t skin_isa_best(void)
{
    if (skin_isa_supported(SKIN_ISA_AVX512))
        return SKIN_ISA_AVX512;
    if (skin_isa_supported(SKIN_ISA_AVX2))
        return SKIN_ISA_AVX2;
    if (skin_isa_supported(SKIN_ISA_SSE2))
        return SKIN_ISA_SSE2;
    return SKIN_ISA_SCALAR;
}

const char *skin_isa_name(skin_isa_t isa)
{
    switch (isa) {
    case SKIN_ISA_AUTO: return "auto";
    case SKIN_ISA_SCALAR: return "scalar";
    case SKIN_ISA_SSE2: return "sse2";
    case SKIN_ISA_AVX2: return "avx2";
    case SKIN_ISA_AVX512: return "avx512";
    }
    return "?";
}

const char *skin_method_name(skin_method_t method)
{
    switch (method) {
    case SKIN_LBS_POINTS: return "lbs-points";
    case SKIN_LBS_MATRIX: return "lbs-matrix";
    case SKIN_DQS: return "dqs";
    }
    return "?";
}

/* ------------------------------------------------------------ validation */

bool skin_validate(const skin_job_t *job)
{
    if (!job) {
        log_error("skin: no job");
        return false;
    }
    if (job->vertex_count < 0 || job->vertex_count > INT32_MAX / 4) {
        log_error("skin: vertex count %d out of range", job->vertex_count);
        return false;
    }
    if (job->influences < 1 || job->influences > SKIN_MAX_INFLUENCES) {
        log_error("skin: %d influences per vertex (1..%d)", job->influences, SKIN_MAX_INFLUENCES);
        return false;
    }
    if (job->method != SKIN_LBS_POINTS && job->method != SKIN_LBS_MATRIX && job->method != SKIN_DQS) {
        log_error("skin: unknown method %d", (int)job->method);
        return false;
    }
    if ((int)job->isa < SKIN_ISA_AUTO || (int)job->isa > SKIN_ISA_AVX512 || !skin_isa_supported(job->isa)) {
        log_error("skin: instruction set '%s' does not run on this CPU", skin_isa_name(job->isa));
        return false;
    }
    if (job->joint_count < 1 || job->joint_count > SKIN_MAX_JOINTS) {
        log_error("skin: %d palette joints (1..%d)", job->joint_count, SKIN_MAX_JOINTS);
        return false;
    }
    if (job->method == SKIN_DQS ? !job->dq_palette : !job->palette) {
        log_error("skin: method %s needs its palette", skin_method_name(job->method));
        return false;
    }
    if (job->vertex_count == 0)
        return true;
    if (!job->positions || !job->out_positions || !job->weights) {
        log_error("skin: missing positions, weights or output positions");
        return false;
    }
    if (!job->joints_u8 == !job->joints_u16) {
        log_error("skin: give exactly one of joints_u8 / joints_u16");
        return false;
    }
    if ((job->normals && !job->out_normals) || (job->tangents && !job->out_tangents)) {
        log_error("skin: normals or tangents given without an output span");
        return false;
    }
    if (job->tangents && !job->normals) {
        log_error("skin: tangents need normals");
        return false;
    }
    return true;
}

bool skin_check_vertices(const skin_job_t *job)
{
    if (!skin_validate(job))
        return false;
    /* A prenormalized job's first N weights sum to 1; the others are unused. */
    int summed = job->prenormalized ? job->influences : SKIN_MAX_INFLUENCES;
    for (int v = 0; v < job->vertex_count; v++) {
        const float *w = job->weights + 4 * (size_t)v;
        float sum = 0.0f;
        for (int i = 0; i < 4; i++) {
            unsigned j = job->joints_u8 ? job->joints_u8[4 * (size_t)v + i] : job->joints_u16[4 * (size_t)v + i];
            if (j >= (unsigned)job->joint_count) {
                log_error("skin: vertex %d: joint index %u >= %d", v, j, job->joint_count);
                return false;
            }
            if (!isfinite(w[i]) || w[i] < 0.0f || (i > 0 && w[i] > w[i - 1])) {
                log_error("skin: vertex %d: weights must be finite, >= 0 and descending", v);
                return false;
            }
            sum += i < summed ? w[i] : 0.0f;
        }
        if (fabsf(sum - 1.0f) > SKIN_WEIGHT_SUM_TOL) {
            log_error("skin: vertex %d: weights sum to %g, not 1", v, (double)sum);
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------- shared helpers */

/* Joint index I of vertex V; uint16 indices past the palette go to the zero entry. */
static inline unsigned skin_joint(const skin_job_t *job, size_t v, int i, bool u16)
{
    if (u16) {
        unsigned j = job->joints_u16[4 * v + i];
        return j < SKIN_MAX_JOINTS ? j : SKIN_MAX_JOINTS;
    }
    return job->joints_u8[4 * v + i];
}

static inline void skin_normalize3(const float in[3], float out[3])
{
    float inv = 1.0f / sqrtf(in[0] * in[0] + in[1] * in[1] + in[2] * in[2]);
    out[0] = in[0] * inv;
    out[1] = in[1] * inv;
    out[2] = in[2] * inv;
}

/* An LBS output direction: renormalised, or as blended (PRENORM). */
static inline void skin_direction_out(const float in[3], bool prenorm, float out[3])
{
    if (prenorm)
        memcpy(out, in, sizeof(float) * 3);
    else
        skin_normalize3(in, out);
}

/* The palette layout the job's SIMD kernel reads. */
static skin_layout_t skin_layout_of(const skin_job_t *job, skin_isa_t isa)
{
    if (job->method == SKIN_DQS)
        return SKIN_LAYOUT_DQ;
    if (isa == SKIN_ISA_AVX2 && job->influences == 1 && !job->tangents)
        return SKIN_LAYOUT_DUP;
    return SKIN_LAYOUT_COLS;
}

static void skin_prepare(const skin_job_t *job, skin_isa_t isa, skin_prepared_t *prep)
{
    int n = job->joint_count;
    skin_layout_t layout = skin_layout_of(job, isa);
    if (layout == SKIN_LAYOUT_DQ) {
        memcpy(prep->u.dq, job->dq_palette, sizeof(float) * 8 * (size_t)n);
        memset(prep->u.dq[n], 0, sizeof(float) * 8 * (size_t)(SKIN_PAD_JOINTS - n));
        return;
    }
    int floats = layout == SKIN_LAYOUT_DUP ? SKIN_DUP_FLOATS : SKIN_COLS_FLOATS;
    for (int j = 0; j < n; j++) {
        const float *m = job->palette + 12 * (size_t)j;
        float *c = layout == SKIN_LAYOUT_DUP ? prep->u.dup[j] : prep->u.cols[j];
        /* Column COL of (x y z 0) at c + 4 * COL (COLS) or at c + 8 * COL,
         * repeated in the upper half except the translation (DUP). */
        int stride = floats / 4;
        for (int col = 0; col < 4; col++) {
            float *dst = c + stride * col;
            for (int r = 0; r < 3; r++)
                dst[r] = m[4 * r + col];
            dst[3] = 0.0f;
            if (layout == SKIN_LAYOUT_DUP) {
                for (int r = 0; r < 4; r++)
                    dst[4 + r] = col < 3 ? dst[r] : 0.0f;
            }
        }
    }
    float *pad = layout == SKIN_LAYOUT_DUP ? prep->u.dup[n] : prep->u.cols[n];
    memset(pad, 0, sizeof(float) * (size_t)floats * (size_t)(SKIN_PAD_JOINTS - n));
}

/* ------------------------------------------------------ scalar kernels */

/* Reference: every influence transforms the vertex, the results are blended. */
static void skin_lbs_points_scalar(const skin_ctx_t *c, int begin, int end)
{
    const skin_job_t *job = c->job;
    bool u16 = job->joints_u16 != NULL;
    for (size_t v = (size_t)begin; v < (size_t)end; v++) {
        const float *p = job->positions + 3 * v;
        const float *n = job->normals ? job->normals + 3 * v : NULL;
        const float *t = job->tangents ? job->tangents + 4 * v : NULL;
        float w[4];
        skin_weights(job->weights + 4 * v, job->influences, job->prenormalized, w);
        float op[3] = {0, 0, 0}, on[3] = {0, 0, 0}, ot[3] = {0, 0, 0};
        for (int i = 0; i < job->influences; i++) {
            unsigned j = skin_joint(job, v, i, u16);
            if (j >= (unsigned)job->joint_count)
                continue;
            const float *m = job->palette + 12 * (size_t)j;
            for (int r = 0; r < 3; r++) {
                const float *row = m + 4 * r;
                op[r] += w[i] * (row[0] * p[0] + row[1] * p[1] + row[2] * p[2] + row[3]);
                if (n)
                    on[r] += w[i] * (row[0] * n[0] + row[1] * n[1] + row[2] * n[2]);
                if (t)
                    ot[r] += w[i] * (row[0] * t[0] + row[1] * t[1] + row[2] * t[2]);
            }
        }
        memcpy(job->out_positions + 3 * v, op, sizeof op);
        if (n)
            skin_direction_out(on, job->prenormalized, job->out_normals + 3 * v);
        if (t) {
            skin_direction_out(ot, job->prenormalized, job->out_tangents + 4 * v);
            job->out_tangents[4 * v + 3] = t[3];
        }
    }
}

/* Dawn 4.4.1: blend the matrices with the weights, transform once. The sums
 * run in the same order as the SSE2 kernel, so both give the same bits. */
static void skin_lbs_matrix_scalar(const skin_ctx_t *c, int begin, int end)
{
    const skin_job_t *job = c->job;
    bool u16 = job->joints_u16 != NULL;
    for (size_t v = (size_t)begin; v < (size_t)end; v++) {
        float w[4];
        skin_weights(job->weights + 4 * v, job->influences, job->prenormalized, w);
        float b[12] = {0};
        bool first = true;
        for (int i = 0; i < job->influences; i++) {
            unsigned j = skin_joint(job, v, i, u16);
            const float *m = j < (unsigned)job->joint_count ? job->palette + 12 * (size_t)j : NULL;
            for (int e = 0; e < 12; e++) {
                float term = m ? w[i] * m[e] : 0.0f * w[i];
                b[e] = first ? term : b[e] + term;
            }
            first = false;
        }
        const float *p = job->positions + 3 * v;
        float *op = job->out_positions + 3 * v;
        for (int r = 0; r < 3; r++)
            op[r] = b[4 * r] * p[0] + b[4 * r + 1] * p[1] + b[4 * r + 2] * p[2] + b[4 * r + 3];
        if (job->normals) {
            const float *n = job->normals + 3 * v;
            float on[3];
            for (int r = 0; r < 3; r++)
                on[r] = b[4 * r] * n[0] + b[4 * r + 1] * n[1] + b[4 * r + 2] * n[2];
            skin_direction_out(on, job->prenormalized, job->out_normals + 3 * v);
        }
        if (job->tangents) {
            const float *t = job->tangents + 4 * v;
            float ot[3];
            for (int r = 0; r < 3; r++)
                ot[r] = b[4 * r] * t[0] + b[4 * r + 1] * t[1] + b[4 * r + 2] * t[2];
            skin_direction_out(ot, job->prenormalized, job->out_tangents + 4 * v);
            job->out_tangents[4 * v + 3] = t[3];
        }
    }
}

/* Rotation by unit quaternion R, plus translation from its dual part D:
 * t = 2 (r.w d.v - d.w r.v + r.v x d.v). Shared by the scalar and SIMD DQS. */
static inline void skin_dq_apply(const float r[4], const float d[4], const skin_job_t *job, size_t v)
{
    const float *p = job->positions + 3 * v;
    float t[3] = {2.0f * (r[3] * d[0] - d[3] * r[0] + r[1] * d[2] - r[2] * d[1]),
                  2.0f * (r[3] * d[1] - d[3] * r[1] + r[2] * d[0] - r[0] * d[2]),
                  2.0f * (r[3] * d[2] - d[3] * r[2] + r[0] * d[1] - r[1] * d[0])};
    /* v' = v + 2 u x (u x v + w v), u = r.xyz */
#define SKIN_QROT(in, out)                                                                                             \
    do {                                                                                                               \
        float cx_ = r[1] * (in)[2] - r[2] * (in)[1] + r[3] * (in)[0];                                                  \
        float cy_ = r[2] * (in)[0] - r[0] * (in)[2] + r[3] * (in)[1];                                                  \
        float cz_ = r[0] * (in)[1] - r[1] * (in)[0] + r[3] * (in)[2];                                                  \
        (out)[0] = (in)[0] + 2.0f * (r[1] * cz_ - r[2] * cy_);                                                         \
        (out)[1] = (in)[1] + 2.0f * (r[2] * cx_ - r[0] * cz_);                                                         \
        (out)[2] = (in)[2] + 2.0f * (r[0] * cy_ - r[1] * cx_);                                                         \
    } while (0)
    float q[3];
    SKIN_QROT(p, q);
    float *op = job->out_positions + 3 * v;
    op[0] = q[0] + t[0];
    op[1] = q[1] + t[1];
    op[2] = q[2] + t[2];
    if (job->normals) {
        /* A unit rotation keeps unit normals unit: no renormalisation. */
        SKIN_QROT(job->normals + 3 * v, job->out_normals + 3 * v);
    }
    if (job->tangents) {
        SKIN_QROT(job->tangents + 4 * v, job->out_tangents + 4 * v);
        job->out_tangents[4 * v + 3] = job->tangents[4 * v + 3];
    }
#undef SKIN_QROT
}

/* Normalises the blended dual quaternion B (8 floats) into R and D. */
static inline void skin_dq_normalize(const float b[8], float r[4], float d[4])
{
    float inv = 1.0f / sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
    for (int i = 0; i < 4; i++) {
        r[i] = b[i] * inv;
        d[i] = b[4 + i] * inv;
    }
}

/* Kavan: blend dual quaternions in the hemisphere of the heaviest influence. */
static void skin_dqs_scalar(const skin_ctx_t *c, int begin, int end)
{
    const skin_job_t *job = c->job;
    bool u16 = job->joints_u16 != NULL;
    static const float zero[8] = {0};
    for (size_t v = (size_t)begin; v < (size_t)end; v++) {
        float w[4];
        skin_weights(job->weights + 4 * v, job->influences, job->prenormalized, w);
        float b[8] = {0};
        const float *q0 = NULL;
        for (int i = 0; i < job->influences; i++) {
            unsigned j = skin_joint(job, v, i, u16);
            const float *q = j < (unsigned)job->joint_count ? job->dq_palette + 8 * (size_t)j : zero;
            if (i == 0)
                q0 = q;
            float dot = q0[0] * q[0] + q0[1] * q[1] + q0[2] * q[2] + q0[3] * q[3];
            float ws = dot < 0.0f ? -w[i] : w[i];
            for (int e = 0; e < 8; e++)
                b[e] = i == 0 ? ws * q[e] : b[e] + ws * q[e];
        }
        float r[4], d[4];
        skin_dq_normalize(b, r, d);
        skin_dq_apply(r, d, job, v);
    }
}

/* ------------------------------------------------------------- dispatch */

static skin_range_fn_t skin_select(const skin_job_t *job, skin_isa_t isa)
{
    if (job->method == SKIN_LBS_POINTS)
        return skin_lbs_points_scalar;
#if SKIN_X86
    if (isa == SKIN_ISA_AVX512)
        return skin_avx512_kernel(job);
    if (isa != SKIN_ISA_SCALAR)
        return skin_simd_kernel(job, isa);
#else
    (void)isa;
#endif
    return job->method == SKIN_LBS_MATRIX ? skin_lbs_matrix_scalar : skin_dqs_scalar;
}

static skin_isa_t skin_resolve_isa(const skin_job_t *job)
{
    if (job->method == SKIN_LBS_POINTS)
        return SKIN_ISA_SCALAR;
    return job->isa == SKIN_ISA_AUTO ? skin_isa_best() : job->isa;
}

void skin_kernel_name(const skin_job_t *job, char *out, size_t size)
{
    if (!job || job->influences < 1 || job->influences > SKIN_MAX_INFLUENCES || (int)job->isa < SKIN_ISA_AUTO ||
        (int)job->isa > SKIN_ISA_AVX512 ||
        (job->method != SKIN_LBS_POINTS && job->method != SKIN_LBS_MATRIX && job->method != SKIN_DQS)) {
        snprintf(out, size, "invalid job");
        return;
    }
    if (!skin_isa_supported(job->isa)) {
        snprintf(out, size, "unsupported isa");
        return;
    }
    static const char *const attrs[3] = {"pos", "pos+nrm", "pos+nrm+tan"};
    skin_isa_t isa = skin_resolve_isa(job);
    int k = job->influences;
    const char *attr = attrs[job->tangents ? 2 : job->normals ? 1 : 0];
    bool avx2_lbs = isa == SKIN_ISA_AVX2 && job->method == SKIN_LBS_MATRIX;
    const char *shape = job->method == SKIN_LBS_POINTS ? "per vertex, transform then blend"
                        : isa == SKIN_ISA_SCALAR       ? "per vertex"
                        : isa == SKIN_ISA_AVX512       ? "16-vertex blocks, masked tail"
                        : avx2_lbs && !job->tangents   ? "8-vertex blocks"
                                                       : "4-vertex blocks";
    snprintf(out, size, "%s %s %d influence%s%s, %s, %s, %s", skin_isa_name(isa), skin_method_name(job->method), k,
             k == 1 ? "" : "s",
             skin_layout_of(job, isa) == SKIN_LAYOUT_DUP && isa == SKIN_ISA_AVX2 && job->method == SKIN_LBS_MATRIX
                 ? " (rigid: doubled columns)"
                 : "",
             attr, job->prenormalized ? "weights as given" : "renormalising", shape);
}

skin_range_fn_t skin_bind(const skin_job_t *job, skin_prepared_t *prep, skin_ctx_t *ctx)
{
    skin_isa_t isa = skin_resolve_isa(job);
    *ctx = (skin_ctx_t){.job = job, .prep = NULL, .isa = isa};
    if (isa != SKIN_ISA_SCALAR) {
        skin_prepare(job, isa, prep);
        ctx->prep = prep;
    }
    return skin_select(job, isa);
}

bool skin_run(const skin_job_t *job)
{
    if (!skin_validate(job))
        return false;
    if (job->vertex_count == 0)
        return true;
    /* 33 kB on the stack: the SIMD layout of this call's palette. */
    skin_prepared_t prep;
    skin_ctx_t ctx;
    skin_bind(job, &prep, &ctx)(&ctx, 0, job->vertex_count);
    return true;
}
