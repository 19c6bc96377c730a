/* menu: the F1 debug menu, in C on top of the ui bridge. It reads the app
 * state and edits app->settings; the loop applies the settings. */
#include "app/app_state.h"
#include "render/gfx_crowd.h"
#include "core/stats.h"
#include "render/gfx.h"
#include "ui/ui.h"

#include <math.h>
#include <stdio.h>

/* The nearest-rank Q-percentile of the N values V (sorts them). */
static float percentile(float *v, int n, float q)
{
    stats_sort_f(v, n);
    return stats_percentile(v, n, q);
}

static void draw_timings(app_t *app)
{
    static const float colors[PROF_STAGE_COUNT][3] = {
        {0.55f, 0.55f, 0.60f}, {0.30f, 0.70f, 0.95f}, {0.95f, 0.75f, 0.25f}, {0.85f, 0.40f, 0.85f},
        {0.35f, 0.85f, 0.45f}, {0.95f, 0.45f, 0.35f}, {0.75f, 0.75f, 0.75f}};
    const prof_t *p = &app->prof;
    float frame_ms = prof_average_frame_ms(p);
    ui_text("frame %.2f ms (%.0f FPS), average of %d frames", (double)frame_ms,
            frame_ms > 0.0f ? 1000.0 / (double)frame_ms : 0.0, p->filled);
    for (int s = 0; s < PROF_STAGE_COUNT; s++)
        ui_text_colored(colors[s][0], colors[s][1], colors[s][2], "  %-12s %7.3f ms", prof_stage_name((prof_stage_t)s),
                        (double)prof_average_ms(p, (prof_stage_t)s));
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
    app_settings_t *s = &app->settings;
    const gfx_info_t *gi = gfx_get_info();
    ui_text("%s", gi->renderer);
    ui_text("OpenGL %s, GLSL %s", gi->version, gi->glsl_version);
    ui_text("MSAA %dx, shadow map %d, %s", gi->msaa_samples, gi->shadow_map_size,
            gi->direct ? "drawn in the window" : "drawn off screen, copied");
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
    const sim_marker_t *m = &app->sim.marker;
    const ctrl_input_t *it = &app->sim.intent;
    const char *pad = input_active_pad_name(&app->input);
    ui_text("gamepads: %d%s%s", input_pad_count(&app->input), pad ? ", active: " : "", pad ? pad : "");
    ui_text("intent move (%.2f, %.2f) speed %.2f%s%s%s", (double)it->move_x, (double)it->move_z, (double)it->speed,
            it->strafe ? " strafe" : "", it->crouch ? " crouch" : "", it->jump ? " jump" : "");
    ui_text("%s (%.0f, %.0f, %.0f) cm, heading %.0f deg", app->ctrl ? "root" : "marker", (double)m->pos[0],
            (double)m->pos[1], (double)m->pos[2], (double)(m->heading_rad * 57.29578f));
    ui_text("step %llu", (unsigned long long)app->sim.step);
    ui_checkbox("pause simulation", &app->settings.pause);
}

/* Skinning method, influence truncation and the live CPU <-> GPU switch of
 * F (shared by the viewer panel and the game's Character section). */
static void skin_controls(figure_t *f)
{
    static const char *const methods[] = {"LBS (blend points)", "LBS (blend matrices)", "dual quaternions"};
    ui_combo("skinning", &f->method, methods, 3);
    ui_slider_int("influences", &f->influences, 1, SKIN_MAX_INFLUENCES);
    bool gpu_ok = f->gfx && gfx_character_gpu_supported(f->gfx);
    if (gpu_ok) {
        ui_checkbox("skin on the GPU", &f->gpu_skin);
        if (f->gpu_skin) {
            ui_same_line();
            ui_checkbox("blend shapes too", &f->gpu_morph);
            /* Off: the shadow and main passes each deform in their shader. */
            ui_checkbox("skin once (compute pass)", &f->skin_once);
        }
    } else {
        ui_text("skin on the GPU: not available (GL limits)");
    }
    if (!f->gpu_skin) {
        /* Cebenoyan's hybrid: CPU keys every N frames, the GPU blends. */
        ui_slider_int("hybrid: key every N (0 off)", &f->hybrid_every, 0, FIGURE_HYBRID_MAX);
        if (f->hybrid_every > 0)
            ui_text("  shows the pose %d frame(s) back, t %.2f", f->hybrid_every - 1, (double)f->hybrid_t);
    }
    if (f->gfx) {
        const gfx_character_stats_t *st = gfx_character_get_stats(f->gfx);
        ui_text("blend deltas %.1f MB on the GPU, %u morphing draws", (double)st->delta_bytes / (1024.0 * 1024.0),
                st->morph_draws);
        ui_text("skin-once passes %llu, hybrid keys %llu", (unsigned long long)st->feedback_passes,
                (unsigned long long)st->keys_written);
        ui_text("main pass %s the fog (the figure %s its start)", st->fog_free ? "without" : "with",
                st->fog_free ? "wholly before" : "not known before");
        ui_text("triangles sent: shadow %u, main %u (%u and %u cover no sample centre: left out)",
                st->triangles_drawn[0], st->triangles_drawn[1], st->triangles_culled[0], st->triangles_culled[1]);
    }
}

/* The characters found at start; picking one switches at the next frame. */
static void character_combo(app_t *app)
{
    const char *names[APP_MAX_CHARACTERS];
    for (int i = 0; i < app->character_count; i++)
        names[i] = app->character_name[i];
    int current = app->character_index;
    if (ui_combo("character", &current, names, app->character_count) && current != app->character_index)
        app->pending_character = current;
    if (app->character_status[0])
        ui_text("%s", app->character_status);
}

static void draw_character(app_t *app)
{
    viewer_t *v = &app->viewer;
    character_combo(app);
    const chr_character_t *c = &v->fig.chr;
    if (v->fig.gfx) {
        const gfx_character_stats_t *st = gfx_character_get_stats(v->fig.gfx);
        ui_text("%u vertices, %u triangles, %d joints, %u meshes", st->vertex_count, st->triangle_count,
                c->skel.joint_count, c->mesh_count);
        ui_text("stream %.1f KB x %d slots, %llu fence waits (last %.2f ms)", st->stream_bytes / 1024.0,
                GFX_CHARACTER_SLOTS, (unsigned long long)st->fence_waits, st->last_wait_ms);
    }
    ui_checkbox("character", &v->fig.show);
    ui_same_line();
    ui_checkbox("auto-orbit", &v->auto_orbit);
    skin_controls(&v->fig);
    ui_checkbox("dense blend shapes", &v->fig.dense);
    ui_same_line();
    ui_checkbox("correctives", &v->fig.correctives);
    for (uint32_t k = 0; k < c->corrective_count; k++)
        ui_text("  %-16s %.2f", c->correctives[k].name, (double)v->fig.corrective_weight[k]);
    if (v->have_bvh) {
        ui_separator();
        ui_text("clip: %d frames at %.1f fps", v->bvh.frame_count,
                v->bvh.frame_time_s > 0.0f ? 1.0 / (double)v->bvh.frame_time_s : 0.0);
        ui_checkbox("play", &v->playing);
        int frame = v->frame;
        if (ui_slider_int("frame", &frame, 0, v->bvh.frame_count - 1))
            viewer_set_frame(v, frame);
    }
}

/* The vertex-animated clip (tweened into the head's bind pose) and the
 * expression curve driving shape weights: play/pause, time, tween mode. */
static void draw_facial(app_t *app)
{
    static const char *const modes[TWEEN_MODE_COUNT] = {"linear (Gosselin)", "Hermite (Cebenoyan)"};
    viewer_t *v = &app->viewer;
    viewer_vclip_t *vc = &v->vclip;
    if (vc->loaded) {
        const clip_t *c = &vc->clip;
        ui_text("vertex clip %s: mesh '%s', %u of %u vertices", vc->name, c->mesh, c->vertex_count,
                c->mesh_vertex_count);
        ui_text("  %u keys (sampled at %.0f fps), %.2f s %s", c->key_count, (double)c->fps, (double)c->duration_s,
                (c->flags & CLIP_LOOP) ? "loop" : "clamped");
        ui_checkbox("tween the clip", &vc->on);
        ui_same_line();
        if (ui_button(vc->playing ? "Pause##clip" : "Play##clip")) {
            vc->playing = !vc->playing;
            vc->on = vc->on || vc->playing;
        }
        ui_combo("tween", &vc->mode, modes, TWEEN_MODE_COUNT);
        float t = (float)vc->time_s;
        if (ui_slider_float("clip time", &t, 0.0f, c->duration_s, "%.2f s")) {
            vc->time_s = t;
            vc->on = true;
        }
    } else {
        ui_text("no vertex clip (--clip FILE.vac)");
    }
    ui_separator();
    enum { MAX_CURVES = 8 };
    const char *names[MAX_CURVES];
    int count = excurve_builtin_count();
    if (count > MAX_CURVES)
        count = MAX_CURVES;
    for (int i = 0; i < count; i++)
        names[i] = excurve_builtin(i)->name;
    viewer_curve_t *cv = &v->curve;
    int current = cv->index;
    if (ui_combo("expression curve", &current, names, count) && current != cv->index) {
        viewer_set_curve(v, current);
        viewer_set_curve_time(v, 0.0);
    }
    if (!cv->clip)
        return;
    if (ui_button(cv->playing ? "Pause##curve" : "Play##curve"))
        cv->playing = !cv->playing;
    ui_same_line();
    float t = (float)cv->time_s;
    if (ui_slider_float("curve time", &t, 0.0f, cv->clip->duration_s, "%.2f s"))
        viewer_set_curve_time(v, t);
    char driven[256];
    int n = 0;
    driven[0] = 0;
    for (int k = 0; k < cv->clip->track_count && n < (int)sizeof driven; k++)
        if (cv->terms[k] > 0)
            n += snprintf(driven + n, sizeof driven - (size_t)n, "%s%s", n ? ", " : "", cv->clip->tracks[k].shape);
    ui_text("drives %s", driven);
}

/* A slider for every blend shape, two per row, grouped by category; the
 * shape's short name is written inside its slider. Shapes the playing
 * expression curve drives are shown disabled (read-only). */
static void draw_shapes(app_t *app)
{
    viewer_t *v = &app->viewer;
    const chr_character_t *c = &v->fig.chr;
    static const char *const category_names[CHR_SHAPE_CATEGORY_COUNT] = {"emotions", "modifiers", "extra"};
    int locked_count = 0;
    for (uint32_t s = 0; s < c->shape_count; s++)
        locked_count += viewer_shape_locked(v, s);
    if (locked_count > 0)
        ui_text("active shapes: %d of %u (%d locked: the curve plays)", v->fig.active_shapes, c->shape_count,
                locked_count);
    else
        ui_text("active shapes: %d of %u", v->fig.active_shapes, c->shape_count);
    ui_same_line();
    if (ui_button("reset all"))
        viewer_reset_shapes(v);
    if (ui_button("Bake"))
        viewer_request_bake(v);
    ui_same_line();
    ui_text("%s", v->bake_status[0] ? v->bake_status : v->bake_path);
    for (int cat = 0; cat < CHR_SHAPE_CATEGORY_COUNT; cat++) {
        int in_row = 0;
        bool opened = false;
        for (uint32_t s = 0; s < c->shape_count; s++) {
            if (c->shapes[s].category != (uint32_t)cat)
                continue;
            if (!opened) {
                opened = true;
                ui_separator();
                ui_text_colored(0.95f, 0.8f, 0.45f, "%s", category_names[cat]);
                ui_same_line();
                char label[32];
                snprintf(label, sizeof label, "reset##%d", cat);
                if (ui_button(label))
                    for (uint32_t p = 0; p < c->shape_count; p++)
                        if (c->shapes[p].category == (uint32_t)cat)
                            v->fig.shape_weight[p] = 0.0f;
            }
            if (in_row == 1)
                ui_same_line();
            char label[24], fmt[CHR_NAME_MAX + 8];
            snprintf(label, sizeof label, "##shape%u", s);
            snprintf(fmt, sizeof fmt, "%s %%.2f", c->shapes[s].name);
            /* Two equal columns: the left takes half minus the item spacing. */
            ui_push_item_width(in_row == 0 ? ui_content_width() * 0.5f - 4.0f : ui_content_width());
            bool locked = viewer_shape_locked(v, s);
            ui_begin_disabled(locked);
            ui_slider_float(label, &v->fig.shape_weight[s], 0.0f, 1.0f, fmt);
            ui_end_disabled();
            ui_pop_item_width();
            in_row = (in_row + 1) % 2;
        }
    }
}

/* A gait weight as a text bar of BAR_CELLS cells plus its number. */
static void gait_bar(const char *name, float w)
{
    enum { BAR_CELLS = 20 };
    char bar[BAR_CELLS + 1];
    int filled = (int)lrintf(fminf(fmaxf(w, 0.0f), 1.0f) * BAR_CELLS);
    for (int i = 0; i < BAR_CELLS; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_CELLS] = '\0';
    ui_text("  %-7s %s %.2f", name, bar, (double)w);
}

/* The game's PFNN character: controller settings and numbers. */
static void draw_game_character(app_t *app)
{
    static const char *const modes[PFNN_PHASE_MODE_COUNT] = {"constant (50 slices)", "linear (10 slices)",
                                                             "cubic (exact)"};
    static const char *const gaits[CTRL_GAITS - 1] = {"stand", "walk", "run", "crouch", "jump"};
    ctrl_t *c = app->ctrl;
    const ctrl_stats_t *st = &app->sim.stats;
    character_combo(app);
    const figure_rig_t *rig = &app->fig->rig;
    if (!rig->identity)
        ui_text("retargeted (%s): legs %.0f cm, %.2fx the controller's", rig->map.how, (double)rig->rt.dst_leg_cm,
                (double)rig->rt.scale);
    int mode = (int)ctrl_get_mode(c);
    if (ui_combo("phase mode", &mode, modes, PFNN_PHASE_MODE_COUNT)) {
        /* A mode is built when picked (a menu choice, not a per-frame cost;
         * released control points are read from the file again) and every
         * other is freed: the game holds only the mode it runs. */
        if (pfnn_prepare_mode(&app->net, (pfnn_mode_t)mode)) {
            crowd_set_mode(app->crowd, (pfnn_mode_t)mode); /* the player's controller is its member 0 */
            for (int m = 0; m < PFNN_PHASE_MODE_COUNT; m++)
                if (m != mode)
                    pfnn_release_mode(&app->net, (pfnn_mode_t)m);
        }
    }
    bool ik = ctrl_get_ik(c);
    if (ui_checkbox("foot IK", &ik))
        crowd_set_ik(app->crowd, ik);
    ui_same_line();
    ui_checkbox("draw character", &app->fig->show);
    ui_text("network step %.3f ms (last %.3f ms)", (double)app->net_ms, (double)app->net_ms_last);
    ui_text("phase %.2f rad (%.0f%%)", (double)st->phase_rad, (double)(st->phase_rad * 100.0f / 6.2831853f));
    for (int g = 0; g < CTRL_GAITS - 1; g++)
        gait_bar(gaits[g], st->gait[g]);
    ui_text("speed %.0f cm/s, head %.0f cm, hip %.0f cm", (double)st->root_speed_cm_s, (double)st->head_height_cm,
            (double)st->hip_height_cm);
    ui_text("contacts L %s%s R %s%s", st->contact[0] ? "heel " : "", st->contact[1] ? "toe" : "",
            st->contact[2] ? "heel " : "", st->contact[3] ? "toe" : "");
    ui_text("NaN resets %d, wall blocks %d, blinks %u", st->nan_resets, st->wall_blocks, app->sim.face.blinks);
    ui_checkbox_flags("trajectory", &app->ctrl_draw, CTRL_DRAW_TRAJECTORY);
    ui_same_line();
    ui_checkbox_flags("contacts", &app->ctrl_draw, CTRL_DRAW_CONTACTS);
    ui_same_line();
    ui_checkbox_flags("joints", &app->ctrl_draw, CTRL_DRAW_JOINTS);
    skin_controls(app->fig);
}

/* The crowd: how many (the player's one of them), whom the camera
 * follows, and what the step and the draw cost. */
static void draw_crowd(app_t *app)
{
    crowd_t *cr = app->crowd;
    int n = crowd_count(cr);
    if (ui_slider_int("characters", &n, 1, crowd_max_count(cr)) && n != crowd_count(cr))
        app_crowd_resize(app, n);
    int last = crowd_count(cr) - 1;
    if (app->crowd_follow > last)
        app->crowd_follow = 0;
    if (last > 0)
        ui_slider_int("camera follows (0: you)", &app->crowd_follow, 0, last);
    const crowd_stats_t *st = crowd_stats(cr);
    ui_text("%d characters on %d threads, %.1f KB each", crowd_count(cr), crowd_threads(cr),
            (double)crowd_member_bytes(cr) / 1024.0);
    ui_text("closest capsules %.1f cm apart (ever %.1f), overlaps %llu", (double)st->min_gap_cm,
            (double)st->min_gap_ever_cm, (unsigned long long)st->overlap_steps);
    ui_text("step (all characters) %.3f ms", (double)app->net_ms);
    if (app->crowd_gfx) {
        const gfx_crowd_stats_t *gs = gfx_crowd_get_stats(app->crowd_gfx);
        ui_text("drawn %d (shadow %d), culled %d; LOD %d / %d / %d", gs->drawn[GFX_CROWD_PASS_MAIN],
                gs->drawn[GFX_CROWD_PASS_SHADOW], gs->culled[GFX_CROWD_PASS_MAIN], gs->lod[GFX_CROWD_PASS_MAIN][0],
                gs->lod[GFX_CROWD_PASS_MAIN][1], gs->lod[GFX_CROWD_PASS_MAIN][2]);
        ui_text("crowd GPU %.3f ms", gs->gpu_ms);
        /* Next to the player's skinning switch: the others' deformation. */
        bool cpu = app->crowd_cpu;
        if (gfx_crowd_cpu_supported(app->crowd_gfx) && ui_checkbox("skin the others on the CPU", &cpu))
            app_crowd_set_cpu(app, cpu);
        if (gs->deform == GFX_CROWD_DEFORM_CPU)
            ui_text("CPU: %d in view, %d shadows only, %llu vertices, %.1f of %.1f MB", gs->cpu_lit,
                    gs->cpu_shadow_only, (unsigned long long)gs->cpu_vertices, (double)gs->cpu_bytes_used / 1048576.0,
                    (double)gs->cpu_slot_bytes / 1048576.0);
        if (gs->cpu_triangles[GFX_CROWD_PASS_MAIN] + gs->cpu_triangles[GFX_CROWD_PASS_SHADOW] > 0)
            ui_text("sample cull (software rasteriser): %llu of %llu triangles, shadow %llu of %llu",
                    (unsigned long long)gs->cpu_triangles_kept[GFX_CROWD_PASS_MAIN],
                    (unsigned long long)gs->cpu_triangles[GFX_CROWD_PASS_MAIN],
                    (unsigned long long)gs->cpu_triangles_kept[GFX_CROWD_PASS_SHADOW],
                    (unsigned long long)gs->cpu_triangles[GFX_CROWD_PASS_SHADOW]);
        if (gs->cpu_overflow_frames > 0)
            ui_text("frames that did not fit (GPU-skinned): %llu", (unsigned long long)gs->cpu_overflow_frames);
    }
}

void menu_draw(app_t *app)
{
    if (!ui_begin("Strider (F1)", &app->settings.show_menu, 10.0f, 10.0f, app->viewer_mode ? 460.0f : 380.0f,
                  app->viewer_mode ? 690.0f : 640.0f)) {
        ui_end();
        return;
    }
    if (ui_header("Frame timings", !app->viewer_mode))
        draw_timings(app);
    if (app->viewer_mode) {
        if (ui_header("Character", true))
            draw_character(app);
        if (ui_header("Facial animation", true))
            draw_facial(app);
        if (ui_header("Blend shapes", true))
            draw_shapes(app);
        if (ui_header("Rendering", false))
            draw_render(app);
        ui_end();
        return;
    }
    if (ui_header("Level", true))
        draw_levels(app);
    if (app->ctrl && ui_header("Character", true))
        draw_game_character(app);
    if (app->crowd && ui_header("Crowd", app->crowd_wanted > 1))
        draw_crowd(app);
    if (ui_header("Rendering", true))
        draw_render(app);
    if (ui_header("Input and simulation", false))
        draw_input(app);
    ui_end();
}
