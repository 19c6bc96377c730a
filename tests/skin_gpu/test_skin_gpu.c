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
 * usage: test_skin_gpu OUT_DIR (PNGs of both renders are written there)
 */
#include "app/figure.h"
#include "core/paths.h"
#include "render/gfx.h"

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

static int g_failures;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
            g_failures++;                                        \
        }                                                        \
    } while (0)

static uint32_t g_rng = 12345u;
static float frand(void)
{
    g_rng = g_rng * 1664525u + 1013904223u;
    return (float)(g_rng >> 8) / 16777216.0f;
}

/* Rest pose with every joint turned by up to MAX_RAD about a random axis. */
static void random_pose(const skel_t *s, float max_rad, pose_t *out)
{
    pose_rest(s, out);
    for (int j = 0; j < out->joint_count; j++) {
        float a[3] = {frand() - 0.5f, frand() - 0.5f, frand() - 0.5f};
        float len = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (len < 1e-3f)
            continue;
        for (int k = 0; k < 3; k++)
            a[k] /= len;
        float q[4], r[4];
        pose_quat_axis_angle(a, (frand() * 2.0f - 1.0f) * max_rad, q);
        pose_quat_mul(out->rot[j], q, r);
        memcpy(out->rot[j], r, sizeof r);
    }
}

typedef struct arrays {
    float *pos, *nrm, *tan;
} arrays;

static bool alloc_arrays(arrays *a, size_t n)
{
    a->pos = calloc(n * 3, sizeof(float));
    a->nrm = calloc(n * 3, sizeof(float));
    a->tan = calloc(n * 4, sizeof(float));
    return a->pos && a->nrm && a->tan;
}

static void free_arrays(arrays *a)
{
    free(a->pos);
    free(a->nrm);
    free(a->tan);
}

/* skin_run of F's last deform (its palettes and morphed meshes) into REF. */
static bool cpu_reference(const figure_t *f, int method, int influences, arrays *ref)
{
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++) {
        const figure_mesh *m = &f->mesh[mi];
        bool morphed = m->set.target_count > 0;
        skin_job_t sj = {.vertex_count = (int)m->vertex_count,
                         .influences = influences,
                         .method = (skin_method)method,
                         .isa = SKIN_ISA_SCALAR,
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

typedef struct errs {
    double pos, dir;
} errs;

static errs compare(const arrays *a, const arrays *b, size_t n)
{
    errs e = {0, 0};
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
    const gfx_info *info = gfx_get_info();
    printf("limits: GL_MAX_SHADER_STORAGE_BLOCK_SIZE %lld B, GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS %d\n",
           (long long)info->max_ssbo_block_size, info->max_vertex_ssbo_blocks);
    CHECK(gfx_character_gpu_limits_ok(info, GFX_CHARACTER_MAX_JOINTS, 1, msg, sizeof msg), "real limits: %s", msg);
    gfx_info small = *info;
    small.max_ssbo_block_size = 1024;
    CHECK(!gfx_character_gpu_limits_ok(&small, GFX_CHARACTER_MAX_JOINTS, 0, msg, sizeof msg) &&
              strstr(msg, "GL_MAX_SHADER_STORAGE_BLOCK_SIZE"),
          "a 1 KB block limit must refuse 256 joints by name, got '%s'", msg);
    printf("refused as expected: %s\n", msg);
    small = *info;
    small.max_vertex_ssbo_blocks = 0;
    CHECK(!gfx_character_gpu_limits_ok(&small, 10, 0, msg, sizeof msg) &&
              strstr(msg, "GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS"),
          "no vertex SSBO blocks must be refused by name, got '%s'", msg);
    printf("refused as expected: %s\n", msg);
    CHECK(!gfx_character_gpu_limits_ok(info, GFX_CHARACTER_MAX_JOINTS + 1, 0, msg, sizeof msg),
          "257 joints must be refused");
}

static void check_capture(figure_t *f, float height)
{
    size_t n = 0;
    for (uint32_t mi = 0; mi < f->chr.mesh_count; mi++)
        n += f->mesh[mi].vertex_count;
    arrays gpu, ref;
    CHECK(alloc_arrays(&gpu, n) && alloc_arrays(&ref, n), "out of memory");
    static const char *const names[] = {"blend points", "blend matrices", "dual quaternions"};
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double worst[3] = {0, 0, 0}, worst_dir = 0, other_min = 1e30;
    /* CPU frames first: every slot then holds skinned, not bind-pose,
     * vertices, which the first GPU frame in each slot must replace. */
    pose_t bent;
    random_pose(&f->chr.skel, 0.8f, &bent);
    f->gpu_skin = false;
    for (int i = 0; i < GFX_CHARACTER_SLOTS; i++)
        CHECK(figure_deform(f, &bent, world), "figure_deform");
    for (int p = 0; p < POSES; p++) {
        pose_t pose;
        random_pose(&f->chr.skel, 0.8f, &pose);
        for (int method = 0; method < 3; method++) {
            for (int k = 1; k <= SKIN_MAX_INFLUENCES; k++) {
                f->gpu_skin = true;
                f->method = method;
                f->influences = k;
                CHECK(figure_deform(f, &pose, world), "figure_deform");
                CHECK(f->gpu_skin, "the GPU path was refused");
                CHECK(gfx_character_capture(f->gfx, gpu.pos, gpu.nrm, gpu.tan, NULL), "capture");
                CHECK(cpu_reference(f, method, k, &ref), "skin_run");
                errs e = compare(&gpu, &ref, n);
                printf("pose %d  %-16s %d influences: max |dpos| %.3g cm (%.3g of height), max |ddir| %.3g\n", p,
                       names[method], k, e.pos, e.pos / height, e.dir);
                CHECK(e.pos <= POS_TOL_REL * height, "%s, %d influences: position error %.3g cm > %.3g cm",
                      names[method], k, e.pos, POS_TOL_REL * height);
                CHECK(e.dir <= DIR_TOL, "%s, %d influences: direction error %.3g", names[method], k, e.dir);
                worst[method] = fmax(worst[method], e.pos / height);
                worst_dir = fmax(worst_dir, e.dir);
                if (k == SKIN_MAX_INFLUENCES) {
                    /* The comparison must see a different method (the two LBS
                     * orders are the same math, so against DQS / LBS) and a
                     * different truncation. */
                    int other = method == SKIN_DQS ? SKIN_LBS_MATRIX : SKIN_DQS;
                    CHECK(cpu_reference(f, other, k, &ref), "skin_run");
                    errs o = compare(&gpu, &ref, n);
                    other_min = fmin(other_min, o.pos / height);
                    CHECK(cpu_reference(f, method, 1, &ref), "skin_run");
                    o = compare(&gpu, &ref, n);
                    other_min = fmin(other_min, o.pos / height);
                }
            }
        }
    }
    /* Time of the CPU side of a frame on each path (information only). */
    pose_t pose;
    random_pose(&f->chr.skel, 0.8f, &pose);
    for (int gpu_path = 0; gpu_path < 2; gpu_path++) {
        f->gpu_skin = gpu_path;
        f->method = SKIN_LBS_MATRIX;
        f->influences = SKIN_MAX_INFLUENCES;
        enum { FRAMES = 60 };
        uint64_t t0 = SDL_GetPerformanceCounter();
        for (int i = 0; i < FRAMES; i++)
            CHECK(figure_deform(f, &pose, world), "figure_deform");
        double ms = (double)(SDL_GetPerformanceCounter() - t0) * 1e3 / (double)SDL_GetPerformanceFrequency() / FRAMES;
        printf("figure_deform on the %s path: %.3f ms per frame (%zu vertices)\n", gpu_path ? "GPU" : "CPU", ms, n);
    }
    printf("worst relative position error: points %.3g, matrices %.3g, dqs %.3g; direction %.3g\n", worst[0],
           worst[1], worst[2], worst_dir);
    printf("smallest error against another method or truncation: %.3g of height\n", other_min);
    CHECK(other_min > 10 * POS_TOL_REL, "another method's output matches too: the check could not fail");
    free_arrays(&gpu);
    free_arrays(&ref);
}

static void render(figure_t *f, const pose_t *pose, bool gpu, bool show, float mid_y, uint8_t *rgb, const char *png)
{
    float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    f->gpu_skin = gpu;
    f->show = show;
    f->method = SKIN_LBS_MATRIX;
    f->influences = SKIN_MAX_INFLUENCES;
    /* Whole figure in view: 3.2 m away, a little to the side and above. */
    gfx_frame_desc fd = {.width = W, .height = H, .eye = {80, mid_y + 30, 320}, .focus = {0, mid_y, 0},
                         .layers = GFX_LAYER_SHADOWS};
    mat4 view, proj;
    glm_lookat(fd.eye, fd.focus, (vec3){0, 1, 0}, view);
    glm_perspective(glm_rad(40.0f), (float)W / H, 10.0f, 5000.0f, proj);
    memcpy(fd.view, view, sizeof fd.view);
    memcpy(fd.proj, proj, sizeof fd.proj);
    /* Three frames, so every stream slot holds this mode. */
    for (int i = 0; i < GFX_CHARACTER_SLOTS; i++) {
        CHECK(figure_deform(f, pose, world), "figure_deform");
        gfx_render_frame(&fd);
    }
    CHECK(gfx_read_pixels_rgb(W, H, rgb), "reading pixels");
    if (png)
        CHECK(gfx_screenshot_png(png, W, H), "writing %s", png);
}

static long count_diff(const uint8_t *a, const uint8_t *b, int *max_diff)
{
    long n = 0;
    *max_diff = 0;
    for (long i = 0; i < (long)W * H; i++) {
        int d = 0;
        for (int c = 0; c < 3; c++)
            d = abs((int)a[3 * i + c] - b[3 * i + c]) > d ? abs((int)a[3 * i + c] - b[3 * i + c]) : d;
        *max_diff = d > *max_diff ? d : *max_diff;
        n += d > PIXEL_TOL;
    }
    return n;
}

static void check_screens(figure_t *f, float mid_y, const char *out_dir)
{
    uint8_t *cpu = malloc((size_t)W * H * 3), *gpu = malloc((size_t)W * H * 3), *none = malloc((size_t)W * H * 3);
    CHECK(cpu && gpu && none, "out of memory");
    pose_t pose;
    random_pose(&f->chr.skel, 0.35f, &pose);
    char path[512];
    snprintf(path, sizeof path, "%s/cpu.png", out_dir);
    render(f, &pose, false, true, mid_y, cpu, path);
    snprintf(path, sizeof path, "%s/gpu.png", out_dir);
    render(f, &pose, true, true, mid_y, gpu, path);
    render(f, &pose, false, false, mid_y, none, NULL);
    int max_diff, max_none;
    long diff = count_diff(cpu, gpu, &max_diff);
    long covered = count_diff(cpu, none, &max_none);
    printf("screens: CPU vs GPU %ld of %d pixels differ by > %d (max channel diff %d); the figure covers %ld\n", diff,
           W * H, PIXEL_TOL, max_diff, covered);
    CHECK(covered > W * H / 50, "the figure covers only %ld pixels", covered);
    CHECK(diff <= (long)(MAX_PIXEL_DIFF_FRACTION * W * H), "CPU and GPU renders differ in %ld pixels", diff);
    free(cpu);
    free(gpu);
    free(none);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_skin_gpu OUT_DIR\n");
        return 2;
    }
    mkdir(argv[1], 0755);
    paths_init(NULL);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "FAIL: SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 5);
    SDL_Window *win = SDL_CreateWindow("test_skin_gpu", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, W, H,
                                       SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
    SDL_GLContext ctx = win ? SDL_GL_CreateContext(win) : NULL;
    if (!ctx) {
        fprintf(stderr, "FAIL: OpenGL 4.5 core context: %s\n", SDL_GetError());
        return 1;
    }
    gfx_desc desc = {.debug = true};
    static figure_t fig;
    char chr[512];
    if (!gfx_init(&desc) || !paths_join(FIGURE_DEFAULT_CHARACTER, chr, sizeof chr) || !figure_load(&fig, chr) ||
        !figure_gpu_init(&fig, "skin_gpu")) {
        fprintf(stderr, "FAIL: set-up (gfx_init, %s)\n", FIGURE_DEFAULT_CHARACTER);
        return 1;
    }
    /* Skinning only: the CPU morphs (its m_pos arrays are the reference);
     * tests/morph_gpu checks the GPU blend shapes. */
    fig.gpu_morph = false;
    printf("renderer: %s | %s\n", gfx_get_info()->renderer, gfx_get_info()->version);
    check_limits();
    CHECK(gfx_character_gpu_supported(fig.gfx), "GPU skinning unsupported on this context");
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
        check_screens(&fig, 0.5f * (lo + hi), argv[1]);
    }
    figure_free(&fig);
    gfx_shutdown();
    SDL_GL_DeleteContext(ctx);
    SDL_DestroyWindow(win);
    /* No SDL_Quit(), as in test_render: it unloads Mesa's driver before
     * LeakSanitizer runs, and the driver's leaks then escape lsan.supp. */
    if (g_failures) {
        fprintf(stderr, "%d failure(s)\n", g_failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
