/* ctrl_foot.c: foot contacts and foot IK.
 * Contacts: the network's outputs 4..7 (heel/toe per foot, trained as 0/1
 * labels) with hysteresis. While a heel is in contact its world position is
 * locked (x/z where it touched down, y = terrain there + the network's heel
 * height above the ground under the root), so the foot neither slides nor
 * sinks or floats on slopes and steps; after contact the lock fades out.
 * Free feet follow the animation, shifted by the (smoothed) terrain height
 * difference between the foot and the root. The thigh-shin-foot chain is
 * solved with ik_two_joint_run() (knee pole = character forward), the foot
 * keeps its world orientation, is tilted onto the terrain normal while flat on
 * the ground, and is turned about the ankle so a locked toe stays put. */
#include "ctrl/ctrl_internal.h"

#include "anim/ik.h"

#include <math.h>
#include <string.h>

/* Hysteresis on the contact outputs (trained threshold 0.5). */
#define CTRL_CONTACT_ON 0.6f
#define CTRL_CONTACT_OFF 0.4f
/* Lock weight fade-out (s), so a release is not visible. A lock starts at
 * full weight: it starts where the foot is shown, so there is nothing to
 * fade in, and any fade-in would let the foot slide. */
#define CTRL_LOCK_FADE_OUT_S 0.2f
/* A lock further than this from the animated foot (cm, ground plane) lets go. */
#define CTRL_LOCK_MAX_CM 30.0f
/* Lowest heel joint / toe tip height above the terrain (cm): the ankle joint
 * of a planted foot is 4-7 cm up (tools/train/labels.py). */
#define CTRL_HEEL_MIN_CM 3.0f
#define CTRL_TOE_MIN_CM 0.0f
/* Time constant (s) of a free foot's terrain offset, so stepping over a stair
 * edge in mid-swing does not make the foot jump. */
#define CTRL_FOOT_GROUND_TAU_S 0.08f
#define CTRL_IK_MAX_EXTENSION 0.999f

static float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Toe tip of foot joint F in the world, from the model matrix. */
static void toe_world(const ctrl_t *c, int side, float out[3])
{
    const float *m = c->model[c->j.foot[side]];
    const float *o = c->skel->end_offset[c->j.toe_end[side]];
    for (int r = 0; r < 3; r++)
        out[r] = m[4 * r + 0] * o[0] + m[4 * r + 1] * o[1] + m[4 * r + 2] * o[2] + m[4 * r + 3];
}

void ctrl_contact_pos(const ctrl_t *c, float out[CTRL_CONTACTS][3])
{
    for (int side = 0; side < 2; side++) {
        memcpy(out[2 * side], c->joint_pos[c->j.foot[side]], sizeof(float) * 3);
        toe_world(c, side, out[2 * side + 1]);
    }
}

/* A released contact's lock slot holds the displayed point (where the next
 * lock starts). */
void ctrl_foot_reset(ctrl_t *c)
{
    memset(&c->foot, 0, sizeof c->foot);
    float p[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, p);
    memcpy(c->foot.lock, p, sizeof p);
}

/* Rotation scaled towards identity by w in [0, 1] (shortest arc). */
static void quat_scale(const float q[4], float w, float out[4])
{
    float qw = q[3];
    float s = 1.0f;
    if (qw < 0.0f)
        s = -1.0f;
    float x = q[0] * s, y = q[1] * s, z = q[2] * s;
    qw *= s;
    float angle = 2.0f * acosf(clampf(qw, -1.0f, 1.0f));
    float sl = sqrtf(x * x + y * y + z * z);
    if (!(sl > 1e-8f) || w <= 0.0f) {
        out[0] = out[1] = out[2] = 0.0f;
        out[3] = 1.0f;
        return;
    }
    float h = 0.5f * angle * clampf(w, 0.0f, 1.0f);
    float sh = sinf(h) / sl;
    out[0] = x * sh;
    out[1] = y * sh;
    out[2] = z * sh;
    out[3] = cosf(h);
}

static void local_from_model(ctrl_t *c, int joint, const float model_rot[4])
{
    int par = c->skel->joint_parent[joint];
    float inv[4];
    ctrl_quat_conj(c->model_rot[par], inv);
    pose_quat_mul(inv, model_rot, c->pose.rot[joint]);
}

static void solve_leg(ctrl_t *c, int side, float dt_s, float root_h, const float fwd[3])
{
    ctrl_foot_state *f = &c->foot;
    const int kh = 2 * side, kt = 2 * side + 1;
    const int thigh = c->j.thigh[side], shin = c->j.shin[side], foot = c->j.foot[side];
    float anim_heel[3], anim_toe[3];
    memcpy(anim_heel, c->joint_pos[foot], sizeof anim_heel);
    toe_world(c, side, anim_toe);
    float heel_h = anim_heel[1] - root_h;
    float toe_h = anim_toe[1] - root_h;

    /* Free target: the animation, lifted/lowered by the terrain under the
     * foot relative to the root (the network's heights are relative to the
     * ground under the root), never below the terrain. */
    float g = ctrl_ground(c, anim_heel[0], anim_heel[2]);
    f->ground_off[side] += (g - root_h - f->ground_off[side]) * (1.0f - expf(-dt_s / CTRL_FOOT_GROUND_TAU_S));
    float free_t[3] = {anim_heel[0], anim_heel[1] + f->ground_off[side], anim_heel[2]};
    if (free_t[1] < g + CTRL_HEEL_MIN_CM)
        free_t[1] = g + CTRL_HEEL_MIN_CM;

    float lock_h[3] = {f->lock[kh][0], 0.0f, f->lock[kh][2]};
    lock_h[1] = ctrl_ground(c, lock_h[0], lock_h[2]) + fmaxf(heel_h, CTRL_HEEL_MIN_CM);
    float wh = f->weight[kh];
    float target[3];
    for (int a = 0; a < 3; a++)
        target[a] = free_t[a] + (lock_h[a] - free_t[a]) * wh;

    ik_two_joint_job_t job;
    memset(&job, 0, sizeof job);
    memcpy(job.root, c->joint_pos[thigh], sizeof job.root);
    memcpy(job.mid, c->joint_pos[shin], sizeof job.mid);
    memcpy(job.end, c->joint_pos[foot], sizeof job.end);
    memcpy(job.target, target, sizeof job.target);
    memcpy(job.pole, fwd, sizeof job.pole);
    job.max_extension = CTRL_IK_MAX_EXTENSION;
    if (!ik_two_joint_run(&job))
        return;

    /* new_upper = d_upper x upper, new_lower = d_lower x d_upper x lower;
     * the foot keeps its world orientation. */
    float q_thigh[4], q_shin[4], tmp[4], q_foot[4];
    pose_quat_mul(job.d_upper, c->model_rot[thigh], q_thigh);
    pose_quat_mul(job.d_upper, c->model_rot[shin], tmp);
    pose_quat_mul(job.d_lower, tmp, q_shin);
    memcpy(q_foot, c->model_rot[foot], sizeof q_foot);

    /* Flat on the ground (heel and toe locked): tilt onto the terrain normal. */
    float wt = f->weight[kt];
    float w_flat = fminf(wh, wt);
    if (w_flat > 0.0f) {
        float n[3], up[3], q_al[4];
        const float y_axis[3] = {0.0f, 1.0f, 0.0f};
        terrain_normal(&c->level->terrain, job.new_end[0], job.new_end[2], n);
        pose_quat_rotate(q_foot, y_axis, up);
        ik_align_to_normal(up, n, w_flat, q_al);
        pose_quat_mul(q_al, q_foot, tmp);
        memcpy(q_foot, tmp, sizeof q_foot);
    }
    /* Toe locked while the heel is up (push-off): turn the foot about the
     * ankle so the toe stays on its lock. */
    float w_toe = wt * (1.0f - wh);
    if (w_toe > 0.0f) {
        const float *o = c->skel->end_offset[c->j.toe_end[side]];
        float cur[3], want[3], q_t[4], q_ts[4];
        pose_quat_rotate(q_foot, o, cur);
        float lt[3] = {f->lock[kt][0], 0.0f, f->lock[kt][2]};
        lt[1] = ctrl_ground(c, lt[0], lt[2]) + fmaxf(toe_h, CTRL_TOE_MIN_CM);
        for (int a = 0; a < 3; a++)
            want[a] = lt[a] - job.new_end[a];
        ik_quat_between(cur, want, q_t);
        quat_scale(q_t, w_toe, q_ts);
        pose_quat_mul(q_ts, q_foot, tmp);
        memcpy(q_foot, tmp, sizeof q_foot);
    }

    local_from_model(c, thigh, q_thigh);
    memcpy(c->model_rot[thigh], q_thigh, sizeof q_thigh);
    float inv[4];
    ctrl_quat_conj(q_thigh, inv);
    pose_quat_mul(inv, q_shin, c->pose.rot[shin]);
    ctrl_quat_conj(q_shin, inv);
    pose_quat_mul(inv, q_foot, c->pose.rot[foot]);
}

void ctrl_foot_run(ctrl_t *c, float dt_s, float root_h, float yaw)
{
    ctrl_foot_state *f = &c->foot;
    /* Displayed contact points of the previous step: a new lock starts there. */
    float shown[CTRL_CONTACTS][3];
    memcpy(shown, f->lock, sizeof shown);
    float anim[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, anim);

    for (int k = 0; k < CTRL_CONTACTS; k++) {
        float v = c->y[4 + k];
        bool was = f->on[k];
        f->on[k] = was ? v > CTRL_CONTACT_OFF : v > CTRL_CONTACT_ON;
        if (f->on[k] && !was && f->weight[k] <= 0.0f) {
            /* Touch-down: lock where the foot is shown now. */
            memcpy(f->lock[k], shown[k], sizeof f->lock[k]);
        }
        float dx = f->lock[k][0] - anim[k][0], dz = f->lock[k][2] - anim[k][2];
        if (f->on[k] && dx * dx + dz * dz > CTRL_LOCK_MAX_CM * CTRL_LOCK_MAX_CM)
            f->on[k] = false;
        if (!c->ik_on) {
            f->weight[k] = 0.0f;
            memcpy(f->lock[k], anim[k], sizeof f->lock[k]);
            continue;
        }
        if (f->on[k])
            f->weight[k] = 1.0f;
        else
            f->weight[k] = fmaxf(0.0f, f->weight[k] - dt_s / CTRL_LOCK_FADE_OUT_S);
    }
    if (!c->ik_on)
        return;

    float fwd[3] = {sinf(yaw), 0.0f, cosf(yaw)};
    for (int side = 0; side < 2; side++)
        solve_leg(c, side, dt_s, root_h, fwd);
    ctrl_update_model(c);

    /* Released contacts track the displayed point (the next lock's start). */
    float now[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, now);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        if (f->weight[k] <= 0.0f && !f->on[k])
            memcpy(f->lock[k], now[k], sizeof f->lock[k]);
}
