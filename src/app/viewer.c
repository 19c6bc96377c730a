#include "app/viewer.h"

#include "core/file.h"
#include "core/log.h"
#include "core/paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG2RAD 0.017453292519943295f
/* Auto-orbit: this rate, resuming this long after the user last moved the camera. */
#define AUTO_ORBIT_RAD_S (12.0f * DEG2RAD)
#define AUTO_ORBIT_RESUME_S 4.0f
/* Camera framings: whole figure, or the face. Yaw pi looks at the front
 * (the character faces +Z); the offset gives a three-quarter view. */
#define VIEW_YAW_RAD (3.14159265f + 0.45f)
#define BODY_DISTANCE_CM 280.0f
#define BODY_FOCUS_HEIGHT_CM 90.0f
#define BODY_PITCH_RAD (8.0f * DEG2RAD)
#define FACE_DISTANCE_CM 42.0f
#define FACE_YAW_RAD (3.14159265f + 0.3f)
/* The face lies this far in front of the head joint (+Z at rest). */
#define FACE_FORWARD_CM 7.0f
#define FACE_PITCH_RAD (4.0f * DEG2RAD)
#define FACE_MIN_DISTANCE_CM 35.0f

/* The weight --active-shapes gives each shape it turns on. */
#define ACTIVE_SHAPE_WEIGHT 0.5f

/* --expression NAME=W: the character's shape NAME, or the shapes the
 * demo's NAME stands for on it (an ARKit face, anim/facemap.h). */
static bool apply_expressions(viewer_t *v, const app_options_t *opt, const char *path)
{
    for (int i = 0; i < opt->expression_count; i++) {
        facemap_term_t term[FACEMAP_TERMS_MAX];
        int n = facemap_resolve(&v->fig.chr, opt->expressions[i].name, term, FACEMAP_TERMS_MAX);
        if (n == 0) {
            log_error("--expression: %s has no blend shape '%s' (nor ARKit shapes for it)", path,
                      opt->expressions[i].name);
            return false;
        }
        for (int t = 0; t < n; t++)
            v->fig.shape_weight[term[t].shape] += opt->expressions[i].weight * term[t].weight;
    }
    /* --active-shapes N: shapes i * count / N, spread over every kind the
     * list holds (modifiers, emotions, extras), each at half weight. */
    uint32_t count = v->fig.chr.shape_count, want = (uint32_t)opt->active_shapes;
    if (want > count)
        want = count;
    for (uint32_t i = 0; i < want; i++)
        v->fig.shape_weight[(uint64_t)i * count / want] += ACTIVE_SHAPE_WEIGHT;
    return true;
}

/* The vertex clip: --clip FILE (must fit), or the shipped clip when it
 * exists and fits this character (otherwise the viewer runs without one,
 * unless --play-clip / --clip-time asked for it). Absolute keys and the
 * mesh's own bind pose of the animated vertices are made here, once. */
static int load_vclip(viewer_t *v, const app_options_t *opt)
{
    viewer_vclip_t *c = &v->vclip;
    c->mode = opt->tween && strcmp(opt->tween, "linear") == 0 ? TWEEN_LINEAR : TWEEN_HERMITE;
    bool needed = opt->clip || opt->play_clip || opt->clip_time_given;
    char path[PATHS_MAX];
    if (opt->clip) {
        if (!paths_copy(opt->clip, path, sizeof path))
            return EXIT_RUNTIME;
    } else if (!paths_join(VIEWER_DEFAULT_CLIP, path, sizeof path)) {
        log_error("%s: path too long", VIEWER_DEFAULT_CLIP);
        return EXIT_RUNTIME;
    }
    /* The optional shipped clip is looked for without opening it; the
     * loader then applies the rule for every input file. */
    if (!needed && !file_is_regular(path, NULL)) {
        log_info("viewer: no vertex clip (%s not found)", path);
        return 0;
    }
    if (!clip_load(&c->clip, path))
        return EXIT_RUNTIME;
    c->loaded = true;
    int mesh = chr_find_mesh(&v->fig.chr, c->clip.mesh);
    if (mesh < 0 || v->fig.mesh[mesh].vertex_count != c->clip.mesh_vertex_count) {
        if (needed) {
            log_error("%s: animates mesh '%s' of %u vertices, which the character does not have", path, c->clip.mesh,
                      c->clip.mesh_vertex_count);
            return EXIT_RUNTIME;
        }
        log_info("viewer: %s does not fit this character (mesh '%s', %u vertices); no vertex clip", path, c->clip.mesh,
                 c->clip.mesh_vertex_count);
        clip_free(&c->clip);
        c->loaded = false;
        return 0;
    }
    c->mesh = mesh;
    const char *slash = strrchr(path, '/');
    snprintf(c->name, sizeof c->name, "%.63s", slash ? slash + 1 : path);
    size_t n = (size_t)c->clip.vertex_count * 3;
    c->keys = malloc(n * c->clip.key_count * sizeof(float));
    c->rest_pos = malloc(n * sizeof(float));
    c->rest_nrm = malloc(n * sizeof(float));
    c->rest_ao = malloc(c->clip.vertex_count * sizeof(float));
    if (!c->keys || !c->rest_pos || !c->rest_nrm || !c->rest_ao) {
        log_error("%s: out of memory for the clip's keys", path);
        return EXIT_RUNTIME;
    }
    const figure_mesh_t *m = &v->fig.mesh[mesh];
    clip_keys_absolute(&c->clip, m->pos, c->keys);
    for (uint32_t i = 0; i < c->clip.vertex_count; i++) {
        memcpy(&c->rest_pos[i * 3], &m->pos[(size_t)c->clip.vertex[i] * 3], 3 * sizeof(float));
        memcpy(&c->rest_nrm[i * 3], &m->nrm[(size_t)c->clip.vertex[i] * 3], 3 * sizeof(float));
        c->rest_ao[i] = m->ao[c->clip.vertex[i]];
    }
    c->on = opt->play_clip || opt->clip_time_given;
    c->playing = opt->play_clip;
    c->time_s = opt->clip_time_s;
    log_info("viewer: vertex clip %s: mesh '%s', %u of %u vertices, %u keys, %.2f s %s", path, c->clip.mesh,
             c->clip.vertex_count, c->clip.mesh_vertex_count, c->clip.key_count, (double)c->clip.duration_s,
             (c->clip.flags & CLIP_LOOP) ? "loop" : "clamped");
    return 0;
}

static void free_vclip(viewer_vclip_t *c)
{
    if (c->loaded)
        clip_free(&c->clip);
    free(c->keys);
    free(c->rest_pos);
    free(c->rest_nrm);
    free(c->rest_ao);
    memset(c, 0, sizeof *c);
}

/* Tween the clip into the mesh's bind pose (before blend shapes and
 * skinning), or put the bind pose back once the clip is off (or ON is
 * false). While the clip is on the mesh is live_bind: with GPU blend shapes
 * figure_deform sends the tweened bind pose through the stream slot and the
 * vertex shader morphs from it. */
static bool apply_vclip(viewer_t *v, bool on)
{
    viewer_vclip_t *c = &v->vclip;
    if (!c->loaded)
        return true;
    figure_mesh_t *m = &v->fig.mesh[c->mesh];
    m->live_bind = on;
    if (on) {
        tween_job_t job = {.mode = (tween_mode_t)c->mode,
                           .timing = clip_timing(&c->clip),
                           .time_s = c->time_s,
                           .vertex_count = (int)c->clip.vertex_count,
                           .positions = c->keys,
                           .normals = c->clip.normal,
                           .ao = c->clip.ao,
                           .out_vertex = c->clip.vertex,
                           .out_positions = m->pos,
                           .out_normals = m->nrm,
                           .out_ao = m->ao};
        c->applied = true;
        return tween_run(&job);
    }
    if (c->applied) {
        for (uint32_t i = 0; i < c->clip.vertex_count; i++) {
            memcpy(&m->pos[(size_t)c->clip.vertex[i] * 3], &c->rest_pos[i * 3], 3 * sizeof(float));
            memcpy(&m->nrm[(size_t)c->clip.vertex[i] * 3], &c->rest_nrm[i * 3], 3 * sizeof(float));
            m->ao[c->clip.vertex[i]] = c->rest_ao[i];
        }
        c->applied = false;
    }
    return true;
}

void viewer_set_curve(viewer_t *v, int index)
{
    viewer_curve_t *c = &v->curve;
    c->clip = excurve_builtin(index);
    c->index = c->clip ? index : -1;
    for (int t = 0; t < EXCURVE_MAX_TRACKS; t++)
        c->terms[t] = 0;
    if (!c->clip)
        return;
    for (int t = 0; t < c->clip->track_count; t++) {
        c->terms[t] = facemap_resolve(&v->fig.chr, c->clip->tracks[t].shape, c->term[t], FACEMAP_TERMS_MAX);
        if (c->terms[t] == 0)
            log_info("viewer: curve '%s': the character has no shape '%s' (track ignored)", c->clip->name,
                     c->clip->tracks[t].shape);
    }
}

bool viewer_shape_locked(const viewer_t *v, uint32_t s)
{
    const viewer_curve_t *c = &v->curve;
    if (!c->clip || !c->playing)
        return false;
    for (int t = 0; t < c->clip->track_count; t++)
        for (int k = 0; k < c->terms[t]; k++)
            if (c->term[t][k].shape == (int)s)
                return true;
    return false;
}

/* Index of the built-in expression curve NAME, or -1. */
static int builtin_curve_index(const char *name)
{
    for (int i = 0; i < excurve_builtin_count(); i++)
        if (strcmp(excurve_builtin(i)->name, name) == 0)
            return i;
    return -1;
}

/* The driven shapes' weights at the curve's time. */
static void apply_curve(viewer_t *v)
{
    const viewer_curve_t *c = &v->curve;
    /* Tracks may share shapes (an ARKit face): clear, then add. */
    for (int t = 0; c->clip && t < c->clip->track_count; t++)
        for (int k = 0; k < c->terms[t]; k++)
            v->fig.shape_weight[c->term[t][k].shape] = 0.0f;
    for (int t = 0; c->clip && t < c->clip->track_count; t++) {
        float w = excurve_track_weight(c->clip, &c->clip->tracks[t], c->time_s);
        for (int k = 0; k < c->terms[t]; k++)
            v->fig.shape_weight[c->term[t][k].shape] += w * c->term[t][k].weight;
    }
}

void viewer_request_bake(viewer_t *v) { v->bake_pending = true; }

void viewer_set_curve_time(viewer_t *v, double time_s)
{
    v->curve.time_s = time_s;
    apply_curve(v);
}

/* TIME_S advanced by DT_S, kept within one period when looping. */
static double advance(double time_s, float dt_s, bool loop, double duration_s)
{
    time_s += dt_s;
    if (loop && duration_s > 0.0)
        time_s -= floor(time_s / duration_s) * duration_s;
    else if (!loop && time_s > duration_s)
        time_s = duration_s;
    return time_s;
}

/* Joint model matrices of the current pose (no palette). */
static void run_fk(viewer_t *v) { figure_fk(&v->fig, &v->pose); }

static float foot_height(const viewer_t *v)
{
    float y = INFINITY;
    for (int k = 0; k < 2; k++)
        if (v->foot_joint[k] >= 0)
            y = fminf(y, v->fig.model_mat[v->foot_joint[k]][7]); /* row 1, translation */
    return isfinite(y) ? y : 0.0f;
}

/* Local pose of the current frame: the rest pose, or the clip's frame with
 * the root kept above the origin (in place) and a foot on the ground. */
static void update_pose(viewer_t *v)
{
    pose_rest(&v->fig.chr.skel, &v->pose);
    if (v->have_bvh) {
        /* The clip's frame on the controller's skeleton... */
        const skel_t *s = &v->fig.rig.source;
        pose_t *src = &v->src_pose;
        if (!bvh_frame_pose(&v->bvh, s, &v->map, v->frame, src))
            pose_rest(s, src);
        src->trans[0][0] = s->joint_offset[0][0];
        src->trans[0][2] = s->joint_offset[0][2];
        /* Turn the root so the hips face +Z (the camera's side): the clip is
         * shown in place, whatever direction it was captured in. */
        static const float fwd_rest[3] = {0.0f, 0.0f, 1.0f}, up[3] = {0.0f, 1.0f, 0.0f};
        float fwd[3], turn[4], q[4];
        pose_quat_rotate(src->rot[0], fwd_rest, fwd);
        if (fwd[0] * fwd[0] + fwd[2] * fwd[2] > 1e-6f) {
            pose_quat_axis_angle(up, -atan2f(fwd[0], fwd[2]), turn);
            pose_quat_mul(turn, src->rot[0], q);
            memcpy(src->rot[0], q, sizeof q);
        }
        /* ... onto the character's (retargeted unless it is that skeleton;
         * no foot IK: the lift below stands the lowest foot on the ground). */
        retarget_job_t job = {.source = src, .scale_xz = 1.0f};
        const pose_t *p = figure_rig_pose(&v->fig, &job);
        if (p)
            v->pose = *p;
    }
    run_fk(v);
    v->lift_cm = v->rest_foot_y_cm - foot_height(v);
}

int viewer_load(viewer_t *v, const app_options_t *opt)
{
    memset(v, 0, sizeof *v);
    v->auto_orbit = true;
    v->foot_joint[0] = v->foot_joint[1] = -1;
    char path[PATHS_MAX];
    if (opt->character) {
        if (!paths_copy(opt->character, path, sizeof path))
            return EXIT_RUNTIME;
    } else if (!paths_join(FIGURE_DEFAULT_CHARACTER, path, sizeof path)) {
        log_error("%s: path too long", FIGURE_DEFAULT_CHARACTER);
        return EXIT_RUNTIME;
    }
    char skel_path[PATHS_MAX];
    if (!paths_join(FIGURE_DRIVER_SKELETON, skel_path, sizeof skel_path))
        return EXIT_RUNTIME;
    figure_desc_t fd = {.path = path, .map_path = opt->map, .skeleton_path = skel_path};
    if (!figure_load(&v->fig, &fd))
        return EXIT_RUNTIME;
    v->fig.show = !opt->no_character;
    if (!apply_expressions(v, opt, path))
        return EXIT_USAGE;
    if (!paths_copy(opt->bake ? opt->bake : VIEWER_DEFAULT_BAKE, v->bake_path, sizeof v->bake_path))
        return EXIT_RUNTIME;
    /* --bake itself runs in app.c once the figure is on the GPU (its failure
     * is the run's); the path stays the Bake button's. */
    int rc = load_vclip(v, opt);
    if (rc != 0)
        return rc;
    if (opt->curve) {
        int index = builtin_curve_index(opt->curve);
        if (index < 0) {
            log_error("--curve: no built-in expression curve '%s' (talk, smile-surprise-blink)", opt->curve);
            return EXIT_USAGE;
        }
        viewer_set_curve(v, index);
        v->curve.playing = true;
        v->curve.time_s = opt->curve_time_s;
        apply_curve(v);
    } else {
        /* The menu's default: the expression demo, paused. */
        viewer_set_curve(v, builtin_curve_index(VIEWER_DEFAULT_CURVE));
    }

    const skel_t *s = &v->fig.chr.skel;
    v->foot_joint[0] = v->fig.rig.foot[0];
    v->foot_joint[1] = v->fig.rig.foot[1];
    pose_rest(s, &v->pose);
    run_fk(v);
    /* The lowest ankle stands this high above the soles at rest. */
    float sole = INFINITY;
    for (uint32_t m = 0; m < v->fig.chr.mesh_count; m++)
        for (uint32_t i = 0; i < v->fig.mesh[m].vertex_count; i++)
            sole = fminf(sole, v->fig.mesh[m].pos[i * 3 + 1]);
    v->rest_foot_y_cm = foot_height(v) - (isfinite(sole) ? sole : 0.0f);

    if (opt->pose) {
        if (!bvh_load(&v->bvh, opt->pose))
            return EXIT_RUNTIME;
        v->have_bvh = true;
        if (!bvh_map_skel(&v->bvh, &v->fig.rig.source, &v->map))
            return EXIT_RUNTIME;
        if (opt->pose_frame >= v->bvh.frame_count) {
            log_error("--pose-frame %ld: %s has frames 0 to %d", opt->pose_frame, opt->pose, v->bvh.frame_count - 1);
            return EXIT_USAGE;
        }
        v->frame = (int)opt->pose_frame;
        v->clip_time_s = v->frame * (double)v->bvh.frame_time_s;
        v->playing = opt->play;
    }
    update_pose(v);
    log_info("viewer: %s: %d joints, %u meshes, %u triangles, %u blend shapes, %u correctives", path, s->joint_count,
             v->fig.chr.mesh_count, chr_triangle_count(&v->fig.chr), v->fig.chr.shape_count,
             v->fig.chr.corrective_count);
    return 0;
}

bool viewer_gpu_init(viewer_t *v, const float origin[3], bool face_closeup, const terrain_t *terrain)
{
    if (!figure_gpu_init(&v->fig, "character"))
        return false;
    memcpy(v->origin, origin, sizeof v->origin);
    memcpy(v->camera_target, origin, sizeof v->camera_target);
    if (face_closeup)
        v->camera_target[2] += FACE_FORWARD_CM;
    camera_init(&v->camera, v->camera_target, face_closeup ? FACE_YAW_RAD : VIEW_YAW_RAD);
    camera_config_t *cfg = &v->camera.config;
    if (face_closeup) {
        int head = v->fig.rig.head;
        /* Focus a little above the head joint (the joint sits at the skull
         * base); on another rig, at the middle of what the head joint
         * carries (chin to crown), wherever its joint sits. */
        float above = 8.0f;
        if (head >= 0 && !v->fig.rig.identity) {
            float lo = INFINITY, hi = -INFINITY, jp[SKEL_MAX_JOINTS][3];
            skel_rest_positions(&v->fig.chr.skel, jp);
            for (uint32_t m = 0; m < v->fig.chr.mesh_count; m++)
                for (uint32_t i = 0; i < v->fig.mesh[m].vertex_count; i++)
                    if (v->fig.mesh[m].joints[i * 4] == head) {
                        lo = fminf(lo, v->fig.mesh[m].pos[i * 3 + 1]);
                        hi = fmaxf(hi, v->fig.mesh[m].pos[i * 3 + 1]);
                    }
            if (lo < hi)
                above = 0.5f * (lo + hi) - jp[head][1];
        }
        float head_y = head >= 0 ? v->fig.model_mat[head][7] + v->lift_cm + origin[1] + above : 160.0f;
        cfg->focus_height_cm = head_y - origin[1];
        cfg->min_distance_cm = FACE_MIN_DISTANCE_CM;
        v->camera.distance_cm = FACE_DISTANCE_CM;
        v->camera.pitch_rad = FACE_PITCH_RAD;
        cfg->near_cm = 2.0f;
    } else {
        cfg->focus_height_cm = BODY_FOCUS_HEIGHT_CM;
        cfg->min_distance_cm = FACE_MIN_DISTANCE_CM;
        v->camera.distance_cm = BODY_DISTANCE_CM;
        v->camera.pitch_rad = BODY_PITCH_RAD;
    }
    camera_snap(&v->camera, v->camera_target, terrain);
    v->prev_camera = v->camera;
    return true;
}

void viewer_shutdown(viewer_t *v)
{
    free_vclip(&v->vclip);
    figure_free(&v->fig);
    if (v->have_bvh)
        bvh_free(&v->bvh);
    memset(v, 0, sizeof *v);
}

void viewer_set_frame(viewer_t *v, int frame)
{
    if (!v->have_bvh || v->bvh.frame_count <= 0)
        return;
    if (frame < 0)
        frame = 0;
    if (frame >= v->bvh.frame_count)
        frame = v->bvh.frame_count - 1;
    v->frame = frame;
    v->clip_time_s = frame * (double)v->bvh.frame_time_s;
}

void viewer_reset_shapes(viewer_t *v)
{
    for (uint32_t s = 0; s < v->fig.chr.shape_count; s++)
        v->fig.shape_weight[s] = 0.0f;
}

void viewer_step(viewer_t *v, const input_frame_t *in, bool first_step_of_frame, const terrain_t *terrain, float dt_s)
{
    v->prev_camera = v->camera;
    bool user = in->orbit_yaw_rate != 0.0f || in->orbit_pitch_rate != 0.0f || in->zoom_rate != 0.0f ||
                (first_step_of_frame &&
                 (in->orbit_yaw_impulse != 0.0f || in->orbit_pitch_impulse != 0.0f || in->zoom_impulse != 0.0f));
    v->idle_s = user ? 0.0f : v->idle_s + dt_s;
    if (user)
        v->camera_touched = true;
    input_frame_t cam_in = *in;
    if (v->auto_orbit && !user && (!v->camera_touched || v->idle_s >= AUTO_ORBIT_RESUME_S))
        cam_in.orbit_yaw_rate += AUTO_ORBIT_RAD_S;
    camera_update(&v->camera, &cam_in, first_step_of_frame, v->camera_target, terrain, dt_s);

    if (v->have_bvh && v->playing && v->bvh.frame_count > 0 && v->bvh.frame_time_s > 0.0f) {
        double clip_s = v->bvh.frame_count * (double)v->bvh.frame_time_s;
        v->clip_time_s = fmod(v->clip_time_s + dt_s, clip_s);
        v->frame = (int)(v->clip_time_s / v->bvh.frame_time_s);
        if (v->frame >= v->bvh.frame_count)
            v->frame = v->bvh.frame_count - 1;
    }
    viewer_vclip_t *vc = &v->vclip;
    if (vc->loaded && vc->on && vc->playing)
        vc->time_s = advance(vc->time_s, dt_s, (vc->clip.flags & CLIP_LOOP) != 0, vc->clip.duration_s);
    viewer_curve_t *cv = &v->curve;
    if (cv->clip && cv->playing) {
        cv->time_s = advance(cv->time_s, dt_s, cv->clip->loop, cv->clip->duration_s);
        apply_curve(v);
    }
}

void viewer_camera(const viewer_t *v, float alpha, camera_t *out)
{
    camera_lerp(&v->prev_camera, &v->camera, alpha, out);
}

bool viewer_deform(viewer_t *v)
{
    if (v->fig.show)
        update_pose(v);
    float model[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, v->origin[0], v->origin[1] + v->lift_cm, v->origin[2], 1};
    if (v->bake_pending) {
        /* Shape weights only: the bind pose without the clip. */
        v->bake_pending = false;
        bool ok = apply_vclip(v, false) && figure_bake_save(&v->fig, v->bake_path);
        snprintf(v->bake_status, sizeof v->bake_status, "%s %.120s",
                 ok ? "wrote" : "failed (see the log):", v->bake_path);
        int shapes = 0;
        for (uint32_t k = 0; k < v->fig.chr.shape_count; k++)
            shapes += v->fig.shape_weight[k] != 0.0f;
        if (ok)
            log_info("viewer: baked %d shapes into %s", shapes, v->bake_path);
        else
            v->bake_failures++;
    }
    /* Tween first (the clip's keys live in bind space), then figure_deform
     * morphs and skins the tweened mesh. */
    if (!apply_vclip(v, v->vclip.on))
        return false;
    return figure_deform(&v->fig, &v->pose, model);
}
