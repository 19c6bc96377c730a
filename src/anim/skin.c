#include "anim/skin.h"

#include "core/log.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SKIN_X86 1
#include <immintrin.h>
#else
#define SKIN_X86 0
#endif

/* Prepared palette entries: every uint8 index lands inside, and clamped uint16
 * indices land on the last entry, which stays zero (no contribution). */
#define SKIN_PAD_JOINTS (SKIN_MAX_JOINTS + 1)
/* SIMD matrix layout, one 64-byte cache line per joint: either 4 columns of
 * (x y z 0) (SSE2, and AVX2 with tangents) or the rows (r0 r1 r2 r2) (the
 * AVX2 block kernel; see skin_lbs_avx2_block). */
#define SKIN_COLS_FLOATS 16
/* skin_check_vertices: tolerated |sum of weights - 1|. */
#define SKIN_WEIGHT_SUM_TOL 1.0e-3f

typedef struct skin_prepared_t {
    _Alignas(64) float mat[SKIN_PAD_JOINTS][SKIN_COLS_FLOATS];
    _Alignas(64) float dq[SKIN_PAD_JOINTS][8];
} skin_prepared_t;

/* One resolved job: the caller's arrays plus the prepared palette. */
typedef struct skin_ctx_t {
    const skin_job_t *job;
    const skin_prepared_t *prep;
    skin_isa isa; /* resolved, never AUTO */
} skin_ctx_t;

typedef void (*skin_range_fn)(const skin_ctx_t *c, int begin, int end);

/* ---------------------------------------------------------------- CPU ISA */

bool skin_isa_supported(skin_isa isa)
{
    switch (isa) {
    case SKIN_ISA_AUTO:
    case SKIN_ISA_SCALAR:
        return true;
#if SKIN_X86
    case SKIN_ISA_SSE2:
        /* Part of the x86-64 baseline. */
        return true;
    case SKIN_ISA_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    case SKIN_ISA_SSE2:
    case SKIN_ISA_AVX2:
        return false;
#endif
    }
    return false;
}

skin_isa skin_isa_best(void)
{
    if (skin_isa_supported(SKIN_ISA_AVX2))
        return SKIN_ISA_AVX2;
    if (skin_isa_supported(SKIN_ISA_SSE2))
        return SKIN_ISA_SSE2;
    return SKIN_ISA_SCALAR;
}

const char *skin_isa_name(skin_isa isa)
{
    switch (isa) {
    case SKIN_ISA_AUTO: return "auto";
    case SKIN_ISA_SCALAR: return "scalar";
    case SKIN_ISA_SSE2: return "sse2";
    case SKIN_ISA_AVX2: return "avx2";
    }
    return "?";
}

const char *skin_method_name(skin_method method)
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
    if (job->method != SKIN_LBS_POINTS && job->method != SKIN_LBS_MATRIX &&
        job->method != SKIN_DQS) {
        log_error("skin: unknown method %d", (int)job->method);
        return false;
    }
    if ((int)job->isa < SKIN_ISA_AUTO || (int)job->isa > SKIN_ISA_AVX2 ||
        !skin_isa_supported(job->isa)) {
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
    for (int v = 0; v < job->vertex_count; v++) {
        const float *w = job->weights + 4 * (size_t)v;
        float sum = 0.0f;
        for (int i = 0; i < 4; i++) {
            unsigned j = job->joints_u8 ? job->joints_u8[4 * (size_t)v + i]
                                        : job->joints_u16[4 * (size_t)v + i];
            if (j >= (unsigned)job->joint_count) {
                log_error("skin: vertex %d: joint index %u >= %d", v, j, job->joint_count);
                return false;
            }
            if (!isfinite(w[i]) || w[i] < 0.0f || (i > 0 && w[i] > w[i - 1])) {
                log_error("skin: vertex %d: weights must be finite, >= 0 and descending", v);
                return false;
            }
            sum += w[i];
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

/* The kept weights; renormalised when truncated (K < 4), as given otherwise. */
static inline void skin_weights(const float *w, int k, float out[4])
{
    if (k == SKIN_MAX_INFLUENCES) {
        out[0] = w[0];
        out[1] = w[1];
        out[2] = w[2];
        out[3] = w[3];
        return;
    }
    float sum = w[0];
    for (int i = 1; i < k; i++)
        sum += w[i];
    float inv = 1.0f / sum;
    for (int i = 0; i < 4; i++)
        out[i] = i < k ? w[i] * inv : 0.0f;
}

static inline void skin_normalize3(const float in[3], float out[3])
{
    float inv = 1.0f / sqrtf(in[0] * in[0] + in[1] * in[1] + in[2] * in[2]);
    out[0] = in[0] * inv;
    out[1] = in[1] * inv;
    out[2] = in[2] * inv;
}

/* Whether the job's kernel reads the palette as rows (r0 r1 r2 r2) rather
 * than as columns: the AVX2 LBS block kernel, which skins positions and
 * normals (tangents take the per-vertex column kernel). */
static bool skin_uses_rows(const skin_job_t *job, skin_isa isa)
{
    return isa == SKIN_ISA_AVX2 && job->method == SKIN_LBS_MATRIX && !job->tangents;
}

static void skin_prepare(const skin_job_t *job, skin_isa isa, skin_prepared_t *prep)
{
    int n = job->joint_count;
    if (job->method == SKIN_DQS) {
        memcpy(prep->dq, job->dq_palette, sizeof(float) * 8 * (size_t)n);
        memset(prep->dq[n], 0, sizeof(float) * 8 * (size_t)(SKIN_PAD_JOINTS - n));
        return;
    }
    if (skin_uses_rows(job, isa)) {
        for (int j = 0; j < n; j++) {
            const float *m = job->palette + 12 * (size_t)j;
            /* Row 2 twice: its upper copy meets the normal (skin_lbs_avx2_block). */
            memcpy(prep->mat[j], m, sizeof(float) * 12);
            memcpy(prep->mat[j] + 12, m + 8, sizeof(float) * 4);
        }
    } else {
        for (int j = 0; j < n; j++) {
            const float *m = job->palette + 12 * (size_t)j;
            float *c = prep->mat[j];
            for (int col = 0; col < 4; col++) {
                c[4 * col + 0] = m[col];
                c[4 * col + 1] = m[4 + col];
                c[4 * col + 2] = m[8 + col];
                c[4 * col + 3] = 0.0f;
            }
        }
    }
    memset(prep->mat[n], 0, sizeof(float) * SKIN_COLS_FLOATS * (size_t)(SKIN_PAD_JOINTS - n));
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
        skin_weights(job->weights + 4 * v, job->influences, w);
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
            skin_normalize3(on, job->out_normals + 3 * v);
        if (t) {
            skin_normalize3(ot, job->out_tangents + 4 * v);
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
        skin_weights(job->weights + 4 * v, job->influences, w);
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
            skin_normalize3(on, job->out_normals + 3 * v);
        }
        if (job->tangents) {
            const float *t = job->tangents + 4 * v;
            float ot[3];
            for (int r = 0; r < 3; r++)
                ot[r] = b[4 * r] * t[0] + b[4 * r + 1] * t[1] + b[4 * r + 2] * t[2];
            skin_normalize3(ot, job->out_tangents + 4 * v);
            job->out_tangents[4 * v + 3] = t[3];
        }
    }
}

/* Rotation by unit quaternion R, plus translation from its dual part D:
 * t = 2 (r.w d.v - d.w r.v + r.v x d.v). Shared by the scalar and SIMD DQS. */
static inline void skin_dq_apply(const float r[4], const float d[4], const skin_job_t *job,
                                 size_t v)
{
    const float *p = job->positions + 3 * v;
    float t[3] = {2.0f * (r[3] * d[0] - d[3] * r[0] + r[1] * d[2] - r[2] * d[1]),
                  2.0f * (r[3] * d[1] - d[3] * r[1] + r[2] * d[0] - r[0] * d[2]),
                  2.0f * (r[3] * d[2] - d[3] * r[2] + r[0] * d[1] - r[1] * d[0])};
    /* v' = v + 2 u x (u x v + w v), u = r.xyz */
#define SKIN_QROT(in, out)                                                                         \
    do {                                                                                           \
        float cx_ = r[1] * (in)[2] - r[2] * (in)[1] + r[3] * (in)[0];                              \
        float cy_ = r[2] * (in)[0] - r[0] * (in)[2] + r[3] * (in)[1];                              \
        float cz_ = r[0] * (in)[1] - r[1] * (in)[0] + r[3] * (in)[2];                              \
        (out)[0] = (in)[0] + 2.0f * (r[1] * cz_ - r[2] * cy_);                                     \
        (out)[1] = (in)[1] + 2.0f * (r[2] * cx_ - r[0] * cz_);                                     \
        (out)[2] = (in)[2] + 2.0f * (r[0] * cy_ - r[1] * cx_);                                     \
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
        skin_weights(job->weights + 4 * v, job->influences, w);
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

/* --------------------------------------------------------- SIMD kernels */
#if SKIN_X86

#define SKIN_INLINE static inline __attribute__((always_inline))

/* Stores the low three lanes of X at DST (no write past DST[2]). */
#define SKIN_STORE3(dst, x)                                                                        \
    do {                                                                                           \
        _mm_storel_pi((__m64 *)(void *)(dst), (x));                                                \
        _mm_store_ss((dst) + 2, _mm_movehl_ps((x), (x)));                                          \
    } while (0)

/* The job's arrays, copied into locals: SIMD stores may alias anything as
 * far as the compiler knows, so fields read through the job pointer would be
 * reloaded after every store. */
typedef struct skin_arrays_t {
    const float *pos, *nrm, *tan, *w;
    const uint8_t *j8;
    const uint16_t *j16;
    float *opos, *onrm, *otan;
    const float (*mat)[SKIN_COLS_FLOATS];
    const float (*dq)[8];
} skin_arrays_t;

SKIN_INLINE skin_arrays_t skin_arrays(const skin_ctx_t *c)
{
    const skin_job_t *j = c->job;
    return (skin_arrays_t){.pos = j->positions, .nrm = j->normals, .tan = j->tangents,
                           .w = j->weights, .j8 = j->joints_u8, .j16 = j->joints_u16,
                           .opos = j->out_positions, .onrm = j->out_normals,
                           .otan = j->out_tangents, .mat = c->prep->mat, .dq = c->prep->dq};
}

SKIN_INLINE unsigned skin_joint_a(const skin_arrays_t *a, size_t v, int i, bool u16)
{
    if (u16) {
        unsigned j = a->j16[4 * v + i];
        return j < SKIN_MAX_JOINTS ? j : SKIN_MAX_JOINTS;
    }
    return a->j8[4 * v + i];
}

/* Normalises the xyz of four vectors at once. The reciprocal square root
 * estimate plus one Newton step (about 23 bits) replaces sqrt and divide,
 * which cost about 10% of the whole LBS kernel; the sums of squares run in the
 * scalar reference's order. */
SKIN_INLINE void skin_normalize4(__m128 n[4])
{
    __m128 s0 = _mm_mul_ps(n[0], n[0]), s1 = _mm_mul_ps(n[1], n[1]);
    __m128 s2 = _mm_mul_ps(n[2], n[2]), s3 = _mm_mul_ps(n[3], n[3]);
    __m128 t0 = _mm_unpacklo_ps(s0, s1), t1 = _mm_unpackhi_ps(s0, s1);
    __m128 t2 = _mm_unpacklo_ps(s2, s3), t3 = _mm_unpackhi_ps(s2, s3);
    __m128 xx = _mm_movelh_ps(t0, t2), yy = _mm_movehl_ps(t2, t0), zz = _mm_movelh_ps(t1, t3);
    __m128 len2 = _mm_add_ps(_mm_add_ps(xx, yy), zz);
    __m128 r = _mm_rsqrt_ps(len2);
    /* inv = r (3 - len2 r^2) / 2 */
    __m128 inv = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), r),
                            _mm_sub_ps(_mm_set1_ps(3.0f), _mm_mul_ps(_mm_mul_ps(len2, r), r)));
    n[0] = _mm_mul_ps(n[0], _mm_shuffle_ps(inv, inv, 0x00));
    n[1] = _mm_mul_ps(n[1], _mm_shuffle_ps(inv, inv, 0x55));
    n[2] = _mm_mul_ps(n[2], _mm_shuffle_ps(inv, inv, 0xAA));
    n[3] = _mm_mul_ps(n[3], _mm_shuffle_ps(inv, inv, 0xFF));
}

/* Writes the xyz of four vectors as 12 packed floats with three stores. */
SKIN_INLINE void skin_store4x3(float *dst, const __m128 p[4])
{
    __m128 u = _mm_shuffle_ps(p[0], p[1], _MM_SHUFFLE(0, 0, 2, 2));
    _mm_storeu_ps(dst, _mm_shuffle_ps(p[0], u, _MM_SHUFFLE(2, 0, 1, 0)));
    _mm_storeu_ps(dst + 4, _mm_shuffle_ps(p[1], p[2], _MM_SHUFFLE(1, 0, 2, 1)));
    u = _mm_shuffle_ps(p[2], p[3], _MM_SHUFFLE(0, 0, 2, 2));
    _mm_storeu_ps(dst + 8, _mm_shuffle_ps(u, p[3], _MM_SHUFFLE(2, 1, 2, 0)));
}

/* Loads 4 packed xyz vectors (12 floats) as x, y, z of 4 lanes. */
SKIN_INLINE void skin_load4x3(const float *src, __m128 out[3])
{
    __m128 a = _mm_loadu_ps(src), b = _mm_loadu_ps(src + 4), c = _mm_loadu_ps(src + 8);
    __m128 u = _mm_shuffle_ps(b, c, _MM_SHUFFLE(1, 0, 2, 2));
    out[0] = _mm_shuffle_ps(a, u, _MM_SHUFFLE(3, 0, 3, 0));
    __m128 v = _mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1));
    __m128 w = _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3));
    out[1] = _mm_shuffle_ps(v, w, _MM_SHUFFLE(2, 0, 2, 0));
    __m128 x = _mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 1, 2, 2));
    __m128 y = _mm_shuffle_ps(c, c, _MM_SHUFFLE(3, 3, 0, 0));
    out[2] = _mm_shuffle_ps(x, y, _MM_SHUFFLE(2, 0, 2, 0));
}

/* Stores x, y, z of 4 lanes as 4 packed xyz vectors (12 floats). */
SKIN_INLINE void skin_store4x3_soa(float *dst, const __m128 in[3])
{
    __m128 t = _mm_unpacklo_ps(in[0], in[1]);
    __m128 u = _mm_shuffle_ps(in[2], in[0], _MM_SHUFFLE(1, 1, 0, 0));
    _mm_storeu_ps(dst, _mm_shuffle_ps(t, u, _MM_SHUFFLE(2, 0, 1, 0)));
    __m128 v = _mm_shuffle_ps(in[1], in[2], _MM_SHUFFLE(1, 1, 1, 1));
    __m128 h = _mm_unpackhi_ps(in[0], in[1]);
    _mm_storeu_ps(dst + 4, _mm_shuffle_ps(v, h, _MM_SHUFFLE(1, 0, 2, 0)));
    __m128 r = _mm_shuffle_ps(in[2], h, _MM_SHUFFLE(3, 2, 3, 2));
    _mm_storeu_ps(dst + 8, _mm_shuffle_ps(r, r, _MM_SHUFFLE(1, 3, 2, 0)));
}

/* Vertices go in blocks of SKIN_BLOCK: normals and tangents are normalised
 * four at a time and outputs leave in packed stores. A short last block runs
 * the same per-vertex arithmetic (dummy lanes are computed and dropped), so
 * a vertex's result does not depend on where a thread's range starts. */
#define SKIN_BLOCK 4

/* Normalises and stores the COUNT vertices of one block from V0. */
SKIN_INLINE void skin_store_block(const skin_arrays_t *a, size_t v0, size_t count, bool nrm,
                                  bool tan, __m128 pl[SKIN_BLOCK], __m128 nl[SKIN_BLOCK],
                                  __m128 tl[SKIN_BLOCK])
{
    if (nrm)
        skin_normalize4(nl);
    if (tan)
        skin_normalize4(tl);
    if (count == SKIN_BLOCK) {
        skin_store4x3(a->opos + 3 * v0, pl);
        if (nrm)
            skin_store4x3(a->onrm + 3 * v0, nl);
    } else {
        for (size_t l = 0; l < count; l++) {
            SKIN_STORE3(a->opos + 3 * (v0 + l), pl[l]);
            if (nrm)
                SKIN_STORE3(a->onrm + 3 * (v0 + l), nl[l]);
        }
    }
    if (tan) {
        for (size_t l = 0; l < count; l++) {
            float *dst = a->otan + 4 * (v0 + l);
            /* Tangent w (handedness) rides along unchanged. */
            __m128 w = _mm_load_ss(a->tan + 4 * (v0 + l) + 3);
            __m128 hi = _mm_shuffle_ps(tl[l], w, _MM_SHUFFLE(0, 0, 3, 2));
            _mm_storeu_ps(dst, _mm_shuffle_ps(tl[l], hi, _MM_SHUFFLE(2, 0, 1, 0)));
        }
    }
}

/* Runs VERTEX(a, v, k, nrm, tan, u16, &p, &n, &t) over [BEGIN, END) in blocks,
 * each finished by STORE(a, v0, count, nrm, tan, p[], n[], t[]). */
#define SKIN_BLOCK_LOOP(VERTEX, STORE, a, begin, end, k, nrm, tan, u16)                                   \
    do {                                                                                           \
        size_t v0_ = (size_t)(begin), end_ = (size_t)(end);                                        \
        for (; v0_ + SKIN_BLOCK <= end_; v0_ += SKIN_BLOCK) {                                      \
            __m128 pl_[SKIN_BLOCK], nl_[SKIN_BLOCK], tl_[SKIN_BLOCK];                              \
            VERTEX(a, v0_ + 0, k, nrm, tan, u16, &pl_[0], &nl_[0], &tl_[0]);                       \
            VERTEX(a, v0_ + 1, k, nrm, tan, u16, &pl_[1], &nl_[1], &tl_[1]);                       \
            VERTEX(a, v0_ + 2, k, nrm, tan, u16, &pl_[2], &nl_[2], &tl_[2]);                       \
            VERTEX(a, v0_ + 3, k, nrm, tan, u16, &pl_[3], &nl_[3], &tl_[3]);                       \
            STORE(a, v0_, SKIN_BLOCK, nrm, tan, pl_, nl_, tl_);                         \
        }                                                                                          \
        if (v0_ < end_) {                                                                          \
            __m128 pl_[SKIN_BLOCK], nl_[SKIN_BLOCK], tl_[SKIN_BLOCK];                              \
            for (size_t l_ = 0; l_ < SKIN_BLOCK; l_++)                                             \
                pl_[l_] = nl_[l_] = tl_[l_] = _mm_set1_ps(1.0f);                                   \
            for (size_t l_ = 0; v0_ + l_ < end_; l_++)                                             \
                VERTEX(a, v0_ + l_, k, nrm, tan, u16, &pl_[l_], &nl_[l_], &tl_[l_]);               \
            STORE(a, v0_, end_ - v0_, nrm, tan, pl_, nl_, tl_);                         \
        }                                                                                          \
    } while (0)

SKIN_INLINE __m128 skin_sse2_xform3(__m128 c0, __m128 c1, __m128 c2, const float *x)
{
    __m128 o = _mm_add_ps(_mm_mul_ps(c0, _mm_set1_ps(x[0])), _mm_mul_ps(c1, _mm_set1_ps(x[1])));
    return _mm_add_ps(o, _mm_mul_ps(c2, _mm_set1_ps(x[2])));
}

/* SSE2: each column (x y z 0) of the blended matrix is one register. The
 * blend and the transform run in the scalar kernel's order (same bits); only
 * the normalisation differs (see skin_normalize4). */
SKIN_INLINE void skin_lbs_sse2_vertex(const skin_arrays_t *a, size_t v, const int k,
                                      const bool nrm, const bool tan, const bool u16, __m128 *po,
                                      __m128 *no, __m128 *to)
{
    float w[4];
    skin_weights(a->w + 4 * v, k, w);
    const float *m = a->mat[skin_joint_a(a, v, 0, u16)];
    __m128 wi = _mm_set1_ps(w[0]);
    __m128 c0 = _mm_mul_ps(wi, _mm_load_ps(m));
    __m128 c1 = _mm_mul_ps(wi, _mm_load_ps(m + 4));
    __m128 c2 = _mm_mul_ps(wi, _mm_load_ps(m + 8));
    __m128 c3 = _mm_mul_ps(wi, _mm_load_ps(m + 12));
    for (int i = 1; i < k; i++) {
        m = a->mat[skin_joint_a(a, v, i, u16)];
        wi = _mm_set1_ps(w[i]);
        c0 = _mm_add_ps(c0, _mm_mul_ps(wi, _mm_load_ps(m)));
        c1 = _mm_add_ps(c1, _mm_mul_ps(wi, _mm_load_ps(m + 4)));
        c2 = _mm_add_ps(c2, _mm_mul_ps(wi, _mm_load_ps(m + 8)));
        c3 = _mm_add_ps(c3, _mm_mul_ps(wi, _mm_load_ps(m + 12)));
    }
    *po = _mm_add_ps(skin_sse2_xform3(c0, c1, c2, a->pos + 3 * v), c3);
    if (nrm)
        *no = skin_sse2_xform3(c0, c1, c2, a->nrm + 3 * v);
    if (tan)
        *to = skin_sse2_xform3(c0, c1, c2, a->tan + 4 * v);
}

SKIN_INLINE void skin_lbs_sse2_kernel(const skin_ctx_t *c, int begin, int end, const int k,
                                      const bool nrm, const bool tan, const bool u16)
{
    const skin_arrays_t a = skin_arrays(c);
    SKIN_BLOCK_LOOP(skin_lbs_sse2_vertex, skin_store_block, &a, begin, end, k, nrm, tan, u16);
}

#define SKIN_AVX2 __attribute__((target("avx2,fma")))

/* AVX2+FMA: the blended matrix is two registers, columns (0|1) and (2|3);
 * x' = c0 x + c1 y + c2 z + c3 LAST, as (c0 x | c1 y) + (c2 z | c3 LAST). */
SKIN_AVX2 SKIN_INLINE __m128 skin_avx2_xform(__m256 a, __m256 b, const float *x, __m256 last)
{
    __m256 xy = _mm256_blend_ps(_mm256_broadcast_ss(x), _mm256_broadcast_ss(x + 1), 0xF0);
    __m256 zl = _mm256_blend_ps(_mm256_broadcast_ss(x + 2), last, 0xF0);
    __m256 r = _mm256_fmadd_ps(a, xy, _mm256_mul_ps(b, zl));
    return _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
}

SKIN_AVX2 SKIN_INLINE void skin_lbs_avx2_vertex(const skin_arrays_t *a, size_t v, const int k,
                                                const bool nrm, const bool tan, const bool u16,
                                                __m128 *po, __m128 *no, __m128 *to)
{
    __m256 wv[SKIN_MAX_INFLUENCES];
    if (k == SKIN_MAX_INFLUENCES) {
        for (int i = 0; i < SKIN_MAX_INFLUENCES; i++)
            wv[i] = _mm256_broadcast_ss(a->w + 4 * v + i);
    } else {
        float w[4];
        skin_weights(a->w + 4 * v, k, w);
        for (int i = 0; i < SKIN_MAX_INFLUENCES; i++)
            wv[i] = _mm256_set1_ps(w[i]);
    }
    const float *m = a->mat[skin_joint_a(a, v, 0, u16)];
    __m256 c01 = _mm256_mul_ps(wv[0], _mm256_load_ps(m));
    __m256 c23 = _mm256_mul_ps(wv[0], _mm256_load_ps(m + 8));
    for (int i = 1; i < k; i++) {
        m = a->mat[skin_joint_a(a, v, i, u16)];
        c01 = _mm256_fmadd_ps(wv[i], _mm256_load_ps(m), c01);
        c23 = _mm256_fmadd_ps(wv[i], _mm256_load_ps(m + 8), c23);
    }
    *po = skin_avx2_xform(c01, c23, a->pos + 3 * v, _mm256_set1_ps(1.0f));
    if (nrm)
        *no = skin_avx2_xform(c01, c23, a->nrm + 3 * v, _mm256_setzero_ps());
    if (tan)
        *to = skin_avx2_xform(c01, c23, a->tan + 4 * v, _mm256_setzero_ps());
}

/* AVX2 version of skin_store_block: normals and tangents are transposed to
 * x, y, z of four lanes, normalised there (squares summed with FMA), and
 * written straight from that layout. */
SKIN_AVX2 SKIN_INLINE void skin_normalize4_soa(__m128 v[4], __m128 out[3])
{
    __m128 t0 = _mm_unpacklo_ps(v[0], v[1]), t1 = _mm_unpackhi_ps(v[0], v[1]);
    __m128 t2 = _mm_unpacklo_ps(v[2], v[3]), t3 = _mm_unpackhi_ps(v[2], v[3]);
    __m128 x = _mm_movelh_ps(t0, t2), y = _mm_movehl_ps(t2, t0), z = _mm_movelh_ps(t1, t3);
    __m128 len2 = _mm_fmadd_ps(z, z, _mm_fmadd_ps(y, y, _mm_mul_ps(x, x)));
    __m128 r = _mm_rsqrt_ps(len2);
    /* inv = r (3 - len2 r^2) / 2 */
    __m128 inv = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), r),
                            _mm_fnmadd_ps(_mm_mul_ps(len2, r), r, _mm_set1_ps(3.0f)));
    out[0] = _mm_mul_ps(x, inv);
    out[1] = _mm_mul_ps(y, inv);
    out[2] = _mm_mul_ps(z, inv);
}

SKIN_AVX2 SKIN_INLINE void skin_store_block_avx2(const skin_arrays_t *a, size_t v0, size_t count,
                                                 bool nrm, bool tan, __m128 pl[SKIN_BLOCK],
                                                 __m128 nl[SKIN_BLOCK], __m128 tl[SKIN_BLOCK])
{
    __m128 n3[3], t3[3];
    if (nrm)
        skin_normalize4_soa(nl, n3);
    if (tan)
        skin_normalize4_soa(tl, t3);
    if (count == SKIN_BLOCK) {
        skin_store4x3(a->opos + 3 * v0, pl);
        if (nrm)
            skin_store4x3_soa(a->onrm + 3 * v0, n3);
    } else {
        float tmp[12];
        skin_store4x3(tmp, pl);
        memcpy(a->opos + 3 * v0, tmp, sizeof(float) * 3 * count);
        if (nrm) {
            skin_store4x3_soa(tmp, n3);
            memcpy(a->onrm + 3 * v0, tmp, sizeof(float) * 3 * count);
        }
    }
    if (tan) {
        float tmp[12];
        skin_store4x3_soa(tmp, t3);
        for (size_t l = 0; l < count; l++) {
            float *dst = a->otan + 4 * (v0 + l);
            memcpy(dst, tmp + 3 * l, sizeof(float) * 3);
            /* Tangent w (handedness) rides along unchanged. */
            dst[3] = a->tan[4 * (v0 + l) + 3];
        }
    }
}

/* ---- AVX2 LBS block kernel (positions, optionally normals; no tangents).
 * Layout: the palette is prepared as rows, (r0 | r1) and (r2 | r2) per joint,
 * so blending a vertex's matrix is 2 FMAs per influence, as with columns.
 * The transform is then 3 multiplies per vertex, of (r0 | r1) by (p 1 | p 1),
 * (r0 | r1) by (n 0 | n 0) and (r2 | r2) by (p 1 | n 0); each input vector
 * is ONE 16-byte broadcast load (the per-vertex column kernel broadcasts x,
 * y and z apart, then blends and folds: 6 loads, 4 blends, 2 extracts and 2
 * adds for a position and a normal). Three rounds of horizontal adds over a block of 4 vertices
 * finish the dot products and leave the results in SoA: (x0..x3 | y0..y3) and
 * (pos z0..z3 | normal z0..z3), where normals are normalised 4 at a time and
 * from where skin_store4x3_soa writes packed xyz. A 16-byte load of the last
 * vertex's xyz reads one float past it, so the block that holds the array's
 * last vertex runs on padded copies (same arithmetic, same bits). */

/* _mm256_hadd_ps spelled as two shuffles and an add: measured no slower
 * than vhaddps here, and the lanes it pairs are visible. */
SKIN_AVX2 SKIN_INLINE __m256 skin_hadd_avx2(__m256 a, __m256 b)
{
    return _mm256_add_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}

/* The blended rows of vertex L of a block: weights W, joints J8 or J16 (4 per vertex). */
SKIN_AVX2 SKIN_INLINE void skin_lbs_avx2_blend_rows(const skin_arrays_t *a, const float *w,
                                                    const uint8_t *j8, const uint16_t *j16,
                                                    size_t l, const int k, const bool u16,
                                                    __m256 *r01, __m256 *r22)
{
    __m256 wv[SKIN_MAX_INFLUENCES];
    if (k == SKIN_MAX_INFLUENCES) {
        for (int i = 0; i < SKIN_MAX_INFLUENCES; i++)
            wv[i] = _mm256_broadcast_ss(w + 4 * l + i);
    } else {
        float wk[4];
        skin_weights(w + 4 * l, k, wk);
        for (int i = 0; i < SKIN_MAX_INFLUENCES; i++)
            wv[i] = _mm256_set1_ps(wk[i]);
    }
    /* uint16 indices are clamped onto the zero entry: skin_validate() is
     * O(1) and does not check them, so the clamp is the bounds check. */
    unsigned j[SKIN_MAX_INFLUENCES];
    for (int i = 0; i < k; i++) {
        unsigned x = u16 ? j16[4 * l + i] : j8[4 * l + i];
        j[i] = u16 && x > SKIN_MAX_JOINTS ? SKIN_MAX_JOINTS : x;
    }
    const float *m = a->mat[j[0]];
    __m256 b01 = _mm256_mul_ps(wv[0], _mm256_load_ps(m));
    __m256 b22 = _mm256_mul_ps(wv[0], _mm256_load_ps(m + 8));
    for (int i = 1; i < k; i++) {
        m = a->mat[j[i]];
        b01 = _mm256_fmadd_ps(wv[i], _mm256_load_ps(m), b01);
        b22 = _mm256_fmadd_ps(wv[i], _mm256_load_ps(m + 8), b22);
    }
    *r01 = b01;
    *r22 = b22;
}

/* Skins the 4 vertices whose inputs start at POS, NRM (3 floats each, plus
 * one readable float after the last), W, J8/J16; writes 12 floats to OPOS
 * (and ONRM). */
SKIN_AVX2 SKIN_INLINE void skin_lbs_avx2_block(const skin_arrays_t *a, const float *pos,
                                               const float *nrm, const float *w,
                                               const uint8_t *j8, const uint16_t *j16,
                                               const int k, const bool has_nrm, const bool u16,
                                               float *opos, float *onrm)
{
    /* Lane 3 of each half: 1 for a point (takes the translation), 0 for a direction. */
    const __m256 one3 = _mm256_setr_ps(0, 0, 0, 1, 0, 0, 0, 1);
    __m256 ap[SKIN_BLOCK], an[SKIN_BLOCK], bz[SKIN_BLOCK];
    for (size_t l = 0; l < SKIN_BLOCK; l++) {
        __m256 r01, r22;
        skin_lbs_avx2_blend_rows(a, w, j8, j16, l, k, u16, &r01, &r22);
        __m256 p = _mm256_blend_ps(_mm256_broadcast_ps((const __m128 *)(const void *)(pos + 3 * l)),
                                   one3, 0x88);
        ap[l] = _mm256_mul_ps(r01, p);
        __m256 pn = p;
        if (has_nrm) {
            __m256 n = _mm256_blend_ps(
                _mm256_broadcast_ps((const __m128 *)(const void *)(nrm + 3 * l)),
                _mm256_setzero_ps(), 0x88);
            an[l] = _mm256_mul_ps(r01, n);
            pn = _mm256_blend_ps(p, n, 0xF0);
        }
        bz[l] = _mm256_mul_ps(r22, pn);
    }
    /* hadd(hadd(v0, v1), hadd(v2, v3)) sums each 4-lane group: lane l of the
     * low half is row 0 . vertex l, of the high half row 1 (or 2) . vertex l. */
#define SKIN_HSUM4(v)                                                                              \
    skin_hadd_avx2(skin_hadd_avx2((v)[0], (v)[1]), skin_hadd_avx2((v)[2], (v)[3]))
    __m256 pxy = SKIN_HSUM4(ap);
    __m256 z = SKIN_HSUM4(bz);
    __m128 p3[3] = {_mm256_castps256_ps128(pxy), _mm256_extractf128_ps(pxy, 1),
                    _mm256_castps256_ps128(z)};
    skin_store4x3_soa(opos, p3);
    if (has_nrm) {
        __m256 nxy = SKIN_HSUM4(an);
        __m128 x = _mm256_castps256_ps128(nxy), y = _mm256_extractf128_ps(nxy, 1);
        __m128 zz = _mm256_extractf128_ps(z, 1);
        __m128 len2 = _mm_fmadd_ps(zz, zz, _mm_fmadd_ps(y, y, _mm_mul_ps(x, x)));
        __m128 r = _mm_rsqrt_ps(len2);
        /* inv = r (3 - len2 r^2) / 2: one Newton step, about 23 bits. */
        __m128 inv = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), r),
                                _mm_fnmadd_ps(_mm_mul_ps(len2, r), r, _mm_set1_ps(3.0f)));
        __m128 n3[3] = {_mm_mul_ps(x, inv), _mm_mul_ps(y, inv), _mm_mul_ps(zz, inv)};
        skin_store4x3_soa(onrm, n3);
    }
#undef SKIN_HSUM4
}

/* Software prefetch distance of the block loop's input streams, in
 * vertices: 768 bytes of positions ahead. Measured +3% at 90k vertices
 * (arrays in L3), where the hardware prefetcher alone falls behind. */
#define SKIN_PREFETCH_VERTICES 64
/* Runs skin_lbs_avx2_block over [BEGIN, END) of a job of N vertices. */
SKIN_AVX2 SKIN_INLINE void skin_lbs_avx2_rows(const skin_arrays_t *a, size_t n, size_t begin,
                                              size_t end, const int k, const bool nrm,
                                              const bool u16)
{
    size_t v0 = begin;
    /* Full blocks whose 16-byte loads stay inside the arrays. */
    for (; v0 + SKIN_BLOCK <= end && v0 + SKIN_BLOCK < n; v0 += SKIN_BLOCK) {
        /* Clamped: an address past the arrays is not formed, even unread. */
        size_t pf = v0 + SKIN_PREFETCH_VERTICES < n ? v0 + SKIN_PREFETCH_VERTICES : n - 1;
        _mm_prefetch((const char *)(a->pos + 3 * pf), _MM_HINT_T0);
        if (nrm)
            _mm_prefetch((const char *)(a->nrm + 3 * pf), _MM_HINT_T0);
        _mm_prefetch((const char *)(a->w + 4 * pf), _MM_HINT_T0);
        skin_lbs_avx2_block(a, a->pos + 3 * v0, nrm ? a->nrm + 3 * v0 : NULL, a->w + 4 * v0,
                            u16 ? NULL : a->j8 + 4 * v0, u16 ? a->j16 + 4 * v0 : NULL, k, nrm,
                            u16, a->opos + 3 * v0, nrm ? a->onrm + 3 * v0 : NULL);
    }
    if (v0 >= end)
        return;
    /* The array's last block (1..4 vertices): padded copies, the pad lanes
     * repeating the last vertex (finite results, never stored). */
    size_t count = end - v0;
    float ip[3 * SKIN_BLOCK + 1] = {0}, in[3 * SKIN_BLOCK + 1] = {0}, iw[4 * SKIN_BLOCK];
    float op[3 * SKIN_BLOCK], on[3 * SKIN_BLOCK];
    uint8_t j8[4 * SKIN_BLOCK] = {0};
    uint16_t j16[4 * SKIN_BLOCK] = {0};
    for (size_t l = 0; l < SKIN_BLOCK; l++) {
        size_t v = v0 + (l < count ? l : count - 1);
        memcpy(ip + 3 * l, a->pos + 3 * v, sizeof(float) * 3);
        if (nrm)
            memcpy(in + 3 * l, a->nrm + 3 * v, sizeof(float) * 3);
        memcpy(iw + 4 * l, a->w + 4 * v, sizeof(float) * 4);
        if (u16)
            memcpy(j16 + 4 * l, a->j16 + 4 * v, sizeof(uint16_t) * 4);
        else
            memcpy(j8 + 4 * l, a->j8 + 4 * v, sizeof(uint8_t) * 4);
    }
    skin_lbs_avx2_block(a, ip, in, iw, j8, j16, k, nrm, u16, op, on);
    memcpy(a->opos + 3 * v0, op, sizeof(float) * 3 * count);
    if (nrm)
        memcpy(a->onrm + 3 * v0, on, sizeof(float) * 3 * count);
}

SKIN_AVX2 SKIN_INLINE void skin_lbs_avx2_kernel(const skin_ctx_t *c, int begin, int end,
                                                const int k, const bool nrm, const bool tan,
                                                const bool u16)
{
    const skin_arrays_t a = skin_arrays(c);
    if (tan) {
        SKIN_BLOCK_LOOP(skin_lbs_avx2_vertex, skin_store_block_avx2, &a, begin, end, k, nrm, tan,
                        u16);
    } else {
        skin_lbs_avx2_rows(&a, (size_t)c->job->vertex_count, (size_t)begin, (size_t)end, k, nrm,
                           u16);
    }
}

/* ---- DQS in SIMD: each vertex blends its dual quaternions in registers;
 * blocks of four vertices are then transposed so that normalisation and the
 * rigid transform run on four vertices per instruction (SoA). The transform
 * mirrors the scalar reference's operation order (mul/add, no FMA). */

/* Hemisphere signs: lane i of the result is W[i], negated when the real part
 * of influence i points away from influence 0's (dot < 0, as in the scalar). */
SKIN_INLINE __m128 skin_dq_signed_weights(__m128 w, const __m128 r[4])
{
    __m128 p0 = _mm_mul_ps(r[0], r[0]), p1 = _mm_mul_ps(r[0], r[1]);
    __m128 p2 = _mm_mul_ps(r[0], r[2]), p3 = _mm_mul_ps(r[0], r[3]);
    __m128 t0 = _mm_unpacklo_ps(p0, p1), t1 = _mm_unpackhi_ps(p0, p1);
    __m128 t2 = _mm_unpacklo_ps(p2, p3), t3 = _mm_unpackhi_ps(p2, p3);
    __m128 x = _mm_movelh_ps(t0, t2), y = _mm_movehl_ps(t2, t0);
    __m128 z = _mm_movelh_ps(t1, t3), ww = _mm_movehl_ps(t3, t1);
    __m128 dot = _mm_add_ps(_mm_add_ps(_mm_add_ps(x, y), z), ww);
    __m128 neg = _mm_and_ps(_mm_cmplt_ps(dot, _mm_setzero_ps()), _mm_set1_ps(-0.0f));
    return _mm_xor_ps(w, neg);
}

/* The kept (renormalised) weights and joint rows of vertex V; influences
 * past K repeat influence 0 with weight 0 and are never blended. */
SKIN_INLINE __m128 skin_dq_inputs(const skin_arrays_t *a, size_t v, const int k, const bool u16,
                                  const float *q[4])
{
    float w[4];
    skin_weights(a->w + 4 * v, k, w);
    for (int i = 0; i < 4; i++)
        q[i] = a->dq[skin_joint_a(a, v, i < k ? i : 0, u16)];
    __m128 r[4] = {_mm_load_ps(q[0]), _mm_load_ps(q[1]), _mm_load_ps(q[2]), _mm_load_ps(q[3])};
    return skin_dq_signed_weights(_mm_loadu_ps(w), r);
}

/* SoA block: 4 vertices, real (rx..rw) and dual (dx..dw) parts, unnormalised. */
typedef struct skin_dq4_t {
    __m128 r[4], d[4];
} skin_dq4_t;

/* v' = v + 2 u x (u x v + w v) for 4 lanes; same order as SKIN_QROT. */
SKIN_INLINE void skin_qrot4(const __m128 r[4], const __m128 in[3], __m128 out[3])
{
#define M_ _mm_mul_ps
#define A_ _mm_add_ps
#define S_ _mm_sub_ps
    __m128 two = _mm_set1_ps(2.0f);
    __m128 cx = A_(S_(M_(r[1], in[2]), M_(r[2], in[1])), M_(r[3], in[0]));
    __m128 cy = A_(S_(M_(r[2], in[0]), M_(r[0], in[2])), M_(r[3], in[1]));
    __m128 cz = A_(S_(M_(r[0], in[1]), M_(r[1], in[0])), M_(r[3], in[2]));
    out[0] = A_(in[0], M_(two, S_(M_(r[1], cz), M_(r[2], cy))));
    out[1] = A_(in[1], M_(two, S_(M_(r[2], cx), M_(r[0], cz))));
    out[2] = A_(in[2], M_(two, S_(M_(r[0], cy), M_(r[1], cx))));
}

/* Normalises, transforms and stores one block of 4 vertices. POS/NRM hold
 * 12 floats, TAN 16 (as do the outputs). */
SKIN_INLINE void skin_dq_block(skin_dq4_t *q, const float *pos, const float *nrm, const float *tan,
                               bool has_nrm, bool has_tan, float *opos, float *onrm, float *otan)
{
    __m128 *r = q->r, *d = q->d;
    __m128 len2 = A_(A_(A_(M_(r[0], r[0]), M_(r[1], r[1])), M_(r[2], r[2])), M_(r[3], r[3]));
    __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(len2));
    for (int i = 0; i < 4; i++) {
        r[i] = M_(r[i], inv);
        d[i] = M_(d[i], inv);
    }
    __m128 two = _mm_set1_ps(2.0f);
    __m128 t[3] = {
        M_(two, S_(A_(S_(M_(r[3], d[0]), M_(d[3], r[0])), M_(r[1], d[2])), M_(r[2], d[1]))),
        M_(two, S_(A_(S_(M_(r[3], d[1]), M_(d[3], r[1])), M_(r[2], d[0])), M_(r[0], d[2]))),
        M_(two, S_(A_(S_(M_(r[3], d[2]), M_(d[3], r[2])), M_(r[0], d[1])), M_(r[1], d[0])))};
    __m128 in[3], out[3];
    skin_load4x3(pos, in);
    skin_qrot4(r, in, out);
    for (int i = 0; i < 3; i++)
        out[i] = A_(out[i], t[i]);
    skin_store4x3_soa(opos, out);
    if (has_nrm) {
        skin_load4x3(nrm, in);
        skin_qrot4(r, in, out);
        skin_store4x3_soa(onrm, out);
    }
    if (has_tan) {
        __m128 t0 = _mm_loadu_ps(tan), t1 = _mm_loadu_ps(tan + 4);
        __m128 t2 = _mm_loadu_ps(tan + 8), t3 = _mm_loadu_ps(tan + 12);
        _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
        in[0] = t0;
        in[1] = t1;
        in[2] = t2;
        skin_qrot4(r, in, out);
        /* t3 (handedness) rides along unchanged. */
        t0 = out[0];
        t1 = out[1];
        t2 = out[2];
        _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
        _mm_storeu_ps(otan, t0);
        _mm_storeu_ps(otan + 4, t1);
        _mm_storeu_ps(otan + 8, t2);
        _mm_storeu_ps(otan + 12, t3);
    }
#undef M_
#undef A_
#undef S_
}

/* Blends lane L of a block with SSE2: two registers per dual quaternion. */
SKIN_INLINE void skin_dq_blend_sse2(const skin_arrays_t *a, size_t v, const int k, const bool u16,
                                    __m128 *real, __m128 *dual)
{
    const float *q[4];
    __m128 w = skin_dq_inputs(a, v, k, u16, q);
    __m128 wi = _mm_shuffle_ps(w, w, 0x00);
    __m128 br = _mm_mul_ps(wi, _mm_load_ps(q[0]));
    __m128 bd = _mm_mul_ps(wi, _mm_load_ps(q[0] + 4));
    if (k > 1) {
        wi = _mm_shuffle_ps(w, w, 0x55);
        br = _mm_add_ps(br, _mm_mul_ps(wi, _mm_load_ps(q[1])));
        bd = _mm_add_ps(bd, _mm_mul_ps(wi, _mm_load_ps(q[1] + 4)));
    }
    if (k > 2) {
        wi = _mm_shuffle_ps(w, w, 0xAA);
        br = _mm_add_ps(br, _mm_mul_ps(wi, _mm_load_ps(q[2])));
        bd = _mm_add_ps(bd, _mm_mul_ps(wi, _mm_load_ps(q[2] + 4)));
    }
    if (k > 3) {
        wi = _mm_shuffle_ps(w, w, 0xFF);
        br = _mm_add_ps(br, _mm_mul_ps(wi, _mm_load_ps(q[3])));
        bd = _mm_add_ps(bd, _mm_mul_ps(wi, _mm_load_ps(q[3] + 4)));
    }
    *real = br;
    *dual = bd;
}

/* Transposes 4 per-vertex (real, dual) pairs into a SoA block. */
SKIN_INLINE void skin_dq_transpose_sse2(__m128 real[4], __m128 dual[4], skin_dq4_t *q)
{
    _MM_TRANSPOSE4_PS(real[0], real[1], real[2], real[3]);
    _MM_TRANSPOSE4_PS(dual[0], dual[1], dual[2], dual[3]);
    for (int i = 0; i < 4; i++) {
        q->r[i] = real[i];
        q->d[i] = dual[i];
    }
}

/* Runs BLOCK_FN(a, v0, count, ...) on full blocks, then on a padded tail
 * copied through small buffers so that the last vertices see the same code. */
#define SKIN_DQ_LOOP(BLEND_BLOCK, a, begin, end, k, nrm, tan, u16)                                \
    do {                                                                                           \
        size_t v0_ = (size_t)(begin), end_ = (size_t)(end);                                        \
        for (; v0_ + SKIN_BLOCK <= end_; v0_ += SKIN_BLOCK) {                                      \
            skin_dq4_t q_;                                                                         \
            BLEND_BLOCK(a, v0_, SKIN_BLOCK, k, u16, &q_);                                          \
            skin_dq_block(&q_, (a)->pos + 3 * v0_, nrm ? (a)->nrm + 3 * v0_ : NULL,                \
                          tan ? (a)->tan + 4 * v0_ : NULL, nrm, tan, (a)->opos + 3 * v0_,          \
                          nrm ? (a)->onrm + 3 * v0_ : NULL, tan ? (a)->otan + 4 * v0_ : NULL);     \
        }                                                                                          \
        if (v0_ < end_) {                                                                          \
            size_t n_ = end_ - v0_;                                                                \
            float ip_[12] = {0}, in_[12] = {0}, it_[16] = {0}, op_[12], on_[12], ot_[16];          \
            memcpy(ip_, (a)->pos + 3 * v0_, sizeof(float) * 3 * n_);                               \
            if (nrm)                                                                               \
                memcpy(in_, (a)->nrm + 3 * v0_, sizeof(float) * 3 * n_);                           \
            if (tan)                                                                               \
                memcpy(it_, (a)->tan + 4 * v0_, sizeof(float) * 4 * n_);                           \
            skin_dq4_t q_;                                                                         \
            BLEND_BLOCK(a, v0_, n_, k, u16, &q_);                                                  \
            skin_dq_block(&q_, ip_, in_, it_, nrm, tan, op_, on_, ot_);                            \
            memcpy((a)->opos + 3 * v0_, op_, sizeof(float) * 3 * n_);                              \
            if (nrm)                                                                               \
                memcpy((a)->onrm + 3 * v0_, on_, sizeof(float) * 3 * n_);                          \
            if (tan)                                                                               \
                memcpy((a)->otan + 4 * v0_, ot_, sizeof(float) * 4 * n_);                          \
        }                                                                                          \
    } while (0)

/* Lanes past COUNT get the identity (no NaN from 0/0; never stored). */
SKIN_INLINE void skin_dq_blend_block_sse2(const skin_arrays_t *a, size_t v0, size_t count,
                                          const int k, const bool u16, skin_dq4_t *q)
{
    __m128 real[4], dual[4];
    for (size_t l = 0; l < SKIN_BLOCK; l++) {
        if (l < count) {
            skin_dq_blend_sse2(a, v0 + l, k, u16, &real[l], &dual[l]);
        } else {
            real[l] = _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f);
            dual[l] = _mm_setzero_ps();
        }
    }
    skin_dq_transpose_sse2(real, dual, q);
}

SKIN_INLINE void skin_dqs_sse2_kernel(const skin_ctx_t *c, int begin, int end, const int k,
                                      const bool nrm, const bool tan, const bool u16)
{
    const skin_arrays_t a = skin_arrays(c);
    SKIN_DQ_LOOP(skin_dq_blend_block_sse2, &a, begin, end, k, nrm, tan, u16);
}

/* AVX2: one register per dual quaternion, FMA accumulation; the 4x8 block
 * transposes with in-lane shuffles into (real | dual) halves. */
SKIN_AVX2 SKIN_INLINE __m256 skin_dq_blend_avx2(const skin_arrays_t *a, size_t v, const int k,
                                                const bool u16)
{
    const float *q[4];
    __m128 w = skin_dq_inputs(a, v, k, u16, q);
    __m256 w8 = _mm256_castps128_ps256(w);
    __m256 b = _mm256_mul_ps(_mm256_permutevar8x32_ps(w8, _mm256_set1_epi32(0)),
                             _mm256_load_ps(q[0]));
    for (int i = 1; i < k; i++)
        b = _mm256_fmadd_ps(_mm256_permutevar8x32_ps(w8, _mm256_set1_epi32(i)),
                            _mm256_load_ps(q[i]), b);
    return b;
}

SKIN_AVX2 SKIN_INLINE void skin_dq_blend_block_avx2(const skin_arrays_t *a, size_t v0,
                                                    size_t count, const int k, const bool u16,
                                                    skin_dq4_t *q)
{
    __m256 b[SKIN_BLOCK];
    for (size_t l = 0; l < SKIN_BLOCK; l++)
        b[l] = l < count ? skin_dq_blend_avx2(a, v0 + l, k, u16)
                         : _mm256_setr_ps(0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f);
    __m256 t0 = _mm256_unpacklo_ps(b[0], b[1]), t1 = _mm256_unpackhi_ps(b[0], b[1]);
    __m256 t2 = _mm256_unpacklo_ps(b[2], b[3]), t3 = _mm256_unpackhi_ps(b[2], b[3]);
    __m256 x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 w = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    q->r[0] = _mm256_castps256_ps128(x);
    q->r[1] = _mm256_castps256_ps128(y);
    q->r[2] = _mm256_castps256_ps128(z);
    q->r[3] = _mm256_castps256_ps128(w);
    q->d[0] = _mm256_extractf128_ps(x, 1);
    q->d[1] = _mm256_extractf128_ps(y, 1);
    q->d[2] = _mm256_extractf128_ps(z, 1);
    q->d[3] = _mm256_extractf128_ps(w, 1);
}

SKIN_AVX2 SKIN_INLINE void skin_dqs_avx2_kernel(const skin_ctx_t *c, int begin, int end,
                                                const int k, const bool nrm, const bool tan,
                                                const bool u16)
{
    const skin_arrays_t a = skin_arrays(c);
    SKIN_DQ_LOOP(skin_dq_blend_block_avx2, &a, begin, end, k, nrm, tan, u16);
}

/* One non-inlined copy of KERNEL per (influences, normals/tangents, index
 * width), so the per-vertex loop has no flag tests. NT: 0 = positions only,
 * 1 = + normals, 2 = + normals and tangents. */
#define SKIN_V(P, ATTR, KERNEL, K, NT, W)                                                          \
    ATTR static void P##_##K##_##NT##_##W(const skin_ctx_t *c, int b, int e)                       \
    {                                                                                              \
        KERNEL(c, b, e, K, (NT) >= 1, (NT) >= 2, (W) != 0);                                        \
    }
#define SKIN_V_W(P, ATTR, KERNEL, K, NT) SKIN_V(P, ATTR, KERNEL, K, NT, 0) SKIN_V(P, ATTR, KERNEL, K, NT, 1)
#define SKIN_V_NT(P, ATTR, KERNEL, K)                                                              \
    SKIN_V_W(P, ATTR, KERNEL, K, 0) SKIN_V_W(P, ATTR, KERNEL, K, 1) SKIN_V_W(P, ATTR, KERNEL, K, 2)
#define SKIN_T_NT(P, K)                                                                            \
    {{P##_##K##_0_0, P##_##K##_0_1}, {P##_##K##_1_0, P##_##K##_1_1}, {P##_##K##_2_0, P##_##K##_2_1}}
#define SKIN_VARIANTS(P, ATTR, KERNEL)                                                             \
    SKIN_V_NT(P, ATTR, KERNEL, 1)                                                                  \
    SKIN_V_NT(P, ATTR, KERNEL, 2)                                                                  \
    SKIN_V_NT(P, ATTR, KERNEL, 3)                                                                  \
    SKIN_V_NT(P, ATTR, KERNEL, 4)                                                                  \
    static const skin_range_fn P##_table[4][3][2] = {SKIN_T_NT(P, 1), SKIN_T_NT(P, 2),            \
                                                     SKIN_T_NT(P, 3), SKIN_T_NT(P, 4)};

#define SKIN_NO_ATTR
SKIN_VARIANTS(skin_lbs_sse2, SKIN_NO_ATTR, skin_lbs_sse2_kernel)
SKIN_VARIANTS(skin_lbs_avx2, SKIN_AVX2, skin_lbs_avx2_kernel)
SKIN_VARIANTS(skin_dqs_sse2, SKIN_NO_ATTR, skin_dqs_sse2_kernel)
SKIN_VARIANTS(skin_dqs_avx2, SKIN_AVX2, skin_dqs_avx2_kernel)

#endif /* SKIN_X86 */

/* ------------------------------------------------------------- dispatch */

static skin_range_fn skin_select(const skin_job_t *job, skin_isa isa)
{
    if (job->method == SKIN_LBS_POINTS)
        return skin_lbs_points_scalar;
#if SKIN_X86
    if (isa != SKIN_ISA_SCALAR) {
        int k = job->influences - 1;
        int nt = job->tangents ? 2 : job->normals ? 1 : 0;
        int w = job->joints_u16 ? 1 : 0;
        bool avx2 = isa == SKIN_ISA_AVX2;
        if (job->method == SKIN_LBS_MATRIX)
            return avx2 ? skin_lbs_avx2_table[k][nt][w] : skin_lbs_sse2_table[k][nt][w];
        return avx2 ? skin_dqs_avx2_table[k][nt][w] : skin_dqs_sse2_table[k][nt][w];
    }
#else
    (void)isa;
#endif
    return job->method == SKIN_LBS_MATRIX ? skin_lbs_matrix_scalar : skin_dqs_scalar;
}

static skin_isa skin_resolve_isa(const skin_job_t *job)
{
    if (job->method == SKIN_LBS_POINTS)
        return SKIN_ISA_SCALAR;
    return job->isa == SKIN_ISA_AUTO ? skin_isa_best() : job->isa;
}

bool skin_run(const skin_job_t *job)
{
    if (!skin_validate(job))
        return false;
    if (job->vertex_count == 0)
        return true;
    skin_isa isa = skin_resolve_isa(job);
    skin_ctx_t ctx = {.job = job, .prep = NULL, .isa = isa};
    if (isa == SKIN_ISA_SCALAR) {
        skin_select(job, isa)(&ctx, 0, job->vertex_count);
        return true;
    }
    /* 25 kB on the stack: the SIMD layout of this call's palette. */
    skin_prepared_t prep;
    skin_prepare(job, isa, &prep);
    ctx.prep = &prep;
    skin_select(job, isa)(&ctx, 0, job->vertex_count);
    return true;
}

/* ----------------------------------------------------------------- pool */

/* The pool hands out chunks of SKIN_CHUNK vertices from one atomic counter
 * (dynamic scheduling): on a busy machine a descheduled worker costs at most
 * the chunk it holds, instead of a fixed half of the mesh. Chunks start on
 * multiples of SKIN_CHUNK (a multiple of SKIN_BLOCK), and every vertex runs
 * the same arithmetic wherever it falls, so results are bit-exact with
 * skin_run() whatever thread takes which chunk. */
#define SKIN_CHUNK 1024
/* Spins of the waiting caller before it yields its core to the workers. */
#define SKIN_SPIN_BEFORE_YIELD 256
/* next = job:24 | chunk count:20 | next chunk:20 (2^20 chunks of 1024
 * vertices cover every vertex count skin_validate() accepts). */
#define SKIN_STATE_BITS 20
#define SKIN_STATE_MASK ((1u << SKIN_STATE_BITS) - 1u)
#define SKIN_GEN_MASK 0xFFFFFFu

typedef struct skin_worker_t {
    struct skin_pool_t *pool;
} skin_worker_t;

struct skin_pool_t {
    skin_prepared_t prep; /* first member: keeps its 64-byte alignment */
    skin_ctx_t ctx;
    skin_range_fn fn;
    int vertex_count;
    uint32_t chunk_count;
    /* Job number, chunk count and next chunk in one word (SKIN_STATE): a
     * worker that wakes late for job N can never take a chunk of job N + 1,
     * and reads nothing else before it owns a chunk. */
    _Alignas(64) _Atomic uint64_t next;
    _Alignas(64) _Atomic uint32_t chunks_done;
    int thread_count; /* including the calling thread */
    int started;      /* worker threads running */
    pthread_t threads[SKIN_POOL_MAX_THREADS];
    skin_worker_t workers[SKIN_POOL_MAX_THREADS];
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    uint32_t generation; /* job number, bumped once per job */
    bool quit;
};

/* Takes and skins chunks of job GEN until none are left. */
static void skin_pool_drain(skin_pool_t *pool, uint32_t gen)
{
    uint64_t x = atomic_load_explicit(&pool->next, memory_order_acquire);
    for (;;) {
        uint32_t idx = (uint32_t)x & SKIN_STATE_MASK;
        uint32_t count = (uint32_t)(x >> SKIN_STATE_BITS) & SKIN_STATE_MASK;
        if ((uint32_t)(x >> (2 * SKIN_STATE_BITS)) != (gen & SKIN_GEN_MASK) || idx >= count)
            return;
        if (!atomic_compare_exchange_weak_explicit(&pool->next, &x, x + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        int b = (int)idx * SKIN_CHUNK;
        int e = b + SKIN_CHUNK < pool->vertex_count ? b + SKIN_CHUNK : pool->vertex_count;
        pool->fn(&pool->ctx, b, e);
        atomic_fetch_add_explicit(&pool->chunks_done, 1, memory_order_release);
        x = atomic_load_explicit(&pool->next, memory_order_acquire);
    }
}

static void *skin_worker_main(void *arg)
{
    skin_worker_t *w = arg;
    skin_pool_t *pool = w->pool;
    /* Jobs are numbered from 1; a job posted before this thread got here
     * still counts as new. */
    uint32_t seen = 0;
    pthread_mutex_lock(&pool->mutex);
    for (;;) {
        while (!pool->quit && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->mutex);
        if (pool->quit)
            break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->mutex);
        skin_pool_drain(pool, seen);
        pthread_mutex_lock(&pool->mutex);
    }
    pthread_mutex_unlock(&pool->mutex);
    return NULL;
}

static void skin_pool_stop(skin_pool_t *pool)
{
    pthread_mutex_lock(&pool->mutex);
    pool->quit = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    for (int i = 0; i < pool->started; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->mutex);
}

skin_pool_t *skin_pool_create(int thread_count)
{
    if (thread_count < 1 || thread_count > SKIN_POOL_MAX_THREADS) {
        log_error("skin: pool of %d threads (1..%d)", thread_count, SKIN_POOL_MAX_THREADS);
        return NULL;
    }
    size_t size = (sizeof(skin_pool_t) + 63) / 64 * 64;
    skin_pool_t *pool = aligned_alloc(64, size);
    if (!pool) {
        log_error("skin: out of memory for the thread pool");
        return NULL;
    }
    memset(pool, 0, sizeof *pool);
    atomic_init(&pool->next, 0);
    atomic_init(&pool->chunks_done, 0);
    pool->thread_count = thread_count;
    pthread_mutex_init(&pool->mutex, NULL);
    pthread_cond_init(&pool->wake, NULL);
    for (int i = 0; i + 1 < thread_count; i++) {
        pool->workers[i] = (skin_worker_t){.pool = pool};
        if (pthread_create(&pool->threads[i], NULL, skin_worker_main, &pool->workers[i]) != 0) {
            log_error("skin: could not start skinning thread %d of %d", i + 1, thread_count);
            skin_pool_stop(pool);
            free(pool);
            return NULL;
        }
        pool->started++;
    }
    return pool;
}

void skin_pool_destroy(skin_pool_t *pool)
{
    if (!pool)
        return;
    skin_pool_stop(pool);
    free(pool);
}

int skin_pool_thread_count(const skin_pool_t *pool) { return pool ? pool->thread_count : 0; }

bool skin_pool_run(skin_pool_t *pool, const skin_job_t *job)
{
    if (!pool) {
        log_error("skin: no pool");
        return false;
    }
    if (!skin_validate(job))
        return false;
    int n = job->vertex_count;
    if (n == 0)
        return true;
    skin_isa isa = skin_resolve_isa(job);
    if (isa != SKIN_ISA_SCALAR)
        skin_prepare(job, isa, &pool->prep);
    pool->ctx = (skin_ctx_t){.job = job, .prep = &pool->prep, .isa = isa};
    pool->fn = skin_select(job, isa);
    pool->vertex_count = n;
    pool->chunk_count = (uint32_t)((n + SKIN_CHUNK - 1) / SKIN_CHUNK);
    atomic_store_explicit(&pool->chunks_done, 0, memory_order_relaxed);
    /* Small meshes, or no workers: one range on this thread. */
    if (pool->started == 0 || pool->chunk_count == 1) {
        pool->fn(&pool->ctx, 0, n);
        return true;
    }
    pthread_mutex_lock(&pool->mutex);
    uint32_t gen = ++pool->generation;
    atomic_store_explicit(&pool->next,
                          ((uint64_t)(gen & SKIN_GEN_MASK) << (2 * SKIN_STATE_BITS)) |
                              ((uint64_t)pool->chunk_count << SKIN_STATE_BITS),
                          memory_order_release);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    skin_pool_drain(pool, gen);
    /* Every chunk is taken; wait for those still running on workers. */
    for (int spins = 0; atomic_load_explicit(&pool->chunks_done, memory_order_acquire) <
                        pool->chunk_count;
         spins++) {
        if (spins >= SKIN_SPIN_BEFORE_YIELD)
            sched_yield();
    }
    return true;
}
