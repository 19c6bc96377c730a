/* ctrl.c: trajectory, gaits, network input/output and the pose. The order of
 * one step follows the original PFNN demo (Holden et al. 2017): targets ->
 * predicted trajectory -> input -> network -> pose -> foot IK -> root motion
 * and the network's future trajectory -> phase. The input/output layout is
 * docs/FORMATS_PFNN.md sections 2-3, built as tools/train/features.py does. */
#include "ctrl/ctrl_internal.h"

#include "core/log.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CTRL_PI 3.14159265358979323846f
#define CTRL_TWO_PI (2.0f * CTRL_PI)

/* Network frame rate: root motion and velocities are per 1/60 s. */
#define CTRL_NET_FPS 60.0f

/* Smoothing time constants (s) of the user's targets. The original demo
 * mixes velocity and direction 0.9 per frame (near instant) and gaits 0.1 per
 * frame (tau ~0.16 s, close to the 0.1 s Gaussian of the gait labels). */
#define CTRL_TAU_VEL_S 0.05f
#define CTRL_TAU_DIR_S 0.05f
#define CTRL_TAU_STRAFE_S 0.1f
#define CTRL_TAU_GAIT_S 0.15f

/* Below this target speed the gait is 'stand' (the labels use 20 cm/s on the
 * smoothed hip speed). */
#define CTRL_STAND_SPEED_CM_S 10.0f
/* A crouch-area ceiling lower than this forces a crouch (the standing
 * character's head top is ~170 cm). */
#define CTRL_CROUCH_CLEARANCE_CM 175.0f
/* Jump areas ramp from 1 at their radius to 0 this much further out, so the
 * jump gait rises as the trajectory approaches (original demo: falloff). */
#define CTRL_JUMP_FALLOFF_CM 50.0f
/* The jump button places a temporary jump area this many frames ahead on the
 * predicted trajectory (in place when standing) for this long. */
#define CTRL_JUMP_AHEAD_FRAMES 20
#define CTRL_JUMP_RADIUS_CM 40.0f
#define CTRL_JUMP_DURATION_S 0.8f
/* While the jump amount is above this, the root does not follow the terrain
 * down (support_height). */
#define CTRL_JUMP_HOLD_MIN 0.1f
/* Speed kept through a jump (steer_speed), at most: the forward jumps of the
 * training data (clips 105_39..42) take off at 106-189 cm/s (medians); at a
 * full run speed the network only hops. */
#define CTRL_JUMP_SPEED_CM_S 180.0f
/* Fastest descent of the root's height otherwise (cm/s): a step down of
 * 20-30 cm takes a few frames instead of one. */
#define CTRL_ROOT_FALL_CM_S 240.0f

/* Speed steering (steer_speed). The trained network's root speed follows
 * mostly the momentum it is fed (the previous joint velocities and the past
 * trajectory; on the training run samples a least-squares fit gives speed =
 * 0.93 x fed hip velocity + 0.10 x future trajectory speed), and running it
 * adds ~15-20% to that momentum each step. Scaling only the future
 * trajectory (the former governor) could not bring a run down: walk -> run
 * peaked at 368 cm/s and settled at 350 for a 250 request, the gain clamped
 * at its minimum. So the fed momentum is set so that the network's own
 * recent achieved/fed ratio lands on the requested speed: the root parts of
 * the fed joint velocities and the past trajectory points are scaled by
 * want / (ratio x achieved), within [CTRL_STEER_MIN, CTRL_STEER_MAX]. */
#define CTRL_RATIO_TAU_S 0.1f   /* smoothing of achieved / fed speed */
#define CTRL_STEER_MIN 0.5f
#define CTRL_STEER_MAX 1.5f
/* Achieved / fed ratios are clamped to this range (one-step outliers). */
#define CTRL_RATIO_MIN 0.5f
#define CTRL_RATIO_MAX 2.0f

/* Ankle (foot joint) height above the ground of the standing seed pose: the
 * training data's standing frames have it at 4.9 cm (median). */
#define CTRL_STAND_ANKLE_CM 5.0f

/* Posture steering (steer_posture): training hip heights above the terrain
 * per gait (medians of the samples with that gait > 0.9 at the current point,
 * build/train/db.npz; stand without the crouched idle clips 140_06/07).
 * Crouch: the mean (62.9; median 64.8). */
#define CTRL_HIP_STAND_CM 79.9f
#define CTRL_HIP_WALK_CM 78.7f
#define CTRL_HIP_RUN_CM 74.6f
#define CTRL_HIP_CROUCH_CM 62.9f
/* Head joint height per hip height (training: 1.79 standing, 1.76 crouched)
 * and head top above the head joint (rest skeleton: head_end 8 cm + hair). */
#define CTRL_HEAD_PER_HIP 1.77f
#define CTRL_HEAD_TOP_CM 15.0f
#define CTRL_POSTURE_ON_CM 5.0f
#define CTRL_POSTURE_OFF_CM 0.75f
#define CTRL_POSTURE_RATE 0.5f
#define CTRL_POSTURE_JUMP_MAX 0.1f

/* Collision radii: the root, and trajectory points (original: wall + 10). */
#define CTRL_ROOT_RADIUS_CM 20.0f
#define CTRL_TRAJ_RADIUS_CM 30.0f

/* Terrain samples beside each trajectory point (doc section 2). */
#define CTRL_TERRAIN_SIDE_CM 25.0f

/* Trajectory blending exponents (original demo, non-'responsive' setting):
 * the near future follows the network, the far future the user; strafing
 * follows the user's direction sooner. */
#define CTRL_BIAS_POS_WALK 2.0f
#define CTRL_BIAS_POS_STRAFE 2.0f
#define CTRL_BIAS_DIR_WALK 5.0f
#define CTRL_BIAS_DIR_STRAFE 3.0f

/* Predicted joint positions are blended 50/50 with the previous positions
 * plus the predicted velocities (original demo's extra_joint_smooth): this
 * removes per-frame jitter from the positions fed back as the next input and
 * from the hip translation. Rotations are used unsmoothed. */
#define CTRL_JOINT_SMOOTH 0.5f

/* Output layout offsets (docs/FORMATS_PFNN.md section 3). */
enum {
    OY_RVEL_X = 0, OY_RVEL_Z = 1, OY_RANG = 2, OY_DPHASE = 3,
    OY_TPOS_X = 8, OY_TPOS_Z = 14, OY_TDIR_X = 20, OY_TDIR_Z = 26,
    OY_FUTURE = 6,
    OY_JPOS = 32, OY_JVEL = 95, OY_JROT = 158
};
/* Input layout offsets (section 2). */
enum {
    IX_POS_X = 0, IX_POS_Z = 12, IX_DIR_X = 24, IX_DIR_Z = 36, IX_GAIT = 48,
    IX_H_L = 120, IX_H_C = 132, IX_H_R = 144, IX_JPOS = 156, IX_JVEL = 219
};

static float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }
static float lerpf(float a, float b, float t) { return a + (b - a) * t; }
static float finite_or0(float v) { return isfinite(v) ? v : 0.0f; }

/* Fraction of the way to a target after dt with time constant tau. */
static float smooth_alpha(float dt_s, float tau_s) { return 1.0f - expf(-dt_s / tau_s); }

static float wrap_2pi(float a)
{
    a = fmodf(a, CTRL_TWO_PI);
    if (a < 0.0f)
        a += CTRL_TWO_PI;
    return a >= CTRL_TWO_PI ? 0.0f : a;
}

static float wrap_pi(float a)
{
    a = fmodf(a + CTRL_PI, CTRL_TWO_PI);
    if (a < 0.0f)
        a += CTRL_TWO_PI;
    return a - CTRL_PI;
}

static float yaw_of(const float d[2]) { return atan2f(d[0], d[1]); }

/* Root frame <-> world for ground-plane vectors. R(yaw) maps +Z to
 * (sin yaw, cos yaw); features.py's _rot2 is its inverse. */
static void to_world(float yaw, float lx, float lz, float *wx, float *wz)
{
    float c = cosf(yaw), s = sinf(yaw);
    *wx = c * lx + s * lz;
    *wz = -s * lx + c * lz;
}

static void to_root(float yaw, float wx, float wz, float *lx, float *lz)
{
    float c = cosf(yaw), s = sinf(yaw);
    *lx = c * wx - s * wz;
    *lz = s * wx + c * wz;
}

/* Direction interpolation by angle (shortest way), robust to opposites. */
static void mix_dir(const float a[2], const float b[2], float t, float out[2])
{
    float ya = yaw_of(a), yb = yaw_of(b);
    float y = ya + wrap_pi(yb - ya) * t;
    out[0] = sinf(y);
    out[1] = cosf(y);
}

static void quat_yaw(float yaw, float out[4])
{
    out[0] = 0.0f;
    out[1] = sinf(0.5f * yaw);
    out[2] = 0.0f;
    out[3] = cosf(0.5f * yaw);
}

void ctrl_quat_conj(const float q[4], float out[4])
{
    out[0] = -q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = q[3];
}

/* Rotation matrix (row-major m[r][c]) -> unit quaternion x y z w. */
static void quat_from_mat(const float m[3][3], float q[4])
{
    float tr = m[0][0] + m[1][1] + m[2][2];
    if (tr > 0.0f) {
        float s = sqrtf(tr + 1.0f) * 2.0f;
        q[3] = 0.25f * s;
        q[0] = (m[2][1] - m[1][2]) / s;
        q[1] = (m[0][2] - m[2][0]) / s;
        q[2] = (m[1][0] - m[0][1]) / s;
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        float s = sqrtf(1.0f + m[0][0] - m[1][1] - m[2][2]) * 2.0f;
        q[3] = (m[2][1] - m[1][2]) / s;
        q[0] = 0.25f * s;
        q[1] = (m[0][1] + m[1][0]) / s;
        q[2] = (m[0][2] + m[2][0]) / s;
    } else if (m[1][1] > m[2][2]) {
        float s = sqrtf(1.0f + m[1][1] - m[0][0] - m[2][2]) * 2.0f;
        q[3] = (m[0][2] - m[2][0]) / s;
        q[0] = (m[0][1] + m[1][0]) / s;
        q[1] = 0.25f * s;
        q[2] = (m[1][2] + m[2][1]) / s;
    } else {
        float s = sqrtf(1.0f + m[2][2] - m[0][0] - m[1][1]) * 2.0f;
        q[3] = (m[1][0] - m[0][1]) / s;
        q[0] = (m[0][2] + m[2][0]) / s;
        q[1] = (m[1][2] + m[2][1]) / s;
        q[2] = 0.25f * s;
    }
    float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++)
        q[k] /= n;
}

/* 6-D rotation (Zhou et al. 2019; doc section 3) -> quaternion. A degenerate
 * pair (zero or parallel columns) decodes to identity. */
static void quat_from_6d(const float r6[6], float q[4])
{
    float a[3] = {r6[0], r6[1], r6[2]}, b[3] = {r6[3], r6[4], r6[5]};
    float la = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(la > 1e-6f)) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        return;
    }
    for (int k = 0; k < 3; k++)
        a[k] /= la;
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    for (int k = 0; k < 3; k++)
        b[k] -= d * a[k];
    float lb = sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    if (!(lb > 1e-6f)) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
        return;
    }
    for (int k = 0; k < 3; k++)
        b[k] /= lb;
    float cc[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    float m[3][3];
    for (int r = 0; r < 3; r++) {
        m[r][0] = a[r];
        m[r][1] = b[r];
        m[r][2] = cc[r];
    }
    quat_from_mat(m, q);
}

float ctrl_ground(const ctrl_t *c, float x, float z) { return terrain_height(&c->level->terrain, x, z); }

void ctrl_update_model(ctrl_t *c)
{
    pose_model_job_t job = {
        .skel = c->skel,
        .local = &c->pose,
        .capacity = SKEL_MAX_JOINTS,
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

/* ---- gaits -------------------------------------------------------------- */

/* Gait weights from the factored state: jump takes over from crouch, which
 * takes over from stand/walk/run (as the labels are exclusive categories). */
static void gait_combine(const float base[3], float crouch, float jump, float out[CTRL_GAITS])
{
    float j = clampf(jump, 0.0f, 1.0f);
    float cr = clampf(crouch, 0.0f, 1.0f) * (1.0f - j);
    float rest = 1.0f - j - cr;
    out[CTRL_GAIT_STAND] = base[0] * rest;
    out[CTRL_GAIT_WALK] = base[1] * rest;
    out[CTRL_GAIT_RUN] = base[2] * rest;
    out[CTRL_GAIT_CROUCH] = cr;
    out[CTRL_GAIT_JUMP] = j;
    out[CTRL_GAIT_SPARE] = 0.0f;
}

static float area_crouch(const ctrl_t *c, float x, float z)
{
    float ceil_cm = level_crouch_ceiling(c->level, x, z);
    return (ceil_cm > 0.0f && ceil_cm < CTRL_CROUCH_CLEARANCE_CM) ? 1.0f : 0.0f;
}

static float falloff_weight(float dx, float dz, float radius)
{
    float d = sqrtf(dx * dx + dz * dz);
    return 1.0f - clampf((d - radius) / CTRL_JUMP_FALLOFF_CM, 0.0f, 1.0f);
}

static float area_jump(const ctrl_t *c, float x, float z)
{
    float w = 0.0f;
    const level_t *l = c->level;
    for (int i = 0; i < l->jump_count; i++) {
        float wi = falloff_weight(x - l->jump[i].x, z - l->jump[i].z, l->jump[i].radius_cm);
        w = wi > w ? wi : w;
    }
    if (c->jump_req_time_s > 0.0f) {
        float wi = falloff_weight(x - c->jump_req_x, z - c->jump_req_z, CTRL_JUMP_RADIUS_CM);
        w = wi > w ? wi : w;
    }
    return w;
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
    c->ground_held = false;
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

ctrl_t *ctrl_create(const ctrl_desc *desc)
{
    const pfnn_network *net = desc ? desc->net : NULL;
    const skel_t *s = desc ? desc->skel : NULL;
    if (!net || !s) {
        log_error("ctrl: create needs a network and a skeleton");
        return NULL;
    }
    if (net->n_in != PFNN_N_IN || net->n_out != PFNN_N_OUT || net->n_joints != PFNN_N_JOINTS ||
        net->n_traj != PFNN_N_TRAJ || net->n_gaits != PFNN_N_GAITS) {
        log_error("ctrl: %s: network layout %d->%d (%d joints) is not the shipped %d->%d (%d joints)",
                  net->name, net->n_in, net->n_out, net->n_joints, PFNN_N_IN, PFNN_N_OUT, PFNN_N_JOINTS);
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
               s->joint_parent[c->j.foot[0]] != c->j.shin[0] ||
               s->joint_parent[c->j.shin[1]] != c->j.thigh[1] ||
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
        c->leg_len[side] = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) + sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    }
    return c;
}

void ctrl_destroy(ctrl_t *c)
{
    if (!c)
        return;
    pfnn_workspace_free(&c->ws);
    free(c);
}

void ctrl_reset(ctrl_t *c, const level_t *level, const ctrl_spawn *spawn)
{
    assert(c && level && spawn);
    c->level = level;
    memset(&c->stats, 0, sizeof c->stats);
    c->nan_logged = false;
    c->jump_held = false;
    float x = finite_or0(spawn->x), z = finite_or0(spawn->z);
    level_push_out_of_walls(level, &x, &z, CTRL_ROOT_RADIUS_CM);
    set_safe_state(c, x, z, finite_or0(spawn->heading_rad));
}

void ctrl_set_mode(ctrl_t *c, pfnn_mode mode)
{
    if (pfnn_has_mode(c->net, mode, PFNN_F32))
        c->mode = mode;
    else
        log_warn("ctrl: phase mode %s not prepared; keeping %s", pfnn_mode_name(mode), pfnn_mode_name(c->mode));
}

pfnn_mode ctrl_get_mode(const ctrl_t *c) { return c->mode; }
void ctrl_set_ik(ctrl_t *c, bool on) { c->ik_on = on; }
bool ctrl_get_ik(const ctrl_t *c) { return c->ik_on; }

/* ---- one step ------------------------------------------------------------ */

/* Smoothed velocity, direction, strafe and gait targets from the input. */
static void update_targets(ctrl_t *c, const ctrl_input *in, float dt_s)
{
    float mx = finite_or0(in->move_x), mz = finite_or0(in->move_z);
    float mag = sqrtf(mx * mx + mz * mz);
    if (mag > 1.0f) {
        mx /= mag;
        mz /= mag;
        mag = 1.0f;
    }
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float crouch_t = (in->crouch || area_crouch(c, root[0], root[2]) > 0.0f) ? 1.0f : 0.0f;
    float s = clampf(finite_or0(in->speed), 0.0f, 1.0f);
    float speed = crouch_t > 0.0f ? CTRL_CROUCH_SPEED_CM_S : lerpf(CTRL_WALK_SPEED_CM_S, CTRL_RUN_SPEED_CM_S, s);
    float vel_new[2] = {mx * speed, mz * speed};

    float av = smooth_alpha(dt_s, CTRL_TAU_VEL_S);
    c->target_vel[0] = lerpf(c->target_vel[0], vel_new[0], av);
    c->target_vel[1] = lerpf(c->target_vel[1], vel_new[1], av);
    c->strafe_amount = lerpf(c->strafe_amount, in->strafe ? 1.0f : 0.0f, smooth_alpha(dt_s, CTRL_TAU_STRAFE_S));

    float fx = finite_or0(in->facing_x), fz = finite_or0(in->facing_z);
    float fl = sqrtf(fx * fx + fz * fz);
    float dir_new[2] = {c->target_dir[0], c->target_dir[1]};
    if (in->strafe && fl > 1e-3f) {
        dir_new[0] = fx / fl;
        dir_new[1] = fz / fl;
    } else if (mag * speed > CTRL_STAND_SPEED_CM_S) {
        dir_new[0] = mx / mag;
        dir_new[1] = mz / mag;
    }
    mix_dir(c->target_dir, dir_new, smooth_alpha(dt_s, CTRL_TAU_DIR_S), c->target_dir);

    /* Jump button: the rising edge places a temporary jump area ahead. */
    if (in->jump && !c->jump_held && c->jump_req_time_s <= 0.0f) {
        const float *p = c->traj.pos[CTRL_TRAJ_NOW + CTRL_JUMP_AHEAD_FRAMES];
        c->jump_req_x = p[0];
        c->jump_req_z = p[2];
        c->jump_req_time_s = CTRL_JUMP_DURATION_S;
    } else if (c->jump_req_time_s > 0.0f) {
        c->jump_req_time_s -= dt_s;
    }
    c->jump_held = in->jump;

    float base_t[3] = {1.0f, 0.0f, 0.0f};
    if (mag * speed > CTRL_STAND_SPEED_CM_S) {
        base_t[0] = 0.0f;
        base_t[1] = 1.0f - s;
        base_t[2] = s;
    }

    float ag = smooth_alpha(dt_s, CTRL_TAU_GAIT_S);
    for (int k = 0; k < 3; k++)
        c->base[k] = lerpf(c->base[k], base_t[k], ag);
    c->crouch = lerpf(c->crouch, crouch_t, ag);
    c->jump = lerpf(c->jump, area_jump(c, root[0], root[2]), ag);
}

/* Moves (x, z) from the previous point towards the candidate without
 * entering or crossing a wall. */
static void collide_point(const ctrl_t *c, const float from[2], float radius, float cand[2])
{
    float x = cand[0], z = cand[1];
    level_push_out_of_walls(c->level, &x, &z, radius);
    if (!level_segment_crosses_wall(c->level, from[0], from[1], x, z)) {
        cand[0] = x;
        cand[1] = z;
    } else if (level_segment_crosses_wall(c->level, from[0], from[1], cand[0], cand[1])) {
        cand[0] = from[0];
        cand[1] = from[1];
    }
}

/* Future trajectory: the network's prediction blended towards the user's
 * target velocity and direction, more so further ahead; walls; areas; heights. */
static void predict_trajectory(ctrl_t *c)
{
    ctrl_traj_view *t = &c->traj;
    float bias_pos = lerpf(CTRL_BIAS_POS_WALK, CTRL_BIAS_POS_STRAFE, c->strafe_amount);
    float bias_dir = lerpf(CTRL_BIAS_DIR_WALK, CTRL_BIAS_DIR_STRAFE, c->strafe_amount);
    float vel_frame[2] = {c->target_vel[0] / CTRL_NET_FPS, c->target_vel[1] / CTRL_NET_FPS};
    const float half = (float)(CTRL_TRAJ_FRAMES - CTRL_TRAJ_NOW);

    float prev_net[2] = {t->pos[CTRL_TRAJ_NOW][0], t->pos[CTRL_TRAJ_NOW][2]};
    float prev_blend[2] = {prev_net[0], prev_net[1]};
    for (int i = CTRL_TRAJ_NOW + 1; i < CTRL_TRAJ_FRAMES; i++) {
        float u = (float)(i - CTRL_TRAJ_NOW) / half;
        float scale_pos = 1.0f - powf(1.0f - u, bias_pos);
        float scale_dir = 1.0f - powf(1.0f - u, bias_dir);
        float net_x = t->pos[i][0], net_z = t->pos[i][2];
        float cand[2] = {prev_blend[0] + lerpf(net_x - prev_net[0], vel_frame[0], scale_pos),
                         prev_blend[1] + lerpf(net_z - prev_net[1], vel_frame[1], scale_pos)};
        collide_point(c, prev_blend, CTRL_TRAJ_RADIUS_CM, cand);
        prev_net[0] = net_x;
        prev_net[1] = net_z;
        t->pos[i][0] = prev_blend[0] = cand[0];
        t->pos[i][2] = prev_blend[1] = cand[1];
        mix_dir(t->dir[i], c->target_dir, scale_dir, t->dir[i]);
    }

    gait_combine(c->base, c->crouch, c->jump, t->gait[CTRL_TRAJ_NOW]);
    for (int i = CTRL_TRAJ_NOW; i < CTRL_TRAJ_FRAMES; i++) {
        float x = t->pos[i][0], z = t->pos[i][2];
        /* The root's height is advance()'s (support_height). */
        if (i > CTRL_TRAJ_NOW)
            t->pos[i][1] = ctrl_ground(c, x, z);
        if (i > CTRL_TRAJ_NOW) {
            float cr = fmaxf(c->crouch, area_crouch(c, x, z));
            float jp = fmaxf(c->jump, area_jump(c, x, z));
            gait_combine(c->base, cr, jp, t->gait[i]);
        }
    }
}

/* Posture steering. The trained network mostly continues the posture it is
 * fed (the previous pose): swapping a crouch sample's previous pose for a
 * walking one moves the predicted head from 110 to 138 cm in one step, and
 * the gait input then changes the height only slowly. Standing, it even has
 * two attractors for the same input (the upright idles and the crouched
 * idle clips 140_06/07, labelled 'stand' because the head stays above the
 * crouch threshold; hip 68.7 cm, knees 69 deg), and a stop from a run, a
 * crouch or a jump lands in the crouched one. So when the fed hip is more
 * than CTRL_POSTURE_ON_CM from the training hip height of the current gait
 * mix, the fed pose is scaled vertically towards it (CTRL_POSTURE_RATE of
 * the ratio per step; stand and crouch differ mostly by a uniform vertical
 * scale: head/hip 1.79 standing, 1.76 crouched) until it is within
 * CTRL_POSTURE_OFF_CM; the network then continues the posture by itself and
 * the fed pose is its own again. No steering while jumping. */
static float posture_target_hip(const ctrl_t *c, const float g[CTRL_GAITS])
{
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float crouch_hip = CTRL_HIP_CROUCH_CM;
    float ceil_cm = level_crouch_ceiling(c->level, root[0], root[2]);
    /* Under a ceiling, low enough that the head top clears it. */
    if (ceil_cm > 0.0f && ceil_cm < CTRL_CROUCH_CLEARANCE_CM)
        crouch_hip = fminf(crouch_hip, (ceil_cm - CTRL_HEAD_TOP_CM) / CTRL_HEAD_PER_HIP);
    float w = g[CTRL_GAIT_STAND] + g[CTRL_GAIT_WALK] + g[CTRL_GAIT_RUN] + g[CTRL_GAIT_CROUCH];
    if (!(w > 1e-3f))
        return 0.0f;
    return (g[CTRL_GAIT_STAND] * CTRL_HIP_STAND_CM + g[CTRL_GAIT_WALK] * CTRL_HIP_WALK_CM +
            g[CTRL_GAIT_RUN] * CTRL_HIP_RUN_CM + g[CTRL_GAIT_CROUCH] * crouch_hip) / w;
}

static void steer_posture(ctrl_t *c)
{
    const float *g = c->traj.gait[CTRL_TRAJ_NOW];
    float *x = c->x;
    float hip_y = x[IX_JPOS + 3 * c->j.hip + 1];
    float target = posture_target_hip(c, g);
    float err = fabsf(hip_y - target);
    if (g[CTRL_GAIT_JUMP] > CTRL_POSTURE_JUMP_MAX || !(target > 0.0f) || !(hip_y > 1.0f))
        c->posture_steer = false;
    else if (err > CTRL_POSTURE_ON_CM)
        c->posture_steer = true;
    else if (err < CTRL_POSTURE_OFF_CM)
        c->posture_steer = false;
    if (!c->posture_steer)
        return;
    if (g[CTRL_GAIT_STAND] > 0.5f) {
        /* Standing: towards the upright seed pose, which also straightens
         * the knees (scaling alone leaves a 45 degree stance at hip 78). */
        for (int b = 0; b < CTRL_JOINTS; b++)
            for (int a = 0; a < 3; a++)
                x[IX_JPOS + 3 * b + a] = lerpf(x[IX_JPOS + 3 * b + a], c->stand_pose[b][a], CTRL_POSTURE_RATE);
        return;
    }
    float k = 1.0f + CTRL_POSTURE_RATE * (target / hip_y - 1.0f);
    for (int b = 0; b < CTRL_JOINTS; b++)
        x[IX_JPOS + 3 * b + 1] *= k;
}

/* Sets the fed momentum for the requested walk/run speed (see CTRL_STEER_*).
 * Crouching is left to the network. Jumps keep the approach's momentum: the
 * training jumps are mostly standing ones (median 110 cm/s), and without it
 * a run into a jump area slowed to ~120 cm/s and jumped short of the gap. */
static void steer_speed(ctrl_t *c)
{
    const ctrl_traj_view *t = &c->traj;
    float w = (c->base[1] + c->base[2]) * (1.0f - c->crouch);
    /* Root displacement of the last step (cm per frame) and its speed. */
    const float *p0 = t->pos[CTRL_TRAJ_NOW - 1], *p1 = t->pos[CTRL_TRAJ_NOW];
    float vx = p1[0] - p0[0], vz = p1[2] - p0[2];
    float act = sqrtf(vx * vx + vz * vz) * CTRL_NET_FPS;
    float want = sqrtf(c->target_vel[0] * c->target_vel[0] + c->target_vel[1] * c->target_vel[1]);
    want = lerpf(want, fminf(want, CTRL_JUMP_SPEED_CM_S), clampf(c->jump, 0.0f, 1.0f));
    if (c->fed_speed > CTRL_STAND_SPEED_CM_S && act > CTRL_STAND_SPEED_CM_S) {
        float r = clampf(act / c->fed_speed, CTRL_RATIO_MIN, CTRL_RATIO_MAX);
        c->speed_ratio = lerpf(c->speed_ratio, r, smooth_alpha(1.0f / CTRL_NET_FPS, CTRL_RATIO_TAU_S));
    }
    c->fed_speed = act;
    if (!(act > CTRL_STAND_SPEED_CM_S) || !(want > CTRL_STAND_SPEED_CM_S) || !(w > 0.0f))
        return;
    float k = clampf(1.0f + w * (want / (c->speed_ratio * act) - 1.0f), CTRL_STEER_MIN, CTRL_STEER_MAX);
    c->fed_speed = k * act;
    float *x = c->x;
    /* Past points (j < 6) are relative to the current root. */
    for (int j = 0; j < CTRL_TRAJ_POINTS / 2; j++) {
        x[IX_POS_X + j] *= k;
        x[IX_POS_Z + j] *= k;
    }
    /* Every joint's velocity carries the root's; only that part is scaled. */
    float lx, lz;
    to_root(c->prev_yaw, vx, vz, &lx, &lz);
    for (int b = 0; b < CTRL_JOINTS; b++) {
        x[IX_JVEL + 3 * b + 0] += (k - 1.0f) * lx;
        x[IX_JVEL + 3 * b + 2] += (k - 1.0f) * lz;
    }
}

/* The network input, exactly as features.py builds X (doc section 2). */
static void build_input(ctrl_t *c)
{
    const ctrl_traj_view *t = &c->traj;
    const float *root = t->pos[CTRL_TRAJ_NOW];
    float yaw = yaw_of(t->dir[CTRL_TRAJ_NOW]);
    float root_h = root[1];
    float *x = c->x;
    for (int j = 0; j < CTRL_TRAJ_POINTS; j++) {
        int i = j * CTRL_TRAJ_STEP;
        const float *p = t->pos[i];
        const float *d = t->dir[i];
        to_root(yaw, p[0] - root[0], p[2] - root[2], &x[IX_POS_X + j], &x[IX_POS_Z + j]);
        to_root(yaw, d[0], d[1], &x[IX_DIR_X + j], &x[IX_DIR_Z + j]);
        for (int g = 0; g < CTRL_GAITS; g++)
            x[IX_GAIT + CTRL_GAITS * j + g] = t->gait[i][g];
        /* Left of a direction (dx, dz) is (dz, -dx). */
        float lx = d[1] * CTRL_TERRAIN_SIDE_CM, lz = -d[0] * CTRL_TERRAIN_SIDE_CM;
        x[IX_H_L + j] = ctrl_ground(c, p[0] + lx, p[2] + lz) - root_h;
        x[IX_H_C + j] = ctrl_ground(c, p[0], p[2]) - root_h;
        x[IX_H_R + j] = ctrl_ground(c, p[0] - lx, p[2] - lz) - root_h;
    }
    /* Previous frame's joints in the previous frame's root frame. */
    for (int b = 0; b < CTRL_JOINTS; b++) {
        const float *p = c->joint_world[b];
        const float *v = c->joint_vel_world[b];
        float *xp = &x[IX_JPOS + 3 * b];
        float *xv = &x[IX_JVEL + 3 * b];
        to_root(c->prev_yaw, p[0] - c->prev_root[0], p[2] - c->prev_root[2], &xp[0], &xp[2]);
        xp[1] = p[1] - c->prev_root[1];
        to_root(c->prev_yaw, v[0], v[2], &xv[0], &xv[2]);
        xv[1] = v[1];
    }
    steer_posture(c);
    steer_speed(c);
}

/* Pose of the current frame from the output: world joint positions (smoothed,
 * fed back next step), rotations -> local rotations, rest offsets. */
static void build_pose(ctrl_t *c)
{
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float yaw = yaw_of(c->traj.dir[CTRL_TRAJ_NOW]);
    float root_h = root[1];
    const float *y = c->y;
    for (int b = 0; b < CTRL_JOINTS; b++) {
        const float *p = &y[OY_JPOS + 3 * b];
        const float *v = &y[OY_JVEL + 3 * b];
        float pw[3], vw[3];
        to_world(yaw, p[0], p[2], &pw[0], &pw[2]);
        pw[0] += root[0];
        pw[1] = p[1] + root_h;
        pw[2] += root[2];
        to_world(yaw, v[0], v[2], &vw[0], &vw[2]);
        vw[1] = v[1];
        for (int a = 0; a < 3; a++) {
            c->joint_world[b][a] = lerpf(c->joint_world[b][a] + vw[a], pw[a], CTRL_JOINT_SMOOTH);
            c->joint_vel_world[b][a] = vw[a];
        }
    }
    c->prev_root[0] = root[0];
    c->prev_root[1] = root_h;
    c->prev_root[2] = root[2];
    c->prev_yaw = yaw;

    /* Global rotations in the world: yaw x root-frame rotation. Local =
     * parent^-1 x joint; translations are the rest offsets except the hip's,
     * so every bone keeps its rest length exactly. */
    float qy[4], global[CTRL_JOINTS][4];
    quat_yaw(yaw, qy);
    for (int b = 0; b < CTRL_JOINTS; b++) {
        float q[4];
        quat_from_6d(&y[OY_JROT + 6 * b], q);
        pose_quat_mul(qy, q, global[b]);
    }
    c->pose = c->rest;
    for (int b = 0; b < CTRL_JOINTS; b++) {
        int par = c->skel->joint_parent[b];
        if (par < 0) {
            memcpy(c->pose.rot[b], global[b], sizeof global[b]);
        } else {
            float inv[4];
            ctrl_quat_conj(global[par], inv);
            pose_quat_mul(inv, global[b], c->pose.rot[b]);
        }
    }
    memcpy(c->pose.trans[c->j.hip], c->joint_world[c->j.hip], sizeof(float) * 3);
    ctrl_update_model(c);
}

/* The root's height: the terrain under it, except that while the jump gait
 * is above CTRL_JUMP_HOLD_MIN it does not drop below PREV_H (the last
 * height), nor afterwards while the terrain under it stays a gap (more than
 * CTRL_GAP_DEPTH_CM below) until it stands on ground again; otherwise it
 * drops by at most CTRL_ROOT_FALL_CM_S. The network's jumps were recorded
 * over flat ground and are shorter than the gaps level's trenches (1 and
 * 1.6 m), and its hip is relative to the ground: following the terrain down
 * sank the jumping body into the trench it jumps over (the hip 46-82 cm
 * below its approach height). Rising terrain is followed at once. */
static float support_height(ctrl_t *c, float x, float z, float prev_h)
{
    float g = ctrl_ground(c, x, z);
    if (!isfinite(prev_h) || g >= prev_h) {
        c->ground_held = false;
        return g;
    }
    if (c->jump > CTRL_JUMP_HOLD_MIN) {
        c->ground_held = true;
        return prev_h;
    }
    if (c->ground_held && g < prev_h - CTRL_GAP_DEPTH_CM)
        return prev_h;
    c->ground_held = false;
    return fmaxf(g, prev_h - CTRL_ROOT_FALL_CM_S / CTRL_NET_FPS);
}

/* Past shifts by one frame, the root moves by the predicted root motion
 * (never through a wall), the future comes from the network, phase advances. */
static void advance(ctrl_t *c)
{
    ctrl_traj_view *t = &c->traj;
    const float *y = c->y;
    /* Standing still, the root does not drift (original demo). The stand
     * part of the base gait is used, not the stand weight: a crouch replaces
     * 'stand' in the labels, and a still crouch must not drift either. */
    float stand_amount = powf(1.0f - clampf(c->base[0], 0.0f, 1.0f), 0.25f);
    memmove(t->pos[0], t->pos[1], sizeof(t->pos[0]) * CTRL_TRAJ_NOW);
    memmove(t->dir[0], t->dir[1], sizeof(t->dir[0]) * CTRL_TRAJ_NOW);
    memmove(t->gait[0], t->gait[1], sizeof(t->gait[0]) * CTRL_TRAJ_NOW);

    float *root = t->pos[CTRL_TRAJ_NOW];
    float yaw = yaw_of(t->dir[CTRL_TRAJ_NOW]);
    float dx, dz;
    to_world(yaw, y[OY_RVEL_X] * stand_amount, y[OY_RVEL_Z] * stand_amount, &dx, &dz);
    float from[2] = {root[0], root[2]};
    float cand[2] = {root[0] + dx, root[2] + dz};
    float want[2] = {cand[0], cand[1]};
    collide_point(c, from, CTRL_ROOT_RADIUS_CM, cand);
    if (cand[0] != want[0] || cand[1] != want[1])
        c->stats.wall_pushes++;
    if ((want[0] != from[0] || want[1] != from[1]) && cand[0] == from[0] && cand[1] == from[1])
        c->stats.wall_blocks++;
    c->stats.root_speed_cm_s = hypotf(cand[0] - from[0], cand[1] - from[1]) * CTRL_NET_FPS;
    root[0] = cand[0];
    root[2] = cand[1];
    root[1] = support_height(c, root[0], root[2], root[1]);
    yaw = wrap_pi(yaw + stand_amount * y[OY_RANG]);
    t->dir[CTRL_TRAJ_NOW][0] = sinf(yaw);
    t->dir[CTRL_TRAJ_NOW][1] = cosf(yaw);

    /* Output point k is 10 (k + 1) frames after the new current frame, in its
     * root frame; frames in between interpolate, from the root itself. */
    for (int i = CTRL_TRAJ_NOW + 1; i < CTRL_TRAJ_FRAMES; i++) {
        int off = i - CTRL_TRAJ_NOW;
        /* Between output points lo (-1: the root) and lo + 1 (<= 5). */
        int lo = off / CTRL_TRAJ_STEP - 1;
        int hi = lo + 1;
        float m = (float)(off % CTRL_TRAJ_STEP) / (float)CTRL_TRAJ_STEP;
        float px0 = 0.0f, pz0 = 0.0f, dx0 = 0.0f, dz0 = 1.0f;
        if (lo >= 0) {
            px0 = y[OY_TPOS_X + lo];
            pz0 = y[OY_TPOS_Z + lo];
            dx0 = y[OY_TDIR_X + lo];
            dz0 = y[OY_TDIR_Z + lo];
        }
        float px = px0, pz = pz0, ddx = dx0, ddz = dz0;
        if (m > 0.0f) {
            px = lerpf(px0, y[OY_TPOS_X + hi], m);
            pz = lerpf(pz0, y[OY_TPOS_Z + hi], m);
            ddx = lerpf(dx0, y[OY_TDIR_X + hi], m);
            ddz = lerpf(dz0, y[OY_TDIR_Z + hi], m);
        }
        float wx, wz;
        to_world(yaw, px, pz, &wx, &wz);
        t->pos[i][0] = root[0] + wx;
        t->pos[i][2] = root[2] + wz;
        t->pos[i][1] = ctrl_ground(c, t->pos[i][0], t->pos[i][2]);
        to_world(yaw, ddx, ddz, &wx, &wz);
        float l = sqrtf(wx * wx + wz * wz);
        if (l > 1e-6f) {
            t->dir[i][0] = wx / l;
            t->dir[i][1] = wz / l;
        } else {
            t->dir[i][0] = t->dir[CTRL_TRAJ_NOW][0];
            t->dir[i][1] = t->dir[CTRL_TRAJ_NOW][1];
        }
    }
    c->phase = wrap_2pi(c->phase + y[OY_DPHASE]);
}

static void nan_reset(ctrl_t *c)
{
    c->stats.nan_resets++;
    if (!c->nan_logged) {
        log_error("ctrl: network output is not finite at step %llu; pose reset to rest at the root "
                  "(logged once, counted in stats)", (unsigned long long)c->stats.steps);
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

void ctrl_step(ctrl_t *c, const ctrl_input *in, float dt_s)
{
    assert(c && c->level && in);
    if (!(dt_s > 0.0f) || !isfinite(dt_s))
        dt_s = 1.0f / CTRL_NET_FPS;
    c->stats.steps++;
    update_targets(c, in, dt_s);
    predict_trajectory(c);
    build_input(c);

    c->last_phase = c->phase;
    pfnn_job job = {
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
    if (!pfnn_output_is_finite(c->y, PFNN_N_OUT)) {
        nan_reset(c);
        return;
    }

    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float yaw = yaw_of(c->traj.dir[CTRL_TRAJ_NOW]);
    float root_h = root[1];
    build_pose(c);
    ctrl_foot_run(c, dt_s, yaw);
    c->stats.head_height_cm = c->joint_pos[c->j.head][1] - root_h;
    c->stats.hip_height_cm = c->joint_pos[c->j.hip][1] - root_h;
    memcpy(c->stats.gait, c->traj.gait[CTRL_TRAJ_NOW], sizeof c->stats.gait);

    advance(c);
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
const ctrl_traj_view *ctrl_trajectory(const ctrl_t *c) { return &c->traj; }
const float *ctrl_last_output(const ctrl_t *c) { return c->y; }
const float *ctrl_last_input(const ctrl_t *c) { return c->x; }
float ctrl_last_phase(const ctrl_t *c) { return c->last_phase; }

void ctrl_get_stats(const ctrl_t *c, ctrl_stats *out)
{
    *out = c->stats;
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        out->contact_value[k] = c->y[4 + k];
        out->contact[k] = c->foot.on[k];
        out->lock_weight[k] = c->foot.weight[k];
    }
}
