/* The GPU rows of `strider bench skinning` (bench_skinning_internal.h):
 * the character mesh on the engine of bench/gpu/gfx_skin_bench (the game's
 * skin.glsl variants, Cebenoyan's influence binning, Gosselin's compressed
 * stream, skin-once vs per-pass, the hybrid's GPU lerp), every path and
 * influence count timed round-robin, then run once more, read back and
 * checked against the scalar CPU reference on the same inputs (binned output
 * un-permuted, the compressed stream also against its quantisation bound,
 * skin-once's picture against per-pass's). */
#include "bench/bench_skinning_internal.h"

#include "anim/skin_hybrid.h"
#include "anim/vcompress.h"
#include "bench/gpu/gfx_skin_bench.h"
#include "core/file.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GPU rows: positions within this fraction of the mesh height, unit vectors
 * within GPU_AGREE_DIR (as tests/skin_gpu). */
#define GPU_AGREE_POS_REL 1e-4
#define GPU_AGREE_DIR 1e-3
/* skin-once vs per-pass images: a pixel differs when a channel moves more
 * than this (0..255); at most this fraction of the pixels may differ
 * (the two vertex shaders may round differently at triangle edges). */
#define IMAGE_PIXEL_TOL 8
#define IMAGE_MAX_DIFF_FRACTION 0.002
/* Where between its keys the GPU lerp path's frame lies. */
#define HYBRID_LERP_T 0.375f

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
                skinning_path_name(p), influences, row->pos_err, row->pos_err / height, row->dir_err);
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
    report_table_str(t, skinning_path_name(row->path));
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

/* The notes: ratios, timer queries, compression and skin-once pictures. */
void skinning_gpu_rows(skinning_run_t *r)
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

static gpu_state_t g_gpu;

bool skinning_gpu_open(skinning_run_t *r, bench_gl_t *gl, report_env_t *env)
{
    char msg[256];
    if (!bench_gl_open(gl, env))
        return false;
    if (!gfx_skin_bench_limits_ok(gfx_get_info(), r->mesh->m.joint_count, msg, sizeof msg)) {
        fprintf(stderr, "strider bench skinning: %s: %s\n", r->mesh_path, msg);
        bench_gl_close(gl);
        return false;
    }
    r->gpu = &g_gpu;
    if (!gpu_setup(r->gpu, r->mesh, r->cli.target)) {
        gpu_free(r->gpu);
        r->gpu = NULL;
        bench_gl_close(gl);
        return false;
    }
    return true;
}

void skinning_gpu_note(skinning_run_t *r)
{
    const gpu_state_t *gpu = r->gpu;
    report_table_note(&r->t,
                      "GPU: pose of random joint turns up to %.1f rad; influence bins (non-zero weights): 1: %d, "
                      "2: %d, 3: %d, 4: %d vertices; binned/unbinned/compressed/passes use lbs-matrix",
                      (double)GPU_POSE_MAX_RAD, gpu->bins.count[0], gpu->bins.count[1], gpu->bins.count[2],
                      gpu->bins.count[3]);
}

void skinning_gpu_print_vcompress(const skinning_run_t *r)
{
    if (r->want[PATH_GPU_COMPRESSED] && r->gpu && r->gpu->bench)
        print_vcompress(r->gpu);
}

void skinning_gpu_close(skinning_run_t *r, bench_gl_t *gl)
{
    if (r->gpu)
        gpu_free(r->gpu);
    r->gpu = NULL;
    bench_gl_close(gl);
}
