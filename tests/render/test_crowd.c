/* test_crowd: the instanced crowd renderer (render/gfx_crowd) on the
 * shipped character.
 *  1. Match: one pose drawn by gfx_character (GPU LBS, blend matrices, 4
 *     influences, identity transform) and by gfx_crowd with the identical
 *     palette: no pixel differs by more than 1 level, while the figure
 *     covers thousands of pixels, and the same crowd forced to 2 influences
 *     (level-of-detail thresholds above its size) differs: the comparison
 *     can fail.
 *  2. Count 0 draws nothing (no draw issued, the picture of a hidden crowd);
 *     begin_update with count > max_instances (or < 0) is refused with one
 *     logged line.
 *  3. Culling: an instance behind the camera and outside the sun's shadow
 *     volume is culled in both passes (stats) and the picture is that of the
 *     one instance in view; an instance beside the view whose shadow falls
 *     on the one in view is culled in the main pass only, and its shadow
 *     shows (the picture changes), cast one level of detail coarser.
 *  4. Level of detail: three instances at 3.2, 25 and 80 m land in levels
 *     0, 1, 2 as their projected radius says (computed here independently).
 *  5. A 10 x 10 grid of posed, turned instances on the shipped level, with
 *     shadows, written to OUT_DIR/crowd_grid.png to look at; GPU and CPU
 *     times of the crowd printed.
 *  6. On a software rasteriser, the CPU mode's sample cull: the same grid
 *     drawn with and without it is the same picture bit for bit.
 * usage: test_crowd OUT_DIR
 */
#include "anim/pose.h"
#include "anim/skin.h"
#include "asset/character.h"
#include "core/paths.h"
#include "render/gfx.h"
#include "render/gfx_character.h"
#include "render/gfx_crowd.h"
#include "render/gfx_timer.h"
#include "world/level.h"
#include "world/terrain.h"
#include "capture.h"
#include "check.h"
#include "gl_test.h"
#include "test_random.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { W = 320, H = 480, GRID_W = 640, GRID_H = 360, GRID_SIDE = 10, MAX_INSTANCES = 128 };
#define FOV_DEG 40.0f
#define FAR_CM 20000.0f

static test_rng_t g_rng = {4242u};
static chr_character_t g_chr;
static pose_bind_t g_bind;
static float g_mid_y, g_radius; /* the bind pose's middle height and a sphere radius that holds any pose */

/* POSE's skinning palette (model space) into OUT (joint_count x 12). */
static void pose_palette(const pose_t *pose, float (*out)[POSE_MAT_FLOATS])
{
    static float model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    pose_model_job_t fk = {.skel = &g_chr.skel, .local = pose, .capacity = SKEL_MAX_JOINTS, .model_mat = model};
    CHECKF(pose_model_run(&fk), "pose_model_run");
    pose_palette_job_t pj = {.bind = &g_bind,
                             .joint_count = g_chr.skel.joint_count,
                             .model_mat = (const float(*)[POSE_MAT_FLOATS])model,
                             .palette = out};
    CHECKF(pose_palette_run(&pj), "pose_palette_run");
}

/* P turned by YAW about +y and moved by T (world = R p + T) into OUT. */
static void place_palette(const float (*p)[POSE_MAT_FLOATS], float yaw, const float t[3], float *out)
{
    float c = cosf(yaw), s = sinf(yaw);
    float r[3][3] = {{c, 0, s}, {0, 1, 0}, {-s, 0, c}};
    for (int j = 0; j < g_chr.skel.joint_count; j++)
        for (int row = 0; row < 3; row++)
            for (int col = 0; col < 4; col++) {
                float v = 0.0f;
                for (int k = 0; k < 3; k++)
                    v += r[row][k] * p[j][4 * k + col];
                out[12 * j + 4 * row + col] = v + (col == 3 ? t[row] : 0.0f);
            }
}

typedef struct view_t {
    float eye[3], focus[3], sun[3], shadow_radius;
    int w, h;
    uint32_t layers;
} view_t;

static gfx_frame_desc_t frame_of(const view_t *v)
{
    gfx_frame_desc_t fd = {.width = v->w,
                           .height = v->h,
                           .eye = {v->eye[0], v->eye[1], v->eye[2]},
                           .focus = {v->focus[0], v->focus[1], v->focus[2]},
                           .sun_dir = {v->sun[0], v->sun[1], v->sun[2]},
                           .shadow_radius_cm = v->shadow_radius,
                           .layers = v->layers};
    mat4 view, proj;
    glm_lookat(fd.eye, fd.focus, (vec3){0, 1, 0}, view);
    glm_perspective(glm_rad(FOV_DEG), (float)v->w / (float)v->h, 10.0f, FAR_CM, proj);
    memcpy(fd.view, view, sizeof fd.view);
    memcpy(fd.proj, proj, sizeof fd.proj);
    return fd;
}

/* The figure seen from the front, 3.2 m away, shadows on (a low sun from
 * the front right). */
static view_t front_view(void)
{
    return (view_t){.eye = {0, g_mid_y + 30, 320},
                    .focus = {0, g_mid_y, 0},
                    .sun = {0.65f, 0.35f, 0.67f},
                    .shadow_radius = 500,
                    .w = W,
                    .h = H,
                    .layers = GFX_LAYER_SHADOWS};
}

/* One instance at index I: PALETTE (model space) placed at T, turned by YAW. */
static void write_instance(const gfx_crowd_stream_t *s, int i, const float (*palette)[POSE_MAT_FLOATS], float yaw,
                           const float t[3])
{
    place_palette(palette, yaw, t, s->palette + (size_t)i * (size_t)s->joint_count * 12);
    float *b = s->bounds + 4 * i;
    b[0] = t[0];
    b[1] = t[1] + g_mid_y;
    b[2] = t[2];
    b[3] = g_radius;
}

/* Updates the crowd with COUNT instances of PALETTE at POS[i] (yaw 0) and
 * renders V three times (every ring slot then holds it), read into RGB. */
static void render_crowd(gfx_crowd_t *gc, int count, const float (*palette)[POSE_MAT_FLOATS], const float (*pos)[3],
                         const view_t *v, uint8_t *rgb)
{
    gfx_frame_desc_t fd = frame_of(v);
    for (int f = 0; f < GFX_CROWD_SLOTS; f++) {
        gfx_crowd_stream_t s;
        CHECKF(gfx_crowd_begin_update(gc, count, &s), "begin_update(%d)", count);
        CHECKF(s.joint_count == g_chr.skel.joint_count && s.count == count, "stream of %d joints", s.joint_count);
        for (int i = 0; i < count; i++)
            write_instance(&s, i, palette, 0.0f, pos[i]);
        gfx_crowd_end_update(gc);
        gfx_render_frame(&fd);
    }
    CHECKF(gfx_read_pixels_rgb(v->w, v->h, rgb), "reading pixels");
}

/* gfx_character's GPU LBS draw of PALETTE (identity transform), read into RGB. */
static void render_player(gfx_character_t *ch, const float (*palette)[POSE_MAT_FLOATS], const view_t *v, uint8_t *rgb)
{
    gfx_frame_desc_t fd = frame_of(v);
    gfx_character_desc_t d = {.gpu_skin = true, .method = 1, .influences = 4};
    for (int f = 0; f < GFX_CHARACTER_SLOTS; f++) {
        gfx_character_stream_t s;
        CHECKF(gfx_character_begin_update(ch, &d, &s), "gfx_character_begin_update");
        memcpy(s.palette, palette, (size_t)g_chr.skel.joint_count * sizeof palette[0]);
        gfx_character_end_update(ch);
        gfx_render_frame(&fd);
    }
    CHECKF(gfx_read_pixels_rgb(v->w, v->h, rgb), "reading pixels");
}

static long differing(const uint8_t *a, const uint8_t *b, int w, int h, int tol, int *max_diff)
{
    return gl_test_count_diff(a, b, (long)w * h, tol, max_diff);
}

static void check_match(const char *out_dir)
{
    uint8_t *player = malloc((size_t)W * H * 3), *crowd = malloc((size_t)W * H * 3);
    uint8_t *none = malloc((size_t)W * H * 3), *hidden = malloc((size_t)W * H * 3);
    CHECKF(player && crowd && none && hidden, "out of memory");
    static float palette[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    pose_t pose;
    test_random_pose(&g_rng, &g_chr.skel, 0.35f, &pose);
    pose_palette(&pose, palette);
    gfx_character_t *ch = gfx_character_create(&g_chr, NULL, "player");
    gfx_crowd_t *gc = gfx_crowd_create(&(gfx_crowd_desc_t){.chr = &g_chr, .max_instances = 4, .label = "crowd"});
    CHECKF(ch && gc, "create");
    CHECKF(gfx_character_gpu_supported(ch), "GPU skinning unsupported");
    view_t v = front_view();
    const float origin[1][3] = {{0, 0, 0}};
    render_crowd(gc, 0, (const float(*)[POSE_MAT_FLOATS])palette, origin, &v, none);
    const gfx_crowd_stats_t *st = gfx_crowd_get_stats(gc);
    CHECKF(st->count == 0 && st->draws[0] == 0 && st->draws[1] == 0 && st->drawn[1] == 0,
           "count 0: %d instances, %d + %d draws", st->count, st->draws[0], st->draws[1]);
    render_player(ch, (const float(*)[POSE_MAT_FLOATS])palette, &v, player);
    gfx_character_set_visible(ch, false);
    render_crowd(gc, 1, (const float(*)[POSE_MAT_FLOATS])palette, origin, &v, crowd);
    CHECKF(st->drawn[1] == 1 && st->lod[1][0] == 1 && st->drawn[0] == 1, "one instance at level 0 in both passes");
    gfx_crowd_set_visible(gc, false);
    render_crowd(gc, 0, (const float(*)[POSE_MAT_FLOATS])palette, origin, &v, hidden);
    gfx_crowd_set_visible(gc, true);
    char path[512];
    snprintf(path, sizeof path, "%s/match_crowd.png", out_dir);
    render_crowd(gc, 1, (const float(*)[POSE_MAT_FLOATS])palette, origin, &v, crowd);
    CHECKF(gfx_screenshot_png(path, W, H), "writing %s", path);
    /* Back to count 0 after drawing one: nothing of it may remain. */
    render_crowd(gc, 0, (const float(*)[POSE_MAT_FLOATS])palette, origin, &v, hidden);
    CHECKF(st->count == 0 && st->draws[0] == 0 && st->draws[1] == 0 && st->drawn[1] == 0,
           "count 0 after 1: %d instances, %d + %d draws", st->count, st->draws[0], st->draws[1]);
    int max_diff, max_cover, max_none;
    long diff = differing(player, crowd, W, H, 1, &max_diff);
    long covered = differing(player, none, W, H, 24, &max_cover);
    long none_diff = differing(none, hidden, W, H, 0, &max_none);
    printf("match: player (gfx_character GPU LBS) vs crowd instance: %ld of %d pixels differ by > 1 (max channel "
           "diff %d); the figure covers %ld; count 0 vs hidden crowd: %ld differ\n",
           diff, W * H, max_diff, covered, none_diff);
    CHECKF(covered > W * H / 50, "the figure covers only %ld pixels", covered);
    CHECKF(diff == 0, "the crowd instance differs from the player's draw in %ld pixels (max %d)", diff, max_diff);
    CHECKF(none_diff == 0, "count 0 changed %ld pixels", none_diff);
    /* The same instance skinned with 2 influences must look different. */
    gfx_crowd_t *coarse = gfx_crowd_create(
        &(gfx_crowd_desc_t){.chr = &g_chr, .max_instances = 4, .label = "coarse", .lod_px = {1e9f, 1.0f}});
    CHECKF(coarse != NULL, "create");
    gfx_crowd_set_visible(gc, false);
    render_crowd(coarse, 1, (const float(*)[POSE_MAT_FLOATS])palette, origin, &v, crowd);
    const gfx_crowd_stats_t *cs = gfx_crowd_get_stats(coarse);
    CHECKF(cs->lod[1][1] == 1, "forced level 1: %d %d %d", cs->lod[1][0], cs->lod[1][1], cs->lod[1][2]);
    long coarse_diff = differing(player, crowd, W, H, 1, &max_diff);
    printf("match: the same instance with 2 influences differs in %ld pixels (max %d)\n", coarse_diff, max_diff);
    CHECKF(coarse_diff > 20, "2 influences look like 4: the comparison could not fail (%ld)", coarse_diff);
    gfx_crowd_destroy(coarse);
    gfx_crowd_destroy(gc);
    gfx_character_destroy(ch);
    free(player);
    free(crowd);
    free(none);
    free(hidden);
}

/* Counts the lines of the captured text. */
static int lines_of(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void check_refusal(void)
{
    gfx_crowd_t *gc = gfx_crowd_create(&(gfx_crowd_desc_t){.chr = &g_chr, .max_instances = 3});
    CHECKF(gc != NULL, "create");
    gfx_crowd_stream_t s = {0};
    static const int bad[] = {4, -1, 1 << 30};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        capture_begin();
        bool ok = gfx_crowd_begin_update(gc, bad[i], &s);
        capture_end();
        printf("begin_update(%d) of 3: %s; logged: %s", bad[i], ok ? "accepted" : "refused", capture_text);
        CHECKF(!ok && s.palette == NULL, "count %d accepted", bad[i]);
        CHECKF(lines_of(capture_text) == 1 && strstr(capture_text, "0 to 3"), "one line naming the limit");
    }
    capture_begin();
    gfx_crowd_t *none = gfx_crowd_create(&(gfx_crowd_desc_t){.chr = &g_chr, .max_instances = 0});
    gfx_crowd_t *huge = gfx_crowd_create(&(gfx_crowd_desc_t){.chr = &g_chr, .max_instances = 1 << 20});
    capture_end();
    printf("create with 0 and 2^20 instances: %s", capture_text);
    CHECKF(!none && !huge && lines_of(capture_text) == 2, "bad max_instances accepted");
    CHECKF(gfx_crowd_begin_update(gc, 3, &s) && s.palette && s.bounds, "count = max refused");
    gfx_crowd_end_update(gc);
    gfx_crowd_destroy(gc);
}

static void check_cull(const char *out_dir)
{
    uint8_t *one = malloc((size_t)W * H * 3), *two = malloc((size_t)W * H * 3);
    CHECKF(one && two, "out of memory");
    static float palette[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    pose_t pose;
    pose_rest(&g_chr.skel, &pose);
    pose_palette(&pose, palette);
    gfx_crowd_t *gc = gfx_crowd_create(&(gfx_crowd_desc_t){.chr = &g_chr, .max_instances = 4});
    CHECKF(gc != NULL, "create");
    const gfx_crowd_stats_t *st = gfx_crowd_get_stats(gc);
    view_t v = front_view();
    /* [1]: 30 m behind the camera, far across the sun's direction. */
    const float behind[2][3] = {{0, 0, 0}, {0, 0, 3000}};
    render_crowd(gc, 1, (const float(*)[POSE_MAT_FLOATS])palette, behind, &v, one);
    render_crowd(gc, 2, (const float(*)[POSE_MAT_FLOATS])palette, behind, &v, two);
    int max_diff;
    long diff = differing(one, two, W, H, 0, &max_diff);
    printf("cull: behind the camera: main drawn %d culled %d, shadow drawn %d culled %d; %ld pixels changed\n",
           st->drawn[1], st->culled[1], st->drawn[0], st->culled[0], diff);
    CHECKF(st->drawn[1] == 1 && st->culled[1] == 1, "main pass: %d drawn, %d culled", st->drawn[1], st->culled[1]);
    CHECKF(st->drawn[0] == 1 && st->culled[0] == 1, "shadow pass: %d drawn, %d culled", st->drawn[0], st->culled[0]);
    CHECKF(diff == 0, "an instance behind the camera changed %ld pixels", diff);
    /* The same two the other way round: the list names instance 1, whose
     * palette (not instance 0's, nor the draw's first) must be the one drawn. */
    const float swapped[2][3] = {{0, 0, 3000}, {0, 0, 0}};
    render_crowd(gc, 2, (const float(*)[POSE_MAT_FLOATS])palette, swapped, &v, two);
    diff = differing(one, two, W, H, 0, &max_diff);
    printf("cull: the in-view instance second in the list: %ld pixels differ from the first in the list\n", diff);
    CHECKF(st->drawn[1] == 1 && diff == 0, "instance 1 alone in view drew %ld pixels differently", diff);
    /* [1]: 3 m towards the sun (front right, low), out of view: its
     * shadow falls on the legs of [0]. */
    const float beside[2][3] = {{0, 0, 0}, {209, 0, 215}};
    render_crowd(gc, 2, (const float(*)[POSE_MAT_FLOATS])palette, beside, &v, two);
    char path[512];
    snprintf(path, sizeof path, "%s/cull_shadow_from_outside.png", out_dir);
    CHECKF(gfx_screenshot_png(path, W, H), "writing %s", path);
    diff = differing(one, two, W, H, 24, &max_diff);
    printf("cull: beside the view, towards the sun: main drawn %d culled %d, shadow drawn %d culled %d; %ld pixels "
           "changed by > 24\n",
           st->drawn[1], st->culled[1], st->drawn[0], st->culled[0], diff);
    CHECKF(st->drawn[1] == 1 && st->culled[1] == 1, "main pass: %d drawn, %d culled", st->drawn[1], st->culled[1]);
    CHECKF(st->drawn[0] == 2 && st->culled[0] == 0, "shadow pass: %d drawn", st->drawn[0]);
    /* Both are near (level 0 by size); the one out of view casts one level
     * coarser, the one in view with the level it is drawn with. */
    CHECKF(st->lod[1][0] == 1 && st->lod[0][0] == 1 && st->lod[0][1] == 1,
           "levels: main %d %d %d, shadow %d %d %d (want main 1 0 0, shadow 1 1 0)", st->lod[1][0], st->lod[1][1],
           st->lod[1][2], st->lod[0][0], st->lod[0][1], st->lod[0][2]);
    CHECKF(diff > 200, "the shadow of the instance out of view does not show (%ld pixels)", diff);
    gfx_crowd_destroy(gc);
    free(one);
    free(two);
}

static void check_lod(void)
{
    uint8_t *rgb = malloc((size_t)W * H * 3);
    CHECKF(rgb != NULL, "out of memory");
    static float palette[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    pose_t pose;
    pose_rest(&g_chr.skel, &pose);
    pose_palette(&pose, palette);
    gfx_crowd_t *gc = gfx_crowd_create(&(gfx_crowd_desc_t){.chr = &g_chr, .max_instances = 4});
    CHECKF(gc != NULL, "create");
    view_t v = front_view();
    /* Along the view axis (the camera is at z = 320). */
    const float pos[3][3] = {{0, 0, 0}, {0, 0, -2200}, {0, 0, -7700}};
    render_crowd(gc, 3, (const float(*)[POSE_MAT_FLOATS])palette, pos, &v, rgb);
    const gfx_crowd_stats_t *st = gfx_crowd_get_stats(gc);
    float lod_px[2] = {GFX_CROWD_LOD1_PX, GFX_CROWD_LOD2_PX};
    float p11 = 1.0f / tanf(glm_rad(FOV_DEG) * 0.5f);
    int want[GFX_CROWD_LODS] = {0};
    for (int i = 0; i < 3; i++) {
        float dx = pos[i][0] - v.eye[0], dy = pos[i][1] + g_mid_y - v.eye[1], dz = pos[i][2] - v.eye[2];
        float fx = v.focus[0] - v.eye[0], fy = v.focus[1] - v.eye[1], fz = v.focus[2] - v.eye[2];
        float depth = (dx * fx + dy * fy + dz * fz) / sqrtf(fx * fx + fy * fy + fz * fz);
        float px = g_radius * p11 * 0.5f * (float)H / depth;
        int lod = px >= lod_px[0] ? 0 : px >= lod_px[1] ? 1 : 2;
        printf("lod: instance %d at %.0f cm: projected radius %.1f px -> level %d (%d influences)\n", i, (double)depth,
               (double)px, lod, gfx_crowd_lod_influences(lod));
        want[lod]++;
    }
    printf("lod: main pass levels %d %d %d, shadow pass %d %d %d, draws %d + %d\n", st->lod[1][0], st->lod[1][1],
           st->lod[1][2], st->lod[0][0], st->lod[0][1], st->lod[0][2], st->draws[0], st->draws[1]);
    CHECKF(want[0] == 1 && want[1] == 1 && want[2] == 1, "the test's distances do not span the three levels");
    for (int l = 0; l < GFX_CROWD_LODS; l++)
        CHECKF(st->lod[1][l] == want[l], "level %d: %d instances, expected %d", l, st->lod[1][l], want[l]);
    CHECKF(gfx_crowd_lod_for_px(lod_px, GFX_CROWD_LOD1_PX) == 0 && gfx_crowd_lod_for_px(lod_px, 47.9f) == 1 &&
               gfx_crowd_lod_for_px(lod_px, GFX_CROWD_LOD2_PX) == 1 && gfx_crowd_lod_for_px(lod_px, 15.9f) == 2,
           "thresholds");
    gfx_crowd_destroy(gc);
    free(rgb);
}

/* 100 posed, turned instances on the shipped level, written to OUT_DIR. */
/* The view of the grid on LVL: from above its front edge, looking at its
 * middle. */
static view_t grid_view(const level_t *lvl)
{
    float x0 = lvl->spawn_x, z0 = lvl->spawn_z, gy = terrain_height(&lvl->terrain, x0, z0);
    return (view_t){.eye = {x0 + 675, gy + 1100, z0 + 2200},
                    .focus = {x0 + 675, gy, z0 + 675},
                    .w = GRID_W,
                    .h = GRID_H,
                    .layers = GFX_LAYER_ALL & ~GFX_LAYER_DEBUG_LINES};
}

/* A 10 x 10 grid of posed, turned instances (seeded: the same every call)
 * on LVL drawn FRAMES times by GC; returns the update's mean CPU time (ms). */
static double grid_frames(gfx_crowd_t *gc, const level_t *lvl, const view_t *v, int frames)
{
    static float palette[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    float x0 = lvl->spawn_x, z0 = lvl->spawn_z;
    gfx_frame_desc_t fd = frame_of(v);
    double update_ms = 0.0;
    for (int f = 0; f < frames; f++) {
        test_rng_t rng = {77u};
        double t0 = gfx_wall_seconds();
        gfx_crowd_stream_t s;
        CHECKF(gfx_crowd_begin_update(gc, GRID_SIDE * GRID_SIDE, &s), "begin_update");
        for (int i = 0; i < GRID_SIDE * GRID_SIDE; i++) {
            pose_t pose;
            test_random_pose(&rng, &g_chr.skel, 0.3f, &pose);
            pose_palette(&pose, palette);
            float x = x0 + 150.0f * (float)(i % GRID_SIDE), z = z0 + 150.0f * (float)(i / GRID_SIDE);
            float t[3] = {x, terrain_height(&lvl->terrain, x, z), z};
            write_instance(&s, i, (const float(*)[POSE_MAT_FLOATS])palette, test_rand01(&rng) * 6.2831853f, t);
        }
        /* CPU mode: the members' skinning jobs, on this thread. */
        const skin_job_t *jobs;
        int n;
        if (gfx_crowd_get_deform(gc) == GFX_CROWD_DEFORM_CPU && gfx_crowd_cpu_jobs(gc, &fd, &jobs, &n))
            for (int j = 0; j < n; j++)
                CHECKF(skin_run(&jobs[j]), "skin job %d", j);
        gfx_crowd_end_update(gc);
        update_ms += (gfx_wall_seconds() - t0) * 1e3;
        gfx_render_frame(&fd);
    }
    return update_ms / frames;
}

static void grid_picture(const char *out_dir, const level_t *lvl)
{
    gfx_crowd_t *gc = gfx_crowd_create(&(gfx_crowd_desc_t){.chr = &g_chr, .max_instances = MAX_INSTANCES});
    CHECKF(gc != NULL, "create");
    view_t v = grid_view(lvl);
    double update_ms = grid_frames(gc, lvl, &v, 6);
    char path[512];
    snprintf(path, sizeof path, "%s/crowd_grid.png", out_dir);
    CHECKF(gfx_screenshot_png(path, GRID_W, GRID_H), "writing %s", path);
    const gfx_crowd_stats_t *st = gfx_crowd_get_stats(gc);
    printf("grid: %d instances: main drawn %d (levels %d %d %d) culled %d, shadow drawn %d culled %d, draws %d + %d; "
           "GPU %.2f ms (%llu samples); CPU: update %.3f ms a frame (poses + palettes + begin/end), begin %.3f, "
           "end %.3f, cull %.3f ms; wrote %s\n",
           st->count, st->drawn[1], st->lod[1][0], st->lod[1][1], st->lod[1][2], st->culled[1], st->drawn[0],
           st->culled[0], st->draws[0], st->draws[1], st->gpu_ms, (unsigned long long)st->gpu_samples, update_ms,
           st->begin_ms, st->end_ms, st->cull_ms, path);
    CHECKF(st->drawn[1] > GRID_SIDE * GRID_SIDE / 2, "only %d of the grid in view", st->drawn[1]);
    CHECKF(st->gpu_samples > 0 && st->gpu_ms > 0.0, "no GPU time measured");
    gfx_crowd_destroy(gc);
}

/* 6. The CPU mode's sample cull (software rasterisers only) leaves every
 *    pixel as drawing every triangle does: the grid, shadows and all, drawn
 *    by two CPU-mode crowds, one with the cull and one without, is the same
 *    picture bit for bit, while the cull kept fewer triangles than the
 *    members have and the picture holds the figures (it differs from the
 *    empty level). */
static void check_cpu_cull(const level_t *lvl)
{
    if (!gfx_get_info()->software) {
        printf("cpu cull: not a software rasteriser: the CPU mode does not cull here\n");
        return;
    }
    size_t n = (size_t)GRID_W * GRID_H * 3;
    uint8_t *culled = malloc(n), *whole = malloc(n), *empty = malloc(n);
    CHECKF(culled && whole && empty, "out of memory");
    view_t v = grid_view(lvl);
    gfx_crowd_t *gc[2];
    for (int k = 0; k < 2; k++) {
        gc[k] = gfx_crowd_create(&(gfx_crowd_desc_t){.chr = &g_chr,
                                                     .max_instances = MAX_INSTANCES,
                                                     .label = k ? "whole" : "culled",
                                                     .deform = GFX_CROWD_DEFORM_CPU,
                                                     .every_triangle = k == 1});
        CHECKF(gc[k] != NULL, "create");
        gfx_crowd_set_visible(gc[k], false);
    }
    gfx_frame_desc_t fd = frame_of(&v);
    gfx_render_frame(&fd);
    CHECKF(gfx_read_pixels_rgb(GRID_W, GRID_H, empty), "reading pixels");
    uint64_t tris[2][2], kept[2][2];
    for (int k = 0; k < 2; k++) {
        gfx_crowd_set_visible(gc[k], true);
        grid_frames(gc[k], lvl, &v, GFX_CROWD_SLOTS + 1);
        CHECKF(gfx_read_pixels_rgb(GRID_W, GRID_H, k ? whole : culled), "reading pixels");
        gfx_crowd_set_visible(gc[k], false);
        const gfx_crowd_stats_t *st = gfx_crowd_get_stats(gc[k]);
        CHECKF(st->deform == GFX_CROWD_DEFORM_CPU, "%s: the crowd fell back to GPU skinning", k ? "whole" : "culled");
        memcpy(tris[k], st->cpu_triangles, sizeof tris[k]);
        memcpy(kept[k], st->cpu_triangles_kept, sizeof kept[k]);
    }
    int max_diff, max_fig;
    long diff = differing(culled, whole, GRID_W, GRID_H, 0, &max_diff);
    long figures = differing(culled, empty, GRID_W, GRID_H, 24, &max_fig);
    printf("cpu cull: main pass kept %llu of %llu triangles, shadow %llu of %llu; every triangle drawn: %llu / %llu "
           "kept (0: no cull); %ld of %d pixels differ (max %d); the figures and shadows cover %ld\n",
           (unsigned long long)kept[0][1], (unsigned long long)tris[0][1], (unsigned long long)kept[0][0],
           (unsigned long long)tris[0][0], (unsigned long long)kept[1][1], (unsigned long long)kept[1][0], diff,
           GRID_W * GRID_H, max_diff, figures);
    CHECKF(figures > GRID_W * GRID_H / 50, "the grid covers only %ld pixels", figures);
    CHECKF(kept[0][1] > 0 && kept[0][1] < tris[0][1] && kept[0][0] > 0 && kept[0][0] < tris[0][0],
           "the cull kept %llu of %llu (main), %llu of %llu (shadow)", (unsigned long long)kept[0][1],
           (unsigned long long)tris[0][1], (unsigned long long)kept[0][0], (unsigned long long)tris[0][0]);
    CHECKF(kept[1][0] == 0 && kept[1][1] == 0 && tris[1][1] == 0, "every_triangle still culled");
    CHECKF(diff == 0, "the sample cull changed %ld pixels (max %d)", diff, max_diff);
    for (int k = 0; k < 2; k++)
        gfx_crowd_destroy(gc[k]);
    free(culled);
    free(whole);
    free(empty);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_crowd OUT_DIR\n");
        return 2;
    }
    /* OUT_DIR and its parents. */
    char dir[512];
    snprintf(dir, sizeof dir, "%s", argv[1]);
    for (char *c = dir + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            mkdir(dir, 0755);
            *c = '/';
        }
    mkdir(dir, 0755);
    paths_init(NULL);
    gl_test_t gl;
    if (!gl_test_open(&gl, "test_crowd", GRID_W > W ? GRID_W : W, GRID_H > H ? GRID_H : H,
                      &(gfx_desc_t){.debug = true}))
        return 1;
    char path[512];
    if (!paths_join("assets/characters/strider.chr", path, sizeof path) || !chr_load(&g_chr, path)) {
        fprintf(stderr, "FAIL: loading the character\n");
        return 1;
    }
    pose_bind_from_rest(&g_chr.skel, &g_bind);
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    for (uint32_t m = 0; m < g_chr.mesh_count; m++)
        for (uint32_t i = 0; i < g_chr.meshes[m].vertex_count; i++)
            for (int k = 0; k < 3; k++) {
                lo[k] = fminf(lo[k], g_chr.meshes[m].vertices[i].pos[k]);
                hi[k] = fmaxf(hi[k], g_chr.meshes[m].vertices[i].pos[k]);
            }
    g_mid_y = 0.5f * (lo[1] + hi[1]);
    /* Any pose stays within the figure's height of its middle (limbs are
     * shorter than the body). */
    g_radius = 0.6f * (hi[1] - lo[1]);
    printf("renderer: %s | %s; character %.1f cm tall, %d joints, sphere radius %.1f cm\n", gfx_get_info()->renderer,
           gfx_get_info()->version, (double)(hi[1] - lo[1]), g_chr.skel.joint_count, (double)g_radius);
    check_match(argv[1]);
    check_refusal();
    check_cull(argv[1]);
    check_lod();
    level_t lvl;
    char lpath[512];
    CHECKF(paths_join("assets/levels/course.lvl", lpath, sizeof lpath) && level_load(&lvl, lpath), "level");
    CHECKF(gfx_level_load(&lvl), "gfx_level_load");
    grid_picture(argv[1], &lvl);
    check_cpu_cull(&lvl);
    gfx_level_free();
    level_free(&lvl);
    chr_free(&g_chr);
    gl_test_close(&gl);
    return check_summary();
}
