/* open_memstream is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "app/app.h"

#include "app/app_state.h"
#include "core/file.h"
#include "core/log.h"
#include "core/paths.h"
#include "pfnn/network.h"
#include "render/gfx.h"
#include "ui/ui.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEG2RAD 0.017453292519943295f
/* While minimised, poll at about this rate instead of spinning. */
#define MINIMIZED_SLEEP_MS 50

/* app_t holds the debug-line storage and the level; too big for the stack. */
static app_t g_app;

/* The viewer's stage: flat ground, no walls (not one of the game levels). */
#define VIEWER_LEVEL "assets/levels/viewer.lvl"
#define GAME_NETWORK "assets/network/pfnn.bin"
/* Face: how far the effort (0..1, from the run/jump gait) opens the jaw and
 * sets a determined look. */
#define FACE_JAW_PER_EFFORT 0.25f
#define FACE_DETERMINED_PER_EFFORT 0.4f
/* Smoothing of the menu's network time: weight of the newest step. */
#define NET_MS_SMOOTHING 0.05f

static const char *const face_shape_names[APP_FACE_SHAPE_COUNT] = {"blink_L", "blink_R", "jawOpen", "determined"};

/* INDEX: the builtin level's index, or -1 for a level loaded by path. */
static bool load_level_path(app_t *app, int index, const char *path)
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
    log_info("level %s: %s", app->level.name, app->level.title);
    return true;
}

static bool load_level(app_t *app, int index, const char *name)
{
    char path[PATHS_MAX];
    if (!level_path_for_name(name, path, sizeof path)) {
        log_error("unknown level '%s'", name);
        return false;
    }
    return load_level_path(app, index, path);
}

static int level_index_for_name(const char *name)
{
    for (int i = 0; i < level_builtin_count(); i++)
        if (strcmp(level_builtin_name(i), name) == 0)
            return i;
    return -1;
}

static bool attach_virtual_pad(app_t *app)
{
    SDL_VirtualJoystickDesc desc;
    SDL_zero(desc);
    desc.version = SDL_VIRTUAL_JOYSTICK_DESC_VERSION;
    desc.type = SDL_JOYSTICK_TYPE_GAMECONTROLLER;
    desc.naxes = SDL_CONTROLLER_AXIS_MAX;
    desc.nbuttons = SDL_CONTROLLER_BUTTON_MAX;
    desc.name = "Strider virtual gamepad";
    int index = SDL_JoystickAttachVirtualEx(&desc);
    if (index < 0) {
        log_error("cannot attach a virtual gamepad: %s", SDL_GetError());
        return false;
    }
    app->virtual_pad = SDL_JoystickOpen(index);
    if (!app->virtual_pad) {
        log_error("cannot open the virtual gamepad: %s", SDL_GetError());
        return false;
    }
    return true;
}

/* Script lines for the virtual pad go through SDL, so they reach the game by
 * exactly the path a real pad's events take. */
static void drive_virtual_pad(app_t *app, const script_event *ev)
{
    if (!app->virtual_pad) {
        log_warn("script gamepad line ignored: run with --virtual-gamepad");
        return;
    }
    if (ev->cmd == SCRIPT_PAD_AXIS) {
        float v = ev->a;
        /* SDL maps a full-range virtual axis onto the 0..1 trigger range. */
        if (ev->index == SCRIPT_PAD_TRIGGERLEFT || ev->index == SCRIPT_PAD_TRIGGERRIGHT)
            v = v * 2.0f - 1.0f;
        float raw = v * 32767.0f;
        if (raw < -32768.0f)
            raw = -32768.0f;
        SDL_JoystickSetVirtualAxis(app->virtual_pad, ev->index, (Sint16)lrintf(raw));
    } else {
        SDL_JoystickSetVirtualButton(app->virtual_pad, ev->index, ev->a != 0.0f ? 1 : 0);
    }
}

static void handle_action(app_t *app, input_action action)
{
    app_settings *s = &app->settings;
    switch (action) {
    case INPUT_ACTION_NONE: break;
    case INPUT_ACTION_QUIT: app->quit = true; break;
    case INPUT_ACTION_TOGGLE_MENU: s->show_menu = !s->show_menu; break;
    case INPUT_ACTION_TOGGLE_FULLSCREEN:
        s->fullscreen = !s->fullscreen;
        platform_set_fullscreen(&app->platform, s->fullscreen);
        break;
    case INPUT_ACTION_TOGGLE_VSYNC:
        s->vsync = !s->vsync;
        platform_set_vsync(&app->platform, s->vsync);
        break;
    case INPUT_ACTION_TOGGLE_WIREFRAME: s->wireframe = !s->wireframe; break;
    case INPUT_ACTION_SCREENSHOT: app->screenshot_requested = true; break;
    default: {
        int index = (int)action - (int)INPUT_ACTION_LEVEL_1;
        if (!app->viewer_mode && index >= 0 && index < level_builtin_count())
            app->pending_level = index;
        break;
    }
    }
}

static void poll_events(app_t *app)
{
    SDL_Event ev;
    bool menu_had_keyboard = ui_wants_keyboard();
    while (SDL_PollEvent(&ev)) {
        platform_handle_event(&app->platform, &ev);
        /* The menu gets input first: typing in it never moves the character. */
        if (app->settings.show_menu && ui_process_event(&ev))
            continue;
        handle_action(app, input_handle_event(&app->input, &ev));
    }
    /* Keys held when the menu took focus would otherwise stay down. */
    if (!menu_had_keyboard && app->settings.show_menu && ui_wants_keyboard())
        input_release_all(&app->input);
}

/* Simulation-side debug drawing: where the player asks to go, where the
 * character (or marker) is actually going, and the controller's own lines
 * (trajectory coloured by gait, contacts, joints). */
static void build_debug_lines(app_t *app, const sim_marker *m)
{
    debug_lines_clear(&app->lines);
    const ctrl_input *it = &app->sim.intent;
    float base[3] = {m->pos[0], m->pos[1] + 5.0f, m->pos[2]};
    float want[3] = {base[0] + it->move_x * 120.0f, base[1], base[2] + it->move_z * 120.0f};
    float vel[3] = {base[0] + m->vel[0] * 0.5f, base[1] + 2.0f, base[2] + m->vel[1] * 0.5f};
    debug_lines_add(&app->lines, base, want, DEBUG_RGBA(255, 220, 60, 255));
    debug_lines_add(&app->lines, base, vel, DEBUG_RGBA(60, 200, 255, 255));
    if (app->ctrl)
        ctrl_debug_draw(app->ctrl, app->ctrl_draw, &app->lines);
}

static void sun_direction(const app_settings *s, float out[3])
{
    float az = s->sun_azimuth_deg * DEG2RAD, el = s->sun_elevation_deg * DEG2RAD;
    out[0] = sinf(az) * cosf(el);
    out[1] = sinf(el);
    out[2] = cosf(az) * cosf(el);
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median of STAGE (or the whole frame: PROF_STAGE_COUNT) over the profiler's
 * history, ms; 0 with no frames. */
static double median_of(float *v, int n)
{
    if (n == 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof v[0], compare_float);
    return 0.5 * ((double)v[(n - 1) / 2] + (double)v[n / 2]);
}

static double median_ms(const prof_t *p, int stage)
{
    float v[PROF_HISTORY];
    return median_of(v, prof_history(p, stage, v));
}

/* Median of a GPU time over the frames that knew it; -1 if none did. */
static double median_gpu_ms(const prof_t *p, prof_gpu which)
{
    float v[PROF_HISTORY];
    int n = prof_gpu_history(p, which, v);
    return n ? median_of(v, n) : -1.0;
}

/* The drawn figure's deformation settings as the last frame used them
 * (after any fallback), and the profiler's medians, as report members. */
static void write_report_figure(const app_t *app, FILE *f)
{
    const figure_t *fig = app->viewer_mode ? &app->viewer.fig : app->ctrl ? app->fig : NULL;
    if (fig && fig->gfx) {
        const gfx_character_stats *st = gfx_character_get_stats(fig->gfx);
        fprintf(f,
                ",\n  \"figure\": {\"gpu_skin\": %s, \"gpu_morph\": %s, \"morph_on_gpu\": %s, \"skin_once\": %s, "
                "\"hybrid_every\": %d, \"method\": %d, \"morph_draws\": %u, \"fog_free\": %s, \"deforms\": %llu, "
                "\"triangles_drawn\": [%u, %u], \"triangles_culled\": [%u, %u]}",
                fig->gpu_skin ? "true" : "false", fig->gpu_morph ? "true" : "false",
                fig->morph_on_gpu ? "true" : "false", fig->skin_once ? "true" : "false", fig->hybrid_every,
                fig->method, st->morph_draws, st->fog_free ? "true" : "false", (unsigned long long)fig->deform_count,
                st->triangles_drawn[0], st->triangles_drawn[1], st->triangles_culled[0], st->triangles_culled[1]);
    }
    /* Every stage's median (each its own median: they need not add up to
     * the frame's), named by prof_stage_name(), but the deformation's key
     * is the shorter one it always had. */
    fprintf(f, ",\n  \"timings\": {\"frames\": %d, \"frame_ms_median\": %.3f", app->prof.filled,
            median_ms(&app->prof, PROF_STAGE_COUNT));
    for (int s = 0; s < PROF_STAGE_COUNT; s++) {
        const char *name = s == PROF_DEFORMATION ? "deform" : prof_stage_name((prof_stage)s);
        fprintf(f, ", \"%s_ms_median\": %.3f", name, median_ms(&app->prof, s));
    }
    /* GPU timer queries (-1: none came back); on llvmpipe they have read
     * nonsense (render/gfx_timer.h), on a GPU they are the GPU's own clock. */
    fprintf(f, ", \"gpu_frame_ms_median\": %.3f, \"gpu_character_ms_median\": %.3f, \"gpu_character_deform_ms_median\": %.3f",
            median_gpu_ms(&app->prof, PROF_GPU_FRAME), median_gpu_ms(&app->prof, PROF_GPU_CHARACTER),
            median_gpu_ms(&app->prof, PROF_GPU_CHARACTER_DEFORM));
    fputc('}', f);
    /* Like the timings, a measurement of this machine (and of its GL driver). */
    fprintf(f, ",\n  \"resources\": {\"peak_rss_mib\": %.1f}",
            (double)platform_peak_rss_bytes() / (1024.0 * 1024.0));
}

static void feet_contact_end(app_feet_stats *fs, int side, int k)
{
    if (fs->contacts < APP_FEET_CONTACTS_MAX) {
        fs->contact_slide_cm[fs->contacts] = fs->point_run_cm[side][k];
        fs->ctrl_contact_slide_cm[fs->contacts] = fs->ctrl_point_run_cm[side][k];
    }
    fs->contacts++;
    fs->contact_slide_max_cm = fmaxf(fs->contact_slide_max_cm, fs->point_run_cm[side][k]);
    fs->ctrl_contact_slide_max_cm = fmaxf(fs->ctrl_contact_slide_max_cm, fs->ctrl_point_run_cm[side][k]);
}

/* The 95th percentile of N values (sorts them). */
static float p95_sorted(float *v, int n)
{
    if (n == 0)
        return 0.0f;
    /* Insertion sort: a few hundred values, once. */
    for (int i = 1; i < n; i++) {
        float x = v[i];
        int j = i - 1;
        for (; j >= 0 && v[j] > x; j--)
            v[j + 1] = v[j];
        v[j + 1] = x;
    }
    return v[(int)ceilf(0.95f * (float)n) - 1];
}

/* The 95th percentiles of the slides per contact, the character's and the
 * controller's, contacts still running at the end included (sorts the
 * stats' arrays: call once, on a copy, for the report). */
static void feet_contact_p95(app_feet_stats *fs, float *shown_cm, float *ctrl_cm)
{
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 2; k++)
            if (fs->point_prev_contact[side][k]) {
                feet_contact_end(fs, side, k);
                fs->point_prev_contact[side][k] = false;
            }
    int n = fs->contacts < APP_FEET_CONTACTS_MAX ? fs->contacts : APP_FEET_CONTACTS_MAX;
    *shown_cm = p95_sorted(fs->contact_slide_cm, n);
    *ctrl_cm = p95_sorted(fs->ctrl_contact_slide_cm, n);
}

static bool write_report(const app_t *app, const char *path)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) {
        log_error("%s: out of memory for the report", path);
        return false;
    }
    const sim_marker *m = &app->sim.marker;
    const camera_t *c = &app->sim.camera;
    const char *pad = input_active_pad_name(&app->input);
    fprintf(f,
            "{\n  \"level\": \"%s\",\n  \"frames\": %ld,\n  \"steps\": %llu,\n"
            "  \"marker\": {\"x\": %.3f, \"y\": %.3f, \"z\": %.3f, \"heading_deg\": %.3f, \"height_cm\": %.3f, "
            "\"airborne\": %s},\n"
            "  \"camera\": {\"yaw_deg\": %.3f, \"pitch_deg\": %.3f, \"distance_cm\": %.3f, \"eye_y\": %.3f, "
            "\"ground_y\": %.3f},\n"
            "  \"gamepads\": %d,\n  \"active_gamepad\": \"%s\"",
            app->level.name, app->frame_index, (unsigned long long)app->sim.step, (double)m->pos[0],
            (double)m->pos[1], (double)m->pos[2], (double)(m->heading_rad / DEG2RAD), (double)m->height_cm,
            m->airborne ? "true" : "false", (double)(c->yaw_rad / DEG2RAD), (double)(c->pitch_rad / DEG2RAD),
            (double)c->distance_cm, (double)c->eye[1],
            (double)terrain_height(&app->level.terrain, c->eye[0], c->eye[2]), input_pad_count(&app->input),
            pad ? pad : "");
    if (app->ctrl) {
        /* The marker keys above mirror the character's root. */
        const ctrl_stats *st = &app->sim.stats;
        fprintf(f,
                ",\n  \"character\": {\"x\": %.3f, \"y\": %.3f, \"z\": %.3f, \"heading_deg\": %.3f, "
                "\"head_height_cm\": %.3f, \"hip_height_cm\": %.3f, \"speed_cm_s\": %.3f, \"phase_rad\": %.4f, "
                "\"phase_mode\": \"%s\", \"ik\": %s, \"nan_resets\": %d, \"wall_blocks\": %d, \"blinks\": %u, "
                "\"gait\": {\"stand\": %.4f, \"walk\": %.4f, \"run\": %.4f, \"crouch\": %.4f, \"jump\": %.4f}}",
                (double)st->root_pos[0], (double)st->root_pos[1], (double)st->root_pos[2],
                (double)(st->heading_rad / DEG2RAD), (double)st->head_height_cm, (double)st->hip_height_cm,
                (double)st->root_speed_cm_s, (double)st->phase_rad, pfnn_mode_name(ctrl_get_mode(app->ctrl)),
                ctrl_get_ik(app->ctrl) ? "true" : "false", st->nan_resets, st->wall_blocks, app->sim.face.blinks,
                (double)st->gait[CTRL_GAIT_STAND], (double)st->gait[CTRL_GAIT_WALK], (double)st->gait[CTRL_GAIT_RUN],
                (double)st->gait[CTRL_GAIT_CROUCH], (double)st->gait[CTRL_GAIT_JUMP]);
    }
    if (app->ctrl && app->fig) {
        /* A copy: the percentile sorts, and contacts still running end here. */
        app_feet_stats feet = app->feet;
        const app_feet_stats *fs = &feet;
        const figure_t *fig = app->fig;
        float contact_p95_cm, ctrl_contact_p95_cm;
        feet_contact_p95(&feet, &contact_p95_cm, &ctrl_contact_p95_cm);
        fprintf(f,
                ",\n  \"shown\": {\"file\": \"%s\", \"retargeted\": %s, \"joints\": %d, \"triangles\": %u, "
                "\"leg_scale\": %.4f, \"frames\": %d, \"finite\": %s, \"contact_frames\": %d, "
                "\"ankle_slide_cm\": %.4f, \"ankle_slide_max_cm\": %.4f, \"controller_heel_slide_cm\": %.4f, "
                "\"controller_heel_slide_max_cm\": %.4f, \"head_top_max_cm\": %.3f, \"ceiling_frames\": %d, "
                "\"ceiling_clearance_min_cm\": %.3f, \"contacts\": %d, \"contact_slide_p95_cm\": %.4f, "
                "\"contact_slide_max_cm\": %.4f, \"controller_contact_slide_p95_cm\": %.4f, "
                "\"controller_contact_slide_max_cm\": %.4f, \"toes\": %s, \"sink_max_cm\": %.3f, "
                "\"controller_sink_max_cm\": %.3f}",
                app->character_name[app->character_index], fig->rig.identity ? "false" : "true",
                fig->chr.skel.joint_count, chr_triangle_count(&fig->chr),
                fig->rig.identity ? 1.0 : (double)fig->rig.rt.scale, fs->frames, fs->finite ? "true" : "false",
                fs->contact_frames, fs->slide_cm[0] + fs->slide_cm[1], (double)fs->slide_max_cm,
                fs->ctrl_slide_cm[0] + fs->ctrl_slide_cm[1], (double)fs->ctrl_slide_max_cm,
                (double)fs->head_top_max_cm, fs->ceiling_frames, (double)fs->ceiling_clearance_min_cm,
                fs->contacts, (double)contact_p95_cm, (double)fs->contact_slide_max_cm, (double)ctrl_contact_p95_cm,
                (double)fs->ctrl_contact_slide_max_cm,
                fig->rig.toe[0] >= 0 && fig->rig.toe[1] >= 0 ? "true" : "false", (double)fs->sink_max_cm,
                (double)fs->ctrl_sink_max_cm);
    }
    write_report_figure(app, f);
    fputs("\n}\n", f);
    bool ok = fclose(f) == 0 && text;
    if (!ok)
        log_error("%s: out of memory for the report", path);
    ok = ok && file_write_all(path, text, size);
    free(text);
    return ok;
}

/* sim_step() with the controller step timed (sim and ctrl read no clocks). */
static void step_character(app_t *app, const input_frame *in, bool first_step_of_frame)
{
    ctrl_input ci;
    sim_begin_step(&app->sim, in, &ci);
    double t0 = platform_now_s();
    ctrl_step(app->ctrl, &ci, (float)LOOP_STEP_S);
    float ms = (float)((platform_now_s() - t0) * 1000.0);
    prof_add(&app->prof, PROF_CONTROLLER, ms);
    app->net_ms_last = ms;
    app->net_ms = app->net_ms > 0.0f ? app->net_ms + (ms - app->net_ms) * NET_MS_SMOOTHING : ms;
    sim_end_step(&app->sim, in, first_step_of_frame, (float)LOOP_STEP_S);
    pose_dump_row(&app->dump, app->sim.step, app->ctrl, &app->sim.pose, &app->sim.stats);
}

static void run_steps(app_t *app, int steps, const input_frame *devices)
{
    for (int i = 0; i < steps; i++) {
        const script_event *ev;
        while (app->have_script && (ev = script_next_due(&app->script, app->sim.step)) != NULL) {
            if (ev->cmd == SCRIPT_QUIT) {
                /* A quit at time T means T seconds were simulated. */
                app->quit = true;
                return;
            }
            else if (ev->cmd == SCRIPT_PAD_AXIS || ev->cmd == SCRIPT_PAD_BUTTON)
                drive_virtual_pad(app, ev);
            else if (ev->cmd == SCRIPT_SCREENSHOT)
                app->screenshot_requested = true; /* as F12 */
            else if (ev->cmd == SCRIPT_CHARACTER) {
                int k = (int)ev->a;
                if (k < app->character_count)
                    app->pending_character = k;
                else
                    log_warn("script: no character %d (the menu lists %d)", k, app->character_count);
            }
            else
                script_apply(&app->script, ev);
        }
        input_frame merged = *devices;
        if (app->have_script)
            input_merge(devices, &app->script.held, &merged);
        if (app->settings.pause)
            ;
        else if (app->viewer_mode) {
            viewer_step(&app->viewer, &merged, i == 0, &app->level.terrain, (float)LOOP_STEP_S);
            /* The step count times scripts in the viewer too (a 'quit' line
             * ends the run there as in the game). */
            app->sim.step++;
        }
        else if (app->ctrl)
            step_character(app, &merged, i == 0);
        else
            sim_step(&app->sim, &merged, i == 0, (float)LOOP_STEP_S);
        loop_clock_step_done(&app->clock);
    }
}

static float horizontal(const float a[3], const float b[3]) { return hypotf(a[0] - b[0], a[2] - b[2]); }

static void joint_world(const figure_t *f, int j, float out[3])
{
    out[0] = f->model_mat[j][3];
    out[1] = f->model_mat[j][7];
    out[2] = f->model_mat[j][11];
}

/* Whether the controller holds foot point C (network order: left heel, left
 * toe, right heel, right toe) on the ground: its lock's weight is over one
 * half, as the motion goals define a contact. */
static bool point_held(const app_t *app, int c) { return app->sim.stats.lock_weight[c] > 0.5f; }

/* The drawn character's ankle and toe joints against the motion goals:
 * slide per contact (the controller's heel flag for the ankle, its toe
 * flag for the toe) and sinking below the rest height over the terrain. */
static void feet_points_add(app_t *app)
{
    app_feet_stats *fs = &app->feet;
    const figure_t *f = app->fig;
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 2; k++) {
            int j = k == 0 ? f->rig.foot[side] : f->rig.toe[side];
            if (j < 0)
                continue;
            int c = side * 2 + k; /* network order: left heel, left toe, right heel, right toe */
            bool on = app->sim.stats.contact[c] && point_held(app, c);
            float p[3];
            joint_world(f, j, p);
            float sink = f->rig.foot_rest_height_cm[side][k] - (p[1] - terrain_height(&app->level.terrain, p[0], p[2]));
            fs->sink_max_cm = fmaxf(fs->sink_max_cm, sink);
            const float *q = app->sim.contact[c];
            float csink = f->rig.source_rest_height_cm[side][k] -
                          (q[1] - terrain_height(&app->level.terrain, q[0], q[2]));
            fs->ctrl_sink_max_cm = fmaxf(fs->ctrl_sink_max_cm, csink);
            if (on && fs->point_prev_contact[side][k]) {
                fs->point_run_cm[side][k] += horizontal(p, fs->point_prev[side][k]);
                fs->ctrl_point_run_cm[side][k] += horizontal(q, fs->ctrl_point_prev[side][k]);
            } else if (!on && fs->point_prev_contact[side][k]) {
                feet_contact_end(fs, side, k);
            }
            if (on && !fs->point_prev_contact[side][k])
                fs->point_run_cm[side][k] = fs->ctrl_point_run_cm[side][k] = 0.0f;
            fs->point_prev_contact[side][k] = on;
            memcpy(fs->point_prev[side][k], p, sizeof p);
            memcpy(fs->ctrl_point_prev[side][k], q, sizeof fs->ctrl_point_prev[side][k]);
        }
}

/* After a deform: the figure's ankles (its joints' world positions) while
 * the controller holds that heel in contact, against the controller's own
 * heel, and the head top (a lockstep run draws once per step). */
static void feet_stats_add(app_t *app, float ground_y)
{
    app_feet_stats *fs = &app->feet;
    const figure_t *f = app->fig;
    if (f->hybrid_every > 0 && !f->gpu_skin)
        return; /* the hybrid poses only every Nth frame */
    fs->frames++;
    if (fs->frames == 1) {
        fs->finite = true;
        fs->sink_max_cm = fs->ctrl_sink_max_cm = -INFINITY;
    }
    float ankle[2][3], heel[2][3];
    bool contact[2];
    for (int side = 0; side < 2; side++) {
        int j = f->rig.foot[side];
        ankle[side][0] = j >= 0 ? f->model_mat[j][3] : 0.0f;
        ankle[side][1] = j >= 0 ? f->model_mat[j][7] : 0.0f;
        ankle[side][2] = j >= 0 ? f->model_mat[j][11] : 0.0f;
        memcpy(heel[side], app->sim.contact[side * 2], sizeof heel[side]);
        contact[side] = app->sim.stats.contact[side * 2] && point_held(app, side * 2);
        fs->finite = fs->finite && isfinite(ankle[side][0]) && isfinite(ankle[side][1]) && isfinite(ankle[side][2]);
        if (fs->have_prev && contact[side] && fs->prev_contact[side]) {
            float d = horizontal(ankle[side], fs->prev_ankle[side]), dc = horizontal(heel[side], fs->prev_heel[side]);
            fs->contact_frames++;
            fs->slide_cm[side] += d;
            fs->ctrl_slide_cm[side] += dc;
            fs->slide_max_cm = fmaxf(fs->slide_max_cm, d);
            fs->ctrl_slide_max_cm = fmaxf(fs->ctrl_slide_max_cm, dc);
        }
    }
    memcpy(fs->prev_ankle, ankle, sizeof ankle);
    memcpy(fs->prev_heel, heel, sizeof heel);
    memcpy(fs->prev_contact, contact, sizeof contact);
    fs->have_prev = true;
    feet_points_add(app);
    int head = f->rig.head;
    if (head >= 0) {
        float top[3];
        const float *m = f->model_mat[head], *o = f->rig.head_top;
        for (int r = 0; r < 3; r++)
            top[r] = m[r * 4] * o[0] + m[r * 4 + 1] * o[1] + m[r * 4 + 2] * o[2] + m[r * 4 + 3];
        fs->head_top_max_cm = fmaxf(fs->head_top_max_cm, top[1] - ground_y);
        float ceiling = level_crouch_ceiling(&app->level, top[0], top[2]);
        if (ceiling > 0.0f) {
            float room = ceiling - (top[1] - terrain_height(&app->level.terrain, top[0], top[2]));
            fs->ceiling_clearance_min_cm = fs->ceiling_frames ? fminf(fs->ceiling_clearance_min_cm, room) : room;
            fs->ceiling_frames++;
        }
    }
}

/* Toe pins for a retargeted character. The controller pivots a foot
 * standing on its toes about its toe tip; the character's toe joint, on a
 * foot of other proportions, would slide about that point. So while a toe
 * is down with its heel, its pin follows the character's toe joint; when
 * the heel lifts, the pin stays and the ankle goes where the foot keeps the
 * toe joint on it. The ankle's distance from where the controller puts it
 * is kept as an offset: held while the heel is down (a planted heel must
 * not move; only its height eases back), eased out in the air. */
#define TOE_PIN_EASE_PER_STEP 0.75f

static void toe_pins_before(app_t *app, retarget_job_t *job)
{
    figure_rig *r = &app->fig->rig;
    if (r->identity)
        return;
    uint64_t steps = app->sim.stats.steps, n = steps - r->toe_pin_step;
    float ease = powf(TOE_PIN_EASE_PER_STEP, (float)(n < 60 ? n : 60));
    r->toe_pin_step = steps;
    for (int side = 0; side < 2; side++) {
        bool heel = point_held(app, side * 2), toe = point_held(app, side * 2 + 1);
        if (!toe)
            r->toe_pinned[side] = false;
        job->toe_pinned[side] = toe && !heel && r->toe_pinned[side];
        if (!job->toe_pinned[side]) {
            r->ankle_offset[side][1] *= ease;
            if (!heel) {
                r->ankle_offset[side][0] *= ease;
                r->ankle_offset[side][2] *= ease;
            }
        }
    }
    job->toe_pin = (const float (*)[3])r->toe_pin;
    job->ankle_offset = (const float (*)[3])r->ankle_offset;
}

static void toe_pins_after(app_t *app, const retarget_job_t *job)
{
    figure_rig *r = &app->fig->rig;
    if (r->identity)
        return;
    for (int side = 0; side < 2; side++) {
        bool heel = point_held(app, side * 2), toe = point_held(app, side * 2 + 1);
        if (job->toe_pinned[side])
            for (int k = 0; k < 3; k++)
                r->ankle_offset[side][k] = job->ankle_target[side][k] - job->ankle_mapped[side][k];
        if (toe && (heel || !r->toe_pinned[side])) {
            memcpy(r->toe_pin[side], job->toe[side], sizeof r->toe_pin[side]);
            r->toe_pinned[side] = true;
        }
    }
}

/* The game character's pose between the last two steps, its face, and the
 * whole deformation into the renderer's stream. The controller's pose has
 * the hip in world space, so the model matrix is the identity. */
static bool deform_character(app_t *app, float alpha)
{
    static const float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    sim_lerp_pose(&app->sim.prev_pose, &app->sim.pose, alpha, &app->draw_pose);
    sim_face face;
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
    sim_lerp_contacts((const float (*)[3])app->sim.prev_contact, (const float (*)[3])app->sim.contact, alpha, contact);
    sim_marker m;
    sim_lerp_marker(&app->sim.prev_marker, &app->sim.marker, alpha, &m);
    job.ground_y_cm = m.pos[1];
    for (int side = 0; side < 2; side++) {
        /* Contacts in network order: left heel, left toe, right heel, right toe. */
        memcpy(ankle[side], contact[side * 2], sizeof ankle[side]);
        job.foot_ground_y_cm[side] = terrain_height(&app->level.terrain, ankle[side][0], ankle[side][2]);
    }
    job.feet_ground_given = true;
    job.foot_target = (const float (*)[3])ankle;
    toe_pins_before(app, &job);
    const pose_t *pose = figure_rig_pose(app->fig, &job);
    if (pose)
        toe_pins_after(app, &job);
    bool ok = pose && figure_deform(app->fig, pose, world);
    if (ok)
        feet_stats_add(app, m.pos[1]);
    return ok;
}

/* `strider bench render`'s switch set S for the next render. */
static void bench_switches(app_t *app, const gfx_switches *s)
{
    gfx_set_switches(s);
    if (app->fig && app->fig->gfx) {
        gfx_character_set_fog_everywhere(app->fig->gfx, s->fog_everywhere);
        gfx_character_set_all_triangles(app->fig->gfx, s->all_triangles);
    }
}

/* Draws F with every switch set of RB and counts the pixels that differ
 * from the first set's picture; leaves the first set's picture (and
 * switches) behind, as the frame drew them. */
static bool compare_variants(app_t *app, app_render_bench *rb, const gfx_frame_desc *f)
{
    rb->width = f->width;
    rb->height = f->height;
    snprintf(rb->renderer, sizeof rb->renderer, "%s", gfx_get_info()->renderer);
    snprintf(rb->version, sizeof rb->version, "%s", gfx_get_info()->version);
    long n = (long)f->width * f->height;
    if (n > rb->pixel_capacity) {
        log_error("bench render: a %dx%d frame does not fit the %d pixels set aside to compare", f->width, f->height,
                  rb->pixel_capacity);
        return false;
    }
    for (int v = 0; v < rb->count; v++)
        rb->differing[v] = -1;
    for (int k = 0; k <= rb->count; k++) {
        int v = k % rb->count; /* the first set again at the end */
        bench_switches(app, &rb->variants[v]);
        gfx_render_frame(f);
        if (k == rb->count)
            break;
        if (!gfx_read_pixels_rgb(f->width, f->height, rb->pixels[v == 0 ? 0 : 1])) {
            log_error("bench render: the %dx%d picture could not be read back", f->width, f->height);
            return false;
        }
        long diff = 0;
        int most = 0;
        for (long i = 0; v > 0 && i < n; i++) {
            if (memcmp(rb->pixels[0] + 3 * i, rb->pixels[1] + 3 * i, 3) == 0)
                continue;
            diff++;
            for (int c = 0; c < 3; c++) {
                int d = abs((int)rb->pixels[0][3 * i + c] - (int)rb->pixels[1][3 * i + c]);
                most = d > most ? d : most;
            }
        }
        rb->differing[v] = diff;
        rb->max_channel_diff[v] = most;
    }
    return true;
}

static void render(app_t *app, int width, int height, bool last_frame)
{
    const app_options *opt = app->opt;
    /* Real-time runs draw between the last two steps; lockstep runs draw
     * the step just taken. */
    float alpha = app->lockstep ? 1.0f : loop_clock_alpha(&app->clock);
    if (alpha > 1.0f)
        alpha = 1.0f;
    sim_marker m;
    camera_t cam;
    sim_lerp_marker(&app->sim.prev_marker, &app->sim.marker, alpha, &m);
    if (app->viewer_mode) {
        viewer_camera(&app->viewer, alpha, &cam);
        debug_lines_clear(&app->lines);
        double d0 = platform_now_s();
        if (!viewer_deform(&app->viewer)) {
            app->failed = true;
            app->quit = true;
        }
        prof_add(&app->prof, PROF_DEFORMATION, (float)((platform_now_s() - d0) * 1000.0));
    } else {
        camera_lerp(&app->sim.prev_camera, &app->sim.camera, alpha, &cam);
        build_debug_lines(app, &m);
        if (app->ctrl) {
            double d0 = platform_now_s();
            if (!deform_character(app, alpha)) {
                app->failed = true;
                app->quit = true;
            }
            prof_add(&app->prof, PROF_DEFORMATION, (float)((platform_now_s() - d0) * 1000.0));
        }
    }

    gfx_frame_desc f;
    memset(&f, 0, sizeof f);
    f.width = width;
    f.height = height;
    camera_matrices(&cam, (float)width / (float)height, f.view, f.proj);
    memcpy(f.eye, cam.eye, sizeof f.eye);
    memcpy(f.focus, cam.focus, sizeof f.focus);
    sun_direction(&app->settings, f.sun_dir);
    f.wireframe = app->settings.wireframe;
    f.layers = app->settings.layers;
    memcpy(f.marker.pos, m.pos, sizeof m.pos);
    f.marker.heading_rad = m.heading_rad;
    f.lines = &app->lines;

    app_render_bench *rb = opt->render_bench;
    int variant = rb ? (int)(app->frame_index % rb->count) : 0;
    if (rb)
        bench_switches(app, &rb->variants[variant]);
    double t0 = platform_now_s();
    gfx_set_finish_timing(rb ? true : app->settings.finish_timing);
    gfx_render_frame(&f);
    double t1 = platform_now_s();
    prof_add(&app->prof, PROF_RENDER, (float)((t1 - t0) * 1000.0));
    if (rb && app->frame_index >= rb->warmup_frames && rb->samples[variant] < rb->capacity)
        rb->ms[variant][rb->samples[variant]++] = gfx_last_gpu_ms();
    if (rb && last_frame && !compare_variants(app, rb, &f))
        app->failed = true;

    if (app->settings.show_menu) {
        ui_new_frame();
        menu_draw(app);
        ui_render();
    }
    prof_add(&app->prof, PROF_UI, (float)((platform_now_s() - t1) * 1000.0));

    /* A screenshot that cannot be written has logged one line naming the
     * file and why; the run goes on and exits 1 at the end. */
    if (last_frame && opt->screenshot) {
        app->screenshot_written = gfx_screenshot_png(opt->screenshot, width, height);
        if (app->screenshot_written)
            log_info("wrote %s (%dx%d)", opt->screenshot, width, height);
        else
            app->failed_outputs++;
    }
    if (app->screenshot_requested) {
        /* F12 (or a script's screenshot): into the working folder, named
         * with its full path so that the log says where it went. */
        char dir[PATHS_MAX], name[PATHS_MAX + 32];
        if (!getcwd(dir, sizeof dir))
            snprintf(dir, sizeof dir, ".");
        snprintf(name, sizeof name, "%s/strider-%06ld.png", strcmp(dir, "/") ? dir : "", app->frame_index);
        if (gfx_screenshot_png(name, width, height))
            log_info("wrote %s", name);
        else
            app->failed_outputs++;
        app->screenshot_requested = false;
    }
}

static bool data_path(const char *given, const char *fallback, char out[PATHS_MAX])
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
static void apply_skin_options(figure_t *f, const app_options *opt)
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
static void list_characters(app_t *app, const char *first)
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
    figure_desc fd = {.path = path, .map_path = map_path, .skeleton_path = skel_path};
    if (!data_path(NULL, FIGURE_DRIVER_SKELETON, skel_path) || !figure_load(f, &fd) ||
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
static int load_character(app_t *app, const app_options *opt)
{
    char path[PATHS_MAX];
    /* Cubic (the control points) only: the constant and linear modes' slices
     * (127 MB of the shipped network) are built when picked. */
    pfnn_load_desc cubic = {.modes = 1u << PFNN_PHASE_CUBIC};
    if (!data_path(opt->network, GAME_NETWORK, path) || !pfnn_load_ex(&app->net, path, &cubic))
        return EXIT_RUNTIME;
    pfnn_mode mode = PFNN_PHASE_CUBIC;
    for (int m = 0; opt->phase_mode && m < PFNN_PHASE_MODE_COUNT; m++)
        if (strcmp(opt->phase_mode, pfnn_mode_name((pfnn_mode)m)) == 0)
            mode = (pfnn_mode)m;
    app->net_loaded = true;
    if (!pfnn_prepare_mode(&app->net, mode))
        return EXIT_RUNTIME;
    /* A slice mode runs without the control points (8.5 MiB): the menu
     * reads them from the file again if cubic or another mode is picked. */
    if (mode != PFNN_PHASE_CUBIC)
        pfnn_release_mode(&app->net, PFNN_PHASE_CUBIC);
    if (!data_path(opt->character, FIGURE_DEFAULT_CHARACTER, path))
        return EXIT_RUNTIME;
    app->fig = new_figure(path, opt->map, false);
    if (!app->fig)
        return EXIT_RUNTIME;
    app->fig->show = !opt->no_character;
    apply_skin_options(app->fig, opt);
    /* The controller drives its own 21-joint skeleton; the figure's rig
     * carries its poses onto the character's, whichever is shown. */
    app->driver = app->fig->rig.source;
    ctrl_desc d = {.net = &app->net, .skel = &app->driver, .mode = mode, .ik_off = opt->no_ik};
    app->ctrl = ctrl_create(&d);
    if (!app->ctrl)
        return EXIT_RUNTIME;
    resolve_face(app);
    app->sim.ctrl = app->ctrl;
    app->ctrl_draw = CTRL_DRAW_TRAJECTORY | CTRL_DRAW_CONTACTS;
    list_characters(app, path);
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
static void switch_character(app_t *app, int index)
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
    f->gpu_skin = old->gpu_skin;
    f->method = old->method;
    f->influences = old->influences;
    f->skin_once = old->skin_once;
    f->gpu_morph = old->gpu_morph;
    f->hybrid_every = old->hybrid_every;
    f->dense = old->dense;
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
    app_options o = *app->opt;
    o.character = path;
    o.expression_count = 0;
    o.clip = NULL;
    o.play_clip = false;
    o.clip_time_given = false;
    o.bake = NULL;
    const level_t *lvl = &app->level;
    float origin[3] = {lvl->spawn_x, terrain_height(&lvl->terrain, lvl->spawn_x, lvl->spawn_z), lvl->spawn_z};
    if (viewer_load(&app->viewer, &o) != 0 ||
        !viewer_gpu_init(&app->viewer, origin, o.face_closeup, &lvl->terrain)) {
        viewer_shutdown(&app->viewer);
        return false;
    }
    return true;
}

static void switch_viewer_character(app_t *app, int index)
{
    figure_t keep = {0};
    const figure_t *old = &app->viewer.fig;
    /* The deformation settings carry over (copied field by field: a
     * figure_t is not to be moved whole). */
    keep.gpu_skin = old->gpu_skin;
    keep.method = old->method;
    keep.influences = old->influences;
    keep.skin_once = old->skin_once;
    keep.gpu_morph = old->gpu_morph;
    keep.hybrid_every = old->hybrid_every;
    keep.dense = old->dense;
    viewer_shutdown(&app->viewer);
    bool ok = load_viewer(app, app->character_path[index]);
    if (ok)
        app->character_index = index;
    else if (!load_viewer(app, app->character_path[app->character_index])) {
        app->quit = true;
        return;
    }
    figure_t *f = &app->viewer.fig;
    f->gpu_skin = keep.gpu_skin;
    f->method = keep.method;
    f->influences = keep.influences;
    f->skin_once = keep.skin_once;
    f->gpu_morph = keep.gpu_morph;
    f->hybrid_every = keep.hybrid_every;
    f->dense = keep.dense;
    snprintf(app->character_status, sizeof app->character_status, "%.60s%s", app->character_name[index],
             ok ? "" : " failed (see the log)");
}

/* Safe to call twice; the figure's GPU side must go before gfx_shutdown(). */
static void free_character(app_t *app)
{
    pose_dump_close(&app->dump);
    ctrl_destroy(app->ctrl);
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

static int app_loop(app_t *app)
{
    const app_options *opt = app->opt;
    /* Automated runs step once per frame: deterministic on any machine. */
    bool lockstep = opt->frames > 0 || opt->script != NULL;
    app->lockstep = lockstep;
    double last = platform_now_s();
    int exit_code = 0;
    while (!app->quit) {
        double now = platform_now_s();
        double frame_s = now - last;
        last = now;
        prof_begin_frame(&app->prof);

        poll_events(app);
        if (app->pending_character >= 0 && (app->ctrl || app->viewer_mode)) {
            int index = app->pending_character;
            app->pending_character = -1;
            if (app->viewer_mode)
                switch_viewer_character(app, index);
            else
                switch_character(app, index);
            if (app->quit) {
                exit_code = EXIT_RUNTIME;
                break;
            }
        }
        if (app->pending_level >= 0) {
            int index = app->pending_level;
            app->pending_level = -1;
            if (!load_level(app, index, level_builtin_name(index)) && !app->level_loaded) {
                exit_code = EXIT_RUNTIME;
                break;
            }
        }
        if (app->platform.minimized && !lockstep) {
            platform_sleep_ms(MINIMIZED_SLEEP_MS);
            continue;
        }
        input_frame devices;
        input_sample(&app->input, &devices);
        double t_input = platform_now_s();
        prof_add(&app->prof, PROF_INPUT, (float)((t_input - now) * 1000.0));

        int steps = lockstep ? 1 : loop_clock_advance(&app->clock, frame_s);
        if (lockstep)
            app->clock.accumulator_s = LOOP_STEP_S;
        float ctrl_before = app->prof.current[PROF_CONTROLLER];
        run_steps(app, steps, &devices);
        /* The controller's share is its own stage. */
        float ctrl_ms = app->prof.current[PROF_CONTROLLER] - ctrl_before;
        prof_add(&app->prof, PROF_SIMULATION, (float)((platform_now_s() - t_input) * 1000.0) - ctrl_ms);

        int w, h;
        platform_drawable_size(&app->platform, &w, &h);
        /* Quitting (a script's quit, the window closed, Esc) still draws
         * this frame: it is the last one, the one --screenshot shows. */
        bool last_frame = (opt->frames > 0 && app->frame_index + 1 >= opt->frames) || app->quit;
        if (w > 0 && h > 0)
            render(app, w, h, last_frame);
        const figure_t *shown = app->viewer_mode ? &app->viewer.fig : app->ctrl ? app->fig : NULL;
        prof_set_gpu(&app->prof, PROF_GPU_FRAME, gfx_last_gpu_ms() > 0.0 ? (float)gfx_last_gpu_ms() : -1.0f);
        const gfx_character_stats *cs = shown && shown->gfx ? gfx_character_get_stats(shown->gfx) : NULL;
        prof_set_gpu(&app->prof, PROF_GPU_CHARACTER, cs ? (float)cs->gpu_ms : -1.0f);
        prof_set_gpu(&app->prof, PROF_GPU_CHARACTER_DEFORM, cs && cs->gpu_ms >= 0.0 ? (float)cs->gpu_deform_ms : -1.0f);
        double t_swap = platform_now_s();
        platform_swap(&app->platform);
        /* The one wait for the GPU of a frame, timed with the swap. */
        gfx_pace_frames();
        prof_add(&app->prof, PROF_PRESENT, (float)((platform_now_s() - t_swap) * 1000.0));

        app->frame_index++;
        prof_end_frame(&app->prof, (float)(frame_s * 1000.0));
        if (last_frame)
            break;
    }
    if (exit_code == 0 && !app->failed && opt->screenshot && !app->screenshot_written &&
        app->failed_outputs == 0) {
        log_error("%s: not written: the run ended without drawing a last frame (minimised window?)",
                  opt->screenshot);
        app->failed_outputs++;
    }
    if (opt->report && !write_report(app, opt->report))
        app->failed_outputs++;
    if (!pose_dump_close(&app->dump))
        app->failed_outputs++;
    app->failed_outputs += app->viewer.bake_failures;
    /* Scripts and CI trust the exit code: an output that was asked for and
     * not written fails the run, as a runtime failure does, and so does a
     * network that gave non-finite output (the controller reset the pose
     * and went on, and logged the network's file once). */
    if (app->failed || app->failed_outputs > 0 || (app->ctrl && app->sim.stats.nan_resets > 0))
        exit_code = EXIT_RUNTIME;
    return exit_code;
}

int app_run(const app_options *opt)
{
    app_t *app = &g_app;
    memset(app, 0, sizeof *app);
    app->opt = opt;
    app->pending_level = -1;
    app->pending_character = -1;
    app->lines.vertices = app->line_storage;
    app->lines.capacity = APP_DEBUG_LINE_VERTICES;
    app->settings.show_menu = opt->menu;
    app->settings.vsync = !opt->no_vsync && !opt->hidden;
    app->settings.fullscreen = opt->fullscreen;
    app->settings.layers = GFX_LAYER_ALL;
    app->settings.sun_azimuth_deg = 35.0f;
    app->settings.sun_elevation_deg = 40.0f;
    prof_init(&app->prof);
    loop_clock_init(&app->clock);
    paths_init(opt->data_dir);
    app->sim.seed = opt->seed;

    app->viewer_mode = opt->view != NULL;
    if (app->viewer_mode) {
        /* Files first: bad input fails before any window opens. */
        int rc = viewer_load(&app->viewer, opt);
        if (rc != 0) {
            viewer_shutdown(&app->viewer);
            return rc;
        }
        apply_skin_options(&app->viewer.fig, opt);
        char first[PATHS_MAX];
        if (data_path(opt->character, FIGURE_DEFAULT_CHARACTER, first))
            list_characters(app, first);
        app->settings.layers &= ~(unsigned)(GFX_LAYER_WALLS | GFX_LAYER_AREAS | GFX_LAYER_MARKER |
                                             GFX_LAYER_DEBUG_LINES);
    } else if (!opt->marker) {
        int rc = load_character(app, opt);
        if (rc != 0) {
            free_character(app);
            return rc;
        }
        app->settings.layers &= ~(unsigned)GFX_LAYER_MARKER;
    }
    const char *level_name = opt->level ? opt->level : level_builtin_name(0);
    int level_index = level_index_for_name(level_name);
    if (level_index < 0 && !app->viewer_mode) {
        fprintf(stderr, "strider: unknown level '%s'; valid:", level_name);
        for (int i = 0; i < level_builtin_count(); i++)
            fprintf(stderr, " %s", level_builtin_name(i));
        fputc('\n', stderr);
        free_character(app);
        return EXIT_USAGE;
    }
    if (opt->script) {
        if (!script_load(&app->script, opt->script)) {
            viewer_shutdown(&app->viewer);
            free_character(app);
            return EXIT_RUNTIME;
        }
        app->have_script = true;
        if (opt->hidden && opt->frames == 0 && !opt->render_bench && !script_has_quit(&app->script)) {
            log_error("%s: no 'quit' line, and --hidden without --frames would run forever (give --frames N)",
                      opt->script);
            script_free(&app->script);
            viewer_shutdown(&app->viewer);
            free_character(app);
            return EXIT_USAGE;
        }
    }

    /* SDL drops gamepad input while no window has focus; a hidden window
     * never gets focus, so tests and benchmarks would see a dead pad. */
    if (opt->hidden || opt->virtual_gamepad)
        SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");

    int exit_code = EXIT_RUNTIME;
    platform_desc pd = {.title = "Strider",
                        .width = opt->width,
                        .height = opt->height,
                        .hidden = opt->hidden,
                        .fullscreen = opt->fullscreen,
                        .vsync = app->settings.vsync,
#ifndef NDEBUG
                        .debug_context = true
#endif
    };
    if (!platform_init(&app->platform, &pd))
        goto out_script;
    /* The renderer's line buffer holds what the app's storage can. */
    gfx_desc gd = {.line_vertices = APP_DEBUG_LINE_VERTICES};
#ifndef NDEBUG
    gd.debug = true;
#endif
    if (!gfx_init(&gd))
        goto out_platform;
    if (!ui_init(app->platform.window, app->platform.gl)) {
        log_error("Dear ImGui initialisation failed");
        goto out_gfx;
    }
    input_init(&app->input);
    if (opt->virtual_gamepad && !attach_virtual_pad(app))
        goto out_input;
    if (app->viewer_mode) {
        char path[PATHS_MAX];
        if (!paths_join(VIEWER_LEVEL, path, sizeof path) || !load_level_path(app, -1, path))
            goto out_input;
        const level_t *lvl = &app->level;
        float origin[3] = {lvl->spawn_x, terrain_height(&lvl->terrain, lvl->spawn_x, lvl->spawn_z), lvl->spawn_z};
        if (!viewer_gpu_init(&app->viewer, origin, opt->face_closeup, &lvl->terrain))
            goto out_level;
        /* --bake: the weights given on the command line, before the first
         * frame; a bake that fails (one logged line naming the file) fails
         * the run. */
        if (opt->bake && !figure_bake_save(&app->viewer.fig, opt->bake))
            goto out_level;
        if (opt->bake)
            log_info("viewer: baked the start's shape weights into %s", opt->bake);
    } else if (!load_level(app, level_index, level_name))
        goto out_input;
    else if (app->ctrl && !figure_gpu_init(app->fig, "player"))
        goto out_level;

    exit_code = app_loop(app);

out_level:
    viewer_shutdown(&app->viewer);
    free_character(app);
    level_free(&app->level);
    gfx_level_free();
out_input:
    input_shutdown(&app->input);
    if (app->virtual_pad) {
        SDL_JoystickClose(app->virtual_pad);
        SDL_JoystickDetachVirtual(0);
    }
    ui_shutdown();
out_gfx:
    gfx_shutdown();
out_platform:
    platform_shutdown(&app->platform);
out_script:
    if (app->have_script)
        script_free(&app->script);
    viewer_shutdown(&app->viewer);
    free_character(app);
    return exit_code;
}
