/* test_render: renders a hand-built level in a hidden SDL window (OpenGL 4.5
 * core, Mesa llvmpipe under Xvfb in CI) and checks the picture: lit terrain
 * that is not uniform, sky above ground, a wall shadow darker than the sunlit
 * ground beside it, the marker and a debug line where they should be. Also
 * checks the shader include expansion, error paths, and frame timing.
 * Usage: test_render [out.png] [--bench] [--level file.lvl]
 *   out.png   where the screenshot goes (default build/test_render.png)
 *   --bench   also print frame times for several configurations
 *   --level   also render that level file from behind its spawn point, check
 *             the picture, write out.png.<file>.png, print its frame time
 *   --all-levels  the same for every shipped level (assets/levels)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "render/gfx.h"
#include "render/gfx_shader.h"
#include "render/gfx_timer.h"

#include "core/log.h"
#include "core/paths.h"
#include "check.h"
#include "gl_test.h"

#include <SDL2/SDL.h>
#include <cglm/cglm.h>

#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 1280, H = 720, GRID = 161, TIMED_FRAMES = 12 };
static const float CELL_CM = 50.0f;

/* Flat around the origin (where the wall-shadow check looks), rolling hills
 * further out so slopes and their shading show up. */
static float hill_height(float x, float z)
{
    float r = sqrtf(x * x + z * z);
    float fall = glm_clamp((r - 900.0f) / 1200.0f, 0.0f, 1.0f);
    float h = 180.0f * sinf(x / 700.0f) * cosf(z / 900.0f) + 120.0f * sinf((x + 2.0f * z) / 1300.0f);
    return fall * fall * h;
}

static void build_level(level_t *lvl, float *heights)
{
    memset(lvl, 0, sizeof *lvl);
    snprintf(lvl->name, sizeof lvl->name, "render_test");
    terrain_t *t = &lvl->terrain;
    t->width = GRID;
    t->depth = GRID;
    t->cell_cm = CELL_CM;
    t->origin_x = -0.5f * (GRID - 1) * CELL_CM;
    t->origin_z = -0.5f * (GRID - 1) * CELL_CM;
    for (int j = 0; j < GRID; j++)
        for (int i = 0; i < GRID; i++)
            heights[j * GRID + i] = hill_height(t->origin_x + (float)i * CELL_CM, t->origin_z + (float)j * CELL_CM);
    t->heights = heights;
    /* The wall runs along x at z = 0; the sun (below) shines from +z, so its
     * shadow falls on z < 0. */
    lvl->wall_count = 2;
    lvl->walls[0] = (level_wall_t){-500.0f, 0.0f, 500.0f, 0.0f, 15.0f};
    lvl->walls[1] = (level_wall_t){900.0f, -1200.0f, 1500.0f, 300.0f, 20.0f};
    lvl->crouch_count = 1;
    lvl->crouch[0] = (level_crouch_area_t){-1400.0f, 500.0f, -400.0f, 800.0f, 110.0f};
    lvl->jump_count = 2;
    lvl->jump[0] = (level_jump_area_t){300.0f, 700.0f, 120.0f};
    lvl->jump[1] = (level_jump_area_t){-900.0f, -700.0f, 200.0f};
}

static void make_camera(gfx_frame_desc_t *f, const vec3 eye, const vec3 focus)
{
    mat4 view, proj;
    glm_lookat((float *)eye, (float *)focus, (vec3){0.0f, 1.0f, 0.0f}, view);
    glm_perspective(glm_rad(55.0f), (float)W / (float)H, 10.0f, 40000.0f, proj);
    memcpy(f->view, view, sizeof view);
    memcpy(f->proj, proj, sizeof proj);
    memcpy(f->eye, eye, sizeof(float) * 3);
    memcpy(f->focus, focus, sizeof(float) * 3);
}

/* World point -> pixel (top-left origin). False if behind the camera or off screen. */
static bool project(const gfx_frame_desc_t *f, const float p[3], int *px, int *py)
{
    mat4 view, proj, vp;
    memcpy(view, f->view, sizeof view);
    memcpy(proj, f->proj, sizeof proj);
    glm_mat4_mul(proj, view, vp);
    vec4 c, w = {p[0], p[1], p[2], 1.0f};
    glm_mat4_mulv(vp, w, c);
    if (c[3] <= 0.0f)
        return false;
    float x = (c[0] / c[3] * 0.5f + 0.5f) * W, y = (1.0f - (c[1] / c[3] * 0.5f + 0.5f)) * H;
    *px = (int)x;
    *py = (int)y;
    return *px >= 0 && *px < W && *py >= 0 && *py < H;
}

static float luma(const uint8_t *p) { return 0.2126f * p[0] + 0.7152f * p[1] + 0.0722f * p[2]; }

/* Mean luminance of a (2r+1)^2 window around a projected world point. */
static float luma_at(const gfx_frame_desc_t *f, const uint8_t *img, const float p[3], int r)
{
    int px, py;
    if (!project(f, p, &px, &py))
        return -1.0f;
    double sum = 0.0;
    int n = 0;
    for (int y = py - r; y <= py + r; y++)
        for (int x = px - r; x <= px + r; x++)
            if (x >= 0 && x < W && y >= 0 && y < H) {
                sum += luma(img + ((size_t)y * W + (size_t)x) * 3);
                n++;
            }
    return n ? (float)(sum / n) : -1.0f;
}

static void mean_rgb_rows(const uint8_t *img, int y0, int y1, float out[3])
{
    double s[3] = {0, 0, 0};
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < W; x++)
            for (int k = 0; k < 3; k++)
                s[k] += img[((size_t)y * W + (size_t)x) * 3 + (size_t)k];
    for (int k = 0; k < 3; k++)
        out[k] = (float)(s[k] / ((double)(y1 - y0) * W));
}

/* Counts pixels in a window that match a colour predicate. */
static int count_near(const gfx_frame_desc_t *f, const uint8_t *img, const float p[3], int r,
                      bool (*pred)(const uint8_t *))
{
    int px, py, n = 0;
    if (!project(f, p, &px, &py))
        return 0;
    for (int y = py - r; y <= py + r; y++)
        for (int x = px - r; x <= px + r; x++)
            if (x >= 0 && x < W && y >= 0 && y < H && pred(img + ((size_t)y * W + (size_t)x) * 3))
                n++;
    return n;
}

static bool is_red(const uint8_t *p) { return p[0] > 70 && p[0] > 2 * p[1] && p[0] > 2 * p[2]; }
static bool is_magenta(const uint8_t *p) { return p[0] > 200 && p[2] > 200 && p[1] < 80; }

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Mean glFinish-bracketed frame time over n frames, ms; also the CPU time
 * of the whole process (llvmpipe's threads included) per frame, which other
 * jobs on a shared machine disturb much less than wall time. */
static double time_frames(const gfx_frame_desc_t *f, int n, double *min_ms, double *cpu_ms)
{
    gfx_set_finish_timing(true);
    double sum = 0.0;
    *min_ms = 1e9;
    double c0 = cpu_seconds();
    for (int i = 0; i < n; i++) {
        gfx_render_frame(f);
        double ms = gfx_last_gpu_ms();
        sum += ms;
        *min_ms = fmin(*min_ms, ms);
    }
    *cpu_ms = (cpu_seconds() - c0) * 1e3 / n;
    gfx_set_finish_timing(false);
    return sum / n;
}

/* --bench: frame time per configuration (re-initialises gfx for MSAA). */
static void bench_configs(const level_t *lvl, const gfx_frame_desc_t *base)
{
    static const struct {
        const char *name;
        int msaa;
        uint32_t layers;
        int div; /* framebuffer size divisor */
    } cfg[] = {
        {"msaa4 all", 4, GFX_LAYER_ALL, 1},
        {"msaa1 all", 1, GFX_LAYER_ALL, 1},
        {"msaa1 no shadows", 1, GFX_LAYER_ALL & ~GFX_LAYER_SHADOWS, 1},
        {"msaa1 no shadows/grid/fog", 1, GFX_LAYER_ALL & ~(GFX_LAYER_SHADOWS | GFX_LAYER_GRID | GFX_LAYER_FOG), 1},
        {"msaa1 sky only", 1, 0, 1},
        {"msaa1 sky only 320x180", 1, 0, 4},
        {"msaa1 all 320x180", 1, GFX_LAYER_ALL, 4},
        {"msaa1 no terrain 320x180", 1, GFX_LAYER_ALL & ~GFX_LAYER_TERRAIN, 4},
        {"msaa1 terrain only 320x180", 1, GFX_LAYER_TERRAIN, 4},
        {"msaa1 terrain+shadow 320x180", 1, GFX_LAYER_TERRAIN | GFX_LAYER_SHADOWS, 4},
    };
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        gfx_shutdown();
        gfx_desc_t d = {.msaa_samples = cfg[i].msaa};
        if (!gfx_init(&d) || !gfx_level_load(lvl))
            return;
        gfx_frame_desc_t f = *base;
        f.layers = cfg[i].layers;
        if (cfg[i].div > 1) {
            f.width /= cfg[i].div;
            f.height /= cfg[i].div;
        }
        double mn, cpu, mean = time_frames(&f, 8, &mn, &cpu);
        printf("bench %-28s %7.2f ms mean %7.2f ms min, %7.2f ms CPU per frame\n", cfg[i].name, mean, mn, cpu);
    }
}

/* Counts hook calls per pass and checks what the hook is handed. */
typedef struct hook_probe_t {
    int calls[2];
    int bad;
    const gfx_frame_desc_t *expect;
} hook_probe_t;

static void probe_hook(const gfx_pass_info_t *info, void *user)
{
    hook_probe_t *h = user;
    if (info->pass != GFX_PASS_SHADOW && info->pass != GFX_PASS_MAIN) {
        h->bad++;
        return;
    }
    h->calls[info->pass]++;
    if (info->frame != h->expect)
        h->bad++;
    /* view_proj must be proj * view of the frame. */
    mat4 view, proj, vp;
    memcpy(view, info->frame->view, sizeof view);
    memcpy(proj, info->frame->proj, sizeof proj);
    glm_mat4_mul(proj, view, vp);
    for (int k = 0; k < 16; k++)
        if (fabsf(((const float *)vp)[k] - info->view_proj[k]) > 1e-3f * (1.0f + fabsf(info->view_proj[k])))
            h->bad++;
}

/* Renders F into IMG (W x H RGB). */
static void render_into(const gfx_frame_desc_t *f, uint8_t *img)
{
    gfx_render_frame(f);
    CHECKF(gfx_read_pixels_rgb(W, H, img), "reading pixels");
}

/* The static casters' shadow cache: a frame drawn from the cache matches the
 * same frame with every caster drawn anew (gfx_desc.uncached_shadows), also
 * after the focus moved within the cache's margin; the cache is drawn anew
 * when the focus leaves it, the sun turns, a static layer is switched or the
 * level is reloaded, and not otherwise. */
static void test_shadow_cache(const level_t *lvl, const gfx_frame_desc_t *base)
{
    static uint8_t cached[W * H * 3];
    enum { FRAMES = 4 };
    gfx_frame_desc_t frames[FRAMES];
    for (int i = 0; i < FRAMES; i++) {
        frames[i] = *base;
        /* Steps of 60 cm along the wall: within the cache's margin. */
        frames[i].focus[0] += 60.0f * (float)i;
        frames[i].eye[0] += 60.0f * (float)i;
        make_camera(&frames[i], frames[i].eye, frames[i].focus);
    }
    /* The images of the uncached renderer first. */
    static uint8_t fresh_img[FRAMES][W * H * 3];
    gfx_shutdown();
    CHECKF(gfx_init(&(gfx_desc_t){.uncached_shadows = true}) && gfx_level_load(lvl), "uncached renderer");
    for (int i = 0; i < FRAMES; i++)
        render_into(&frames[i], fresh_img[i]);
    CHECKF(gfx_get_frame_stats()->shadow_terrain_triangles > 0 && gfx_get_frame_stats()->shadow_cache_redraws == 0,
           "the uncached renderer draws the terrain into every shadow map");
    gfx_shutdown();
    CHECKF(gfx_init(&(gfx_desc_t){.debug = true}) && gfx_level_load(lvl), "cached renderer");
    for (int i = 0; i < FRAMES; i++) {
        render_into(&frames[i], cached);
        const gfx_frame_stats_t *st = gfx_get_frame_stats();
        /* Only the first frame draws the terrain's depth (into the cache). */
        CHECKF(st->shadow_cache_redrawn == (i == 0) && (st->shadow_terrain_triangles > 0) == (i == 0),
               "frame %d: cache redrawn %d (terrain triangles %d)", i, st->shadow_cache_redrawn,
               st->shadow_terrain_triangles);
        int max_diff;
        long n = gl_test_count_diff(cached, fresh_img[i], (long)W * H, 8, &max_diff);
        printf("shadow cache, frame %d: %ld pixels differ by more than 8 (max %d) from the uncached render\n", i, n,
               max_diff);
        CHECKF(n <= 20, "frame %d: cached shadows differ from fresh ones at %ld pixels", i, n);
    }
    /* What voids the cache. */
    gfx_frame_desc_t f = frames[FRAMES - 1];
    unsigned before = gfx_get_frame_stats()->shadow_cache_redraws;
    f.focus[2] += 2500.0f; /* 25 m: out of the margin */
    gfx_render_frame(&f);
    CHECKF(gfx_get_frame_stats()->shadow_cache_redrawn, "a far move redraws the cache");
    f.sun_dir[0] += 0.1f;
    gfx_render_frame(&f);
    CHECKF(gfx_get_frame_stats()->shadow_cache_redrawn, "a new sun redraws the cache");
    f.layers &= ~(uint32_t)GFX_LAYER_WALLS;
    gfx_render_frame(&f);
    CHECKF(gfx_get_frame_stats()->shadow_cache_redrawn, "switching the walls off redraws the cache");
    gfx_render_frame(&f);
    CHECKF(!gfx_get_frame_stats()->shadow_cache_redrawn, "an unchanged frame reuses the cache");
    CHECKF(gfx_level_load(lvl), "reloading the level");
    gfx_render_frame(&f);
    CHECKF(gfx_get_frame_stats()->shadow_cache_redrawn && gfx_get_frame_stats()->shadow_cache_redraws == before + 4,
           "a level load redraws the cache (%u redraws)", gfx_get_frame_stats()->shadow_cache_redraws - before);
}

/* The terrain chunks wholly outside the shadow map are drawn by a program
 * without the lookup, those wholly before the fog's start by one without
 * the fog: the pictures are the same, pixel for pixel, as when every chunk
 * does both (gfx_desc.lookup_everywhere and fog_everywhere), from two
 * views that leave some chunks outside the map and some in the fog, in
 * sunlight and shade. */
static void test_terrain_split(const level_t *lvl, const gfx_frame_desc_t *base)
{
    enum { VIEWS = 2 };
    gfx_frame_desc_t views[VIEWS] = {*base, *base};
    views[0].shadow_radius_cm = 700.0f;
    make_camera(&views[1], (vec3){1400.0f, 500.0f, -900.0f}, (vec3){-200.0f, 40.0f, 300.0f});
    views[1].shadow_radius_cm = 900.0f;
    static uint8_t split[VIEWS][W * H * 3], everywhere[W * H * 3];
    int far[VIEWS], unfogged[VIEWS], chunks[VIEWS];
    gfx_shutdown();
    CHECKF(gfx_init(&(gfx_desc_t){0}) && gfx_level_load(lvl), "renderer");
    for (int i = 0; i < VIEWS; i++) {
        render_into(&views[i], split[i]);
        far[i] = gfx_get_frame_stats()->terrain_chunks_unshadowed;
        unfogged[i] = gfx_get_frame_stats()->terrain_chunks_unfogged;
        chunks[i] = gfx_get_frame_stats()->terrain_chunks;
        CHECKF(far[i] > 0 && far[i] < chunks[i], "view %d: %d of %d terrain chunks beyond the shadow map, want some", i,
               far[i], chunks[i]);
        CHECKF(unfogged[i] > 0 && unfogged[i] < chunks[i], "view %d: %d of %d terrain chunks before the fog, want some",
               i, unfogged[i], chunks[i]);
    }
    gfx_shutdown();
    CHECKF(gfx_init(&(gfx_desc_t){.lookup_everywhere = true, .fog_everywhere = true}) && gfx_level_load(lvl),
           "renderer, lookups and fog everywhere");
    for (int i = 0; i < VIEWS; i++) {
        render_into(&views[i], everywhere);
        CHECKF(gfx_get_frame_stats()->terrain_chunks_unshadowed == 0 &&
                   gfx_get_frame_stats()->terrain_chunks_unfogged == 0,
               "view %d: every chunk drawn with the lookup and the fog", i);
        int max_diff;
        long n = gl_test_count_diff(split[i], everywhere, (long)W * H, 0, &max_diff);
        printf("terrain split, view %d: of %d chunks %d without the lookup, %d without the fog; %ld pixels differ "
               "(max %d)\n",
               i, chunks[i], far[i], unfogged[i], n, max_diff);
        CHECKF(n == 0, "view %d: %ld pixels differ from the render with lookups and fog everywhere", i, n);
    }
    /* The checks that follow use the default renderer (with KHR_debug). */
    gfx_shutdown();
    CHECKF(gfx_init(&(gfx_desc_t){.debug = true}) && gfx_level_load(lvl), "renderer");
}

/* The terrain's skirts left out where they cannot show (between chunks of
 * one level of detail, or towards one out of view): the picture is the one
 * with every skirt, from above and at grazing angles with the far chunks at
 * coarser levels, while fewer triangles are drawn. */
static void test_terrain_skirts(const gfx_frame_desc_t *base)
{
    enum { VIEWS = 3 };
    gfx_frame_desc_t views[VIEWS] = {*base, *base, *base};
    make_camera(&views[1], (vec3){1400.0f, 500.0f, -900.0f}, (vec3){-200.0f, 40.0f, 300.0f});
    /* Low over the hills from a corner, the far ones at the horizon. */
    make_camera(&views[2], (vec3){-3300.0f, 420.0f, -3300.0f}, (vec3){0.0f, 150.0f, 0.0f});
    static uint8_t pruned[W * H * 3], all[W * H * 3];
    for (int i = 0; i < VIEWS; i++) {
        gfx_set_switches(&(gfx_switches_t){0});
        render_into(&views[i], pruned);
        int tris = gfx_get_frame_stats()->terrain_triangles;
        gfx_set_switches(&(gfx_switches_t){.all_skirts = true});
        render_into(&views[i], all);
        int all_tris = gfx_get_frame_stats()->terrain_triangles;
        int max_diff;
        long n = gl_test_count_diff(pruned, all, (long)W * H, 0, &max_diff);
        printf("terrain skirts, view %d: %d triangles drawn, %d with every skirt; %ld pixels differ (max %d)\n", i,
               tris, all_tris, n, max_diff);
        CHECKF(tris < all_tris, "view %d: %d terrain triangles, %d with every skirt: none left out", i, tris, all_tris);
        CHECKF(n == 0, "view %d: %ld pixels differ from the render with every skirt", i, n);
    }
    gfx_set_switches(&(gfx_switches_t){0});
}

/* Without MSAA the main pass draws straight into the window (its depth
 * buffer has 24 bits); the picture is the one drawn off screen and copied
 * in, but for colour rounding by one step (the window's channel order) and
 * depth ties at a few edges. */
static void test_direct(const level_t *lvl, const gfx_frame_desc_t *f)
{
    static uint8_t direct[W * H * 3], copied[W * H * 3];
    gfx_shutdown();
    CHECKF(gfx_init(&(gfx_desc_t){0}) && gfx_level_load(lvl), "renderer");
    CHECKF(gfx_get_info()->direct, "the main pass draws into the window");
    render_into(f, direct);
    gfx_shutdown();
    CHECKF(gfx_init(&(gfx_desc_t){.offscreen = true}) && gfx_level_load(lvl), "renderer, off screen");
    CHECKF(!gfx_get_info()->direct, "the main pass draws off screen");
    render_into(f, copied);
    int max_diff;
    long one = gl_test_count_diff(direct, copied, (long)W * H, 0, &max_diff);
    long more = gl_test_count_diff(direct, copied, (long)W * H, 1, &max_diff);
    printf("direct vs off screen: %ld pixels differ, %ld by more than one step (max %d)\n", one, more, max_diff);
    CHECKF(more <= 20, "%ld pixels differ by more than one step", more);
    CHECKF(one <= (long)W * H / 1000, "%ld pixels differ", one);
    gfx_shutdown();
    CHECKF(gfx_init(&(gfx_desc_t){.debug = true}) && gfx_level_load(lvl), "renderer");
}

static void test_hooks(const gfx_frame_desc_t *f)
{
    hook_probe_t h = {.expect = f};
    CHECKF(gfx_add_draw_hook(probe_hook, &h), "adding a hook");
    gfx_render_frame(f);
    CHECKF(h.calls[GFX_PASS_SHADOW] == 1 && h.calls[GFX_PASS_MAIN] == 1 && h.bad == 0,
           "hook calls shadow %d main %d, %d bad", h.calls[0], h.calls[1], h.bad);
    gfx_frame_desc_t no_shadow = *f;
    no_shadow.layers &= ~(uint32_t)GFX_LAYER_SHADOWS;
    h.expect = &no_shadow;
    gfx_render_frame(&no_shadow);
    CHECKF(h.calls[GFX_PASS_SHADOW] == 1 && h.calls[GFX_PASS_MAIN] == 2,
           "without shadows only the main pass runs hooks");
    gfx_remove_draw_hook(probe_hook, &h);
    gfx_render_frame(f);
    CHECKF(h.calls[GFX_PASS_MAIN] == 2, "a removed hook was still called");
    log_set_level(LOG_QUIET);
    int added = 0;
    while (added <= GFX_MAX_DRAW_HOOKS && gfx_add_draw_hook(probe_hook, &h))
        added++;
    log_set_level(LOG_INFO);
    CHECKF(added == GFX_MAX_DRAW_HOOKS, "hook table holds %d, expected %d", added, GFX_MAX_DRAW_HOOKS);
    for (int i = 0; i < added; i++)
        gfx_remove_draw_hook(probe_hook, &h);
}

static void test_shader_expand(void)
{
    static char buf[GFX_SHADER_MAX_BYTES];
    CHECKF(gfx_shader_expand("scene.frag", NULL, buf, sizeof buf), "scene.frag does not expand");
    CHECKF(strncmp(buf, "#version 450 core\n", 18) == 0, "expanded source must start with #version");
    CHECKF(strstr(buf, "#define ATTR_POSITION 0") != NULL, "shader_interface.h not included");
    CHECKF(strstr(buf, "\n#include") == NULL, "an #include was left in");
    log_set_level(LOG_QUIET);
    CHECKF(!gfx_shader_expand("does_not_exist.frag", NULL, buf, sizeof buf), "missing shader must fail");
    CHECKF(!gfx_shader_expand("scene.frag", NULL, buf, 64), "a too small buffer must fail");
    gfx_program_t p;
    CHECKF(!gfx_shader_program_load(&p, "does_not_exist.vert", "scene.frag", NULL, "bad") && p.id == 0,
           "missing shader must fail to load");
    log_set_level(LOG_INFO);
}

/* Renders LVL from a third-person camera behind its spawn, as the demo starts. */
static void bench_configs(const level_t *lvl, const gfx_frame_desc_t *base);
static void mean_rgb_rows(const uint8_t *img, int y0, int y1, float out[3]);
static float luma(const uint8_t *p);

/* A level seen from its spawn must show lit terrain under a sky: not
 * uniform, blue at the top, different colours at top and bottom. */
static void check_level_image(const char *name, const uint8_t *img)
{
    double sum = 0, sum2 = 0;
    for (int i = 0; i < W * H; i++) {
        float l = luma(img + (size_t)i * 3);
        sum += l;
        sum2 += (double)l * l;
    }
    double mean = sum / (W * H), sd = sqrt(fmax(sum2 / (W * H) - mean * mean, 0.0));
    float top[3], bottom[3];
    mean_rgb_rows(img, 0, H / 12, top);
    mean_rgb_rows(img, H - H / 12, H, bottom);
    printf("%s: luminance mean %.1f stddev %.1f; top rgb %.0f %.0f %.0f, bottom rgb %.0f %.0f %.0f\n", name, mean, sd,
           top[0], top[1], top[2], bottom[0], bottom[1], bottom[2]);
    CHECKF(sd > 12.0, "%s: image too uniform (stddev %.1f)", name, sd);
    CHECKF(mean > 40.0 && mean < 230.0, "%s: image too dark or bright (mean %.1f)", name, mean);
    CHECKF(top[2] > top[0] + 20.0f, "%s: top of the image is not sky-blue", name);
    CHECKF(fabsf(top[0] - bottom[0]) + fabsf(top[1] - bottom[1]) + fabsf(top[2] - bottom[2]) > 60.0f,
           "%s: sky and ground look the same", name);
}

static void view_level(const char *path, const char *out_path, bool bench)
{
    static level_t lvl;
    if (!level_load(&lvl, path)) {
        check_failed++;
        return;
    }
    CHECKF(gfx_level_load(&lvl), "gfx_level_load %s", path);
    gfx_frame_desc_t f = {0};
    f.width = W;
    f.height = H;
    float hx = sinf(lvl.spawn_heading_rad), hz = cosf(lvl.spawn_heading_rad);
    float gx = lvl.spawn_x, gz = lvl.spawn_z, gy = terrain_height(&lvl.terrain, gx, gz);
    vec3 eye = {gx - hx * 650.0f, gy + 330.0f, gz - hz * 650.0f};
    vec3 focus = {gx + hx * 150.0f, gy + 100.0f, gz + hz * 150.0f};
    make_camera(&f, eye, focus);
    f.layers = GFX_LAYER_ALL;
    f.marker.pos[0] = gx;
    f.marker.pos[1] = gy;
    f.marker.pos[2] = gz;
    f.marker.heading_rad = lvl.spawn_heading_rad;
    gfx_render_frame(&f);
    char png[1024];
    const char *base = strrchr(path, '/');
    snprintf(png, sizeof png, "%s.%s.png", out_path, base ? base + 1 : path);
    CHECKF(gfx_screenshot_png(png, W, H), "writing %s", png);
    static uint8_t img[W * H * 3];
    CHECKF(gfx_read_pixels_rgb(W, H, img), "reading pixels");
    check_level_image(path, img);
    double mn, cpu, mean = time_frames(&f, bench ? 8 : 3, &mn, &cpu);
    const gfx_frame_stats_t *st = gfx_get_frame_stats();
    printf("level %s: %.2f ms mean, %.2f ms min, %.2f ms CPU per frame (wrote %s); terrain %d chunks %d tris, "
           "shadow %d chunks %d tris\n",
           path, mean, mn, cpu, png, st->terrain_chunks, st->terrain_triangles, st->shadow_terrain_chunks,
           st->shadow_terrain_triangles);
    if (bench)
        bench_configs(&lvl, &f);
    level_free(&lvl);
}

int main(int argc, char **argv)
{
    const char *out_path = "build/test_render.png", *level_path = NULL;
    bool bench = false, all_levels = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bench") == 0)
            bench = true;
        else if (strcmp(argv[i], "--level") == 0 && i + 1 < argc)
            level_path = argv[++i];
        else if (strcmp(argv[i], "--all-levels") == 0)
            all_levels = true;
        else if (argv[i][0] != '-')
            out_path = argv[i];
        else {
            fprintf(stderr, "usage: test_render [out.png] [--bench] [--level file.lvl] [--all-levels]\n");
            return 2;
        }
    }
    paths_init(NULL);
    gl_test_t gl;
    if (!gl_test_open(&gl, "test_render", W, H, &(gfx_desc_t){.debug = true}))
        return 1;
    const gfx_info_t *info = gfx_get_info();
    printf("renderer: %s | %s | GLSL %s | SSBO block %lld B, %d vertex SSBO blocks, MSAA %dx\n", info->renderer,
           info->version, info->glsl_version, (long long)info->max_ssbo_block_size, info->max_vertex_ssbo_blocks,
           info->msaa_samples);
    CHECKF(info->major > 4 || (info->major == 4 && info->minor >= 3), "GL version %d.%d", info->major, info->minor);
    CHECKF(info->max_vertex_ssbo_blocks > 0, "no vertex SSBOs");
    test_shader_expand();

    static float heights[GRID * GRID];
    static level_t lvl;
    build_level(&lvl, heights);
    CHECKF(gfx_level_load(&lvl), "gfx_level_load");

    /* Bad terrain must be refused with an error, not drawn. */
    {
        static level_t bad;
        bad = lvl;
        bad.terrain.width = 1;
        log_set_level(LOG_QUIET);
        CHECKF(!gfx_level_load(&bad), "a 1-sample-wide terrain must be refused");
        log_set_level(LOG_INFO);
        CHECKF(gfx_level_load(&lvl), "reloading the good level");
    }

    static debug_line_vertex_t line_storage[64];
    debug_lines_t lines = {.vertices = line_storage, .capacity = 64};
    debug_lines_clear(&lines);
    /* A bright magenta cross standing on the ground, off to the side. */
    const float lp0[3] = {200.0f, 0.0f, 500.0f}, lp1[3] = {200.0f, 200.0f, 500.0f};
    const float lp2[3] = {100.0f, 100.0f, 500.0f}, lp3[3] = {300.0f, 100.0f, 500.0f};
    debug_lines_add(&lines, lp0, lp1, DEBUG_RGBA(255, 0, 255, 255));
    debug_lines_add(&lines, lp2, lp3, DEBUG_RGBA(255, 0, 255, 255));

    gfx_frame_desc_t f = {0};
    f.width = W;
    f.height = H;
    /* View along the wall from past its end, so both its sunlit side and its
     * shadow show. */
    make_camera(&f, (vec3){-1250.0f, 620.0f, 0.0f}, (vec3){0.0f, 40.0f, 0.0f});
    f.sun_dir[0] = 0.25f;
    f.sun_dir[1] = 0.55f;
    f.sun_dir[2] = 0.80f;
    f.layers = GFX_LAYER_ALL;
    f.marker.pos[0] = -450.0f;
    f.marker.pos[1] = hill_height(-450.0f, 300.0f);
    f.marker.pos[2] = 300.0f;
    f.marker.heading_rad = 0.8f;
    f.lines = &lines;

    /* A minimised window: nothing drawn, nothing breaks. */
    gfx_frame_desc_t zero = f;
    zero.width = 0;
    gfx_render_frame(&zero);
    test_hooks(&f);
    test_shadow_cache(&lvl, &f);
    test_terrain_split(&lvl, &f);
    test_terrain_skirts(&f);
    test_direct(&lvl, &f);

    gfx_render_frame(&f);
    static uint8_t img[W * H * 3];
    CHECKF(gfx_read_pixels_rgb(W, H, img), "reading pixels");
    CHECKF(gfx_screenshot_png(out_path, W, H), "writing %s", out_path);
    log_set_level(LOG_QUIET);
    CHECKF(!gfx_screenshot_png("/nonexistent-dir/x.png", W, H), "writing to a missing folder must fail");
    log_set_level(LOG_INFO);

    /* 1. Not uniform. */
    double sum = 0, sum2 = 0;
    for (int i = 0; i < W * H; i++) {
        float l = luma(img + (size_t)i * 3);
        sum += l;
        sum2 += (double)l * l;
    }
    double mean = sum / (W * H), sd = sqrt(fmax(sum2 / (W * H) - mean * mean, 0.0));
    printf("luminance mean %.1f stddev %.1f\n", mean, sd);
    CHECKF(sd > 12.0, "image too uniform: stddev %.1f", sd);
    CHECKF(mean > 40.0 && mean < 230.0, "image too dark or bright: mean %.1f", mean);

    /* 2. Sky (top rows) is brighter and bluer than the ground (bottom rows). */
    float top[3], bottom[3];
    mean_rgb_rows(img, 0, H / 12, top);
    mean_rgb_rows(img, H - H / 12, H, bottom);
    printf("top rgb %.0f %.0f %.0f, bottom rgb %.0f %.0f %.0f\n", top[0], top[1], top[2], bottom[0], bottom[1],
           bottom[2]);
    CHECKF(top[2] > top[0] + 20.0f, "top of the image is not sky-blue");
    CHECKF(fabsf(top[0] - bottom[0]) + fabsf(top[1] - bottom[1]) + fabsf(top[2] - bottom[2]) > 60.0f,
           "sky and ground look the same");
    CHECKF(bottom[1] > bottom[2], "ground at the bottom is not greenish");

    /* 3. Ground in the wall's shadow (z < 0) is darker than sunlit ground (z > 0). */
    const float shadow_pt[3] = {-100.0f, 0.0f, -130.0f}, lit_pt[3] = {-100.0f, 0.0f, 130.0f};
    float l_shadow = luma_at(&f, img, shadow_pt, 3), l_lit = luma_at(&f, img, lit_pt, 3);
    printf("ground luminance: sunlit %.1f, wall shadow %.1f\n", l_lit, l_shadow);
    CHECKF(l_shadow >= 0.0f && l_lit >= 0.0f, "sample points off screen");
    CHECKF(l_lit > l_shadow * 1.4f, "no visible wall shadow (lit %.1f vs shadow %.1f)", l_lit, l_shadow);

    /* 4. The marker body (red) and the debug cross (magenta) are where they should be. */
    const float marker_mid[3] = {f.marker.pos[0], f.marker.pos[1] + 90.0f, f.marker.pos[2]};
    const float cross_mid[3] = {200.0f, 100.0f, 500.0f};
    int red = count_near(&f, img, marker_mid, 4, is_red), magenta = count_near(&f, img, cross_mid, 6, is_magenta);
    printf("marker red pixels %d, debug-line magenta pixels %d\n", red, magenta);
    CHECKF(red > 60, "marker not visible"); /* of 81 pixels */
    CHECKF(magenta > 5, "debug lines not visible");

    /* Without the marker and lines layers, those pixels change. */
    f.layers = GFX_LAYER_ALL & ~(GFX_LAYER_MARKER | GFX_LAYER_DEBUG_LINES);
    gfx_render_frame(&f);
    CHECKF(gfx_read_pixels_rgb(W, H, img), "reading pixels");
    CHECKF(count_near(&f, img, marker_mid, 4, is_red) < red / 4, "marker layer bit ignored");
    CHECKF(count_near(&f, img, cross_mid, 6, is_magenta) == 0, "debug-lines layer bit ignored");
    f.layers = GFX_LAYER_ALL;

    /* Wireframe: the sky stays filled, the ground turns to lines over it. */
    f.wireframe = true;
    gfx_render_frame(&f);
    CHECKF(gfx_read_pixels_rgb(W, H, img), "reading pixels");
    gfx_screenshot_png("build/test_render_wireframe.png", W, H);
    float wtop[3], wbottom[3];
    mean_rgb_rows(img, 0, H / 12, wtop);
    mean_rgb_rows(img, H - H / 12, H, wbottom);
    CHECKF(wtop[2] > wtop[0] + 20.0f, "wireframe: sky missing");
    CHECKF(fabsf(wbottom[1] - bottom[1]) + fabsf(wbottom[2] - bottom[2]) > 10.0f, "wireframe: ground unchanged");
    f.wireframe = false;

    /* 5. Timing at 1280x720: glFinish-bracketed wall time vs timer queries. */
    double wall_min, cpu_ms, wall_mean = time_frames(&f, TIMED_FRAMES, &wall_min, &cpu_ms);
    double query_sum = 0;
    int query_n = 0;
    for (int i = 0; i < TIMED_FRAMES; i++) {
        gfx_render_frame(&f);
        SDL_GL_SwapWindow(gl.win);
        if (gfx_last_gpu_ms() > 0) {
            query_sum += gfx_last_gpu_ms();
            query_n++;
        }
    }
    printf("frame 1280x720: glFinish wall %.2f ms mean, %.2f ms min, %.2f ms CPU over %d frames; "
           "GL_TIME_ELAPSED %.2f ms mean over %d results\n",
           wall_mean, wall_min, cpu_ms, TIMED_FRAMES, query_n ? query_sum / query_n : 0.0, query_n);
    CHECKF(wall_min > 0.0, "finish timing returned nothing");

    for (int i = 0; all_levels && i < level_builtin_count(); i++) {
        char path[1024];
        CHECKF(level_path_for_name(level_builtin_name(i), path, sizeof path), "level %s", level_builtin_name(i));
        view_level(path, out_path, false);
    }
    if (level_path)
        view_level(level_path, out_path, bench);
    else if (bench)
        bench_configs(&lvl, &f);

    gfx_level_free();
    gl_test_close(&gl);
    printf("test_render: wrote %s\n", out_path);
    return check_summary();
}
