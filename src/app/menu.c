/* menu: the F1 debug menu, in C on top of the ui bridge. It reads the app
 * state and edits app->settings; the loop applies the settings. */
#include "app/app_state.h"
#include "render/gfx.h"
#include "ui/ui.h"

#include <math.h>
#include <stdio.h>

/* Partially sorts v (insertion sort; n <= PROF_HISTORY) and returns the
 * q-quantile. */
static float percentile(float *v, int n, float q)
{
    if (n == 0)
        return 0.0f;
    for (int i = 1; i < n; i++) {
        float x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
    int k = (int)(q * (float)(n - 1));
    return v[k];
}

static void draw_timings(app_t *app)
{
    static const float colors[PROF_STAGE_COUNT][3] = {
        {0.55f, 0.55f, 0.60f}, {0.30f, 0.70f, 0.95f}, {0.95f, 0.75f, 0.25f},
        {0.85f, 0.40f, 0.85f}, {0.35f, 0.85f, 0.45f}, {0.95f, 0.45f, 0.35f}};
    const prof_t *p = &app->prof;
    float frame_ms = prof_average_frame_ms(p);
    ui_text("frame %.2f ms (%.0f FPS), average of %d frames", (double)frame_ms,
            frame_ms > 0.0f ? 1000.0 / (double)frame_ms : 0.0, p->filled);
    for (int s = 0; s < PROF_STAGE_COUNT; s++)
        ui_text_colored(colors[s][0], colors[s][1], colors[s][2], "  %-12s %7.3f ms", prof_stage_name((prof_stage)s),
                        (double)prof_average_ms(p, (prof_stage)s));
    ui_text("  gpu (render) %6.3f ms  [%s]", gfx_last_gpu_ms(),
            app->settings.finish_timing ? "glFinish wall time" : "timer queries");

    /* Stacked per-stage history. The scale follows the 95th percentile of
     * frame totals, so one slow frame (shader compilation, a level load)
     * does not flatten the rest of the plot. */
    static float stacked[PROF_STAGE_COUNT * PROF_HISTORY];
    static float frame[PROF_HISTORY];
    static float sorted[PROF_HISTORY];
    int n = prof_history(p, PROF_STAGE_COUNT, frame);
    for (int s = 0; s < PROF_STAGE_COUNT; s++)
        prof_history(p, s, &stacked[s * n]);
    for (int i = 0; i < n; i++) {
        float sum = 0.0f;
        for (int s = 0; s < PROF_STAGE_COUNT; s++)
            sum += stacked[s * n + i];
        sorted[i] = sum;
    }
    float hi = fmaxf(1.0f, 1.2f * percentile(sorted, n, 0.95f));
    char title[64];
    snprintf(title, sizeof title, "stages per frame (top = %.1f ms)", (double)hi);
    ui_plot_stacked(title, stacked, PROF_STAGE_COUNT, n, hi, 70.0f, colors);
    for (int i = 0; i < n; i++)
        sorted[i] = frame[i];
    float frame_hi = fmaxf(1.0f, 1.2f * percentile(sorted, n, 0.95f));
    ui_plot_lines("##frame", frame, n, 0.0f, frame_hi, 40.0f, "frame time (ms)");
    ui_checkbox("GPU time by glFinish", &app->settings.finish_timing);
}

static void draw_levels(app_t *app)
{
    enum { MAX_LEVELS = 16 };
    const char *names[MAX_LEVELS];
    int count = level_builtin_count();
    if (count > MAX_LEVELS)
        count = MAX_LEVELS;
    for (int i = 0; i < count; i++)
        names[i] = level_builtin_name(i);
    int current = app->settings.level_index;
    if (ui_combo("level (keys 1-6)", &current, names, count) && current != app->settings.level_index)
        app->pending_level = current;
    ui_text("%s: %d crouch areas, %d jump areas, %d walls", app->level.title, app->level.crouch_count,
            app->level.jump_count, app->level.wall_count);
}

static void draw_render(app_t *app)
{
    app_settings *s = &app->settings;
    const gfx_info *gi = gfx_get_info();
    ui_text("%s", gi->renderer);
    ui_text("OpenGL %s, GLSL %s", gi->version, gi->glsl_version);
    ui_text("MSAA %dx, shadow map %d", gi->msaa_samples, gi->shadow_map_size);
    if (ui_checkbox("vsync (F2)", &s->vsync))
        platform_set_vsync(&app->platform, s->vsync);
    ui_same_line();
    if (ui_checkbox("fullscreen (F11)", &s->fullscreen))
        platform_set_fullscreen(&app->platform, s->fullscreen);
    ui_checkbox("wireframe (F3)", &s->wireframe);
    ui_checkbox_flags("terrain", &s->layers, GFX_LAYER_TERRAIN);
    ui_same_line();
    ui_checkbox_flags("grid", &s->layers, GFX_LAYER_GRID);
    ui_same_line();
    ui_checkbox_flags("fog", &s->layers, GFX_LAYER_FOG);
    ui_checkbox_flags("walls", &s->layers, GFX_LAYER_WALLS);
    ui_same_line();
    ui_checkbox_flags("areas", &s->layers, GFX_LAYER_AREAS);
    ui_same_line();
    ui_checkbox_flags("shadows", &s->layers, GFX_LAYER_SHADOWS);
    ui_checkbox_flags("marker", &s->layers, GFX_LAYER_MARKER);
    ui_same_line();
    ui_checkbox_flags("debug lines", &s->layers, GFX_LAYER_DEBUG_LINES);
    ui_slider_float("sun azimuth", &s->sun_azimuth_deg, -180.0f, 180.0f, "%.0f deg");
    ui_slider_float("sun elevation", &s->sun_elevation_deg, 5.0f, 89.0f, "%.0f deg");
}

static void draw_input(app_t *app)
{
    const sim_marker *m = &app->sim.marker;
    const intent_t *it = &app->sim.intent;
    const char *pad = input_active_pad_name(&app->input);
    ui_text("gamepads: %d%s%s", input_pad_count(&app->input), pad ? ", active: " : "", pad ? pad : "");
    ui_text("intent move (%.2f, %.2f) speed %.2f%s%s%s", (double)it->move_x, (double)it->move_z, (double)it->speed,
            it->strafe ? " strafe" : "", it->crouch ? " crouch" : "", it->jump ? " jump" : "");
    ui_text("marker (%.0f, %.0f, %.0f) cm, heading %.0f deg", (double)m->pos[0], (double)m->pos[1], (double)m->pos[2],
            (double)(m->heading_rad * 57.29578f));
    ui_text("step %llu", (unsigned long long)app->sim.step);
    ui_checkbox("pause simulation", &app->settings.pause);
}

void menu_draw(app_t *app)
{
    if (!ui_begin("Strider (F1)", &app->settings.show_menu, 10.0f, 10.0f, 380.0f, 560.0f)) {
        ui_end();
        return;
    }
    if (ui_header("Frame timings", true))
        draw_timings(app);
    if (ui_header("Level", true))
        draw_levels(app);
    if (ui_header("Rendering", true))
        draw_render(app);
    if (ui_header("Input and simulation", false))
        draw_input(app);
    ui_end();
}
