/* ctrl.c: the controller's life cycle and the order of one step, which
 * follows the original PFNN demo (Holden et al. 2017): targets -> predicted
 * trajectory -> input -> network -> pose -> foot IK -> root motion and the
 * network's future trajectory -> phase. Each stage lives in its own file
 * (ctrl_internal.h lists them). */
#include "ctrl/ctrl_foot.h"
#include "ctrl/ctrl_net.h"
#include "ctrl/ctrl_traj.h"
#include "ctrl/ctrl_world.h"

#include "core/log.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Ankle (foot joint) height above the ground of the standing seed pose: the
 * training data's standing frames have it at 4.9 cm (median). */
#define CTRL_STAND_ANKLE_CM 5.0f
/* Push out of walls and re-solve the legs at most this often per step. */
#define CTRL_WALL_RESOLVES 2

void ctrl_quat_conj(const float q[4], float out[4])
{
    out[0] = -q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = q[3];
}

void ctrl_head_top(const ctrl_t *c, float out[3])
{
    const float *m = c->model[c->j.head];
    const float top[3] = {CTRL_HEAD_TOP_X_CM, CTRL_HEAD_TOP_Y_CM, CTRL_HEAD_TOP_Z_CM};
    for (int r = 0; r < 3; r++)
        out[r] = m[4 * r] * top[0] + m[4 * r + 1] * top[1] + m[4 * r + 2] * top[2] + m[4 * r + 3];
}

void ctrl_contact_points(const ctrl_t *c, float out[2][3])
{
    float p[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, p);
    memcpy(out[0], p[1], sizeof out[0]);
    memcpy(out[1], p[3], sizeof out[1]);
}

bool ctrl_is_leg(const ctrl_t *c, int b)
{
    for (int side = 0; side < 2; side++)
        if (b == c->j.thigh[side] || b == c->j.shin[side] || b == c->j.foot[side])
            return true;
    return false;
}

void ctrl_update_model(ctrl_t *c)
{
    pose_model_job_t job = {
        .skel = c->skel,
        .local = &c->pose,
        .capacity = CTRL_JOINTS, /* the joint count, checked at create */
        .model_mat = c->model,
        .model_rot = c->model_rot,
    };
    bool ok = pose_model_run(&job);
    assert(ok);
    (void)ok;
    for (int b = 0; b < c->pose.joint_count; b++) {
        c->joint_pos[b][0] = c->model[b][3];
        c->joint_pos[b][1] = c->model[b][7];
        c->joint_pos[b][2] = c->model[b][11];
    }
}

/* ---- reset -------------------------------------------------------------- */

/* Rest pose standing at the root: hip at the network's mean hip height. */
static void set_safe_state(ctrl_t *c, float x, float z, float yaw)
{
    float h = ctrl_ground(c, x, z);
    float dir[2] = {sinf(yaw), cosf(yaw)};
    float stand[CTRL_GAITS] = {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < CTRL_TRAJ_FRAMES; i++) {
        c->traj.pos[i][0] = x;
        c->traj.pos[i][1] = h;
        c->traj.pos[i][2] = z;
        c->traj.dir[i][0] = dir[0];
        c->traj.dir[i][1] = dir[1];
        memcpy(c->traj.gait[i], stand, sizeof stand);
    }
    c->target_vel[0] = c->target_vel[1] = 0.0f;
    c->target_dir[0] = dir[0];
    c->target_dir[1] = dir[1];
    c->strafe_amount = 0.0f;
    c->base[0] = 1.0f;
    c->base[1] = c->base[2] = 0.0f;
    c->crouch = c->jump = 0.0f;
    c->jump_req_time_s = 0.0f;
    c->posture_steer = false;
    c->ceiling_drop = 0.0f;
    c->have_net_rot = false;
    c->ground_held = false;
    c->landing_steps = 0;
    c->fed_speed = 0.0f;
    c->speed_ratio = 1.0f;
    c->phase = 0.0f;

    /* Previous joints for the first input: the rest skeleton standing with
     * straight legs, the ankles CTRL_STAND_ANKLE_CM above the ground, still.
     * Not the output mean: the network has two standing attractors (the
     * upright idles and the crouched idle clips 140_06/07, labelled 'stand'
     * because their head stays above the crouch threshold), and the mean
     * pose (hip 76 cm) falls into the crouched one, which then also makes
     * the walk sneak-like. */
    float hip_h = c->stand_hip_cm;
    for (int b = 0; b < CTRL_JOINTS; b++) {
        const float *p = c->stand_pose[b];
        float wx, wz;
        to_world(yaw, p[0], p[2], &wx, &wz);
        c->joint_world[b][0] = x + wx;
        c->joint_world[b][1] = h + p[1];
        c->joint_world[b][2] = z + wz;
        c->joint_vel_world[b][0] = c->joint_vel_world[b][1] = c->joint_vel_world[b][2] = 0.0f;
    }
    c->prev_root[0] = x;
    c->prev_root[1] = h;
    c->prev_root[2] = z;
    c->prev_yaw = yaw;

    c->pose = c->rest;
    quat_yaw(yaw, c->pose.rot[c->j.hip]);
    c->pose.trans[c->j.hip][0] = x;
    c->pose.trans[c->j.hip][1] = h + hip_h;
    c->pose.trans[c->j.hip][2] = z;
    ctrl_update_model(c);
    ctrl_foot_reset(c);

    memset(c->y, 0, sizeof c->y);
    memcpy(c->stats.gait, stand, sizeof stand);
    c->stats.phase_rad = 0.0f;
    c->stats.root_pos[0] = x;
    c->stats.root_pos[1] = h;
    c->stats.root_pos[2] = z;
    c->stats.heading_rad = yaw;
    c->stats.root_speed_cm_s = 0.0f;
    c->stats.head_height_cm = c->joint_pos[c->j.head][1] - h;
    c->stats.hip_height_cm = c->joint_pos[c->j.hip][1] - h;
}

/* ---- create / destroy ---------------------------------------------------- */

static int find_joint(const skel_t *s, const char *name, bool *ok)
{
    int i = skel_find(s, name);
    if (i < 0) {
        log_error("ctrl: skeleton has no joint '%s'", name);
        *ok = false;
    }
    return i;
}

ctrl_t *ctrl_create(const ctrl_desc_t *desc)
{
    const pfnn_network_t *net = desc ? desc->net : NULL;
    const skel_t *s = desc ? desc->skel : NULL;
    if (!net || !s) {
        log_error("ctrl: create needs a network and a skeleton");
        return NULL;
    }
    if (net->n_in != PFNN_N_IN || net->n_out != PFNN_N_OUT || net->n_joints != PFNN_N_JOINTS ||
        net->n_traj != PFNN_N_TRAJ || net->n_gaits != PFNN_N_GAITS) {
        log_error("ctrl: %s: network layout %d->%d (%d joints) is not the shipped %d->%d (%d joints)", net->name,
                  net->n_in, net->n_out, net->n_joints, PFNN_N_IN, PFNN_N_OUT, PFNN_N_JOINTS);
        return NULL;
    }
    if (s->joint_count != CTRL_JOINTS) {
        log_error("ctrl: skeleton has %d joints, the network needs %d", s->joint_count, CTRL_JOINTS);
        return NULL;
    }
    if (!pfnn_has_mode(net, desc->mode, PFNN_F32)) {
        log_error("ctrl: %s: phase mode %s was not prepared at load", net->name, pfnn_mode_name(desc->mode));
        return NULL;
    }
    ctrl_t *c = calloc(1, sizeof *c);
    if (!c) {
        log_error("ctrl: out of memory");
        return NULL;
    }
    bool ok = true;
    c->j.hip = find_joint(s, "hip", &ok);
    c->j.head = find_joint(s, "head", &ok);
    c->j.thigh[0] = find_joint(s, "lThigh", &ok);
    c->j.shin[0] = find_joint(s, "lShin", &ok);
    c->j.foot[0] = find_joint(s, "lFoot", &ok);
    c->j.thigh[1] = find_joint(s, "rThigh", &ok);
    c->j.shin[1] = find_joint(s, "rShin", &ok);
    c->j.foot[1] = find_joint(s, "rFoot", &ok);
    c->j.toe_end[0] = skel_find_end(s, "lFoot_end");
    c->j.toe_end[1] = skel_find_end(s, "rFoot_end");
    if (c->j.toe_end[0] < 0 || c->j.toe_end[1] < 0) {
        log_error("ctrl: skeleton has no toe end sites lFoot_end/rFoot_end");
        ok = false;
    }
    if (ok && (c->j.hip != 0 || s->joint_parent[c->j.shin[0]] != c->j.thigh[0] ||
               s->joint_parent[c->j.foot[0]] != c->j.shin[0] || s->joint_parent[c->j.shin[1]] != c->j.thigh[1] ||
               s->joint_parent[c->j.foot[1]] != c->j.shin[1])) {
        log_error("ctrl: skeleton legs are not thigh-shin-foot chains under a root hip");
        ok = false;
    }
    if (!ok || !pfnn_workspace_init(&c->ws, net)) {
        free(c);
        return NULL;
    }
    c->net = net;
    c->skel = s;
    c->mode = desc->mode;
    c->ik_on = !desc->ik_off;
    pose_rest(s, &c->rest);
    c->pose = c->rest;
    float rest_pos[SKEL_MAX_JOINTS][3];
    skel_rest_positions(s, rest_pos);
    c->stand_hip_cm = CTRL_STAND_ANKLE_CM - 0.5f * (rest_pos[c->j.foot[0]][1] + rest_pos[c->j.foot[1]][1]);
    for (int b = 0; b < CTRL_JOINTS; b++) {
        memcpy(c->stand_pose[b], rest_pos[b], sizeof c->stand_pose[b]);
        c->stand_pose[b][1] += c->stand_hip_cm;
    }
    for (int side = 0; side < 2; side++) {
        const float *a = s->joint_offset[c->j.shin[side]], *b = s->joint_offset[c->j.foot[side]];
        c->leg_len[side] = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) +
                           sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    }
    return c;
}

void ctrl_destroy(ctrl_t *c)
{
    if (!c)
        return;
    pfnn_workspace_free(&c->ws);
    ctrl_world_free(c);
    free(c);
}

static void reset_on(ctrl_t *c, const level_t *level, const ctrl_level_t *shared, const ctrl_spawn_t *spawn)
{
    c->level = level;
    memset(&c->stats, 0, sizeof c->stats);
    c->nan_logged = false;
    c->jump_held = false;
    ctrl_world_reset(c, shared);
    float x = finite_or0(spawn->x), z = finite_or0(spawn->z);
    level_push_out_of_walls(level, &x, &z, CTRL_ROOT_RADIUS_CM);
    set_safe_state(c, x, z, finite_or0(spawn->heading_rad));
}

void ctrl_reset(ctrl_t *c, const level_t *level, const ctrl_spawn_t *spawn)
{
    assert(c && level && spawn);
    reset_on(c, level, NULL, spawn);
}

void ctrl_reset_shared(ctrl_t *c, const ctrl_level_t *world, const ctrl_spawn_t *spawn)
{
    assert(c && world && world->level && spawn);
    reset_on(c, world->level, world, spawn);
}

void ctrl_set_obstacles(ctrl_t *c, const float (*obstacle)[CTRL_OBSTACLE_FLOATS], int count)
{
    c->obstacle = obstacle;
    c->obstacle_count = obstacle && count > 0 ? count : 0;
}

size_t ctrl_state_bytes(const ctrl_t *c)
{
    const pfnn_network_t *n = c->net;
    size_t ws = (size_t)(n->n_in + PFNN_PANEL_ROWS - 1) / PFNN_PANEL_ROWS * PFNN_PANEL_ROWS;
    ws += (size_t)n->out_pad[0] + (size_t)n->out_pad[1] + (size_t)n->out_pad[2];
    size_t own = c->own_world ? sizeof *c->own_world + c->own_world->cap * (1 + sizeof(float)) : 0;
    return sizeof(ctrl_t) + ws * sizeof(float) + own;
}

void ctrl_set_mode(ctrl_t *c, pfnn_mode_t mode)
{
    if (pfnn_has_mode(c->net, mode, PFNN_F32))
        c->mode = mode;
    else
        log_warn("ctrl: phase mode %s not prepared; keeping %s", pfnn_mode_name(mode), pfnn_mode_name(c->mode));
}

pfnn_mode_t ctrl_get_mode(const ctrl_t *c) { return c->mode; }
void ctrl_set_ik(ctrl_t *c, bool on) { c->ik_on = on; }
bool ctrl_get_ik(const ctrl_t *c) { return c->ik_on; }

static void nan_reset(ctrl_t *c)
{
    c->stats.nan_resets++;
    if (!c->nan_logged) {
        log_error("%s: network output is not finite at step %llu; pose reset to rest at the root "
                  "(logged once, counted in stats; the run fails)",
                  c->net->name, (unsigned long long)c->stats.steps);
        c->nan_logged = true;
    }
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float yaw = yaw_of(c->traj.dir[CTRL_TRAJ_NOW]);
    float x = root[0], z = root[2];
    if (!isfinite(x) || !isfinite(z) || !isfinite(yaw)) {
        x = c->stats.root_pos[0];
        z = c->stats.root_pos[2];
        yaw = 0.0f;
    }
    set_safe_state(c, x, z, yaw);
}

void ctrl_step_begin(ctrl_t *c, const ctrl_input_t *in, float dt_s)
{
    assert(c && c->level && in);
    if (!(dt_s > 0.0f) || !isfinite(dt_s))
        dt_s = 1.0f / CTRL_NET_FPS;
    c->step_dt_s = dt_s;
    c->stats.steps++;
    ctrl_traj_targets(c, in, dt_s);
    ctrl_traj_predict(c);
    ctrl_net_input(c);
    c->last_phase = c->phase;
}

const float *ctrl_step_input(const ctrl_t *c, float *phase)
{
    *phase = c->phase;
    return c->x;
}

void ctrl_step(ctrl_t *c, const ctrl_input_t *in, float dt_s)
{
    ctrl_step_begin(c, in, dt_s);
    pfnn_job_t job = {
        .net = c->net,
        .ws = &c->ws,
        .mode = c->mode,
        .dtype = PFNN_F32,
        .isa = PFNN_ISA_AUTO,
        .phase = c->phase,
        .x = c->x,
        .y = c->y,
    };
    pfnn_run_unchecked(&job);
    ctrl_step_finish(c, c->y);
}

void ctrl_step_finish(ctrl_t *c, const float *y)
{
    float dt_s = c->step_dt_s;
    if (y != c->y)
        memcpy(c->y, y, sizeof c->y);
    if (!pfnn_output_is_finite(c->y, PFNN_N_OUT)) {
        nan_reset(c);
        return;
    }

    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float yaw = yaw_of(c->traj.dir[CTRL_TRAJ_NOW]);
    float root_h = root[1];
    ctrl_net_pose(c);
    float moved[2];
    ctrl_keep_out_of_walls(c, moved);
    ctrl_fit_ceiling(c, dt_s);
    ctrl_foot_run(c, dt_s, yaw);
    /* Re-solving the legs after a push can swing a knee back into the
     * wall: push again, and last without re-solving (a rare slip of a
     * planted foot beats a shin through a wall). */
    for (int i = 0; i < CTRL_WALL_RESOLVES && ctrl_keep_out_of_walls(c, moved); i++)
        ctrl_foot_shift(c, moved[0], moved[1], yaw);
    ctrl_keep_out_of_walls(c, moved);
    c->stats.head_height_cm = c->joint_pos[c->j.head][1] - root_h;
    c->stats.hip_height_cm = c->joint_pos[c->j.hip][1] - root_h;
    memcpy(c->stats.gait, c->traj.gait[CTRL_TRAJ_NOW], sizeof c->stats.gait);

    ctrl_traj_advance(c);
    c->stats.phase_rad = c->phase;
    memcpy(c->stats.root_pos, c->traj.pos[CTRL_TRAJ_NOW], sizeof c->stats.root_pos);
    c->stats.heading_rad = yaw_of(c->traj.dir[CTRL_TRAJ_NOW]);
}

/* ---- accessors ----------------------------------------------------------- */

void ctrl_sample(const ctrl_t *c, const pose_t *pose, ctrl_sample_t *out)
{
    float model[SKEL_MAX_JOINTS][POSE_MAT_FLOATS];
    pose_model_job_t job = {
        .skel = c->skel,
        .local = pose,
        .capacity = CTRL_JOINTS, /* the joint count, checked at create */
        .model_mat = model,
        .model_rot = out->rot,
    };
    bool ok = pose_model_run(&job);
    assert(ok);
    (void)ok;
    for (int b = 0; b < CTRL_JOINTS; b++)
        for (int r = 0; r < 3; r++)
            out->joint[b][r] = model[b][4 * r + 3];
    const float top[3] = {CTRL_HEAD_TOP_X_CM, CTRL_HEAD_TOP_Y_CM, CTRL_HEAD_TOP_Z_CM};
    for (int side = 0; side < 2; side++) {
        memcpy(out->point[2 * side], out->joint[c->j.foot[side]], sizeof(float) * 3);
        const float *m = model[c->j.foot[side]];
        const float *o = c->skel->end_offset[c->j.toe_end[side]];
        for (int r = 0; r < 3; r++)
            out->point[2 * side + 1][r] = m[4 * r] * o[0] + m[4 * r + 1] * o[1] + m[4 * r + 2] * o[2] + m[4 * r + 3];
    }
    const float *m = model[c->j.head];
    for (int r = 0; r < 3; r++)
        out->head_top[r] = m[4 * r] * top[0] + m[4 * r + 1] * top[1] + m[4 * r + 2] * top[2] + m[4 * r + 3];
}

const pose_t *ctrl_pose(const ctrl_t *c) { return &c->pose; }
const float (*ctrl_model(const ctrl_t *c))[POSE_MAT_FLOATS] { return (const float(*)[POSE_MAT_FLOATS])c->model; }
const float (*ctrl_joint_pos(const ctrl_t *c))[3] { return (const float(*)[3])c->joint_pos; }
const ctrl_traj_view_t *ctrl_trajectory(const ctrl_t *c) { return &c->traj; }
const float *ctrl_last_output(const ctrl_t *c) { return c->y; }
const float *ctrl_last_input(const ctrl_t *c) { return c->x; }
float ctrl_last_phase(const ctrl_t *c) { return c->last_phase; }
float ctrl_root_speed_cm_s(const ctrl_t *c) { return c->stats.root_speed_cm_s; }

void ctrl_get_stats(const ctrl_t *c, ctrl_stats_t *out)
{
    *out = c->stats;
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        out->contact_value[k] = c->y[4 + k];
        out->contact[k] = c->foot.on[k];
        out->lock_weight[k] = c->foot.weight[k];
    }
}
