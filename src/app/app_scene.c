/* app_scene.c: the scene app.c shows: the level (files and GPU side), the
 * game's character and the viewer's: the files before any window opens
 * (network, figure, controller), the menu's switches between levels and
 * character files, and the per-frame deformation of the shown character
 * from the simulation's pose, face and feet; and the start, the files and
 * then the GPU side in the order app_run() needs them.
 * Internal to src/app (declared in app_state.h).
 */
#include "app/app_state.h"
#include "core/file.h"
#include "core/log.h"
#include "ctrl/ctrl_pins.h"
#include "render/gfx.h"
#include "render/gfx_crowd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAME_NETWORK "assets/network/pfnn.bin"
/* The viewer's stage: flat ground, no walls (not one of the game levels). */
#define VIEWER_LEVEL "assets/levels/viewer.lvl"
/* Face: how far the effort (0..1, from the run/jump gait) opens the jaw and
 * sets a determined look. */
#define FACE_JAW_PER_EFFORT 0.25f
#define FACE_DETERMINED_PER_EFFORT 0.4f
static const char *const face_shape_names[APP_FACE_SHAPE_COUNT] = {"blink_L", "blink_R", "jawOpen", "determined"};

bool app_data_path(const char *given, const char *fallback, char out[PATHS_MAX])
{
    if (given)
        return paths_copy(given, out, PATHS_MAX);
    if (!paths_join(fallback, out, PATHS_MAX)) {
        log_error("%s: path too long", fallback);
        return false;
    }
    return true;
}

_Static_assert((int)CLI_HYBRID_MAX == FIGURE_HYBRID_MAX, "--hybrid's range is the figure's");
_Static_assert((int)CLI_SKIN_POINTS == (int)SKIN_LBS_POINTS && (int)CLI_SKIN_MATRIX == (int)SKIN_LBS_MATRIX &&
                   (int)CLI_SKIN_DQS == (int)SKIN_DQS,
               "--skin-method values are skin_method's");

/* The deformation flags of the command line onto F (game or viewer); the
 * menu edits the same fields later. */
void app_apply_skin_options(figure_t *f, const app_options_t *opt)
{
    f->gpu_skin = opt->skin_gpu;
    if (opt->skin_method != CLI_SKIN_METHOD_DEFAULT)
        f->method = opt->skin_method;
    f->skin_once = !opt->skin_per_pass;
    f->gpu_morph = !opt->cpu_morph;
    f->hybrid_every = opt->hybrid;
    if (opt->influences > 0)
        f->influences = opt->influences;
    f->dense = opt->dense;
}

/* INDEX: the builtin level's index, or -1 for a level loaded by path. */
uint32_t app_crowd_seed(const app_t *app) { return app->opt->crowd_seed_given ? app->opt->crowd_seed : app->opt->seed; }

bool app_level_load_path(app_t *app, int index, const char *path)
{
    level_t *fresh = malloc(sizeof *fresh);
    if (!fresh) {
        log_error("%s: out of memory", path);
        return false;
    }
    if (!level_load(fresh, path)) {
        free(fresh);
        return false;
    }
    if (!gfx_level_load(fresh)) {
        level_free(fresh);
        free(fresh);
        return false;
    }
    if (app->level_loaded)
        level_free(&app->level);
    app->level = *fresh;
    free(fresh);
    app->level_loaded = true;
    app->settings.level_index = index;
    sim_reset(&app->sim, &app->level);
    /* The same reset for the player (member 0), and the others around it. */
    if (app->crowd && !crowd_reset(app->crowd, &app->level, app->crowd_wanted, app_crowd_seed(app), NULL, true))
        return false;
    log_info("level %s: %s", app->level.name, app->level.title);
    return true;
}

bool app_level_load(app_t *app, int index, const char *name)
{
    char path[PATHS_MAX];
    if (!level_path_for_name(name, path, sizeof path)) {
        log_error("unknown level '%s'", name);
        return false;
    }
    return app_level_load_path(app, index, path);
}

int app_level_index(const char *name)
{
    for (int i = 0; i < level_builtin_count(); i++)
        if (strcmp(level_builtin_name(i), name) == 0)
            return i;
    return -1;
}

/* The deformation settings the menu edits, from SRC onto DST (field by
 * field: a figure_t is not to be moved whole). */
static void copy_deform_settings(figure_t *dst, const figure_t *src)
{
    dst->gpu_skin = src->gpu_skin;
    dst->method = src->method;
    dst->influences = src->influences;
    dst->skin_once = src->skin_once;
    dst->gpu_morph = src->gpu_morph;
    dst->hybrid_every = src->hybrid_every;
    dst->dense = src->dense;
}

/* Where the characters the menu offers live, relative to the data folder:
 * ours, and the CC0 characters beside a checkout (../shared/characters). */
static const char *const CHARACTER_DIRS[] = {"assets/characters", "../shared/characters"};

static void add_character(app_t *app, const char *path)
{
    for (int i = 0; i < app->character_count; i++)
        if (strcmp(app->character_path[i], path) == 0)
            return;
    if (app->character_count >= APP_MAX_CHARACTERS)
        return;
    int i = app->character_count;
    if (!paths_copy(path, app->character_path[i], PATHS_MAX))
        return;
    app->character_count++;
    const char *slash = strrchr(path, '/');
    snprintf(app->character_name[i], sizeof app->character_name[i], "%.63s", slash ? slash + 1 : path);
}

/* The character given first, then every character file found. */
void app_list_characters(app_t *app, const char *first)
{
    static const char *const suffixes[] = {".chr", ".glb", ".gltf"};
    static char found[APP_MAX_CHARACTERS][PATHS_MAX];
    add_character(app, first);
    for (size_t d = 0; d < sizeof CHARACTER_DIRS / sizeof CHARACTER_DIRS[0]; d++) {
        char dir[PATHS_MAX];
        if (!paths_join(CHARACTER_DIRS[d], dir, sizeof dir))
            continue;
        int n = file_list_dir(dir, suffixes, 3, &found[0][0], PATHS_MAX, APP_MAX_CHARACTERS);
        for (int i = 0; i < n; i++)
            add_character(app, found[i]);
    }
}

/* A figure for PATH (files, and the GPU when UPLOAD); NULL after one
 * logged line. */
static figure_t *new_figure(const char *path, const char *map_path, bool upload)
{
    char skel_path[PATHS_MAX];
    figure_t *f = calloc(1, sizeof *f);
    if (!f) {
        log_error("%s: out of memory", path);
        return NULL;
    }
    figure_desc_t fd = {.path = path, .map_path = map_path, .skeleton_path = skel_path};
    if (!app_data_path(NULL, FIGURE_DRIVER_SKELETON, skel_path) || !figure_load(f, &fd) ||
        (upload && !figure_gpu_init(f, "player"))) {
        figure_free(f);
        free(f);
        return NULL;
    }
    return f;
}

/* The face channels on the current figure's shapes (anim/facemap.h). */
static void resolve_face(app_t *app)
{
    for (int k = 0; k < APP_FACE_SHAPE_COUNT; k++)
        app->face_terms[k] = facemap_resolve(&app->fig->chr, face_shape_names[k], app->face_term[k], FACEMAP_TERMS_MAX);
}

/* The game's files, before any window opens: the network, the character and
 * the controller over both. 0, or EXIT_RUNTIME after one logged line. */
int app_character_load(app_t *app, const app_options_t *opt)
{
    char path[PATHS_MAX];
    /* Cubic (the control points) only: the constant and linear modes' slices
     * (127 MB of the shipped network) are built when picked. */
    pfnn_load_desc_t cubic = {.modes = 1u << PFNN_PHASE_CUBIC};
    if (!app_data_path(opt->network, GAME_NETWORK, path) || !pfnn_load_ex(&app->net, path, &cubic))
        return EXIT_RUNTIME;
    pfnn_mode_t mode = PFNN_PHASE_CUBIC;
    for (int m = 0; opt->phase_mode && m < PFNN_PHASE_MODE_COUNT; m++)
        if (strcmp(opt->phase_mode, pfnn_mode_name((pfnn_mode_t)m)) == 0)
            mode = (pfnn_mode_t)m;
    app->net_loaded = true;
    if (!pfnn_prepare_mode(&app->net, mode))
        return EXIT_RUNTIME;
    /* A slice mode runs without the control points (8.5 MiB): the menu
     * reads them from the file again if cubic or another mode is picked. */
    if (mode != PFNN_PHASE_CUBIC)
        pfnn_release_mode(&app->net, PFNN_PHASE_CUBIC);
    if (!app_data_path(opt->character, FIGURE_DEFAULT_CHARACTER, path))
        return EXIT_RUNTIME;
    app->fig = new_figure(path, opt->map, false);
    if (!app->fig)
        return EXIT_RUNTIME;
    app->fig->show = !opt->no_character;
    app_apply_skin_options(app->fig, opt);
    /* The controller drives its own 21-joint skeleton; the figure's rig
     * carries its poses onto the character's, whichever is shown. */
    app->driver = app->fig->rig.source;
    /* With a crowd (the menu can add one later only up to this size, so
     * the crowd is made whenever the slider may be used: the controllers
     * cost ~60 KB each), the player's controller is the crowd's member 0. */
    int crowd_max = opt->crowd > APP_CROWD_SLIDER_MAX ? opt->crowd : APP_CROWD_SLIDER_MAX;
    crowd_desc_t cd = {
        .net = &app->net, .skel = &app->driver, .mode = mode, .ik_off = opt->no_ik, .max_count = crowd_max};
    app->crowd = crowd_create(&cd);
    if (!app->crowd)
        return EXIT_RUNTIME;
    app->ctrl = crowd_ctrl(app->crowd, 0);
    app->crowd_wanted = opt->crowd > 0 ? opt->crowd : 1;
    app->crowd_cpu = opt->crowd_cpu;
    resolve_face(app);
    app->sim.ctrl = app->ctrl;
    app->ctrl_draw = CTRL_DRAW_TRAJECTORY | CTRL_DRAW_CONTACTS;
    app_list_characters(app, path);
    app->character_index = 0;
    app->pending_character = -1;
    /* The dump is of the controller's displayed pose, on its skeleton (an
     * imported character's own skeleton is another; a menu switch keeps it). */
    if (opt->dump_pose && !pose_dump_open(&app->dump, opt->dump_pose, &app->driver))
        return EXIT_RUNTIME;
    return 0;
}

/* The menu's switch: the new character takes over the figure's settings and
 * goes on from the controller's current pose; a file that fails keeps the
 * current character (its one line is logged and shown in the menu). */
void app_character_switch(app_t *app, int index)
{
    const char *path = app->character_path[index];
    figure_t *f = new_figure(path, NULL, true);
    if (!f) {
        snprintf(app->character_status, sizeof app->character_status, "%.60s failed (see the log)",
                 app->character_name[index]);
        return;
    }
    figure_t *old = app->fig;
    f->show = old->show;
    copy_deform_settings(f, old);
    figure_free(old);
    free(old);
    app->fig = f;
    app->character_index = index;
    /* The report's foot and head figures are the shown character's: its
     * own joints, from the frame it is first drawn. */
    memset(&app->feet, 0, sizeof app->feet);
    resolve_face(app);
    snprintf(app->character_status, sizeof app->character_status, "%.60s: %u triangles, %d joints%s",
             app->character_name[index], chr_triangle_count(&f->chr), f->chr.skel.joint_count,
             f->rig.identity ? "" : ", retargeted");
    log_info("character: %s", app->character_status);
}

/* The viewer's switch: the viewer is loaded anew for the other character
 * with the same clip, curve and framing (not the start's expressions,
 * vertex clip or bake, which belong to the first character); when that
 * fails (one logged line), the current character is loaded back. */
static bool load_viewer(app_t *app, const char *path)
{
    app_options_t o = *app->opt;
    o.character = path;
    o.expression_count = 0;
    o.clip = NULL;
    o.play_clip = false;
    o.clip_time_given = false;
    o.bake = NULL;
    const level_t *lvl = &app->level;
    float origin[3] = {lvl->spawn_x, terrain_height(&lvl->terrain, lvl->spawn_x, lvl->spawn_z), lvl->spawn_z};
    if (viewer_load(&app->viewer, &o) != 0 || !viewer_gpu_init(&app->viewer, origin, o.face_closeup, &lvl->terrain)) {
        viewer_shutdown(&app->viewer);
        return false;
    }
    return true;
}

void app_viewer_switch(app_t *app, int index)
{
    /* The deformation settings carry over. */
    figure_t keep = {0};
    copy_deform_settings(&keep, &app->viewer.fig);
    viewer_shutdown(&app->viewer);
    bool ok = load_viewer(app, app->character_path[index]);
    if (ok)
        app->character_index = index;
    else if (!load_viewer(app, app->character_path[app->character_index])) {
        app->quit = true;
        return;
    }
    copy_deform_settings(&app->viewer.fig, &keep);
    snprintf(app->character_status, sizeof app->character_status, "%.60s%s", app->character_name[index],
             ok ? "" : " failed (see the log)");
}

/* Safe to call twice; the figure's GPU side must go before gfx_shutdown(). */
void app_character_free(app_t *app)
{
    pose_dump_close(&app->dump);
    gfx_crowd_destroy(app->crowd_gfx);
    app->crowd_gfx = NULL;
    app->crowd_gfx_failed = false;
    if (app->crowd_chr_loaded)
        chr_free(&app->crowd_chr);
    app->crowd_chr_loaded = false;
    crowd_destroy(app->crowd); /* the player's controller is its member 0 */
    app->crowd = NULL;
    app->ctrl = NULL;
    app->sim.ctrl = NULL;
    if (app->fig) {
        figure_free(app->fig);
        free(app->fig);
        app->fig = NULL;
    }
    if (app->net_loaded)
        pfnn_free(&app->net);
    app->net_loaded = false;
}

/* After a deform: the figure's ankles, toes and head top (its joints' world
 * positions) into the report's statistics, beside the controller's own
 * feet (a lockstep run draws once per step). */
static void shown_feet_add(app_t *app, float ground_y)
{
    const figure_t *f = app->fig;
    if (f->hybrid_every > 0 && !f->gpu_skin)
        return; /* the hybrid poses only every Nth frame */
    feet_shown_t sh = {.ground_y_cm = ground_y};
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 2; k++) {
            int j = k == 0 ? f->rig.foot[side] : f->rig.toe[side];
            sh.has_point[side][k] = j >= 0;
            for (int r = 0; j >= 0 && r < 3; r++)
                sh.point[side][k][r] = f->model_mat[j][r * 4 + 3];
            sh.rest_height_cm[side][k] = f->rig.foot_rest_height_cm[side][k];
            sh.ctrl_rest_height_cm[side][k] = f->rig.source_rest_height_cm[side][k];
        }
    int head = f->rig.head;
    sh.has_head = head >= 0;
    if (sh.has_head) {
        const float *m = f->model_mat[head], *o = f->rig.head_top;
        for (int r = 0; r < 3; r++)
            sh.head_top[r] = m[r * 4] * o[0] + m[r * 4 + 1] * o[1] + m[r * 4 + 2] * o[2] + m[r * 4 + 3];
    }
    feet_stats_add(&app->feet, &sh, &app->sim.stats, (const float(*)[3])app->sim.contact, &app->level);
}

/* The game character's pose between the last two steps, its face, and the
 * whole deformation into the renderer's stream. The controller's pose has
 * the hip in world space, so the model matrix is the identity. */
bool app_character_deform(app_t *app, float alpha)
{
    static const float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    sim_lerp_pose(&app->sim.prev_pose, &app->sim.pose, alpha, &app->draw_pose);
    sim_face_t face;
    sim_lerp_face(&app->sim.prev_face, &app->sim.face, alpha, &face);
    const float weight[APP_FACE_SHAPE_COUNT] = {face.blink, face.blink, face.effort * FACE_JAW_PER_EFFORT,
                                                face.effort * FACE_DETERMINED_PER_EFFORT};
    /* Channels may share shapes (an ARKit face): clear, then add. */
    for (int k = 0; k < APP_FACE_SHAPE_COUNT; k++)
        for (int t = 0; t < app->face_terms[k]; t++)
            app->fig->shape_weight[app->face_term[k][t].shape] = 0.0f;
    for (int k = 0; k < APP_FACE_SHAPE_COUNT; k++)
        for (int t = 0; t < app->face_terms[k]; t++)
            app->fig->shape_weight[app->face_term[k][t].shape] += weight[k] * app->face_term[k][t].weight;
    /* The controller's skeleton onto the character's own: unchanged for the
     * generated character; an imported one is retargeted, its hip height
     * scaled by its leg length and its own legs solved onto the
     * controller's ankles (world positions after the controller's IK), on
     * the terrain under each foot. */
    retarget_job_t job = {.source = &app->draw_pose, .scale_xz = 1.0f, .ik = true};
    float contact[CTRL_CONTACTS][3], ankle[2][3];
    sim_lerp_contacts((const float(*)[3])app->sim.prev_contact, (const float(*)[3])app->sim.contact, alpha, contact);
    sim_marker_t m;
    sim_lerp_marker(&app->sim.prev_marker, &app->sim.marker, alpha, &m);
    job.ground_y_cm = m.pos[1];
    for (int side = 0; side < 2; side++) {
        /* Contacts in network order: left heel, left toe, right heel, right toe. */
        memcpy(ankle[side], contact[side * 2], sizeof ankle[side]);
        job.foot_ground_y_cm[side] = terrain_height(&app->level.terrain, ankle[side][0], ankle[side][2]);
    }
    job.feet_ground_given = true;
    job.foot_target = (const float(*)[3])ankle;
    figure_rig_t *rig = &app->fig->rig;
    if (!rig->identity)
        ctrl_pins_before(&rig->pins, &app->sim.stats, &job);
    const pose_t *pose = figure_rig_pose(app->fig, &job);
    if (pose && !rig->identity)
        ctrl_pins_after(&rig->pins, &app->sim.stats, &job);
    bool ok = pose && figure_deform(app->fig, pose, world);
    if (ok)
        shown_feet_add(app, m.pos[1]);
    return ok;
}

/* The others' character and renderer: the shipped character, whichever
 * the player wears. false after one logged line. */
static bool crowd_gfx_create(app_t *app)
{
    char path[PATHS_MAX];
    if (!app->crowd_chr_loaded) {
        if (!app_data_path(NULL, FIGURE_DEFAULT_CHARACTER, path) || !chr_load(&app->crowd_chr, path))
            return false;
        app->crowd_chr_loaded = true;
        if (app->crowd_chr.skel.joint_count != CTRL_JOINTS) {
            log_error("%s: %d joints; the crowd needs the controller's %d", path, app->crowd_chr.skel.joint_count,
                      CTRL_JOINTS);
            return false;
        }
        pose_bind_from_rest(&app->crowd_chr.skel, &app->crowd_bind);
    }
    /* Levels of detail from a projected radius of 96 px (a figure a quarter
     * of a 720p screen high, ~10 m away) and 32 px: on a software
     * rasteriser the triangles of the many mid-distance figures are the
     * frame's cost (bench crowd, 100 on hills: render 427 -> 311 ms). */
    gfx_crowd_desc_t d = {.chr = &app->crowd_chr,
                          .max_instances = crowd_max_count(app->crowd) - 1,
                          .label = "crowd",
                          .lod_px = {96.0f, 32.0f},
                          .deform = app->crowd_cpu ? GFX_CROWD_DEFORM_CPU : GFX_CROWD_DEFORM_GPU};
    app->crowd_gfx = gfx_crowd_create(&d);
    if (!app->crowd_gfx)
        return false;
    /* Without --crowd-deform, a software rasteriser skins the others on the
     * CPU: its sample cull then sends only the triangles that can cover a
     * pixel or shadow texel (the vertex shaders, set-up and binning of the
     * rest were most of its frame), as for the player's figure. The CPU
     * mode's pixels may differ from the GPU mode's by rounding (CROWD.md). */
    if (app->opt->crowd_deform_auto && !app->crowd_deform_chosen) {
        app->crowd_deform_chosen = true;
        if (gfx_get_info()->software && gfx_crowd_cpu_supported(app->crowd_gfx) && app_crowd_set_cpu(app, true))
            log_info("crowd: %s is a software rasteriser: the others are skinned on the CPU and sample-culled "
                     "(--crowd-deform gpu to keep them GPU-skinned)",
                     gfx_get_info()->renderer);
    }
    return true;
}

void app_crowd_resize(app_t *app, int count)
{
    if (!app->crowd)
        return;
    if (count > crowd_max_count(app->crowd))
        log_warn("crowd: %d characters asked for, this run's crowd holds %d (--crowd N makes more room)", count,
                 crowd_max_count(app->crowd));
    crowd_resize(app->crowd, count);
    app->crowd_wanted = crowd_count(app->crowd);
}

bool app_crowd_gpu_init(app_t *app)
{
    /* Made now for a crowd asked for at the start (so a failure ends the
     * start), else when the menu first adds others: a player alone loads no
     * second character and builds no levels of detail. */
    if (!app->crowd || crowd_count(app->crowd) < 2)
        return true;
    return crowd_gfx_create(app);
}

bool app_crowd_set_cpu(app_t *app, bool cpu)
{
    bool ok = !app->crowd_gfx ||
              gfx_crowd_set_deform(app->crowd_gfx, cpu ? GFX_CROWD_DEFORM_CPU : GFX_CROWD_DEFORM_GPU);
    if (ok)
        app->crowd_cpu = cpu;
    return ok;
}

void app_crowd_draw(app_t *app, float alpha, const gfx_frame_desc_t *f)
{
    if (!app->crowd)
        return;
    int others = crowd_count(app->crowd) - 1;
    if (!app->crowd_gfx && others > 0 && !app->crowd_gfx_failed && !crowd_gfx_create(app)) {
        app->crowd_gfx_failed = true; /* logged; the others are not drawn */
        gfx_crowd_destroy(app->crowd_gfx);
        app->crowd_gfx = NULL;
    }
    if (!app->crowd_gfx)
        return;
    /* bench crowd's "both": two frames of each (one batch and one single
     * network step each), so both modes run under one condition. */
    const app_crowd_bench_t *b = app->opt->crowd_bench;
    if (b && b->deform == APP_CROWD_DEFORM_BOTH)
        app_crowd_set_cpu(app, ((app->frame_index >> 1) & 1) != 0);
    gfx_crowd_stream_t st;
    if (!gfx_crowd_begin_update(app->crowd_gfx, others, &st))
        return;
    if (others > 0) {
        crowd_draw_job_t job = {
            .bind = &app->crowd_bind, .alpha = alpha, .first = 1, .palette = st.palette, .bounds = st.bounds};
        crowd_draw_run(app->crowd, &job);
        /* CPU mode: the members in view or casting into it, skinned. */
        const skin_job_t *jobs;
        int n;
        if (gfx_crowd_cpu_jobs(app->crowd_gfx, f, &jobs, &n) && !crowd_skin_run(app->crowd, jobs, n))
            app->failed = true; /* logged by the job */
    }
    gfx_crowd_end_update(app->crowd_gfx);
}

void app_crowd_bench_finish(const app_t *app, app_crowd_bench_t *b)
{
    const gfx_info_t *gi = gfx_get_info();
    snprintf(b->renderer, sizeof b->renderer, "%s", gi->renderer);
    snprintf(b->version, sizeof b->version, "%s", gi->version);
    if (!app->crowd)
        return;
    const crowd_stats_t *st = crowd_stats(app->crowd);
    b->members = crowd_count(app->crowd);
    b->threads = crowd_threads(app->crowd);
    b->member_bytes = crowd_member_bytes(app->crowd);
    b->overlap_steps = st->overlap_steps;
    b->min_gap_cm = st->min_gap_ever_cm;
    if (app->crowd_gfx) {
        const gfx_crowd_stats_t *gs = gfx_crowd_get_stats(app->crowd_gfx);
        b->drawn_main = gs->drawn[GFX_CROWD_PASS_MAIN];
        b->drawn_shadow = gs->drawn[GFX_CROWD_PASS_SHADOW];
    }
}

/* ---- the start ---------------------------------------------------------------- */

int app_scene_load_files(app_t *app, const app_options_t *opt, int *level_index)
{
    if (app->viewer_mode) {
        int rc = viewer_load(&app->viewer, opt);
        if (rc != 0) {
            viewer_shutdown(&app->viewer);
            return rc;
        }
        app_apply_skin_options(&app->viewer.fig, opt);
        char first[PATHS_MAX];
        if (app_data_path(opt->character, FIGURE_DEFAULT_CHARACTER, first))
            app_list_characters(app, first);
        app->settings.layers &= ~(unsigned)(GFX_LAYER_WALLS | GFX_LAYER_AREAS | GFX_LAYER_MARKER |
                                            GFX_LAYER_DEBUG_LINES);
    } else if (!opt->marker) {
        int rc = app_character_load(app, opt);
        if (rc != 0) {
            app_character_free(app);
            return rc;
        }
        app->settings.layers &= ~(unsigned)GFX_LAYER_MARKER;
    }
    const char *level_name = opt->level ? opt->level : level_builtin_name(0);
    *level_index = app_level_index(level_name);
    if (*level_index < 0 && !app->viewer_mode) {
        fprintf(stderr, "strider: unknown level '%s'; valid:", level_name);
        for (int i = 0; i < level_builtin_count(); i++)
            fprintf(stderr, " %s", level_builtin_name(i));
        fputc('\n', stderr);
        app_character_free(app);
        return EXIT_USAGE;
    }
    if (opt->script) {
        if (!script_load(&app->script, opt->script)) {
            viewer_shutdown(&app->viewer);
            app_character_free(app);
            return EXIT_RUNTIME;
        }
        app->have_script = true;
        if (opt->hidden && opt->frames == 0 && !opt->render_bench && !script_has_quit(&app->script)) {
            log_error("%s: no 'quit' line, and --hidden without --frames would run forever (give --frames N)",
                      opt->script);
            script_free(&app->script);
            viewer_shutdown(&app->viewer);
            app_character_free(app);
            return EXIT_USAGE;
        }
    }
    return 0;
}

bool app_scene_load(app_t *app, const app_options_t *opt, int level_index)
{
    if (app->viewer_mode) {
        char path[PATHS_MAX];
        if (!paths_join(VIEWER_LEVEL, path, sizeof path) || !app_level_load_path(app, -1, path))
            return false;
        const level_t *lvl = &app->level;
        float origin[3] = {lvl->spawn_x, terrain_height(&lvl->terrain, lvl->spawn_x, lvl->spawn_z), lvl->spawn_z};
        if (!viewer_gpu_init(&app->viewer, origin, opt->face_closeup, &lvl->terrain))
            return false;
        /* --bake: the weights given on the command line, before the first
         * frame; a bake that fails (one logged line naming the file) fails
         * the run. */
        if (opt->bake && !figure_bake_save(&app->viewer.fig, opt->bake))
            return false;
        if (opt->bake)
            log_info("viewer: baked the start's shape weights into %s", opt->bake);
        return true;
    }
    const char *level_name = opt->level ? opt->level : level_builtin_name(0);
    if (!app_level_load(app, level_index, level_name))
        return false;
    return !app->ctrl || (figure_gpu_init(app->fig, "player") && app_crowd_gpu_init(app));
}
