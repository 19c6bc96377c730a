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
 * rising as the leg runs out of reach). Locks settle onto the ground under
 * them, and no point is shown below its sole height.
 *
 * A lock the animation has left too far behind lets go, and the foot steps
 * back to it along an arc over the ground; standing, it lands only once it
 * has arrived, so a re-plant is one step, not a creep lock by lock.
 *
 * A free foot is the animated foot plus an offset. When a foot leaves the
 * ground the offset is where it was shown less where the animation has it,
 * so the foot carries on from where it stood, and the offset then eases to
 * half the foot's stance drift: the network's stride is shorter than its
 * root motion (its stance feet drift forward by ~10 cm a step), so the
 * swinging foot lands half a drift ahead and ends its stance half a drift
 * behind the animation, and the leg reaches both (stride warping). A
 * swinging foot is kept clear of the ground. The thigh-shin chain reaches the
 * placed ankle by ik_two_joint_run() (knee pole: the animated knee), and the
 * hip comes down a little when a planted foot is out of reach. */
#include "ctrl/ctrl_foot.h"

#include "ctrl/ctrl_world.h"

#include "anim/ik.h"

#include <math.h>
#include <string.h>

/* Hysteresis on the network's contact outputs (trained threshold 0.5). */
#define CTRL_CONTACT_ON 0.6f
#define CTRL_CONTACT_OFF 0.4f
/* A flagged point this far above its sole height is not locked (the network
 * may flag a foot it still holds over a step). */
#define CTRL_CONTACT_MAX_ABOVE_CM 12.0f
/* Ground contact whatever the flag: the animated point within this of its
 * sole height and slower than this; a heel coming down (a heel strike) is
 * stopped at once, up to the faster speed. */
#define CTRL_GROUND_BAND_CM 1.0f
#define CTRL_GROUND_SPEED_CM_S 40.0f
#define CTRL_HEEL_STRIKE_SPEED_CM_S 150.0f
/* A contact ends when its animated point rises this far above its sole
 * height, or when it has not been wanted for this many steps. */
#define CTRL_LIFT_OFF_CM 2.5f
#define CTRL_OFF_STEPS 4
/* A lock this far (ground plane) from the free foot's point lets go: the
 * foot steps to where the animation has it. Standing, the animation moving a
 * foot this far away is a step of its own (settling the feet). */
#define CTRL_LOCK_MAX_CM 30.0f
#define CTRL_LOCK_MAX_STAND_CM 10.0f
/* A foot let go that way re-plants as one step: it lands again only once it
 * is this close (cm) to where the animation has it, or after this many
 * steps. Landing at once would lock it where it happens to be, a fraction
 * of the way there, and it would creep along the ground lock by lock. */
#define CTRL_REPLANT_ARRIVE_CM 1.0f
#define CTRL_REPLANT_MAX_STEPS 30
/* A foot easing back to the animation on its own (a synthesised step) over
 * more than the first distance is lifted along an arc: its height is the
 * second value plus the third share of the distance, at most the fourth
 * (cm), so even a small re-plant is a step, not a shuffle. */
#define CTRL_STEP_MIN_SPAN_CM 0.5f
#define CTRL_STEP_LIFT_BASE_CM 1.5f
#define CTRL_STEP_LIFT_PER_CM 0.4f
#define CTRL_STEP_LIFT_MAX_CM 4.0f
/* A lock settles onto the ground under it with this time constant (s). */
#define CTRL_LOCK_SETTLE_TAU_S 0.05f
/* A toe behind a locked heel locks once it is this close to its sole height. */
#define CTRL_TOE_TOUCH_CM 1.0f
/* A free foot's offset from the animation eases to its goal with the first
 * time constant (s), its rotation offset to none with the second. */
#define CTRL_SWING_TAU_S 0.08f
#define CTRL_SWING_ROT_TAU_S 0.15f
/* Stance drift (cm, root frame): measured from touch-down to lift-off, kept
 * as a running mean with this weight on the newest, and at most this long. */
#define CTRL_DRIFT_MIX 0.5f
#define CTRL_DRIFT_MAX_CM 20.0f
/* Swing clearance: a free point moving faster than the first speed is kept
 * at least this far above its sole height, fully from the second speed on,
 * so a swinging foot clears the ground instead of brushing along it. */
#define CTRL_SWING_CLEARANCE_CM 1.5f
#define CTRL_SWING_SLOW_CM_S 20.0f
#define CTRL_SWING_FAST_CM_S 60.0f
#define CTRL_IK_MAX_EXTENSION 0.999f
/* Hip lowering for out-of-reach locks: comfortable reach (fraction of the
 * thigh-to-ankle length), largest drop (cm), relaxation time (s). */
#define CTRL_HIP_DROP_REACH 0.97f
#define CTRL_HIP_DROP_MAX_CM 12.0f
#define CTRL_HIP_DROP_TAU_S 0.15f
/* Grounding the body (ground_body): both feet this far above the ground,
 * less jump than this, for longer than this (s); the body then comes down
 * at most this far (cm), this fast (cm/s). */
#define CTRL_GROUND_LIFT_CM 2.0f
#define CTRL_GROUND_JUMP_MAX 0.1f
#define CTRL_GROUND_GRACE_S 0.1f
#define CTRL_GROUND_DROP_MAX_CM 20.0f
#define CTRL_GROUND_DROP_CM_S 90.0f
/* Knee pole: the animated knee's own direction once the leg is bent by this
 * much (cm off the hip-ankle line), the character's forward below it. */
#define CTRL_KNEE_BEND_CM 4.0f
/* Fastest a leg joint turns (rad per step: 25 degrees), unless holding it
 * to that would sink the foot more than this (cm). */
#define CTRL_LEG_MAX_TURN_RAD 0.436f
#define CTRL_LIMIT_SINK_CM 0.5f
/* Times a free toe is lifted clear of the ground, each over the ground
 * where the last lift moved it. */
#define CTRL_TOE_CLEAR_PASSES 3


/* Sole height of each contact point (heel, toe, heel, toe). */
static const float SOLE_CM[CTRL_CONTACTS] = {CTRL_HEEL_SOLE_CM, CTRL_TOE_SOLE_CM, CTRL_HEEL_SOLE_CM,
                                             CTRL_TOE_SOLE_CM};

static float dist_xz(const float a[3], const float b[3]) { return hypotf(a[0] - b[0], a[2] - b[2]); }

/* World position of the toe tip of a foot with ankle A and world rotation R. */
static void toe_of(const ctrl_t *c, int side, const float a[3], const float r[4], float out[3])
{
    float o[3];
    pose_quat_rotate(r, c->skel->end_offset[c->j.toe_end[side]], o);
    for (int k = 0; k < 3; k++)
        out[k] = a[k] + o[k];
}

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
        c->foot.rot_off[side][3] = 1.0f;
        memcpy(c->foot.shown_rot[side], c->model_rot[c->j.foot[side]], sizeof c->foot.shown_rot[side]);
    }
}

/* Turns the foot (ankle A, rotation R) about PIVOT by the shortest rotation
 * taking FROM - PIVOT onto TO - PIVOT. */
static void turn_about(float a[3], float r[4], const float pivot[3], const float from[3], const float to[3])
{
    float u[3] = {from[0] - pivot[0], from[1] - pivot[1], from[2] - pivot[2]};
    float v[3] = {to[0] - pivot[0], to[1] - pivot[1], to[2] - pivot[2]};
    float p[3] = {pivot[0], pivot[1], pivot[2]};
    float q[4], tmp[4], d[3], nd[3];
    ik_quat_between(u, v, q);
    pose_quat_mul(q, r, tmp);
    memcpy(r, tmp, sizeof tmp);
    for (int k = 0; k < 3; k++)
        d[k] = a[k] - p[k];
    pose_quat_rotate(q, d, nd);
    for (int k = 0; k < 3; k++)
        a[k] = p[k] + nd[k];
}

/* The point at the same distance from PIVOT as P, in the same vertical
 * plane, at height Y (as close as that distance allows): where P goes when
 * the foot turns about PIVOT to lift it to Y. */
static void lifted_about(const float pivot[3], const float p[3], float y, float out[3])
{
    float v[3] = {p[0] - pivot[0], p[1] - pivot[1], p[2] - pivot[2]};
    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    float hl = hypotf(v[0], v[2]);
    if (!(len > 1e-4f)) {
        memcpy(out, p, sizeof(float) * 3);
        return;
    }
    float sy = clampf((y - pivot[1]) / len, -1.0f, 1.0f);
    float cy = sqrtf(1.0f - sy * sy);
    float hx = hl > 1e-6f ? v[0] / hl : 0.0f, hz = hl > 1e-6f ? v[2] / hl : 0.0f;
    out[0] = pivot[0] + len * cy * hx;
    out[1] = pivot[1] + len * sy;
    out[2] = pivot[2] + len * cy * hz;
}

static float swing_clearance(float speed_cm_s)
{
    float t = (speed_cm_s - CTRL_SWING_SLOW_CM_S) / (CTRL_SWING_FAST_CM_S - CTRL_SWING_SLOW_CM_S);
    return CTRL_SWING_CLEARANCE_CM * clampf(t, 0.0f, 1.0f);
}

static bool foot_on(const ctrl_foot_state *f, int side) { return f->on[2 * side] || f->on[2 * side + 1]; }

/* How far (cm, ground plane) the free foot of SIDE still has to ease to
 * where the animation wants it. */
static float off_left(const ctrl_foot_state *f, int side)
{
    return hypotf(f->off[side][0] - f->off_goal[side][0], f->off[side][1] - f->off_goal[side][1]);
}

/* How high (cm) the free foot of SIDE is lifted while it covers ground on
 * its own, easing back to the animation: an arc over the distance, a step. */
static float step_lift(const ctrl_foot_state *f, int side)
{
    float left = off_left(f, side);
    float from = f->off_span[side];
    if (!(from > CTRL_STEP_MIN_SPAN_CM))
        return 0.0f;
    float p = clampf(1.0f - left / from, 0.0f, 1.0f);
    float peak = fminf(CTRL_STEP_LIFT_MAX_CM, CTRL_STEP_LIFT_BASE_CM + CTRL_STEP_LIFT_PER_CM * from);
    return peak * 4.0f * p * (1.0f - p);
}

/* The free foot of SIDE: the animated foot plus its offsets. */
static void free_foot(const ctrl_t *c, int side, float a[3], float r[4])
{
    const ctrl_foot_state *f = &c->foot;
    int foot = c->j.foot[side];
    a[0] = c->joint_pos[foot][0] + f->off[side][0];
    a[1] = c->joint_pos[foot][1] + step_lift(f, side);
    a[2] = c->joint_pos[foot][2] + f->off[side][1];
    pose_quat_mul(f->rot_off[side], c->model_rot[foot], r);
}

/* Contact state of every point from the network's flags and the animated
 * points ANIM; locks start at the shown points and settle onto the ground. */
static void update_contacts(ctrl_t *c, const float anim[CTRL_CONTACTS][3], float dt_s)
{
    ctrl_foot_state *f = &c->foot;
    for (int side = 0; side < 2; side++)
        if (f->replant_steps[side] > 0)
            f->replant_steps[side] = off_left(f, side) < CTRL_REPLANT_ARRIVE_CM ? 0 : f->replant_steps[side] - 1;
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        int side = k / 2;
        bool heel = !(k & 1);
        float v = c->y[4 + k];
        f->net_on[k] = f->net_on[k] ? v > CTRL_CONTACT_OFF : v > CTRL_CONTACT_ON;
        float above = anim[k][1] - ctrl_foot_ground(c, anim[k][0], anim[k][2]) - SOLE_CM[k];
        float speed = dist_xz(anim[k], f->prev_anim[k]) / dt_s;
        f->speed[k] = speed;
        bool falling = anim[k][1] <= f->prev_anim[k][1];
        bool ground = above < CTRL_GROUND_BAND_CM &&
                      speed < (heel && falling ? CTRL_HEEL_STRIKE_SPEED_CM_S : CTRL_GROUND_SPEED_CM_S);
        bool want = (f->net_on[k] && above < CTRL_CONTACT_MAX_ABOVE_CM) || ground;
        /* A toe behind a locked heel locks only once it is down: the foot
         * then lies along heel -> toe. */
        if (!heel && f->on[k - 1] && !f->on[k] &&
            f->shown[k][1] - ctrl_foot_ground(c, f->shown[k][0], f->shown[k][2]) - SOLE_CM[k] > CTRL_TOE_TOUCH_CM)
            want = false;
        /* A contact ends when the animated point lifts off the ground, or
         * once the flag has been off for a few steps: one step of a
         * flickering flag would otherwise re-plant the foot where the
         * animation has slid it (a shuffle along the ground). A foot
         * re-planting lands only when it has arrived. */
        if (f->replant_steps[side] > 0)
            want = false;
        f->off_steps[k] = want ? 0 : f->off_steps[k] + 1;
        bool lifted = above > CTRL_LIFT_OFF_CM;
        if (want && !f->on[k]) {
            /* Touch-down: lock where the point is shown now. */
            memcpy(f->lock[k], f->shown[k], sizeof f->lock[k]);
            f->on[k] = true;
        } else if (!want && (lifted || f->off_steps[k] >= CTRL_OFF_STEPS)) {
            f->on[k] = false;
        }
        /* Where the animation wants the point (with the stride warp). */
        float free_p[3] = {anim[k][0] + f->off_goal[side][0], anim[k][1], anim[k][2] + f->off_goal[side][1]};
        float max_cm = lerpf(CTRL_LOCK_MAX_CM, CTRL_LOCK_MAX_STAND_CM, clampf(c->base[0], 0.0f, 1.0f));
        if (f->on[k] && dist_xz(f->lock[k], free_p) > max_cm) {
            /* The whole foot steps, both its points; standing, as one
             * re-plant (walking, the gait's own next step lands it). */
            f->on[k] = f->on[k ^ 1] = false;
            if (c->base[0] > 0.5f)
                f->replant_steps[side] = CTRL_REPLANT_MAX_STEPS;
        }
        if (f->on[k]) {
            float floor_y = ctrl_foot_ground(c, f->lock[k][0], f->lock[k][2]) + SOLE_CM[k];
            if (f->lock[k][1] < floor_y)
                f->lock[k][1] = floor_y;
            else
                f->lock[k][1] += (floor_y - f->lock[k][1]) * smooth_alpha(dt_s, CTRL_LOCK_SETTLE_TAU_S);
        }
        memcpy(f->prev_anim[k], anim[k], sizeof f->prev_anim[k]);
    }
    for (int k = 0; k < CTRL_CONTACTS; k++)
        f->weight[k] = f->on[k] ? 1.0f : 0.0f;
}

/* Touch-down, lift-off and the free foot's offsets of SIDE (after the
 * contacts of this step; WAS_ON: the foot had a point down last step). */
/* Before the feet are placed: a free foot's offsets ease to their goals
 * (half a stance drift ahead, the animation's rotation), and a foot touching
 * down remembers where the animation had it. */
static void swing_begin(ctrl_t *c, int side, bool was_on, float yaw, float dt_s)
{
    ctrl_foot_state *f = &c->foot;
    if (foot_on(f, side)) {
        if (!was_on)
            memcpy(f->touch_anim[side], c->joint_pos[c->j.foot[side]], sizeof f->touch_anim[side]);
        return;
    }
    float cy = cosf(yaw), sy = sinf(yaw);
    float a = smooth_alpha(dt_s, CTRL_SWING_TAU_S);
    float gx = 0.5f * (cy * f->drift[side][0] + sy * f->drift[side][1]);
    float gz = 0.5f * (-sy * f->drift[side][0] + cy * f->drift[side][1]);
    f->off_goal[side][0] = gx;
    f->off_goal[side][1] = gz;
    if (was_on)
        f->off_span[side] = hypotf(f->off[side][0] - gx, f->off[side][1] - gz);
    f->off[side][0] += (gx - f->off[side][0]) * a;
    f->off[side][1] += (gz - f->off[side][1]) * a;
    a = smooth_alpha(dt_s, CTRL_SWING_ROT_TAU_S);
    float *q = f->rot_off[side];
    if (q[3] < 0.0f)
        for (int k = 0; k < 4; k++)
            q[k] = -q[k];
    float n = 0.0f;
    for (int k = 0; k < 4; k++) {
        q[k] += ((k == 3 ? 1.0f : 0.0f) - q[k]) * a;
        n += q[k] * q[k];
    }
    n = 1.0f / sqrtf(n);
    for (int k = 0; k < 4; k++)
        q[k] *= n;
}

/* After the legs are solved: a held foot's offsets track where it is shown
 * against the animation (ANIM_HEEL, ANIM_ROT of this step), so a foot that
 * lets go, whatever the reason, carries on from there; a lift-off measures
 * the stance's drift (root frame). */
static void swing_end(ctrl_t *c, int side, bool was_on, const float anim_heel[3], const float anim_rot[4],
                      float yaw)
{
    ctrl_foot_state *f = &c->foot;
    bool on = foot_on(f, side);
    if (!on && !was_on)
        return;
    const float *shown = f->shown[2 * side];
    f->off[side][0] = shown[0] - anim_heel[0];
    f->off[side][1] = shown[2] - anim_heel[2];
    float inv[4];
    ctrl_quat_conj(anim_rot, inv);
    pose_quat_mul(f->shown_rot[side], inv, f->rot_off[side]);
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

/* Where the foot of SIDE goes: ankle A and world rotation R, from the free
 * foot, the locks and the ground. */
static void place_foot(ctrl_t *c, int side, float a[3], float r[4], float dt_s)
{
    ctrl_foot_state *f = &c->foot;
    const int kh = 2 * side, kt = 2 * side + 1;
    float toe[3];
    free_foot(c, side, a, r);
    if (f->on[kh]) {
        /* Heel held: the ankle on its lock, the toe about the ankle. */
        memcpy(a, f->lock[kh], sizeof(float) * 3);
        if (f->on[kt]) {
            float pivot[3] = {a[0], a[1], a[2]};
            toe_of(c, side, a, r, toe);
            turn_about(a, r, pivot, toe, f->lock[kt]);
            /* The toe's lock is where the foot puts it (the foot's length
             * keeps it on a sphere about the ankle as it settles), so
             * letting the heel go later moves nothing. */
            toe_of(c, side, a, r, f->lock[kt]);
        }
    } else if (f->on[kt]) {
        /* Toe held: the foot hangs from it. */
        toe_of(c, side, a, r, toe);
        for (int k = 0; k < 3; k++)
            a[k] += f->lock[kt][k] - toe[k];
    }
    /* Never into a wall (a warped stride may reach further than the body's
     * own push-out accounted for). */
    for (int pass = 0; pass < 2; pass++) {
        toe_of(c, side, a, r, toe);
        float ax, az, ta, th = ctrl_wall_depth(c, a, &ax, &az);
        float tx, tz;
        ta = ctrl_wall_depth(c, toe, &tx, &tz);
        if (ta > th) {
            th = ta;
            ax = tx;
            az = tz;
        }
        if (!(th > 0.0f))
            break;
        a[0] += ax * th;
        a[2] += az * th;
    }
    /* Never below the ground, and a free point clear of it by its swing
     * clearance, or by a step's arc: over the ground, not over the animated
     * foot, which a crouch or a slope may hold below it (a re-plant along
     * the ground would be a shuffle). The heel rises about a held toe (or
     * with the whole foot), the toe about the ankle. A free point is as
     * clear as it moves fast over the ground, the animation's way or its
     * own: a foot turning on its held toe sweeps the heel round, on its held
     * heel the toe; raised, as a foot pivots, the point does not drag. */
    float lift = foot_on(f, side) ? 0.0f : step_lift(f, side);
    float heel_speed = fmaxf(f->speed[kh], dist_xz(a, f->shown[kh]) / dt_s);
    float ga = ctrl_foot_ground(c, a[0], a[2]) + SOLE_CM[kh] +
               (f->on[kh] ? 0.0f : fmaxf(swing_clearance(heel_speed), lift));
    if (a[1] < ga) {
        if (f->on[kt]) {
            float raised[3], pivot[3];
            toe_of(c, side, a, r, pivot);
            lifted_about(pivot, a, ga, raised);
            float from[3] = {a[0], a[1], a[2]};
            turn_about(a, r, pivot, from, raised);
        }
        a[1] = fmaxf(a[1], ga);
    }
    /* Turning the toe up moves it along the ground plane too (forward, from
     * a toe pointing down), over other ground: a ramp's rising ground is
     * looked up again where it went. */
    toe_of(c, side, a, r, toe);
    float toe_speed = fmaxf(f->speed[kt], dist_xz(toe, f->shown[kt]) / dt_s);
    float clear = f->on[kt] ? 0.0f : fmaxf(swing_clearance(toe_speed), lift);
    for (int pass = 0; pass < CTRL_TOE_CLEAR_PASSES; pass++) {
        toe_of(c, side, a, r, toe);
        float gt = ctrl_foot_ground(c, toe[0], toe[2]) + SOLE_CM[kt] + clear;
        if (!(toe[1] < gt))
            break;
        float raised[3], pivot[3] = {a[0], a[1], a[2]};
        lifted_about(pivot, toe, gt, raised);
        turn_about(a, r, pivot, toe, raised);
        /* A toe the ankle cannot lift that far lifts the whole foot. */
        toe_of(c, side, a, r, toe);
        if (toe[1] < gt)
            a[1] += gt - toe[1];
    }
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

static bool in_reach(const ctrl_t *c, int side, const float a[3])
{
    const float *thigh = c->joint_pos[c->j.thigh[side]];
    float reach = c->leg_len[side] * CTRL_IK_MAX_EXTENSION;
    float d[3] = {a[0] - thigh[0], a[1] - thigh[1], a[2] - thigh[2]};
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= reach * reach;
}

/* A foot held by its toe (heel free) whose ankle the leg cannot reach turns
 * about the toe, the heel rising as in a push-off, until the ankle is in
 * reach or the foot stands on its toe tip. */
static void reach_about_toe(const ctrl_t *c, int side, float a[3], float r[4])
{
    const ctrl_foot_state *f = &c->foot;
    if (!f->on[2 * side + 1] || f->on[2 * side] || in_reach(c, side, a))
        return;
    const float *thigh = c->joint_pos[c->j.thigh[side]];
    float toe[3];
    toe_of(c, side, a, r, toe);
    /* Bisect along the turn that brings the ankle towards the thigh. */
    float dir[3] = {thigh[0] - toe[0], thigh[1] - toe[1], thigh[2] - toe[2]};
    float lo = 0.0f, hi = 1.0f;
    float ta[3], tr[4], aim[3];
    for (int it = 0; it < 12; it++) {
        float mid = 0.5f * (lo + hi);
        for (int k = 0; k < 3; k++)
            aim[k] = a[k] + (toe[k] + dir[k] - a[k]) * mid;
        memcpy(ta, a, sizeof ta);
        memcpy(tr, r, sizeof tr);
        float from[3] = {a[0], a[1], a[2]};
        turn_about(ta, tr, toe, from, aim);
        if (in_reach(c, side, ta))
            hi = mid;
        else
            lo = mid;
    }
    for (int k = 0; k < 3; k++)
        aim[k] = a[k] + (toe[k] + dir[k] - a[k]) * hi;
    float from[3] = {a[0], a[1], a[2]};
    turn_about(a, r, toe, from, aim);
}

/* The knee's pole: its animated bend direction, or FWD while the leg is
 * nearly straight (the bend direction is then undefined). */
static void knee_pole(const ctrl_t *c, int side, const float fwd[3], float pole[3])
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

/* Solves the leg of SIDE so the ankle reaches A (or as near as it can) and
 * the foot has world rotation R. */
static void solve_leg(ctrl_t *c, int side, const float a[3], const float r[4], const float pole[3])
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

/* No leg joint turns faster than CTRL_LEG_MAX_TURN_RAD a step: where the IK
 * would (a free foot easing back to the animation, a leg let go at full
 * stretch) the leg turns that far and the foot catches up over the next
 * steps; unless that would put the foot into the ground, which comes first. */
static void limit_legs(ctrl_t *c)
{
    ctrl_foot_state *f = &c->foot;
    for (int side = 0; side < 2; side++) {
        const int chain[3] = {c->j.thigh[side], c->j.shin[side], c->j.foot[side]};
        if (f->have_leg_rot) {
            float saved[3][4];
            bool limited = false;
            for (int k = 0; k < 3; k++) {
                memcpy(saved[k], c->pose.rot[chain[k]], sizeof saved[k]);
                float q[4], before[4];
                memcpy(q, c->model_rot[chain[k]], sizeof q);
                memcpy(before, q, sizeof q);
                ctrl_limit_turn(f->leg_rot[side][k], q, CTRL_LEG_MAX_TURN_RAD);
                if (memcmp(before, q, sizeof q) == 0)
                    continue;
                float inv[4];
                ctrl_quat_conj(c->model_rot[c->skel->joint_parent[chain[k]]], inv);
                pose_quat_mul(inv, q, c->pose.rot[chain[k]]);
                ctrl_update_model(c);
                limited = true;
            }
            if (limited) {
                float p[CTRL_CONTACTS][3];
                ctrl_contact_pos(c, p);
                float sink = 0.0f;
                for (int k = 2 * side; k < 2 * side + 2; k++) {
                    float floor_y = ctrl_foot_ground(c, p[k][0], p[k][2]) + SOLE_CM[k];
                    if (!f->on[k])
                        floor_y += swing_clearance(f->speed[k]);
                    sink = fmaxf(sink, floor_y - p[k][1]);
                }
                if (sink > CTRL_LIMIT_SINK_CM) {
                    /* The foot keeps its held rotation and the leg lifts it
                     * clear: the thigh and shin as solved, aimed higher. */
                    float rot[4], a[3], pole[3];
                    memcpy(rot, c->model_rot[chain[2]], sizeof rot);
                    for (int k = 0; k < 2; k++)
                        memcpy(c->pose.rot[chain[k]], saved[k], sizeof saved[k]);
                    ctrl_update_model(c);
                    memcpy(a, c->joint_pos[chain[2]], sizeof a);
                    a[1] += sink;
                    float fwd[3] = {c->traj.dir[CTRL_TRAJ_NOW][0], 0.0f, c->traj.dir[CTRL_TRAJ_NOW][1]};
                    knee_pole(c, side, fwd, pole);
                    solve_leg(c, side, a, rot, pole);
                    ctrl_update_model(c);
                }
            }
        }
        for (int k = 0; k < 3; k++)
            memcpy(f->leg_rot_now[side][k], c->model_rot[chain[k]], sizeof f->leg_rot_now[side][k]);
    }
    f->have_leg_rot_now = true;
}

void ctrl_foot_shift(ctrl_t *c, float dx, float dz, float yaw)
{
    ctrl_foot_state *f = &c->foot;
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
        knee_pole(c, side, fwd, pole);
        solve_leg(c, side, f->target[side], f->target_rot[side], pole);
    }
    ctrl_update_model(c);
    limit_legs(c);
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
    ctrl_foot_state *f = &c->foot;
    float low = 1.0e9f;
    bool any_on = false;
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        low = fminf(low, anim[k][1] - ctrl_foot_ground(c, anim[k][0], anim[k][2]) - SOLE_CM[k]);
        any_on |= f->on[k];
    }
    bool airborne = !any_on && low > CTRL_GROUND_LIFT_CM && c->jump < CTRL_GROUND_JUMP_MAX && !c->ground_held;
    f->air_s = airborne ? f->air_s + dt_s : 0.0f;
    float want = f->air_s > CTRL_GROUND_GRACE_S ? fminf(CTRL_GROUND_DROP_MAX_CM, low + f->ground_drop) : 0.0f;
    float step = CTRL_GROUND_DROP_CM_S * dt_s;
    float drop = want > f->ground_drop ? fminf(want, f->ground_drop + step)
                                       : fmaxf(want, f->ground_drop * expf(-dt_s / CTRL_HIP_DROP_TAU_S));
    f->ground_drop = drop;
    if (!(drop > 0.0f))
        return false;
    c->pose.trans[c->j.hip][1] -= drop;
    ctrl_update_model(c);
    return true;
}

void ctrl_foot_run(ctrl_t *c, float dt_s, float yaw)
{
    ctrl_foot_state *f = &c->foot;
    float anim[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, anim);
    if (!c->ik_on) {
        for (int k = 0; k < CTRL_CONTACTS; k++) {
            float v = c->y[4 + k];
            f->net_on[k] = f->net_on[k] ? v > CTRL_CONTACT_OFF : v > CTRL_CONTACT_ON;
            f->on[k] = f->net_on[k];
            f->weight[k] = 0.0f;
        }
        memcpy(f->lock, anim, sizeof anim);
        memcpy(f->shown, anim, sizeof anim);
        memcpy(f->prev_anim, anim, sizeof anim);
        memset(f->off, 0, sizeof f->off);
        for (int side = 0; side < 2; side++) {
            memset(f->rot_off[side], 0, sizeof f->rot_off[side]);
            f->rot_off[side][3] = 1.0f;
            memcpy(f->shown_rot[side], c->model_rot[c->j.foot[side]], sizeof f->shown_rot[side]);
        }
        return;
    }
    /* The legs turn at most CTRL_LEG_MAX_TURN_RAD a step from how the last
     * step left them, however often this step solves them again (a wall's
     * push re-solves the legs, and each limit from the one before would
     * add up). */
    if (f->have_leg_rot_now) {
        memcpy(f->leg_rot, f->leg_rot_now, sizeof f->leg_rot);
        f->have_leg_rot = true;
    }
    bool was_on[2] = {foot_on(f, 0), foot_on(f, 1)};
    if (ground_body(c, anim, dt_s))
        ctrl_contact_pos(c, anim);
    float anim_rot[2][4];
    for (int side = 0; side < 2; side++)
        memcpy(anim_rot[side], c->model_rot[c->j.foot[side]], sizeof anim_rot[side]);
    update_contacts(c, anim, dt_s);
    for (int side = 0; side < 2; side++)
        swing_begin(c, side, was_on[side], yaw, dt_s);

    float a[2][3], r[2][4], pole[2][3];
    float fwd[3] = {sinf(yaw), 0.0f, cosf(yaw)};
    for (int side = 0; side < 2; side++) {
        place_foot(c, side, a[side], r[side], dt_s);
        knee_pole(c, side, fwd, pole[side]);
    }
    /* A planted foot out of reach (walking uphill away from the rear foot,
     * stepping down) lowers the hip a little: the drop follows the need at
     * once and relaxes with CTRL_HIP_DROP_TAU_S. */
    float need = 0.0f;
    for (int side = 0; side < 2; side++)
        if (foot_on(f, side))
            need = fmaxf(need, hip_drop_needed(c, side, a[side]));
    f->hip_drop = fminf(CTRL_HIP_DROP_MAX_CM, fmaxf(need, f->hip_drop * expf(-dt_s / CTRL_HIP_DROP_TAU_S)));
    if (f->hip_drop > 0.0f) {
        c->pose.trans[c->j.hip][1] -= f->hip_drop;
        ctrl_update_model(c);
    }
    for (int side = 0; side < 2; side++) {
        reach_about_toe(c, side, a[side], r[side]);
        /* Still out of reach: the foot lets go and is lifted towards the
         * body by the leg; it carries on from there, free. */
        if (!in_reach(c, side, a[side]))
            f->on[2 * side] = f->on[2 * side + 1] = false;
        solve_leg(c, side, a[side], r[side], pole[side]);
        memcpy(f->target[side], a[side], sizeof f->target[side]);
        memcpy(f->target_rot[side], r[side], sizeof f->target_rot[side]);
    }
    ctrl_update_model(c);
    limit_legs(c);
    ctrl_contact_pos(c, f->shown);
    for (int side = 0; side < 2; side++) {
        memcpy(f->shown_rot[side], c->model_rot[c->j.foot[side]], sizeof f->shown_rot[side]);
        swing_end(c, side, was_on[side], anim[2 * side], anim_rot[side], yaw);
        f->weight[2 * side] = f->on[2 * side] ? 1.0f : 0.0f;
        f->weight[2 * side + 1] = f->on[2 * side + 1] ? 1.0f : 0.0f;
    }
}
