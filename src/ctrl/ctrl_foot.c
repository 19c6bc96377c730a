/* ctrl_foot.c: foot contacts and foot IK.
 * Contacts: the network's outputs 4..7 (heel/toe per foot, trained as 0/1
 * labels) with hysteresis. While a heel is in contact its world position is
 * locked (x/z where it touched down, y = terrain there + the animated heel's
 * height above the terrain under it), so the foot neither slides nor sinks
 * or floats on slopes and steps; after contact the lock fades out. Free
 * feet follow the animation, kept above the terrain. The thigh-shin-foot chain is
 * solved with ik_two_joint_run() (knee pole = character forward), the foot
 * keeps its world orientation, is tilted onto the terrain normal while flat on
 * the ground, and is turned about the ankle so a locked toe stays put. */
#include "ctrl/ctrl_foot.h"

#include "ctrl/ctrl_world.h"

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
#define CTRL_IK_MAX_EXTENSION 0.999f
/* Hip lowering for out-of-reach locks: comfortable reach (fraction of the
 * thigh-to-ankle length), largest drop (cm), relaxation time (s). */
#define CTRL_HIP_DROP_REACH 0.97f
#define CTRL_HIP_DROP_MAX_CM 25.0f
#define CTRL_HIP_DROP_TAU_S 0.15f


/* Ground under a foot: the terrain, or the root's height over a gap
 * (CTRL_GAP_DEPTH_CM): on the edge it jumps from or lands on. */
static float foot_ground(const ctrl_t *c, float x, float z)
{
    float g = ctrl_ground(c, x, z);
    float root_h = c->traj.pos[CTRL_TRAJ_NOW][1];
    return g < root_h - CTRL_GAP_DEPTH_CM ? root_h : g;
}

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

/* Where the heel (foot joint) should go: the animation when free, its lock
 * when in contact, blended by the lock weight. */
static void heel_target(const ctrl_t *c, int side, float target[3])
{
    const ctrl_foot_state *f = &c->foot;
    const int kh = 2 * side;
    const float *anim_heel = c->joint_pos[c->j.foot[side]];
    /* The network was trained on terrain-fitted motion, so its feet already
     * follow the terrain it was shown (heights around the trajectory); their
     * height above the terrain under them is what a lock keeps. */
    float g = foot_ground(c, anim_heel[0], anim_heel[2]);
    float heel_above = anim_heel[1] - g;
    /* Free target: the animation, never below the terrain. */
    float free_t[3] = {anim_heel[0], fmaxf(anim_heel[1], g + CTRL_HEEL_MIN_CM), anim_heel[2]};
    float lock_h[3] = {f->lock[kh][0], 0.0f, f->lock[kh][2]};
    lock_h[1] = foot_ground(c, lock_h[0], lock_h[2]) + fmaxf(heel_above, CTRL_HEEL_MIN_CM);
    float wh = f->weight[kh];
    for (int a = 0; a < 3; a++)
        target[a] = free_t[a] + (lock_h[a] - free_t[a]) * wh;
}

/* How far the hip must come down (cm) for the thigh to reach TARGET within
 * the leg's comfortable reach; 0 when it already does. */
static float hip_drop_needed(const ctrl_t *c, int side, const float target[3])
{
    const float *thigh = c->joint_pos[c->j.thigh[side]];
    float v[3] = {target[0] - thigh[0], target[1] - thigh[1], target[2] - thigh[2]};
    float reach = c->leg_len[side] * CTRL_HIP_DROP_REACH;
    float h2 = v[0] * v[0] + v[2] * v[2];
    float d2 = h2 + v[1] * v[1];
    if (d2 <= reach * reach || h2 >= reach * reach)
        return 0.0f;
    /* Lower the thigh by d so that |v + (0, d, 0)| = reach, target below. */
    float d = -sqrtf(reach * reach - h2) - v[1];
    return d > 0.0f ? d : 0.0f;
}

static void solve_leg(ctrl_t *c, int side, const float target[3], const float fwd[3])
{
    ctrl_foot_state *f = &c->foot;
    const int kh = 2 * side, kt = 2 * side + 1;
    const int thigh = c->j.thigh[side], shin = c->j.shin[side], foot = c->j.foot[side];
    float anim_toe[3];
    toe_world(c, side, anim_toe);
    float toe_above = anim_toe[1] - foot_ground(c, anim_toe[0], anim_toe[2]);
    float wh = f->weight[kh];

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
        lt[1] = foot_ground(c, lt[0], lt[2]) + fmaxf(toe_above, CTRL_TOE_MIN_CM);
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

void ctrl_foot_run(ctrl_t *c, float dt_s, float yaw)
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

    /* A locked foot out of reach (walking uphill away from the rear foot,
     * stepping down) lowers the hip rather than being dragged: the drop
     * follows the need at once and relaxes with CTRL_HIP_DROP_TAU_S. */
    float target[2][3], need = 0.0f;
    for (int side = 0; side < 2; side++) {
        heel_target(c, side, target[side]);
        need = fmaxf(need, hip_drop_needed(c, side, target[side]));
    }
    f->hip_drop = fmaxf(need, f->hip_drop * expf(-dt_s / CTRL_HIP_DROP_TAU_S));
    if (f->hip_drop > CTRL_HIP_DROP_MAX_CM)
        f->hip_drop = CTRL_HIP_DROP_MAX_CM;
    if (f->hip_drop > 0.0f) {
        c->pose.trans[c->j.hip][1] -= f->hip_drop;
        ctrl_update_model(c);
    }
    float fwd[3] = {sinf(yaw), 0.0f, cosf(yaw)};
    for (int side = 0; side < 2; side++)
        solve_leg(c, side, target[side], fwd);
    ctrl_update_model(c);

    /* Released contacts track the displayed point (the next lock's start). */
    float now[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, now);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        if (f->weight[k] <= 0.0f && !f->on[k])
            memcpy(f->lock[k], now[k], sizeof f->lock[k]);
}
