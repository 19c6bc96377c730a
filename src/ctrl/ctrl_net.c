/* ctrl_net.c: the network's input and output (see ctrl_net.h). */
#include "ctrl/ctrl_net.h"

#include "ctrl/ctrl_world.h"

#include <cglm/cglm.h>
#include <math.h>
#include <string.h>

/* Speed kept through a jump (steer_speed), at most: the forward jumps of the
 * training data (clips 105_39..42) take off at 106-189 cm/s (medians); at a
 * full run speed the network only hops. */
#define CTRL_JUMP_SPEED_CM_S 180.0f

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
#define CTRL_RATIO_TAU_S 0.1f /* smoothing of achieved / fed speed */
#define CTRL_STEER_MIN 0.5f
#define CTRL_STEER_MAX 1.5f
/* Achieved / fed ratios are clamped to this range (one-step outliers). */
#define CTRL_RATIO_MIN 0.5f
#define CTRL_RATIO_MAX 2.0f

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

/* Terrain samples beside each trajectory point (doc section 2). */
#define CTRL_TERRAIN_SIDE_CM 25.0f

/* Predicted joint positions are blended 50/50 with the previous positions
 * plus the predicted velocities (original demo's extra_joint_smooth): this
 * removes per-frame jitter from the positions fed back as the next input and
 * from the hip translation. Rotations are used unsmoothed. */
#define CTRL_JOINT_SMOOTH 0.5f
/* Pops in the network's pose (landings, inputs far from its training
 * data) are taken out by inertialization, not by limiting a joint's turn:
 * a joint's rotation (relative to its parent; the hip's in the root frame)
 * that departs from turning on as it turned the step before by more than
 * CTRL_POP_DEV_RAD (8 degrees) hands the excess to an offset that a
 * critically damped spring of half-life CTRL_POP_HALFLIFE_S takes away. A
 * step's departure from constant turning is an angular acceleration: in the
 * CMU capture (tools/train/joint_speeds.py) 99 % of steps of every category
 * stay within 2-7 degrees, walks within 6.6 at the 99.9th percentile, so 8
 * degrees leaves the recorded motion alone and catches the network's jumps
 * of 15-30 degrees. */
#define CTRL_POP_DEV_RAD 0.1396f
#define CTRL_POP_HALFLIFE_S 0.1f

/* 6-D rotation (Zhou et al. 2019; doc section 3) -> unit quaternion: the
 * two columns, Gram-Schmidt orthonormalised, and their cross product are the
 * rotation matrix's columns (cglm's mat3 is column-major, m[column]). A
 * degenerate pair (zero or parallel columns) decodes to identity. Q is a
 * versor (16-byte aligned, for cglm's SSE loads). */
static void quat_from_6d(const float r6[6], versor q)
{
    mat3 m = {{r6[0], r6[1], r6[2]}, {r6[3], r6[4], r6[5]}, {0.0f, 0.0f, 0.0f}};
    float la = glm_vec3_norm(m[0]);
    if (!(la > 1e-6f)) {
        glm_quat_identity(q);
        return;
    }
    glm_vec3_divs(m[0], la, m[0]);
    glm_vec3_muladds(m[0], -glm_vec3_dot(m[0], m[1]), m[1]);
    float lb = glm_vec3_norm(m[1]);
    if (!(lb > 1e-6f)) {
        glm_quat_identity(q);
        return;
    }
    glm_vec3_divs(m[1], lb, m[1]);
    glm_vec3_cross(m[0], m[1], m[2]);
    glm_mat3_quat(m, q);
    glm_quat_normalize(q);
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
            g[CTRL_GAIT_RUN] * CTRL_HIP_RUN_CM + g[CTRL_GAIT_CROUCH] * crouch_hip) /
           w;
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
            glm_vec3_lerp(&x[IX_JPOS + 3 * b], c->stand_pose[b], CTRL_POSTURE_RATE, &x[IX_JPOS + 3 * b]);
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
    const ctrl_traj_view_t *t = &c->traj;
    float w = c->base[1] + c->base[2];
    /* Root displacement of the last step (cm per frame) and its speed. */
    const float *p0 = t->pos[CTRL_TRAJ_NOW - 1], *p1 = t->pos[CTRL_TRAJ_NOW];
    float vx = p1[0] - p0[0], vz = p1[2] - p0[2];
    float act = sqrtf(vx * vx + vz * vz) * CTRL_NET_FPS;
    float want = glm_vec2_norm(c->target_vel);
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
    /* Crouched, the network follows the momentum it is fed far more than its
     * trajectory: a sideways shuffle at the start of a crouch walk grew into
     * walking sideways. So the fed momentum also turns towards the
     * requested direction (by the crouch share of the angle). */
    float turn = 0.0f;
    if (c->crouch > 0.0f)
        turn = clampf(c->crouch, 0.0f, 1.0f) * wrap_pi(atan2f(c->target_vel[0], c->target_vel[1]) - atan2f(vx, vz));
    /* The fed root motion becomes k R(turn) times the last one: the past
     * points (relative to the current root, in its frame) and the root part
     * of every joint's velocity change with it. R(turn) about +y takes
     * (x, z) to (x cos + z sin, -x sin + z cos), as to_world() does. */
    float ct = cosf(turn), st = sinf(turn);
    float *x = c->x;
    for (int j = 0; j < CTRL_TRAJ_POINTS / 2; j++) {
        float px = x[IX_POS_X + j], pz = x[IX_POS_Z + j];
        x[IX_POS_X + j] = k * (ct * px + st * pz);
        x[IX_POS_Z + j] = k * (-st * px + ct * pz);
    }
    float lx, lz;
    to_root(c->prev_yaw, vx, vz, &lx, &lz);
    float nx = k * (ct * lx + st * lz), nz = k * (-st * lx + ct * lz);
    for (int b = 0; b < CTRL_JOINTS; b++) {
        x[IX_JVEL + 3 * b + 0] += nx - lx;
        x[IX_JVEL + 3 * b + 2] += nz - lz;
    }
}

/* The network input, exactly as features.py builds X (doc section 2). */
void ctrl_net_input(ctrl_t *c)
{
    const ctrl_traj_view_t *t = &c->traj;
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
        /* Over a gap being jumped the network sees the ground it took off
         * from (its jumps were recorded over flat ground). */
        x[IX_H_L + j] = ctrl_foot_ground(c, p[0] + lx, p[2] + lz) - root_h;
        x[IX_H_C + j] = ctrl_foot_ground(c, p[0], p[2]) - root_h;
        x[IX_H_R + j] = ctrl_foot_ground(c, p[0] - lx, p[2] - lz) - root_h;
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

/* Joint B's rotation Q (relative to its parent) this step, with its pop
 * taken out (CTRL_POP_DEV_RAD): Q is replaced by what is shown.
 * The quaternions go through pose_quat_mul: ctrl_t's and the pose's are
 * float[4] without the 16-byte alignment cglm's versor functions load. */
static void take_out_pop(ctrl_t *c, int b, float q[4])
{
    float *off = c->pop_off[b], *off_vel = c->pop_off_vel[b];
    if (c->have_net_rot) {
        /* Where it would be turning on as it turned the step before. */
        float w[4], pred[4], inv[4], d[4];
        vec3 dev, excess = GLM_VEC3_ZERO_INIT;
        ctrl_rotvec_to_quat(c->net_turn[b], w);
        pose_quat_mul(w, c->net_rot[b], pred);
        ctrl_quat_conj(pred, inv);
        pose_quat_mul(q, inv, d);
        ctrl_quat_to_rotvec(d, dev);
        float a = glm_vec3_norm(dev);
        if (a > CTRL_POP_DEV_RAD) {
            glm_vec3_scale(dev, 1.0f - CTRL_POP_DEV_RAD / a, excess);
            glm_vec3_sub(off, excess, off);
        }
        /* The network's own turn this step, less the pop. */
        ctrl_quat_conj(c->net_rot[b], inv);
        pose_quat_mul(q, inv, d);
        ctrl_quat_to_rotvec(d, c->net_turn[b]);
        glm_vec3_sub(c->net_turn[b], excess, c->net_turn[b]);
    } else {
        memset(off, 0, sizeof c->pop_off[b]);
        memset(off_vel, 0, sizeof c->pop_off_vel[b]);
        memset(c->net_turn[b], 0, sizeof c->net_turn[b]);
    }
    memcpy(c->net_rot[b], q, sizeof c->net_rot[b]);
    ctrl_spring_decay(off, off_vel, 3, CTRL_POP_HALFLIFE_S, 1.0f / CTRL_NET_FPS);
    float o[4], shown[4];
    ctrl_rotvec_to_quat(off, o);
    pose_quat_mul(o, q, shown);
    memcpy(q, shown, sizeof shown);
}

/* Pose of the current frame from the output: world joint positions (smoothed,
 * fed back next step), rotations -> local rotations, rest offsets. */
void ctrl_net_pose(ctrl_t *c)
{
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float yaw = yaw_of(c->traj.dir[CTRL_TRAJ_NOW]);
    float root_h = root[1];
    const float *y = c->y;
    for (int b = 0; b < CTRL_JOINTS; b++) {
        const float *p = &y[OY_JPOS + 3 * b];
        const float *v = &y[OY_JVEL + 3 * b];
        vec3 pw, vw, moved;
        to_world(yaw, p[0], p[2], &pw[0], &pw[2]);
        pw[0] += root[0];
        pw[1] = p[1] + root_h;
        pw[2] += root[2];
        to_world(yaw, v[0], v[2], &vw[0], &vw[2]);
        vw[1] = v[1];
        glm_vec3_add(c->joint_world[b], vw, moved);
        glm_vec3_lerp(moved, pw, CTRL_JOINT_SMOOTH, c->joint_world[b]);
        glm_vec3_copy(vw, c->joint_vel_world[b]);
    }
    c->prev_root[0] = root[0];
    c->prev_root[1] = root_h;
    c->prev_root[2] = root[2];
    c->prev_yaw = yaw;

    /* Global rotations in the world: yaw x root-frame rotation. Local =
     * parent^-1 x joint; translations are the rest offsets except the hip's,
     * so every bone keeps its rest length exactly. */
    float qy[4], local[CTRL_JOINTS][4];
    versor rootq[CTRL_JOINTS];
    quat_yaw(yaw, qy);
    for (int b = 0; b < CTRL_JOINTS; b++)
        quat_from_6d(&y[OY_JROT + 6 * b], rootq[b]);
    for (int b = 0; b < CTRL_JOINTS; b++) {
        int par = c->skel->joint_parent[b];
        if (par < 0) {
            memcpy(local[b], rootq[b], sizeof local[b]);
        } else {
            float inv[4];
            ctrl_quat_conj(rootq[par], inv);
            pose_quat_mul(inv, rootq[b], local[b]);
        }
        take_out_pop(c, b, local[b]);
    }
    c->have_net_rot = true;
    c->pose = c->rest;
    for (int b = 0; b < CTRL_JOINTS; b++) {
        if (c->skel->joint_parent[b] < 0)
            pose_quat_mul(qy, local[b], c->pose.rot[b]);
        else
            memcpy(c->pose.rot[b], local[b], sizeof local[b]);
    }
    memcpy(c->pose.trans[c->j.hip], c->joint_world[c->j.hip], sizeof(float) * 3);
    ctrl_update_model(c);
}
