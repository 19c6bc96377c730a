/* ctrl_foot.c: foot contacts and leg IK (see ctrl_foot.h).
 *
 * Each foot has two contact points: the heel (the foot joint, the ankle) and
 * the toe tip (the foot's end site). A point is in contact while the network
 * says so (outputs 4..7 with hysteresis) or while the animated point is on
 * the ground and nearly still (a foot the network drags or pivots on is on
 * the ground too). A point in contact is locked where it is shown when the
 * contact begins and stays exactly there: the foot is placed as a rigid body
 * (heel locked: the ankle stays and the toe turns about it; both: the foot
 * lies along heel -> toe; toe only: the foot pivots about the toe, its heel
 * rising as the body moves on over it, a push-off). Locks settle onto the
 * ground under them, and no point is shown below its sole height. A point
 * lets go when its animated point lifts (the network keeps flagging a heel
 * for a while after it has begun to rise), when its flag goes off, or when
 * the leg cannot keep it (left too far behind, out of reach): then the foot
 * steps to where the animation has it and, standing, lands only once it has
 * arrived, so a re-plant is one step, not a creep lock by lock.
 *
 * A free foot is the animated foot, shifted by a stride warp: the network's
 * stride is shorter than its root motion (its stance feet drift forward by
 * ~10 cm a step), so the swinging foot aims most of a drift ahead and the
 * leg ends its stance a little behind the animation. A free point rises off
 * the ground as it starts to cover ground, and a swinging foot is kept clear
 * of it.
 *
 * Every hand-over is inertialized (Bollo's inertialization; the Motion-
 * Matching demo releases its foot locks so): when a lock lets go, whatever
 * the reason, the foot's offset from its free target is taken where the
 * foot was shown (at the toe after a push-off, at the ankle otherwise), with
 * the velocity it was shown moving and turning at, and critically damped
 * springs take it away (CTRL_FOOT_*HALFLIFE_S). When a lock engages, it takes
 * the point where it is shown. The leg's reach is kept out of the last few
 * per cent of its length, where the knee's angle follows the hip-to-ankle
 * distance steeply (from 97 % to 99.9 %, 2.4 cm, the knee goes from 28 to 5
 * degrees): a held foot may ask the extension the leg had when it was
 * caught, easing to CTRL_HIP_DROP_REACH, and a free foot's reach is eased
 * in smoothly towards full extension. So the ankle, the foot's turn and the
 * knee never jump: they leave a lock at rest and catch up with the
 * animation over a few steps. Nothing limits a joint's turn per step.
 *
 * The thigh-shin chain reaches the placed ankle by ik_two_joint_run() (knee
 * pole: the animated knee); the hip comes down a little when a planted foot
 * is out of reach and eases back by a spring.
 *
 * This file: contacts, locks and their hand-overs, and the order of a step;
 * ctrl_foot_place.c places each foot, ctrl_foot_leg.c has the leg reach it,
 * and the tuning constants are in ctrl_foot_internal.h. */
#include "ctrl/ctrl_foot.h"
#include "ctrl/ctrl_foot_internal.h"

#include "ctrl/ctrl_world.h"

#include <math.h>
#include <string.h>

void ctrl_contact_pos(const ctrl_t *c, float out[CTRL_CONTACTS][3])
{
    for (int side = 0; side < 2; side++) {
        int f = c->j.foot[side];
        memcpy(out[2 * side], c->joint_pos[f], sizeof(float) * 3);
        toe_of(c, side, c->joint_pos[f], c->model_rot[f], out[2 * side + 1]);
    }
}

void ctrl_foot_reset(ctrl_t *c)
{
    memset(&c->foot, 0, sizeof c->foot);
    float p[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, p);
    memcpy(c->foot.lock, p, sizeof p);
    memcpy(c->foot.shown, p, sizeof p);
    memcpy(c->foot.prev_anim, p, sizeof p);
    for (int side = 0; side < 2; side++) {
        memcpy(c->foot.shown_rot[side], c->model_rot[c->j.foot[side]], sizeof c->foot.shown_rot[side]);
        memcpy(c->foot.prev_shown_rot[side], c->foot.shown_rot[side], sizeof c->foot.shown_rot[side]);
        memcpy(c->foot.prev_anim_rot[side], c->foot.shown_rot[side], sizeof c->foot.shown_rot[side]);
    }
    memcpy(c->foot.prev_shown_pt, p, sizeof p);
    c->foot.fresh = true;
}

/* How far (cm, ground plane) the free foot of SIDE still has to ease to
 * where the animation wants it: its offset and the warp's way to its goal. */
static float off_left(const ctrl_foot_state_t *f, int side)
{
    return hypotf(f->ioff[side][0], f->ioff[side][2]) +
           hypotf(f->warp_goal[side][0] - f->warp[side][0], f->warp_goal[side][1] - f->warp[side][1]);
}

/* Point K lets go. It locks again only once its animated point is back
 * down (half CTRL_LIFT_RELEASE_CM above where it touched down) or the flag
 * has stayed off a few steps (update_contacts): not at once where it was
 * let go, on a flag that flickers back on (the foot would be caught in the
 * air, the leg pulled straight). */
static void let_go(ctrl_foot_state_t *f, int k)
{
    if (f->on[k])
        f->lift_block[k] = true;
    f->on[k] = false;
}

/* The foot of SIDE cannot stay where it is held (out of reach): it lets go
 * and steps to where the animation has it as one re-plant, landing only
 * once it has arrived (the animation may still flag its points down). */
static void step_out(ctrl_foot_state_t *f, int side)
{
    let_go(f, 2 * side);
    let_go(f, 2 * side + 1);
    f->replant_steps[side] = CTRL_REPLANT_MAX_STEPS;
}

/* Point K at P stands within a step of the root's ground
 * (CTRL_HOLD_STEP_CM): the ground under it and its own sole. */
static bool within_step(const ctrl_t *c, int k, const float p[3])
{
    float root_h = c->traj.pos[CTRL_TRAJ_NOW][1];
    return fabsf(foot_ground(c, p[0], p[2]) - root_h) <= CTRL_HOLD_STEP_CM &&
           fabsf(p[1] - SOLE_CM[k] - root_h) <= CTRL_HOLD_STEP_CM;
}

/* The feet's floor over a gap follows ctrl_over_gap() (CTRL_GAP_FLOOR_*). */
static void gap_floor_step(ctrl_t *c, float dt_s)
{
    ctrl_foot_state_t *f = &c->foot;
    float goal = ctrl_over_gap(c) ? 1.0f : 0.0f;
    if (goal > f->gap_floor) {
        float below = 0.0f;
        for (int k = 0; k < CTRL_CONTACTS; k++) {
            const float *p = f->shown[k];
            below = fmaxf(below, ctrl_gap_floor_ground(c, p[0], p[2], 1.0f) - (p[1] - SOLE_CM[k]));
        }
        if (below <= CTRL_GAP_FLOOR_SNAP_CM) {
            f->gap_floor = goal;
            f->gap_floor_vel = 0.0f;
            return;
        }
    }
    float x = f->gap_floor - goal;
    ctrl_spring_decay(&x, &f->gap_floor_vel, 1, CTRL_GAP_FLOOR_HALFLIFE_S, dt_s);
    f->gap_floor = clampf(goal + x, 0.0f, 1.0f);
}

/* Contact state of every point from the network's flags and the animated
 * points ANIM (f->prev_anim: last step's); locks start at the shown points
 * and settle onto the ground. */
static void update_contacts(ctrl_t *c, const float anim[CTRL_CONTACTS][3], float dt_s)
{
    ctrl_foot_state_t *f = &c->foot;
    /* (A foot shown held last step has not begun its re-plant: its offset
     * is taken over from there only in swing_begin.) */
    for (int side = 0; side < 2; side++)
        if (f->replant_steps[side] > 0)
            f->replant_steps[side] = !f->held_pts[side] && off_left(f, side) < CTRL_REPLANT_ARRIVE_CM
                                         ? 0
                                         : f->replant_steps[side] - 1;
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        int side = k / 2;
        bool heel = !(k & 1);
        float v = c->y[4 + k];
        f->net_on[k] = f->net_on[k] ? v > CTRL_CONTACT_OFF : v > CTRL_CONTACT_ON;
        float above = anim[k][1] - foot_ground(c, anim[k][0], anim[k][2]) - SOLE_CM[k];
        float speed = dist_xz(anim[k], f->prev_anim[k]) / dt_s;
        f->speed[k] = speed;
        bool falling = anim[k][1] <= f->prev_anim[k][1];
        bool ground = above < CTRL_GROUND_BAND_CM &&
                      speed < (heel && falling ? CTRL_HEEL_STRIKE_SPEED_CM_S : CTRL_GROUND_SPEED_CM_S);
        /* A flagged point is caught only as it comes to rest over the
         * ground: caught at speed (a swinging foot still catching up with
         * the animation, a flag flickering on), it stops dead while the body
         * moves on and pulls the leg straight in a step. */
        float shown_speed = dist_xz(f->shown[k], f->prev_shown_pt[k]) / dt_s;
        bool want = (f->net_on[k] && above < CTRL_CONTACT_MAX_ABOVE_CM &&
                     (f->on[k] || (shown_speed < CTRL_TOUCH_SPEED_CM_S && off_left(f, side) < CTRL_TOUCH_ARRIVE_CM))) ||
                    ground;
        /* A toe behind a locked heel locks only once it is down: the foot
         * then lies along heel -> toe. */
        if (!heel && f->on[k - 1] && !f->on[k] &&
            f->shown[k][1] - foot_ground(c, f->shown[k][0], f->shown[k][2]) - SOLE_CM[k] > CTRL_TOE_TOUCH_CM)
            want = false;
        /* A contact ends when the animated point lifts off the ground, or
         * once the flag has been off for a few steps: one step of a
         * flickering flag would otherwise re-plant the foot where the
         * animation has slid it (a shuffle along the ground). A foot
         * re-planting lands only when it has arrived. */
        if (f->replant_steps[side] > 0)
            want = false;
        if (!within_step(c, k, f->on[k] ? f->lock[k] : f->shown[k]))
            want = false;
        if (!f->on[k] &&
            f->shown[k][1] - foot_ground(c, f->shown[k][0], f->shown[k][2]) - SOLE_CM[k] > CTRL_TOUCH_ABOVE_CM)
            want = false;
        /* The network flags a heel or toe down for a while after the
         * animation has begun to lift it (its labels allow 10 cm and
         * 70 cm/s): a point the animation lifts above where it touched down
         * lets go anyway (let_go). Held on, a heel would keep the foot flat
         * as the body moves on, the hip would come down to reach it and the
         * leg would end its stance straight. */
        f->flag_off_steps[k] = f->net_on[k] ? 0 : f->flag_off_steps[k] + 1;
        if (f->lift_block[k] &&
            (f->flag_off_steps[k] >= CTRL_OFF_STEPS || above < f->touch_above[k] + 0.5f * CTRL_LIFT_RELEASE_CM))
            f->lift_block[k] = false;
        if (f->on[k] && above > f->touch_above[k] + CTRL_LIFT_RELEASE_CM)
            let_go(f, k);
        if (f->lift_block[k])
            want = false;
        f->off_steps[k] = want ? 0 : f->off_steps[k] + 1;
        bool lifted = above > CTRL_LIFT_OFF_CM;
        if (want && !f->on[k]) {
            /* Touch-down: lock where the point is shown now, coming down
             * as fast as it was shown coming down (settling, below). */
            memcpy(f->lock[k], f->shown[k], sizeof f->lock[k]);
            f->lock_vel[k] = fminf(0.0f, (f->shown[k][1] - f->prev_shown_pt[k][1]) / dt_s);
            f->touch_above[k] = fmaxf(0.0f, above);
            f->on[k] = true;
        } else if (!want && (lifted || f->off_steps[k] >= CTRL_OFF_STEPS)) {
            let_go(f, k);
        }
        /* Where the animation wants the point (with the stride warp). */
        float free_p[3] = {anim[k][0] + f->warp_goal[side][0], anim[k][1], anim[k][2] + f->warp_goal[side][1]};
        float max_cm = lerpf(CTRL_LOCK_MAX_CM, CTRL_LOCK_MAX_STAND_CM, clampf(c->base[0], 0.0f, 1.0f));
        if (f->on[k] && dist_xz(f->lock[k], free_p) > max_cm) {
            /* The whole foot steps, both its points; standing, as one
             * re-plant (walking, the gait's own next step lands it). */
            let_go(f, k);
            let_go(f, k ^ 1);
            if (c->base[0] > 0.5f)
                f->replant_steps[side] = CTRL_REPLANT_MAX_STEPS;
        }
        if (f->on[k] && !within_step(c, k, f->lock[k])) {
            let_go(f, k);
            let_go(f, k ^ 1);
        }
        if (f->on[k]) {
            /* Settle onto the ground by a spring (never below it). */
            float floor_y = foot_ground(c, f->lock[k][0], f->lock[k][2]) + SOLE_CM[k];
            float x = f->lock[k][1] - floor_y;
            ctrl_spring_decay(&x, &f->lock_vel[k], 1, CTRL_LOCK_SETTLE_HALFLIFE_S, dt_s);
            if (x < 0.0f) {
                x = 0.0f;
                f->lock_vel[k] = 0.0f;
            }
            f->lock[k][1] = floor_y + x;
        }
    }
    for (int k = 0; k < CTRL_CONTACTS; k++)
        f->weight[k] = f->on[k] ? 1.0f : 0.0f;
}

/* Before the feet are placed: the stride warp follows its goal, a foot
 * touching down remembers where the animation had it, and a foot's offsets
 * from its free target take over from a lock that let go and decay (see the
 * file's header). ANIM, ANIM_ROT: the animated points and foot rotation of
 * this step (f->prev_anim, f->prev_anim_rot: last step's); ANG_VEL: how
 * fast the foot was shown turning over the last step (world rad/s). */
static void swing_begin(ctrl_t *c, int side, const float anim[CTRL_CONTACTS][3], const float anim_rot[4],
                        const float ang_vel[3], float yaw, float dt_s)
{
    const float *anim_heel = anim[2 * side];
    ctrl_foot_state_t *f = &c->foot;
    const int kh = 2 * side;
    int pts = (f->on[kh] ? 1 : 0) | (f->on[kh + 1] ? 2 : 0);
    bool held = pts != 0, held_rot = pts == 3;
    if (held && !f->held_pts[side])
        memcpy(f->touch_anim[side], anim_heel, sizeof f->touch_anim[side]);
    float cy = cosf(yaw), sy = sinf(yaw);
    float prev_warp[2] = {f->warp[side][0], f->warp[side][1]};
    f->warp_goal[side][0] = CTRL_WARP_AHEAD * (cy * f->drift[side][0] + sy * f->drift[side][1]);
    f->warp_goal[side][1] = CTRL_WARP_AHEAD * (-sy * f->drift[side][0] + cy * f->drift[side][1]);
    float wx[2] = {f->warp[side][0] - f->warp_goal[side][0], f->warp[side][1] - f->warp_goal[side][1]};
    ctrl_spring_decay(wx, f->warp_vel[side], 2, CTRL_WARP_HALFLIFE_S, dt_s);
    f->warp[side][0] = f->warp_goal[side][0] + wx[0];
    f->warp[side][1] = f->warp_goal[side][1] + wx[1];

    if (!held && f->held_pts[side]) {
        /* Let go: the offset from the free target is where the foot was
         * shown (its target then: last step's animated point and warp),
         * its velocity how fast it was shown moving less the target's;
         * taken at the toe when the toe was held (a push-off: the foot goes
         * on turning about it as it leaves), else at the ankle. */
        int kp = (f->held_pts[side] & 2) ? kh + 1 : kh;
        f->anchor_toe[side] = kp != kh;
        const float *pa = f->prev_anim[kp];
        float src_prev[3] = {pa[0] + prev_warp[0], pa[1], pa[2] + prev_warp[1]};
        float src[3] = {anim[kp][0] + f->warp[side][0], anim[kp][1], anim[kp][2] + f->warp[side][1]};
        for (int k = 0; k < 3; k++) {
            f->ioff[side][k] = f->shown[kp][k] - src_prev[k];
            f->ioff_vel[side][k] = (f->shown[kp][k] - f->prev_shown_pt[kp][k]) / dt_s - (src[k] - src_prev[k]) / dt_s;
        }
        f->span[side] = hypotf(f->ioff[side][0], f->ioff[side][2]);
    }
    if (held) {
        memset(f->ioff[side], 0, sizeof f->ioff[side]);
        memset(f->ioff_vel[side], 0, sizeof f->ioff_vel[side]);
    } else {
        /* Up and down faster than along the ground: a foot let go rises
         * clear of the ground before it covers ground (a toe-off), rather
         * than dragging its toe. */
        ctrl_spring_decay(&f->ioff[side][0], &f->ioff_vel[side][0], 1, CTRL_FOOT_HALFLIFE_S, dt_s);
        ctrl_spring_decay(&f->ioff[side][1], &f->ioff_vel[side][1], 1, CTRL_FOOT_RISE_HALFLIFE_S, dt_s);
        ctrl_spring_decay(&f->ioff[side][2], &f->ioff_vel[side][2], 1, CTRL_FOOT_HALFLIFE_S, dt_s);
    }

    if (!held_rot && pts != f->held_pts[side]) {
        /* The foot turns freely after a change of its locks (a heel or toe
         * lifting off a flat foot, a toe touching down behind a held heel,
         * a lock letting go): its turn is taken over where it was shown,
         * ground clearance and all: its offset is the shown rotation
         * against last step's animation, turning as it was shown turning
         * less as the animation turns. */
        float inv[4], q[4], anim_w[3];
        ctrl_quat_conj(f->prev_anim_rot[side], inv);
        pose_quat_mul(f->shown_rot[side], inv, q);
        ctrl_quat_to_rotvec(q, f->iroff[side]);
        pose_quat_mul(anim_rot, inv, q);
        ctrl_quat_to_rotvec(q, anim_w);
        for (int k = 0; k < 3; k++)
            f->iroff_vel[side][k] = ang_vel[k] - anim_w[k] / dt_s;
    }
    if (held_rot) {
        memset(f->iroff[side], 0, sizeof f->iroff[side]);
        memset(f->iroff_vel[side], 0, sizeof f->iroff_vel[side]);
    } else {
        ctrl_spring_decay(f->iroff[side], f->iroff_vel[side], 3, CTRL_FOOT_ROT_HALFLIFE_S, dt_s);
    }
}

/* After the legs are solved: what the next step's hand-overs start from
 * (the animated foot), and a lift-off measures the stance's drift (root
 * frame). */
static void swing_end(ctrl_t *c, int side, bool was_on, const float anim_heel[3], const float anim_rot[4], float yaw)
{
    ctrl_foot_state_t *f = &c->foot;
    bool on = foot_on(f, side);
    memcpy(f->prev_anim_rot[side], anim_rot, sizeof f->prev_anim_rot[side]);
    if (on || !was_on)
        return;
    float cy = cosf(yaw), sy = sinf(yaw);
    float wx = anim_heel[0] - f->touch_anim[side][0], wz = anim_heel[2] - f->touch_anim[side][2];
    float lx = cy * wx - sy * wz, lz = sy * wx + cy * wz;
    float l = hypotf(lx, lz);
    if (l > CTRL_DRIFT_MAX_CM) {
        lx *= CTRL_DRIFT_MAX_CM / l;
        lz *= CTRL_DRIFT_MAX_CM / l;
    }
    f->drift[side][0] += (lx - f->drift[side][0]) * CTRL_DRIFT_MIX;
    f->drift[side][1] += (lz - f->drift[side][1]) * CTRL_DRIFT_MIX;
}

void ctrl_foot_shift(ctrl_t *c, float dx, float dz, float yaw)
{
    ctrl_foot_state_t *f = &c->foot;
    if (!c->ik_on)
        return;
    float fwd[3] = {sinf(yaw), 0.0f, cosf(yaw)};
    for (int side = 0; side < 2; side++) {
        /* Free feet go with the body, planted ones stay. */
        if (!foot_on(f, side)) {
            f->target[side][0] += dx;
            f->target[side][2] += dz;
        }
        float pole[3];
        ctrl_foot_knee_pole(c, side, fwd, pole);
        ctrl_foot_solve_leg(c, side, f->target[side], f->target_rot[side], pole);
    }
    ctrl_update_model(c);
    ctrl_contact_pos(c, f->shown);
    for (int side = 0; side < 2; side++)
        memcpy(f->shown_rot[side], c->model_rot[c->j.foot[side]], sizeof f->shown_rot[side]);
}

/* Both feet in the air for longer than a running stride's flight, with no
 * jump under way (running down a slope: the network's feet are relative to
 * the ground under the root, and the ground under the leading foot is
 * lower): the body comes down until its lowest foot point reaches the ground
 * (at most CTRL_GROUND_DROP_MAX_CM, CTRL_GROUND_DROP_CM_S fast), and rises
 * back once a foot is down. Returns whether the pose moved. */
static bool ground_body(ctrl_t *c, const float anim[CTRL_CONTACTS][3], float dt_s)
{
    ctrl_foot_state_t *f = &c->foot;
    float low = 1.0e9f;
    bool any_on = false;
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        low = fminf(low, anim[k][1] - foot_ground(c, anim[k][0], anim[k][2]) - SOLE_CM[k]);
        any_on |= f->on[k];
    }
    bool airborne = !any_on && low > CTRL_GROUND_LIFT_CM && c->jump < CTRL_GROUND_JUMP_MAX && !c->ground_held;
    f->air_s = airborne ? f->air_s + dt_s : 0.0f;
    float want = f->air_s > CTRL_GROUND_GRACE_S ? fminf(CTRL_GROUND_DROP_MAX_CM, low + f->ground_drop) : 0.0f;
    float step = CTRL_GROUND_DROP_CM_S * dt_s;
    float drop = want > f->ground_drop ? fminf(want, f->ground_drop + step)
                                       : fmaxf(want, f->ground_drop * expf(-dt_s / CTRL_GROUND_RELAX_TAU_S));
    f->ground_drop = drop;
    if (!(drop > 0.0f))
        return false;
    c->pose.trans[c->j.hip][1] -= drop;
    ctrl_update_model(c);
    return true;
}

/* How fast the foot of SIDE was shown turning over the last step (world
 * rotation vector per s); the shown rotation becomes the last. */
static void shown_turn(ctrl_foot_state_t *f, int side, float dt_s, float ang_vel[3])
{
    float inv[4], q[4];
    ctrl_quat_conj(f->prev_shown_rot[side], inv);
    pose_quat_mul(f->shown_rot[side], inv, q);
    ctrl_quat_to_rotvec(q, ang_vel);
    for (int k = 0; k < 3; k++)
        ang_vel[k] /= dt_s;
    memcpy(f->prev_shown_rot[side], f->shown_rot[side], sizeof f->prev_shown_rot[side]);
}

/* IK off: the contacts are the network's flags (with hysteresis), and the
 * locks, the shown points and every hand-over's state follow the
 * animation, so turning IK on starts from the pose shown. */
static void follow_network(ctrl_t *c, const float anim[CTRL_CONTACTS][3])
{
    ctrl_foot_state_t *f = &c->foot;
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        float v = c->y[4 + k];
        f->net_on[k] = f->net_on[k] ? v > CTRL_CONTACT_OFF : v > CTRL_CONTACT_ON;
        f->on[k] = f->net_on[k];
        f->weight[k] = 0.0f;
    }
    memcpy(f->lock, anim, sizeof f->lock);
    memcpy(f->shown, anim, sizeof f->shown);
    memcpy(f->prev_shown_pt, anim, sizeof f->prev_shown_pt);
    memcpy(f->prev_anim, anim, sizeof f->prev_anim);
    memset(f->ioff, 0, sizeof f->ioff);
    memset(f->ioff_vel, 0, sizeof f->ioff_vel);
    memset(f->iroff, 0, sizeof f->iroff);
    memset(f->iroff_vel, 0, sizeof f->iroff_vel);
    for (int side = 0; side < 2; side++) {
        memcpy(f->shown_rot[side], c->model_rot[c->j.foot[side]], sizeof f->shown_rot[side]);
        memcpy(f->prev_shown_rot[side], f->shown_rot[side], sizeof f->shown_rot[side]);
        memcpy(f->prev_anim_rot[side], f->shown_rot[side], sizeof f->shown_rot[side]);
        f->held_pts[side] = 0;
    }
}

/* The first step after a reset: the feet start where the network first
 * puts them, not where the seed pose had them (straight legs, 5 cm taller
 * than the network stands), so the knees do not bend at once as the body
 * settles onto feet held in the seed's place. */
static void start_fresh(ctrl_t *c, const float anim[CTRL_CONTACTS][3])
{
    ctrl_foot_state_t *f = &c->foot;
    memcpy(f->shown, anim, sizeof f->shown);
    memcpy(f->prev_shown_pt, anim, sizeof f->prev_shown_pt);
    memcpy(f->prev_anim, anim, sizeof f->prev_anim);
    memset(f->on, 0, sizeof f->on);
    for (int side = 0; side < 2; side++) {
        memcpy(f->shown_rot[side], c->model_rot[c->j.foot[side]], sizeof f->shown_rot[side]);
        memcpy(f->prev_shown_rot[side], f->shown_rot[side], sizeof f->shown_rot[side]);
        memcpy(f->prev_anim_rot[side], f->shown_rot[side], sizeof f->shown_rot[side]);
        f->held_pts[side] = 0;
        /* The free foot's height the ground's lift is eased against
         * (ease_ground_lift): from 0, the foot seemed to have risen its
         * whole height in the first step, and the spring, wound up by it,
         * lifted a foot 15 cm in the next one. */
        f->lift_free_y[side] = anim[2 * side][1];
    }
    f->gap_floor = ctrl_over_gap(c) ? 1.0f : 0.0f;
    f->gap_floor_vel = 0.0f;
    f->fresh = false;
}

/* A planted foot out of its allowed reach (walking uphill away from the
 * rear foot, stepping down, a heel striking far ahead) lowers the hip a
 * little, after a foot held by its toe has raised its heel as far as it
 * may. The drop eases back by a spring, and from where it has eased to,
 * it follows any further need at once: the allowed reach eases, so the
 * need grows smoothly. */
static void reach_feet(ctrl_t *c, float a[2][3], float r[2][4], const bool was_held[2], float dt_s)
{
    ctrl_foot_state_t *f = &c->foot;
    float drop_before = f->hip_drop;
    ctrl_spring_decay(&f->hip_drop, &f->hip_drop_vel, 1, CTRL_HIP_DROP_HALFLIFE_S, dt_s);
    f->hip_drop = fminf(fmaxf(f->hip_drop, 0.0f), CTRL_HIP_DROP_MAX_CM);
    c->pose.trans[c->j.hip][1] -= f->hip_drop;
    ctrl_update_model(c);
    float need = 0.0f;
    for (int side = 0; side < 2; side++) {
        ctrl_foot_allowed_reach(c, side, was_held[side], a[side], dt_s);
        /* A foot held by its heel that the leg would need the hip lowered
         * more than CTRL_HEEL_HOLD_DROP_CM to reach steps out instead: the
         * network slides a planted foot along where a walker would step
         * (starting to walk), and held, it took the hip 12 cm down and bent
         * the other knee to 75 degrees. */
        if (f->on[2 * side] &&
            f->hip_drop + ctrl_foot_drop_for_reach(c, side, a[side], f->reach[side]) > CTRL_HEEL_HOLD_DROP_CM)
            step_out(f, side);
        if (!ctrl_foot_push_off(c, side, a[side], r[side]))
            step_out(f, side);
        if (foot_on(f, side))
            need = fmaxf(need, ctrl_foot_drop_for_reach(c, side, a[side], f->reach[side]));
    }
    need = fminf(need, CTRL_HIP_DROP_MAX_CM - f->hip_drop);
    if (need > 0.0f) {
        f->hip_drop += need;
        f->hip_drop_vel = (f->hip_drop - drop_before) / dt_s;
        c->pose.trans[c->j.hip][1] -= need;
        ctrl_update_model(c);
    }
    for (int side = 0; side < 2; side++)
        if (!foot_on(f, side))
            ctrl_foot_soft_reach(c, side, a[side]);
}

/* The pose solved: the points and turns as shown, each free point's path
 * over the ground, the hand-overs a foot let go or caught this step start
 * (swing_end), and the contact weights. */
static void show_feet(ctrl_t *c, const bool was_held[2], const float anim_heel[2][3], const float anim_rot[2][4],
                      float yaw)
{
    ctrl_foot_state_t *f = &c->foot;
    ctrl_update_model(c);
    float before[CTRL_CONTACTS][3];
    memcpy(before, f->shown, sizeof before);
    memcpy(f->prev_shown_pt, f->shown, sizeof f->prev_shown_pt);
    ctrl_contact_pos(c, f->shown);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        f->free_path[k] = f->on[k] ? 0.0f : f->free_path[k] + dist_xz(f->shown[k], before[k]);
    for (int side = 0; side < 2; side++) {
        memcpy(f->shown_rot[side], c->model_rot[c->j.foot[side]], sizeof f->shown_rot[side]);
        swing_end(c, side, was_held[side], anim_heel[side], anim_rot[side], yaw);
        f->weight[2 * side] = f->on[2 * side] ? 1.0f : 0.0f;
        f->weight[2 * side + 1] = f->on[2 * side + 1] ? 1.0f : 0.0f;
    }
}

void ctrl_foot_run(ctrl_t *c, float dt_s, float yaw)
{
    ctrl_foot_state_t *f = &c->foot;
    float anim[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, anim);
    if (!c->ik_on) {
        follow_network(c, anim);
        return;
    }
    if (f->fresh)
        start_fresh(c, anim);
    gap_floor_step(c, dt_s);
    float ang_vel[2][3];
    for (int side = 0; side < 2; side++)
        shown_turn(f, side, dt_s, ang_vel[side]);
    if (ground_body(c, anim, dt_s))
        ctrl_contact_pos(c, anim);
    float anim_rot[2][4], anim_heel[2][3];
    for (int side = 0; side < 2; side++) {
        memcpy(anim_rot[side], c->model_rot[c->j.foot[side]], sizeof anim_rot[side]);
        memcpy(anim_heel[side], anim[2 * side], sizeof anim_heel[side]);
    }
    update_contacts(c, anim, dt_s);
    for (int side = 0; side < 2; side++)
        swing_begin(c, side, (const float(*)[3])anim, anim_rot[side], ang_vel[side], yaw, dt_s);
    memcpy(f->prev_anim, anim, sizeof anim);

    float a[2][3], r[2][4], pole[2][3];
    float fwd[3] = {sinf(yaw), 0.0f, cosf(yaw)};
    bool was_held[2] = {f->held_pts[0] != 0, f->held_pts[1] != 0};
    for (int side = 0; side < 2; side++) {
        ctrl_foot_place(c, side, a[side], r[side], dt_s);
        ctrl_foot_knee_pole(c, side, fwd, pole[side]);
        /* How the foot is shown this step, whatever lets go later in it
         * (a leg out of reach): the next step's hand-overs start here. */
        f->held_pts[side] = (uint8_t)((f->on[2 * side] ? 1 : 0) | (f->on[2 * side + 1] ? 2 : 0));
    }
    reach_feet(c, a, r, was_held, dt_s);
    for (int side = 0; side < 2; side++) {
        /* Still out of reach: the foot lets go and is lifted towards the
         * body by the leg; it carries on from there, free. */
        if (!ctrl_foot_in_reach(c, side, a[side], CTRL_IK_MAX_EXTENSION))
            step_out(f, side);
        ctrl_foot_solve_leg(c, side, a[side], r[side], pole[side]);
        memcpy(f->target[side], a[side], sizeof f->target[side]);
        memcpy(f->target_rot[side], r[side], sizeof f->target_rot[side]);
    }
    show_feet(c, was_held, (const float(*)[3])anim_heel, (const float(*)[4])anim_rot, yaw);
}
