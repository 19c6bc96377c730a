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
 * is out of reach and eases back by a spring. */
#include "ctrl/ctrl_foot.h"

#include "ctrl/ctrl_world.h"

#include "anim/ik.h"

#include <math.h>
#include <string.h>

/* ---- contacts ------------------------------------------------------------ */

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
/* A flagged point touches down only when shown moving slower than this over
 * the ground (caught at speed, it would stop dead as the body moves on), and
 * once its foot has come within the second value (cm) of where the
 * animation wants it: a foot still catching up after a hand-over, caught
 * behind the body, had its leg pulled straight as the body ran on. */
#define CTRL_TOUCH_SPEED_CM_S 100.0f
#define CTRL_TOUCH_ARRIVE_CM 5.0f
/* Nor while shown more than this above its sole height: the lock would
 * settle down through the air (a foot lifted over a ledge's top as the body
 * drops off it, the ground falling away below). */
#define CTRL_TOUCH_ABOVE_CM 8.0f
/* A contact ends when its animated point rises this far above its sole
 * height, or when it has not been wanted for this many steps. */
#define CTRL_LIFT_OFF_CM 2.5f
#define CTRL_OFF_STEPS 4
/* A held point lets go when the animation lifts it this far (cm) above
 * where it touched down, whatever the flag (let_go). */
#define CTRL_LIFT_RELEASE_CM 1.5f
/* A lock this far (ground plane) from where the animation wants its point
 * lets go and the foot steps there: 18 cm, about twice what the stance
 * drift leaves behind at the end of a stance (further, the leg stretches
 * for it); standing, the animation moving a foot 10 cm away is a step of
 * its own (settling the feet). */
#define CTRL_LOCK_MAX_CM 18.0f
#define CTRL_LOCK_MAX_STAND_CM 10.0f
/* A foot let go that way re-plants as one step: it lands again only once it
 * is this close (cm) to where the animation has it, or after this many
 * steps. Landing at once would lock it where it happens to be, a fraction
 * of the way there, and it would creep along the ground lock by lock. */
#define CTRL_REPLANT_ARRIVE_CM 1.0f
#define CTRL_REPLANT_MAX_STEPS 30
/* A lock settles onto the ground under it by a spring of this half-life (s). */
#define CTRL_LOCK_SETTLE_HALFLIFE_S 0.05f
/* A toe behind a locked heel locks once it is this close to its sole height. */
#define CTRL_TOE_TOUCH_CM 1.0f
/* A point touches down, and stays held, only on ground within a step
 * (CTRL_STEP_MAX_CM) of the root's, less the most the root comes down in
 * the step (it follows the ground down after the pose is made): a foot
 * caught on a ledge's top as the body drops off it (or inside a trench, up
 * on its cliff top) was held a metre above the hip, the leg folded back
 * through the thigh. */
#define CTRL_HOLD_STEP_CM (CTRL_STEP_MAX_CM - CTRL_ROOT_FALL_CM_S / CTRL_NET_FPS)

/* ---- free feet ----------------------------------------------------------- */

/* Half-lives (s) of the critically damped springs that take a let-go
 * foot's offset from its free target away: along the ground 0.1 s (the
 * Motion-Matching demo's foot-lock release; most of it is gone after
 * 0.25 s), up and down twice as fast (a foot let go rises before it covers
 * ground), and its turn. */
#define CTRL_FOOT_HALFLIFE_S 0.1f
#define CTRL_FOOT_RISE_HALFLIFE_S 0.05f
#define CTRL_FOOT_ROT_HALFLIFE_S 0.1f
/* Stance drift (cm, root frame): measured from touch-down to lift-off, kept
 * as a running mean with this weight on the newest, and at most this long.
 * A swinging foot lands CTRL_WARP_AHEAD of it ahead of the animation (the
 * rest it ends its stance behind: that is where a leg runs out of reach),
 * the warp following its goal by a spring of CTRL_WARP_HALFLIFE_S. */
#define CTRL_DRIFT_MIX 0.5f
#define CTRL_DRIFT_MAX_CM 20.0f
#define CTRL_WARP_AHEAD 0.8f
#define CTRL_WARP_HALFLIFE_S 0.1f
/* A foot easing back to the animation on its own (a let-go lock's offset
 * decaying) over more than the first distance is kept above the ground by
 * an arc: its height is the second value plus the third share of the
 * distance, at most the fourth (cm), so even a small re-plant is a step,
 * not a shuffle. */
#define CTRL_STEP_MIN_SPAN_CM 0.5f
#define CTRL_STEP_LIFT_BASE_CM 1.5f
#define CTRL_STEP_LIFT_PER_CM 0.4f
#define CTRL_STEP_LIFT_MAX_CM 4.0f
/* Swing clearance: a free point moving faster than the first speed is kept
 * at least this far above its sole height, fully from the second speed on,
 * so a swinging foot clears the ground instead of brushing along it; and at
 * most CTRL_LIFT_SLOPE times the ground it has covered since it let go, so
 * it leaves the ground at a slant, neither lifted at once nor dragged. */
#define CTRL_SWING_CLEARANCE_CM 1.5f
#define CTRL_SWING_SLOW_CM_S 20.0f
#define CTRL_SWING_FAST_CM_S 60.0f
#define CTRL_LIFT_SLOPE 2.0f
#define CTRL_LIFT_PATH_CM 3.0f
/* Times a free toe is lifted clear of the ground, each over the ground
 * where the last lift moved it. */
#define CTRL_TOE_CLEAR_PASSES 3

/* A free foot is kept off ground more than a step above the root's while
 * below its top (the face of a ledge, a trench's wall from inside it): it is
 * moved towards the root, in the ground plane, until it is clear, and comes
 * back by a spring of this half-life once the animation lifts it over the
 * top. Lifted onto it instead, it rose a metre in three steps. */
#define CTRL_LEDGE_PUSH_HALFLIFE_S 0.1f
/* What the ground lifts a free foot by eases away by a spring of this
 * half-life (s) when it is no longer needed, instead of at once: a foot
 * carried off a ledge's top, or over a crest, dropped to the animation's
 * height in one step (31 cm off a ledge). It follows any growing need at
 * once: no foot goes below the ground. */
#define CTRL_LIFT_EASE_HALFLIFE_S 0.05f
#define CTRL_LEDGE_PUSH_ITERS 10

/* ---- reach --------------------------------------------------------------- */

/* Fractions of the thigh-to-ankle length: the IK's limit; the most a held
 * foot may ask (a little short of it, so it is in reach after the hip drop
 * and the push-off); the comfortable reach a held foot's eases to and the
 * hip comes down for (below it the knee bends at least 28 degrees); and
 * where a free foot's reach starts to be eased in (soft_reach). A foot
 * pushing off pivots about its toe only to a little beyond the comfortable
 * reach (CTRL_PUSH_HIP_SHARE), the hip taking the rest: the pivot alone
 * would turn the ankle at the body's speed over the foot's length (~17
 * degrees a step running). */
#define CTRL_IK_MAX_EXTENSION 0.999f
#define CTRL_HARD_REACH 0.998f
#define CTRL_HIP_DROP_REACH 0.97f
#define CTRL_FREE_REACH_SOFT 0.97f
#define CTRL_PUSH_HIP_SHARE 0.01f
/* Half-lives (s): the allowed reach easing to the comfortable one, the hip's
 * drop easing back. */
#define CTRL_REACH_HALFLIFE_S 0.1f
#define CTRL_HIP_DROP_HALFLIFE_S 0.1f
/* The hip comes down at most this far (cm); a foot held by its heel that
 * would take the hip further down than the second value steps out instead
 * (the network slides a planted foot along where a walker would step:
 * starting to walk, held, it took the hip 12 cm down and bent the other
 * knee to 75 degrees). */
#define CTRL_HIP_DROP_MAX_CM 12.0f
#define CTRL_HEEL_HOLD_DROP_CM 2.5f
/* The most a foot held by its toe turns about it to stay in reach (rad: 17
 * degrees); needing more, the animation has moved on too far for the toe to
 * stay, and the foot steps out. */
#define CTRL_TOE_PIVOT_MAX_RAD 0.3f
/* Knee pole: the animated knee's own direction once the leg is bent by this
 * much (cm off the hip-ankle line), the character's forward below it. */
#define CTRL_KNEE_BEND_CM 4.0f

/* ---- the body ------------------------------------------------------------ */

/* Grounding the body (ground_body): both feet this far above the ground,
 * less jump than this, for longer than this (s); the body then comes down
 * at most this far (cm), this fast (cm/s), and rises back with the time
 * constant (s). */
#define CTRL_GROUND_LIFT_CM 2.0f
#define CTRL_GROUND_JUMP_MAX 0.1f
#define CTRL_GROUND_GRACE_S 0.1f
#define CTRL_GROUND_DROP_MAX_CM 20.0f
#define CTRL_GROUND_DROP_CM_S 90.0f
#define CTRL_GROUND_RELAX_TAU_S 0.15f

/* The floor the feet stand on over a gap (ctrl_over_gap) goes by a spring
 * of this half-life (s), and comes the same way when a point over the gap
 * is more than the second value (cm) below it: at once, a toe hanging over
 * a trench's rim was thrown up 8 cm in a step, its foot turned 41 degrees,
 * when the root's landing over it began. (At a take-off the feet are at
 * the floor's height: it comes at once, or they would step into the gap.) */
#define CTRL_GAP_FLOOR_HALFLIFE_S 0.05f
#define CTRL_GAP_FLOOR_SNAP_CM 3.0f

/* Sole height of each contact point (heel, toe, heel, toe). */
static const float SOLE_CM[CTRL_CONTACTS] = {CTRL_HEEL_SOLE_CM, CTRL_TOE_SOLE_CM, CTRL_HEEL_SOLE_CM,
                                             CTRL_TOE_SOLE_CM};

/* The ground under a foot point (ctrl_gap_floor_ground: its gap floor as
 * far as it has come). */
static float foot_ground(const ctrl_t *c, float x, float z)
{
    return ctrl_gap_floor_ground(c, x, z, c->foot.gap_floor);
}

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
        memcpy(c->foot.shown_rot[side], c->model_rot[c->j.foot[side]], sizeof c->foot.shown_rot[side]);
        memcpy(c->foot.prev_shown_rot[side], c->foot.shown_rot[side], sizeof c->foot.shown_rot[side]);
        memcpy(c->foot.prev_anim_rot[side], c->foot.shown_rot[side], sizeof c->foot.shown_rot[side]);
    }
    memcpy(c->foot.prev_shown_pt, p, sizeof p);
    c->foot.fresh = true;
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

/* The swing clearance of point K, now at P and moving at SPEED: at most
 * CTRL_LIFT_SLOPE times the ground the point has covered since it let go
 * (f->free_path, with this step's move to P), so a point leaving the ground
 * rises as it starts to move, its path leaving the ground at a slant: not
 * lifted at once (a jump), not dragged along it (a slide). Over the first
 * CTRL_LIFT_PATH_CM it is a lift-off, the full clearance however slowly it
 * moves; then, over as much again, the clearance comes to follow its speed
 * (swing_clearance: a foot slowing down to land comes down). */
static float lift_clearance(const ctrl_foot_state *f, int k, const float p[3], float speed_cm_s)
{
    if (f->on[k])
        return 0.0f;
    float path = f->free_path[k] + dist_xz(p, f->shown[k]);
    float w = clampf(path / CTRL_LIFT_PATH_CM - 1.0f, 0.0f, 1.0f);
    return fminf(lerpf(CTRL_SWING_CLEARANCE_CM, swing_clearance(speed_cm_s), w), CTRL_LIFT_SLOPE * path);
}

static bool foot_on(const ctrl_foot_state *f, int side) { return f->on[2 * side] || f->on[2 * side + 1]; }

/* How far (cm, ground plane) the free foot of SIDE still has to ease to
 * where the animation wants it: its offset and the warp's way to its goal. */
static float off_left(const ctrl_foot_state *f, int side)
{
    return hypotf(f->ioff[side][0], f->ioff[side][2]) +
           hypotf(f->warp_goal[side][0] - f->warp[side][0], f->warp_goal[side][1] - f->warp[side][1]);
}

/* How high (cm) above the ground the free foot of SIDE is kept while it
 * covers ground on its own, easing back to the animation: an arc over the
 * distance, a step. Over the ground, not added to the animated foot: a
 * walking foot the animation lifts itself needs none, a re-plant the
 * animation holds on the ground (or below it: a crouch, a slope) is a step,
 * not a shuffle. */
static float step_lift(const ctrl_foot_state *f, int side)
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
    const ctrl_foot_state *f = &c->foot;
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

/* Point K lets go. It locks again only once its animated point is back
 * down (half CTRL_LIFT_RELEASE_CM above where it touched down) or the flag
 * has stayed off a few steps (update_contacts): not at once where it was
 * let go, on a flag that flickers back on (the foot would be caught in the
 * air, the leg pulled straight). */
static void let_go(ctrl_foot_state *f, int k)
{
    if (f->on[k])
        f->lift_block[k] = true;
    f->on[k] = false;
}

/* The foot of SIDE cannot stay where it is held (out of reach): it lets go
 * and steps to where the animation has it as one re-plant, landing only
 * once it has arrived (the animation may still flag its points down). */
static void step_out(ctrl_foot_state *f, int side)
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

/* P (sole height SOLE) is below the top of ground more than a step above
 * the root's. */
static bool in_ledge(const ctrl_t *c, const float p[3], float sole)
{
    float g = foot_ground(c, p[0], p[2]), root_h = c->traj.pos[CTRL_TRAJ_NOW][1];
    if (!(p[1] - sole < g))
        return false;
    return g > root_h + CTRL_STEP_MAX_CM;
}

/* Keeps the free foot of SIDE (ankle A, rotation R) out of ground more than
 * a step above the root's (CTRL_LEDGE_PUSH_HALFLIFE_S): the least move
 * towards the root that clears its heel and toe, found by bisection,
 * followed at once; no longer needed, it eases away. */
static void ledge_push(ctrl_t *c, int side, float a[3], const float r[4], float dt_s)
{
    ctrl_foot_state *f = &c->foot;
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float toward[2] = {root[0] - a[0], root[2] - a[2]};
    float need[2] = {0.0f, 0.0f};
    float lo = 0.0f, hi = 1.0f;
    for (int it = 0; it < CTRL_LEDGE_PUSH_ITERS + 1; it++) {
        float t = it == 0 ? 0.0f : 0.5f * (lo + hi);
        float p[3] = {a[0] + t * toward[0], a[1] + f->ground_lift[side], a[2] + t * toward[1]}, toe[3];
        toe_of(c, side, p, r, toe);
        bool inside = in_ledge(c, p, SOLE_CM[2 * side]) || in_ledge(c, toe, SOLE_CM[2 * side + 1]);
        if (it == 0) {
            if (!inside)
                break;
            /* From the root's own place too: nothing to push it out to. */
            float q[3] = {root[0], a[1] + f->ground_lift[side], root[2]}, qt[3];
            toe_of(c, side, q, r, qt);
            if (in_ledge(c, q, SOLE_CM[2 * side]) || in_ledge(c, qt, SOLE_CM[2 * side + 1]))
                break;
            continue;
        }
        if (inside)
            lo = t;
        else
            hi = t;
        need[0] = hi * toward[0];
        need[1] = hi * toward[1];
    }
    float *b = f->ledge_push[side], *bv = f->ledge_push_vel[side];
    if (need[0] != 0.0f || need[1] != 0.0f) {
        bv[0] = (need[0] - b[0]) / dt_s;
        bv[1] = (need[1] - b[1]) / dt_s;
        b[0] = need[0];
        b[1] = need[1];
    } else {
        ctrl_spring_decay(b, bv, 2, CTRL_LEDGE_PUSH_HALFLIFE_S, dt_s);
    }
    a[0] += b[0];
    a[2] += b[1];
}

/* The feet's floor over a gap follows ctrl_over_gap() (CTRL_GAP_FLOOR_*). */
static void gap_floor_step(ctrl_t *c, float dt_s)
{
    ctrl_foot_state *f = &c->foot;
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
    ctrl_foot_state *f = &c->foot;
    /* (A foot shown held last step has not begun its re-plant: its offset
     * is taken over from there only in swing_begin.) */
    for (int side = 0; side < 2; side++)
        if (f->replant_steps[side] > 0)
            f->replant_steps[side] = !f->held_pts[side] && off_left(f, side) < CTRL_REPLANT_ARRIVE_CM
                                         ? 0 : f->replant_steps[side] - 1;
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
        if (f->lift_block[k] && (f->flag_off_steps[k] >= CTRL_OFF_STEPS ||
                                 above < f->touch_above[k] + 0.5f * CTRL_LIFT_RELEASE_CM))
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
    ctrl_foot_state *f = &c->foot;
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
    ctrl_foot_state *f = &c->foot;
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

/* Where the foot of SIDE goes: ankle A and world rotation R, from the free
 * foot, the locks and the ground. */
static void place_foot(ctrl_t *c, int side, float a[3], float r[4], float dt_s)
{
    ctrl_foot_state *f = &c->foot;
    const int kh = 2 * side, kt = 2 * side + 1;
    float toe[3];
    free_foot(c, side, a, r);
    if (foot_on(f, side)) {
        memset(f->ledge_push[side], 0, sizeof f->ledge_push[side]);
        memset(f->ledge_push_vel[side], 0, sizeof f->ledge_push_vel[side]);
    } else {
        ledge_push(c, side, a, r, dt_s);
    }
    float free_y = a[1];
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
        turn_about(a, r, pivot, toe, raised);
        /* A toe the ankle cannot lift that far lifts the whole foot. */
        toe_of(c, side, a, r, toe);
        if (toe[1] < gt)
            a[1] += gt - toe[1];
    }
    /* A free foot's lift over the ground (all of it: it rises whole) is
     * followed at once as it grows and eases away by a spring as it
     * shrinks (CTRL_LIFT_EASE_HALFLIFE_S). */
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

/* How far the hip must come down (cm) for the thigh of SIDE to reach
 * TARGET within FRACTION of the leg's length; negative: how far it could
 * rise and still reach it. */
static float drop_for_reach(const ctrl_t *c, int side, const float target[3], float fraction)
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

/* The thigh reaches A within FRACTION of the leg's length. */
static bool in_reach(const ctrl_t *c, int side, const float a[3], float fraction)
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
static float toe_pivot_for(const ctrl_t *c, int side, const float a[3], const float r[4], float fraction,
                           float axis[3])
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
    if (!(sn > 1e-6f) || in_reach(c, side, a, fraction)) {
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
        if (in_reach(c, side, ta, fraction))
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
        if (!in_reach(c, side, ta, fraction))
            return CTRL_TOE_PIVOT_MAX_RAD + 1.0f;
    }
    return hi;
}

/* The push-off of a foot held by its toe: the heel rises about the toe as
 * far as the leg needs to reach the ankle within the foot's allowed
 * extension. Returns false when that takes more than CTRL_TOE_PIVOT_MAX_RAD
 * (the foot is turned that far, as it is shown this step): the animation
 * has moved on too far for the toe to stay (a network's foot sliding at the
 * start of a run), and the foot lets go, its hand-over starting from
 * there. */
static bool push_off(ctrl_t *c, int side, float a[3], float r[4])
{
    ctrl_foot_state *f = &c->foot;
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

/* The extension (fraction of the leg's length) a held foot of SIDE may ask
 * of its leg: where the leg was when the foot was caught (a heel striking
 * far ahead, a straight leg), easing to CTRL_HIP_DROP_REACH by a spring, so
 * the hip and heel take over the reach over a few steps instead of at once.
 * Near full extension the knee's angle follows the leg's length steeply
 * (the last 2.4 cm of reach are 23 degrees of knee): the leg is kept out of
 * there. A free foot's is CTRL_HIP_DROP_REACH. */
static void allowed_reach(ctrl_t *c, int side, bool was_held, const float a[3], float dt_s)
{
    ctrl_foot_state *f = &c->foot;
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

/* A free foot's ankle A brought within reach of the thigh of SIDE smoothly:
 * distances up to CTRL_FREE_REACH_SOFT of the leg's length stay, longer ones
 * are pulled towards the thigh along a curve that flattens out at
 * CTRL_HARD_REACH (A stays on the line from the thigh). The knee then never
 * snaps straight as a swinging foot reaches forward. */
static void soft_reach(const ctrl_t *c, int side, float a[3])
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
static void shown_turn(ctrl_foot_state *f, int side, float dt_s, float ang_vel[3])
{
    float inv[4], q[4];
    ctrl_quat_conj(f->prev_shown_rot[side], inv);
    pose_quat_mul(f->shown_rot[side], inv, q);
    ctrl_quat_to_rotvec(q, ang_vel);
    for (int k = 0; k < 3; k++)
        ang_vel[k] /= dt_s;
    memcpy(f->prev_shown_rot[side], f->shown_rot[side], sizeof f->prev_shown_rot[side]);
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
        memcpy(f->prev_shown_pt, anim, sizeof anim);
        memcpy(f->prev_anim, anim, sizeof anim);
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
        return;
    }
    if (f->fresh) {
        /* The first step after a reset: the feet start where the network
         * first puts them, not where the seed pose had them (straight legs,
         * 5 cm taller than the network stands), so the knees do not bend
         * at once as the body settles onto feet held in the seed's place. */
        memcpy(f->shown, anim, sizeof anim);
        memcpy(f->prev_shown_pt, anim, sizeof anim);
        memcpy(f->prev_anim, anim, sizeof anim);
        memset(f->on, 0, sizeof f->on);
        for (int side = 0; side < 2; side++) {
            memcpy(f->shown_rot[side], c->model_rot[c->j.foot[side]], sizeof f->shown_rot[side]);
            memcpy(f->prev_shown_rot[side], f->shown_rot[side], sizeof f->shown_rot[side]);
            memcpy(f->prev_anim_rot[side], f->shown_rot[side], sizeof f->shown_rot[side]);
            f->held_pts[side] = 0;
        }
        f->gap_floor = ctrl_over_gap(c) ? 1.0f : 0.0f;
        f->gap_floor_vel = 0.0f;
        f->fresh = false;
    }
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
        place_foot(c, side, a[side], r[side], dt_s);
        knee_pole(c, side, fwd, pole[side]);
        /* How the foot is shown this step, whatever lets go later in it
         * (a leg out of reach): the next step's hand-overs start here. */
        f->held_pts[side] = (uint8_t)((f->on[2 * side] ? 1 : 0) | (f->on[2 * side + 1] ? 2 : 0));
    }
    /* A planted foot out of its allowed reach (walking uphill away from the
     * rear foot, stepping down, a heel striking far ahead) lowers the hip a
     * little, after a foot held by its toe has raised its heel as far as it
     * may. The drop eases back by a spring, and from where it has eased to,
     * it follows any further need at once: the allowed reach eases, so the
     * need grows smoothly. */
    float drop_before = f->hip_drop;
    ctrl_spring_decay(&f->hip_drop, &f->hip_drop_vel, 1, CTRL_HIP_DROP_HALFLIFE_S, dt_s);
    f->hip_drop = fminf(fmaxf(f->hip_drop, 0.0f), CTRL_HIP_DROP_MAX_CM);
    c->pose.trans[c->j.hip][1] -= f->hip_drop;
    ctrl_update_model(c);
    float need = 0.0f;
    for (int side = 0; side < 2; side++) {
        allowed_reach(c, side, was_held[side], a[side], dt_s);
        /* A foot held by its heel that the leg would need the hip lowered
         * more than CTRL_HEEL_HOLD_DROP_CM to reach steps out instead: the
         * network slides a planted foot along where a walker would step
         * (starting to walk), and held, it took the hip 12 cm down and bent
         * the other knee to 75 degrees. */
        if (f->on[2 * side] && f->hip_drop + drop_for_reach(c, side, a[side], f->reach[side]) > CTRL_HEEL_HOLD_DROP_CM)
            step_out(f, side);
        if (!push_off(c, side, a[side], r[side]))
            step_out(f, side);
        if (foot_on(f, side))
            need = fmaxf(need, drop_for_reach(c, side, a[side], f->reach[side]));
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
            soft_reach(c, side, a[side]);
    for (int side = 0; side < 2; side++) {
        /* Still out of reach: the foot lets go and is lifted towards the
         * body by the leg; it carries on from there, free. */
        if (!in_reach(c, side, a[side], CTRL_IK_MAX_EXTENSION))
            step_out(f, side);
        solve_leg(c, side, a[side], r[side], pole[side]);
        memcpy(f->target[side], a[side], sizeof f->target[side]);
        memcpy(f->target_rot[side], r[side], sizeof f->target_rot[side]);
    }
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
