/* ctrl_foot_place.c: where each foot goes in a step, before the leg
 * reaches for it: the free foot (the animation, its inertialized hand-over
 * offset and the stride warp), pushed off ledges a step above the root,
 * held on its heel and toe locks, kept out of walls and clear of the ground
 * (swing clearance, a step's arc), and the ground's lift easing away.
 * Does NOT: decide contacts (ctrl_foot.c) or move the leg (ctrl_foot_leg.c).
 */
#include "ctrl/ctrl_foot.h"
#include "ctrl/ctrl_foot_internal.h"

#include "ctrl/ctrl_world.h"

#include "anim/ik.h"

#include <math.h>
#include <string.h>

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

/* Caps the turn that lifted_about() asks of a foot turning about PIVOT to
 * take P to RAISED: P's elevation about the pivot may rise by at most
 * CTRL_CLEAR_TURN_MAX_DEG; RAISED is brought back along the same circle. */
static void cap_lift_turn(const float pivot[3], const float p[3], float raised[3])
{
    float v[3] = {p[0] - pivot[0], p[1] - pivot[1], p[2] - pivot[2]};
    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(len > 1e-4f))
        return;
    float e0 = asinf(clampf(v[1] / len, -1.0f, 1.0f));
    float e1 = asinf(clampf((raised[1] - pivot[1]) / len, -1.0f, 1.0f));
    float most = e0 + CTRL_CLEAR_TURN_MAX_DEG * (3.14159265f / 180.0f);
    if (e1 > most)
        lifted_about(pivot, p, pivot[1] + len * sinf(fminf(most, 1.5707963f)), raised);
}

static float swing_clearance(float speed_cm_s)
{
    float t = (speed_cm_s - CTRL_SWING_SLOW_CM_S) / (CTRL_SWING_FAST_CM_S - CTRL_SWING_SLOW_CM_S);
    return CTRL_SWING_CLEARANCE_CM * clampf(t, 0.0f, 1.0f);
}

/* The swing clearance of point K, now at P and moving at SPEED: at most
 * CTRL_LIFT_SLOPE times the ground the point has covered since it let go
 * (f->free_path, with this step's move to P), so a point leaving the ground
 * rises as it starts to move, its path leaving the ground at a slant: not
 * lifted at once (a jump), not dragged along it (a slide). Over the first
 * CTRL_LIFT_PATH_CM it is a lift-off, the full clearance however slowly it
 * moves; then, over as much again, the clearance comes to follow its speed
 * (swing_clearance: a foot slowing down to land comes down). */
static float lift_clearance(const ctrl_foot_state_t *f, int k, const float p[3], float speed_cm_s)
{
    if (f->on[k])
        return 0.0f;
    float path = f->free_path[k] + dist_xz(p, f->shown[k]);
    float w = clampf(path / CTRL_LIFT_PATH_CM - 1.0f, 0.0f, 1.0f);
    return fminf(lerpf(CTRL_SWING_CLEARANCE_CM, swing_clearance(speed_cm_s), w), CTRL_LIFT_SLOPE * path);
}

/* How high (cm) above the ground the free foot of SIDE is kept while it
 * covers ground on its own, easing back to the animation: an arc over the
 * distance, a step. Over the ground, not added to the animated foot: a
 * walking foot the animation lifts itself needs none, a re-plant the
 * animation holds on the ground (or below it: a crouch, a slope) is a step,
 * not a shuffle. */
static float step_lift(const ctrl_foot_state_t *f, int side)
{
    float from = f->span[side];
    if (!(from > CTRL_STEP_MIN_SPAN_CM))
        return 0.0f;
    float p = clampf(1.0f - hypotf(f->ioff[side][0], f->ioff[side][2]) / from, 0.0f, 1.0f);
    float peak = fminf(CTRL_STEP_LIFT_MAX_CM, CTRL_STEP_LIFT_BASE_CM + CTRL_STEP_LIFT_PER_CM * from);
    return peak * 4.0f * p * (1.0f - p);
}

/* The free foot of SIDE: the animated foot, warped, plus its inertialized
 * offsets. */
static void free_foot(const ctrl_t *c, int side, float a[3], float r[4])
{
    const ctrl_foot_state_t *f = &c->foot;
    int foot = c->j.foot[side];
    float q[4], p[3];
    ctrl_rotvec_to_quat(f->iroff[side], q);
    pose_quat_mul(q, c->model_rot[foot], r);
    /* The offset holds at the point the foot last left the ground by (its
     * toe after a push-off), and the ankle hangs from there. */
    if (f->anchor_toe[side])
        toe_of(c, side, c->joint_pos[foot], c->model_rot[foot], p);
    else
        memcpy(p, c->joint_pos[foot], sizeof p);
    p[0] += f->warp[side][0] + f->ioff[side][0];
    p[1] += f->ioff[side][1];
    p[2] += f->warp[side][1] + f->ioff[side][2];
    if (f->anchor_toe[side]) {
        /* toe_of() from P gives P + R o: the ankle is P - R o. */
        float toe[3];
        toe_of(c, side, p, r, toe);
        for (int k = 0; k < 3; k++)
            a[k] = p[k] - (toe[k] - p[k]);
    } else {
        memcpy(a, p, sizeof p);
    }
}

/* P (sole height SOLE) is below the top of ground more than a step above
 * the root's. */
static bool in_ledge(const ctrl_t *c, const float p[3], float sole)
{
    float g = foot_ground(c, p[0], p[2]), root_h = c->traj.pos[CTRL_TRAJ_NOW][1];
    if (!(p[1] - sole < g))
        return false;
    return g > root_h + CTRL_STEP_MAX_CM;
}

/* Whether the free foot of SIDE at ankle P (rotation R, raised by LIFT) is
 * in ground it is kept out of (foot_in_ledge, in_bank below). */
typedef bool (*foot_in_fn_t)(const ctrl_t *c, int side, const float p[3], float lift, const float r[4]);

/* Its heel or toe in ground more than a step above the root's. */
static bool foot_in_ledge(const ctrl_t *c, int side, const float p[3], float lift, const float r[4])
{
    float q[3] = {p[0], p[1] + lift, p[2]}, toe[3];
    toe_of(c, side, q, r, toe);
    return in_ledge(c, q, SOLE_CM[2 * side]) || in_ledge(c, toe, SOLE_CM[2 * side + 1]);
}

/* The least part (NEED, ground plane) of the move MOVE from ankle A that
 * takes the free foot of SIDE out of IN, by bisection
 * (CTRL_LEDGE_PUSH_ITERS halvings); all of it when no part does. */
static void move_out(const ctrl_t *c, int side, const float a[3], const float move[2], float lift, const float r[4],
                     foot_in_fn_t in, float need[2])
{
    float lo = 0.0f, hi = 1.0f;
    for (int it = 0; it < CTRL_LEDGE_PUSH_ITERS; it++) {
        float t = 0.5f * (lo + hi), p[3] = {a[0] + t * move[0], a[1], a[2] + t * move[1]};
        if (in(c, side, p, lift, r))
            lo = t;
        else
            hi = t;
    }
    need[0] = hi * move[0];
    need[1] = hi * move[1];
}

/* The least move (NEED, ground plane) towards the root that takes the free
 * foot of SIDE (ankle A raised by LIFT, rotation R) out of ground more than
 * a step above the root's, heel and toe (at most to the root's place);
 * zero when it is clear, or when its heel would not be clear even at the
 * root's place (nothing to push it out to). Its toe there is not asked to
 * be: a root standing at the foot of a steep face has its toes over it,
 * and a swinging foot left to the ground there was lifted 27 cm in a step,
 * turning the thigh 131 degrees. */
static void ledge_need(const ctrl_t *c, int side, const float a[3], float lift, const float r[4], float need[2])
{
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float toward[2] = {root[0] - a[0], root[2] - a[2]};
    need[0] = need[1] = 0.0f;
    if (!foot_in_ledge(c, side, a, lift, r))
        return;
    float q[3] = {root[0], a[1] + lift, root[2]};
    if (in_ledge(c, q, SOLE_CM[2 * side]))
        return;
    move_out(c, side, a, toward, lift, r, foot_in_ledge, need);
}

/* Keeps the free foot of SIDE (ankle A, rotation R) out of ground more than
 * a step above the root's (ledge_need). Where the animation has the foot
 * below such a top, the move follows by a spring of
 * CTRL_LEDGE_PUSH_HALFLIFE_S, and eases away by it once no longer needed;
 * where the foot is shown, raised by what the ground lifts it by, the move
 * is followed at once (it never goes into the ground). Judged by where it
 * is shown only, a foot the ground had lifted onto such a top (carried up
 * a ledge's face, or left on its top as the body came down off it) was
 * never pushed off it: lifted again on every step it stayed over the top,
 * it stood a metre above the root's ground and the knee folded over the
 * hip. */
static void ledge_push(ctrl_t *c, int side, float a[3], const float r[4], float dt_s)
{
    ctrl_foot_state_t *f = &c->foot;
    float *b = f->ledge_push[side], *bv = f->ledge_push_vel[side];
    float goal[2], more[2];
    ledge_need(c, side, a, 0.0f, r, goal);
    float x[2] = {b[0] - goal[0], b[1] - goal[1]};
    ctrl_spring_decay(x, bv, 2, CTRL_LEDGE_PUSH_HALFLIFE_S, dt_s);
    float eased[3] = {a[0] + goal[0] + x[0], a[1], a[2] + goal[1] + x[1]};
    ledge_need(c, side, eased, f->ground_lift[side], r, more);
    if (more[0] != 0.0f || more[1] != 0.0f) {
        eased[0] += more[0];
        eased[2] += more[1];
        bv[0] = (eased[0] - a[0] - b[0]) / dt_s;
        bv[1] = (eased[2] - a[2] - b[1]) / dt_s;
    }
    b[0] = eased[0] - a[0];
    b[1] = eased[2] - a[2];
    a[0] = eased[0];
    a[2] = eased[2];
}

/* Whether the free foot of SIDE at ankle P (rotation R, raised by LIFT) has
 * its heel or toe below ground more than CTRL_FOOT_RISE_MAX_CM above where
 * that point was shown last step. */
static bool in_bank(const ctrl_t *c, int side, const float p[3], float lift, const float r[4])
{
    const ctrl_foot_state_t *f = &c->foot;
    float q[3] = {p[0], p[1] + lift, p[2]}, toe[3];
    toe_of(c, side, q, r, toe);
    const float *pts[2] = {q, toe};
    for (int i = 0; i < 2; i++) {
        int k = 2 * side + i;
        float g = foot_ground(c, pts[i][0], pts[i][2]);
        if (pts[i][1] - SOLE_CM[k] < g && g > f->shown[k][1] - SOLE_CM[k] + CTRL_FOOT_RISE_MAX_CM)
            return true;
    }
    return false;
}

/* The least move (NEED, ground plane) back along the way the free foot of
 * SIDE came (from where its ankle was shown last step to A) that keeps it
 * out of a bank (in_bank); zero when it is clear, or when it was in one
 * where it was shown (nothing to hold it back to). */
static void bank_need(const ctrl_t *c, int side, const float a[3], float lift, const float r[4], float need[2])
{
    const float *from = c->foot.shown[2 * side];
    float back[2] = {from[0] - a[0], from[2] - a[2]};
    need[0] = need[1] = 0.0f;
    if (!in_bank(c, side, a, lift, r))
        return;
    float q[3] = {from[0], a[1], from[2]};
    if (in_bank(c, side, q, lift, r))
        return;
    move_out(c, side, a, back, lift, r, in_bank, need);
}

/* Holds the free foot of SIDE (ankle A, rotation R) back from a bank
 * (bank_need): a swinging foot carried into ground rising steeply (a
 * trench's bank, beside which a jump landed) was lifted onto it at once,
 * 24 cm in a step, the knee flexing 60 degrees; held back the way it came,
 * it rises onto the bank as fast as a step allows. The hold is taken at
 * once where the foot as shown would be in the bank, and eases away by a
 * spring of CTRL_LEDGE_PUSH_HALFLIFE_S as it is needed less. */
static void bank_hold(ctrl_t *c, int side, float a[3], const float r[4], float dt_s)
{
    ctrl_foot_state_t *f = &c->foot;
    float *b = f->bank_hold[side], *bv = f->bank_hold_vel[side];
    float goal[2];
    bank_need(c, side, a, f->ground_lift[side], r, goal);
    float x[2] = {b[0] - goal[0], b[1] - goal[1]};
    ctrl_spring_decay(x, bv, 2, CTRL_LEDGE_PUSH_HALFLIFE_S, dt_s);
    float eased[3] = {a[0] + goal[0] + x[0], a[1], a[2] + goal[1] + x[1]};
    if (in_bank(c, side, eased, f->ground_lift[side], r)) {
        /* Stopped at the bank, not sent back from it: the hold takes no
         * speed (given the jump's, it carried the foot on back past where
         * it came from, 40 cm in four steps). */
        eased[0] = a[0] + goal[0];
        eased[2] = a[2] + goal[1];
        bv[0] = bv[1] = 0.0f;
    }
    b[0] = eased[0] - a[0];
    b[1] = eased[2] - a[2];
    a[0] = eased[0];
    a[2] = eased[2];
}

/* A foot held by its heel stands on the heel's lock, its toe turned about
 * the ankle onto the toe's lock when that is held too; held by its toe only,
 * it hangs from it. */
static void hold_on_locks(ctrl_t *c, int side, float a[3], float r[4])
{
    ctrl_foot_state_t *f = &c->foot;
    const int kh = 2 * side, kt = 2 * side + 1;
    float toe[3];
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
}

/* Never into a wall (a warped stride may reach further than the body's
 * own push-out accounted for). */
static void out_of_walls(const ctrl_t *c, int side, float a[3], const float r[4])
{
    float toe[3];
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
}

/* Never below the ground, and a free point clear of it by its swing
 * clearance, or by a step's arc: over the ground, not over the animated
 * foot, which a crouch or a slope may hold below it (a re-plant along
 * the ground would be a shuffle). The heel rises about a held toe (or
 * with the whole foot), the toe about the ankle. A free point is as
 * clear as it moves fast over the ground, the animation's way or its
 * own: a foot turning on its held toe sweeps the heel round, on its held
 * heel the toe; raised, as a foot pivots, the point does not drag. */
static void heel_clear(const ctrl_t *c, int side, float a[3], float r[4], float dt_s)
{
    const ctrl_foot_state_t *f = &c->foot;
    const int kh = 2 * side, kt = 2 * side + 1;
    float toe[3];
    float lift = foot_on(f, side) ? 0.0f : step_lift(f, side);
    if (lift > 0.0f) {
        /* A step's arc lifts the whole foot, heel and toe, as it is. */
        toe_of(c, side, a, r, toe);
        float low = fminf(a[1] - foot_ground(c, a[0], a[2]) - SOLE_CM[kh],
                          toe[1] - foot_ground(c, toe[0], toe[2]) - SOLE_CM[kt]);
        if (low < lift)
            a[1] += lift - low;
    }
    float heel_speed = fmaxf(f->speed[kh], dist_xz(a, f->shown[kh]) / dt_s);
    float ga = foot_ground(c, a[0], a[2]) + SOLE_CM[kh] + lift_clearance(f, kh, a, heel_speed);
    if (a[1] < ga) {
        if (f->on[kt]) {
            float raised[3], pivot[3];
            toe_of(c, side, a, r, pivot);
            lifted_about(pivot, a, ga, raised);
            cap_lift_turn(pivot, a, raised);
            float from[3] = {a[0], a[1], a[2]};
            turn_about(a, r, pivot, from, raised);
        }
        a[1] = fmaxf(a[1], ga);
    }
}

/* Turning the toe up moves it along the ground plane too (forward, from
 * a toe pointing down), over other ground: a ramp's rising ground is
 * looked up again where it went. */
static void toe_clear(const ctrl_t *c, int side, float a[3], float r[4], float dt_s)
{
    const ctrl_foot_state_t *f = &c->foot;
    const int kh = 2 * side, kt = 2 * side + 1;
    float toe[3];
    toe_of(c, side, a, r, toe);
    float toe_speed = fmaxf(f->speed[kt], dist_xz(toe, f->shown[kt]) / dt_s);
    float clear = lift_clearance(f, kt, toe, toe_speed);
    for (int pass = 0; pass < CTRL_TOE_CLEAR_PASSES; pass++) {
        toe_of(c, side, a, r, toe);
        float gt = foot_ground(c, toe[0], toe[2]) + SOLE_CM[kt] + clear;
        if (!(toe[1] < gt))
            break;
        /* A free foot rises whole: turned about its ankle, it would undo
         * the turn its hand-over carries on. */
        if (!f->on[kh]) {
            a[1] += gt - toe[1];
            continue;
        }
        float raised[3], pivot[3] = {a[0], a[1], a[2]};
        lifted_about(pivot, toe, gt, raised);
        cap_lift_turn(pivot, toe, raised);
        turn_about(a, r, pivot, toe, raised);
        /* A toe the ankle cannot lift that far lifts the whole foot. */
        toe_of(c, side, a, r, toe);
        if (toe[1] < gt)
            a[1] += gt - toe[1];
    }
}

/* A free foot's lift over the ground (all of it: it rises whole) is
 * followed at once as it grows and eases away by a spring as it shrinks
 * (CTRL_LIFT_EASE_HALFLIFE_S). FREE_Y: the free foot's height before the
 * ground lifted it. */
static void ease_ground_lift(ctrl_t *c, int side, float a[3], float free_y, float dt_s)
{
    ctrl_foot_state_t *f = &c->foot;
    float *lift_y = &f->ground_lift[side], *lift_v = &f->ground_lift_vel[side];
    if (foot_on(f, side)) {
        *lift_y = 0.0f;
        *lift_v = 0.0f;
    } else {
        float need = a[1] - free_y;
        /* (The free foot rising uses up the lift one for one: no lag.) */
        float x = *lift_y - fmaxf(0.0f, free_y - f->lift_free_y[side]) - need;
        ctrl_spring_decay(&x, lift_v, 1, CTRL_LIFT_EASE_HALFLIFE_S, dt_s);
        if (x < 0.0f) {
            x = 0.0f;
            *lift_v = fmaxf(*lift_v, 0.0f);
        }
        *lift_y = need + x;
        a[1] = free_y + *lift_y;
    }
    f->lift_free_y[side] = free_y;
}

void ctrl_foot_place(ctrl_t *c, int side, float a[3], float r[4], float dt_s)
{
    ctrl_foot_state_t *f = &c->foot;
    free_foot(c, side, a, r);
    if (foot_on(f, side)) {
        memset(f->ledge_push[side], 0, sizeof f->ledge_push[side]);
        memset(f->ledge_push_vel[side], 0, sizeof f->ledge_push_vel[side]);
        memset(f->bank_hold[side], 0, sizeof f->bank_hold[side]);
        memset(f->bank_hold_vel[side], 0, sizeof f->bank_hold_vel[side]);
    } else {
        ledge_push(c, side, a, r, dt_s);
        bank_hold(c, side, a, r, dt_s);
    }
    float free_y = a[1];
    hold_on_locks(c, side, a, r);
    out_of_walls(c, side, a, r);
    heel_clear(c, side, a, r, dt_s);
    toe_clear(c, side, a, r, dt_s);
    ease_ground_lift(c, side, a, free_y, dt_s);
}
