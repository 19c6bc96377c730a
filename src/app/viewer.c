#include "app/viewer.h"

#include "core/log.h"
#include "core/paths.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEG2RAD 0.017453292519943295f
#define VIEWER_DEFAULT_CHARACTER "assets/characters/strider.chr"
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

static void *xcalloc(size_t n, size_t size, bool *ok)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        *ok = false;
    return p;
}

static void free_mesh(viewer_mesh *m)
{
    free(m->pos);
    free(m->nrm);
    free(m->tan);
    free(m->ao);
    free(m->joints);
    free(m->weights);
    free(m->m_pos);
    free(m->m_nrm);
    free(m->m_tan);
    free(m->m_ao);
    free(m->active_target);
    free(m->active_weight);
    bshape_set_free(&m->set);
    memset(m, 0, sizeof *m);
}

static bool prepare_mesh(viewer_t *v, uint32_t index, const char *path)
{
    const chr_mesh_t *src = &v->chr.meshes[index];
    viewer_mesh *m = &v->mesh[index];
    size_t n = src->vertex_count;
    bool ok = true;
    m->vertex_count = src->vertex_count;
    m->pos = xcalloc(n * 3, sizeof(float), &ok);
    m->nrm = xcalloc(n * 3, sizeof(float), &ok);
    m->tan = xcalloc(n * 4, sizeof(float), &ok);
    m->ao = xcalloc(n, sizeof(float), &ok);
    m->joints = xcalloc(n * 4, sizeof(uint16_t), &ok);
    m->weights = xcalloc(n * 4, sizeof(float), &ok);
    if (!ok) {
        log_error("%s: out of memory for mesh '%s'", path, src->name);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const chr_vertex_t *x = &src->vertices[i];
        memcpy(&m->pos[i * 3], x->pos, sizeof x->pos);
        memcpy(&m->nrm[i * 3], x->normal, sizeof x->normal);
        memcpy(&m->tan[i * 4], x->tangent, sizeof x->tangent);
        memcpy(&m->joints[i * 4], x->joints, sizeof x->joints);
        memcpy(&m->weights[i * 4], x->weights, sizeof x->weights);
        m->ao[i] = x->ao;
    }
    /* Both layouts for meshes with targets, so the menu can switch. */
    if (!bshape_set_build(&m->set, &v->chr, index, BSHAPE_BUILD_SPARSE | BSHAPE_BUILD_DENSE))
        return false;
    if (m->set.target_count > 0) {
        m->m_pos = xcalloc(n * 3, sizeof(float), &ok);
        m->m_nrm = xcalloc(n * 3, sizeof(float), &ok);
        m->m_tan = xcalloc(n * 4, sizeof(float), &ok);
        m->m_ao = xcalloc(n, sizeof(float), &ok);
        m->active_target = xcalloc(m->set.target_count, sizeof *m->active_target, &ok);
        m->active_weight = xcalloc(m->set.target_count, sizeof *m->active_weight, &ok);
        if (!ok) {
            log_error("%s: out of memory for the blend shapes of mesh '%s'", path, src->name);
            return false;
        }
    }
    skin_job_t check = {.vertex_count = (int)n,
                        .influences = SKIN_MAX_INFLUENCES,
                        .method = SKIN_LBS_MATRIX,
                        .positions = m->pos,
                        .joints_u16 = m->joints,
                        .weights = m->weights,
                        .joint_count = v->chr.skel.joint_count,
                        .palette = &v->palette[0][0],
                        .out_positions = m->pos};
    if (!skin_check_vertices(&check)) {
        log_error("%s: mesh '%s' has skinning data the skinning job refuses", path, src->name);
        return false;
    }
    return true;
}

static bool apply_expressions(viewer_t *v, const app_options *opt, const char *path)
{
    for (int i = 0; i < opt->expression_count; i++) {
        int s = chr_find_shape(&v->chr, opt->expressions[i].name);
        if (s < 0) {
            log_error("--expression: %s has no blend shape '%s'", path, opt->expressions[i].name);
            return false;
        }
        v->shape_weight[s] = opt->expressions[i].weight;
    }
    return true;
}

/* Joint model matrices of the current pose (no palette). */
static void run_fk(viewer_t *v)
{
    pose_model_job_t fk = {.skel = &v->chr.skel,
                           .local = &v->pose,
                           .capacity = SKEL_MAX_JOINTS,
                           .model_mat = v->model_mat,
                           .model_rot = v->model_rot};
    pose_model_run(&fk);
}

static float foot_height(const viewer_t *v)
{
    float y = INFINITY;
    for (int k = 0; k < 2; k++)
        if (v->foot_joint[k] >= 0)
            y = fminf(y, v->model_mat[v->foot_joint[k]][7]); /* row 1, translation */
    return isfinite(y) ? y : 0.0f;
}

/* Local pose of the current frame: the rest pose, or the clip's frame with
 * the root kept above the origin (in place) and a foot on the ground. */
static void update_pose(viewer_t *v)
{
    const skel_t *s = &v->chr.skel;
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
    v->correctives = true;
    v->auto_orbit = true;
    v->show_character = !opt->no_character;
    v->method = SKIN_LBS_MATRIX;
    v->foot_joint[0] = v->foot_joint[1] = -1;
    char path[PATHS_MAX];
    if (opt->character)
        snprintf(path, sizeof path, "%s", opt->character);
    else if (!paths_join(VIEWER_DEFAULT_CHARACTER, path, sizeof path)) {
        log_error("%s: path too long", VIEWER_DEFAULT_CHARACTER);
        return EXIT_RUNTIME;
    }
    if (!chr_load(&v->chr, path))
        return EXIT_RUNTIME;
    v->chr_loaded = true;
    bool ok = true;
    v->shape_weight = xcalloc(v->chr.shape_count, sizeof *v->shape_weight, &ok);
    v->corrective_weight = xcalloc(v->chr.corrective_count, sizeof *v->corrective_weight, &ok);
    if (!ok) {
        log_error("%s: out of memory", path);
        return EXIT_RUNTIME;
    }
    for (uint32_t m = 0; m < v->chr.mesh_count; m++)
        if (!prepare_mesh(v, m, path))
            return EXIT_RUNTIME;
    if (!apply_expressions(v, opt, path))
        return EXIT_USAGE;

    const skel_t *s = &v->chr.skel;
    pose_bind_from_rest(s, &v->bind);
    v->foot_joint[0] = skel_find(s, "lFoot");
    v->foot_joint[1] = skel_find(s, "rFoot");
    pose_rest(s, &v->pose);
    run_fk(v);
    /* The lowest ankle stands this high above the soles at rest. */
    float sole = INFINITY;
    for (uint32_t m = 0; m < v->chr.mesh_count; m++)
        for (uint32_t i = 0; i < v->mesh[m].vertex_count; i++)
            sole = fminf(sole, v->mesh[m].pos[i * 3 + 1]);
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
             s->joint_count, v->chr.mesh_count, chr_triangle_count(&v->chr), v->chr.shape_count,
             v->chr.corrective_count);
    return 0;
}

bool viewer_gpu_init(viewer_t *v, const float origin[3], bool face_closeup, const terrain_t *terrain)
{
    v->gfx = gfx_character_create(&v->chr, "character");
    if (!v->gfx)
        return false;
    for (uint32_t m = 0; m < v->chr.mesh_count; m++)
        v->mesh[m].first = gfx_character_mesh_first_vertex(v->gfx, m);
    memcpy(v->origin, origin, sizeof v->origin);
    memcpy(v->camera_target, origin, sizeof v->camera_target);
    if (face_closeup)
        v->camera_target[2] += FACE_FORWARD_CM;
    camera_init(&v->camera, v->camera_target, face_closeup ? FACE_YAW_RAD : VIEW_YAW_RAD);
    camera_config *cfg = &v->camera.config;
    if (face_closeup) {
        int head = skel_find(&v->chr.skel, "head");
        /* Focus a little above the head joint (the joint sits at the skull base). */
        float head_y = head >= 0 ? v->model_mat[head][7] + v->lift_cm + origin[1] + 8.0f : 160.0f;
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
    gfx_character_destroy(v->gfx);
    for (uint32_t m = 0; m < CHR_MAX_MESHES; m++)
        free_mesh(&v->mesh[m]);
    free(v->shape_weight);
    free(v->corrective_weight);
    if (v->have_bvh)
        bvh_free(&v->bvh);
    if (v->chr_loaded)
        chr_free(&v->chr);
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
    for (uint32_t s = 0; s < v->chr.shape_count; s++)
        v->shape_weight[s] = 0.0f;
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

/* The active list of mesh M: non-zero shape sliders, then correctives. */
static void build_active(viewer_t *v, viewer_mesh *m)
{
    int n = 0;
    for (uint32_t t = 0; t < m->set.target_count; t++) {
        uint32_t src = m->set.target_source[t];
        float w;
        if (t < m->set.shape_count)
            w = v->shape_weight[src];
        else
            w = v->correctives ? v->corrective_weight[src] : 0.0f;
        if (w != 0.0f) {
            m->active_target[n] = t;
            m->active_weight[n] = w;
            n++;
        }
    }
    m->active_count = n;
}

bool viewer_deform(viewer_t *v)
{
    if (!v->gfx)
        return false;
    gfx_character_set_visible(v->gfx, v->show_character);
    if (!v->show_character)
        return true;
    update_pose(v);
    pose_palette_job_t pj = {.bind = &v->bind,
                             .joint_count = v->chr.skel.joint_count,
                             .model_mat = (const float (*)[POSE_MAT_FLOATS])v->model_mat,
                             .model_rot = (const float (*)[4])v->model_rot,
                             .palette = v->palette,
                             .dq = v->dq};
    if (!pose_palette_run(&pj))
        return false;
    bshape_corrective_weights(&v->chr, &v->pose, v->corrective_weight);
    int active_shapes = 0;
    for (uint32_t s = 0; s < v->chr.shape_count; s++)
        active_shapes += v->shape_weight[s] != 0.0f;
    v->active_shapes = active_shapes;

    gfx_character_stream out;
    if (!gfx_character_begin_update(v->gfx, &out))
        return false;
    bool ok = true;
    for (uint32_t mi = 0; mi < v->chr.mesh_count && ok; mi++) {
        viewer_mesh *m = &v->mesh[mi];
        const float *pos = m->pos, *nrm = m->nrm, *tan = m->tan, *ao = m->ao;
        if (m->set.target_count > 0) {
            build_active(v, m);
            bshape_job_t bj = {.set = &m->set,
                               .layout = v->dense ? BSHAPE_DENSE : BSHAPE_SPARSE,
                               .active_count = m->active_count,
                               .active_target = m->active_target,
                               .active_weight = m->active_weight,
                               .positions = m->pos,
                               .normals = m->nrm,
                               .tangents = m->tan,
                               .ao = m->ao,
                               .out_positions = m->m_pos,
                               .out_normals = m->m_nrm,
                               .out_tangents = m->m_tan,
                               .out_ao = m->m_ao};
            ok = bshape_run(&bj);
            pos = m->m_pos;
            nrm = m->m_nrm;
            tan = m->m_tan;
            ao = m->m_ao;
        }
        skin_job_t sj = {.vertex_count = (int)m->vertex_count,
                         .influences = SKIN_MAX_INFLUENCES,
                         .method = (skin_method)v->method,
                         .isa = SKIN_ISA_AUTO,
                         .positions = pos,
                         .normals = nrm,
                         .tangents = tan,
                         .joints_u16 = m->joints,
                         .weights = m->weights,
                         .joint_count = v->chr.skel.joint_count,
                         .palette = &v->palette[0][0],
                         .dq_palette = &v->dq[0][0],
                         .out_positions = out.positions + (size_t)m->first * 3,
                         .out_normals = out.normals + (size_t)m->first * 3,
                         .out_tangents = out.tangents + (size_t)m->first * 4};
        ok = ok && skin_run(&sj);
        memcpy(out.ao + m->first, ao, m->vertex_count * sizeof(float));
    }
    gfx_character_end_update(v->gfx);
    float model[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, v->origin[0], v->origin[1] + v->lift_cm, v->origin[2], 1};
    gfx_character_set_transform(v->gfx, model);
    v->deform_count++;
    return ok;
}
