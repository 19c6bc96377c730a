/* ctrl_foot_internal: what the foot controller's files share: ctrl_foot.c
 * (contacts, locks and hand-overs, the order of a step), ctrl_foot_place.c
 * (where each foot goes) and ctrl_foot_leg.c (reach, hip drop, leg IK).
 * Every tuning constant of the foot controller is here, with why it has its
 * value; the file comment of ctrl_foot.c tells how the pieces fit. Not part
 * of the interface: only src/ctrl/ctrl_foot*.c include it.
 * Does NOT: hold state (ctrl_foot_state_t lives in ctrl_internal.h).
 */
#ifndef STRIDER_CTRL_FOOT_INTERNAL_H
#define STRIDER_CTRL_FOOT_INTERNAL_H

#include "ctrl/ctrl_internal.h"
#include "ctrl/ctrl_world.h"

#include "anim/pose.h"

#include <math.h>
#include <stdbool.h>

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
/* The most (degrees) that clearing the ground turns a foot about a held
 * heel or toe, beyond where the animation has it: about what an ankle bends
 * a foot up past standing. More than that is lifted with the whole foot: a
 * heel caught on the face of a bank, its toe 30 cm inside it, turned the
 * foot 113 degrees in a step to clear it. */
#define CTRL_CLEAR_TURN_MAX_DEG 45.0f
/* Times a free toe is lifted clear of the ground, each over the ground
 * where the last lift moved it. */
#define CTRL_TOE_CLEAR_PASSES 3

/* A free foot is kept off ground more than a step above the root's while
 * below its top (the face of a ledge, a trench's wall from inside it): it is
 * moved towards the root, in the ground plane, until it is clear, and comes
 * back by a spring of this half-life once the animation lifts it over the
 * top. Lifted onto it instead, it rose a metre in three steps. A foot the
 * animation has below such a top but the ground's lift holds over it is
 * eased off it by the same spring. */
#define CTRL_LEDGE_PUSH_HALFLIFE_S 0.1f
/* What the ground lifts a free foot by eases away by a spring of this
 * half-life (s) when it is no longer needed, instead of at once: a foot
 * carried off a ledge's top, or over a crest, dropped to the animation's
 * height in one step (31 cm off a ledge). It follows any growing need at
 * once: no foot goes below the ground. */
#define CTRL_LIFT_EASE_HALFLIFE_S 0.05f
#define CTRL_LEDGE_PUSH_ITERS 10
/* A free foot point rises at most this much (cm) a step onto ground: ground
 * higher than that above where the point was shown last step is a bank the
 * foot is held back from, along the way it came (bank_hold). 3 cm a step
 * (1.8 m/s): an animation stepping up lifts its foot over the step before
 * it moves over it (no stair or terrace of the levels meets this limit in
 * the eval or 100,000-step soaks); a foot faster onto ground is being
 * carried into a bank (a trench's, beside a landing). */
#define CTRL_FOOT_RISE_MAX_CM 3.0f

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
static const float SOLE_CM[CTRL_CONTACTS] = {CTRL_HEEL_SOLE_CM, CTRL_TOE_SOLE_CM, CTRL_HEEL_SOLE_CM, CTRL_TOE_SOLE_CM};

/* The ground under a foot point (ctrl_gap_floor_ground: its gap floor as
 * far as it has come). */
static inline float foot_ground(const ctrl_t *c, float x, float z)
{
    return ctrl_gap_floor_ground(c, x, z, c->foot.gap_floor);
}

static inline float dist_xz(const float a[3], const float b[3]) { return hypotf(a[0] - b[0], a[2] - b[2]); }

/* World position of the toe tip of a foot with ankle A and world rotation R. */
static inline void toe_of(const ctrl_t *c, int side, const float a[3], const float r[4], float out[3])
{
    float o[3];
    pose_quat_rotate(r, c->skel->end_offset[c->j.toe_end[side]], o);
    for (int k = 0; k < 3; k++)
        out[k] = a[k] + o[k];
}

static inline bool foot_on(const ctrl_foot_state_t *f, int side) { return f->on[2 * side] || f->on[2 * side + 1]; }

/* ---- ctrl_foot_place.c --------------------------------------------------- */

/* Where the foot of SIDE goes: ankle A and world rotation R, from the free
 * foot, the locks and the ground. */
void ctrl_foot_place(ctrl_t *c, int side, float a[3], float r[4], float dt_s);

/* ---- ctrl_foot_leg.c ----------------------------------------------------- */

/* How far the hip must come down (cm) for the thigh of SIDE to reach
 * TARGET within FRACTION of the leg's length; negative: how far it could
 * rise and still reach it. */
float ctrl_foot_drop_for_reach(const ctrl_t *c, int side, const float target[3], float fraction);

/* The thigh reaches A within FRACTION of the leg's length. */
bool ctrl_foot_in_reach(const ctrl_t *c, int side, const float a[3], float fraction);

/* The push-off of a foot held by its toe: the heel rises about the toe as
 * far as the leg needs to reach the ankle within the foot's allowed
 * extension. Returns false when that takes more than CTRL_TOE_PIVOT_MAX_RAD
 * (the foot is turned that far, as it is shown this step): the animation
 * has moved on too far for the toe to stay (a network's foot sliding at the
 * start of a run), and the foot lets go, its hand-over starting from
 * there. */
bool ctrl_foot_push_off(ctrl_t *c, int side, float a[3], float r[4]);

/* The extension (fraction of the leg's length) a held foot of SIDE may ask
 * of its leg: where the leg was when the foot was caught (a heel striking
 * far ahead, a straight leg), easing to CTRL_HIP_DROP_REACH by a spring, so
 * the hip and heel take over the reach over a few steps instead of at once.
 * Near full extension the knee's angle follows the leg's length steeply
 * (the last 2.4 cm of reach are 23 degrees of knee): the leg is kept out of
 * there. A free foot's is CTRL_HIP_DROP_REACH. */
void ctrl_foot_allowed_reach(ctrl_t *c, int side, bool was_held, const float a[3], float dt_s);

/* A free foot's ankle A brought within reach of the thigh of SIDE smoothly:
 * distances up to CTRL_FREE_REACH_SOFT of the leg's length stay, longer ones
 * are pulled towards the thigh along a curve that flattens out at
 * CTRL_HARD_REACH (A stays on the line from the thigh). The knee then never
 * snaps straight as a swinging foot reaches forward. */
void ctrl_foot_soft_reach(const ctrl_t *c, int side, float a[3]);

/* The knee's pole: its animated bend direction, or FWD while the leg is
 * nearly straight (the bend direction is then undefined). */
void ctrl_foot_knee_pole(const ctrl_t *c, int side, const float fwd[3], float pole[3]);

/* Solves the leg of SIDE so the ankle reaches A (or as near as it can) and
 * the foot has world rotation R. */
void ctrl_foot_solve_leg(ctrl_t *c, int side, const float a[3], const float r[4], const float pole[3]);

#endif
