/* test_morph_gpu: the vertex-shader blend shapes (shaders/morph.glsl through
 * render/gfx_character) against the CPU jobs (anim/bshape, then anim/skin).
 *  1. GL limits: the real context allows the shipped character's delta
 *     blocks; made-up small limits are refused with a message naming the
 *     limit (block size; 3 vertex blocks refuse sparse but allow dense).
 *  2. For random poses and random active sets of 0, 1, 5 and 54 shapes of
 *     the shipped character (plus the pose's correctives), dense and sparse:
 *     the captured GPU-morphed-and-skinned vertices match bshape_run +
 *     skin_run within 1e-4 of the character height (normals, tangents within
 *     1e-3, AO within 1e-4). A reference with one weight changed by 1 must
 *     NOT match (the comparison can fail).
 *  3. The same for 256 and 300 active shapes on a tiny character generated
 *     at test time with strider-chargen --tiny --shapes 300.
 *  4. Bake: one shape at weight 1 through transform feedback equals
 *     bshape_run within 1e-5; figure_bake_save writes a .chr that loads and
 *     whose head is the CPU-morphed head, other meshes unchanged, and whose
 *     deltas (read back from the figure's sets) are the source's.
 *  5. A render with an expression, blend shapes on the GPU and on the CPU:
 *     a few pixels differ at most; the GPU frame makes morphing draws only
 *     for meshes with active targets.
 *  6. Made-up limits that refuse one layout at create: that layout falls
 *     back to the CPU morph (still matching), the other stays on the GPU.
 *  7. A head whose bind pose the shipped vertex clip tweens every frame
 *     (the viewer's --play-clip), marked live_bind: blend shapes stay on
 *     the GPU (dense and sparse, per pass and skin once) and the capture
 *     matches bshape_run + skin_run on the tweened head within 1e-4 of the
 *     height. The same frames without live_bind (the GPU morphing the bind
 *     pose uploaded at create) must NOT match.
 *  8. Each of the viewer's expressions alone at weight 1, rest pose, matrix
 *     skinning: the captured GPU vertices are finite, with unit normals and
 *     tangents orthogonal to them, and match the CPU path.
 *  9. Built when first used: after create no deltas are on the GPU and the
 *     CPU has no dense layout; a GPU-morphed frame in one layout uploads
 *     that layout's deltas only, and the CPU builds its dense layout when it
 *     morphs dense itself.
 * usage: test_morph_gpu OUT_DIR STRIDER_CHARGEN
 */
#include "app/figure.h"
#include "asset/chr_bshape.h"
#include "asset/clip.h"
#include "core/paths.h"
#include "render/gfx.h"
#include "shaders/shader_interface.h"
#include "check.h"
#include "gl_test.h"
#include "test_random.h"

#include <SDL2/SDL.h>
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { W = 320, H = 320, POSES = 3 };
/* The shipped vertex clip (the head talking), relative to the data folder. */
#define TALK_CLIP "assets/clips/talk.vac"

/* Bounds: positions relative to the character height; unit vectors and AO absolute. */
#define POS_TOL_REL 1e-4
#define DIR_TOL 1e-3
#define AO_TOL 1e-4
#define BAKE_TOL 1e-5
/* The weight change that the comparison must notice. */
#define PERTURB 1.0f
/* A pixel "differs" when a channel moves more than this (0..255). */
#define PIXEL_TOL 24
#define MAX_PIXEL_DIFF_FRACTION 0.002

static test_rng_t g_rng = {4242u};
static float frand(void) { return test_rand01(&g_rng); }

/* N distinct random shapes of F get weights in [-0.3, 1.2); the rest 0. */
static void random_weights(figure_t *f, int n)
{
    int count = (int)f->chr.shape_count;
    memset(f->shape_weight, 0, (size_t)count * sizeof *f->shape_weight);
    if (n > count)
        n = count;
    for (int i = 0; i < n; i++) {
        int s = (int)(frand() * (float)count) % count;
        while (f->shape_weight[s] != 0.0f)
            s = (s + 1) % count;
        float w = -0.3f + 1.5f * frand();
        f->shape_weight[s] = w != 0.0f ? w : 0.5f;
    }
}

typedef struct arrays_t {
    float *pos, *nrm, *tan, *ao;
} arrays_t;

static bool alloc_arrays(arrays_t *a, size_t n)
{
    a->pos = calloc(n * 3, sizeof(float));
    a->nrm = calloc(n * 3, sizeof(float));
    a->tan = calloc(n * 4, sizeof(float));
    a->ao = calloc(n, sizeof(float));
    return a->pos && a->nrm && a->tan && a->ao;
}

static void free_arrays(arrays_t *a)
{
    free(a->pos);
    free(a->nrm);
    free(a->tan);
    free(a->ao);
}

typedef struct errs_t {
    double pos, dir, ao;
} errs_t;

static errs_t compare(const arrays_t *a, const arrays_t *b, size_t first, size_t n)
{
    errs_t e = {0, 0, 0};
    for (size_t v = first; v < first + n; v++) {
        for (int k = 0; k < 3; k++) {
            e.pos = fmax(e.pos, fabs((double)a->pos[3 * v + k] - b->pos[3 * v + k]));
            e.dir = fmax(e.dir, fabs((double)a->nrm[3 * v + k] - b->nrm[3 * v + k]));
            e.dir = fmax(e.dir, fabs((double)a->tan[4 * v + k] - b->tan[4 * v + k]));
        }
        e.dir = fmax(e.dir, fabs((double)a->tan[4 * v + 3] - b->tan[4 * v + 3]));
        e.ao = fmax(e.ao, fabs((double)a->ao[v] - b->ao[v]));
    }
    return e;
}

/* Each morphed mesh's active list, built here from the weights (shapes of
 * the mesh with a non-zero weight, then the pose's correctives) rather
 * than taken from the figure. */
typedef struct ref_lists_t {
    uint32_t *target[CHR_MAX_MESHES];
    float *weight[CHR_MAX_MESHES];
    int count[CHR_MAX_MESHES];
} ref_lists_t;

static void build_lists(const figure_t *f, const pose_t *pose, float *corrective_w, ref_lists_t *l)
{
    chr_bshape_corrective_weights(&f->chr, pose, corrective_w);
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        const bshape_set_t *set = &f->mesh[mi].set;
        int n = 0;
        for (uint32_t t = 0; t < set->target_count; t++) {
            float w = t < set->shape_count ? f->shape_weight[set->target_source[t]]
                                           : corrective_w[set->target_source[t]];
            if (w != 0.0f) {
                l->target[mi][n] = t;
                l->weight[mi][n] = w;
                n++;
            }
        }
        l->count[mi] = n;
    }
}

/* bshape_run (LAYOUT) with lists L, then skin_run with F's last palette, into REF. */
static bool cpu_reference(figure_t *f, const ref_lists_t *l, bshape_layout_t layout, int method, arrays_t *ref,
                          arrays_t *morphed)
{
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        figure_mesh_t *m = &f->mesh[mi];
        const float *pos = m->pos, *nrm = m->nrm, *tan = m->tan, *ao = m->ao;
        size_t first = m->first;
        if (m->set.target_count > 0) {
            /* The figure builds the CPU's dense layout only when it morphs
             * dense on the CPU; the reference wants it now. */
            if (layout == BSHAPE_DENSE && !chr_bshape_set_add_layouts(&m->set, &f->chr, BSHAPE_BUILD_DENSE))
                return false;
            bshape_job_t bj = {.set = &m->set,
                               .layout = layout,
                               .active_count = l->count[mi],
                               .active_target = l->target[mi],
                               .active_weight = l->weight[mi],
                               .positions = m->pos,
                               .normals = m->nrm,
                               .tangents = m->tan,
                               .ao = m->ao,
                               .out_positions = morphed->pos + first * 3,
                               .out_normals = morphed->nrm + first * 3,
                               .out_tangents = morphed->tan + first * 4,
                               .out_ao = morphed->ao + first};
            if (!bshape_run(&bj))
                return false;
            pos = bj.out_positions;
            nrm = bj.out_normals;
            tan = bj.out_tangents;
            ao = bj.out_ao;
        }
        skin_job_t sj = {.vertex_count = (int)m->vertex_count,
                         .influences = SKIN_MAX_INFLUENCES,
                         .method = (skin_method_t)method,
                         .isa = SKIN_ISA_SCALAR,
                         .positions = pos,
                         .normals = nrm,
                         .tangents = tan,
                         .joints_u16 = m->joints,
                         .weights = m->weights,
                         .joint_count = f->chr.skel.joint_count,
                         .palette = &f->palette[0][0],
                         .dq_palette = &f->dq[0][0],
                         .out_positions = ref->pos + first * 3,
                         .out_normals = ref->nrm + first * 3,
                         .out_tangents = ref->tan + first * 4};
        if (!skin_run(&sj))
            return false;
        memcpy(ref->ao + first, ao, m->vertex_count * sizeof(float));
    }
    return true;
}

static size_t total_vertices(const figure_t *f)
{
    size_t n = 0;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++)
        n += f->mesh[mi].vertex_count;
    return n;
}

static float figure_height(const figure_t *f)
{
    float lo = 1e30f, hi = -1e30f;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++)
        for (uint32_t v = 0; v < f->mesh[mi].vertex_count; v++) {
            lo = fminf(lo, f->mesh[mi].pos[3 * v + 1]);
            hi = fmaxf(hi, f->mesh[mi].pos[3 * v + 1]);
        }
    return hi - lo;
}

/* Section 2/3: every active-set size in SIZES, both layouts, POSES poses. */
static void check_capture(figure_t *f, const char *name, const int *sizes, int size_count)
{
    size_t n = total_vertices(f);
    float height = figure_height(f);
    printf("%s: %zu vertices, %u shapes, %u correctives, height %.1f cm\n", name, n, f->chr.shape_count,
           f->chr.corrective_count, (double)height);
    arrays_t gpu, ref, morphed;
    ref_lists_t lists;
    float *corrective_w = calloc(f->chr.corrective_count + 1, sizeof(float));
    bool ok = alloc_arrays(&gpu, n) && alloc_arrays(&ref, n) && alloc_arrays(&morphed, n) && corrective_w;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        uint32_t tc = f->mesh[mi].set.target_count + 1;
        lists.target[mi] = calloc(tc, sizeof(uint32_t));
        lists.weight[mi] = calloc(tc, sizeof(float));
        ok = ok && lists.target[mi] && lists.weight[mi];
    }
    CHECKF(ok, "out of memory");
    if (!ok)
        return;
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double perturbed_min = 1e30;
    for (int dense = 0; dense < 2; dense++) {
        for (int si = 0; si < size_count; si++) {
            errs_t worst = {0, 0, 0};
            int active_max = 0;
            for (int p = 0; p < POSES; p++) {
                pose_t pose;
                test_random_pose(&g_rng, &f->chr.skel, 0.8f, &pose);
                random_weights(f, sizes[si]);
                int method = (p + si) % 3;
                f->gpu_skin = true;
                f->gpu_morph = true;
                f->dense = dense;
                f->method = method;
                f->influences = SKIN_MAX_INFLUENCES;
                CHECKF(figure_deform(f, &pose, world), "figure_deform");
                CHECKF(f->gpu_skin && f->morph_on_gpu, "%s: the GPU morph was refused", name);
                CHECKF(gfx_character_capture(f->gfx, gpu.pos, gpu.nrm, gpu.tan, gpu.ao), "capture");
                build_lists(f, &pose, corrective_w, &lists);
                CHECKF(f->active_shapes == (sizes[si] < (int)f->chr.shape_count ? sizes[si] : (int)f->chr.shape_count),
                       "%d active shapes, wanted %d", f->active_shapes, sizes[si]);
                active_max = f->active_shapes > active_max ? f->active_shapes : active_max;
                bshape_layout_t layout = dense ? BSHAPE_DENSE : BSHAPE_SPARSE;
                CHECKF(cpu_reference(f, &lists, layout, method, &ref, &morphed), "CPU reference");
                errs_t e = compare(&gpu, &ref, 0, n);
                worst.pos = fmax(worst.pos, e.pos);
                worst.dir = fmax(worst.dir, e.dir);
                worst.ao = fmax(worst.ao, e.ao);
                /* Change one active weight of the first mesh that has any. */
                for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
                    if (lists.count[mi] == 0)
                        continue;
                    int pick = (int)(frand() * (float)lists.count[mi]) % lists.count[mi];
                    lists.weight[mi][pick] += PERTURB;
                    CHECKF(cpu_reference(f, &lists, layout, method, &ref, &morphed), "CPU reference");
                    errs_t o = compare(&gpu, &ref, 0, n);
                    perturbed_min = fmin(perturbed_min, o.pos / height);
                    break;
                }
            }
            printf("%s %-6s %3d active shapes (+correctives): max |dpos| %.3g cm (%.3g of height), "
                   "max |ddir| %.3g, max |dao| %.3g\n",
                   name, dense ? "dense" : "sparse", active_max, worst.pos, worst.pos / height, worst.dir, worst.ao);
            CHECKF(worst.pos <= POS_TOL_REL * height, "%s %d shapes: position error %.3g cm > %.3g cm",
                   dense ? "dense" : "sparse", sizes[si], worst.pos, POS_TOL_REL * height);
            CHECKF(worst.dir <= DIR_TOL, "direction error %.3g", worst.dir);
            CHECKF(worst.ao <= AO_TOL, "AO error %.3g", worst.ao);
        }
    }
    printf("%s: smallest error against a reference with one weight +%.1f: %.3g of height\n", name, (double)PERTURB,
           perturbed_min);
    CHECKF(perturbed_min > POS_TOL_REL, "a changed weight still matches: the check could not fail");
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        free(lists.target[mi]);
        free(lists.weight[mi]);
    }
    free(corrective_w);
    free_arrays(&gpu);
    free_arrays(&ref);
    free_arrays(&morphed);
}

/* Tweens CLIP (absolute KEYS) at TIME_S into mesh M's bind pose, as the viewer does. */
static bool tween_head(const clip_t *clip, const float *keys, double time_s, figure_mesh_t *m)
{
    tween_job_t job = {.mode = TWEEN_HERMITE,
                       .timing = clip_timing(clip),
                       .time_s = time_s,
                       .vertex_count = (int)clip->vertex_count,
                       .positions = keys,
                       .normals = clip->normal,
                       .ao = clip->ao,
                       .out_vertex = clip->vertex,
                       .out_positions = m->pos,
                       .out_normals = m->nrm,
                       .out_ao = m->ao};
    return tween_run(&job);
}

/* Section 7: GPU blend shapes on a head tweened every frame. */
static void check_live_bind(figure_t *f)
{
    /* Its own random draws: the later sections see the sequence they were
     * tuned with (tiny300's one-weight check is close to its bound). */
    test_rng_t rng_before = g_rng;
    g_rng = (test_rng_t){777u};
    char path[512];
    static clip_t clip;
    memset(&clip, 0, sizeof clip);
    if (!paths_join(TALK_CLIP, path, sizeof path) || !clip_load(&clip, path)) {
        CHECKF(false, "loading %s", TALK_CLIP);
        g_rng = rng_before;
        return;
    }
    int mesh = chr_find_mesh(&f->chr, clip.mesh);
    CHECKF(mesh >= 0 && f->mesh[mesh].vertex_count == clip.mesh_vertex_count, "%s does not fit the character", path);
    if (mesh < 0 || f->mesh[mesh].vertex_count != clip.mesh_vertex_count) {
        clip_free(&clip);
        g_rng = rng_before;
        return;
    }
    figure_mesh_t *m = &f->mesh[mesh];
    size_t n = total_vertices(f), vc = m->vertex_count;
    float height = figure_height(f);
    float *keys = malloc((size_t)clip.key_count * clip.vertex_count * 3 * sizeof(float));
    arrays_t rest = {0}, gpu = {0}, ref = {0}, morphed = {0};
    ref_lists_t lists;
    float *corrective_w = calloc(f->chr.corrective_count + 1, sizeof(float));
    bool ok = keys && corrective_w && alloc_arrays(&rest, vc) && alloc_arrays(&gpu, n) && alloc_arrays(&ref, n) &&
              alloc_arrays(&morphed, n);
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        uint32_t tc = f->mesh[mi].set.target_count + 1;
        lists.target[mi] = calloc(tc, sizeof(uint32_t));
        lists.weight[mi] = calloc(tc, sizeof(float));
        ok = ok && lists.target[mi] && lists.weight[mi];
    }
    CHECKF(ok, "out of memory");
    if (ok) {
        clip_keys_absolute(&clip, m->pos, keys);
        memcpy(rest.pos, m->pos, vc * 3 * sizeof(float));
        memcpy(rest.nrm, m->nrm, vc * 3 * sizeof(float));
        memcpy(rest.ao, m->ao, vc * sizeof(float));
        /* Clip times with the mouth open; each frame of a case a different
         * one, so every slot holds its own tweened head. */
        static const double times_s[] = {0.5, 1.3, 0.9, 1.7};
        enum { TIMES = sizeof times_s / sizeof times_s[0] };
        float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        errs_t worst = {0, 0, 0};
        double stale_min = 1e30;
        for (int c = 0; c < 4; c++) {
            bool dense = c & 1, once = c >> 1;
            pose_t pose;
            test_random_pose(&g_rng, &f->chr.skel, 0.5f, &pose);
            random_weights(f, 5);
            for (int live = 1; live >= 0; live--) {
                for (int i = 0; i < GFX_CHARACTER_SLOTS; i++) {
                    CHECKF(tween_head(&clip, keys, times_s[(c + i) % TIMES], m), "tween_run");
                    m->live_bind = live;
                    f->gpu_skin = true;
                    f->gpu_morph = true;
                    f->skin_once = once;
                    f->dense = dense;
                    f->method = c % 3;
                    f->influences = SKIN_MAX_INFLUENCES;
                    CHECKF(figure_deform(f, &pose, world), "figure_deform");
                }
                CHECKF(f->gpu_skin && f->gpu_morph && f->morph_on_gpu && f->skin_once == once,
                       "the tweened head took the blend shapes off the GPU");
                CHECKF(m->active_count > 0, "the head has no active shapes: the GPU morph was not exercised");
                CHECKF(gfx_character_capture(f->gfx, gpu.pos, gpu.nrm, gpu.tan, gpu.ao), "capture");
                build_lists(f, &pose, corrective_w, &lists);
                CHECKF(cpu_reference(f, &lists, dense ? BSHAPE_DENSE : BSHAPE_SPARSE, c % 3, &ref, &morphed),
                       "CPU reference");
                errs_t e = compare(&gpu, &ref, 0, n);
                if (live) {
                    worst.pos = fmax(worst.pos, e.pos);
                    worst.dir = fmax(worst.dir, e.dir);
                    worst.ao = fmax(worst.ao, e.ao);
                } else {
                    stale_min = fmin(stale_min, e.pos / height);
                }
            }
        }
        printf("tweened head (%s, %u of %zu vertices move), blend shapes on the GPU: max |dpos| %.3g cm (%.3g of "
               "height), max |ddir| %.3g, max |dao| %.3g; without live_bind: %.3g of height\n",
               TALK_CLIP, clip.vertex_count, vc, worst.pos, worst.pos / height, worst.dir, worst.ao, stale_min);
        CHECKF(worst.pos <= POS_TOL_REL * height, "tweened head: position error %.3g cm > %.3g cm", worst.pos,
               POS_TOL_REL * height);
        CHECKF(worst.dir <= DIR_TOL, "tweened head: direction error %.3g", worst.dir);
        CHECKF(worst.ao <= AO_TOL, "tweened head: AO error %.3g", worst.ao);
        CHECKF(stale_min > POS_TOL_REL, "the create-time bind pose matches the tweened head: the check could not fail");
        memcpy(m->pos, rest.pos, vc * 3 * sizeof(float));
        memcpy(m->nrm, rest.nrm, vc * 3 * sizeof(float));
        memcpy(m->ao, rest.ao, vc * sizeof(float));
    }
    m->live_bind = false;
    f->skin_once = false;
    memset(f->shape_weight, 0, f->chr.shape_count * sizeof *f->shape_weight);
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        free(lists.target[mi]);
        free(lists.weight[mi]);
    }
    free(corrective_w);
    free(keys);
    free_arrays(&rest);
    free_arrays(&gpu);
    free_arrays(&ref);
    free_arrays(&morphed);
    clip_free(&clip);
    g_rng = rng_before;
}

/* Largest deviation of vertex V's frame from orthonormal: | |n| - 1 |,
 * | |t.xyz| - 1 |, |n . t| and | |t.w| - 1 |; infinity when any value is
 * not finite (the fragment shader's tangent frame would be NaN: black). */
static double frame_error(const arrays_t *a, size_t v)
{
    const float *n = a->nrm + 3 * v, *t = a->tan + 4 * v, *p = a->pos + 3 * v;
    for (int k = 0; k < 3; k++)
        if (!isfinite(n[k]) || !isfinite(t[k]) || !isfinite(p[k]))
            return INFINITY;
    if (!isfinite(t[3]) || !isfinite(a->ao[v]))
        return INFINITY;
    double nn = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
    double tt = sqrt((double)t[0] * t[0] + (double)t[1] * t[1] + (double)t[2] * t[2]);
    double nt = (double)n[0] * t[0] + (double)n[1] * t[1] + (double)n[2] * t[2];
    return fmax(fmax(fabs(nn - 1.0), fabs(tt - 1.0)), fmax(fabs(nt), fabs(fabs((double)t[3]) - 1.0)));
}

/* Section 8: the viewer's expressions one at a time (--expression NAME, rest
 * pose, matrix skinning, the default), dense and sparse: every
 * GPU-morphed-and-skinned vertex is finite with a unit normal and a unit
 * tangent orthogonal to it (within DIR_TOL), and matches bshape_run +
 * skin_run. What reaches the fragment shader is then a sane frame; the
 * rendered result is compared CPU vs GPU pixel for pixel in tests/viewer. */
static void check_expression_frames(figure_t *f)
{
    static const char *const names[] = {"happy", "sad", "angry", "surprised", "thoughtful", "disgusted"};
    size_t n = total_vertices(f);
    float height = figure_height(f);
    arrays_t gpu, ref, morphed;
    ref_lists_t lists;
    float *corrective_w = calloc(f->chr.corrective_count + 1, sizeof(float));
    bool ok = alloc_arrays(&gpu, n) && alloc_arrays(&ref, n) && alloc_arrays(&morphed, n) && corrective_w;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        uint32_t tc = f->mesh[mi].set.target_count + 1;
        lists.target[mi] = calloc(tc, sizeof(uint32_t));
        lists.weight[mi] = calloc(tc, sizeof(float));
        ok = ok && lists.target[mi] && lists.weight[mi];
    }
    CHECKF(ok, "out of memory");
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    pose_t pose;
    pose_rest(&f->chr.skel, &pose);
    int tested = 0;
    for (size_t e = 0; ok && e < sizeof names / sizeof names[0]; e++) {
        int s = figure_shape(f, names[e]);
        if (s < 0)
            continue;
        for (int dense = 0; dense < 2; dense++) {
            memset(f->shape_weight, 0, f->chr.shape_count * sizeof *f->shape_weight);
            f->shape_weight[s] = 1.0f;
            f->gpu_skin = true;
            f->gpu_morph = true;
            f->dense = dense;
            f->method = SKIN_LBS_MATRIX;
            f->influences = SKIN_MAX_INFLUENCES;
            CHECKF(figure_deform(f, &pose, world), "figure_deform");
            CHECKF(gfx_character_capture(f->gfx, gpu.pos, gpu.nrm, gpu.tan, gpu.ao), "capture");
            build_lists(f, &pose, corrective_w, &lists);
            CHECKF(cpu_reference(f, &lists, dense ? BSHAPE_DENSE : BSHAPE_SPARSE, SKIN_LBS_MATRIX, &ref, &morphed),
                   "CPU reference");
            double gpu_worst = 0, cpu_worst = 0;
            size_t gpu_at = 0, bad = 0;
            for (size_t v = 0; v < n; v++) {
                double g = frame_error(&gpu, v), c = frame_error(&ref, v);
                if (!(g <= gpu_worst)) {
                    gpu_worst = g;
                    gpu_at = v;
                }
                cpu_worst = fmax(cpu_worst, c);
                bad += !(g <= DIR_TOL);
            }
            errs_t d = compare(&gpu, &ref, 0, n);
            printf("expression %-10s %-6s: GPU frames off unit/orthogonal by up to %.3g (vertex %zu; %zu over %.0e), "
                   "CPU by %.3g; GPU vs CPU max |dpos| %.3g cm, max |ddir| %.3g\n",
                   names[e], dense ? "dense" : "sparse", gpu_worst, gpu_at, bad, DIR_TOL, cpu_worst, d.pos, d.dir);
            if (bad)
                printf("  vertex %zu: GPU n (%g %g %g) t (%g %g %g %g); CPU n (%g %g %g) t (%g %g %g %g)\n", gpu_at,
                       (double)gpu.nrm[3 * gpu_at], (double)gpu.nrm[3 * gpu_at + 1], (double)gpu.nrm[3 * gpu_at + 2],
                       (double)gpu.tan[4 * gpu_at], (double)gpu.tan[4 * gpu_at + 1], (double)gpu.tan[4 * gpu_at + 2],
                       (double)gpu.tan[4 * gpu_at + 3], (double)ref.nrm[3 * gpu_at], (double)ref.nrm[3 * gpu_at + 1],
                       (double)ref.nrm[3 * gpu_at + 2], (double)ref.tan[4 * gpu_at], (double)ref.tan[4 * gpu_at + 1],
                       (double)ref.tan[4 * gpu_at + 2], (double)ref.tan[4 * gpu_at + 3]);
            CHECKF(bad == 0, "%s (%s): %zu GPU vertices with a non-finite or non-orthonormal frame (worst %.3g)",
                   names[e], dense ? "dense" : "sparse", bad, gpu_worst);
            CHECKF(d.pos <= POS_TOL_REL * height && d.dir <= DIR_TOL, "%s (%s): GPU vs CPU |dpos| %.3g cm, |ddir| %.3g",
                   names[e], dense ? "dense" : "sparse", d.pos, d.dir);
            tested++;
        }
    }
    CHECKF(tested > 0, "the character has none of the viewer's expressions");
    memset(f->shape_weight, 0, f->chr.shape_count * sizeof *f->shape_weight);
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        free(lists.target[mi]);
        free(lists.weight[mi]);
    }
    free(corrective_w);
    free_arrays(&gpu);
    free_arrays(&ref);
    free_arrays(&morphed);
}

/* 9. What a layout costs is paid when it is first used. */
static void deform_frames(figure_t *f, const pose_t *pose, bool gpu_skin, bool dense)
{
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    f->gpu_skin = gpu_skin;
    f->gpu_morph = true;
    f->dense = dense;
    f->method = SKIN_LBS_MATRIX;
    f->influences = SKIN_MAX_INFLUENCES;
    gfx_frame_desc_t fd = {.width = W, .height = H};
    for (int i = 0; i < GFX_CHARACTER_SLOTS; i++) {
        CHECKF(figure_deform(f, pose, world), "figure_deform");
        gfx_render_frame(&fd);
    }
}

static bool cpu_dense(const figure_t *f)
{
    for (uint32_t m = 0; m < f->chr.mesh_count; m++)
        if (f->mesh[m].set.dense)
            return true;
    return false;
}

static void check_lazy(figure_t *f)
{
    const gfx_character_stats_t *st = gfx_character_get_stats(f->gfx);
    CHECKF(st->delta_bytes == 0 && !cpu_dense(f), "after create: %llu delta bytes on the GPU, CPU dense layout %d",
           (unsigned long long)st->delta_bytes, cpu_dense(f));
    static pose_t pose;
    pose_rest(&f->chr.skel, &pose);
    deform_frames(f, &pose, true, false);
    uint64_t sparse = st->delta_bytes;
    CHECKF(sparse > 0, "a sparse GPU morph uploads the sparse deltas");
    deform_frames(f, &pose, true, true);
    CHECKF(st->delta_bytes > sparse, "a dense GPU morph adds the dense deltas (%llu -> %llu bytes)",
           (unsigned long long)sparse, (unsigned long long)st->delta_bytes);
    CHECKF(!cpu_dense(f), "GPU morphs leave the CPU without a dense layout");
    deform_frames(f, &pose, false, true);
    CHECKF(cpu_dense(f), "a dense CPU morph builds the CPU's dense layout");
    deform_frames(f, &pose, true, false);
}

static void check_limits(const figure_t *f)
{
    char msg[256];
    const gfx_info_t *info = gfx_get_info();
    const bshape_set_t *head = NULL;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++)
        if (!head || f->mesh[mi].set.target_count > head->target_count)
            head = &f->mesh[mi].set;
    int64_t dense_bytes = (int64_t)head->target_count * head->vertex_count * MORPH_DELTA_VEC4S * 16;
    printf("limits: GL_MAX_SHADER_STORAGE_BLOCK_SIZE %lld B, GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS %d; "
           "dense head block %lld B\n",
           (long long)info->max_ssbo_block_size, info->max_vertex_ssbo_blocks, (long long)dense_bytes);
    CHECKF(gfx_character_morph_limits_ok(info, dense_bytes, 5, msg, sizeof msg), "real limits: %s", msg);
    gfx_info_t small = *info;
    small.max_ssbo_block_size = dense_bytes - 1;
    CHECKF(!gfx_character_morph_limits_ok(&small, dense_bytes, 3, msg, sizeof msg) &&
               strstr(msg, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE"),
           "a block one byte too small must be refused by name, got '%s'", msg);
    printf("refused as expected: %s\n", msg);
    small = *info;
    small.max_vertex_ssbo_blocks = 3;
    CHECKF(gfx_character_morph_limits_ok(&small, 1024, 3, msg, sizeof msg), "dense fits 3 blocks: %s", msg);
    CHECKF(!gfx_character_morph_limits_ok(&small, 1024, 4, msg, sizeof msg) &&
               strstr(msg, "GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS"),
           "sparse (4 blocks) must be refused by name with 3, got '%s'", msg);
    printf("refused as expected: %s\n", msg);
    CHECKF(gfx_character_morph_supported(f->gfx, GFX_CHARACTER_MORPH_DENSE) &&
               gfx_character_morph_supported(f->gfx, GFX_CHARACTER_MORPH_SPARSE),
           "GPU blend shapes unsupported on this context");
    const gfx_character_stats_t *st = gfx_character_get_stats(f->gfx);
    printf("blend-shape deltas on the GPU: %.1f MB (both layouts)\n", (double)st->delta_bytes / 1e6);
}

/* Section 6: a context whose limits refuse one layout (made up by editing
 * the renderer's info before the upload): that layout morphs on the CPU,
 * still matching the reference, the other stays on the GPU. */
static void check_fallback(const char *chr_path)
{
    /* gfx_get_info() points at the renderer's own (non-const) record. */
    gfx_info_t *info = (gfx_info_t *)gfx_get_info();
    gfx_info_t saved = *info;
    static const struct {
        int64_t block;
        int blocks;
        bool dense_ok, sparse_ok;
        bool capture_gpu; /* the capture needs one block more: 3 refuse it */
    } cases[] = {{1 << 20, 16, false, true, true}, {0, 3, true, false, false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        *info = saved;
        if (cases[i].block)
            info->max_ssbo_block_size = cases[i].block;
        info->max_vertex_ssbo_blocks = cases[i].blocks;
        static figure_t f;
        printf("fallback: GL_MAX_SHADER_STORAGE_BLOCK_SIZE %lld, GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS %d (one warning "
               "expected):\n",
               (long long)info->max_ssbo_block_size, info->max_vertex_ssbo_blocks);
        fflush(stdout);
        bool ok = figure_load(&f, &(figure_desc_t){.path = chr_path}) && figure_gpu_init(&f, "morph_gpu_fallback");
        *info = saved;
        CHECKF(ok, "loading %s", chr_path);
        if (!ok) {
            figure_free(&f);
            continue;
        }
        CHECKF(gfx_character_morph_supported(f.gfx, GFX_CHARACTER_MORPH_DENSE) == cases[i].dense_ok &&
                   gfx_character_morph_supported(f.gfx, GFX_CHARACTER_MORPH_SPARSE) == cases[i].sparse_ok,
               "case %zu: layouts supported %d/%d", i, gfx_character_morph_supported(f.gfx, GFX_CHARACTER_MORPH_DENSE),
               gfx_character_morph_supported(f.gfx, GFX_CHARACTER_MORPH_SPARSE));
        static const int sizes[] = {5};
        /* check_capture wants the GPU morph in both layouts, so compare here. */
        size_t n = total_vertices(&f);
        arrays_t gpu, ref, morphed;
        ref_lists_t lists;
        float cw[CHR_MAX_CORRECTIVES];
        bool mem = alloc_arrays(&gpu, n) && alloc_arrays(&ref, n) && alloc_arrays(&morphed, n);
        for (uint32_t mi = 0; mi < f.chr.mesh_count; mi++) {
            lists.target[mi] = calloc(f.mesh[mi].set.target_count + 1, sizeof(uint32_t));
            lists.weight[mi] = calloc(f.mesh[mi].set.target_count + 1, sizeof(float));
            mem = mem && lists.target[mi] && lists.weight[mi];
        }
        CHECKF(mem, "out of memory");
        float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        for (int dense = 0; dense < 2 && mem; dense++) {
            pose_t pose;
            test_random_pose(&g_rng, &f.chr.skel, 0.8f, &pose);
            random_weights(&f, sizes[0]);
            f.gpu_skin = true;
            f.gpu_morph = true;
            f.dense = dense;
            f.method = SKIN_LBS_MATRIX;
            CHECKF(figure_deform(&f, &pose, world), "figure_deform");
            bool want_gpu = dense ? cases[i].dense_ok : cases[i].sparse_ok;
            CHECKF(f.gpu_skin && f.morph_on_gpu == want_gpu, "case %zu %s: morph on the GPU %d, expected %d", i,
                   dense ? "dense" : "sparse", f.morph_on_gpu, want_gpu);
            if (want_gpu && !cases[i].capture_gpu)
                continue;
            CHECKF(gfx_character_capture(f.gfx, gpu.pos, gpu.nrm, gpu.tan, gpu.ao), "capture");
            build_lists(&f, &pose, cw, &lists);
            CHECKF(cpu_reference(&f, &lists, dense ? BSHAPE_DENSE : BSHAPE_SPARSE, SKIN_LBS_MATRIX, &ref, &morphed),
                   "CPU reference");
            errs_t e = compare(&gpu, &ref, 0, n);
            printf("fallback %-6s blend shapes on the %s: max |dpos| %.3g cm, |ddir| %.3g, |dao| %.3g\n",
                   dense ? "dense" : "sparse", f.morph_on_gpu ? "GPU" : "CPU", e.pos, e.dir, e.ao);
            CHECKF(e.pos <= POS_TOL_REL * figure_height(&f) && e.dir <= DIR_TOL && e.ao <= AO_TOL,
                   "the fallback does not match the reference");
        }
        for (uint32_t mi = 0; mi < f.chr.mesh_count; mi++) {
            free(lists.target[mi]);
            free(lists.weight[mi]);
        }
        if (mem) {
            free_arrays(&gpu);
            free_arrays(&ref);
            free_arrays(&morphed);
        }
        figure_free(&f);
    }
}

/* Section 4. */
static void check_bake(figure_t *f, const char *out_dir)
{
    int head = -1;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++)
        if (f->mesh[mi].set.shape_count > 0)
            head = (int)mi;
    CHECKF(head >= 0, "no mesh with shapes");
    if (head < 0)
        return;
    figure_mesh_t *m = &f->mesh[head];
    int shape = figure_shape(f, "happy");
    shape = shape >= 0 ? shape : 0;
    int t = bshape_set_find_shape(&m->set, (uint32_t)shape);
    CHECKF(t >= 0, "shape %d not on mesh %d", shape, head);
    size_t vc = m->vertex_count;
    arrays_t gpu, cpu;
    CHECKF(alloc_arrays(&gpu, vc) && alloc_arrays(&cpu, vc), "out of memory");
    uint32_t target = (uint32_t)t;
    float weight = 1.0f;
    for (int layout = 0; layout < 2; layout++) {
        gfx_character_bake_job_t job = {.mesh = (uint32_t)head,
                                        .layout = (gfx_character_morph_t)layout,
                                        .active_count = 1,
                                        .active_target = &target,
                                        .active_weight = &weight,
                                        .out_positions = gpu.pos,
                                        .out_normals = gpu.nrm,
                                        .out_tangents = gpu.tan,
                                        .out_ao = gpu.ao};
        CHECKF(gfx_character_bake(f->gfx, &job), "bake");
        bshape_job_t bj = {.set = &m->set,
                           .layout = (bshape_layout_t)layout,
                           .active_count = 1,
                           .active_target = &target,
                           .active_weight = &weight,
                           .positions = m->pos,
                           .normals = m->nrm,
                           .tangents = m->tan,
                           .ao = m->ao,
                           .out_positions = cpu.pos,
                           .out_normals = cpu.nrm,
                           .out_tangents = cpu.tan,
                           .out_ao = cpu.ao};
        CHECKF(bshape_run(&bj), "bshape_run");
        errs_t e = compare(&gpu, &cpu, 0, vc);
        arrays_t base = {m->pos, m->nrm, m->tan, m->ao};
        errs_t moved = compare(&gpu, &base, 0, vc);
        printf("bake %-6s '%s' at 1: max |dpos| %.3g cm, |ddir| %.3g, |dao| %.3g against bshape_run; "
               "the shape moves vertices by up to %.3g cm, AO by %.3g\n",
               layout ? "dense" : "sparse", f->chr.shapes[shape].name, e.pos, e.dir, e.ao, moved.pos, moved.ao);
        CHECKF(e.pos <= BAKE_TOL && e.dir <= BAKE_TOL && e.ao <= BAKE_TOL, "bake differs from the CPU morph");
        CHECKF(moved.pos > 100 * BAKE_TOL, "the baked shape does not move the mesh");
    }
    /* The file: only this shape at 1, the pose's correctives are not baked. */
    memset(f->shape_weight, 0, f->chr.shape_count * sizeof *f->shape_weight);
    f->shape_weight[shape] = 1.0f;
    char path[512];
    snprintf(path, sizeof path, "%s/baked.chr", out_dir);
    CHECKF(figure_bake_save(f, path), "figure_bake_save %s", path);
    chr_character_t c;
    memset(&c, 0, sizeof c);
    bool loaded = chr_load(&c, path);
    CHECKF(loaded, "the baked file does not load");
    if (loaded) {
        CHECKF(c.mesh_count == f->chr.mesh_count && c.shape_count == f->chr.shape_count &&
                   c.corrective_count == f->chr.corrective_count,
               "the baked file changed the counts");
        double worst = 0;
        long other_diff = 0;
        for (uint32_t mi = 0; mi < c.mesh_count && mi < f->chr.mesh_count; mi++) {
            for (uint32_t v = 0; v < c.meshes[mi].vertex_count; v++) {
                const chr_vertex_t *x = &c.meshes[mi].vertices[v];
                if ((int)mi == head) {
                    for (int k = 0; k < 3; k++) {
                        worst = fmax(worst, fabs((double)x->pos[k] - cpu.pos[3 * v + k]));
                        worst = fmax(worst, fabs((double)x->normal[k] - cpu.nrm[3 * v + k]));
                    }
                    worst = fmax(worst, fabs((double)x->ao - cpu.ao[v]));
                } else {
                    other_diff += memcmp(x, &f->chr.meshes[mi].vertices[v], sizeof *x) != 0;
                }
            }
        }
        printf("baked file %s: head within %.3g of the CPU morph; %ld other vertices changed\n", path, worst,
               other_diff);
        CHECKF(worst <= BAKE_TOL, "the saved head differs from the CPU morph by %.3g", worst);
        CHECKF(other_diff == 0, "meshes without shapes changed");
        /* The figure keeps its deltas only in the sets: the file gets them
         * read back, equal to the source's. */
        chr_character_t src;
        memset(&src, 0, sizeof src);
        long delta_diff = 0;
        CHECKF(chr_load(&src, f->path), "the source %s does not load", f->path);
        for (uint32_t s = 0; s < c.shape_count && s < src.shape_count; s++)
            delta_diff += c.shapes[s].delta_count != src.shapes[s].delta_count ||
                          memcmp(c.shapes[s].deltas, src.shapes[s].deltas,
                                 src.shapes[s].delta_count * sizeof *src.shapes[s].deltas) != 0;
        for (uint32_t k = 0; k < c.corrective_count && k < src.corrective_count; k++)
            delta_diff += c.correctives[k].delta_count != src.correctives[k].delta_count ||
                          memcmp(c.correctives[k].deltas, src.correctives[k].deltas,
                                 src.correctives[k].delta_count * sizeof *src.correctives[k].deltas) != 0;
        CHECKF(delta_diff == 0, "%ld shapes or correctives saved with other deltas than the source's", delta_diff);
        chr_free(&src);
        chr_free(&c);
    }
    memset(f->shape_weight, 0, f->chr.shape_count * sizeof *f->shape_weight);
    free_arrays(&gpu);
    free_arrays(&cpu);
}

static void render(figure_t *f, const pose_t *pose, bool gpu_morph, const float eye[3], const float focus[3],
                   uint8_t *rgb, const char *png)
{
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    f->gpu_skin = true;
    f->gpu_morph = gpu_morph;
    f->method = SKIN_LBS_MATRIX;
    f->influences = SKIN_MAX_INFLUENCES;
    gfx_frame_desc_t fd = {.width = W, .height = H, .layers = GFX_LAYER_SHADOWS};
    memcpy(fd.eye, eye, sizeof fd.eye);
    memcpy(fd.focus, focus, sizeof fd.focus);
    mat4 view, proj;
    glm_lookat(fd.eye, fd.focus, (vec3){0, 1, 0}, view);
    glm_perspective(glm_rad(30.0f), (float)W / H, 5.0f, 5000.0f, proj);
    memcpy(fd.view, view, sizeof fd.view);
    memcpy(fd.proj, proj, sizeof fd.proj);
    for (int i = 0; i < GFX_CHARACTER_SLOTS; i++) {
        CHECKF(figure_deform(f, pose, world), "figure_deform");
        gfx_render_frame(&fd);
    }
    CHECKF(gfx_read_pixels_rgb(W, H, rgb), "reading pixels");
    CHECKF(gfx_screenshot_png(png, W, H), "writing %s", png);
}

/* Information only: the CPU side of a frame with 54 active shapes, blend
 * shapes on the CPU (morph + copy of the morphed bind pose) or on the GPU
 * (active lists only); skinning on the GPU in both. */
static void print_cpu_cost(figure_t *f)
{
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    pose_t pose;
    test_random_pose(&g_rng, &f->chr.skel, 0.8f, &pose);
    random_weights(f, 54);
    for (int gpu_morph = 0; gpu_morph < 2; gpu_morph++) {
        f->gpu_skin = true;
        f->gpu_morph = gpu_morph;
        f->dense = false;
        enum { FRAMES = 30 };
        uint64_t t0 = SDL_GetPerformanceCounter();
        for (int i = 0; i < FRAMES; i++)
            CHECKF(figure_deform(f, &pose, world), "figure_deform");
        double ms = (double)(SDL_GetPerformanceCounter() - t0) * 1e3 / (double)SDL_GetPerformanceFrequency() / FRAMES;
        printf("figure_deform, 54 shapes, blend shapes on the %s: %.3f ms per frame (CPU side)\n",
               f->morph_on_gpu ? "GPU" : "CPU", ms);
    }
    memset(f->shape_weight, 0, f->chr.shape_count * sizeof *f->shape_weight);
}

/* Section 5: the face, close up, with an expression. */
static void check_screens(figure_t *f, const char *out_dir)
{
    uint8_t *cpu = malloc((size_t)W * H * 3), *gpu = malloc((size_t)W * H * 3), *neutral = malloc((size_t)W * H * 3);
    CHECKF(cpu && gpu && neutral, "out of memory");
    float top = -1e30f;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++)
        for (uint32_t v = 0; v < f->mesh[mi].vertex_count; v++)
            top = fmaxf(top, f->mesh[mi].pos[3 * v + 1]);
    float focus[3] = {0, top - 14.0f, 0}, eye[3] = {25, top - 6.0f, 75};
    pose_t pose;
    pose_rest(&f->chr.skel, &pose);
    char path[512];
    memset(f->shape_weight, 0, f->chr.shape_count * sizeof *f->shape_weight);
    snprintf(path, sizeof path, "%s/neutral_gpu.png", out_dir);
    render(f, &pose, true, eye, focus, neutral, path);
    uint32_t neutral_draws = gfx_character_get_stats(f->gfx)->morph_draws;
    static const char *const expression[] = {"surprised", "happy"};
    for (size_t i = 0; i < sizeof expression / sizeof expression[0]; i++) {
        int s = figure_shape(f, expression[i]);
        if (s >= 0)
            f->shape_weight[s] = 1.0f;
    }
    snprintf(path, sizeof path, "%s/expression_cpu.png", out_dir);
    render(f, &pose, false, eye, focus, cpu, path);
    snprintf(path, sizeof path, "%s/expression_gpu.png", out_dir);
    render(f, &pose, true, eye, focus, gpu, path);
    uint32_t draws = gfx_character_get_stats(f->gfx)->morph_draws;
    int max_diff, max_expr;
    long diff = gl_test_count_diff(cpu, gpu, (long)W * H, PIXEL_TOL, &max_diff);
    long expr = gl_test_count_diff(neutral, gpu, (long)W * H, PIXEL_TOL, &max_expr);
    printf("screens (%s): CPU vs GPU blend shapes: %ld of %d pixels differ by > %d (max channel diff %d); the "
           "expression changes %ld; morphing draws %u (neutral rest pose: %u)\n",
           out_dir, diff, W * H, PIXEL_TOL, max_diff, expr, draws, neutral_draws);
    CHECKF(expr > W * H / 200, "the expression changes only %ld pixels", expr);
    CHECKF(diff <= (long)(MAX_PIXEL_DIFF_FRACTION * W * H), "CPU and GPU blend shapes differ in %ld pixels", diff);
    CHECKF(neutral_draws == 0, "no active targets, yet %u morphing draws", neutral_draws);
    CHECKF(draws == 1, "one mesh with active shapes, %u morphing draws", draws);
    memset(f->shape_weight, 0, f->chr.shape_count * sizeof *f->shape_weight);
    free(cpu);
    free(gpu);
    free(neutral);
}

/* mkdir -p PATH (the build's test-out folder may not exist yet). */
static void make_dirs(const char *path)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    }
    mkdir(buf, 0755);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_morph_gpu OUT_DIR STRIDER_CHARGEN\n");
        return 2;
    }
    const char *out_dir = argv[1];
    make_dirs(out_dir);
    paths_init(NULL);
    char many[512], cmd[1400];
    snprintf(many, sizeof many, "%s/tiny300.chr", out_dir);
    snprintf(cmd, sizeof cmd, "'%s' --tiny --shapes 300 --out '%s'", argv[2], many);
    if (system(cmd) != 0) {
        fprintf(stderr, "FAIL: %s\n", cmd);
        return 1;
    }
    gl_test_t gl;
    if (!gl_test_open(&gl, "test_morph_gpu", W, H, &(gfx_desc_t){.debug = true}))
        return 1;
    static figure_t fig, tiny;
    char chr[512];
    if (!paths_join(FIGURE_DEFAULT_CHARACTER, chr, sizeof chr) || !figure_load(&fig, &(figure_desc_t){.path = chr}) ||
        !figure_gpu_init(&fig, "morph_gpu")) {
        fprintf(stderr, "FAIL: set-up (%s)\n", FIGURE_DEFAULT_CHARACTER);
        return 1;
    }
    printf("renderer: %s | %s\n", gfx_get_info()->renderer, gfx_get_info()->version);
    if (gfx_character_morph_supported(fig.gfx, GFX_CHARACTER_MORPH_DENSE) &&
        gfx_character_morph_supported(fig.gfx, GFX_CHARACTER_MORPH_SPARSE))
        check_lazy(&fig);
    check_limits(&fig);
    if (gfx_character_morph_supported(fig.gfx, GFX_CHARACTER_MORPH_DENSE) &&
        gfx_character_morph_supported(fig.gfx, GFX_CHARACTER_MORPH_SPARSE)) {
        static const int sizes[] = {0, 1, 5, 54};
        check_capture(&fig, "strider.chr", sizes, (int)(sizeof sizes / sizeof sizes[0]));
        check_live_bind(&fig);
        check_expression_frames(&fig);
        check_bake(&fig, out_dir);
        check_screens(&fig, out_dir);
        print_cpu_cost(&fig);
        figure_free(&fig);
        if (figure_load(&tiny, &(figure_desc_t){.path = many}) && figure_gpu_init(&tiny, "morph_gpu_tiny")) {
            static const int many_sizes[] = {256, 300};
            check_capture(&tiny, "tiny300.chr", many_sizes, (int)(sizeof many_sizes / sizeof many_sizes[0]));
        } else {
            CHECKF(false, "loading %s", many);
        }
        figure_free(&tiny);
        check_fallback(many);
    } else {
        figure_free(&fig);
    }
    gl_test_close(&gl);
    return check_summary();
}
