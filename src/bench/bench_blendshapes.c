/* `strider bench blendshapes`: time to apply N active blend shapes to the
 * morphed (head) mesh of a character, per method, for each N: the CPU job
 * (anim/bshape, dense and sparse layouts) and the GPU (bench/gpu/
 * gfx_morph_bench: shaders/morph.glsl in one SSBO pass, dense or sparse,
 * and the GPU Gems 3 stream-out multipass baseline). The active set is
 * drawn at random (seeded) from the character's shapes with weights in
 * [0.1, 1]. Every method is compared with the CPU sparse job on the same
 * set (untimed reference); GPU runs read back and checksum every repeat.
 * GPU timing: glFinish-bracketed wall time (the table's times) and the
 * GL_TIME_ELAPSED query of the same work, flagged when they disagree. */
#include "bench/bench_internal.h"

#include "anim/bshape.h"
#include "asset/chr_bshape.h"
#include "asset/character.h"
#include "asset/import_file.h"
#include "bench/bench_gl.h"
#include "bench/gpu/gfx_morph_bench.h"
#include "core/file.h"
#include "core/log.h"
#include "core/paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CPU dense and sparse add the same deltas in the same order, so they must
 * agree to rounding; 1e-4 cm is far below anything visible. */
#define BSHAPE_AGREE_CM 1e-4
/* The GPU may contract multiply-adds and round differently: positions
 * within 1e-4 of the mesh height, unit vectors and AO within 1e-3. */
#define GPU_AGREE_REL_HEIGHT 1e-4
#define AGREE_DIR 1e-3
/* GL_TIME_ELAPSED vs glFinish-bracketed wall time: a ratio beyond this
 * either way marks the query as suspect in the table and on stderr. The
 * wall time also holds the CPU-side preparation and the finish round trip,
 * so it may legitimately exceed the query by a fixed overhead. */
#define TIMER_AGREE_FACTOR 3.0

#ifndef STRIDER_DAWN_CHR
#define STRIDER_DAWN_CHR "build/release/src/bench/dawn.chr"
#endif
#ifndef STRIDER_BINARY_DIR
#define STRIDER_BINARY_DIR "build/release"
#endif

enum {
    METHOD_CPU_DENSE,
    METHOD_CPU_SPARSE,
    METHOD_GPU_SSBO_DENSE,
    METHOD_GPU_SSBO_SPARSE,
    METHOD_GPU_COMPUTE_DENSE,
    METHOD_GPU_COMPUTE_SPARSE,
    METHOD_GPU_TF,
    METHOD_COUNT
};
static const char *const k_methods[METHOD_COUNT] = {"cpu-dense",       "cpu-sparse",        "gpu-ssbo-dense",
                                                    "gpu-ssbo-sparse", "gpu-compute-dense", "gpu-compute-sparse",
                                                    "gpu-tf-multipass"};
static const gfx_morph_method_t k_gpu_method[METHOD_COUNT] = {
    GFX_MORPH_METHOD_COUNT,  GFX_MORPH_METHOD_COUNT,   GFX_MORPH_SSBO_DENSE,  GFX_MORPH_SSBO_SPARSE,
    GFX_MORPH_COMPUTE_DENSE, GFX_MORPH_COMPUTE_SPARSE, GFX_MORPH_TF_MULTIPASS};
static const int k_default_counts[] = {0, 1, 2, 4, 8, 16, 32, 50, 64, 128, 256};

static bool is_gpu(int m) { return m >= METHOD_GPU_SSBO_DENSE; }

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* One method's output, unpacked like the CPU job's. */
typedef struct bs_out_t {
    float *pos, *nrm, *tan, *ao;
} bs_out_t;

typedef struct bs_buffers_t {
    float *pos, *nrm, *tan, *ao;
    bs_out_t ref; /* CPU sparse job, untimed */
    bs_out_t out[METHOD_COUNT];
    float *gpu_vertices;                                     /* GFX_MORPH_VERTEX_FLOATS per vertex */
    float *packed_pos;                                       /* 3 per vertex, for checksums of GPU output */
    double *times[METHOD_COUNT], *query_times[METHOD_COUNT]; /* seconds, per repeat */
} bs_buffers_t;

static void out_free(bs_out_t *o)
{
    free(o->pos);
    free(o->nrm);
    free(o->tan);
    free(o->ao);
}

static bool out_alloc(bs_out_t *o, uint32_t n)
{
    o->pos = malloc((size_t)n * 3 * sizeof(float));
    o->nrm = malloc((size_t)n * 3 * sizeof(float));
    o->tan = malloc((size_t)n * 4 * sizeof(float));
    o->ao = malloc((size_t)n * sizeof(float));
    return o->pos && o->nrm && o->tan && o->ao;
}

static void bs_free(bs_buffers_t *b)
{
    free(b->pos);
    free(b->nrm);
    free(b->tan);
    free(b->ao);
    out_free(&b->ref);
    for (int m = 0; m < METHOD_COUNT; m++)
        out_free(&b->out[m]);
    free(b->gpu_vertices);
    free(b->packed_pos);
    for (int m = 0; m < METHOD_COUNT; m++) {
        free(b->times[m]);
        free(b->query_times[m]);
    }
}

static bool bs_alloc(bs_buffers_t *b, uint32_t n, int repeats, const bool *used)
{
    memset(b, 0, sizeof *b);
    if (n == 0)
        n = 1;
    b->pos = malloc((size_t)n * 3 * sizeof(float));
    b->nrm = malloc((size_t)n * 3 * sizeof(float));
    b->tan = malloc((size_t)n * 4 * sizeof(float));
    b->ao = malloc((size_t)n * sizeof(float));
    bool ok = b->pos && b->nrm && b->tan && b->ao && out_alloc(&b->ref, n);
    for (int m = 0; m < METHOD_COUNT; m++) {
        if (!used[m])
            continue;
        ok = ok && out_alloc(&b->out[m], n);
        b->times[m] = malloc((size_t)repeats * sizeof(double));
        b->query_times[m] = malloc((size_t)repeats * sizeof(double));
        ok = ok && b->times[m] && b->query_times[m];
    }
    b->gpu_vertices = malloc((size_t)n * GFX_MORPH_VERTEX_FLOATS * sizeof(float));
    b->packed_pos = malloc((size_t)n * 3 * sizeof(float));
    return ok && b->gpu_vertices && b->packed_pos;
}

/* GPU morph vertices -> separate arrays like the CPU job's. */
static void unpack_gpu(const float *v, uint32_t n, const bs_out_t *o)
{
    for (uint32_t i = 0; i < n; i++, v += GFX_MORPH_VERTEX_FLOATS) {
        memcpy(o->pos + (size_t)i * 3, v, 3 * sizeof(float));
        o->ao[i] = v[3];
        memcpy(o->nrm + (size_t)i * 3, v + 4, 3 * sizeof(float));
        memcpy(o->tan + (size_t)i * 4, v + 8, 4 * sizeof(float));
    }
}

static double max_abs_diff(const float *a, const float *b, size_t count)
{
    double m = 0.0;
    for (size_t k = 0; k < count; k++) {
        double d = fabs((double)a[k] - (double)b[k]);
        m = fmax(m, isfinite(d) ? d : INFINITY);
    }
    return m;
}

static uint32_t positions_checksum(const float *vertices, uint32_t n, float *packed)
{
    for (uint32_t i = 0; i < n; i++)
        memcpy(packed + (size_t)i * 3, vertices + (size_t)i * GFX_MORPH_VERTEX_FLOATS, 3 * sizeof(float));
    return file_checksum32(packed, (size_t)n * 3 * sizeof(float));
}

typedef struct bs_result_t {
    double med, mn, mx, query_med, query_ratio, pipelined_ms;
    int passes;
    bool query_suspect;
    uint32_t checksum;
} bs_result_t;

/* One run of CPU method M into its outputs; returns false if the job fails. */
static bool run_cpu(bshape_job_t *job, int m, const bs_out_t *o, double *wall_s)
{
    job->layout = m == METHOD_CPU_DENSE ? BSHAPE_DENSE : BSHAPE_SPARSE;
    job->out_positions = o->pos;
    job->out_normals = o->nrm;
    job->out_tangents = o->tan;
    job->out_ao = o->ao;
    double t0 = bench_now_s();
    bool ok = bshape_run(job);
    *wall_s = bench_now_s() - t0;
    return ok;
}

/* One run of a GPU method. Timed repeats (r >= 0) clear the output first,
 * then read it back and checksum it (untimed), so a repeat that did not
 * write every vertex, or wrote different ones, is caught. */
static bool run_gpu(gfx_morph_bench_t *gb, gfx_morph_method_t gm, const char *name, int count, const uint32_t *active,
                    const float *weight, int r, bs_buffers_t *b, int *failures, bs_result_t *res, double *wall_s,
                    double *query_s)
{
    gfx_morph_time_t t;
    if (r >= 0 && !gfx_morph_bench_clear_output(gb))
        return false;
    if (!gfx_morph_bench_run(gb, gm, count, active, weight, &t))
        return false;
    *wall_s = t.wall_ms * 1e-3;
    *query_s = t.query_ms * 1e-3;
    if (r < 0)
        return true;
    if (!gfx_morph_bench_read(gb, b->gpu_vertices))
        return false;
    uint32_t sum = positions_checksum(b->gpu_vertices, gb->vertex_count, b->packed_pos);
    if (r == 0) {
        res->checksum = sum;
        res->passes = t.passes;
    } else if (sum != res->checksum) {
        fprintf(stderr,
                "strider bench blendshapes: %s at %d shapes: repeat %d read back checksum %08x, repeat 0 "
                "%08x\n",
                name, count, r, sum, res->checksum);
        (*failures)++;
    }
    return true;
}

/* Smallest and largest base Y: the mesh height the GPU tolerance scales with. */
static double mesh_height(const float *pos, uint32_t n)
{
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < n; v++) {
        lo = fminf(lo, pos[3 * v + 1]);
        hi = fmaxf(hi, pos[3 * v + 1]);
    }
    return n ? (double)(hi - lo) : 0.0;
}

static bool mesh_path(const char *arg, char *out, size_t size)
{
    if (!arg || !strcmp(arg, "default"))
        return paths_join("assets/characters/strider.chr", out, size);
    if (!strcmp(arg, "dawn")) {
        if (!paths_copy(STRIDER_DAWN_CHR, out, size))
            return false;
        if (!file_is_regular(out, NULL)) {
            fprintf(stderr,
                    "strider bench blendshapes: the Dawn-scale mesh %s is not built yet: run "
                    "'cmake --build %s --target bench_dawn_mesh' once (about 100 s)\n",
                    out, STRIDER_BINARY_DIR);
            return false;
        }
        return true;
    }
    return paths_copy(arg, out, size);
}

/* The command line and its defaults. */
typedef struct shapes_cli_t {
    bench_common_t c;
    int methods[BENCH_LIST_MAX], nmethods;
    int counts[BENCH_LIST_MAX], ncounts;
    const char *mesh_arg;
    int seed;
    bool interleave;
} shapes_cli_t;

/* Fills O from argv: -1 to go on, else the exit code. */
static int shapes_parse(shapes_cli_t *o, int argc, char **argv)
{
    *o = (shapes_cli_t){.c = {.repeats = 51, .warmup = 5},
                        .methods = {METHOD_CPU_DENSE, METHOD_CPU_SPARSE, METHOD_GPU_SSBO_DENSE, METHOD_GPU_SSBO_SPARSE,
                                    METHOD_GPU_COMPUTE_DENSE, METHOD_GPU_COMPUTE_SPARSE, METHOD_GPU_TF},
                        .nmethods = METHOD_COUNT,
                        .ncounts = (int)(sizeof k_default_counts / sizeof k_default_counts[0]),
                        .seed = 1};
    memcpy(o->counts, k_default_counts, sizeof k_default_counts);
    const args_opt_t opts[] = {
        BENCH_COMMON_OPTS(&o->c),
        {.name = "--methods",
         .kind = ARGS_NAME_LIST,
         .dest = o->methods,
         .count = &o->nmethods,
         .choices = k_methods,
         .nchoices = METHOD_COUNT,
         .arg = "LIST",
         .help = "cpu-dense, cpu-sparse, gpu-ssbo-dense, gpu-ssbo-sparse (one pass in a\n"
                 "vertex shader, captured by transform feedback), gpu-compute-dense,\n"
                 "gpu-compute-sparse (the same shader code in a compute pass),\n"
                 "gpu-tf-multipass (default: all; gpu-* open a hidden OpenGL 4.3+\n"
                 "context and fail with exit 1 when there is none)"},
        {.name = "--counts",
         .kind = ARGS_INT_LIST,
         .dest = o->counts,
         .count = &o->ncounts,
         .lo = 0,
         .hi = CHR_MAX_SHAPES,
         .arg = "LIST",
         .help = "active shapes, 0..4096, default 0,1,2,4,8,16,32,50,64,128,256;\n"
                 "a count above the mesh's shape count is capped at it (the table\n"
                 "shows requested and active)"},
        {.name = "--mesh",
         .kind = ARGS_PATH,
         .dest = &o->mesh_arg,
         .arg = "PATH|dawn",
         .help = ".chr, .glb or .gltf file (default assets/characters/strider.chr,\n"
                 "61 shapes);\n"
                 "dawn = the Dawn-scale variant (strider-chargen --density 6\n"
                 "--extra-bones 80 --shapes 256), made once into the build tree by\n"
                 "cmake --build --preset release --target bench_dawn_mesh (~100 s)"},
        {.name = "--character", .kind = ARGS_PATH, .dest = &o->mesh_arg, .arg = "PATH", .help = "same as --mesh PATH"},
        {.name = "--seed",
         .kind = ARGS_INT,
         .dest = &o->seed,
         .lo = 0,
         .hi = 2147483647,
         .arg = "N",
         .help = "active-set seed (default 1)"},
        {.name = "--interleave",
         .kind = ARGS_FLAG,
         .dest = &o->interleave,
         .help = "methods take turns repeat by repeat (for a machine whose load\n"
                 "changes; default: each method's repeats back to back)"},
        {.kind = ARGS_TEXT, .help = BENCH_COMMON_HELP},
    };
    args_spec_t spec = bench_args_spec("strider bench blendshapes", "usage: strider bench blendshapes [options]\n",
                                       opts, (int)(sizeof opts / sizeof opts[0]));
    return bench_parse_args(&spec, argc, argv);
}

/* One `strider bench blendshapes` run: its options, the methods they
 * select, the character's morphed mesh with its shape set and buffers, the
 * GPU engine and the table, handed from step to step. */
typedef struct shapes_run_t {
    shapes_cli_t cli;
    bench_common_t c;
    char path[PATHS_MAX];
    bool used[METHOD_COUNT], any_gpu, want_dense;
    report_env_t env; /* a copy: the GL context fills in its renderer */
    bench_gl_t gl;
    chr_character_t *ch;
    bshape_set_t set;
    gfx_morph_bench_t gb;
    bs_buffers_t b;
    bool have_gb, have_set, have_buffers;
    const chr_mesh_t *cm;
    uint32_t n, shapes;
    double height, gpu_tol;
    report_table_t t;
    uint32_t *active; /* the active set of a row, its first count entries */
    float *weight;
    int failures, gpu_rows, suspect_rows;
    double worst_ratio;
    int rc;
} shapes_run_t;

/* The mesh's path, the smoke run's sizes and the methods the options
 * select: -1 to go on, else the exit code. */
static int select_methods(shapes_run_t *r)
{
    const shapes_cli_t *o = &r->cli;
    r->c = o->c;
    if (!mesh_path(o->mesh_arg, r->path, sizeof r->path))
        return BENCH_EXIT_RUNTIME;
    if (r->c.smoke) {
        r->c.repeats = 3;
        r->c.warmup = 1;
    }
    for (int mi = 0; mi < o->nmethods; mi++) {
        r->used[o->methods[mi]] = true;
        r->any_gpu |= is_gpu(o->methods[mi]);
    }
    r->want_dense = r->used[METHOD_CPU_DENSE] || r->used[METHOD_GPU_SSBO_DENSE] || r->used[METHOD_GPU_COMPUTE_DENSE] ||
                    r->used[METHOD_GPU_TF];
    return -1;
}

/* The GL context (when a GPU method is selected) and the character: -1 to
 * go on, else the exit code (what was opened closed again). */
static int open_character(shapes_run_t *r)
{
    if (r->any_gpu && !bench_gl_open(&r->gl, &r->env))
        return BENCH_EXIT_RUNTIME;
    r->ch = calloc(1, sizeof *r->ch);
    /* A .chr, or a glTF character imported as the game imports it. */
    if (!r->ch || !imp_load_character(r->path, NULL, NULL, r->ch, NULL)) {
        free(r->ch);
        bench_gl_close(&r->gl);
        return BENCH_EXIT_RUNTIME;
    }
    return -1;
}

/* The character's morphed mesh: its shape set (sparse, and dense when a
 * dense method runs), the buffers, the mesh height and the GPU engine;
 * false on a failure (logged). */
static bool prepare_mesh(shapes_run_t *r)
{
    int mesh = -1;
    for (uint32_t m = 0; m < r->ch->mesh_count && mesh < 0; m++)
        if (r->ch->meshes[m].flags & CHR_MESH_MORPHED)
            mesh = (int)m;
    if (mesh < 0) {
        log_error("%s: no morphed mesh to benchmark", r->path);
        return false;
    }
    /* Sparse always: it is the reference every method is compared with. */
    if (!chr_bshape_set_build(&r->set, r->ch, (uint32_t)mesh,
                              BSHAPE_BUILD_SPARSE | (r->want_dense ? BSHAPE_BUILD_DENSE : 0u)))
        return false;
    r->have_set = true;
    r->cm = &r->ch->meshes[mesh];
    uint32_t n = r->n = r->cm->vertex_count;
    /* Facial shapes only: correctives are driven by the pose, not chosen. */
    r->shapes = r->set.shape_count;
    r->have_buffers = true;
    bs_buffers_t *b = &r->b;
    if (!bs_alloc(b, n, r->c.repeats, r->used)) {
        log_error("bench blendshapes: out of memory for %u vertices", n);
        return false;
    }
    for (uint32_t v = 0; v < n; v++) {
        memcpy(&b->pos[3 * v], r->cm->vertices[v].pos, 3 * sizeof(float));
        memcpy(&b->nrm[3 * v], r->cm->vertices[v].normal, 3 * sizeof(float));
        memcpy(&b->tan[4 * v], r->cm->vertices[v].tangent, 4 * sizeof(float));
        b->ao[v] = r->cm->vertices[v].ao;
    }
    r->height = mesh_height(b->pos, n);
    r->gpu_tol = GPU_AGREE_REL_HEIGHT * r->height;
    if (!r->any_gpu)
        return true;
    gfx_morph_bench_desc_t gd = {.vertex_count = n,
                                 .positions = b->pos,
                                 .normals = b->nrm,
                                 .tangents = b->tan,
                                 .ao = b->ao,
                                 .target_count = r->set.target_count,
                                 .dense = r->set.dense,
                                 .vertex_offset = r->set.vertex_offset,
                                 .pair_target = r->set.pair_target,
                                 .pair_delta = r->set.pair_delta,
                                 .pair_count = r->set.pair_count,
                                 .label = "bench_blendshapes"};
    for (int m = 0; m < METHOD_COUNT; m++)
        if (r->used[m] && is_gpu(m))
            gd.methods[k_gpu_method[m]] = true;
    if (!gfx_morph_bench_create(&r->gb, &gd))
        return false;
    r->have_gb = true;
    return true;
}

/* The table, its notes (the mesh, the tolerances, the timing, the GPU
 * methods skipped and the counts capped), then the environment printed. */
static void begin_table(shapes_run_t *r)
{
    static const char *const cols[] = {
        "method", "mesh_vertices", "requested",     "active",       "passes",           "median_us",
        "min_us", "max_us",        "ns_per_vertex", "gpu_query_us", "gpu_pipelined_us", "query_vs_wall",
        "timer",  "max_diff_cm",   "max_dir_diff",  "tf_over_this", "tf_over_this_min", "checksum"};
    report_table_t *t = &r->t;
    report_table_init(t, "blendshapes: time per frame vs active shape count", (int)(sizeof cols / sizeof cols[0]),
                      cols);
    report_table_note(t,
                      "character: %s, mesh '%s': %u vertices, %.1f cm high, %u shapes, %u sparse (shape, vertex) "
                      "pairs",
                      r->path, r->cm->name, r->n, r->height, r->shapes, r->set.pair_count);
    report_table_note(t,
                      "reference: cpu-sparse job, untimed; tolerance: cpu %.0e cm, gpu %.2e cm (%.0e of the mesh "
                      "height), normals/tangents/AO %.0e",
                      BSHAPE_AGREE_CM, r->gpu_tol, GPU_AGREE_REL_HEIGHT, AGREE_DIR);
    report_table_note(t, "%d warm-up + %d timed repeats per row, %s", r->c.warmup, r->c.repeats,
                      r->cli.interleave ? "methods taking turns repeat by repeat (--interleave)"
                                        : "each method's repeats back to back");
    if (r->used[METHOD_GPU_TF])
        report_table_note(t, "tf_over_this = gpu-tf-multipass time / this method's time (median; _min: of the "
                             "minimum times)");
    if (r->any_gpu)
        report_table_note(t,
                          "gpu times: glFinish-bracketed wall time incl. active-list preparation; gpu_query_us = "
                          "GL_TIME_ELAPSED of the same runs, 'suspect' beyond x%.0f of the wall time; "
                          "gpu_pipelined_us = GPU time per frame of as many frames queued back to back "
                          "(GL_TIMESTAMP before the first and after the last; the GPU's clocks up, as in a game)",
                          TIMER_AGREE_FACTOR);
    for (int m = 0; m < METHOD_COUNT; m++) {
        if (r->used[m] && is_gpu(m) && !gfx_morph_bench_ready(&r->gb, k_gpu_method[m])) {
            report_table_note(t, "%s skipped: %s", k_methods[m], gfx_morph_bench_reason(&r->gb, k_gpu_method[m]));
            fprintf(stderr, "strider bench blendshapes: %s skipped: %s\n", k_methods[m],
                    gfx_morph_bench_reason(&r->gb, k_gpu_method[m]));
        }
    }
    for (int ci = 0; ci < r->cli.ncounts; ci++)
        if ((uint32_t)r->cli.counts[ci] > r->shapes)
            report_table_note(t, "%d active shapes requested, capped at the mesh's %u", r->cli.counts[ci], r->shapes);
    report_env_print(&r->env, stdout);
}

/* The active set of COUNT shapes: a random subset (partial Fisher-Yates
 * over the shape indices, seeded by --seed and COUNT) with weights in
 * [0.1, 1]. */
static void draw_active_set(shapes_run_t *r, int count)
{
    uint32_t s = (uint32_t)r->cli.seed * 2654435761u + (uint32_t)count;
    for (uint32_t k = 0; k < r->shapes; k++)
        r->active[k] = k;
    for (int k = 0; k < count; k++) {
        uint32_t j = (uint32_t)k + lcg(&s) % (r->shapes - (uint32_t)k);
        uint32_t tmp = r->active[k];
        r->active[k] = r->active[j];
        r->active[j] = tmp;
        r->weight[k] = 0.1f + 0.9f * (float)(lcg(&s) & 0xffff) / 65535.0f;
    }
}

/* Times every method on the active set of COUNT shapes into the buffers'
 * times, RESULTS[m] holding the GPU runs' passes and checksums; false on a
 * runtime failure. Default: each method's warm-up and repeats back to back
 * (warm caches and GL state). --interleave: methods take turns repeat by
 * repeat, so a change in the machine's load during the row hits every
 * method alike (each run then starts after another method). */
static bool time_methods(shapes_run_t *r, bshape_job_t *job, int count, bs_result_t *results)
{
    const shapes_cli_t *o = &r->cli;
    bool interleave = o->interleave;
    memset(results, 0, METHOD_COUNT * sizeof *results);
    for (int block = 0; block < (interleave ? 1 : o->nmethods); block++)
        for (int rep = -r->c.warmup; rep < r->c.repeats; rep++) {
            for (int mi = interleave ? 0 : block; mi < (interleave ? o->nmethods : block + 1); mi++) {
                int m = o->methods[mi];
                double wall = 0.0, query = NAN;
                bool ok;
                if (is_gpu(m)) {
                    if (!gfx_morph_bench_ready(&r->gb, k_gpu_method[m]))
                        continue;
                    ok = run_gpu(&r->gb, k_gpu_method[m], k_methods[m], count, r->active, r->weight, rep, &r->b,
                                 &r->failures, &results[m], &wall, &query);
                    if (ok && rep == r->c.repeats - 1)
                        unpack_gpu(r->b.gpu_vertices, r->n, &r->b.out[m]);
                } else {
                    ok = run_cpu(job, m, &r->b.out[m], &wall);
                    results[m].passes = 1;
                }
                if (!ok)
                    return false;
                if (rep >= 0) {
                    r->b.times[m][rep] = wall;
                    r->b.query_times[m][rep] = query;
                }
            }
        }
    return true;
}

/* Method M's statistics over its timed repeats into RES; a GPU method's
 * also from as many frames queued back to back, and its timer query's
 * agreement with the wall time (counted for the warning). False on a
 * runtime failure. */
static bool method_stats(shapes_run_t *r, int m, int count, bs_result_t *res)
{
    bench_stats(r->b.times[m], r->c.repeats, &res->med, &res->mn, &res->mx);
    if (!is_gpu(m)) {
        res->query_med = res->query_ratio = res->pipelined_ms = NAN;
        res->checksum = file_checksum32(r->b.out[m].pos, (size_t)r->n * 3 * sizeof(float));
        return true;
    }
    double qmn, qmx;
    bench_stats(r->b.query_times[m], r->c.repeats, &res->query_med, &qmn, &qmx);
    if (!gfx_morph_bench_run_pipelined(&r->gb, k_gpu_method[m], count, r->active, r->weight, r->c.repeats,
                                       &res->pipelined_ms))
        return false;
    res->query_ratio = res->med > 0.0 ? res->query_med / res->med : NAN;
    res->query_suspect = !(res->query_ratio <= TIMER_AGREE_FACTOR && res->query_ratio >= 1.0 / TIMER_AGREE_FACTOR);
    return true;
}

/* Method M's output against the cpu-sparse reference: the largest position
 * difference into *DIFF and of normals, tangents and AO into *DIR; beyond
 * the bounds, one line on stderr and a failure. */
static void compare_with_reference(shapes_run_t *r, int m, int count, double *diff, double *dir)
{
    const bs_out_t *o = &r->b.out[m], *ref = &r->b.ref;
    uint32_t n = r->n;
    *diff = max_abs_diff(o->pos, ref->pos, (size_t)n * 3);
    *dir = fmax(max_abs_diff(o->nrm, ref->nrm, (size_t)n * 3),
                fmax(max_abs_diff(o->tan, ref->tan, (size_t)n * 4), max_abs_diff(o->ao, ref->ao, n)));
    double tol = is_gpu(m) ? r->gpu_tol : BSHAPE_AGREE_CM;
    if (!(*diff <= tol) || !(*dir <= AGREE_DIR)) {
        fprintf(stderr,
                "strider bench blendshapes: %s differs from the cpu-sparse reference at %d shapes: "
                "positions by %.3g cm (bound %.3g), normals/tangents/AO by %.3g (bound %.0e)\n",
                k_methods[m], count, *diff, tol, *dir, AGREE_DIR);
        r->failures++;
    }
}

/* Method M's row for REQUESTED shapes (COUNT active); TF_MED and TF_MIN:
 * the stream-out baseline's times (NaN when it did not run). */
static bool add_row(shapes_run_t *r, int m, int requested, int count, const bs_result_t *res, double diff, double dir,
                    double tf_med, double tf_min)
{
    report_table_t *t = &r->t;
    uint32_t n = r->n;
    char sum[16];
    snprintf(sum, sizeof sum, "%08x", res->checksum);
    if (!report_table_row_begin(t))
        return false;
    report_table_str(t, k_methods[m]);
    report_table_num(t, n, 0);
    report_table_num(t, requested, 0);
    report_table_num(t, count, 0);
    report_table_num(t, res->passes, 0);
    report_table_num(t, res->med * 1e6, 2);
    report_table_num(t, res->mn * 1e6, 2);
    report_table_num(t, res->mx * 1e6, 2);
    report_table_num(t, res->med * 1e9 / (double)(n ? n : 1), 3);
    report_table_num(t, res->query_med * 1e6, 2);
    report_table_num(t, res->pipelined_ms * 1e3, 2);
    report_table_num(t, res->query_ratio, 3);
    report_table_str(t, !is_gpu(m) ? "-" : (res->query_suspect ? "suspect" : "ok"));
    report_table_num(t, diff, 7);
    report_table_num(t, dir, 7);
    report_table_num(t, tf_med / res->med, 3);
    report_table_num(t, tf_min / res->mn, 3);
    report_table_str(t, sum);
    return true;
}

/* The rows of one active count (REQUESTED, capped at COUNT), from the
 * timed RESULTS; false on a runtime failure. */
static bool add_rows(shapes_run_t *r, int requested, int count, const bs_result_t *results)
{
    const shapes_cli_t *o = &r->cli;
    /* The stream-out baseline's time over each method's (median, and
     * minimum: the least disturbed run on a shared machine). */
    double tf_med = NAN, tf_min = NAN, tf_max;
    if (r->used[METHOD_GPU_TF] && gfx_morph_bench_ready(&r->gb, GFX_MORPH_TF_MULTIPASS))
        bench_stats(r->b.times[METHOD_GPU_TF], r->c.repeats, &tf_med, &tf_min, &tf_max);
    for (int mi = 0; mi < o->nmethods; mi++) {
        int m = o->methods[mi];
        if (is_gpu(m) && !gfx_morph_bench_ready(&r->gb, k_gpu_method[m]))
            continue;
        bs_result_t res = results[m];
        if (!method_stats(r, m, count, &res))
            return false;
        double diff, dir;
        compare_with_reference(r, m, count, &diff, &dir);
        if (is_gpu(m)) {
            r->gpu_rows++;
            r->suspect_rows += res.query_suspect;
            if (fabs(log(res.query_ratio)) > fabs(log(r->worst_ratio)) || !isfinite(res.query_ratio))
                r->worst_ratio = res.query_ratio;
        }
        if (!add_row(r, m, requested, count, &res, diff, dir, tf_med, tf_min))
            return false;
    }
    return true;
}

/* Every requested count: its active set, the untimed reference, the timed
 * methods and their rows, then the warning on suspect timer queries; false
 * on a runtime failure. */
static bool run_counts(shapes_run_t *r)
{
    r->active = malloc((r->shapes ? r->shapes : 1) * sizeof *r->active);
    r->weight = malloc((r->shapes ? r->shapes : 1) * sizeof *r->weight);
    if (!r->active || !r->weight)
        return false;
    r->worst_ratio = 1.0;
    bs_buffers_t *b = &r->b;
    for (int ci = 0; ci < r->cli.ncounts; ci++) {
        int requested = r->cli.counts[ci];
        int count = (uint32_t)requested > r->shapes ? (int)r->shapes : requested;
        draw_active_set(r, count);
        bshape_job_t job = {.set = &r->set,
                            .layout = BSHAPE_SPARSE,
                            .active_count = count,
                            .active_target = r->active,
                            .active_weight = r->weight,
                            .positions = b->pos,
                            .normals = b->nrm,
                            .tangents = b->tan,
                            .ao = b->ao,
                            .out_positions = b->ref.pos,
                            .out_normals = b->ref.nrm,
                            .out_tangents = b->ref.tan,
                            .out_ao = b->ref.ao};
        bs_result_t results[METHOD_COUNT];
        if (!bshape_run(&job) || !time_methods(r, &job, count, results) || !add_rows(r, requested, count, results))
            return false;
    }
    if (r->suspect_rows)
        fprintf(stderr,
                "strider bench blendshapes: warning: GL_TIME_ELAPSED disagrees with the glFinish-bracketed "
                "wall time beyond x%.0f in %d of %d GPU rows (worst query/wall x%.3g): the timer query is "
                "suspect on this driver; the table's times are wall times\n",
                TIMER_AGREE_FACTOR, r->suspect_rows, r->gpu_rows, r->worst_ratio);
    return true;
}

/* Frees what open_character() and prepare_mesh() made, and closes GL. */
static void close_inputs(shapes_run_t *r)
{
    if (r->have_gb)
        gfx_morph_bench_destroy(&r->gb);
    if (r->have_buffers)
        bs_free(&r->b);
    if (r->have_set)
        bshape_set_free(&r->set);
    chr_free(r->ch);
    free(r->ch);
    bench_gl_close(&r->gl);
}

int bench_blendshapes(int argc, char **argv, const report_env_t *env_in)
{
    /* Large: static, as bench_skinning's run is. */
    static shapes_run_t run;
    shapes_run_t *r = &run;
    memset(r, 0, sizeof *r);
    int parsed = shapes_parse(&r->cli, argc, argv);
    if (parsed >= 0)
        return parsed;
    int rc = select_methods(r);
    if (rc >= 0)
        return rc;
    r->env = *env_in;
    rc = open_character(r);
    if (rc >= 0)
        return rc;
    r->rc = BENCH_EXIT_OK;
    if (!prepare_mesh(r)) {
        close_inputs(r);
        return BENCH_EXIT_RUNTIME;
    }
    begin_table(r);
    if (!run_counts(r))
        r->rc = BENCH_EXIT_RUNTIME;
    free(r->active);
    free(r->weight);
    if (r->rc == BENCH_EXIT_OK)
        r->rc = bench_finish(&r->t, &r->env, &r->c, r->failures);
    else
        report_table_free(&r->t);
    close_inputs(r);
    return r->rc;
}
