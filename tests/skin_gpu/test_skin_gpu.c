/* test_skin_gpu: the vertex-shader skinning (shaders/skin.glsl through
 * render/gfx_character) against the CPU skinning job (anim/skin) on the
 * shipped character.
 *  1. GL limits: the context allows the palette; made-up small limits are
 *     refused with a message naming the limit.
 *  2. For several random poses, every method (blend points, blend matrices,
 *     dual quaternions) and every truncation 1..4: the GPU-skinned vertices
 *     (captured by an SSBO write in character.vert) match skin_run on the
 *     same morphed bind pose within 1e-4 of the character height; normals
 *     and tangents within 1e-3. A different method must NOT match (the
 *     comparison can fail).
 *  3. A render of one pose skinned on the CPU and on the GPU: at most a
 *     few pixels differ (rasterisation), while hiding the figure changes many.
 *  4. Skin once (one transform-feedback deform per frame, both passes draw
 *     it): the feedback buffer, read back, matches the per-pass capture and
 *     the CPU within 1e-4 of the height for every method, with blend shapes
 *     on the CPU and on the GPU; renders per pass and skin once are
 *     identical pixel for pixel (shadow and main pass).
 *  5. The sphere the CPU path hands the renderer holds every skinned vertex
 *     (wild poses, blend shapes at -1 and 2, every truncation), and the
 *     main pass drawn without the fog on its strength is identical to the
 *     one computing it.
 *  6. Cebenoyan's hybrid on a walking clip (CLIP, 60 fps): CPU keys every N
 *     frames, the GPU blends the last two; against exact per-frame CPU
 *     skinning of the frame it shows (N - 1 frames back), max and mean
 *     position error (cm) for N = 1, 2, 4, 8: zero at N = 1, growing with N.
 * usage: test_skin_gpu OUT_DIR [CLIP.bvh] (PNGs of the renders go to OUT_DIR)
 */
#include "anim/bvh.h"
#include "app/figure.h"
#include "core/paths.h"
#include "render/gfx.h"
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

enum { W = 320, H = 480, POSES = 4 };
/* Bounds: positions relative to the character height; unit vectors absolute. */
#define POS_TOL_REL 1e-4
#define DIR_TOL 1e-3
/* A pixel "differs" when a channel moves more than this (0..255). */
#define PIXEL_TOL 24
#define MAX_PIXEL_DIFF_FRACTION 0.002

static test_rng_t g_rng = {12345u};

typedef struct arrays_t {
    float *pos, *nrm, *tan;
} arrays_t;

static bool alloc_arrays(arrays_t *a, size_t n)
{
    a->pos = calloc(n * 3, sizeof(float));
    a->nrm = calloc(n * 3, sizeof(float));
    a->tan = calloc(n * 4, sizeof(float));
    return a->pos && a->nrm && a->tan;
}

static void free_arrays(arrays_t *a)
{
    free(a->pos);
    free(a->nrm);
    free(a->tan);
}

/* skin_run of F's last deform (its palettes and morphed meshes) into REF. */
static bool cpu_reference_isa(const figure_t *f, int method, int influences, skin_isa_t isa, arrays_t *ref)
{
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        const figure_mesh_t *m = &f->mesh[mi];
        bool morphed = m->set.target_count > 0;
        skin_job_t sj = {.vertex_count = (int)m->vertex_count,
                         .influences = influences,
                         .method = (skin_method_t)method,
                         .isa = isa,
                         .positions = morphed ? m->m_pos : m->pos,
                         .normals = morphed ? m->m_nrm : m->nrm,
                         .tangents = morphed ? m->m_tan : m->tan,
                         .joints_u16 = m->joints,
                         .weights = m->weights,
                         .joint_count = f->chr.skel.joint_count,
                         .palette = &f->palette[0][0],
                         .dq_palette = &f->dq[0][0],
                         .out_positions = ref->pos + (size_t)m->first * 3,
                         .out_normals = ref->nrm + (size_t)m->first * 3,
                         .out_tangents = ref->tan + (size_t)m->first * 4};
        if (!skin_run(&sj))
            return false;
    }
    return true;
}

static bool cpu_reference(const figure_t *f, int method, int influences, arrays_t *ref)
{
    return cpu_reference_isa(f, method, influences, SKIN_ISA_SCALAR, ref);
}

typedef struct errs_t {
    double pos, dir;
} errs_t;

static errs_t compare(const arrays_t *a, const arrays_t *b, size_t n)
{
    errs_t e = {0, 0};
    for (size_t v = 0; v < n; v++) {
        for (int k = 0; k < 3; k++) {
            double dp = fabs((double)a->pos[3 * v + k] - b->pos[3 * v + k]);
            double dn = fabs((double)a->nrm[3 * v + k] - b->nrm[3 * v + k]);
            double dt = fabs((double)a->tan[4 * v + k] - b->tan[4 * v + k]);
            e.pos = fmax(e.pos, dp);
            e.dir = fmax(e.dir, fmax(dn, dt));
        }
        e.dir = fmax(e.dir, fabs((double)a->tan[4 * v + 3] - b->tan[4 * v + 3]));
    }
    return e;
}

static void check_limits(void)
{
    char msg[256];
    const gfx_info_t *info = gfx_get_info();
    printf("limits: GL_MAX_SHADER_STORAGE_BLOCK_SIZE %lld B, GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS %d\n",
           (long long)info->max_ssbo_block_size, info->max_vertex_ssbo_blocks);
    CHECKF(gfx_character_gpu_limits_ok(info, GFX_CHARACTER_MAX_JOINTS, 1, msg, sizeof msg), "real limits: %s", msg);
    gfx_info_t small = *info;
    small.max_ssbo_block_size = 1024;
    CHECKF(!gfx_character_gpu_limits_ok(&small, GFX_CHARACTER_MAX_JOINTS, 0, msg, sizeof msg) &&
               strstr(msg, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE"),
           "a 1 KB block limit must refuse 256 joints by name, got '%s'", msg);
    printf("refused as expected: %s\n", msg);
    small = *info;
    small.max_vertex_ssbo_blocks = 0;
    CHECKF(!gfx_character_gpu_limits_ok(&small, 10, 0, msg, sizeof msg) &&
               strstr(msg, "GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS"),
           "no vertex SSBO blocks must be refused by name, got '%s'", msg);
    printf("refused as expected: %s\n", msg);
    CHECKF(!gfx_character_gpu_limits_ok(info, GFX_CHARACTER_MAX_JOINTS + 1, 0, msg, sizeof msg),
           "257 joints must be refused");
}

static void check_capture(figure_t *f, float height)
{
    size_t n = 0;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++)
        n += f->mesh[mi].vertex_count;
    arrays_t gpu, ref;
    CHECKF(alloc_arrays(&gpu, n) && alloc_arrays(&ref, n), "out of memory");
    static const char *const names[] = {"blend points", "blend matrices", "dual quaternions"};
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double worst[3] = {0, 0, 0}, worst_dir = 0, other_min = 1e30;
    /* CPU frames first: every slot then holds skinned, not bind-pose,
     * vertices, which the first GPU frame in each slot must replace. */
    pose_t bent;
    test_random_pose(&g_rng, &f->chr.skel, 0.8f, &bent);
    f->gpu_skin = false;
    for (int i = 0; i < GFX_CHARACTER_SLOTS; i++)
        CHECKF(figure_deform(f, &bent, world), "figure_deform");
    for (int p = 0; p < POSES; p++) {
        pose_t pose;
        test_random_pose(&g_rng, &f->chr.skel, 0.8f, &pose);
        for (int method = 0; method < 3; method++) {
            for (int k = 1; k <= SKIN_MAX_INFLUENCES; k++) {
                f->gpu_skin = true;
                f->method = method;
                f->influences = k;
                CHECKF(figure_deform(f, &pose, world), "figure_deform");
                CHECKF(f->gpu_skin, "the GPU path was refused");
                CHECKF(gfx_character_capture(f->gfx, gpu.pos, gpu.nrm, gpu.tan, NULL), "capture");
                CHECKF(cpu_reference(f, method, k, &ref), "skin_run");
                errs_t e = compare(&gpu, &ref, n);
                printf("pose %d  %-16s %d influences: max |dpos| %.3g cm (%.3g of height), max |ddir| %.3g\n", p,
                       names[method], k, e.pos, e.pos / height, e.dir);
                CHECKF(e.pos <= POS_TOL_REL * height, "%s, %d influences: position error %.3g cm > %.3g cm",
                       names[method], k, e.pos, POS_TOL_REL * height);
                CHECKF(e.dir <= DIR_TOL, "%s, %d influences: direction error %.3g", names[method], k, e.dir);
                worst[method] = fmax(worst[method], e.pos / height);
                worst_dir = fmax(worst_dir, e.dir);
                if (k == SKIN_MAX_INFLUENCES) {
                    /* The comparison must see a different method (the two LBS
                     * orders are the same math, so against DQS / LBS) and a
                     * different truncation. */
                    int other = method == SKIN_DQS ? SKIN_LBS_MATRIX : SKIN_DQS;
                    CHECKF(cpu_reference(f, other, k, &ref), "skin_run");
                    errs_t o = compare(&gpu, &ref, n);
                    other_min = fmin(other_min, o.pos / height);
                    CHECKF(cpu_reference(f, method, 1, &ref), "skin_run");
                    o = compare(&gpu, &ref, n);
                    other_min = fmin(other_min, o.pos / height);
                }
            }
        }
    }
    /* Time of the CPU side of a frame on each path (information only). */
    pose_t pose;
    test_random_pose(&g_rng, &f->chr.skel, 0.8f, &pose);
    for (int gpu_path = 0; gpu_path < 2; gpu_path++) {
        f->gpu_skin = gpu_path;
        f->method = SKIN_LBS_MATRIX;
        f->influences = SKIN_MAX_INFLUENCES;
        enum { FRAMES = 60 };
        uint64_t t0 = SDL_GetPerformanceCounter();
        for (int i = 0; i < FRAMES; i++)
            CHECKF(figure_deform(f, &pose, world), "figure_deform");
        double ms = (double)(SDL_GetPerformanceCounter() - t0) * 1e3 / (double)SDL_GetPerformanceFrequency() / FRAMES;
        printf("figure_deform on the %s path: %.3f ms per frame (%zu vertices)\n", gpu_path ? "GPU" : "CPU", ms, n);
    }
    printf("worst relative position error: points %.3g, matrices %.3g, dqs %.3g; direction %.3g\n", worst[0], worst[1],
           worst[2], worst_dir);
    printf("smallest error against another method or truncation: %.3g of height\n", other_min);
    CHECKF(other_min > 10 * POS_TOL_REL, "another method's output matches too: the check could not fail");
    free_arrays(&gpu);
    free_arrays(&ref);
}

/* A few blend shapes on (the head then morphs), or all off. */
static void set_shapes(figure_t *f, bool on)
{
    for (uint32_t s = 0; s < f->chr.shape_count; s++)
        f->shape_weight[s] = on && s % 7 == 3 ? 0.3f + 0.1f * (float)(s % 5) : 0.0f;
}

/* Skin once against per pass and the CPU, for every method, with blend
 * shapes morphed on the CPU and on the GPU. */
static void check_skin_once(figure_t *f, float height)
{
    size_t n = 0;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++)
        n += f->mesh[mi].vertex_count;
    arrays_t once, pass, ref;
    CHECKF(alloc_arrays(&once, n) && alloc_arrays(&pass, n) && alloc_arrays(&ref, n), "out of memory");
    static const char *const names[] = {"blend points", "blend matrices", "dual quaternions"};
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double worst = 0, worst_pass = 0, other_min = 1e30;
    uint64_t passes0 = gfx_character_get_stats(f->gfx)->feedback_passes;
    pose_t pose;
    test_random_pose(&g_rng, &f->chr.skel, 0.8f, &pose);
    for (int gpu_morph = 0; gpu_morph < 2; gpu_morph++) {
        set_shapes(f, true);
        for (int method = 0; method < 3; method++) {
            f->gpu_skin = true;
            f->method = method;
            f->influences = SKIN_MAX_INFLUENCES;
            /* The CPU morph of these weights fills m_pos for the reference. */
            f->gpu_morph = false;
            f->skin_once = false;
            CHECKF(figure_deform(f, &pose, world), "figure_deform");
            CHECKF(cpu_reference(f, method, SKIN_MAX_INFLUENCES, &ref), "skin_run");
            f->gpu_morph = gpu_morph;
            CHECKF(figure_deform(f, &pose, world), "figure_deform");
            CHECKF(f->morph_on_gpu == (bool)gpu_morph, "blend shapes not where asked");
            CHECKF(gfx_character_capture(f->gfx, pass.pos, pass.nrm, pass.tan, NULL), "per-pass capture");
            f->skin_once = true;
            CHECKF(figure_deform(f, &pose, world), "figure_deform");
            CHECKF(f->skin_once, "skin once was refused");
            CHECKF(gfx_character_capture(f->gfx, once.pos, once.nrm, once.tan, NULL), "skin-once read-back");
            errs_t e = compare(&once, &ref, n), p = compare(&once, &pass, n);
            printf("skin once, %-16s blend shapes on the %s: vs CPU max |dpos| %.3g cm (%.3g of height), "
                   "|ddir| %.3g; vs per pass |dpos| %.3g cm, |ddir| %.3g\n",
                   names[method], gpu_morph ? "GPU" : "CPU", e.pos, e.pos / height, e.dir, p.pos, p.dir);
            CHECKF(e.pos <= POS_TOL_REL * height && e.dir <= DIR_TOL, "skin once vs CPU: %.3g cm, %.3g", e.pos, e.dir);
            CHECKF(p.pos <= POS_TOL_REL * height && p.dir <= DIR_TOL, "skin once vs per pass: %.3g cm, %.3g", p.pos,
                   p.dir);
            worst = fmax(worst, e.pos / height);
            worst_pass = fmax(worst_pass, p.pos / height);
            /* The same comparison must see another method. */
            CHECKF(cpu_reference(f, method == SKIN_DQS ? SKIN_LBS_MATRIX : SKIN_DQS, SKIN_MAX_INFLUENCES, &ref),
                   "skin_run");
            other_min = fmin(other_min, compare(&once, &ref, n).pos / height);
        }
    }
    uint64_t passes = gfx_character_get_stats(f->gfx)->feedback_passes - passes0;
    printf("skin once: worst relative position error vs CPU %.3g, vs per pass %.3g; another method %.3g; "
           "%llu feedback passes\n",
           worst, worst_pass, other_min, (unsigned long long)passes);
    CHECKF(other_min > 10 * POS_TOL_REL, "another method's output matches skin once too: the check could not fail");
    CHECKF(passes == 6, "%llu feedback passes for 6 skin-once captures", (unsigned long long)passes);
    set_shapes(f, false);
    f->skin_once = false;
    f->gpu_morph = false;
    free_arrays(&once);
    free_arrays(&pass);
    free_arrays(&ref);
}

/* The figure in POSE seen from EYE towards FOCUS (cm), read back into RGB. */
static void render_view(figure_t *f, const pose_t *pose, bool gpu, bool show, const float eye[3], const float focus[3],
                        uint32_t layers, uint8_t *rgb, const char *png)
{
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    f->gpu_skin = gpu;
    f->show = show;
    f->method = SKIN_LBS_MATRIX;
    f->influences = SKIN_MAX_INFLUENCES;
    gfx_frame_desc_t fd = {.width = W,
                           .height = H,
                           .eye = {eye[0], eye[1], eye[2]},
                           .focus = {focus[0], focus[1], focus[2]},
                           .layers = layers};
    mat4 view, proj;
    glm_lookat(fd.eye, fd.focus, (vec3){0, 1, 0}, view);
    glm_perspective(glm_rad(40.0f), (float)W / H, 10.0f, 5000.0f, proj);
    memcpy(fd.view, view, sizeof fd.view);
    memcpy(fd.proj, proj, sizeof fd.proj);
    /* Three frames, so every stream slot holds this mode. */
    for (int i = 0; i < GFX_CHARACTER_SLOTS; i++) {
        CHECKF(figure_deform(f, pose, world), "figure_deform");
        gfx_render_frame(&fd);
    }
    CHECKF(gfx_read_pixels_rgb(W, H, rgb), "reading pixels");
    if (png)
        CHECKF(gfx_screenshot_png(png, W, H), "writing %s", png);
}

static void render_layers(figure_t *f, const pose_t *pose, bool gpu, bool show, float mid_y, uint32_t layers,
                          uint8_t *rgb, const char *png)
{
    /* Whole figure in view: 3.2 m away, a little to the side and above. */
    render_view(f, pose, gpu, show, (float[3]){80, mid_y + 30, 320}, (float[3]){0, mid_y, 0}, layers, rgb, png);
}

static void render(figure_t *f, const pose_t *pose, bool gpu, bool show, float mid_y, uint8_t *rgb, const char *png)
{
    render_layers(f, pose, gpu, show, mid_y, GFX_LAYER_SHADOWS, rgb, png);
}

static void check_screens(figure_t *f, float mid_y, const char *out_dir)
{
    uint8_t *cpu = malloc((size_t)W * H * 3), *gpu = malloc((size_t)W * H * 3), *none = malloc((size_t)W * H * 3);
    CHECKF(cpu && gpu && none, "out of memory");
    pose_t pose;
    test_random_pose(&g_rng, &f->chr.skel, 0.35f, &pose);
    char path[512];
    snprintf(path, sizeof path, "%s/cpu.png", out_dir);
    render(f, &pose, false, true, mid_y, cpu, path);
    snprintf(path, sizeof path, "%s/gpu.png", out_dir);
    render(f, &pose, true, true, mid_y, gpu, path);
    render(f, &pose, false, false, mid_y, none, NULL);
    int max_diff, max_none;
    long diff = gl_test_count_diff(cpu, gpu, (long)W * H, PIXEL_TOL, &max_diff);
    long covered = gl_test_count_diff(cpu, none, (long)W * H, PIXEL_TOL, &max_none);
    printf("screens: CPU vs GPU %ld of %d pixels differ by > %d (max channel diff %d); the figure covers %ld\n", diff,
           W * H, PIXEL_TOL, max_diff, covered);
    CHECKF(covered > W * H / 50, "the figure covers only %ld pixels", covered);
    CHECKF(diff <= (long)(MAX_PIXEL_DIFF_FRACTION * W * H), "CPU and GPU renders differ in %ld pixels", diff);
    /* Skin once draws the very vertices the per-pass shaders compute, with
     * blend shapes on the CPU and on the GPU (a few shapes on). */
    uint8_t *once = malloc((size_t)W * H * 3);
    CHECKF(once != NULL, "out of memory");
    for (int gpu_morph = 0; gpu_morph < 2 && once; gpu_morph++) {
        set_shapes(f, true);
        f->gpu_morph = gpu_morph;
        f->skin_once = false;
        snprintf(path, sizeof path, "%s/gpu_per_pass_morph_%s.png", out_dir, gpu_morph ? "gpu" : "cpu");
        render(f, &pose, true, true, mid_y, gpu, path);
        f->skin_once = true;
        snprintf(path, sizeof path, "%s/gpu_skin_once_morph_%s.png", out_dir, gpu_morph ? "gpu" : "cpu");
        render(f, &pose, true, true, mid_y, once, path);
        long any = 0;
        for (long i = 0; i < (long)W * H * 3; i++)
            any += once[i] != gpu[i];
        gl_test_count_diff(gpu, once, (long)W * H, PIXEL_TOL, &max_diff);
        printf("screens: skin once vs per pass, blend shapes on the %s: %ld of %d channel values differ "
               "(max diff %d)\n",
               gpu_morph ? "GPU" : "CPU", any, W * H * 3, max_diff);
        CHECKF(any == 0, "skin-once and per-pass renders differ in %ld channel values", any);
    }
    set_shapes(f, false);
    f->skin_once = false;
    f->gpu_morph = false;
    free(once);
    free(cpu);
    free(gpu);
    free(none);
}

/* The sphere the CPU path hands the renderer (figure.reach_*) holds every
 * skinned vertex, for wild poses, blend shapes pushed to -1 and 2 and every
 * truncation of the blended points and matrices, and is tight enough to be
 * of use (under 3 m for a figure under 2 m tall); dual quaternions give
 * none. Then the renders with the main pass's fog dropped on its strength
 * and computed anyway are identical, pixel for pixel. */
static void check_reach(figure_t *f, float height, float mid_y, const char *out_dir)
{
    size_t n = 0;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++)
        n += f->mesh[mi].vertex_count;
    arrays_t ref;
    CHECKF(alloc_arrays(&ref, n), "out of memory");
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double worst_slack = 1e30, widest = 0.0;
    f->gpu_skin = false;
    for (int p = 0; p < POSES; p++) {
        pose_t pose;
        test_random_pose(&g_rng, &f->chr.skel, 2.5f, &pose);
        for (uint32_t s = 0; s < f->chr.shape_count; s++)
            f->shape_weight[s] = s % 3 == (uint32_t)p % 3 ? (s % 2 ? 2.0f : -1.0f) : 0.0f;
        /* The last pose pulls one shape a thousand times over: the blend
         * shapes then move the head's vertices farther than the joints do
         * (its reach is left out of the widest). */
        bool extreme = p == POSES - 1 && f->chr.shape_count > 0;
        if (extreme)
            f->shape_weight[0] = 1000.0f;
        for (int method = 0; method < 3; method++) {
            for (int k = 1; k <= SKIN_MAX_INFLUENCES; k++) {
                f->method = method;
                f->influences = k;
                CHECKF(figure_deform(f, &pose, world), "figure_deform");
                if (method == SKIN_DQS) {
                    CHECKF(f->reach_radius < 0.0f, "dual quaternions: no reach claimed (%.1f)",
                           (double)f->reach_radius);
                    continue;
                }
                CHECKF(cpu_reference(f, method, k, &ref), "skin_run");
                for (size_t v = 0; v < n; v++) {
                    double d2 = 0.0;
                    for (int a = 0; a < 3; a++) {
                        double e = (double)ref.pos[3 * v + a] - f->reach_center[a];
                        d2 += e * e;
                    }
                    worst_slack = fmin(worst_slack, f->reach_radius - sqrt(d2));
                }
                if (!extreme)
                    widest = fmax(widest, f->reach_radius);
            }
        }
    }
    printf("reach: radius up to %.1f cm (figure %.1f cm tall), nearest vertex to the sphere %.2f cm inside\n", widest,
           (double)height, worst_slack);
    CHECKF(worst_slack >= 0.0, "a vertex lies %.3f cm outside the reach", -worst_slack);
    CHECKF(widest > 0.0 && widest < 300.0, "reach %.1f cm", widest);
    set_shapes(f, true);
    f->method = SKIN_LBS_MATRIX;
    f->influences = SKIN_MAX_INFLUENCES;
    uint8_t *fog = malloc((size_t)W * H * 3), *free_of_fog = malloc((size_t)W * H * 3);
    CHECKF(fog && free_of_fog, "out of memory");
    pose_t pose;
    test_random_pose(&g_rng, &f->chr.skel, 0.35f, &pose);
    char path[512];
    snprintf(path, sizeof path, "%s/fog_free.png", out_dir);
    render_layers(f, &pose, false, true, mid_y, GFX_LAYER_SHADOWS | GFX_LAYER_FOG, free_of_fog, path);
    CHECKF(gfx_character_get_stats(f->gfx)->fog_free, "3 m from the eye, the main pass drops the fog");
    gfx_character_set_fog_everywhere(f->gfx, true);
    render_layers(f, &pose, false, true, mid_y, GFX_LAYER_SHADOWS | GFX_LAYER_FOG, fog, NULL);
    CHECKF(!gfx_character_get_stats(f->gfx)->fog_free, "fog everywhere: the main pass computes the fog");
    gfx_character_set_fog_everywhere(f->gfx, false);
    int max_diff;
    long diff = gl_test_count_diff(free_of_fog, fog, (long)W * H, 0, &max_diff);
    printf("reach: the render without the fog vs with it: %ld pixels differ (max %d)\n", diff, max_diff);
    CHECKF(diff == 0, "%ld pixels differ", diff);
    set_shapes(f, false);
    free(fog);
    free(free_of_fog);
    free_arrays(&ref);
}

/* The CPU path's sample cull (sample_cull.h) leaves out triangles that
 * cover no pixel or shadow-map texel centre: the renders with and without
 * it are identical, pixel for pixel, from far, from the usual distance and
 * from a hand's breadth off the face, for wild poses with blend shapes on;
 * and it does leave triangles out (from afar, most of them). */
static void check_sample_cull(figure_t *f, float height, float mid_y, const char *out_dir)
{
    uint8_t *culled = malloc((size_t)W * H * 3), *all = malloc((size_t)W * H * 3);
    CHECKF(culled && all, "out of memory");
    set_shapes(f, true);
    float top = mid_y + 0.45f * height;
    static const struct {
        const char *name;
        float eye[3], focus_dy;
    } views[] = {{"far", {300, 300, 1800}, 0.0f}, {"usual", {80, 30, 320}, 0.0f}, {"face", {4, 0, 28}, 0.45f}};
    for (int v = 0; v < 3 && culled && all; v++) {
        pose_t pose;
        /* Wild from afar; tame up close, so the face stays in view. */
        test_random_pose(&g_rng, &f->chr.skel, v == 2 ? 0.1f : 1.2f, &pose);
        float focus[3] = {0, mid_y + views[v].focus_dy * height, 0};
        float eye[3] = {views[v].eye[0], (v == 2 ? top : mid_y) + views[v].eye[1], views[v].eye[2]};
        if (v == 2)
            focus[1] = top - 0.04f * height;
        char path[512];
        snprintf(path, sizeof path, "%s/sample_cull_%s.png", out_dir, views[v].name);
        gfx_character_set_all_triangles(f->gfx, false);
        render_view(f, &pose, false, true, eye, focus, GFX_LAYER_SHADOWS | GFX_LAYER_FOG, culled, path);
        gfx_character_stats_t st = *gfx_character_get_stats(f->gfx);
        gfx_character_set_all_triangles(f->gfx, true);
        render_view(f, &pose, false, true, eye, focus, GFX_LAYER_SHADOWS | GFX_LAYER_FOG, all, NULL);
        const gfx_character_stats_t *every = gfx_character_get_stats(f->gfx);
        gfx_character_set_all_triangles(f->gfx, false);
        int max_diff;
        long diff = gl_test_count_diff(culled, all, (long)W * H, 0, &max_diff);
        printf("sample cull, %s: shadow pass %u of %u triangles, main pass %u of %u; %ld pixels differ (max %d)\n",
               views[v].name, st.triangles_drawn[0], st.triangles_drawn[0] + st.triangles_culled[0],
               st.triangles_drawn[1], st.triangles_drawn[1] + st.triangles_culled[1], diff, max_diff);
        CHECKF(diff == 0, "%s: %ld pixels differ with every triangle drawn", views[v].name, diff);
        CHECKF(every->triangles_culled[0] == 0 && every->triangles_culled[1] == 0, "all triangles: none left out");
        if (gfx_get_info()->software && v == 0)
            CHECKF(st.triangles_culled[0] > st.triangles_drawn[0] && st.triangles_culled[1] > st.triangles_drawn[1],
                   "from afar most triangles cover no centre and are left out");
    }
    set_shapes(f, false);
    free(culled);
    free(all);
}

/* Frame cost of each deformation path on this renderer (information only;
 * llvmpipe is a CPU rasteriser, so "GPU" time is CPU time on other cores):
 * CPU ms of figure_deform, wall ms of gfx_render_frame in finish-timing
 * mode (commands + the glFinish stall) and the GPU ms it reports, medians
 * over ROUNDS x BLOCK frames of a character-only view. Paths take turns
 * block by block, so load changes on a shared machine hit all alike. */
static void time_paths(figure_t *f, float mid_y)
{
    enum { ROUNDS = 6, BLOCK = 8, FRAMES = ROUNDS * BLOCK, PATHS = 6 };
    static const struct {
        const char *name;
        bool gpu, once, gpu_morph;
        int hybrid;
    } paths[PATHS] = {{"CPU skinning", false, false, false, 0},
                      {"GPU per pass", true, false, true, 0},
                      {"GPU skin once", true, true, true, 0},
                      {"GPU per pass, CPU morph", true, false, false, 0},
                      {"GPU skin once, CPU morph", true, true, false, 0},
                      {"hybrid N=4", false, false, false, 4}};
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    gfx_frame_desc_t fd = {
        .width = W, .height = H, .eye = {80, mid_y + 30, 320}, .focus = {0, mid_y, 0}, .layers = GFX_LAYER_SHADOWS};
    mat4 view, proj;
    glm_lookat(fd.eye, fd.focus, (vec3){0, 1, 0}, view);
    glm_perspective(glm_rad(40.0f), (float)W / H, 10.0f, 5000.0f, proj);
    memcpy(fd.view, view, sizeof fd.view);
    memcpy(fd.proj, proj, sizeof fd.proj);
    static double deform[PATHS][FRAMES], wall[PATHS][FRAMES], gpu[PATHS][FRAMES];
    double hz = (double)SDL_GetPerformanceFrequency();
    set_shapes(f, true);
    gfx_set_finish_timing(true);
    for (int r = 0; r < ROUNDS; r++) {
        for (int p = 0; p < PATHS; p++) {
            f->gpu_skin = paths[p].gpu;
            f->skin_once = paths[p].once;
            f->gpu_morph = paths[p].gpu_morph;
            f->hybrid_every = paths[p].hybrid;
            f->method = SKIN_LBS_MATRIX;
            f->influences = SKIN_MAX_INFLUENCES;
            /* Warm-up frames first: every slot in this mode. */
            for (int i = -GFX_CHARACTER_SLOTS; i < BLOCK; i++) {
                pose_t pose;
                test_random_pose(&g_rng, &f->chr.skel, 0.3f, &pose);
                uint64_t t0 = SDL_GetPerformanceCounter();
                CHECKF(figure_deform(f, &pose, world), "figure_deform");
                uint64_t t1 = SDL_GetPerformanceCounter();
                gfx_render_frame(&fd);
                uint64_t t2 = SDL_GetPerformanceCounter();
                if (i < 0)
                    continue;
                deform[p][r * BLOCK + i] = (double)(t1 - t0) * 1e3 / hz;
                wall[p][r * BLOCK + i] = (double)(t2 - t1) * 1e3 / hz;
                gpu[p][r * BLOCK + i] = gfx_last_gpu_ms();
            }
        }
    }
    for (int p = 0; p < PATHS; p++) {
        double deform_mean = 0;
        for (int i = 0; i < FRAMES; i++)
            deform_mean += deform[p][i] / FRAMES;
        double *v[3] = {deform[p], wall[p], gpu[p]};
        for (int k = 0; k < 3; k++) /* medians */
            for (int i = 1; i < FRAMES; i++)
                for (int j = i; j > 0 && v[k][j - 1] > v[k][j]; j--) {
                    double t = v[k][j];
                    v[k][j] = v[k][j - 1];
                    v[k][j - 1] = t;
                }
        printf("cost %-24s figure_deform %.3f ms CPU (mean %.3f); gfx_render_frame %.3f ms wall, %.3f ms GPU "
               "(glFinish), min %.3f; medians of %d frames, %dx%d\n",
               paths[p].name, deform[p][FRAMES / 2], deform_mean, wall[p][FRAMES / 2], gpu[p][FRAMES / 2], gpu[p][0],
               FRAMES, W, H);
    }
    gfx_set_finish_timing(false);
    set_shapes(f, false);
    f->gpu_skin = f->skin_once = f->gpu_morph = false;
    f->hybrid_every = 0;
}

/* Hybrid errors of one N over the clip. */
typedef struct hybrid_err_t {
    double max_cm, mean_cm, max_lag_cm, max_deg;
    int frames, worst_frame; /* measured; shown frame of max_cm */
    size_t worst_vertex;
} hybrid_err_t;

static double angle_deg(const float *a, const float *b)
{
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1], cy = (double)a[2] * b[0] - (double)a[0] * b[2],
           cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), d) * 57.29577951308232;
}

/* Plays FRAMES frames of the clip from FIRST through figure_deform with the hybrid at
 * N and compares each captured GPU frame with EXACT[shown frame]. */
static hybrid_err_t run_hybrid(figure_t *f, const bvh_t *clip, const bvh_map_t *map, int first, int frames, int n,
                               const arrays_t *exact, arrays_t *got, size_t verts)
{
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    hybrid_err_t e = {0, 0, 0, 0, 0, 0, 0};
    double sum = 0;
    f->gpu_skin = false;
    f->hybrid_every = 0;
    pose_t pose;
    /* One plain frame: the hybrid then starts afresh (first key alone). */
    CHECKF(bvh_frame_pose(clip, &f->chr.skel, map, first, &pose) && figure_deform(f, &pose, world), "deform");
    f->hybrid_every = n;
    for (int i = 0; i < frames; i++) {
        CHECKF(bvh_frame_pose(clip, &f->chr.skel, map, first + i, &pose), "clip frame %d", first + i);
        CHECKF(figure_deform(f, &pose, world), "figure_deform");
        CHECKF(gfx_character_capture(f->gfx, got->pos, got->nrm, got->tan, NULL), "hybrid capture");
        /* The first N frames show the first key alone. */
        if (i < n)
            continue;
        int shown = i - (n - 1);
        const arrays_t *x = &exact[shown], *now = &exact[i];
        for (size_t v = 0; v < verts; v++) {
            double d2 = 0, l2 = 0;
            for (int k = 0; k < 3; k++) {
                double d = (double)got->pos[3 * v + k] - x->pos[3 * v + k];
                double l = (double)got->pos[3 * v + k] - now->pos[3 * v + k];
                d2 += d * d;
                l2 += l * l;
            }
            if (sqrt(d2) > e.max_cm) {
                e.max_cm = sqrt(d2);
                e.worst_frame = shown;
                e.worst_vertex = v;
            }
            e.max_lag_cm = fmax(e.max_lag_cm, sqrt(l2));
            e.max_deg = fmax(e.max_deg, angle_deg(&got->nrm[3 * v], &x->nrm[3 * v]));
            sum += sqrt(d2);
        }
        e.frames++;
    }
    e.mean_cm = e.frames ? sum / ((double)e.frames * (double)verts) : 0.0;
    f->hybrid_every = 0;
    return e;
}

/* Cebenoyan's hybrid on a walking clip against exact per-frame skinning. */
static void check_hybrid(figure_t *f, const char *clip_path)
{
    /* Two seconds of walking from frame FIRST: the clip's first frames
     * blend in from rest (some joints turn ~8 degrees a frame), a start-up
     * transient, not walking. */
    enum { FIRST = 10, FRAMES = 120, NS = 4 };
    static const int ns[NS] = {1, 2, 4, 8};
    bvh_t clip;
    bvh_map_t map;
    memset(&clip, 0, sizeof clip);
    if (!bvh_load(&clip, clip_path) || !bvh_map_skel(&clip, &f->chr.skel, &map)) {
        CHECKF(false, "cannot use the walking clip %s", clip_path);
        bvh_free(&clip);
        return;
    }
    int frames = clip.frame_count - FIRST < FRAMES ? clip.frame_count - FIRST : FRAMES;
    if (frames < 2 * FIGURE_HYBRID_MAX) {
        CHECKF(false, "%s: %d frames, too short", clip_path, clip.frame_count);
        bvh_free(&clip);
        return;
    }
    size_t verts = 0;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++)
        verts += f->mesh[mi].vertex_count;
    arrays_t *exact = calloc((size_t)frames, sizeof *exact), got;
    bool ok = exact && alloc_arrays(&got, verts);
    for (int i = 0; ok && i < frames; i++)
        ok = alloc_arrays(&exact[i], verts);
    CHECKF(ok, "out of memory");
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    f->gpu_skin = false;
    f->hybrid_every = 0;
    f->method = SKIN_LBS_MATRIX;
    f->influences = SKIN_MAX_INFLUENCES;
    /* Exact per-frame skinning, as the game's CPU path does it (same ISA:
     * at N = 1 the keys are these very vertices). */
    for (int i = 0; ok && i < frames; i++) {
        pose_t pose;
        CHECKF(bvh_frame_pose(&clip, &f->chr.skel, &map, FIRST + i, &pose) && figure_deform(f, &pose, world), "deform");
        CHECKF(cpu_reference_isa(f, f->method, f->influences, SKIN_ISA_AUTO, &exact[i]), "skin_run");
    }
    hybrid_err_t e[NS];
    for (int k = 0; ok && k < NS; k++) {
        e[k] = run_hybrid(f, &clip, &map, FIRST, frames, ns[k], exact, &got, verts);
        printf("hybrid N=%d (%s, %d frames at %.0f fps, shown %d frames late): position error max %.3f cm, mean "
               "%.4f cm (worst: frame %d, vertex %zu); normal max %.2f deg; vs the current frame (lag included) max "
               "%.3f cm\n",
               ns[k], clip_path, e[k].frames, clip.frame_time_s > 0 ? 1.0 / (double)clip.frame_time_s : 0.0, ns[k] - 1,
               e[k].max_cm, e[k].mean_cm, FIRST + e[k].worst_frame, e[k].worst_vertex, e[k].max_deg, e[k].max_lag_cm);
        CHECKF(e[k].frames > 0, "no frame measured at N=%d", ns[k]);
    }
    if (ok) {
        CHECKF(e[0].max_cm == 0.0 && e[0].max_deg == 0.0, "N=1 must be exact: %.3g cm, %.3g deg", e[0].max_cm,
               e[0].max_deg);
        for (int k = 1; k < NS; k++)
            CHECKF(e[k].max_cm > 0.0 && e[k].mean_cm > e[k - 1].mean_cm, "N=%d: mean %.4g cm not above N=%d's %.4g",
                   ns[k], e[k].mean_cm, ns[k - 1], e[k - 1].mean_cm);
        /* Walking at 60 fps, a lerp over 8 frames stays within a few cm:
         * a broken blend (wrong key pair or t) is tens of cm off. */
        CHECKF(e[NS - 1].max_cm < 10.0, "N=8: max error %.3f cm", e[NS - 1].max_cm);
    }
    printf("hybrid keys written: %llu\n", (unsigned long long)gfx_character_get_stats(f->gfx)->keys_written);
    for (int i = 0; exact && i < frames; i++)
        free_arrays(&exact[i]);
    free(exact);
    free_arrays(&got);
    bvh_free(&clip);
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: test_skin_gpu OUT_DIR [CLIP.bvh]\n");
        return 2;
    }
    mkdir(argv[1], 0755);
    paths_init(NULL);
    gl_test_t gl;
    if (!gl_test_open(&gl, "test_skin_gpu", W, H, &(gfx_desc_t){.debug = true}))
        return 1;
    static figure_t fig;
    char chr[512];
    if (!paths_join(FIGURE_DEFAULT_CHARACTER, chr, sizeof chr) || !figure_load(&fig, &(figure_desc_t){.path = chr}) ||
        !figure_gpu_init(&fig, "skin_gpu")) {
        fprintf(stderr, "FAIL: set-up (%s)\n", FIGURE_DEFAULT_CHARACTER);
        return 1;
    }
    /* Skinning only: the CPU morphs (its m_pos arrays are the reference);
     * tests/morph_gpu checks the GPU blend shapes. */
    fig.gpu_morph = false;
    printf("renderer: %s | %s\n", gfx_get_info()->renderer, gfx_get_info()->version);
    check_limits();
    CHECKF(gfx_character_gpu_supported(fig.gfx), "GPU skinning unsupported on this context");
    float lo = 1e30f, hi = -1e30f;
    for (uint32_t mi = 0; mi < fig.chr.mesh_count; mi++)
        for (uint32_t v = 0; v < fig.mesh[mi].vertex_count; v++) {
            lo = fminf(lo, fig.mesh[mi].pos[3 * v + 1]);
            hi = fmaxf(hi, fig.mesh[mi].pos[3 * v + 1]);
        }
    printf("character height %.1f cm (y %.1f to %.1f), %d joints\n", (double)(hi - lo), (double)lo, (double)hi,
           fig.chr.skel.joint_count);
    if (fig.gfx && gfx_character_gpu_supported(fig.gfx)) {
        check_capture(&fig, hi - lo);
        check_skin_once(&fig, hi - lo);
        check_screens(&fig, 0.5f * (lo + hi), argv[1]);
        check_reach(&fig, hi - lo, 0.5f * (lo + hi), argv[1]);
        check_sample_cull(&fig, hi - lo, 0.5f * (lo + hi), argv[1]);
        time_paths(&fig, 0.5f * (lo + hi));
    }
    if (argc == 3)
        check_hybrid(&fig, argv[2]);
    figure_free(&fig);
    gl_test_close(&gl);
    return check_summary();
}
