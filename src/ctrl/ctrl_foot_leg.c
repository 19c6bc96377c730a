/* ctrl_foot_leg.c: the legs reaching the placed feet: the hip drop a foot
 * out of reach needs, the extension a held foot may ask, a free foot's reach
 * eased in towards full extension, the toe push-off, the knee's pole and the
 * two-joint IK of thigh, shin and foot.
 * Does NOT: decide contacts or where a foot goes (ctrl_foot.c,
 * ctrl_foot_place.c).
 */
#include "ctrl/ctrl_foot.h"
#include "ctrl/ctrl_foot_internal.h"

#include "anim/ik.h"

#include <math.h>
#include <string.h>

float ctrl_foot_drop_for_reach(const ctrl_t *c, int side, const float target[3], float fraction)
{
    const float *thigh = c->joint_pos[c->j.thigh[side]];
    float v[3] = {target[0] - thigh[0], target[1] - thigh[1], target[2] - thigh[2]};
    float reach = c->leg_len[side] * fraction;
    float h2 = v[0] * v[0] + v[2] * v[2];
    if (h2 >= reach * reach)
        return CTRL_HIP_DROP_MAX_CM;
    /* The thigh lowered by d reaches it when |v + (0, d, 0)| = reach with
     * the target below: d = -sqrt(reach^2 - h2) - v.y. */
    return -sqrtf(reach * reach - h2) - v[1];
}

bool ctrl_foot_in_reach(const ctrl_t *c, int side, const float a[3], float fraction)
{
    const float *thigh = c->joint_pos[c->j.thigh[side]];
    float reach = c->leg_len[side] * fraction;
    float d[3] = {a[0] - thigh[0], a[1] - thigh[1], a[2] - thigh[2]};
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= reach * reach;
}

/* A foot held by its toe (heel free) turns about the toe towards the thigh,
 * the heel rising as in a push-off, so the leg reaches the ankle: by the
 * least angle that brings it within FRACTION of the leg's length. Fills
 * AXIS (unit) and returns the angle (rad), 0 when already in reach, more
 * than CTRL_TOE_PIVOT_MAX_RAD when even that does not reach. */
static float toe_pivot_for(const ctrl_t *c, int side, const float a[3], const float r[4], float fraction, float axis[3])
{
    const float *thigh = c->joint_pos[c->j.thigh[side]];
    float toe[3], u[3], w[3];
    toe_of(c, side, a, r, toe);
    for (int k = 0; k < 3; k++) {
        u[k] = a[k] - toe[k];
        w[k] = thigh[k] - toe[k];
    }
    axis[0] = u[1] * w[2] - u[2] * w[1];
    axis[1] = u[2] * w[0] - u[0] * w[2];
    axis[2] = u[0] * w[1] - u[1] * w[0];
    float sn = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (!(sn > 1e-6f) || ctrl_foot_in_reach(c, side, a, fraction)) {
        axis[0] = 1.0f;
        axis[1] = axis[2] = 0.0f;
        return 0.0f;
    }
    for (int k = 0; k < 3; k++)
        axis[k] /= sn;
    float most = fminf(atan2f(sn, u[0] * w[0] + u[1] * w[1] + u[2] * w[2]), CTRL_TOE_PIVOT_MAX_RAD);
    float lo = 0.0f, hi = most, q[4], d[3], ta[3];
    for (int it = 0; it < 14; it++) {
        float mid = 0.5f * (lo + hi), v[3] = {axis[0] * mid, axis[1] * mid, axis[2] * mid};
        ctrl_rotvec_to_quat(v, q);
        pose_quat_rotate(q, u, d);
        for (int k = 0; k < 3; k++)
            ta[k] = toe[k] + d[k];
        if (ctrl_foot_in_reach(c, side, ta, fraction))
            hi = mid;
        else
            lo = mid;
    }
    if (hi >= most - 1e-4f) {
        float v[3] = {axis[0] * most, axis[1] * most, axis[2] * most};
        ctrl_rotvec_to_quat(v, q);
        pose_quat_rotate(q, u, d);
        for (int k = 0; k < 3; k++)
            ta[k] = toe[k] + d[k];
        if (!ctrl_foot_in_reach(c, side, ta, fraction))
            return CTRL_TOE_PIVOT_MAX_RAD + 1.0f;
    }
    return hi;
}

bool ctrl_foot_push_off(ctrl_t *c, int side, float a[3], float r[4])
{
    ctrl_foot_state_t *f = &c->foot;
    if (!f->on[2 * side + 1] || f->on[2 * side])
        return true;
    float axis[3];
    float angle = toe_pivot_for(c, side, a, r, fminf(f->reach[side] + CTRL_PUSH_HIP_SHARE, CTRL_HARD_REACH), axis);
    bool ok = angle <= CTRL_TOE_PIVOT_MAX_RAD;
    angle = fminf(angle, CTRL_TOE_PIVOT_MAX_RAD);
    if (!(angle > 0.0f))
        return ok;
    float toe[3], d[3], q[4], nr[4], v[3] = {axis[0] * angle, axis[1] * angle, axis[2] * angle};
    toe_of(c, side, a, r, toe);
    float u[3] = {a[0] - toe[0], a[1] - toe[1], a[2] - toe[2]};
    ctrl_rotvec_to_quat(v, q);
    pose_quat_rotate(q, u, d);
    for (int k = 0; k < 3; k++)
        a[k] = toe[k] + d[k];
    pose_quat_mul(q, r, nr);
    memcpy(r, nr, sizeof nr);
    return ok;
}

void ctrl_foot_allowed_reach(ctrl_t *c, int side, bool was_held, const float a[3], float dt_s)
{
    ctrl_foot_state_t *f = &c->foot;
    if (!foot_on(f, side)) {
        f->reach[side] = CTRL_HIP_DROP_REACH;
        f->reach_vel[side] = 0.0f;
        return;
    }
    if (!was_held) {
        const float *thigh = c->joint_pos[c->j.thigh[side]];
        float d = sqrtf((a[0] - thigh[0]) * (a[0] - thigh[0]) + (a[1] - thigh[1]) * (a[1] - thigh[1]) +
                        (a[2] - thigh[2]) * (a[2] - thigh[2]));
        f->reach[side] = clampf(d / c->leg_len[side], CTRL_HIP_DROP_REACH, CTRL_HARD_REACH);
        f->reach_vel[side] = 0.0f;
    }
    float x = f->reach[side] - CTRL_HIP_DROP_REACH;
    ctrl_spring_decay(&x, &f->reach_vel[side], 1, CTRL_REACH_HALFLIFE_S, dt_s);
    f->reach[side] = CTRL_HIP_DROP_REACH + x;
}

void ctrl_foot_soft_reach(const ctrl_t *c, int side, float a[3])
{
    const float *thigh = c->joint_pos[c->j.thigh[side]];
    float v[3] = {a[0] - thigh[0], a[1] - thigh[1], a[2] - thigh[2]};
    float d = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    float l = c->leg_len[side], d0 = CTRL_FREE_REACH_SOFT * l, span = (CTRL_HARD_REACH - CTRL_FREE_REACH_SOFT) * l;
    if (!(d > d0) || !(span > 0.0f))
        return;
    float nd = d0 + span * tanhf((d - d0) / span);
    for (int k = 0; k < 3; k++)
        a[k] = thigh[k] + v[k] * (nd / d);
}

void ctrl_foot_knee_pole(const ctrl_t *c, int side, const float fwd[3], float pole[3])
{
    const float *hip = c->joint_pos[c->j.thigh[side]], *knee = c->joint_pos[c->j.shin[side]];
    const float *ankle = c->joint_pos[c->j.foot[side]];
    float axis[3] = {ankle[0] - hip[0], ankle[1] - hip[1], ankle[2] - hip[2]};
    float kv[3] = {knee[0] - hip[0], knee[1] - hip[1], knee[2] - hip[2]};
    float l2 = axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2];
    float t = l2 > 1e-6f ? (kv[0] * axis[0] + kv[1] * axis[1] + kv[2] * axis[2]) / l2 : 0.0f;
    float perp[3] = {kv[0] - t * axis[0], kv[1] - t * axis[1], kv[2] - t * axis[2]};
    float bend = sqrtf(perp[0] * perp[0] + perp[1] * perp[1] + perp[2] * perp[2]);
    float w = clampf(bend / CTRL_KNEE_BEND_CM, 0.0f, 1.0f);
    for (int k = 0; k < 3; k++)
        pole[k] = (bend > 1e-6f ? perp[k] / bend : 0.0f) * w + fwd[k] * (1.0f - w);
}

void ctrl_foot_solve_leg(ctrl_t *c, int side, const float a[3], const float r[4], const float pole[3])
{
    const int thigh = c->j.thigh[side], shin = c->j.shin[side], foot = c->j.foot[side];
    ik_two_joint_job_t job;
    memset(&job, 0, sizeof job);
    memcpy(job.root, c->joint_pos[thigh], sizeof job.root);
    memcpy(job.mid, c->joint_pos[shin], sizeof job.mid);
    memcpy(job.end, c->joint_pos[foot], sizeof job.end);
    memcpy(job.target, a, sizeof job.target);
    memcpy(job.pole, pole, sizeof job.pole);
    job.max_extension = CTRL_IK_MAX_EXTENSION;
    if (!ik_two_joint_run(&job))
        return;
    /* new_upper = d_upper x upper, new_lower = d_lower x d_upper x lower;
     * the foot gets R. */
    float q_thigh[4], q_shin[4], tmp[4], inv[4];
    pose_quat_mul(job.d_upper, c->model_rot[thigh], q_thigh);
    pose_quat_mul(job.d_upper, c->model_rot[shin], tmp);
    pose_quat_mul(job.d_lower, tmp, q_shin);
    ctrl_quat_conj(c->model_rot[c->skel->joint_parent[thigh]], inv);
    pose_quat_mul(inv, q_thigh, c->pose.rot[thigh]);
    ctrl_quat_conj(q_thigh, inv);
    pose_quat_mul(inv, q_shin, c->pose.rot[shin]);
    ctrl_quat_conj(q_shin, inv);
    pose_quat_mul(inv, r, c->pose.rot[foot]);
}
