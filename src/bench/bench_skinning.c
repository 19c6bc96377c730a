/* `strider bench skinning`: CPU skinning paths (reference, scalar, SSE2,
 * AVX2+FMA, threaded, dual quaternion) over vertex counts, bone counts and
 * influence counts, and GPU paths (bench/gpu/gfx_skin_bench: the game's
 * skin.glsl variants, Cebenoyan's influence binning, Gosselin's compressed
 * stream, skin-once vs per-pass) on a character mesh, plus the error of
 * Cebenoyan's CPU-key / GPU-lerp hybrid over a walk clip and of the
 * compressed stream. Every row is checked against the scalar reference on
 * the same inputs (GPU output read back, binned output un-permuted), and
 * thread counts must give bit-identical checksums. A GL context is opened
 * only when a GPU path is selected; GPU paths are timed round-robin. */
#include "bench/bench_internal.h"

#include "anim/bvh.h"
#include "anim/pose.h"
#include "anim/skin_hybrid.h"
#include "anim/vcompress.h"
#include "asset/character.h"
#include "asset/import_file.h"
#include "bench/bench_gl.h"
#include "bench/gpu/gfx_skin_bench.h"
#include "bench/skin_bench.h"
#include "core/file.h"
#include "core/log.h"
#include "core/paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Positions are within ±50 cm before a palette translation of up to ±50 cm;
 * 1e-4 of a 170 cm character is the bound the GPU paths are held to. */
#define SKIN_AGREE_POS_CM 0.017
#define SKIN_AGREE_NRM 1e-4
/* GPU rows: positions within this fraction of the mesh height, unit vectors
 * within GPU_AGREE_DIR (as tests/skin_gpu). */
#define GPU_AGREE_POS_REL 1e-4
#define GPU_AGREE_DIR 1e-3
/* skin-once vs per-pass images: a pixel differs when a channel moves more
 * than this (0..255); at most this fraction of the pixels may differ
 * (the two vertex shaders may round differently at triangle edges). */
#define IMAGE_PIXEL_TOL 8
#define IMAGE_MAX_DIFF_FRACTION 0.002
/* The GPU paths' pose: every joint turned by up to this about a random axis. */
#define GPU_POSE_MAX_RAD 0.6f
#define GPU_POSE_SEED 12345u
/* Hybrid: frames of the clip, starting after its first frames (the 60 fps
 * CMU clips ramp in from a near-rest pose over their first 3 frames). */
#define HYBRID_FIRST_FRAME 10
#define HYBRID_FRAMES 121
#define DEFAULT_CLIP "../shared/mocap/cmu/extra_60fps/46_01.bvh"
#define DEFAULT_MESH "assets/characters/strider.chr"
#define SMOKE_TARGET_SIZE 128
/* Where between its keys the GPU lerp path's frame lies. */
#define HYBRID_LERP_T 0.375f

enum {
    PATH_REFERENCE,
    PATH_SCALAR,
    PATH_SSE2,
    PATH_AVX2,
    PATH_AVX512,
    PATH_DQS,
    PATH_COPY,
    PATH_GPU_POINTS,
    PATH_GPU_MATRIX,
    PATH_GPU_DQS,
    PATH_GPU_COMPUTE,
    PATH_GPU_UNBINNED,
    PATH_GPU_BINNED,
    PATH_GPU_COMPRESSED,
    PATH_GPU_SKIN_ONCE,
    PATH_GPU_PER_PASS,
    PATH_GPU_LERP,
    PATH_HYBRID,
    PATH_COUNT,
    /* Group names accepted by --paths. */
    PATH_ALL_CPU = PATH_COUNT,
    PATH_ALL_GPU,
    PATH_NAMES
};
static const char *const k_paths[PATH_NAMES] = {"cpu-reference",   "cpu-scalar",     "cpu-sse2",      "cpu-avx2",
                                                "cpu-avx512",      "cpu-dqs",        "cpu-copy",      "gpu-lbs-points",
                                                "gpu-lbs-matrix",  "gpu-dqs",        "gpu-compute",   "gpu-unbinned",
                                                "gpu-binned",      "gpu-compressed", "gpu-skin-once", "gpu-per-pass",
                                                "gpu-hybrid-lerp", "hybrid",         "cpu",           "gpu"};

static bool is_gpu(int p) { return p >= PATH_GPU_POINTS && p <= PATH_GPU_LERP; }

/* A .chr mesh (all meshes in one numbering), posed, with everything the
 * GPU paths need. */
typedef struct mesh_data_t {
    chr_character_t chr;
    int nv, ni;
    float *pos, *nrm, *tan, *w;
    uint16_t *j;
    uint32_t *idx;
    float palette[SKEL_MAX_JOINTS * POSE_MAT_FLOATS];
    float dq[SKEL_MAX_JOINTS * POSE_DQ_FLOATS];
    skin_bench_mesh_t m;
    char name[64];
} mesh_data_t;

static void mesh_free(mesh_data_t *d)
{
    free(d->pos);
    free(d->nrm);
    free(d->tan);
    free(d->w);
    free(d->j);
    free(d->idx);
    chr_free(&d->chr);
}

static uint32_t g_rng;
static float frand(void)
{
    g_rng = g_rng * 1664525u + 1013904223u;
    return (float)(g_rng >> 8) / 16777216.0f;
}

/* A reproducible bent pose: the rest pose with every joint turned. */
static bool mesh_pose(mesh_data_t *d)
{
    static pose_t pose;
    static pose_bind_t bind;
    static float model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS], rot[SKEL_MAX_JOINTS][4];
    const skel_t *s = &d->chr.skel;
    g_rng = GPU_POSE_SEED;
    pose_rest(s, &pose);
    for (int j = 0; j < pose.joint_count; j++) {
        float a[3] = {frand() - 0.5f, frand() - 0.5f, frand() - 0.5f}, q[4], r[4];
        float len = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (len < 1e-3f)
            continue;
        for (int k = 0; k < 3; k++)
            a[k] /= len;
        pose_quat_axis_angle(a, (frand() * 2.0f - 1.0f) * GPU_POSE_MAX_RAD, q);
        pose_quat_mul(pose.rot[j], q, r);
        memcpy(pose.rot[j], r, sizeof r);
    }
    pose_bind_from_rest(s, &bind);
    pose_model_job_t mj = {
        .skel = s, .local = &pose, .capacity = SKEL_MAX_JOINTS, .model_mat = model, .model_rot = rot};
    pose_palette_job_t pj = {.bind = &bind,
                             .joint_count = s->joint_count,
                             .model_mat = (const float(*)[POSE_MAT_FLOATS])model,
                             .model_rot = (const float(*)[4])rot,
                             .palette = (float(*)[POSE_MAT_FLOATS])d->palette,
                             .dq = (float(*)[POSE_DQ_FLOATS])d->dq};
    return pose_model_run(&mj) && pose_palette_run(&pj);
}

static bool mesh_load(mesh_data_t *d, const char *path)
{
    memset(d, 0, sizeof *d);
    /* A .chr, or a glTF character imported as the game imports it. */
    if (!imp_load_character(path, NULL, NULL, &d->chr, NULL))
        return false;
    const char *base = strrchr(path, '/');
    snprintf(d->name, sizeof d->name, "%.60s", base ? base + 1 : path);
    long nv = 0, ni = 0;
    for (uint32_t m = 0; m < d->chr.mesh_count; m++) {
        nv += d->chr.meshes[m].vertex_count;
        ni += d->chr.meshes[m].index_count;
    }
    size_t n = (size_t)nv;
    d->nv = (int)nv;
    d->ni = (int)ni;
    d->pos = malloc(n * 3 * sizeof(float));
    d->nrm = malloc(n * 3 * sizeof(float));
    d->tan = malloc(n * 4 * sizeof(float));
    d->w = malloc(n * 4 * sizeof(float));
    d->j = malloc(n * 4 * sizeof(uint16_t));
    d->idx = malloc((size_t)ni * sizeof(uint32_t));
    if (!d->pos || !d->nrm || !d->tan || !d->w || !d->j || !d->idx) {
        log_error("%s: out of memory for %ld vertices", path, nv);
        return false;
    }
    size_t v = 0, i = 0;
    float ylo = INFINITY, yhi = -INFINITY;
    for (uint32_t m = 0; m < d->chr.mesh_count; m++) {
        const chr_mesh_t *mesh = &d->chr.meshes[m];
        uint32_t first = (uint32_t)v;
        for (uint32_t k = 0; k < mesh->index_count; k++)
            d->idx[i++] = mesh->indices[k] + first;
        for (uint32_t k = 0; k < mesh->vertex_count; k++, v++) {
            const chr_vertex_t *x = &mesh->vertices[k];
            memcpy(d->pos + 3 * v, x->pos, 3 * sizeof(float));
            memcpy(d->nrm + 3 * v, x->normal, 3 * sizeof(float));
            memcpy(d->tan + 4 * v, x->tangent, 4 * sizeof(float));
            memcpy(d->w + 4 * v, x->weights, 4 * sizeof(float));
            memcpy(d->j + 4 * v, x->joints, 4 * sizeof(uint16_t));
            ylo = fminf(ylo, x->pos[1]);
            yhi = fmaxf(yhi, x->pos[1]);
        }
    }
    if (!mesh_pose(d))
        return false;
    d->m = (skin_bench_mesh_t){.vertex_count = d->nv,
                               .joint_count = d->chr.skel.joint_count,
                               .positions = d->pos,
                               .normals = d->nrm,
                               .tangents = d->tan,
                               .joints = d->j,
                               .weights = d->w,
                               .palette = d->palette,
                               .dq_palette = d->dq,
                               .height_cm = yhi - ylo};
    return true;
}

/* Max |a - b| over the 10 captured floats of the covered vertices: positions
 * (cm) into *pos, normals and tangents into *dir. */
static void compare_out(const float *gpu, const float *ref, const uint8_t *covered, int n, double *pos, double *dir)
{
    *pos = *dir = 0;
    for (size_t v = 0; v < (size_t)n; v++) {
        if (covered && !covered[v])
            continue;
        for (int k = 0; k < GFX_SKIN_BENCH_OUT_FLOATS; k++) {
            double e = fabs((double)gpu[v * GFX_SKIN_BENCH_OUT_FLOATS + k] - ref[v * GFX_SKIN_BENCH_OUT_FLOATS + k]);
            e = isfinite(e) ? e : INFINITY;
            if (k < 3)
                *pos = fmax(*pos, e);
            else
                *dir = fmax(*dir, e);
        }
    }
}

/* The scalar CPU reference of the GPU output layout (10 floats a vertex). */
static bool cpu_reference(const skin_bench_mesh_t *m, skin_method_t method, int influences, float *out, float *scratch)
{
    size_t n = (size_t)m->vertex_count;
    float *p = scratch, *nr = scratch + 3 * n, *t = scratch + 6 * n;
    skin_job_t j = {.vertex_count = m->vertex_count,
                    .influences = influences,
                    .method = method,
                    .isa = SKIN_ISA_SCALAR,
                    .positions = m->positions,
                    .normals = m->normals,
                    .tangents = m->tangents,
                    .joints_u16 = m->joints,
                    .weights = m->weights,
                    .joint_count = m->joint_count,
                    .palette = m->palette,
                    .dq_palette = m->dq_palette,
                    .out_positions = p,
                    .out_normals = nr,
                    .out_tangents = t};
    if (!skin_run(&j))
        return false;
    for (size_t v = 0; v < n; v++) {
        memcpy(out + v * GFX_SKIN_BENCH_OUT_FLOATS, p + 3 * v, 3 * sizeof(float));
        memcpy(out + v * GFX_SKIN_BENCH_OUT_FLOATS + 3, nr + 3 * v, 3 * sizeof(float));
        memcpy(out + v * GFX_SKIN_BENCH_OUT_FLOATS + 6, t + 4 * v, 4 * sizeof(float));
    }
    return true;
}

/* Everything the GPU paths share. */
typedef struct gpu_state_t {
    mesh_data_t *mesh;
    gfx_skin_bench_t *bench;
    int *order;
    skin_bench_bins_t bins;
    vcompress_vertex_t *packed;
    vcompress_params_t params;
    vcompress_error_t packed_err;
    skin_bench_mesh_t unpacked; /* the compressed stream decoded on the CPU */
    float *u_pos, *u_nrm, *u_tan, *u_w;
    uint16_t *u_j;
    float *out, *ref, *ref2, *scratch;
    float *k0p, *k0n, *k1p, *k1n; /* hybrid keys: the pose skinned by LBS and by DQS */
    uint8_t *covered;
    uint8_t *image_once, *image_pass;
    int image_once_infl, image_pass_infl;
    double query_ratio_min, query_ratio_max;
    int query_rows;
    /* Worst over the influence counts run: */
    double comp_bound_ratio, comp_err_cm, comp_err_dir; /* compressed vs uncompressed */
    long image_diff_px, image_covered_px;               /* skin-once vs per-pass */
    int image_compares;
} gpu_state_t;

static void gpu_free(gpu_state_t *g)
{
    gfx_skin_bench_destroy(g->bench);
    free(g->order);
    free(g->packed);
    free(g->u_pos);
    free(g->u_nrm);
    free(g->u_tan);
    free(g->u_w);
    free(g->u_j);
    free(g->out);
    free(g->ref);
    free(g->ref2);
    free(g->scratch);
    free(g->k0p);
    free(g->k0n);
    free(g->k1p);
    free(g->k1n);
    free(g->covered);
    free(g->image_once);
    free(g->image_pass);
}

/* The view sphere of the passes: around the CPU-skinned pose. */
static void view_sphere(const float *ref10, int n, float c[3], float *r)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < (size_t)n; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], ref10[v * GFX_SKIN_BENCH_OUT_FLOATS + k]);
            hi[k] = fmaxf(hi[k], ref10[v * GFX_SKIN_BENCH_OUT_FLOATS + k]);
        }
    float d2 = 0;
    for (int k = 0; k < 3; k++) {
        c[k] = 0.5f * (lo[k] + hi[k]);
        d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    /* Half the diagonal, plus a margin so nothing touches the edges. */
    *r = 0.55f * sqrtf(d2) + 1.0f;
}

static bool gpu_setup(gpu_state_t *g, mesh_data_t *mesh, int target_size)
{
    memset(g, 0, sizeof *g);
    g->mesh = mesh;
    size_t n = (size_t)mesh->nv;
    g->order = malloc(n * sizeof *g->order);
    g->packed = malloc(n * sizeof *g->packed);
    g->u_pos = malloc(n * 3 * sizeof(float));
    g->u_nrm = malloc(n * 3 * sizeof(float));
    g->u_tan = malloc(n * 4 * sizeof(float));
    g->u_w = malloc(n * 4 * sizeof(float));
    g->u_j = malloc(n * 4 * sizeof(uint16_t));
    g->out = malloc(n * GFX_SKIN_BENCH_OUT_FLOATS * sizeof(float));
    g->ref = malloc(n * GFX_SKIN_BENCH_OUT_FLOATS * sizeof(float));
    g->ref2 = malloc(n * GFX_SKIN_BENCH_OUT_FLOATS * sizeof(float));
    g->scratch = malloc(n * 10 * sizeof(float));
    g->covered = malloc(n);
    g->k0p = malloc(n * 3 * sizeof(float));
    g->k0n = malloc(n * 3 * sizeof(float));
    g->k1p = malloc(n * 3 * sizeof(float));
    g->k1n = malloc(n * 3 * sizeof(float));
    if (!g->k0p || !g->k0n || !g->k1p || !g->k1n || !g->order || !g->packed || !g->u_pos || !g->u_nrm || !g->u_tan ||
        !g->u_w || !g->u_j || !g->out || !g->ref || !g->ref2 || !g->scratch || !g->covered) {
        log_error("bench skinning: out of memory for %zu vertices", n);
        return false;
    }
    skin_bench_bin_influences(mesh->nv, mesh->w, SKIN_MAX_INFLUENCES, g->order, &g->bins);
    vcompress_pack_job_t pj = {.vertex_count = mesh->nv,
                               .positions = mesh->pos,
                               .normals = mesh->nrm,
                               .tangents = mesh->tan,
                               .joints = mesh->j,
                               .weights = mesh->w,
                               .joint_count = mesh->m.joint_count,
                               .out_vertices = g->packed,
                               .out_params = &g->params};
    if (!vcompress_pack(&pj))
        return false;
    vcompress_measure(&pj, &g->packed_err);
    vcompress_unpack(&g->params, g->packed, mesh->nv, g->u_pos, g->u_nrm, g->u_tan, g->u_j, g->u_w);
    g->unpacked = mesh->m;
    g->unpacked.positions = g->u_pos;
    g->unpacked.normals = g->u_nrm;
    g->unpacked.tangents = g->u_tan;
    g->unpacked.joints = g->u_j;
    g->unpacked.weights = g->u_w;
    gfx_skin_bench_desc_t d = {.vertex_count = mesh->nv,
                               .joint_count = mesh->m.joint_count,
                               .positions = mesh->pos,
                               .normals = mesh->nrm,
                               .tangents = mesh->tan,
                               .joints = mesh->j,
                               .weights = mesh->w,
                               .palette = mesh->palette,
                               .dq_palette = mesh->dq,
                               .indices = mesh->idx,
                               .index_count = mesh->ni,
                               .bin_order = g->order,
                               .packed = g->packed,
                               .target_size = target_size,
                               .label = "bench_skin"};
    memcpy(d.bin_first, g->bins.first, sizeof d.bin_first);
    memcpy(d.bin_count, g->bins.count, sizeof d.bin_count);
    memcpy(d.pos_bias, g->params.pos_bias, sizeof d.pos_bias);
    memcpy(d.pos_extent, g->params.pos_extent, sizeof d.pos_extent);
    if (!cpu_reference(&mesh->m, SKIN_LBS_POINTS, SKIN_MAX_INFLUENCES, g->ref, g->scratch))
        return false;
    view_sphere(g->ref, mesh->nv, d.view_center, &d.view_radius);
    /* Two different keys for the lerp: the content does not change its cost. */
    for (int k = 0; k < 2; k++) {
        skin_job_t kj = {.vertex_count = mesh->nv,
                         .influences = SKIN_MAX_INFLUENCES,
                         .method = k ? SKIN_DQS : SKIN_LBS_MATRIX,
                         .isa = SKIN_ISA_SCALAR,
                         .positions = mesh->pos,
                         .normals = mesh->nrm,
                         .joints_u16 = mesh->j,
                         .weights = mesh->w,
                         .joint_count = mesh->m.joint_count,
                         .palette = mesh->palette,
                         .dq_palette = mesh->dq,
                         .out_positions = k ? g->k1p : g->k0p,
                         .out_normals = k ? g->k1n : g->k0n};
        if (!skin_run(&kj))
            return false;
    }
    d.key0_pos = g->k0p;
    d.key0_nrm = g->k0n;
    d.key1_pos = g->k1p;
    d.key1_nrm = g->k1n;
    g->bench = gfx_skin_bench_create(&d);
    g->query_ratio_min = INFINITY;
    g->query_ratio_max = 0;
    return g->bench != NULL;
}

/* Compressed vs uncompressed (LBS): |out' - out| <= |p' - p| + sum_i
 * |w'_i - w_i| |M_i p - M_0 p| per vertex (rigid M_i; the weights of both
 * sum to 1). Returns the largest ratio of the actual difference to its
 * bound (+ the float tolerance TOL), over the vertices; <= 1 passes. */
static double compressed_bound_ratio(const gpu_state_t *g, int influences, const float *gpu, double tol)
{
    const skin_bench_mesh_t *m = &g->mesh->m;
    double worst = 0;
    for (size_t v = 0; v < (size_t)m->vertex_count; v++) {
        const float *p = m->positions + 3 * v, *pq = g->u_pos + 3 * v;
        float w[4], wq[4], s = 0, sq = 0;
        for (int i = 0; i < 4; i++) {
            w[i] = i < influences ? m->weights[4 * v + i] : 0.0f;
            wq[i] = i < influences ? g->u_w[4 * v + i] : 0.0f;
            s += w[i];
            sq += wq[i];
        }
        double dp = sqrt((double)(p[0] - pq[0]) * (p[0] - pq[0]) + (double)(p[1] - pq[1]) * (p[1] - pq[1]) +
                         (double)(p[2] - pq[2]) * (p[2] - pq[2]));
        double bound = dp, mp0[3] = {0, 0, 0};
        for (int i = 0; i < influences; i++) {
            const float *M = m->palette + 12 * (size_t)m->joints[4 * v + i];
            double mp[3], d2 = 0;
            for (int r = 0; r < 3; r++)
                mp[r] = (double)M[4 * r] * p[0] + (double)M[4 * r + 1] * p[1] + (double)M[4 * r + 2] * p[2] +
                        M[4 * r + 3];
            if (i == 0)
                memcpy(mp0, mp, sizeof mp0);
            for (int r = 0; r < 3; r++)
                d2 += (mp[r] - mp0[r]) * (mp[r] - mp0[r]);
            /* Truncated weights are renormalised on both sides. */
            bound += fabs((double)wq[i] / (sq > 0 ? sq : 1) - (double)w[i] / (s > 0 ? s : 1)) * sqrt(d2);
        }
        const float *o = gpu + v * GFX_SKIN_BENCH_OUT_FLOATS, *r = g->ref + v * GFX_SKIN_BENCH_OUT_FLOATS;
        double e = sqrt((double)(o[0] - r[0]) * (o[0] - r[0]) + (double)(o[1] - r[1]) * (o[1] - r[1]) +
                        (double)(o[2] - r[2]) * (o[2] - r[2]));
        worst = fmax(worst, isfinite(e) ? e / (bound + tol) : INFINITY);
    }
    return worst;
}

static long image_diff(const uint8_t *a, const uint8_t *b, int px)
{
    long n = 0;
    for (long i = 0; i < (long)px * 4; i += 4) {
        int d = 0;
        for (int c = 0; c < 3; c++)
            d = abs((int)a[i + c] - b[i + c]) > d ? abs((int)a[i + c] - b[i + c]) : d;
        n += d > IMAGE_PIXEL_TOL;
    }
    return n;
}

typedef struct gpu_row_t {
    int path, influences;
    gfx_skin_bench_result_t r;
    double pos_err, dir_err;
    uint32_t checksum;
} gpu_row_t;

static gfx_skin_bench_run_desc_t gpu_desc(int p, int influences, int warmup, int repeats)
{
    static const int k_map[] = {[PATH_GPU_POINTS] = GFX_SKIN_BENCH_SKIN,
                                [PATH_GPU_MATRIX] = GFX_SKIN_BENCH_SKIN,
                                [PATH_GPU_DQS] = GFX_SKIN_BENCH_SKIN,
                                [PATH_GPU_COMPUTE] = GFX_SKIN_BENCH_COMPUTE,
                                [PATH_GPU_UNBINNED] = GFX_SKIN_BENCH_UNBINNED,
                                [PATH_GPU_BINNED] = GFX_SKIN_BENCH_BINNED,
                                [PATH_GPU_COMPRESSED] = GFX_SKIN_BENCH_COMPRESSED,
                                [PATH_GPU_SKIN_ONCE] = GFX_SKIN_BENCH_SKIN_ONCE,
                                [PATH_GPU_PER_PASS] = GFX_SKIN_BENCH_PER_PASS,
                                [PATH_GPU_LERP] = GFX_SKIN_BENCH_LERP};
    int method = p == PATH_GPU_POINTS ? SKIN_LBS_POINTS : p == PATH_GPU_DQS ? SKIN_DQS : SKIN_LBS_MATRIX;
    gfx_skin_bench_run_desc_t rd = {.path = (gfx_skin_bench_path_t)k_map[p],
                                    .method = method,
                                    .influences = influences,
                                    .warmup = warmup,
                                    .repeats = repeats,
                                    .lerp_t = HYBRID_LERP_T};
    return rd;
}

/* Runs GPU path P at INFLUENCES once more, reads it back and checks it
 * (ROW's times come from the round-robin timing); false on a GL or set-up
 * failure (disagreements are counted in *failures). */
static bool gpu_check(gpu_state_t *g, int p, int influences, gpu_row_t *row, int *failures)
{
    int method = p == PATH_GPU_POINTS ? SKIN_LBS_POINTS : p == PATH_GPU_DQS ? SKIN_DQS : SKIN_LBS_MATRIX;
    gfx_skin_bench_run_desc_t rd = gpu_desc(p, influences, 0, 1);
    gfx_skin_bench_result_t once;
    if (!gfx_skin_bench_run(g->bench, &rd, &once) || !gfx_skin_bench_read(g->bench, g->out, g->covered))
        return false;
    const skin_bench_mesh_t *m = p == PATH_GPU_COMPRESSED ? &g->unpacked : &g->mesh->m;
    if (p == PATH_GPU_LERP) {
        /* skin_hybrid_run: the same lerp on the CPU. */
        size_t n = (size_t)g->mesh->nv;
        skin_hybrid_job_t hj = {.vertex_count = g->mesh->nv,
                                .t = HYBRID_LERP_T,
                                .key0_pos = g->k0p,
                                .key1_pos = g->k1p,
                                .key0_nrm = g->k0n,
                                .key1_nrm = g->k1n,
                                .out_pos = g->scratch,
                                .out_nrm = g->scratch + 3 * n};
        if (!skin_hybrid_run(&hj))
            return false;
        memset(g->ref2, 0, n * GFX_SKIN_BENCH_OUT_FLOATS * sizeof(float));
        for (size_t v = 0; v < n; v++) {
            memcpy(g->ref2 + v * GFX_SKIN_BENCH_OUT_FLOATS, g->scratch + 3 * v, 3 * sizeof(float));
            memcpy(g->ref2 + v * GFX_SKIN_BENCH_OUT_FLOATS + 3, g->scratch + 3 * n + 3 * v, 3 * sizeof(float));
        }
    } else if (!cpu_reference(m, method == SKIN_DQS ? SKIN_DQS : SKIN_LBS_POINTS, influences, g->ref2, g->scratch)) {
        /* The reference of the LBS paths is transform-then-blend (the same sum). */
        return false;
    }
    compare_out(g->out, g->ref2, g->covered, g->mesh->nv, &row->pos_err, &row->dir_err);
    row->checksum = file_checksum32(g->out, (size_t)g->mesh->nv * GFX_SKIN_BENCH_OUT_FLOATS * sizeof(float));
    double height = g->mesh->m.height_cm;
    if (!(row->pos_err <= GPU_AGREE_POS_REL * height) || !(row->dir_err <= GPU_AGREE_DIR)) {
        fprintf(stderr,
                "strider bench skinning: %s (%d influences) disagrees with the CPU reference: %.3g cm "
                "(%.3g of the height), direction %.3g\n",
                k_paths[p], influences, row->pos_err, row->pos_err / height, row->dir_err);
        (*failures)++;
    }
    if (p == PATH_GPU_COMPRESSED) {
        /* Against the uncompressed reference: within the quantisation bound. */
        if (!cpu_reference(&g->mesh->m, SKIN_LBS_POINTS, influences, g->ref, g->scratch))
            return false;
        double ratio = compressed_bound_ratio(g, influences, g->out, GPU_AGREE_POS_REL * height);
        double e, d;
        compare_out(g->out, g->ref, NULL, g->mesh->nv, &e, &d);
        g->comp_bound_ratio = fmax(g->comp_bound_ratio, ratio);
        g->comp_err_cm = fmax(g->comp_err_cm, e);
        g->comp_err_dir = fmax(g->comp_err_dir, d);
        if (!(ratio <= 1.0)) {
            fprintf(stderr, "strider bench skinning: gpu-compressed exceeds its quantisation bound (%.3g x)\n", ratio);
            (*failures)++;
        }
    }
    if (p == PATH_GPU_SKIN_ONCE || p == PATH_GPU_PER_PASS) {
        int size = gfx_skin_bench_target_size(g->bench);
        uint8_t **img = p == PATH_GPU_SKIN_ONCE ? &g->image_once : &g->image_pass;
        if (!*img && !(*img = malloc((size_t)size * size * 4)))
            return false;
        if (!gfx_skin_bench_read_image(g->bench, *img, NULL))
            return false;
        *(p == PATH_GPU_SKIN_ONCE ? &g->image_once_infl : &g->image_pass_infl) = influences;
        if (g->image_once && g->image_pass && g->image_once_infl == g->image_pass_infl) {
            long diff = image_diff(g->image_once, g->image_pass, size * size), covered = 0;
            for (long i = 0; i < (long)size * size; i++)
                covered += g->image_once[4 * i + 3] != 0;
            g->image_diff_px = diff > g->image_diff_px ? diff : g->image_diff_px;
            g->image_covered_px = covered;
            g->image_compares++;
            if (diff > (long)(IMAGE_MAX_DIFF_FRACTION * size * size) || covered == 0) {
                fprintf(stderr, "strider bench skinning: skin-once and per-pass images differ (%ld pixels)\n", diff);
                (*failures)++;
            }
        }
    }
    double ratio = row->r.query_median_s / row->r.wall_median_s;
    g->query_ratio_min = fmin(g->query_ratio_min, ratio);
    g->query_ratio_max = fmax(g->query_ratio_max, ratio);
    g->query_rows++;
    return true;
}

/* Times every (path, influences) pair round-robin: repeat i of each pair runs
 * before repeat i + 1 of any, so a change in the shared machine's load hits
 * every path alike; then checks each pair and appends its row. */
static bool gpu_measure(gpu_state_t *g, const int *paths, const int *influences, int n, const bench_common_t *c,
                        gpu_row_t *rows, int *failures)
{
    size_t reps = (size_t)c->repeats;
    double *wall = malloc((size_t)n * reps * 2 * sizeof *wall);
    if (!wall) {
        log_error("bench skinning: out of memory for %d x %d GPU times", n, c->repeats);
        return false;
    }
    double *query = wall + (size_t)n * reps;
    bool ok = true;
    for (int k = 0; ok && k < n; k++) {
        gfx_skin_bench_run_desc_t rd = gpu_desc(paths[k], influences[k], c->warmup, 1);
        gfx_skin_bench_result_t r;
        ok = gfx_skin_bench_run(g->bench, &rd, &r);
    }
    for (size_t i = 0; ok && i < reps; i++) {
        for (int k = 0; ok && k < n; k++) {
            gfx_skin_bench_run_desc_t rd = gpu_desc(paths[k], influences[k], 0, 1);
            gfx_skin_bench_result_t r;
            ok = gfx_skin_bench_run(g->bench, &rd, &r);
            wall[(size_t)k * reps + i] = r.wall_median_s;
            query[(size_t)k * reps + i] = r.query_median_s;
        }
    }
    for (int k = 0; ok && k < n; k++) {
        gpu_row_t *row = &rows[k];
        memset(row, 0, sizeof *row);
        row->path = paths[k];
        row->influences = influences[k];
        bench_stats(wall + (size_t)k * reps, c->repeats, &row->r.wall_median_s, &row->r.wall_min_s, &row->r.wall_max_s);
        bench_stats(query + (size_t)k * reps, c->repeats, &row->r.query_median_s, &row->r.query_min_s,
                    &row->r.query_max_s);
        /* The repeats queued back to back (the GPU's clocks up). */
        gfx_skin_bench_run_desc_t rd = gpu_desc(paths[k], influences[k], 0, c->repeats);
        gfx_skin_bench_result_t r;
        ok = gfx_skin_bench_run(g->bench, &rd, &r);
        row->r.pipelined_median_s = r.pipelined_median_s;
        ok = ok && gpu_check(g, paths[k], influences[k], row, failures);
    }
    free(wall);
    return ok;
}

static void print_hybrid_row(report_table_t *t, const char *method, const char *clip, int n,
                             const skin_hybrid_error_t *e, double height)
{
    if (!report_table_row_begin(t))
        return;
    report_table_str(t, method);
    report_table_str(t, clip);
    report_table_num(t, n, 0);
    report_table_num(t, e->frames, 0);
    report_table_num(t, e->keys, 0);
    report_table_num(t, e->max_cm, 4);
    report_table_num(t, e->mean_cm, 4);
    report_table_num(t, e->max_cm / height, 6);
    report_table_num(t, e->max_key_cm, 4);
    report_table_num(t, e->max_normal_deg, 3);
    report_table_num(t, 100.0 / n, 1);
}

/* Cebenoyan's hybrid over the clip: CPU keys every N frames, lerp between.
 * Fills T (initialised here; the caller prints and frees it) and adds one
 * summary note per method to MAIN_T, so the CSV and JSON carry it too. */
static bool run_hybrid(mesh_data_t *mesh, const char *clip_path, const int *keys, int nkeys, report_table_t *main_t,
                       report_table_t *t)
{
    static bvh_t clip;
    if (!bvh_load(&clip, clip_path))
        return false;
    int frames = HYBRID_FRAMES, first = HYBRID_FIRST_FRAME;
    if (clip.frame_count < first + 2) {
        log_error("%s: %d frames; the hybrid needs at least %d", clip_path, clip.frame_count, first + 2);
        bvh_free(&clip);
        return false;
    }
    if (first + frames > clip.frame_count)
        frames = clip.frame_count - first;
    int nj = mesh->m.joint_count;
    float *pal = malloc((size_t)frames * (size_t)nj * 12 * sizeof(float));
    float *dq = malloc((size_t)frames * (size_t)nj * 8 * sizeof(float));
    bool ok = pal && dq && skin_hybrid_clip_palettes(&clip, &mesh->chr.skel, first, frames, pal, dq);
    static const char *const cols[] = {"method",
                                       "clip",
                                       "key_every",
                                       "frames",
                                       "keys",
                                       "max_err_cm",
                                       "mean_err_cm",
                                       "max_err_of_height",
                                       "max_err_at_keys_cm",
                                       "max_normal_deg",
                                       "cpu_skinned_pct"};
    char title[REPORT_TEXT_MAX];
    snprintf(title, sizeof title,
             "skinning: CPU keys + lerp (Cebenoyan) vs skinning every frame, %s, %.0f fps, "
             "frames %d..%d",
             mesh->name, 1.0 / clip.frame_time_s, first, first + frames - 1);
    report_table_init(t, title, 11, cols);
    const char *base = strrchr(clip_path, '/');
    base = base ? base + 1 : clip_path;
    for (int mi = 0; ok && mi < 2; mi++) {
        skin_method_t method = mi ? SKIN_DQS : SKIN_LBS_MATRIX;
        char note[REPORT_NOTE_MAX];
        int len = snprintf(note, sizeof note,
                           "hybrid %s, CPU keys every N frames + lerp vs every frame, %s frames %d..%d: max / mean "
                           "error (cm):",
                           skin_method_name(method), base, first, first + frames - 1);
        for (int k = 0; ok && k < nkeys; k++) {
            skin_hybrid_desc_t d = {.mesh = {.vertex_count = mesh->nv,
                                             .influences = SKIN_MAX_INFLUENCES,
                                             .method = method,
                                             .isa = SKIN_ISA_AUTO,
                                             .positions = mesh->pos,
                                             .normals = mesh->nrm,
                                             .joints_u16 = mesh->j,
                                             .weights = mesh->w,
                                             .joint_count = nj},
                                    .frame_count = frames,
                                    .palettes = pal,
                                    .dq_palettes = dq,
                                    .key_every = keys[k]};
            skin_hybrid_error_t e;
            ok = skin_hybrid_measure(&d, &e);
            if (ok) {
                print_hybrid_row(t, skin_method_name(method), base, keys[k], &e, mesh->m.height_cm);
                if (len > 0 && len < (int)sizeof note)
                    len += snprintf(note + len, sizeof note - (size_t)len, " N=%d %.3f / %.4f;", keys[k], e.max_cm,
                                    e.mean_cm);
            }
        }
        if (ok)
            report_table_note(main_t, "%s", note);
    }
    free(pal);
    free(dq);
    bvh_free(&clip);
    return ok;
}

static void print_vcompress(const gpu_state_t *g)
{
    const vcompress_error_t *e = &g->packed_err;
    static const char *const cols[] = {"mesh",           "bytes_before",    "bytes_after",
                                       "max_pos_err_cm", "pos_bound_cm",    "max_pos_err_of_height",
                                       "max_normal_deg", "max_tangent_deg", "handedness_flips",
                                       "max_weight_err", "joint_mismatches"};
    report_table_t t;
    report_table_init(&t, "skinning: compressed vertex stream (Gosselin) vs the source", 11, cols);
    if (report_table_row_begin(&t)) {
        report_table_str(&t, g->mesh->name);
        report_table_num(&t, e->bytes_before, 0);
        report_table_num(&t, e->bytes_after, 0);
        report_table_num(&t, e->max_pos_cm, 5);
        report_table_num(&t, e->pos_bound_cm, 5);
        report_table_num(&t, e->max_pos_cm / g->mesh->m.height_cm, 8);
        report_table_num(&t, e->max_normal_deg, 4);
        report_table_num(&t, e->max_tangent_deg, 4);
        report_table_num(&t, e->handedness_flips, 0);
        report_table_num(&t, e->max_weight, 5);
        report_table_num(&t, e->joint_mismatches, 0);
    }
    report_table_print(&t, stdout);
    report_table_free(&t);
}

/* The CPU rows of one vertex count, timed together as one set: every
 * skinning path, with both weightings, at up to BENCH_LIST_MAX influence
 * counts (a list may repeat a value). */
enum { MAX_CPU_SET = (PATH_DQS - PATH_REFERENCE + 1) * 2 * BENCH_LIST_MAX };
_Static_assert((int)MAX_CPU_SET <= (int)SKIN_BENCH_MAX_SET, "every CPU row of a vertex count fits one set");

/* One CPU row of the main table; INFLUENCES NaN for the copy floor. */
_Static_assert((int)BENCH_LIST_MAX <= (int)SKIN_BENCH_MAX_THREAD_COUNTS,
               "every --threads count fits one interleaved run");

static bool add_cpu_row(report_table_t *t, int path, const char *method, const char *weights,
                        const skin_bench_result_t *r, double speedup, double influences, const char *mesh_name)
{
    char sum[16];
    snprintf(sum, sizeof sum, "%08x", r->checksum);
    int threads = r->desc.threads;
    bool copy = path == PATH_COPY;
    if (!report_table_row_begin(t))
        return false;
    report_table_str(t, k_paths[path]);
    report_table_str(t, method);
    report_table_str(t, copy ? "-" : skin_isa_name(r->isa));
    report_table_str(t, weights);
    report_table_num(t, threads, 0);
    report_table_num(t, r->desc.vertex_count, 0);
    report_table_num(t, copy ? NAN : r->desc.joint_count, 0);
    report_table_num(t, influences, 0);
    report_table_num(t, r->median_s * 1e6, 1);
    report_table_num(t, r->min_s * 1e6, 1);
    report_table_num(t, r->max_s * 1e6, 1);
    report_table_num(t, r->median_mverts_s, 1);
    report_table_num(t, r->median_mverts_s / threads, 1);
    report_table_num(t, speedup, 2);
    report_table_num(t, copy ? NAN : r->max_pos_err_cm, 6);
    report_table_num(t, copy ? NAN : r->max_nrm_err, 7);
    report_table_str(t, sum);
    report_table_str(t, mesh_name ? mesh_name : "synthetic");
    report_table_num(t, NAN, 1);
    report_table_num(t, NAN, 3);
    report_table_num(t, NAN, 1);
    return true;
}

static void add_gpu_row(report_table_t *t, const gpu_state_t *g, const gpu_row_t *row)
{
    static const char *const methods[] = {[PATH_GPU_POINTS] = "lbs-points",
                                          [PATH_GPU_MATRIX] = "lbs-matrix",
                                          [PATH_GPU_DQS] = "dqs",
                                          [PATH_GPU_COMPUTE] = "lbs-matrix",
                                          [PATH_GPU_UNBINNED] = "lbs-matrix",
                                          [PATH_GPU_BINNED] = "lbs-matrix",
                                          [PATH_GPU_COMPRESSED] = "lbs-matrix",
                                          [PATH_GPU_SKIN_ONCE] = "lbs-matrix",
                                          [PATH_GPU_PER_PASS] = "lbs-matrix",
                                          [PATH_GPU_LERP] = "lerp"};
    char sum[16];
    snprintf(sum, sizeof sum, "%08x", row->checksum);
    double mverts = 1e-6 * g->mesh->nv / row->r.wall_median_s;
    if (!report_table_row_begin(t))
        return;
    report_table_str(t, k_paths[row->path]);
    report_table_str(t, methods[row->path]);
    report_table_str(t, "gpu");
    report_table_str(t, "renorm");
    report_table_num(t, 1, 0);
    report_table_num(t, g->mesh->nv, 0);
    report_table_num(t, g->mesh->m.joint_count, 0);
    report_table_num(t, row->influences, 0);
    report_table_num(t, row->r.wall_median_s * 1e6, 1);
    report_table_num(t, row->r.wall_min_s * 1e6, 1);
    report_table_num(t, row->r.wall_max_s * 1e6, 1);
    report_table_num(t, mverts, 1);
    report_table_num(t, mverts, 1);
    report_table_num(t, NAN, 2);
    report_table_num(t, row->pos_err, 6);
    report_table_num(t, row->dir_err, 7);
    report_table_str(t, sum);
    report_table_str(t, g->mesh->name);
    report_table_num(t, row->r.query_median_s * 1e6, 1);
    report_table_num(t, row->r.query_median_s / row->r.wall_median_s, 3);
    report_table_num(t, row->r.pipelined_median_s * 1e6, 1);
}

/* The ratios the benchmark exists for (median times of rows of the same
 * influence count), one note per pair of paths. */
static void note_ratios(report_table_t *t, const gpu_row_t *rows, int nrows)
{
    static const struct {
        int a, b;
        const char *what;
    } pairs[] = {{PATH_GPU_BINNED, PATH_GPU_UNBINNED, "binned / unbinned"},
                 {PATH_GPU_SKIN_ONCE, PATH_GPU_PER_PASS, "skin-once / per-pass"},
                 {PATH_GPU_COMPUTE, PATH_GPU_MATRIX, "compute / lbs-matrix (transform feedback)"},
                 {PATH_GPU_COMPRESSED, PATH_GPU_MATRIX, "compressed / lbs-matrix"},
                 {PATH_GPU_LERP, PATH_GPU_MATRIX, "hybrid lerp / lbs-matrix"}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        char text[REPORT_NOTE_MAX];
        int len = snprintf(text, sizeof text, "ratio %s, median wall time [min] (timer query):", pairs[k].what),
            found = 0;
        for (int i = 0; i < nrows; i++)
            for (int j = 0; j < nrows; j++)
                if (rows[i].path == pairs[k].a && rows[j].path == pairs[k].b &&
                    rows[i].influences == rows[j].influences && len > 0 && len < (int)sizeof text) {
                    len += snprintf(text + len, sizeof text - (size_t)len, " %d influences %.3f [%.3f] (%.3f);",
                                    rows[i].influences, rows[i].r.wall_median_s / rows[j].r.wall_median_s,
                                    rows[i].r.wall_min_s / rows[j].r.wall_min_s,
                                    rows[i].r.query_median_s / rows[j].r.query_median_s);
                    found++;
                }
        if (found)
            report_table_note(t, "%s", text);
    }
}

/* The command line and its defaults. */
typedef struct skin_cli_t {
    bench_common_t c;
    int sel[BENCH_LIST_MAX], nsel;
    int verts[BENCH_LIST_MAX], nverts;
    int infl[BENCH_LIST_MAX], ninfl;
    int threads[BENCH_LIST_MAX], nthreads;
    int keys[BENCH_LIST_MAX], nkeys;
    int bones, target;
    bool tangents;
    int weights[BENCH_LIST_MAX], nweights; /* indices into k_weights */
    const char *mesh_path, *clip_path;
} skin_cli_t;

/* Weightings: the kept weights renormalised, or used as given. */
static const char *const k_weights[2] = {"renorm", "given"};

/* Fills O from argv: -1 to go on, else the exit code. */
static int skin_parse(skin_cli_t *o, int argc, char **argv)
{
    *o = (skin_cli_t){.c = {.repeats = 51, .warmup = 5},
                      .verts = {90000},
                      .nverts = 1,
                      .infl = {1, 2, 3, 4},
                      .ninfl = 4,
                      .threads = {1, 2},
                      .nthreads = 2,
                      .keys = {2, 4, 8},
                      .nkeys = 3,
                      .bones = 98,
                      .weights = {0, 1},
                      .nweights = 2};
    const args_opt_t opts[] = {
        BENCH_COMMON_OPTS(&o->c),
        {.name = "--paths",
         .kind = ARGS_NAME_LIST,
         .dest = o->sel,
         .count = &o->nsel,
         .choices = k_paths,
         .nchoices = PATH_NAMES,
         .arg = "LIST",
         .help = "CPU (synthetic mesh, or --mesh):\n"
                 "  cpu-reference (transform-then-blend), cpu-scalar, cpu-sse2,\n"
                 "  cpu-avx2, cpu-avx512 (accumulated matrix), cpu-dqs (dual quaternions, widest ISA),\n"
                 "  cpu-copy (the memory floor: memcpy of the positions and normals plus a\n"
                 "  read of the joint indices, the bytes a 1-influence kernel moves; at\n"
                 "  each --threads count, split as a job is: how far memory scales)\n"
                 "GPU (a GL 4.3+ context; the character mesh, vertex shader skin.glsl):\n"
                 "  gpu-lbs-points, gpu-lbs-matrix, gpu-dqs (the game's variants,\n"
                 "  captured by transform feedback),\n"
                 "  gpu-compute (gpu-lbs-matrix's shader code in a compute pass: how\n"
                 "  the game's skin once deforms),\n"
                 "  gpu-unbinned (one variant compiled for N influences, all vertices),\n"
                 "  gpu-binned (vertices grouped by influence count, a variant per bin),\n"
                 "  gpu-compressed (24-byte stream decoded in the shader),\n"
                 "  gpu-skin-once (skin into a buffer, then depth + main pass),\n"
                 "  gpu-per-pass (depth + main pass each skin),\n"
                 "  gpu-hybrid-lerp (an in-between frame of the hybrid: lerp two\n"
                 "  CPU-skinned keys; run once, keys skinned with 4 influences)\n"
                 "hybrid: CPU keys every N frames + lerp, error over a walk clip\n"
                 "groups: cpu, gpu; default: every CPU path this CPU runs"},
        {.name = "--mesh",
         .kind = ARGS_PATH,
         .dest = &o->mesh_path,
         .arg = "PATH",
         .help = ".chr, .glb or .gltf mesh for the GPU paths and the hybrid (default\n"
                 "the shipped character) and, when given, for the CPU paths too"},
        {.name = "--clip",
         .kind = ARGS_PATH,
         .dest = &o->clip_path,
         .arg = "PATH",
         .help = "BVH clip for the hybrid (default " DEFAULT_CLIP ")"},
        {.name = "--keys",
         .kind = ARGS_INT_LIST,
         .dest = o->keys,
         .count = &o->nkeys,
         .lo = 1,
         .hi = 64,
         .arg = "LIST",
         .help = "hybrid key spacings N in frames, default 2,4,8"},
        {.name = "--vertices",
         .kind = ARGS_INT_LIST,
         .dest = o->verts,
         .count = &o->nverts,
         .lo = 1,
         .hi = 4000000,
         .arg = "LIST",
         .help = "synthetic mesh sizes, default 90000 (a mesh of about 180k triangles)"},
        {.name = "--bones",
         .kind = ARGS_INT,
         .dest = &o->bones,
         .lo = 1,
         .hi = 256,
         .arg = "N",
         .help = "synthetic palette size, 1..256, default 98"},
        {.name = "--influences",
         .kind = ARGS_INT_LIST,
         .dest = o->infl,
         .count = &o->ninfl,
         .lo = 1,
         .hi = 4,
         .arg = "LIST",
         .help = "1..4, default 1,2,3,4"},
        {.name = "--threads",
         .kind = ARGS_INT_LIST,
         .dest = o->threads,
         .count = &o->nthreads,
         .lo = 1,
         .hi = 64,
         .arg = "LIST",
         .help = "CPU threads, 1..64, default 1,2 (the CPU rows of a vertex count, every\n"
                 "path, weighting, influence count and thread count, are timed in\n"
                 "alternation)"},
        {.name = "--target",
         .kind = ARGS_INT,
         .dest = &o->target,
         .lo = 16,
         .hi = 4096,
         .arg = "N",
         .help = "pixels per side of the pass targets, 16..4096, default 512"},
        {.name = "--tangents", .kind = ARGS_FLAG, .dest = &o->tangents, .help = "also skin tangents (CPU paths)"},
        {.name = "--weights",
         .kind = ARGS_NAME_LIST,
         .dest = o->weights,
         .count = &o->nweights,
         .choices = k_weights,
         .nchoices = 2,
         .arg = "LIST",
         .help = "CPU weightings: renorm (the kept weights renormalised, output\n"
                 "directions too), given (prenormalized: weights normalised for the\n"
                 "count and used as given, no output renormalisation: the work of\n"
                 "ozz-animation's SkinningJob); default renorm,given"},
        {.kind = ARGS_TEXT, .help = BENCH_COMMON_HELP},
    };
    args_spec_t spec = bench_args_spec("strider bench skinning", "usage: strider bench skinning [options]\n", opts,
                                       (int)(sizeof opts / sizeof opts[0]));
    return bench_parse_args(&spec, argc, argv);
}

/* One `strider bench skinning` run: its options, the paths they select, its
 * inputs and its table, handed from step to step. */
typedef struct skinning_run_t {
    skin_cli_t cli;
    bench_common_t c;
    bool want[PATH_COUNT];
    bool any_gpu, any_cpu, need_mesh;
    const char *mesh_path, *clip_path;
    char default_mesh[PATHS_MAX], default_clip[PATHS_MAX];
    mesh_data_t *mesh;
    gpu_state_t *gpu;
    report_table_t t;
    int failures;
    int rc;
} skinning_run_t;

/* The paths the options select ("cpu": every CPU path this CPU runs), the
 * smoke run's sizes, and the checks of what can run: -1 to go on, else
 * the exit code. */
static int select_paths(skinning_run_t *r)
{
    skin_cli_t *o = &r->cli;
    if (o->nsel == 0)
        o->sel[o->nsel++] = PATH_ALL_CPU;
    for (int s = 0; s < o->nsel; s++) {
        for (int p = PATH_REFERENCE; o->sel[s] == PATH_ALL_CPU && p <= PATH_COPY; p++)
            r->want[p] = r->want[p] || !((p == PATH_SSE2 && !skin_isa_supported(SKIN_ISA_SSE2)) ||
                                         (p == PATH_AVX2 && !skin_isa_supported(SKIN_ISA_AVX2)) ||
                                         (p == PATH_AVX512 && !skin_isa_supported(SKIN_ISA_AVX512)));
        for (int p = PATH_GPU_POINTS; o->sel[s] == PATH_ALL_GPU && p <= PATH_GPU_LERP; p++)
            r->want[p] = true;
        if (o->sel[s] < PATH_COUNT)
            r->want[o->sel[s]] = true;
    }
    if (r->c.smoke) {
        o->verts[0] = 3001;
        o->nverts = 1;
        r->c.repeats = 3;
        r->c.warmup = 1;
        if (!o->target)
            o->target = SMOKE_TARGET_SIZE;
    }
    for (int p = 0; p < PATH_COUNT; p++) {
        r->any_gpu = r->any_gpu || (r->want[p] && is_gpu(p));
        r->any_cpu = r->any_cpu || (r->want[p] && p <= PATH_COPY);
    }
    int cpu_rows = 0;
    for (int p = PATH_REFERENCE; p <= PATH_DQS; p++)
        cpu_rows += r->want[p] ? o->nweights * o->ninfl : 0;
    if (cpu_rows > MAX_CPU_SET) {
        fprintf(stderr,
                "strider bench skinning: %d CPU rows per vertex count (paths x weightings x influence "
                "counts); at most %d are timed together\n",
                cpu_rows, (int)MAX_CPU_SET);
        return BENCH_EXIT_USAGE;
    }
    for (int p = PATH_REFERENCE; p <= PATH_COPY; p++) {
        skin_isa_t isa = p == PATH_SSE2     ? SKIN_ISA_SSE2
                         : p == PATH_AVX2   ? SKIN_ISA_AVX2
                         : p == PATH_AVX512 ? SKIN_ISA_AVX512
                                            : SKIN_ISA_SCALAR;
        if (r->want[p] && !skin_isa_supported(isa)) {
            fprintf(stderr, "strider bench skinning: %s needs an instruction set this CPU lacks\n", k_paths[p]);
            return BENCH_EXIT_RUNTIME;
        }
    }
    return -1;
}

/* The character mesh (for the GPU paths and the hybrid, and for the CPU
 * paths when --mesh is given), the clip, and the GL context with the GPU
 * engine: -1 to go on, else the exit code (what was opened closed again). */
static int open_inputs(skinning_run_t *r, bench_gl_t *gl, report_env_t *env)
{
    r->mesh_path = r->cli.mesh_path;
    r->clip_path = r->cli.clip_path;
    r->need_mesh = r->any_gpu || r->want[PATH_HYBRID] || r->mesh_path;
    if (!r->mesh_path && r->need_mesh) {
        if (!paths_join(DEFAULT_MESH, r->default_mesh, sizeof r->default_mesh))
            return BENCH_EXIT_RUNTIME;
        r->mesh_path = r->default_mesh;
    }
    if (!r->clip_path) {
        if (!paths_join(DEFAULT_CLIP, r->default_clip, sizeof r->default_clip))
            return BENCH_EXIT_RUNTIME;
        r->clip_path = r->default_clip;
    }
    if (r->need_mesh && !mesh_load(r->mesh, r->mesh_path)) {
        mesh_free(r->mesh);
        return BENCH_EXIT_RUNTIME;
    }
    if (!r->any_gpu)
        return -1;
    char msg[256];
    if (!bench_gl_open(gl, env)) {
        mesh_free(r->mesh);
        return BENCH_EXIT_RUNTIME;
    }
    if (!gfx_skin_bench_limits_ok(gfx_get_info(), r->mesh->m.joint_count, msg, sizeof msg)) {
        fprintf(stderr, "strider bench skinning: %s: %s\n", r->mesh_path, msg);
        bench_gl_close(gl);
        mesh_free(r->mesh);
        return BENCH_EXIT_RUNTIME;
    }
    if (!gpu_setup(r->gpu, r->mesh, r->cli.target)) {
        gpu_free(r->gpu);
        bench_gl_close(gl);
        mesh_free(r->mesh);
        return BENCH_EXIT_RUNTIME;
    }
    return -1;
}

/* cpu-copy: the memory floor of the bytes a 1-influence kernel moves. */
static void run_copy_floor(skinning_run_t *r)
{
    const skin_cli_t *o = &r->cli;
    const mesh_data_t *mesh = r->mesh;
    for (int vi = 0; r->want[PATH_COPY] && vi < (r->mesh_path ? 1 : o->nverts) && r->rc == BENCH_EXIT_OK; vi++) {
        skin_bench_desc_t d = {
            .vertex_count = r->mesh_path ? mesh->nv : o->verts[vi], .warmup = r->c.warmup, .repeats = r->c.repeats};
        static skin_bench_result_t res[SKIN_BENCH_MAX_THREAD_COUNTS];
        if (!skin_bench_copy_floor_threads(&d, o->threads, o->nthreads, res)) {
            r->rc = BENCH_EXIT_RUNTIME;
            break;
        }
        for (int ti = 0; ti < o->nthreads && r->rc == BENCH_EXIT_OK; ti++)
            if (!add_cpu_row(&r->t, PATH_COPY, "-", "-", &res[ti], res[0].median_s / res[ti].median_s, NAN,
                             r->mesh_path ? mesh->name : NULL))
                r->rc = BENCH_EXIT_RUNTIME;
        report_table_note(&r->t,
                          "cpu-copy, %d vertices: %s, the memory floor of the bytes a 1-influence kernel moves%s",
                          res[0].desc.vertex_count, res[0].kernel,
                          o->nthreads > 1 ? "; on several threads split as the pool splits a job: how far this "
                                            "machine's memory scales for these bytes"
                                          : "");
    }
}

/* Which kernel ran for each path, weighting and influence count (names from skin_kernel_name). */
typedef char skin_kernel_names_t[PATH_COUNT][2][SKIN_MAX_INFLUENCES][sizeof((skin_bench_result_t *)0)->kernel];

/* The rows of one timed set: agreement with the reference, the same result
 * on every thread count, and the kernel names. */
static void add_cpu_set_rows(skinning_run_t *r, const skin_bench_result_t *set_out, const int *set_path,
                             const int *set_weights, int nset, skin_kernel_names_t kernels)
{
    const skin_cli_t *o = &r->cli;
    for (int k = 0; k < nset && r->rc == BENCH_EXIT_OK; k++) {
        const skin_bench_result_t *res = set_out + (size_t)k * (size_t)o->nthreads;
        int p = set_path[k];
        const char *wname = k_weights[set_weights[k]];
        snprintf(kernels[p][set_weights[k]][res[0].desc.influences - 1], sizeof kernels[0][0][0], "%s", res[0].kernel);
        for (int ti = 0; ti < o->nthreads; ti++) {
            bool agree = res[ti].max_pos_err_cm <= SKIN_AGREE_POS_CM && res[ti].max_nrm_err <= SKIN_AGREE_NRM;
            if (!agree) {
                fprintf(stderr,
                        "strider bench skinning: %s (weights %s) disagrees with the reference: %.3g cm, "
                        "normal %.3g\n",
                        k_paths[p], wname, res[ti].max_pos_err_cm, res[ti].max_nrm_err);
                r->failures++;
            }
            if (res[ti].checksum != res[0].checksum) {
                fprintf(stderr,
                        "strider bench skinning: %s with %d threads changed the result "
                        "(checksum %08x vs %08x with %d)\n",
                        k_paths[p], o->threads[ti], res[ti].checksum, res[0].checksum, o->threads[0]);
                r->failures++;
            }
            if (!add_cpu_row(&r->t, p, skin_method_name(res[ti].desc.method), wname, &res[ti],
                             res[0].median_s / res[ti].median_s, res[ti].desc.influences,
                             r->mesh_path ? r->mesh->name : NULL)) {
                r->rc = BENCH_EXIT_RUNTIME;
                break;
            }
        }
    }
}

/* cpu-avx512 over cpu-avx2 (the ratio of their median times), per
 * weighting and thread count, at each influence count: one note per pair,
 * from rows of one set (timed in alternation). */
static void note_avx512_ratios(skinning_run_t *r, const skin_bench_result_t *set_out, const int *set_path,
                               const int *set_weights, int nset)
{
    const skin_cli_t *o = &r->cli;
    for (int wi = 0; wi < 2; wi++)
        for (int ti = 0; ti < o->nthreads; ti++) {
            char text[256];
            int len = 0, found = 0;
            for (int a = 0; a < nset; a++) {
                if (set_path[a] != PATH_AVX512 || set_weights[a] != wi)
                    continue;
                const skin_bench_result_t *fast = set_out + (size_t)a * (size_t)o->nthreads + ti;
                for (int b = 0; b < nset; b++) {
                    const skin_bench_result_t *base = set_out + (size_t)b * (size_t)o->nthreads + ti;
                    if (set_path[b] != PATH_AVX2 || set_weights[b] != wi ||
                        base->desc.influences != fast->desc.influences)
                        continue;
                    len += snprintf(text + len, sizeof text - (size_t)len, "%s%d: %.2fx", found ? ", " : "",
                                    fast->desc.influences, base->median_s / fast->median_s);
                    found++;
                    break;
                }
                if (len >= (int)sizeof text)
                    break;
            }
            if (found)
                report_table_note(&r->t,
                                  "cpu-avx512 / cpu-avx2 (median time ratio, same run), %d vertices, weights %s, "
                                  "%d thread%s, by influence count: %s",
                                  set_out[0].desc.vertex_count, k_weights[wi], o->threads[ti],
                                  o->threads[ti] == 1 ? "" : "s", text);
        }
}

/* Every CPU path, weighting and influence count of one vertex count is
 * one set timed in alternation (skin_bench_run_set), so every ratio
 * between rows of that vertex count is measured under one condition. */
static void run_cpu_sets(skinning_run_t *r)
{
    const skin_cli_t *o = &r->cli;
    static skin_bench_desc_t set[MAX_CPU_SET];
    static int set_path[MAX_CPU_SET], set_weights[MAX_CPU_SET];
    static skin_bench_result_t set_out[MAX_CPU_SET * SKIN_BENCH_MAX_THREAD_COUNTS];
    static skin_kernel_names_t kernels;
    memset(kernels, 0, sizeof kernels);
    for (int vi = 0; r->any_cpu && vi < (r->mesh_path ? 1 : o->nverts) && r->rc == BENCH_EXIT_OK; vi++) {
        int nset = 0;
        for (int p = PATH_REFERENCE; p <= PATH_DQS; p++) {
            if (!r->want[p])
                continue;
            skin_method_t method = p == PATH_REFERENCE ? SKIN_LBS_POINTS : p == PATH_DQS ? SKIN_DQS : SKIN_LBS_MATRIX;
            skin_isa_t isa = p == PATH_SCALAR || p == PATH_REFERENCE ? SKIN_ISA_SCALAR
                             : p == PATH_SSE2                        ? SKIN_ISA_SSE2
                             : p == PATH_AVX2                        ? SKIN_ISA_AVX2
                             : p == PATH_AVX512                      ? SKIN_ISA_AVX512
                                                                     : SKIN_ISA_AUTO;
            for (int wi = 0; wi < o->nweights; wi++)
                for (int ii = 0; ii < o->ninfl; ii++) {
                    set[nset] = (skin_bench_desc_t){.vertex_count = o->verts[vi],
                                                    .joint_count = o->bones,
                                                    .influences = o->infl[ii],
                                                    .warmup = r->c.warmup,
                                                    .repeats = r->c.repeats,
                                                    .method = method,
                                                    .isa = isa,
                                                    .tangents = o->tangents,
                                                    .prenormalized = o->weights[wi] == 1,
                                                    .mesh = r->mesh_path ? &r->mesh->m : NULL};
                    set_path[nset] = p;
                    set_weights[nset++] = o->weights[wi];
                }
        }
        if (nset == 0)
            break;
        if (!skin_bench_run_set(set, nset, o->threads, o->nthreads, set_out)) {
            r->rc = BENCH_EXIT_RUNTIME;
            break;
        }
        add_cpu_set_rows(r, set_out, set_path, set_weights, nset, kernels);
        note_avx512_ratios(r, set_out, set_path, set_weights, nset);
    }
    for (int p = PATH_REFERENCE; r->any_cpu && p <= PATH_DQS && r->rc == BENCH_EXIT_OK; p++)
        for (int wi = 0; r->want[p] && wi < o->nweights; wi++)
            for (int k = 0; k < SKIN_MAX_INFLUENCES; k++)
                if (kernels[p][o->weights[wi]][k][0])
                    report_table_note(&r->t, "%s, weights %s, %d influence%s: %s", k_paths[p],
                                      k_weights[o->weights[wi]], k + 1, k ? "s" : "", kernels[p][o->weights[wi]][k]);
    if (r->any_cpu)
        report_table_note(&r->t, "the CPU rows of a vertex count, the copy floor aside, are timed in alternation: each "
                                 "round runs every path, weighting, influence count and thread count once (an untimed "
                                 "run before the timed one), so any two of them compare under one condition");
    if (r->any_cpu && o->nthreads > 1)
        report_table_note(&r->t,
                          "speedup: the median time at %d thread%s over the row's, the thread counts timed in "
                          "alternation (the copy floor's by its own rounds)",
                          o->threads[0], o->threads[0] == 1 ? "" : "s");
}

/* Every selected GPU path at every influence count (the lerp once), and
 * the notes on timer queries, compression and skin-once pictures. */
static void run_gpu_rows(skinning_run_t *r)
{
    const skin_cli_t *o = &r->cli;
    gpu_state_t *gpu = r->gpu;
    enum { MAX_GPU_ROWS = PATH_COUNT * BENCH_LIST_MAX };
    static gpu_row_t rows[MAX_GPU_ROWS];
    static int row_path[MAX_GPU_ROWS], row_infl[MAX_GPU_ROWS];
    int nrows = 0;
    for (int p = PATH_GPU_POINTS; r->any_gpu && p <= PATH_GPU_LERP; p++) {
        /* The lerp does not depend on the influence count: one row. */
        int count = p == PATH_GPU_LERP ? 1 : o->ninfl;
        for (int ii = 0; r->want[p] && ii < count && nrows < MAX_GPU_ROWS; ii++) {
            row_path[nrows] = p;
            row_infl[nrows++] = p == PATH_GPU_LERP ? SKIN_MAX_INFLUENCES : o->infl[ii];
        }
    }
    if (r->rc == BENCH_EXIT_OK && nrows > 0) {
        if (!gpu_measure(gpu, row_path, row_infl, nrows, &r->c, rows, &r->failures))
            r->rc = BENCH_EXIT_RUNTIME;
        for (int k = 0; r->rc == BENCH_EXIT_OK && k < nrows; k++)
            add_gpu_row(&r->t, gpu, &rows[k]);
    }
    if (!r->any_gpu || nrows == 0)
        return;
    note_ratios(&r->t, rows, nrows);
    report_table_note(&r->t, "GL_TIME_ELAPSED / glFinish wall time: %.3f to %.3f over %d rows%s", gpu->query_ratio_min,
                      gpu->query_ratio_max, gpu->query_rows,
                      gpu->query_ratio_min < 0.5 || gpu->query_ratio_max > 1.5
                          ? " (timer queries disagree: trust the wall time)"
                          : "");
    if (r->want[PATH_GPU_COMPRESSED])
        report_table_note(&r->t,
                          "gpu-compressed vs the uncompressed CPU reference: %.4f cm (%.2g of the height), "
                          "directions %.4f; worst vertex at %.2f of its quantisation bound",
                          gpu->comp_err_cm, gpu->comp_err_cm / r->mesh->m.height_cm, gpu->comp_err_dir,
                          gpu->comp_bound_ratio);
    if (gpu->image_compares)
        report_table_note(&r->t,
                          "skin-once vs per-pass main pass: at most %ld of %d pixels differ by > %d (the "
                          "figure covers %ld)",
                          gpu->image_diff_px,
                          gfx_skin_bench_target_size(gpu->bench) * gfx_skin_bench_target_size(gpu->bench),
                          IMAGE_PIXEL_TOL, gpu->image_covered_px);
}

int bench_skinning(int argc, char **argv, const report_env_t *env_in)
{
    /* Large: static, as the steps' own tables are. */
    static skinning_run_t run;
    static mesh_data_t mesh;
    static gpu_state_t gpu;
    skinning_run_t *r = &run;
    memset(r, 0, sizeof *r);
    int parsed = skin_parse(&r->cli, argc, argv);
    if (parsed >= 0)
        return parsed;
    r->c = r->cli.c;
    r->mesh = &mesh;
    r->gpu = &gpu;
    int rc = select_paths(r);
    if (rc >= 0)
        return rc;
    report_env_t env = *env_in;
    bench_gl_t gl = {0};
    rc = open_inputs(r, &gl, &env);
    if (rc >= 0)
        return rc;

    report_env_print(&env, stdout);
    static const char *const cols[] = {"path",
                                       "method",
                                       "isa",
                                       "weights",
                                       "threads",
                                       "vertices",
                                       "bones",
                                       "influences",
                                       "median_us",
                                       "min_us",
                                       "max_us",
                                       "mverts_s",
                                       "mverts_s_per_thread",
                                       "speedup",
                                       "max_pos_err_cm",
                                       "max_nrm_err",
                                       "checksum",
                                       "mesh",
                                       "gpu_query_us",
                                       "query_over_wall",
                                       "gpu_pipelined_us"};
    report_table_init(&r->t,
                      "skinning: CPU and GPU paths (position + normal; GPU: + tangent, time = glFinish-bracketed "
                      "wall clock)",
                      (int)(sizeof cols / sizeof cols[0]), cols);
    r->rc = BENCH_EXIT_OK;
    if (r->need_mesh)
        report_table_note(&r->t, "mesh: %s: %d vertices, %d triangles, %d joints, height %.1f cm%s", r->mesh_path,
                          mesh.nv, mesh.ni / 3, mesh.m.joint_count, (double)mesh.m.height_cm,
                          r->mesh_path && r->any_cpu ? " (CPU paths too)" : "");
    if (r->any_gpu)
        report_table_note(&r->t,
                          "GPU: pose of random joint turns up to %.1f rad; influence bins (non-zero weights): 1: %d, "
                          "2: %d, 3: %d, 4: %d vertices; binned/unbinned/compressed/passes use lbs-matrix",
                          (double)GPU_POSE_MAX_RAD, gpu.bins.count[0], gpu.bins.count[1], gpu.bins.count[2],
                          gpu.bins.count[3]);
    run_copy_floor(r);
    run_cpu_sets(r);
    run_gpu_rows(r);
    report_table_t hybrid = {0};
    if (r->rc == BENCH_EXIT_OK && r->want[PATH_HYBRID] &&
        !run_hybrid(&mesh, r->clip_path, r->cli.keys, r->cli.nkeys, &r->t, &hybrid))
        r->rc = BENCH_EXIT_RUNTIME;
    /* The main table first (it is what --csv / --json hold), then the
     * error tables. */
    if (r->rc == BENCH_EXIT_OK)
        r->rc = bench_finish(&r->t, &env, &r->c, r->failures);
    else
        report_table_free(&r->t);
    if (r->want[PATH_GPU_COMPRESSED] && gpu.bench)
        print_vcompress(&gpu);
    if (hybrid.rows > 0)
        report_table_print(&hybrid, stdout);
    report_table_free(&hybrid);
    if (r->any_gpu) {
        gpu_free(&gpu);
        bench_gl_close(&gl);
    }
    if (r->need_mesh)
        mesh_free(&mesh);
    return r->rc;
}
