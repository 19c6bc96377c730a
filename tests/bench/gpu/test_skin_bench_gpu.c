/* test_skin_bench_gpu: bench/gpu/gfx_skin_bench (shaders/skin_bench.vert with
 * the game's skin.glsl) against the CPU skinning job on a generated tube
 * mesh whose vertices have 1 to 4 non-zero weights:
 *  1. limits: more than 256 joints, or a palette larger than
 *     GL_MAX_SHADER_STORAGE_BLOCK_SIZE, is refused with a message naming the
 *     limit, and create() refuses such a mesh;
 *  2. every path (the three methods, unbinned, binned, compressed,
 *     skin-once, per-pass) at influences 1..4 matches skin_run (scalar) within
 *     1e-4 of the mesh height (unit vectors 1e-3): binned output is
 *     un-permuted (the bin order is checked not to be the identity), the
 *     compressed path is compared with skin_run on the unpacked stream;
 *  3. negative control: a different influence count does not match;
 *  4. skin-once and per-pass draw the same image, and the figure is in it;
 *  5. the hybrid's GPU lerp of two keys matches skin_hybrid_run at t = 0.375
 *     and returns the keys themselves at t = 0 and t = 1.
 * usage: test_skin_bench_gpu */
#include "anim/pose.h"
#include "anim/skin.h"
#include "anim/skin_hybrid.h"
#include "anim/vcompress.h"
#include "bench/gpu/gfx_skin_bench.h"
#include "bench/skin_bench.h"
#include "core/paths.h"
#include "render/gfx.h"
#include "check.h"
#include "gl_test.h"
#include "test_random.h"

#include <SDL2/SDL.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tube: RINGS rings of SEGS vertices along Y, 2 * SEGS triangles between rings. */
enum { RINGS = 60, SEGS = 48, NV = RINGS * SEGS, NI = (RINGS - 1) * SEGS * 6, JOINTS = 40, TARGET = 128 };
#define HEIGHT_CM 170.0f
#define RADIUS_CM 12.0f
#define POS_TOL_REL 1e-4
#define DIR_TOL 1e-3
#define NF GFX_SKIN_BENCH_OUT_FLOATS

static test_rng_t g_rng = {777u};
static float frand(void) { return test_rand01(&g_rng); }

typedef struct mesh_t {
    float pos[NV * 3], nrm[NV * 3], tan[NV * 4], w[NV * 4];
    uint16_t j[NV * 4];
    uint32_t idx[NI];
    float pal[JOINTS * 12], dq[JOINTS * 8];
    float u_pos[NV * 3], u_nrm[NV * 3], u_tan[NV * 4], u_w[NV * 4];
    uint16_t u_j[NV * 4];
    vcompress_vertex_t packed[NV];
    int order[NV];
    float out[NV * NF], ref[NV * NF], scratch[NV * 10];
    uint8_t covered[NV];
    float k0p[NV * 3], k0n[NV * 3], k1p[NV * 3], k1n[NV * 3], lp[NV * 3], ln[NV * 3];
    uint8_t img_once[TARGET * TARGET * 4], img_pass[TARGET * TARGET * 4];
} mesh_t;

static void make_mesh(mesh_t *m)
{
    for (int r = 0; r < RINGS; r++) {
        float y = HEIGHT_CM * (float)r / (RINGS - 1);
        /* Joints stacked along the tube; a vertex hangs on its nearest joint
         * and 0..3 neighbours (so every influence count occurs). */
        int base = r * JOINTS / RINGS;
        for (int s = 0; s < SEGS; s++) {
            int v = r * SEGS + s;
            float a = 6.2831853f * (float)s / SEGS;
            m->pos[3 * v] = RADIUS_CM * cosf(a);
            m->pos[3 * v + 1] = y;
            m->pos[3 * v + 2] = RADIUS_CM * sinf(a);
            m->nrm[3 * v] = cosf(a);
            m->nrm[3 * v + 1] = 0;
            m->nrm[3 * v + 2] = sinf(a);
            m->tan[4 * v] = -sinf(a);
            m->tan[4 * v + 1] = 0;
            m->tan[4 * v + 2] = cosf(a);
            m->tan[4 * v + 3] = s % 2 ? 1.0f : -1.0f;
            int k = 1 + (int)(frand() * 4.0f) % 4;
            float w[4] = {0, 0, 0, 0}, sum = 0;
            for (int i = 0; i < k; i++)
                sum += (w[i] = 1.0f / (float)(1 + i) + 0.1f * frand());
            for (int i = 0; i < 4; i++) {
                m->w[4 * v + i] = w[i] / sum;
                m->j[4 * v + i] = (uint16_t)((base + i) % JOINTS);
            }
        }
    }
    int n = 0;
    for (int r = 0; r + 1 < RINGS; r++)
        for (int s = 0; s < SEGS; s++) {
            uint32_t a = (uint32_t)(r * SEGS + s), b = (uint32_t)(r * SEGS + (s + 1) % SEGS);
            uint32_t c = a + SEGS, d = b + SEGS;
            uint32_t tri[6] = {a, c, b, b, c, d};
            memcpy(m->idx + n, tri, sizeof tri);
            n += 6;
        }
    /* A bent pose: joint j turns by up to 0.5 rad about a random axis
     * around its own height on the tube. */
    for (int jn = 0; jn < JOINTS; jn++) {
        float ax[3] = {frand() - 0.5f, frand() - 0.5f, frand() - 0.5f}, q[4], t[3], c[3] = {0, 0, 0};
        float len = sqrtf(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
        for (int k = 0; k < 3; k++)
            ax[k] /= len;
        pose_quat_axis_angle(ax, (frand() * 2 - 1) * 0.5f, q);
        c[1] = HEIGHT_CM * (float)jn / JOINTS;
        float rc[3];
        pose_quat_rotate(q, c, rc);
        for (int k = 0; k < 3; k++)
            t[k] = c[k] - rc[k] + (frand() - 0.5f) * 4.0f;
        pose_mat_from_rt(q, t, m->pal + 12 * jn);
        pose_dq_from_rt(q, t, m->dq + 8 * jn);
    }
}

static bool reference(const mesh_t *m, bool unpacked, int method, int influences, float *out, float *scratch)
{
    skin_job_t j = {.vertex_count = NV,
                    .influences = influences,
                    .method = (skin_method_t)method,
                    .isa = SKIN_ISA_SCALAR,
                    .positions = unpacked ? m->u_pos : m->pos,
                    .normals = unpacked ? m->u_nrm : m->nrm,
                    .tangents = unpacked ? m->u_tan : m->tan,
                    .joints_u16 = unpacked ? m->u_j : m->j,
                    .weights = unpacked ? m->u_w : m->w,
                    .joint_count = JOINTS,
                    .palette = m->pal,
                    .dq_palette = m->dq,
                    .out_positions = scratch,
                    .out_normals = scratch + 3 * NV,
                    .out_tangents = scratch + 6 * NV};
    if (!skin_run(&j))
        return false;
    for (int v = 0; v < NV; v++) {
        memcpy(out + v * NF, scratch + 3 * v, 3 * sizeof(float));
        memcpy(out + v * NF + 3, scratch + 3 * NV + 3 * v, 3 * sizeof(float));
        memcpy(out + v * NF + 6, scratch + 6 * NV + 4 * v, 4 * sizeof(float));
    }
    return true;
}

static void compare(const mesh_t *m, double *pos, double *dir)
{
    *pos = *dir = 0;
    for (int v = 0; v < NV; v++) {
        if (!m->covered[v])
            continue;
        for (int k = 0; k < NF; k++) {
            double e = fabs((double)m->out[v * NF + k] - m->ref[v * NF + k]);
            e = isfinite(e) ? e : INFINITY;
            if (k < 3)
                *pos = fmax(*pos, e);
            else
                *dir = fmax(*dir, e);
        }
    }
}

static void check_limits(const mesh_t *m)
{
    char msg[256];
    const gfx_info_t *info = gfx_get_info();
    CHECKF(gfx_skin_bench_limits_ok(info, GFX_SKIN_BENCH_MAX_JOINTS, msg, sizeof msg), "256 joints: %s", msg);
    CHECKF(!gfx_skin_bench_limits_ok(info, 257, msg, sizeof msg) && strstr(msg, "256"),
           "257 joints must be refused naming the 256 limit, got '%s'", msg);
    printf("refused as expected: %s\n", msg);
    gfx_info_t small = *info;
    small.max_ssbo_block_size = 1024;
    CHECKF(!gfx_skin_bench_limits_ok(&small, 98, msg, sizeof msg) && strstr(msg, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE"),
           "a 1 KB block must refuse 98 joints by name, got '%s'", msg);
    printf("refused as expected: %s\n", msg);
    gfx_skin_bench_desc_t d = {.vertex_count = NV,
                               .joint_count = 257,
                               .positions = m->pos,
                               .normals = m->nrm,
                               .tangents = m->tan,
                               .joints = m->j,
                               .weights = m->w,
                               .palette = m->pal,
                               .dq_palette = m->dq};
    CHECKF(gfx_skin_bench_create(&d) == NULL, "create accepted 257 joints");
}

static void check_paths(mesh_t *m)
{
    skin_bench_bins_t bins;
    skin_bench_bin_influences(NV, m->w, SKIN_MAX_INFLUENCES, m->order, &bins);
    int moved = 0;
    for (int v = 0; v < NV; v++)
        moved += m->order[v] != v;
    printf("bins: %d %d %d %d; %d vertices moved by binning\n", bins.count[0], bins.count[1], bins.count[2],
           bins.count[3], moved);
    CHECKF(moved > NV / 2 && bins.count[0] > 0 && bins.count[3] > 0, "binning must reorder (moved %d)", moved);
    vcompress_params_t params;
    vcompress_pack_job_t pj = {.vertex_count = NV,
                               .positions = m->pos,
                               .normals = m->nrm,
                               .tangents = m->tan,
                               .joints = m->j,
                               .weights = m->w,
                               .joint_count = JOINTS,
                               .out_vertices = m->packed,
                               .out_params = &params};
    CHECKF(vcompress_pack(&pj), "pack");
    vcompress_unpack(&params, m->packed, NV, m->u_pos, m->u_nrm, m->u_tan, m->u_j, m->u_w);
    gfx_skin_bench_desc_t d = {.vertex_count = NV,
                               .joint_count = JOINTS,
                               .positions = m->pos,
                               .normals = m->nrm,
                               .tangents = m->tan,
                               .joints = m->j,
                               .weights = m->w,
                               .palette = m->pal,
                               .dq_palette = m->dq,
                               .indices = m->idx,
                               .index_count = NI,
                               .bin_order = m->order,
                               .packed = m->packed,
                               .view_center = {0, HEIGHT_CM / 2, 0},
                               .view_radius = HEIGHT_CM * 0.75f,
                               .target_size = TARGET,
                               .label = "test"};
    memcpy(d.bin_first, bins.first, sizeof d.bin_first);
    memcpy(d.bin_count, bins.count, sizeof d.bin_count);
    memcpy(d.pos_bias, params.pos_bias, sizeof d.pos_bias);
    memcpy(d.pos_extent, params.pos_extent, sizeof d.pos_extent);
    /* Hybrid keys: the pose skinned by LBS and by DQS (two different shapes). */
    for (int k = 0; k < 2; k++) {
        skin_job_t kj = {.vertex_count = NV,
                         .influences = 4,
                         .method = k ? SKIN_DQS : SKIN_LBS_MATRIX,
                         .isa = SKIN_ISA_SCALAR,
                         .positions = m->pos,
                         .normals = m->nrm,
                         .joints_u16 = m->j,
                         .weights = m->w,
                         .joint_count = JOINTS,
                         .palette = m->pal,
                         .dq_palette = m->dq,
                         .out_positions = k ? m->k1p : m->k0p,
                         .out_normals = k ? m->k1n : m->k0n};
        CHECKF(skin_run(&kj), "keys");
    }
    d.key0_pos = m->k0p;
    d.key0_nrm = m->k0n;
    d.key1_pos = m->k1p;
    d.key1_nrm = m->k1n;
    gfx_skin_bench_t *b = gfx_skin_bench_create(&d);
    CHECKF(b != NULL, "create");
    if (!b)
        return;
    static const struct {
        gfx_skin_bench_path_t path;
        int method;
        const char *name;
    } runs[] = {{GFX_SKIN_BENCH_SKIN, 0, "lbs-points"},
                {GFX_SKIN_BENCH_SKIN, 1, "lbs-matrix"},
                {GFX_SKIN_BENCH_SKIN, 2, "dqs"},
                {GFX_SKIN_BENCH_UNBINNED, 1, "unbinned"},
                {GFX_SKIN_BENCH_BINNED, 1, "binned"},
                {GFX_SKIN_BENCH_COMPRESSED, 1, "compressed"},
                {GFX_SKIN_BENCH_SKIN_ONCE, 1, "skin-once"},
                {GFX_SKIN_BENCH_PER_PASS, 1, "per-pass"},
                {GFX_SKIN_BENCH_COMPUTE, 0, "compute lbs-points"},
                {GFX_SKIN_BENCH_COMPUTE, 1, "compute lbs-matrix"},
                {GFX_SKIN_BENCH_COMPUTE, 2, "compute dqs"}};
    double worst = 0, other_min = INFINITY;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        for (int k = 1; k <= 4; k++) {
            gfx_skin_bench_run_desc_t rd = {
                .path = runs[i].path, .method = runs[i].method, .influences = k, .warmup = 0, .repeats = 1};
            gfx_skin_bench_result_t r;
            CHECKF(gfx_skin_bench_run(b, &rd, &r), "%s run", runs[i].name);
            CHECKF(gfx_skin_bench_read(b, m->out, m->covered), "%s read", runs[i].name);
            bool unpacked = runs[i].path == GFX_SKIN_BENCH_COMPRESSED;
            int ref_method = runs[i].method == 2 ? 2 : 0;
            CHECKF(reference(m, unpacked, ref_method, k, m->ref, m->scratch), "skin_run");
            double pos, dir;
            compare(m, &pos, &dir);
            printf("%-11s %d influences: max |dpos| %.3g cm (%.3g of height), max |ddir| %.3g; wall %.1f us, query "
                   "%.1f us\n",
                   runs[i].name, k, pos, pos / HEIGHT_CM, dir, r.wall_median_s * 1e6, r.query_median_s * 1e6);
            CHECKF(pos <= POS_TOL_REL * HEIGHT_CM && dir <= DIR_TOL, "%s, %d influences: %.3g cm, %.3g", runs[i].name,
                   k, pos, dir);
            worst = fmax(worst, pos / HEIGHT_CM);
            CHECKF(r.wall_median_s > 0, "%s: no wall time", runs[i].name);
            /* The check must be able to fail: another truncation differs. */
            CHECKF(reference(m, unpacked, ref_method, k == 1 ? 4 : 1, m->ref, m->scratch), "skin_run");
            compare(m, &pos, &dir);
            other_min = fmin(other_min, pos / HEIGHT_CM);
            if (runs[i].path == GFX_SKIN_BENCH_SKIN_ONCE || runs[i].path == GFX_SKIN_BENCH_PER_PASS)
                CHECKF(gfx_skin_bench_read_image(
                           b, runs[i].path == GFX_SKIN_BENCH_SKIN_ONCE ? m->img_once : m->img_pass, NULL),
                       "read image");
        }
    }
    long diff = 0, covered = 0;
    for (int p = 0; p < TARGET * TARGET; p++) {
        int d0 = 0;
        for (int c = 0; c < 3; c++)
            d0 = abs(m->img_once[4 * p + c] - m->img_pass[4 * p + c]) > d0
                     ? abs(m->img_once[4 * p + c] - m->img_pass[4 * p + c])
                     : d0;
        diff += d0 > 8;
        covered += m->img_once[4 * p + 3] != 0;
    }
    printf("worst relative error %.3g; smallest error against another truncation %.3g; images: %ld of %d pixels "
           "differ, the tube covers %ld\n",
           worst, other_min, diff, TARGET * TARGET, covered);
    CHECKF(other_min > 10 * POS_TOL_REL, "another truncation matches too: the comparison could not fail");
    CHECKF(covered > TARGET * TARGET / 20, "the tube covers only %ld pixels", covered);
    CHECKF(diff <= TARGET * TARGET / 500, "skin-once and per-pass images differ in %ld pixels", diff);
    static const float ts[] = {0.0f, 0.375f, 1.0f};
    for (int i = 0; i < 3; i++) {
        gfx_skin_bench_run_desc_t rd = {.path = GFX_SKIN_BENCH_LERP, .influences = 4, .repeats = 1, .lerp_t = ts[i]};
        gfx_skin_bench_result_t r;
        CHECKF(gfx_skin_bench_run(b, &rd, &r) && gfx_skin_bench_read(b, m->out, m->covered), "lerp run");
        skin_hybrid_job_t hj = {.vertex_count = NV,
                                .t = ts[i],
                                .key0_pos = m->k0p,
                                .key1_pos = m->k1p,
                                .key0_nrm = m->k0n,
                                .key1_nrm = m->k1n,
                                .out_pos = m->lp,
                                .out_nrm = m->ln};
        CHECKF(skin_hybrid_run(&hj), "skin_hybrid_run");
        double pos = 0, dir = 0, key_gap = 0;
        for (int v = 0; v < NV; v++)
            for (int k = 0; k < 3; k++) {
                pos = fmax(pos, fabs((double)m->out[v * NF + k] - m->lp[3 * v + k]));
                dir = fmax(dir, fabs((double)m->out[v * NF + 3 + k] - m->ln[3 * v + k]));
                key_gap = fmax(key_gap, fabs((double)m->k0p[3 * v + k] - m->k1p[3 * v + k]));
            }
        printf("lerp t=%.3f: max |dpos| %.3g cm, max |dnrm| %.3g (keys differ by up to %.3g cm)\n", (double)ts[i], pos,
               dir, key_gap);
        /* At the keys the lerp is exact: (1 - 0) k0 + 0 k1 = k0. */
        double tol = ts[i] == 0.0f || ts[i] == 1.0f ? 0.0 : POS_TOL_REL * HEIGHT_CM;
        CHECKF(pos <= tol && dir <= DIR_TOL && key_gap > 10 * POS_TOL_REL * HEIGHT_CM, "lerp t=%.3f: %.3g cm, %.3g",
               (double)ts[i], pos, dir);
    }
    gfx_skin_bench_destroy(b);
}

int main(void)
{
    paths_init(NULL);
    gl_test_t gl;
    if (!gl_test_open(&gl, "test_skin_bench_gpu", 64, 64, &(gfx_desc_t){.debug = true}))
        return 1;
    printf("renderer: %s | %s\n", gfx_get_info()->renderer, gfx_get_info()->version);
    static mesh_t m;
    make_mesh(&m);
    check_limits(&m);
    check_paths(&m);
    gl_test_close(&gl);
    return check_summary();
}
