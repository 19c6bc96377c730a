#include "app/viewer.h"

#include "core/log.h"
#include "core/paths.h"

#include <math.h>
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

static bool apply_expressions(viewer_t *v, const app_options *opt, const char *path)
{
    for (int i = 0; i < opt->expression_count; i++) {
        int s = figure_shape(&v->fig, opt->expressions[i].name);
        if (s < 0) {
            log_error("--expression: %s has no blend shape '%s'", path, opt->expressions[i].name);
            return false;
        }
        v->fig.shape_weight[s] = opt->expressions[i].weight;
    }
    return true;
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
    const skel_t *s = &v->fig.chr.skel;
    pose_rest(s, &v->pose);
    if (v->have_bvh) {
        if (!bvh_frame_pose(&v->bvh, s, &v->map, v->frame, &v->pose))
            pose_rest(s, &v->pose);
        v->pose.trans[0][0] = s->joint_offset[0][0];
        v->pose.trans[0][2] = s->joint_offset[0][2];
        /* Turn the root so the hips face +Z (the camera's side): the clip is
         * shown in place, whatever direction it was captured in. */
        static const float fwd_rest[3] = {0.0f, 0.0f, 1.0f}, up[3] = {0.0f, 1.0f, 0.0f};
        float fwd[3], turn[4], q[4];
        pose_quat_rotate(v->pose.rot[0], fwd_rest, fwd);
        if (fwd[0] * fwd[0] + fwd[2] * fwd[2] > 1e-6f) {
            pose_quat_axis_angle(up, -atan2f(fwd[0], fwd[2]), turn);
            pose_quat_mul(turn, v->pose.rot[0], q);
            memcpy(v->pose.rot[0], q, sizeof q);
        }
    }
    run_fk(v);
    v->lift_cm = v->rest_foot_y_cm - foot_height(v);
}

int viewer_load(viewer_t *v, const app_options *opt)
{
    memset(v, 0, sizeof *v);
    v->auto_orbit = true;
    v->foot_joint[0] = v->foot_joint[1] = -1;
    char path[PATHS_MAX];
    if (opt->character)
        snprintf(path, sizeof path, "%s", opt->character);
    else if (!paths_join(FIGURE_DEFAULT_CHARACTER, path, sizeof path)) {
        log_error("%s: path too long", FIGURE_DEFAULT_CHARACTER);
        return EXIT_RUNTIME;
    }
    if (!figure_load(&v->fig, path))
        return EXIT_RUNTIME;
    v->fig.show = !opt->no_character;
    if (!apply_expressions(v, opt, path))
        return EXIT_USAGE;

    const skel_t *s = &v->fig.chr.skel;
    v->foot_joint[0] = skel_find(s, "lFoot");
    v->foot_joint[1] = skel_find(s, "rFoot");
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
        if (!bvh_map_skel(&v->bvh, s, &v->map))
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
    log_info("viewer: %s: %d joints, %u meshes, %u triangles, %u blend shapes, %u correctives", path,
             s->joint_count, v->fig.chr.mesh_count, chr_triangle_count(&v->fig.chr), v->fig.chr.shape_count,
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
    camera_config *cfg = &v->camera.config;
    if (face_closeup) {
        int head = skel_find(&v->fig.chr.skel, "head");
        /* Focus a little above the head joint (the joint sits at the skull base). */
        float head_y = head >= 0 ? v->fig.model_mat[head][7] + v->lift_cm + origin[1] + 8.0f : 160.0f;
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

void viewer_step(viewer_t *v, const input_frame *in, bool first_step_of_frame, const terrain_t *terrain,
                 float dt_s)
{
    v->prev_camera = v->camera;
    bool user = in->orbit_yaw_rate != 0.0f || in->orbit_pitch_rate != 0.0f || in->zoom_rate != 0.0f ||
                (first_step_of_frame && (in->orbit_yaw_impulse != 0.0f || in->orbit_pitch_impulse != 0.0f ||
                                         in->zoom_impulse != 0.0f));
    v->idle_s = user ? 0.0f : v->idle_s + dt_s;
    if (user)
        v->camera_touched = true;
    input_frame cam_in = *in;
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
    return figure_deform(&v->fig, &v->pose, model);
}
