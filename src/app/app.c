#include "app/app.h"

#include "app/app_state.h"
#include "core/log.h"
#include "core/paths.h"
#include "render/gfx.h"
#include "ui/ui.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG2RAD 0.017453292519943295f
/* While minimised, poll at about this rate instead of spinning. */
#define MINIMIZED_SLEEP_MS 50

/* app_t holds the debug-line storage and the level; too big for the stack. */
static app_t g_app;

/* The viewer's stage: flat ground, no walls (not one of the game levels). */
#define VIEWER_LEVEL "assets/levels/viewer.lvl"

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
        if (ev->index == SDL_CONTROLLER_AXIS_TRIGGERLEFT || ev->index == SDL_CONTROLLER_AXIS_TRIGGERRIGHT)
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

/* Simulation-side debug drawing: where the player asks to go, and where the
 * marker is actually going. */
static void build_debug_lines(app_t *app, const sim_marker *m)
{
    debug_lines_clear(&app->lines);
    const intent_t *it = &app->sim.intent;
    float base[3] = {m->pos[0], m->pos[1] + 5.0f, m->pos[2]};
    float want[3] = {base[0] + it->move_x * 120.0f, base[1], base[2] + it->move_z * 120.0f};
    float vel[3] = {base[0] + m->vel[0] * 0.5f, base[1] + 2.0f, base[2] + m->vel[1] * 0.5f};
    debug_lines_add(&app->lines, base, want, DEBUG_RGBA(255, 220, 60, 255));
    debug_lines_add(&app->lines, base, vel, DEBUG_RGBA(60, 200, 255, 255));
}

static void sun_direction(const app_settings *s, float out[3])
{
    float az = s->sun_azimuth_deg * DEG2RAD, el = s->sun_elevation_deg * DEG2RAD;
    out[0] = sinf(az) * cosf(el);
    out[1] = sinf(el);
    out[2] = cosf(az) * cosf(el);
}

static void write_report(const app_t *app, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        log_error("%s: cannot write the report", path);
        return;
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
            "  \"gamepads\": %d,\n  \"active_gamepad\": \"%s\"\n}\n",
            app->level.name, app->frame_index, (unsigned long long)app->sim.step, (double)m->pos[0],
            (double)m->pos[1], (double)m->pos[2], (double)(m->heading_rad / DEG2RAD), (double)m->height_cm,
            m->airborne ? "true" : "false", (double)(c->yaw_rad / DEG2RAD), (double)(c->pitch_rad / DEG2RAD),
            (double)c->distance_cm, (double)c->eye[1],
            (double)terrain_height(&app->level.terrain, c->eye[0], c->eye[2]), input_pad_count(&app->input),
            pad ? pad : "");
    if (fclose(f) != 0)
        log_error("%s: write failed", path);
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
            else
                script_apply(&app->script, ev);
        }
        input_frame merged = *devices;
        if (app->have_script)
            input_merge(devices, &app->script.held, &merged);
        if (app->settings.pause)
            ;
        else if (app->viewer_mode)
            viewer_step(&app->viewer, &merged, i == 0, &app->level.terrain, (float)LOOP_STEP_S);
        else
            sim_step(&app->sim, &merged, i == 0, (float)LOOP_STEP_S);
        loop_clock_step_done(&app->clock);
    }
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
        if (!viewer_deform(&app->viewer))
            app->quit = true;
        prof_add(&app->prof, PROF_DEFORMATION, (float)((platform_now_s() - d0) * 1000.0));
    } else {
        camera_lerp(&app->sim.prev_camera, &app->sim.camera, alpha, &cam);
        build_debug_lines(app, &m);
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

    double t0 = platform_now_s();
    gfx_set_finish_timing(app->settings.finish_timing);
    gfx_render_frame(&f);
    double t1 = platform_now_s();
    prof_add(&app->prof, PROF_RENDER, (float)((t1 - t0) * 1000.0));

    if (app->settings.show_menu) {
        ui_new_frame();
        menu_draw(app);
        ui_render();
    }
    prof_add(&app->prof, PROF_UI, (float)((platform_now_s() - t1) * 1000.0));

    if (last_frame && opt->screenshot) {
        if (!gfx_screenshot_png(opt->screenshot, width, height))
            app->quit = true;
        else
            log_info("wrote %s (%dx%d)", opt->screenshot, width, height);
    }
    if (app->screenshot_requested) {
        char name[64];
        snprintf(name, sizeof name, "strider-%06ld.png", app->frame_index);
        if (gfx_screenshot_png(name, width, height))
            log_info("wrote %s", name);
        app->screenshot_requested = false;
    }
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
        run_steps(app, steps, &devices);
        prof_add(&app->prof, PROF_SIMULATION, (float)((platform_now_s() - t_input) * 1000.0));

        int w, h;
        platform_drawable_size(&app->platform, &w, &h);
        bool last_frame = (opt->frames > 0 && app->frame_index + 1 >= opt->frames) ||
                          (app->quit && opt->script != NULL);
        if (w > 0 && h > 0)
            render(app, w, h, last_frame);
        platform_swap(&app->platform);

        app->frame_index++;
        prof_end_frame(&app->prof, (float)(frame_s * 1000.0));
        if (last_frame)
            break;
    }
    if (opt->report)
        write_report(app, opt->report);
    return exit_code;
}

int app_run(const app_options *opt)
{
    app_t *app = &g_app;
    memset(app, 0, sizeof *app);
    app->opt = opt;
    app->pending_level = -1;
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

    app->viewer_mode = opt->view != NULL;
    if (app->viewer_mode) {
        /* Files first: bad input fails before any window opens. */
        int rc = viewer_load(&app->viewer, opt);
        if (rc != 0) {
            viewer_shutdown(&app->viewer);
            return rc;
        }
        app->settings.layers &= ~(unsigned)(GFX_LAYER_WALLS | GFX_LAYER_AREAS | GFX_LAYER_MARKER |
                                             GFX_LAYER_DEBUG_LINES);
    }
    const char *level_name = opt->level ? opt->level : level_builtin_name(0);
    int level_index = level_index_for_name(level_name);
    if (level_index < 0 && !app->viewer_mode) {
        fprintf(stderr, "strider: unknown level '%s'; valid:", level_name);
        for (int i = 0; i < level_builtin_count(); i++)
            fprintf(stderr, " %s", level_builtin_name(i));
        fputc('\n', stderr);
        return EXIT_USAGE;
    }
    if (opt->script) {
        if (!script_load(&app->script, opt->script)) {
            viewer_shutdown(&app->viewer);
            return EXIT_RUNTIME;
        }
        app->have_script = true;
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
    gfx_desc gd = {0};
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
    } else if (!load_level(app, level_index, level_name))
        goto out_input;

    exit_code = app_loop(app);

out_level:
    viewer_shutdown(&app->viewer);
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
    return exit_code;
}
