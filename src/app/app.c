/* app.c: the window and the frame loop (see app.h). The scene (the level,
 * the characters, and loading them at the start) lives in app_scene.c, the
 * --report writer in app_report.c, the debug menu in menu.c; the
 * simulation itself is the headless game (src/game). */
#define _POSIX_C_SOURCE 200809L /* getcwd */

#include "app/app.h"

#include "app/app_state.h"
#include "core/log.h"
#include "core/paths.h"
#include "render/gfx.h"
#include "render/gfx_crowd.h"
#include "render/gfx_switch_bench.h"
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

/* Smoothing of the menu's network time: weight of the newest step. */
#define NET_MS_SMOOTHING 0.05f

static void handle_action(app_t *app, input_action_t action)
{
    app_settings_t *s = &app->settings;
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

static void sun_direction(const app_settings_t *s, float out[3])
{
    float az = s->sun_azimuth_deg * DEG2RAD, el = s->sun_elevation_deg * DEG2RAD;
    out[0] = sinf(az) * cosf(el);
    out[1] = sinf(el);
    out[2] = cosf(az) * cosf(el);
}

static int crowd_bench_sample(const app_t *app)
{
    const app_crowd_bench_t *b = app->opt->crowd_bench;
    long k = app->frame_index - b->warmup_frames;
    return k >= 0 && k < APP_CROWD_BENCH_MAX_SAMPLES ? (int)k : -1;
}

/* The player's controller steps with the crowd's (member 0); a crowd
 * being measured (bench crowd) has its parts timed, and its network run
 * one inference per member on odd frames for the comparison. */
static void step_crowd(app_t *app, const ctrl_input_t *ci)
{
    app_crowd_bench_t *b = app->opt->crowd_bench;
    if (!b) {
        crowd_step(app->crowd, ci, (float)LOOP_STEP_S);
        return;
    }
    bool single = (app->frame_index & 1) != 0;
    crowd_set_single_inference(app->crowd, single);
    double t0 = platform_now_s();
    crowd_step_begin(app->crowd, ci, (float)LOOP_STEP_S);
    double t1 = platform_now_s();
    crowd_step_network(app->crowd);
    double t2 = platform_now_s();
    crowd_step_finish(app->crowd);
    double t3 = platform_now_s();
    int k = crowd_bench_sample(app);
    if (k >= 0) {
        b->begin_ms[k] = (t1 - t0) * 1e3;
        b->net_ms[k] = (t2 - t1) * 1e3;
        b->finish_ms[k] = (t3 - t2) * 1e3;
        b->single[k] = single;
        b->samples = k + 1;
    }
}

/* sim_step() with the controller step timed (sim and ctrl read no clocks). */
static void step_character(app_t *app, const input_frame_t *in, bool first_step_of_frame)
{
    ctrl_input_t ci;
    sim_begin_step(&app->sim, in, &ci);
    double t0 = platform_now_s();
    step_crowd(app, &ci);
    float ms = (float)((platform_now_s() - t0) * 1000.0);
    prof_add(&app->prof, PROF_CONTROLLER, ms);
    app->net_ms_last = ms;
    app->net_ms = app->net_ms > 0.0f ? app->net_ms + (ms - app->net_ms) * NET_MS_SMOOTHING : ms;
    app->sim.follow_on = app->crowd_follow > 0 && app->crowd_follow < crowd_count(app->crowd);
    if (app->sim.follow_on)
        crowd_root(app->crowd, app->crowd_follow, app->sim.follow);
    sim_end_step(&app->sim, in, first_step_of_frame, (float)LOOP_STEP_S);
    pose_dump_row(&app->dump, app->sim.step, app->ctrl, &app->sim.pose, &app->sim.stats);
}

static void run_steps(app_t *app, int steps, const input_frame_t *devices)
{
    for (int i = 0; i < steps; i++) {
        const script_event_t *ev;
        while (app->have_script && (ev = script_next_due(&app->script, app->sim.step)) != NULL) {
            if (ev->cmd == SCRIPT_QUIT) {
                /* A quit at time T means T seconds were simulated. */
                app->quit = true;
                return;
            } else if (ev->cmd == SCRIPT_PAD_AXIS || ev->cmd == SCRIPT_PAD_BUTTON)
                input_virtual_pad_drive(&app->input, ev);
            else if (ev->cmd == SCRIPT_SCREENSHOT)
                app->screenshot_requested = true; /* as F12 */
            else if (ev->cmd == SCRIPT_CHARACTER) {
                int k = (int)ev->a;
                if (k < app->character_count)
                    app->pending_character = k;
                else
                    log_warn("script: no character %d (the menu lists %d)", k, app->character_count);
            } else if (ev->cmd == SCRIPT_CROWD)
                app_crowd_resize(app, (int)ev->a);
            else
                script_apply(&app->script, ev);
        }
        input_frame_t merged = *devices;
        if (app->have_script)
            input_merge(devices, &app->script.held, &merged);
        if (app->settings.pause)
            ;
        else if (app->viewer_mode) {
            viewer_step(&app->viewer, &merged, i == 0, &app->level.terrain, (float)LOOP_STEP_S);
            /* The step count times scripts in the viewer too (a 'quit' line
             * ends the run there as in the game). */
            app->sim.step++;
        } else if (app->ctrl)
            step_character(app, &merged, i == 0);
        else
            sim_step(&app->sim, &merged, i == 0, (float)LOOP_STEP_S);
        loop_clock_step_done(&app->clock);
    }
}

static void render(app_t *app, int width, int height, bool last_frame)
{
    const app_options_t *opt = app->opt;
    /* Real-time runs draw between the last two steps; lockstep runs draw
     * the step just taken. */
    float alpha = app->lockstep ? 1.0f : loop_clock_alpha(&app->clock);
    if (alpha > 1.0f)
        alpha = 1.0f;
    sim_marker_t m;
    camera_t cam;
    sim_lerp_marker(&app->sim.prev_marker, &app->sim.marker, alpha, &m);
    if (app->viewer_mode)
        viewer_camera(&app->viewer, alpha, &cam);
    else
        camera_lerp(&app->sim.prev_camera, &app->sim.camera, alpha, &cam);
    /* The frame first: the crowd's CPU mode culls with its views. */
    gfx_frame_desc_t f;
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
    if (app->viewer_mode) {
        debug_lines_clear(&app->lines);
        double d0 = platform_now_s();
        if (!viewer_deform(&app->viewer)) {
            app->failed = true;
            app->quit = true;
        }
        prof_add(&app->prof, PROF_DEFORMATION, (float)((platform_now_s() - d0) * 1000.0));
    } else {
        sim_debug_lines(&app->sim, &m, app->ctrl_draw, &app->lines);
        if (app->ctrl) {
            double d0 = platform_now_s();
            if (!app_character_deform(app, alpha)) {
                app->failed = true;
                app->quit = true;
            }
            app_crowd_draw(app, alpha, &f);
            double ms = (platform_now_s() - d0) * 1000.0;
            prof_add(&app->prof, PROF_DEFORMATION, (float)ms);
            int k = opt->crowd_bench ? crowd_bench_sample(app) : -1;
            if (k >= 0) {
                opt->crowd_bench->deform_ms[k] = ms;
                opt->crowd_bench->cpu[k] = app->crowd_gfx &&
                                           gfx_crowd_get_stats(app->crowd_gfx)->deform == GFX_CROWD_DEFORM_CPU;
            }
        }
    }

    gfx_switch_bench_t *rb = opt->render_bench;
    int variant = rb ? (int)(app->frame_index % rb->count) : 0;
    if (rb)
        gfx_switch_bench_apply(&rb->variants[variant], app->fig ? app->fig->gfx : NULL);
    double t0 = platform_now_s();
    gfx_set_finish_timing(rb || opt->crowd_bench ? true : app->settings.finish_timing);
    gfx_render_frame(&f);
    double t1 = platform_now_s();
    int bk = opt->crowd_bench ? crowd_bench_sample(app) : -1;
    if (bk >= 0)
        opt->crowd_bench->render_ms[bk] = (t1 - t0) * 1000.0;
    prof_add(&app->prof, PROF_RENDER, (float)((t1 - t0) * 1000.0));
    if (rb && app->frame_index >= rb->warmup_frames && rb->samples[variant] < rb->capacity)
        rb->ms[variant][rb->samples[variant]++] = gfx_last_gpu_ms();
    if (rb && last_frame && !gfx_switch_bench_compare(rb, &f, app->fig ? app->fig->gfx : NULL))
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

static int app_loop(app_t *app)
{
    const app_options_t *opt = app->opt;
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
                app_viewer_switch(app, index);
            else
                app_character_switch(app, index);
            if (app->quit) {
                exit_code = EXIT_RUNTIME;
                break;
            }
        }
        if (app->pending_level >= 0) {
            int index = app->pending_level;
            app->pending_level = -1;
            if (!app_level_load(app, index, level_builtin_name(index)) && !app->level_loaded) {
                exit_code = EXIT_RUNTIME;
                break;
            }
        }
        if (app->platform.minimized && !lockstep) {
            platform_sleep_ms(MINIMIZED_SLEEP_MS);
            continue;
        }
        input_frame_t devices;
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
        const gfx_character_stats_t *cs = shown && shown->gfx ? gfx_character_get_stats(shown->gfx) : NULL;
        prof_set_gpu(&app->prof, PROF_GPU_CHARACTER, cs ? (float)cs->gpu_ms : -1.0f);
        prof_set_gpu(&app->prof, PROF_GPU_CHARACTER_DEFORM, cs && cs->gpu_ms >= 0.0 ? (float)cs->gpu_deform_ms : -1.0f);
        const gfx_crowd_stats_t *gs = app->crowd_gfx ? gfx_crowd_get_stats(app->crowd_gfx) : NULL;
        prof_set_gpu(&app->prof, PROF_GPU_CROWD, gs ? (float)gs->gpu_ms : -1.0f);
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
    if (exit_code == 0 && !app->failed && opt->screenshot && !app->screenshot_written && app->failed_outputs == 0) {
        log_error("%s: not written: the run ended without drawing a last frame (minimised window?)", opt->screenshot);
        app->failed_outputs++;
    }
    if (opt->report && !app_report_write(app, opt->report))
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

/* The state before anything is loaded: settings from the command line. */
static void app_defaults(app_t *app, const app_options_t *opt)
{
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
}

int app_run(const app_options_t *opt)
{
    app_t *app = &g_app;
    app_defaults(app, opt);
    int level_index = -1;
    int rc = app_scene_load_files(app, opt, &level_index);
    if (rc != 0)
        return rc;

    /* SDL drops gamepad input while no window has focus; a hidden window
     * never gets focus, so tests and benchmarks would see a dead pad. */
    if (opt->hidden || opt->virtual_gamepad)
        SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");

    int exit_code = EXIT_RUNTIME;
    platform_desc_t pd = {.title = "Strider",
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
    gfx_desc_t gd = {.line_vertices = APP_DEBUG_LINE_VERTICES};
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
    if (opt->virtual_gamepad && !input_virtual_pad_attach(&app->input))
        goto out_input;
    if (app_scene_load(app, opt, level_index))
        exit_code = app_loop(app);
    if (opt->crowd_bench)
        app_crowd_bench_finish(app, opt->crowd_bench);

    viewer_shutdown(&app->viewer);
    app_character_free(app);
    level_free(&app->level);
    gfx_level_free();
out_input:
    input_shutdown(&app->input);
    ui_shutdown();
out_gfx:
    gfx_shutdown();
out_platform:
    platform_shutdown(&app->platform);
out_script:
    if (app->have_script)
        script_free(&app->script);
    viewer_shutdown(&app->viewer);
    app_character_free(app);
    return exit_code;
}
