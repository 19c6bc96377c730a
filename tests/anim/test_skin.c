/* Tests for skin: every fast path against the scalar reference on random
 * poses and weights, renormalising and prenormalized, threads against one
 * thread (bit-exact), truncation renormalisation, what prenormalized skips,
 * DQS against LBS, the candy-wrapper twist, kernel names, and validation.
 * Relative error of a vertex = |a - b| / max(|b|, 1), the largest over the mesh.
 * Two data sets: "skinned" is shaped like a real character (influences on a
 * joint and its hierarchy neighbours, vertices near their joint, local
 * rotations up to 90 degrees); "stress" takes any 4 joints and any rotation.
 * On the stress set the blended normals are ill-conditioned and the scalar
 * reference itself is off the exact (double) result by up to ~4e-6, so the
 * SIMD paths (FMA rounding) are held to 1e-5 there and to 1e-6 on the skinned set. */
#include "anim/pose.h"
#include "anim/skel.h"
#include "anim/skin.h"
#include "core/log.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Odd on purpose: exercises ranges that do not split evenly. */
#define NV 5003

static uint32_t g_rng = 2463534242u;

/* xorshift32: deterministic across platforms. */
static float rnd(float lo, float hi)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return lo + (hi - lo) * (float)(g_rng >> 8) * (1.0f / 16777216.0f);
}

static void random_unit(float v[3])
{
    float len;
    do {
        v[0] = rnd(-1, 1);
        v[1] = rnd(-1, 1);
        v[2] = rnd(-1, 1);
        len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    } while (len < 0.1f || len > 1.0f);
    v[0] /= len;
    v[1] /= len;
    v[2] /= len;
}

typedef struct mesh_t {
    float pos[NV * 3], nrm[NV * 3], tan[NV * 4], w[NV * 4];
    uint8_t j8[NV * 4];
    uint16_t j16[NV * 4];
} mesh_t;

typedef struct out_t {
    float pos[NV * 3], nrm[NV * 3], tan[NV * 4];
} out_t;

static skel_t g_skel;
static pose_bind_t g_bind;
static mesh_t g_mesh;
/* g_mesh's weights normalised for the first K (others 0), for prenormalized jobs. */
static float g_wk[SKIN_MAX_INFLUENCES][NV * 4];

static void weights_for_counts(const mesh_t *m)
{
    for (int k = 1; k <= SKIN_MAX_INFLUENCES; k++)
        for (int v = 0; v < NV; v++) {
            float s = 0;
            for (int i = 0; i < k; i++)
                s += m->w[4 * v + i];
            for (int i = 0; i < 4; i++)
                g_wk[k - 1][4 * v + i] = i < k ? m->w[4 * v + i] / s : 0.0f;
        }
}
static float g_pal[SKEL_MAX_JOINTS][12], g_dq[SKEL_MAX_JOINTS][8];

/* A joint near J in the hierarchy: itself, its parent, grandparent or a child. */
static int neighbour_joint(int j)
{
    int pick = (int)rnd(0, 4);
    int p = g_skel.joint_parent[j];
    if (pick == 1 && p >= 0)
        return p;
    if (pick == 2 && p >= 0 && g_skel.joint_parent[p] >= 0)
        return g_skel.joint_parent[p];
    if (pick == 3)
        for (int c = j + 1; c < g_skel.joint_count; c++)
            if (g_skel.joint_parent[c] == j)
                return c;
    return j;
}

static void make_mesh(mesh_t *m, bool stress)
{
    int joint_count = g_skel.joint_count;
    float rest[SKEL_MAX_JOINTS][3];
    skel_rest_positions(&g_skel, rest);
    for (int v = 0; v < NV; v++) {
        int base = (int)rnd(0, (float)joint_count);
        base = base < joint_count ? base : joint_count - 1;
        for (int i = 0; i < 3; i++)
            m->pos[3 * v + i] = stress ? rnd(-90, 90) : rest[base][i] + rnd(-15, 15);
        random_unit(m->nrm + 3 * v);
        random_unit(m->tan + 4 * v);
        m->tan[4 * v + 3] = rnd(0, 1) < 0.5f ? -1.0f : 1.0f;
        float w[4], sum = 0;
        for (int i = 0; i < 4; i++)
            sum += w[i] = rnd(0.01f, 1.0f);
        /* Sort descending, then normalise. */
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++)
                if (w[b] > w[a]) {
                    float t = w[a];
                    w[a] = w[b];
                    w[b] = t;
                }
        for (int i = 0; i < 4; i++) {
            m->w[4 * v + i] = w[i] / sum;
            int j = stress ? (int)rnd(0, (float)joint_count) : neighbour_joint(base);
            m->j8[4 * v + i] = (uint8_t)(j < joint_count ? j : joint_count - 1);
            m->j16[4 * v + i] = m->j8[4 * v + i];
        }
    }
}

/* Local rotations up to MAX_ANGLE_RAD about random axes, a random root. */
static void random_palette_max(float max_angle_rad)
{
    static pose_t pose;
    pose_rest(&g_skel, &pose);
    for (int j = 0; j < g_skel.joint_count; j++) {
        float axis[3];
        random_unit(axis);
        pose_quat_axis_angle(axis, rnd(-max_angle_rad, max_angle_rad), pose.rot[j]);
    }
    pose.trans[0][0] = rnd(-300, 300);
    pose.trans[0][1] = rnd(50, 120);
    pose.trans[0][2] = rnd(-300, 300);
    float model[SKEL_MAX_JOINTS][12], rot[SKEL_MAX_JOINTS][4];
    pose_model_job_t mj = {
        .skel = &g_skel, .local = &pose, .capacity = SKEL_MAX_JOINTS, .model_mat = model, .model_rot = rot};
    pose_palette_job_t pj = {.bind = &g_bind,
                             .joint_count = g_skel.joint_count,
                             .model_mat = (const float(*)[12])model,
                             .model_rot = (const float(*)[4])rot,
                             .palette = g_pal,
                             .dq = g_dq};
    if (!pose_model_run(&mj) || !pose_palette_run(&pj))
        check_failed++;
}

static void random_palette(void) { random_palette_max(1.57f); }

/* Attributes skinned by make_job(): 0 positions, 1 + normals, 2 + tangents.
 * Each set runs its own kernel (AVX2 LBS: a block kernel without tangents). */
static int g_attrs = 2;

static skin_job_t make_job(skin_method_t method, skin_isa_t isa, int k, bool u16, out_t *o)
{
    skin_job_t job = {.vertex_count = NV,
                      .influences = k,
                      .method = method,
                      .isa = isa,
                      .positions = g_mesh.pos,
                      .normals = g_attrs >= 1 ? g_mesh.nrm : NULL,
                      .tangents = g_attrs >= 2 ? g_mesh.tan : NULL,
                      .joints_u8 = u16 ? NULL : g_mesh.j8,
                      .joints_u16 = u16 ? g_mesh.j16 : NULL,
                      .weights = g_mesh.w,
                      .joint_count = g_skel.joint_count,
                      .palette = &g_pal[0][0],
                      .dq_palette = &g_dq[0][0],
                      .out_positions = o->pos,
                      .out_normals = o->nrm,
                      .out_tangents = o->tan};
    return job;
}

/* make_job, prenormalized (PRENORM) with the weights normalised for K. */
static skin_job_t make_job_w(skin_method_t method, skin_isa_t isa, int k, bool u16, bool prenorm, out_t *o)
{
    skin_job_t job = make_job(method, isa, k, u16, o);
    if (prenorm) {
        job.prenormalized = true;
        job.weights = g_wk[k - 1];
    }
    return job;
}

static double rel_err(const float *a, const float *b, int n, int stride)
{
    double worst = 0;
    for (int v = 0; v < n; v++) {
        const float *x = a + stride * v, *y = b + stride * v;
        double d = 0, m = 0;
        for (int i = 0; i < 3; i++) {
            d += ((double)x[i] - y[i]) * ((double)x[i] - y[i]);
            m += (double)y[i] * y[i];
        }
        double e = sqrt(d) / fmax(sqrt(m), 1.0);
        if (!(e <= worst))
            worst = isnan(e) ? INFINITY : e;
    }
    return worst;
}

/* Over the attributes make_job() skins now (g_attrs). */
static double out_err(const out_t *a, const out_t *b)
{
    double e = rel_err(a->pos, b->pos, NV, 3);
    if (g_attrs < 1)
        return e;
    e = fmax(e, rel_err(a->nrm, b->nrm, NV, 3));
    if (g_attrs < 2)
        return e;
    e = fmax(e, rel_err(a->tan, b->tan, NV, 4));
    for (int v = 0; v < NV; v++)
        if (a->tan[4 * v + 3] != b->tan[4 * v + 3])
            return INFINITY;
    return e;
}

static out_t g_ref, g_out, g_out2;

/* SIMD vs scalar, accumulated vs transform-then-blend, threads vs one. */
static void test_paths_agree(bool stress)
{
    const double simd_tol = stress ? 1e-5 : 1e-6;
    make_mesh(&g_mesh, stress);
    weights_for_counts(&g_mesh);
    static const skin_isa_t isas[] = {SKIN_ISA_SSE2, SKIN_ISA_AVX2, SKIN_ISA_AVX512, SKIN_ISA_AUTO};
    static const skin_method_t methods[] = {SKIN_LBS_MATRIX, SKIN_DQS};
    skin_pool_t *pools[3] = {skin_pool_create(1), skin_pool_create(2), skin_pool_create(3)};
    CHECK(pools[0] && pools[1] && pools[2]);
    double worst_simd = 0, worst_accum = 0;
    for (int pose = 0; pose < 4; pose++) {
        random_palette_max(stress ? 3.0f : 1.57f);
        for (int k = 1; k <= 4; k++) {
            for (int u16 = 0; u16 < 2; u16++) {
                /* Accumulated matrix vs transform-then-blend (both scalar). */
                skin_job_t ref = make_job(SKIN_LBS_POINTS, SKIN_ISA_SCALAR, k, u16, &g_ref);
                skin_job_t acc = make_job(SKIN_LBS_MATRIX, SKIN_ISA_SCALAR, k, u16, &g_out);
                CHECK(skin_run(&ref) && skin_run(&acc));
                double e = out_err(&g_out, &g_ref);
                worst_accum = fmax(worst_accum, e);
                CHECK(e <= 1e-5);
                for (int m = 0; m < 4; m++) {
                    /* Renormalising, then prenormalized, per method. */
                    skin_method_t method = methods[m % 2];
                    bool pn = m >= 2;
                    skin_job_t sc = make_job_w(method, SKIN_ISA_SCALAR, k, u16, pn, &g_ref);
                    CHECK(skin_run(&sc));
                    for (int i = 0; i < 4; i++) {
                        if (!skin_isa_supported(isas[i]))
                            continue;
                        /* Cleared, so that arrays a job does not write compare equal. */
                        memset(&g_out, 0, sizeof g_out);
                        skin_job_t fast = make_job_w(method, isas[i], k, u16, pn, &g_out);
                        CHECK(skin_run(&fast));
                        e = out_err(&g_out, &g_ref);
                        worst_simd = fmax(worst_simd, e);
                        if (e > simd_tol)
                            fprintf(stderr, "%s/%s k=%d u16=%d prenormalized=%d: rel err %.3g\n",
                                    skin_method_name(method), skin_isa_name(isas[i]), k, u16, pn, e);
                        CHECK(e <= simd_tol);
                        /* Threads: bit-exact against one thread. */
                        for (int p = 0; p < 3; p++) {
                            if (!pools[p])
                                continue;
                            memset(&g_out2, 0, sizeof g_out2);
                            skin_job_t par = make_job_w(method, isas[i], k, u16, pn, &g_out2);
                            CHECK(skin_pool_run(pools[p], &par));
                            CHECK(memcmp(&g_out, &g_out2, sizeof g_out) == 0);
                        }
                    }
                }
            }
        }
    }
    printf("test_skin: %s data: worst rel err SIMD vs scalar %.3g, accumulated vs "
           "transform-then-blend %.3g\n",
           stress ? "stress" : "skinned", worst_simd, worst_accum);
    /* The scalar path through a pool is also bit-exact. */
    memset(&g_out, 0, sizeof g_out);
    memset(&g_out2, 0, sizeof g_out2);
    skin_job_t one = make_job(SKIN_LBS_POINTS, SKIN_ISA_AUTO, 4, false, &g_out);
    skin_job_t two = make_job(SKIN_LBS_POINTS, SKIN_ISA_AUTO, 4, false, &g_out2);
    CHECK(skin_run(&one) && pools[2] && skin_pool_run(pools[2], &two));
    CHECK(memcmp(&g_out, &g_out2, sizeof g_out) == 0);
    /* Back-to-back jobs of changing sizes: a worker waking late for one job
     * must not touch the next. */
    for (int r = 0; r < 300 && pools[1] && pools[2]; r++) {
        int n = 1 + (int)rnd(0, (float)(NV - 1));
        skin_job_t a = make_job(r % 2 ? SKIN_DQS : SKIN_LBS_MATRIX, SKIN_ISA_AUTO, 1 + r % 4, false, &g_out);
        skin_job_t b = a;
        a.vertex_count = b.vertex_count = n;
        b.out_positions = g_out2.pos;
        b.out_normals = g_out2.nrm;
        b.out_tangents = g_out2.tan;
        CHECK(skin_run(&a) && skin_pool_run(pools[1 + r % 2], &b));
        CHECK(memcmp(g_out.pos, g_out2.pos, sizeof(float) * 3 * (size_t)n) == 0);
        CHECK(g_attrs < 1 || memcmp(g_out.nrm, g_out2.nrm, sizeof(float) * 3 * (size_t)n) == 0);
        CHECK(g_attrs < 2 || memcmp(g_out.tan, g_out2.tan, sizeof(float) * 4 * (size_t)n) == 0);
    }
    for (int p = 0; p < 3; p++)
        skin_pool_destroy(pools[p]);
}

/* With every palette entry the identity, a vertex stays put only if the kept
 * weights sum to 1. */
static void test_truncation(void)
{
    for (int j = 0; j < g_skel.joint_count; j++) {
        memset(g_pal[j], 0, sizeof g_pal[j]);
        g_pal[j][0] = g_pal[j][5] = g_pal[j][10] = 1.0f;
        static const float dq_id[8] = {0, 0, 0, 1, 0, 0, 0, 0};
        memcpy(g_dq[j], dq_id, sizeof dq_id);
    }
    static const skin_method_t methods[] = {SKIN_LBS_POINTS, SKIN_LBS_MATRIX, SKIN_DQS};
    static const skin_isa_t isas[] = {SKIN_ISA_SCALAR, SKIN_ISA_SSE2, SKIN_ISA_AVX2, SKIN_ISA_AVX512};
    for (int k = 1; k <= 4; k++)
        for (int m = 0; m < 3; m++)
            for (int i = 0; i < 4; i++) {
                if (!skin_isa_supported(isas[i]))
                    continue;
                skin_job_t job = make_job(methods[m], isas[i], k, false, &g_out);
                CHECK(skin_run(&job));
                CHECK(rel_err(g_out.pos, g_mesh.pos, NV, 3) <= 1e-6);
                CHECK(rel_err(g_out.nrm, g_mesh.nrm, NV, 3) <= 1e-6);
            }
    /* And truncation equals giving the renormalised weights explicitly. */
    random_palette();
    static mesh_t explicit_w;
    for (int k = 1; k < 4; k++) {
        explicit_w = g_mesh;
        for (int v = 0; v < NV; v++) {
            float s = 0;
            for (int i = 0; i < k; i++)
                s += g_mesh.w[4 * v + i];
            for (int i = 0; i < 4; i++)
                explicit_w.w[4 * v + i] = i < k ? g_mesh.w[4 * v + i] / s : 0.0f;
        }
        skin_job_t job = make_job(SKIN_LBS_MATRIX, SKIN_ISA_SCALAR, k, false, &g_out);
        skin_job_t full = make_job(SKIN_LBS_MATRIX, SKIN_ISA_SCALAR, 4, false, &g_out2);
        full.weights = explicit_w.w;
        CHECK(skin_run(&job) && skin_run(&full));
        CHECK(out_err(&g_out, &g_out2) <= 1e-6);
    }
}

/* Rigid single-influence vertices: DQS and LBS are the same rigid motion. */
static void test_dqs_single_influence(void)
{
    random_palette();
    skin_job_t lbs = make_job(SKIN_LBS_MATRIX, SKIN_ISA_SCALAR, 1, false, &g_ref);
    skin_job_t dqs = make_job(SKIN_DQS, SKIN_ISA_SCALAR, 1, false, &g_out);
    CHECK(skin_run(&lbs) && skin_run(&dqs));
    double e = out_err(&g_out, &g_ref);
    printf("test_skin: DQS vs LBS, one influence: rel err %.3g\n", e);
    CHECK(e <= 1e-5);
}

/* Candy wrapper: a tube along X, its far joint twisted 90 degrees about X,
 * the middle ring weighted 50/50. LBS pulls the ring in to cos(45) of its
 * radius; DQS keeps it. */
static void test_candy_wrapper(void)
{
    enum { RING = 64 };
    const float radius = 5.0f;
    float pos[RING * 3], nrm[RING * 3], w[RING * 4], out[RING * 3], out_n[RING * 3];
    uint8_t jnt[RING * 4];
    for (int i = 0; i < RING; i++) {
        float a = 6.2831853f * (float)i / RING;
        pos[3 * i + 0] = 20.0f;
        pos[3 * i + 1] = radius * cosf(a);
        pos[3 * i + 2] = radius * sinf(a);
        nrm[3 * i + 0] = 0.0f;
        nrm[3 * i + 1] = cosf(a);
        nrm[3 * i + 2] = sinf(a);
        w[4 * i + 0] = w[4 * i + 1] = 0.5f;
        w[4 * i + 2] = w[4 * i + 3] = 0.0f;
        jnt[4 * i + 0] = 0;
        jnt[4 * i + 1] = 1;
        jnt[4 * i + 2] = jnt[4 * i + 3] = 0;
    }
    static const float x_axis[3] = {1, 0, 0}, zero[3] = {0, 0, 0};
    static const float ident[4] = {0, 0, 0, 1};
    float q[4], pal[2][12], dq[2][8];
    pose_quat_axis_angle(x_axis, 1.5707963f, q);
    pose_mat_from_rt(ident, zero, pal[0]);
    pose_mat_from_rt(q, zero, pal[1]);
    pose_dq_from_rt(ident, zero, dq[0]);
    pose_dq_from_rt(q, zero, dq[1]);
    static const skin_method_t methods[] = {SKIN_LBS_MATRIX, SKIN_DQS};
    static const skin_isa_t isas[] = {SKIN_ISA_SCALAR, SKIN_ISA_SSE2, SKIN_ISA_AVX2, SKIN_ISA_AVX512};
    for (int m = 0; m < 2; m++)
        for (int s = 0; s < 4; s++) {
            if (!skin_isa_supported(isas[s]))
                continue;
            skin_job_t job = {.vertex_count = RING,
                              .influences = 4,
                              .method = methods[m],
                              .isa = isas[s],
                              .positions = pos,
                              .normals = nrm,
                              .joints_u8 = jnt,
                              .weights = w,
                              .joint_count = 2,
                              .palette = &pal[0][0],
                              .dq_palette = &dq[0][0],
                              .out_positions = out,
                              .out_normals = out_n};
            CHECK(skin_run(&job));
            float rmin = 1e9f, rmax = 0.0f;
            for (int i = 0; i < RING; i++) {
                float r = sqrtf(out[3 * i + 1] * out[3 * i + 1] + out[3 * i + 2] * out[3 * i + 2]);
                rmin = fminf(rmin, r);
                rmax = fmaxf(rmax, r);
                CHECK(fabsf(out[3 * i] - 20.0f) < 1e-4f);
            }
            if (methods[m] == SKIN_LBS_MATRIX) {
                CHECK(fabsf(rmax - radius * 0.70710678f) < 1e-3f);
            } else {
                CHECK(fabsf(rmin - radius) < 1e-3f && fabsf(rmax - radius) < 1e-3f);
            }
            if (s == 0)
                printf("test_skin: 90-degree twist, ring radius %.4f -> %s %.4f..%.4f\n", (double)radius,
                       skin_method_name(methods[m]), (double)rmin, (double)rmax);
        }
}

/* Bad indices never read outside the palette and contribute nothing. */
static void test_bad_indices(void)
{
    random_palette();
    static mesh_t bad;
    bad = g_mesh;
    for (int v = 0; v < NV; v += 7) {
        bad.j8[4 * v + 1] = 250;
        bad.j16[4 * v + 2] = 60000;
    }
    static const skin_isa_t isas[] = {SKIN_ISA_SSE2, SKIN_ISA_AVX2, SKIN_ISA_AVX512};
    static const skin_method_t methods[] = {SKIN_LBS_MATRIX, SKIN_DQS};
    for (int u16 = 0; u16 < 2; u16++)
        for (int m = 0; m < 2; m++) {
            skin_job_t ref = make_job(methods[m], SKIN_ISA_SCALAR, 4, u16, &g_ref);
            ref.joints_u8 = u16 ? NULL : bad.j8;
            ref.joints_u16 = u16 ? bad.j16 : NULL;
            CHECK(skin_run(&ref));
            CHECK(!skin_check_vertices(&ref));
            for (int i = 0; i < 3; i++) {
                if (!skin_isa_supported(isas[i]))
                    continue;
                skin_job_t job = ref;
                job.isa = isas[i];
                job.out_positions = g_out.pos;
                job.out_normals = g_out.nrm;
                job.out_tangents = g_out.tan;
                CHECK(skin_run(&job));
                CHECK(out_err(&g_out, &g_ref) <= 1e-6);
            }
        }
}

/* Prenormalized jobs (the work of ozz-animation's SkinningJob): with weights
 * normalised for the count they place vertices where renormalising jobs do,
 * leave blended normals unnormalised (shorter than 1 where LBS blends
 * rotations), and read no weight for one influence. */
static void test_prenormalized(void)
{
    make_mesh(&g_mesh, false);
    weights_for_counts(&g_mesh);
    random_palette();
    static const skin_isa_t isas[] = {SKIN_ISA_SCALAR, SKIN_ISA_SSE2, SKIN_ISA_AVX2, SKIN_ISA_AVX512};
    static out_t unit;
    for (int k = 1; k <= 4; k++)
        for (int i = 0; i < 4; i++) {
            if (!skin_isa_supported(isas[i]))
                continue;
            skin_job_t renorm = make_job_w(SKIN_LBS_MATRIX, isas[i], k, false, false, &g_ref);
            skin_job_t pre = make_job_w(SKIN_LBS_MATRIX, isas[i], k, false, true, &g_out);
            CHECK(skin_run(&renorm) && skin_run(&pre));
            CHECK(rel_err(g_out.pos, g_ref.pos, NV, 3) <= 1e-6);
            double shortest = 1.0;
            for (int v = 0; v < NV; v++) {
                const float *n = g_out.nrm + 3 * v;
                float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                shortest = fmin(shortest, len);
                for (int c = 0; c < 3; c++)
                    unit.nrm[3 * v + c] = n[c] / len;
            }
            CHECK(rel_err(unit.nrm, g_ref.nrm, NV, 3) <= 1e-6);
            /* Rigid (k = 1) keeps unit normals; blends of different
             * rotations shorten some. */
            if (k == 1)
                CHECK(shortest > 0.9999);
            else
                CHECKF(shortest < 0.99, "k=%d %s: shortest prenormalized normal %.4f", k, skin_isa_name(isas[i]),
                       shortest);
        }
    /* One influence reads no weight, in either weighting. */
    static mesh_t nan_w;
    nan_w = g_mesh;
    for (int v = 0; v < NV * 4; v++)
        nan_w.w[v] = NAN;
    for (int pn = 0; pn < 2; pn++)
        for (int i = 0; i < 4; i++) {
            if (!skin_isa_supported(isas[i]))
                continue;
            skin_job_t ref = make_job_w(SKIN_LBS_POINTS, SKIN_ISA_SCALAR, 1, false, pn, &g_ref);
            skin_job_t job = make_job_w(SKIN_LBS_MATRIX, isas[i], 1, true, pn, &g_out);
            job.weights = nan_w.w;
            CHECK(skin_run(&ref) && skin_run(&job));
            CHECK(out_err(&g_out, &g_ref) <= 1e-6);
        }
    /* Load-time check: a prenormalized job's first N weights sum to 1. */
    skin_job_t pre = make_job_w(SKIN_LBS_MATRIX, SKIN_ISA_AUTO, 2, false, true, &g_out);
    CHECK(skin_check_vertices(&pre));
    pre.weights = g_mesh.w;
    CHECK(!skin_check_vertices(&pre));
}

/* Every influence count has its own AVX2 LBS kernel, and the name says so. */
static void test_kernel_names(void)
{
    char names[4][160], name[160];
    for (int k = 1; k <= 4; k++) {
        skin_job_t job = make_job(SKIN_LBS_MATRIX, SKIN_ISA_SSE2, k, false, &g_out);
        job.tangents = NULL;
        skin_kernel_name(&job, name, sizeof name);
        CHECKF(strstr(name, "sse2") && strstr(name, "renormalising"), "%s", name);
        if (!skin_isa_supported(SKIN_ISA_AVX2))
            continue;
        job.isa = SKIN_ISA_AVX2;
        job.prenormalized = true;
        skin_kernel_name(&job, names[k - 1], sizeof names[k - 1]);
        printf("test_skin: %d influence(s): %s\n", k, names[k - 1]);
        CHECK(strstr(names[k - 1], "avx2") && strstr(names[k - 1], "8-vertex blocks") &&
              strstr(names[k - 1], "weights as given"));
        for (int other = 1; other < k; other++)
            CHECK(strcmp(names[k - 1], names[other - 1]) != 0);
    }
    skin_job_t bad = make_job(SKIN_LBS_MATRIX, SKIN_ISA_AUTO, 0, false, &g_out);
    skin_kernel_name(&bad, name, sizeof name);
    CHECK(strcmp(name, "invalid job") == 0);
}

static void test_validation(void)
{
    skin_job_t good = make_job(SKIN_LBS_MATRIX, SKIN_ISA_AUTO, 4, false, &g_out);
    CHECK(skin_validate(&good));
    CHECK(skin_check_vertices(&good));
    skin_job_t j = good;
    j.influences = 0;
    CHECK(!skin_run(&j));
    j.influences = 5;
    CHECK(!skin_run(&j));
    j = good;
    j.palette = NULL;
    CHECK(!skin_run(&j));
    j = good;
    j.joints_u16 = g_mesh.j16;
    CHECK(!skin_run(&j));
    j = good;
    j.joint_count = SKIN_MAX_JOINTS + 1;
    CHECK(!skin_run(&j));
    j = good;
    j.out_normals = NULL;
    CHECK(!skin_run(&j));
    j = good;
    j.normals = NULL;
    CHECK(!skin_run(&j));
    j = good;
    j.vertex_count = -1;
    CHECK(!skin_run(&j));
    j = good;
    j.method = (skin_method_t)7;
    CHECK(!skin_run(&j));
    j = good;
    j.vertex_count = 0;
    j.positions = NULL;
    CHECK(skin_run(&j));
    CHECK(skin_pool_create(0) == NULL);
    CHECK(!skin_pool_run(NULL, &good));
    /* Unsorted or unnormalised weights are caught at load time. */
    static mesh_t m;
    m = g_mesh;
    m.w[4 * 10 + 0] = 0.1f;
    j = good;
    j.weights = m.w;
    CHECK(!skin_check_vertices(&j));
    m = g_mesh;
    m.w[4 * 11 + 3] = NAN;
    CHECK(!skin_check_vertices(&j));
}

int main(void)
{
    log_set_level(LOG_QUIET);
    if (!skel_load(&g_skel, "assets/skeleton/cmu21.skel")) {
        fprintf(stderr, "test_skin: cannot load the skeleton\n");
        return 1;
    }
    pose_bind_from_rest(&g_skel, &g_bind);
    printf("test_skin: best ISA on this CPU: %s\n", skin_isa_name(skin_isa_best()));
    for (g_attrs = 2; g_attrs >= 0; g_attrs--) {
        printf("test_skin: %s\n", g_attrs == 2   ? "positions, normals, tangents"
                                  : g_attrs == 1 ? "positions, normals"
                                                 : "positions");
        test_paths_agree(true);
        test_paths_agree(false);
        test_bad_indices();
    }
    g_attrs = 1;
    test_prenormalized();
    g_attrs = 2;
    test_kernel_names();
    make_mesh(&g_mesh, false);
    test_truncation();
    test_dqs_single_influence();
    test_candy_wrapper();
    test_validation();
    return check_summary();
}
