/* app_report.c: `strider --report FILE`, the run's outcome as JSON: the
 * level, the marker and camera, the gamepads, the controller's state, the
 * shown character's feet and head (game/feet_stats.h), the deformation
 * settings as the last frame used them, and the profiler's medians.
 * Internal to src/app (declared in app_state.h).
 */
/* open_memstream is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "app/app_state.h"
#include "core/file.h"
#include "core/log.h"
#include "core/stats.h"
#include "render/gfx.h"
#include "render/gfx_crowd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define DEG2RAD 0.017453292519943295f

/* Median of the N values V (sorts them); 0 with none. */
static double median_of(float *v, int n)
{
    if (n == 0)
        return 0.0;
    stats_sort_f(v, n);
    return stats_median_f(v, n);
}

static double median_ms(const prof_t *p, int stage)
{
    float v[PROF_HISTORY];
    return median_of(v, prof_history(p, stage, v));
}

/* Median of a GPU time over the frames that knew it; -1 if none did. */
static double median_gpu_ms(const prof_t *p, prof_gpu_t which)
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
        const gfx_character_stats_t *st = gfx_character_get_stats(fig->gfx);
        fprintf(f,
                ",\n  \"figure\": {\"gpu_skin\": %s, \"gpu_morph\": %s, \"morph_on_gpu\": %s, \"skin_once\": %s, "
                "\"hybrid_every\": %d, \"method\": %d, \"morph_draws\": %u, \"fog_free\": %s, \"deforms\": %llu, "
                "\"triangles_drawn\": [%u, %u], \"triangles_culled\": [%u, %u]}",
                fig->gpu_skin ? "true" : "false", fig->gpu_morph ? "true" : "false",
                fig->morph_on_gpu ? "true" : "false", fig->skin_once ? "true" : "false", fig->hybrid_every, fig->method,
                st->morph_draws, st->fog_free ? "true" : "false", (unsigned long long)fig->deform_count,
                st->triangles_drawn[0], st->triangles_drawn[1], st->triangles_culled[0], st->triangles_culled[1]);
    }
    /* Every stage's median (each its own median: they need not add up to
     * the frame's), named by prof_stage_name(), but the deformation's key
     * is the shorter one it always had. */
    fprintf(f, ",\n  \"timings\": {\"frames\": %d, \"frame_ms_median\": %.3f", app->prof.filled,
            median_ms(&app->prof, PROF_STAGE_COUNT));
    for (int s = 0; s < PROF_STAGE_COUNT; s++) {
        const char *name = s == PROF_DEFORMATION ? "deform" : prof_stage_name((prof_stage_t)s);
        fprintf(f, ", \"%s_ms_median\": %.3f", name, median_ms(&app->prof, s));
    }
    /* GPU timer queries (-1: none came back); on llvmpipe they have read
     * nonsense (render/gfx_timer.h), on a GPU they are the GPU's own clock. */
    fprintf(
        f,
        ", \"gpu_frame_ms_median\": %.3f, \"gpu_character_ms_median\": %.3f, \"gpu_character_deform_ms_median\": %.3f, "
        "\"gpu_crowd_ms_median\": %.3f",
        median_gpu_ms(&app->prof, PROF_GPU_FRAME), median_gpu_ms(&app->prof, PROF_GPU_CHARACTER),
        median_gpu_ms(&app->prof, PROF_GPU_CHARACTER_DEFORM), median_gpu_ms(&app->prof, PROF_GPU_CROWD));
    fputc('}', f);
    /* Like the timings, a measurement of this machine (and of its GL driver). */
    fprintf(f, ",\n  \"resources\": {\"peak_rss_mib\": %.1f}", (double)platform_peak_rss_bytes() / (1024.0 * 1024.0));
}

/* A crowd of more than the player: its size, seed, closest capsules, and
 * a digest of every member's root (FNV-1a over the floats' bytes): two runs
 * that agree on it moved every member alike. */
static void write_report_crowd(const app_t *app, FILE *f)
{
    if (!app->crowd || crowd_count(app->crowd) < 2)
        return;
    const crowd_stats_t *st = crowd_stats(app->crowd);
    uint32_t h = 2166136261u;
    for (int i = 0; i < crowd_count(app->crowd); i++) {
        float r[3];
        crowd_root(app->crowd, i, r);
        const unsigned char *b = (const unsigned char *)r;
        for (size_t k = 0; k < sizeof r; k++)
            h = (h ^ b[k]) * 16777619u;
    }
    fprintf(f,
            ",\n  \"crowd\": {\"members\": %d, \"seed\": %u, \"steps\": %llu, \"min_gap_cm\": %.3f, "
            "\"overlap_steps\": %llu, \"spawn_shortfall\": %d, \"roots_fnv1a\": \"%08x\"",
            crowd_count(app->crowd), app_crowd_seed(app), (unsigned long long)st->steps, (double)st->min_gap_ever_cm,
            (unsigned long long)st->overlap_steps, st->spawn_shortfall, h);
    if (app->crowd_gfx) {
        /* The last frame's draws: members by pass and level of detail. */
        const gfx_crowd_stats_t *gs = gfx_crowd_get_stats(app->crowd_gfx);
        const int *m = gs->lod[GFX_CROWD_PASS_MAIN], *s = gs->lod[GFX_CROWD_PASS_SHADOW];
        _Static_assert(GFX_CROWD_LODS == 3, "three levels written");
        fprintf(f, ", \"drawn_by_lod\": {\"main\": [%d, %d, %d], \"shadow\": [%d, %d, %d]}", m[0], m[1], m[2], s[0],
                s[1], s[2]);
        /* The last update's deformation; CPU: members skinned in view and
         * for the shadow only, and frames that did not fit (GPU instead). */
        fprintf(f,
                ", \"deform\": \"%s\", \"cpu_lit\": %d, \"cpu_shadow_only\": %d, \"cpu_vertices\": %llu, "
                "\"cpu_overflow_frames\": %llu",
                gs->deform == GFX_CROWD_DEFORM_CPU ? "cpu" : "gpu", gs->cpu_lit, gs->cpu_shadow_only,
                (unsigned long long)gs->cpu_vertices, (unsigned long long)gs->cpu_overflow_frames);
        /* CPU mode on a software rasteriser: the triangles the sample cull
         * kept of the members', per pass ([main, shadow]; zeros: not culled). */
        const uint64_t *tk = gs->cpu_triangles_kept, *ta = gs->cpu_triangles;
        fprintf(f, ", \"cpu_triangles_kept\": [%llu, %llu], \"cpu_triangles\": [%llu, %llu]",
                (unsigned long long)tk[GFX_CROWD_PASS_MAIN], (unsigned long long)tk[GFX_CROWD_PASS_SHADOW],
                (unsigned long long)ta[GFX_CROWD_PASS_MAIN], (unsigned long long)ta[GFX_CROWD_PASS_SHADOW]);
    }
    fputc('}', f);
}

bool app_report_write(const app_t *app, const char *path)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) {
        log_error("%s: out of memory for the report", path);
        return false;
    }
    const sim_marker_t *m = &app->sim.marker;
    const camera_t *c = &app->sim.camera;
    const char *pad = input_active_pad_name(&app->input);
    fprintf(f,
            "{\n  \"level\": \"%s\",\n  \"frames\": %ld,\n  \"steps\": %llu,\n"
            "  \"marker\": {\"x\": %.3f, \"y\": %.3f, \"z\": %.3f, \"heading_deg\": %.3f, \"height_cm\": %.3f, "
            "\"airborne\": %s},\n"
            "  \"camera\": {\"yaw_deg\": %.3f, \"pitch_deg\": %.3f, \"distance_cm\": %.3f, \"eye_y\": %.3f, "
            "\"ground_y\": %.3f},\n"
            "  \"gamepads\": %d,\n  \"active_gamepad\": \"%s\"",
            app->level.name, app->frame_index, (unsigned long long)app->sim.step, (double)m->pos[0], (double)m->pos[1],
            (double)m->pos[2], (double)(m->heading_rad / DEG2RAD), (double)m->height_cm, m->airborne ? "true" : "false",
            (double)(c->yaw_rad / DEG2RAD), (double)(c->pitch_rad / DEG2RAD), (double)c->distance_cm, (double)c->eye[1],
            (double)terrain_height(&app->level.terrain, c->eye[0], c->eye[2]), input_pad_count(&app->input),
            pad ? pad : "");
    if (app->ctrl) {
        /* The marker keys above mirror the character's root. */
        const ctrl_stats_t *st = &app->sim.stats;
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
    if (app->net_loaded) {
        /* The weights each phase mode holds now (every dtype; 0: not built,
         * or released): a mode's slices are built when it is first used. */
        fputs(",\n  \"network\": {\"held_mib\": {", f);
        for (int mode = 0; mode < PFNN_PHASE_MODE_COUNT; mode++) {
            size_t bytes = 0;
            for (int d = 0; d < PFNN_DTYPE_COUNT; d++)
                bytes += pfnn_mode_bytes(&app->net, (pfnn_mode_t)mode, (pfnn_dtype_t)d);
            fprintf(f, "%s\"%s\": %.2f", mode ? ", " : "", pfnn_mode_name((pfnn_mode_t)mode),
                    (double)bytes / (1024.0 * 1024.0));
        }
        fputs("}}", f);
    }
    if (app->ctrl && app->fig) {
        /* A copy: the percentile sorts, and contacts still running end here. */
        feet_stats_t feet = app->feet;
        const feet_stats_t *fs = &feet;
        const figure_t *fig = app->fig;
        float contact_p95_cm, ctrl_contact_p95_cm;
        feet_stats_contact_p95(&feet, &contact_p95_cm, &ctrl_contact_p95_cm);
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
                fs->ctrl_slide_cm[0] + fs->ctrl_slide_cm[1], (double)fs->ctrl_slide_max_cm, (double)fs->head_top_max_cm,
                fs->ceiling_frames, (double)fs->ceiling_clearance_min_cm, fs->contacts, (double)contact_p95_cm,
                (double)fs->contact_slide_max_cm, (double)ctrl_contact_p95_cm, (double)fs->ctrl_contact_slide_max_cm,
                fig->rig.toe[0] >= 0 && fig->rig.toe[1] >= 0 ? "true" : "false", (double)fs->sink_max_cm,
                (double)fs->ctrl_sink_max_cm);
    }
    write_report_crowd(app, f);
    write_report_figure(app, f);
    fputs("\n}\n", f);
    bool ok = fclose(f) == 0 && text;
    if (!ok)
        log_error("%s: out of memory for the report", path);
    ok = ok && file_write_all(path, text, size);
    free(text);
    return ok;
}
