/* Tests for skin's AVX-512 kernels (skin_avx512.c) on what their 16-vertex
 * blocks and masked last block make special: every vertex count from 1 to
 * 50 (tails of 1..15 after 0..3 full blocks), arrays that start one element
 * past malloc's alignment and end at the end of their heap block (so ASan sees
 * a scalar read or write past them), and the floats after each output left
 * alone (guard values). Every method (LBS matrix, DQS), influence count
 * 1-4, attribute set, index width and weighting is held to the scalar
 * reference within test_skin's tolerance for arbitrary joints and rotations
 * (1e-5 relative), and a run over [0, n) to runs over two ranges split at
 * every point (the same bits). Exits 77 (ctest SKIP) when this CPU or OS
 * does not run AVX-512. */
#include "anim/pose.h"
#include "anim/skin.h"
#include "core/log.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NV 50
#define JOINTS 40
#define TOL 1e-5
/* Written to every output before a run; a kernel must leave the floats past
 * its vertices as they are. */
#define GUARD 12345.0f

static uint32_t g_rng = 2463534242u;

static float rnd(float lo, float hi)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return lo + (hi - lo) * (float)(g_rng >> 8) * (1.0f / 16777216.0f);
}

static void random_unit(float *v, int n)
{
    float len = 0;
    do {
        len = 0;
        for (int i = 0; i < n; i++) {
            v[i] = rnd(-1, 1);
            len += v[i] * v[i];
        }
        len = sqrtf(len);
    } while (len < 0.1f || len > 1.0f);
    for (int i = 0; i < n; i++)
        v[i] /= len;
}

/* Inputs of MAX_NV vertices, each array at the end of its own heap block,
 * one element past malloc's alignment. */
typedef struct mesh_t {
    float *pos, *nrm, *tan, *w, *wk[SKIN_MAX_INFLUENCES];
    uint8_t *j8;
    uint16_t *j16;
    float pal[JOINTS][12], dq[JOINTS][8];
} mesh_t;

static mesh_t g_mesh;
/* Blocks as malloc gave them (one element before each array), to free. */
static void *g_blocks[32];
static int g_nblocks;

/* N elements of SIZE bytes, one element into a block of N + 1. */
static void *alloc_off(size_t n, size_t size)
{
    unsigned char *p = malloc((n + 1) * size);
    if (!p || g_nblocks == (int)(sizeof g_blocks / sizeof g_blocks[0])) {
        fprintf(stderr, "test_skin_avx512: out of memory\n");
        exit(1);
    }
    g_blocks[g_nblocks++] = p;
    return p + size;
}

static void make_mesh(void)
{
    mesh_t *m = &g_mesh;
    m->pos = alloc_off(3 * MAX_NV, sizeof(float));
    m->nrm = alloc_off(3 * MAX_NV, sizeof(float));
    m->tan = alloc_off(4 * MAX_NV, sizeof(float));
    m->w = alloc_off(4 * MAX_NV, sizeof(float));
    for (int k = 0; k < SKIN_MAX_INFLUENCES; k++)
        m->wk[k] = alloc_off(4 * MAX_NV, sizeof(float));
    m->j8 = alloc_off(4 * MAX_NV, 1);
    m->j16 = alloc_off(4 * MAX_NV, 2);
    for (int v = 0; v < MAX_NV; v++) {
        for (int i = 0; i < 3; i++)
            m->pos[3 * v + i] = rnd(-90, 90);
        random_unit(m->nrm + 3 * v, 3);
        random_unit(m->tan + 4 * v, 3);
        m->tan[4 * v + 3] = rnd(0, 1) < 0.5f ? -1.0f : 1.0f;
        float w[4], sum = 0;
        for (int i = 0; i < 4; i++)
            sum += w[i] = rnd(0.01f, 1.0f);
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++)
                if (w[b] > w[a]) {
                    float t = w[a];
                    w[a] = w[b];
                    w[b] = t;
                }
        for (int i = 0; i < 4; i++) {
            m->w[4 * v + i] = w[i] / sum;
            m->j8[4 * v + i] = (uint8_t)rnd(0, JOINTS - 0.01f);
            m->j16[4 * v + i] = m->j8[4 * v + i];
        }
        for (int k = 1; k <= SKIN_MAX_INFLUENCES; k++) {
            float s = 0;
            for (int i = 0; i < k; i++)
                s += w[i];
            for (int i = 0; i < 4; i++)
                m->wk[k - 1][4 * v + i] = i < k ? w[i] / s : 0.0f;
        }
    }
    for (int j = 0; j < JOINTS; j++) {
        float q[4], t[3] = {rnd(-50, 50), rnd(-50, 50), rnd(-50, 50)};
        random_unit(q, 4);
        pose_mat_from_rt(q, t, m->pal[j]);
        pose_dq_from_rt(q, t, m->dq[j]);
    }
}

/* Outputs of MAX_NV vertices; a job of N writes the first N, and the floats
 * past them must stay GUARD. */
typedef struct out_t {
    float *pos, *nrm, *tan;
} out_t;

static out_t g_ref, g_out, g_split;

static void alloc_out(out_t *o)
{
    o->pos = alloc_off(3 * MAX_NV, sizeof(float));
    o->nrm = alloc_off(3 * MAX_NV, sizeof(float));
    o->tan = alloc_off(4 * MAX_NV, sizeof(float));
}

static void guard_out(out_t *o)
{
    for (int i = 0; i < 3 * MAX_NV; i++)
        o->pos[i] = o->nrm[i] = GUARD;
    for (int i = 0; i < 4 * MAX_NV; i++)
        o->tan[i] = GUARD;
}

/* A job over vertices [FIRST, FIRST + N), its outputs at the same offsets. */
static skin_job_t make_job(skin_method_t method, skin_isa_t isa, int k, int attrs, bool u16, bool prenorm, int first,
                           int n, const out_t *o)
{
    const mesh_t *m = &g_mesh;
    size_t f = (size_t)first;
    return (skin_job_t){.vertex_count = n,
                        .influences = k,
                        .prenormalized = prenorm,
                        .method = method,
                        .isa = isa,
                        .positions = m->pos + 3 * f,
                        .normals = attrs >= 1 ? m->nrm + 3 * f : NULL,
                        .tangents = attrs >= 2 ? m->tan + 4 * f : NULL,
                        .joints_u8 = u16 ? NULL : m->j8 + 4 * f,
                        .joints_u16 = u16 ? m->j16 + 4 * f : NULL,
                        .weights = (prenorm ? m->wk[k - 1] : m->w) + 4 * f,
                        .joint_count = JOINTS,
                        .palette = &m->pal[0][0],
                        .dq_palette = &m->dq[0][0],
                        .out_positions = o->pos + 3 * f,
                        .out_normals = attrs >= 1 ? o->nrm + 3 * f : NULL,
                        .out_tangents = attrs >= 2 ? o->tan + 4 * f : NULL};
}

/* Largest relative error of N vectors (3 of STRIDE floats each). */
static double rel_err(const float *a, const float *b, int n, int stride)
{
    double worst = 0;
    for (int v = 0; v < n; v++) {
        double d = 0, m = 0;
        for (int i = 0; i < 3; i++) {
            double x = a[stride * v + i], y = b[stride * v + i];
            d += (x - y) * (x - y);
            m += y * y;
        }
        double e = sqrt(d) / fmax(sqrt(m), 1.0);
        if (!(e <= worst))
            worst = isnan(e) ? INFINITY : e;
    }
    return worst;
}

/* Floats of ARR from index FROM to COUNT that are not GUARD. */
static int guard_broken(const float *arr, int from, int count)
{
    int bad = 0;
    for (int i = from; i < count; i++)
        bad += arr[i] != GUARD;
    return bad;
}

static void test_counts(void)
{
    static const skin_method_t methods[] = {SKIN_LBS_MATRIX, SKIN_DQS};
    double worst = 0;
    int runs = 0;
    for (int m = 0; m < 2; m++)
        for (int k = 1; k <= SKIN_MAX_INFLUENCES; k++)
            for (int attrs = 0; attrs <= 2; attrs++)
                for (int u16 = 0; u16 < 2; u16++)
                    for (int pn = 0; pn < 2; pn++)
                        for (int n = 1; n <= MAX_NV; n++) {
                            skin_job_t ref = make_job(methods[m], SKIN_ISA_SCALAR, k, attrs, u16, pn, 0, n, &g_ref);
                            skin_job_t job = make_job(methods[m], SKIN_ISA_AVX512, k, attrs, u16, pn, 0, n, &g_out);
                            guard_out(&g_out);
                            CHECK(skin_run(&ref) && skin_run(&job));
                            double e = rel_err(g_out.pos, g_ref.pos, n, 3);
                            if (attrs >= 1)
                                e = fmax(e, rel_err(g_out.nrm, g_ref.nrm, n, 3));
                            if (attrs >= 2) {
                                e = fmax(e, rel_err(g_out.tan, g_ref.tan, n, 4));
                                for (int v = 0; v < n; v++)
                                    e = g_out.tan[4 * v + 3] == g_ref.tan[4 * v + 3] ? e : INFINITY;
                            }
                            worst = fmax(worst, e);
                            CHECKF(e <= TOL, "%s k=%d attrs=%d u16=%d prenormalized=%d n=%d: rel err %.3g",
                                   skin_method_name(methods[m]), k, attrs, u16, pn, n, e);
                            /* Nothing written past the last vertex, nor to
                             * attributes the job does not skin. */
                            int bad = guard_broken(g_out.pos, 3 * n, 3 * MAX_NV);
                            bad += guard_broken(g_out.nrm, attrs >= 1 ? 3 * n : 0, 3 * MAX_NV);
                            bad += guard_broken(g_out.tan, attrs >= 2 ? 4 * n : 0, 4 * MAX_NV);
                            CHECKF(bad == 0, "%s k=%d attrs=%d n=%d: %d floats written past the job",
                                   skin_method_name(methods[m]), k, attrs, n, bad);
                            /* Split into [0, s) and [s, n): the same bits. */
                            for (int s = 1; s < n; s += 3) {
                                guard_out(&g_split);
                                skin_job_t a = make_job(methods[m], SKIN_ISA_AVX512, k, attrs, u16, pn, 0, s, &g_split);
                                skin_job_t b = make_job(methods[m], SKIN_ISA_AVX512, k, attrs, u16, pn, s, n - s,
                                                        &g_split);
                                CHECK(skin_run(&a) && skin_run(&b));
                                bool same = memcmp(g_out.pos, g_split.pos, sizeof(float) * 3 * (size_t)n) == 0;
                                same = same && (attrs < 1 ||
                                                memcmp(g_out.nrm, g_split.nrm, sizeof(float) * 3 * (size_t)n) == 0);
                                same = same && (attrs < 2 ||
                                                memcmp(g_out.tan, g_split.tan, sizeof(float) * 4 * (size_t)n) == 0);
                                CHECKF(same, "%s k=%d attrs=%d n=%d split at %d: different bits",
                                       skin_method_name(methods[m]), k, attrs, n, s);
                            }
                            runs++;
                        }
    printf("test_skin_avx512: %d jobs of 1..%d vertices, worst rel err vs scalar %.3g\n", runs, MAX_NV, worst);
}

int main(void)
{
    log_set_level(LOG_QUIET);
    if (!skin_isa_supported(SKIN_ISA_AVX512)) {
        printf("test_skin_avx512: SKIP: this CPU or OS does not run AVX-512 (F, VL, DQ, BW with ZMM state "
               "saved), so there is no AVX-512 kernel to test\n");
        return 77;
    }
    CHECK(skin_isa_best() == SKIN_ISA_AVX512);
    make_mesh();
    alloc_out(&g_ref);
    alloc_out(&g_out);
    alloc_out(&g_split);
    test_counts();
    char name[160];
    skin_job_t job = make_job(SKIN_LBS_MATRIX, SKIN_ISA_AUTO, 3, 1, false, true, 0, MAX_NV, &g_out);
    skin_kernel_name(&job, name, sizeof name);
    printf("test_skin_avx512: AUTO runs %s\n", name);
    CHECKF(strstr(name, "avx512") && strstr(name, "16-vertex blocks"), "%s", name);
    for (int i = 0; i < g_nblocks; i++)
        free(g_blocks[i]);
    return check_summary();
}
