/* `strider bench skinning`: CPU skinning paths (reference, scalar, SSE2,
 * AVX2+FMA, threaded, dual quaternion) over vertex counts, bone counts and
 * influence counts, and GPU paths (bench/gpu/gfx_skin_bench: the game's
 * skin.glsl variants, Cebenoyan's influence binning, Gosselin's compressed
 * stream, skin-once vs per-pass) on a character mesh, plus the error of
 * Cebenoyan's CPU-key / GPU-lerp hybrid over a walk clip and of the
 * compressed stream. Every row is checked against the scalar reference on
 * the same inputs (GPU output read back, binned output un-permuted), and
 * thread counts must give bit-identical checksums. A GL context is opened
 * only when a GPU path is selected; GPU paths are timed round-robin.
 * This file: the options, the mesh, the CPU rows, the hybrid and the run's
 * steps; the GPU rows are in bench_skinning_gpu.c. */
#include "bench/bench_skinning_internal.h"

#include "anim/bvh.h"
#include "anim/pose.h"
#include "anim/skin_hybrid.h"
#include "asset/character.h"
#include "asset/import_file.h"
#include "bench/bench_gl.h"
#include "bench/skin_bench.h"
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
/* The seed of the mesh's pose (GPU_POSE_MAX_RAD). */
#define GPU_POSE_SEED 12345u
/* Hybrid: frames of the clip, starting after its first frames (the 60 fps
 * CMU clips ramp in from a near-rest pose over their first 3 frames). */
#define HYBRID_FIRST_FRAME 10
#define HYBRID_FRAMES 121
#define DEFAULT_CLIP "../shared/mocap/cmu/extra_60fps/46_01.bvh"
#define DEFAULT_MESH "assets/characters/strider.chr"
#define SMOKE_TARGET_SIZE 128

static const char *const k_paths[PATH_NAMES] = {"cpu-reference",   "cpu-scalar",     "cpu-sse2",      "cpu-avx2",
                                                "cpu-avx512",      "cpu-dqs",        "cpu-copy",      "gpu-lbs-points",
                                                "gpu-lbs-matrix",  "gpu-dqs",        "gpu-compute",   "gpu-unbinned",
                                                "gpu-binned",      "gpu-compressed", "gpu-skin-once", "gpu-per-pass",
                                                "gpu-hybrid-lerp", "hybrid",         "cpu",           "gpu"};

const char *skinning_path_name(int path) { return k_paths[path]; }

static bool is_gpu(int p) { return p >= PATH_GPU_POINTS && p <= PATH_GPU_LERP; }

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
    if (r->any_gpu && !skinning_gpu_open(r, gl, env)) {
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

int bench_skinning(int argc, char **argv, const report_env_t *env_in)
{
    /* Large: static, as the steps' own tables are. */
    static skinning_run_t run;
    static mesh_data_t mesh;
    skinning_run_t *r = &run;
    memset(r, 0, sizeof *r);
    int parsed = skin_parse(&r->cli, argc, argv);
    if (parsed >= 0)
        return parsed;
    r->c = r->cli.c;
    r->mesh = &mesh;
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
        skinning_gpu_note(r);
    run_copy_floor(r);
    run_cpu_sets(r);
    skinning_gpu_rows(r);
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
    skinning_gpu_print_vcompress(r);
    if (hybrid.rows > 0)
        report_table_print(&hybrid, stdout);
    report_table_free(&hybrid);
    if (r->any_gpu)
        skinning_gpu_close(r, &gl);
    if (r->need_mesh)
        mesh_free(&mesh);
    return r->rc;
}
