/* Unit tests for ctrl_foot (src/ctrl/ctrl_foot.c: contacts, locks and their
 * hand-overs, the order of a step), driven step by step with an animated
 * pose and contact flags set by hand (no network): the contact points and
 * the reset; IK off, the flags with their hysteresis; a lock held in place
 * while the animation slides the foot on; a lock settling onto the ground by
 * its spring and rising with the animation's lift; a release eased by the
 * critically damped spring over its half-life, with no jump; a lock too far
 * from the animation stepping out (standing: one re-plant, landing only
 * once it has arrived; walking: a longer leash); the body lowered to the
 * ground after a grace and not during a jump; and the shift of free feet
 * after the body is moved. It includes ctrl_foot_internal.h, the foot
 * files' own header, as the tests of one concern include ctrl_internal.h.
 * Usage: test_ctrl_foot TEST --net PATH
 * TEST: reset flags lock settle release step_out ground_body shift. PATH:
 * any network with the shipped layout (the tiny fixture: nothing here runs
 * it). Runs from the repository root (the skeleton is read from assets/).
 *
 * Each step sets c->pose as the network would (the rest pose, the knees
 * bent by an angle, the hip at a height, facing +z) and the contact flags
 * in c->y, then runs ctrl_foot_run(). The level is flat at height 0.
 */
#include "ctrl/ctrl.h"
#include "ctrl/ctrl_foot.h"
#include "ctrl/ctrl_foot_internal.h"

#include "check.h"
#include "ctrl_fixture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DT (1.0f / 60.0f)
/* Float rounding of the geometry below (cm). */
#define TOL 1e-3f
/* Knees bent by this much (rad): the legs well within reach (~88 %). */
#define BEND 0.5f

enum { L_HEEL = 0, L_TOE = 1, R_HEEL = 2, R_TOE = 3 };

static const char level_text[] = "strider-level 1\n"
                                 "name ctrl-foot-test\n"
                                 "flat 64 64 cell 20 height 0\n"
                                 "spawn 0 0 0\n";

static ctrl_fixture_t fx;

static bool make_level(void)
{
    if (!ctrl_fixture_parse_level(&fx, level_text, "ctrl-foot-test.lvl"))
        return false;
    return true;
}

static ctrl_t *reset_at(float x, float z)
{
    ctrl_spawn_t s = {x, z, 0.0f};
    ctrl_reset(fx.ctrl, &fx.level, &s);
    return fx.ctrl;
}

static void quat_x(float a, float out[4])
{
    out[0] = sinf(0.5f * a);
    out[1] = out[2] = 0.0f;
    out[3] = cosf(0.5f * a);
}

/* The animated pose: the hip at (X, HIP_Y, Z) facing +z, the knees bent by
 * BEND_L and BEND_R (thigh forward, shin back, foot as it stands). */
static void animate(ctrl_t *c, float x, float hip_y, float z, float bend_l, float bend_r)
{
    const float bend[2] = {bend_l, bend_r};
    c->pose = c->rest;
    quat_yaw(0.0f, c->pose.rot[c->j.hip]);
    for (int side = 0; side < 2; side++) {
        quat_x(-bend[side], c->pose.rot[c->j.thigh[side]]);
        quat_x(2.0f * bend[side], c->pose.rot[c->j.shin[side]]);
        quat_x(-bend[side], c->pose.rot[c->j.foot[side]]);
    }
    c->pose.trans[c->j.hip][0] = x;
    c->pose.trans[c->j.hip][1] = hip_y;
    c->pose.trans[c->j.hip][2] = z;
    ctrl_update_model(c);
}

/* The hip's height that puts the left ankle ANKLE_Y cm high with the knees
 * bent by BEND. */
static float hip_for_ankle(ctrl_t *c, float bend, float ankle_y)
{
    animate(c, 0.0f, 0.0f, 0.0f, bend, bend);
    return ankle_y - c->joint_pos[c->j.foot[0]][1];
}

/* One step: the pose animated as above, the four contact flags, then the
 * foot controller. ANIM gets the animated points. */
static void step(ctrl_t *c, float x, float hip_y, float z, float bend_l, float bend_r, const float flags[4],
                 float anim[CTRL_CONTACTS][3])
{
    animate(c, x, hip_y, z, bend_l, bend_r);
    if (anim)
        ctrl_contact_pos(c, anim);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        c->y[4 + k] = flags[k];
    ctrl_foot_run(c, DT, 0.0f);
}

/* A critically damped spring of half-life H from offset X0 and velocity V0
 * after T seconds, in closed form. */
static float spring_at(float x0, float v0, float h, float t)
{
    float y = 2.0f * logf(2.0f) / h;
    return (x0 + (v0 + y * x0) * t) * expf(-y * t);
}

/* ---- ctrl_contact_pos, ctrl_foot_reset ----------------------------------- */

static void test_reset(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    animate(c, 3.0f, 80.0f, -2.0f, 0.3f, 0.6f);
    float p[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, p);
    for (int side = 0; side < 2; side++) {
        const float *ankle = c->joint_pos[c->j.foot[side]];
        const float *o = fx.skel.end_offset[c->j.toe_end[side]];
        /* The heel is the ankle; the toe tip the end site, as far from it
         * as the skeleton has it, and ahead of it. */
        CHECK_NEAR(p[2 * side][0], ankle[0], 0.0f);
        CHECK_NEAR(p[2 * side][1], ankle[1], 0.0f);
        CHECK_NEAR(p[2 * side][2], ankle[2], 0.0f);
        float d[3] = {p[2 * side + 1][0] - ankle[0], p[2 * side + 1][1] - ankle[1], p[2 * side + 1][2] - ankle[2]};
        CHECK_NEAR(sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]), TOL);
        CHECKF(d[2] > 10.0f, "side %d: the toe %.2f cm ahead of the ankle", side, (double)d[2]);
        /* The toe's offset turned by the foot's world rotation. */
        float w[3];
        pose_quat_rotate(c->model_rot[c->j.foot[side]], o, w);
        for (int k = 0; k < 3; k++)
            CHECK_NEAR(d[k], w[k], TOL);
    }
    /* A used state: reset takes every lock, shown point and turn from the
     * pose as it is, lets everything go and marks the next step fresh. */
    ctrl_foot_state_t *f = &c->foot;
    memset(f, 0x55, sizeof *f);
    f->hip_drop = 7.0f;
    ctrl_foot_reset(c);
    bool same = true;
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        same &= !f->on[k] && !f->net_on[k] && f->weight[k] == 0.0f && f->off_steps[k] == 0 && !f->lift_block[k];
        for (int i = 0; i < 3; i++)
            same &= f->lock[k][i] == p[k][i] && f->shown[k][i] == p[k][i] && f->prev_anim[k][i] == p[k][i] &&
                    f->prev_shown_pt[k][i] == p[k][i];
    }
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < 4; i++) {
            float q = c->model_rot[c->j.foot[side]][i];
            same &= f->shown_rot[side][i] == q && f->prev_shown_rot[side][i] == q && f->prev_anim_rot[side][i] == q;
        }
    CHECKF(same, "the reset state is not the pose's");
    CHECK(f->fresh);
    CHECK(f->hip_drop == 0.0f && f->ground_drop == 0.0f && f->gap_floor == 0.0f);
    /* The first step after it takes the feet from the animation, not the
     * seed: held at once where the animation puts them 6 cm lower. */
    const float on[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    float hip = hip_for_ankle(c, BEND, 4.5f), anim[CTRL_CONTACTS][3];
    step(c, 0.0f, hip, 0.0f, BEND, BEND, on, anim);
    CHECK(!f->fresh);
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        CHECKF(f->on[k], "point %d not caught on the first step", k);
        /* (A toe's lock is then turned about the ankle's: within 0.1 cm.) */
        CHECKF(dist_xz(f->lock[k], anim[k]) <= (k & 1 ? 0.1f : TOL) && fabsf(f->lock[k][1] - anim[k][1]) < 0.5f,
               "point %d locked at (%.2f %.2f %.2f), the animation at (%.2f %.2f %.2f)", k, (double)f->lock[k][0],
               (double)f->lock[k][1], (double)f->lock[k][2], (double)anim[k][0], (double)anim[k][1],
               (double)anim[k][2]);
    }
}

/* ---- IK off: the network's flags ----------------------------------------- */

static void test_flags(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_set_ik(c, false);
    ctrl_foot_state_t *f = &c->foot;
    float hip = hip_for_ankle(c, BEND, 20.0f);
    /* Hysteresis: on above 0.6, off below 0.4; the left heel goes up and
     * down, the others stay at one value. */
    const float heel[] = {0.55f, 0.61f, 0.5f, 0.41f, 0.39f, 0.5f, 0.59f, 0.7f};
    const bool want[] = {false, true, true, true, false, false, false, true};
    for (size_t i = 0; i < sizeof heel / sizeof heel[0]; i++) {
        const float flags[4] = {heel[i], 0.5f, 0.9f, 0.1f};
        float anim[CTRL_CONTACTS][3];
        step(c, 2.0f * (float)i, hip, (float)i, BEND, 0.2f, flags, anim);
        CHECKF(f->on[L_HEEL] == want[i], "step %zu: flag %.2f, on %d", i, (double)heel[i], f->on[L_HEEL]);
        CHECK(!f->on[L_TOE] && f->on[R_HEEL] && !f->on[R_TOE]);
        /* Nothing held: the weights are 0, the pose is the animation's,
         * and every hand-over starts from it. */
        bool follow = true;
        for (int k = 0; k < CTRL_CONTACTS; k++) {
            follow &= f->weight[k] == 0.0f;
            for (int j = 0; j < 3; j++)
                follow &= f->lock[k][j] == anim[k][j] && f->shown[k][j] == anim[k][j];
        }
        for (int side = 0; side < 2; side++)
            for (int j = 0; j < 3; j++)
                follow &= f->ioff[side][j] == 0.0f && f->iroff[side][j] == 0.0f;
        CHECKF(follow, "step %zu: IK off, the feet do not follow the animation", i);
        float now[CTRL_CONTACTS][3];
        ctrl_contact_pos(c, now);
        CHECK(memcmp(now, anim, sizeof now) == 0);
    }
    ctrl_set_ik(c, true);
}

/* ---- a lock held ------------------------------------------------------------- */

/* Standing on bent legs, heels and toes flagged: the animation slides the
 * body (and the feet) on 1 cm a step; the feet stay where they touched
 * down, flat on the ground. */
static void test_lock(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_foot_state_t *f = &c->foot;
    const float on[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    float hip = hip_for_ankle(c, BEND, 4.5f), anim[CTRL_CONTACTS][3], touch[CTRL_CONTACTS][3];
    step(c, 0.0f, hip, 0.0f, BEND, BEND, on, anim);
    memcpy(touch, anim, sizeof touch);
    int moved = 0, lost = 0;
    for (int s = 1; s <= 9; s++) {
        step(c, 0.0f, hip, (float)s, BEND, BEND, on, anim);
        for (int k = 0; k < CTRL_CONTACTS; k++) {
            lost += !f->on[k] || f->weight[k] != 1.0f;
            /* (A toe's lock turns about the ankle as the heel settles 0.5 cm.) */
            moved += dist_xz(f->shown[k], touch[k]) > (k & 1 ? 0.1f : TOL);
        }
        /* The shown ankle is the leg's: the heel lock reached. */
        for (int side = 0; side < 2; side++)
            CHECKF(dist_xz(c->joint_pos[c->j.foot[side]], touch[2 * side]) <= TOL,
                   "step %d side %d: the ankle left its lock", s, side);
        CHECKF(dist_xz(anim[0], touch[0]) > (float)s - 0.5f, "step %d: the animation did not slide the heel", s);
    }
    /* The animation stops: the locks stay. */
    for (int s = 0; s < 20; s++) {
        step(c, 0.0f, hip, 9.0f, BEND, BEND, on, anim);
        for (int k = 0; k < CTRL_CONTACTS; k++) {
            lost += !f->on[k] || f->weight[k] != 1.0f;
            moved += dist_xz(f->shown[k], touch[k]) > (k & 1 ? 0.1f : TOL);
        }
    }
    CHECKF(lost == 0, "%d point-steps let go while held", lost);
    CHECKF(moved == 0, "%d point-steps moved off their locks", moved);
    /* Settled onto the ground: the heel at its sole height, the toe too
     * (the foot flat, turned about the ankle onto its lock). */
    for (int side = 0; side < 2; side++) {
        CHECK_NEAR(f->shown[2 * side][1], CTRL_HEEL_SOLE_CM, 0.01f);
        CHECK_NEAR(f->shown[2 * side + 1][1], CTRL_TOE_SOLE_CM, 0.05f);
    }
    ctrl_stats_t st;
    ctrl_get_stats(c, &st);
    for (int k = 0; k < CTRL_CONTACTS; k++)
        CHECK(st.contact[k] && st.lock_weight[k] == 1.0f);
}

/* ---- a lock settling --------------------------------------------------------- */

static void test_settle(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_foot_state_t *f = &c->foot;
    /* The left heel flagged down 3 cm above its sole (the toe kept up, the
     * right foot held): the lock comes down by the settling spring from
     * rest, (1 + y t) e^(-y t) of the way left after t, never below. */
    const float flags[4] = {1.0f, 0.0f, 1.0f, 1.0f};
    const float above = 3.0f;
    float hip = hip_for_ankle(c, BEND, CTRL_HEEL_SOLE_CM + above);
    step(c, 0.0f, hip, 0.0f, BEND, BEND, flags, NULL);
    CHECK(f->on[L_HEEL] && !f->on[L_TOE]);
    /* Caught where it was shown; already one step of settling. */
    CHECK_NEAR(f->lock[L_HEEL][1] - CTRL_HEEL_SOLE_CM, spring_at(above, 0.0f, CTRL_LOCK_SETTLE_HALFLIFE_S, DT), 0.01f);
    float prev = f->lock[L_HEEL][1];
    int rose = 0, below = 0;
    for (int s = 2; s <= 30; s++) {
        step(c, 0.0f, hip, 0.0f, BEND, BEND, flags, NULL);
        float h = f->lock[L_HEEL][1] - CTRL_HEEL_SOLE_CM;
        CHECK_NEAR(h, spring_at(above, 0.0f, CTRL_LOCK_SETTLE_HALFLIFE_S, (float)s * DT), 0.01f);
        rose += f->lock[L_HEEL][1] > prev + 1e-5f;
        below += h < -1e-5f;
        prev = f->lock[L_HEEL][1];
        CHECK(f->on[L_HEEL]);
    }
    CHECKF(rose == 0 && below == 0, "the lock rose %d times, went below its sole %d times", rose, below);
    CHECK_NEAR(f->shown[L_HEEL][1], CTRL_HEEL_SOLE_CM, 0.01f);
    /* The animation lifts the heel 1 cm (less than its release): the lock
     * stays on the ground. */
    float hip_up = hip + 1.0f;
    for (int s = 0; s < 40; s++)
        step(c, 0.0f, hip_up, 0.0f, BEND, BEND, flags, NULL);
    CHECK(f->on[L_HEEL]);
    CHECK_NEAR(f->lock[L_HEEL][1], CTRL_HEEL_SOLE_CM, 0.01f);
    /* Lifted past CTRL_LIFT_RELEASE_CM above where it touched down, it lets
     * go, its flag still on. */
    float hip_off = hip + CTRL_LIFT_RELEASE_CM + 0.5f;
    step(c, 0.0f, hip_off, 0.0f, BEND, BEND, flags, NULL);
    CHECK(!f->on[L_HEEL]);
}

/* ---- a release ---------------------------------------------------------------- */

/* Walking: the left heel held while the animation slides it on 1 cm a step
 * (60 cm/s), then lifted 9 cm with its flag off: the foot lets go, and its
 * offset from the animation (warp aside) is the critically damped spring's
 * from where it was held and with the animation's speed, over
 * CTRL_FOOT_HALFLIFE_S; it does not jump. */
static void test_release(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_foot_state_t *f = &c->foot;
    c->base[0] = 0.0f;
    c->base[1] = 1.0f;
    const float held[4] = {1.0f, 0.0f, 1.0f, 1.0f}, lifted[4] = {0.0f, 0.0f, 1.0f, 1.0f};
    float hip = hip_for_ankle(c, BEND, 4.5f), anim[CTRL_CONTACTS][3], prev_anim[CTRL_CONTACTS][3];
    int s = 0;
    for (; s <= 10; s++) {
        memcpy(prev_anim, anim, sizeof anim);
        step(c, 0.0f, hip, (float)s, BEND, BEND, held, anim);
        /* (The toe, on the ground, is caught while the animation is still
         * on the first step and let go CTRL_OFF_STEPS later.) */
        CHECKF(f->on[L_HEEL] && (s <= CTRL_OFF_STEPS || !f->on[L_TOE]), "step %d: heel %d toe %d", s, f->on[L_HEEL],
               f->on[L_TOE]);
    }
    const float lock[3] = {f->lock[L_HEEL][0], f->lock[L_HEEL][1], f->lock[L_HEEL][2]};
    float prev_warp[2] = {f->warp[0][0], f->warp[0][1]};
    float x0[2] = {lock[0] - anim[L_HEEL][0] - prev_warp[0], lock[2] - anim[L_HEEL][2] - prev_warp[1]};
    CHECKF(x0[1] < -9.0f, "the heel held %.2f cm from the animation", (double)x0[1]);
    memcpy(prev_anim, anim, sizeof anim);
    /* The lift: the left knee bent to 0.75 rad. */
    step(c, 0.0f, hip, (float)s, 0.75f, BEND, lifted, anim);
    CHECK(!f->on[L_HEEL] && !f->on[L_TOE] && f->weight[L_HEEL] == 0.0f);
    CHECK(!f->anchor_toe[0]);
    /* The offset's velocity: the held heel was still, the target moved. */
    float v0[2] = {-(anim[L_HEEL][0] + f->warp[0][0] - prev_anim[L_HEEL][0] - prev_warp[0]) / DT,
                   -(anim[L_HEEL][2] + f->warp[0][1] - prev_anim[L_HEEL][2] - prev_warp[1]) / DT};
    CHECKF(dist_xz(f->shown[L_HEEL], lock) < 1.0f, "the heel jumped %.2f cm as it let go",
           (double)dist_xz(f->shown[L_HEEL], lock));
    float first = 0.0f;
    for (int n = 1; n <= 40; n++) {
        if (n > 1)
            step(c, 0.0f, hip, (float)s, 0.75f, BEND, lifted, anim);
        float t = (float)n * DT;
        float ox = f->shown[L_HEEL][0] - anim[L_HEEL][0] - f->warp[0][0];
        float oz = f->shown[L_HEEL][2] - anim[L_HEEL][2] - f->warp[0][1];
        CHECKF(fabsf(ox - spring_at(x0[0], v0[0], CTRL_FOOT_HALFLIFE_S, t)) < 0.01f &&
                   fabsf(oz - spring_at(x0[1], v0[1], CTRL_FOOT_HALFLIFE_S, t)) < 0.01f,
               "%d steps after the release: offset (%.3f, %.3f), the spring's (%.3f, %.3f)", n, (double)ox, (double)oz,
               (double)spring_at(x0[0], v0[0], CTRL_FOOT_HALFLIFE_S, t),
               (double)spring_at(x0[1], v0[1], CTRL_FOOT_HALFLIFE_S, t));
        if (n == 1)
            first = hypotf(ox, oz);
        CHECK(!f->on[L_HEEL]);
    }
    CHECKF(first > 9.0f, "the offset was %.2f cm after the first step", (double)first);
    CHECKF(hypotf(f->ioff[0][0], f->ioff[0][2]) < 0.05f, "0.67 s on, %.3f cm still to go",
           (double)hypotf(f->ioff[0][0], f->ioff[0][2]));
    /* The swinging foot rose: clear of the ground. */
    CHECK(f->shown[L_HEEL][1] > CTRL_HEEL_SOLE_CM + 5.0f);
}

/* ---- stepping out ------------------------------------------------------------- */

/* Held heel and toe, the animation sliding on 1 cm a step: standing, the
 * foot lets go once the animation is more than CTRL_LOCK_MAX_STAND_CM away
 * and re-plants as one step, landing only once it has arrived; walking, it
 * is held to CTRL_LOCK_MAX_CM. */
static void test_step_out(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_foot_state_t *f = &c->foot;
    const float on[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    float hip = hip_for_ankle(c, BEND, 4.5f), anim[CTRL_CONTACTS][3];
    step(c, 0.0f, hip, 0.0f, BEND, BEND, on, anim);
    const float touch = anim[L_HEEL][2];
    int s = 1;
    for (; s <= 30 && f->on[L_HEEL]; s++)
        step(c, 0.0f, hip, (float)s, BEND, BEND, on, anim);
    float gone = anim[L_HEEL][2] - touch;
    CHECKF(gone > CTRL_LOCK_MAX_STAND_CM && gone < CTRL_LOCK_MAX_STAND_CM + 1.01f,
           "standing: let go %.2f cm from the animation", (double)gone);
    CHECK(!f->on[L_TOE] && !f->on[R_HEEL] && !f->on[R_TOE]);
    CHECK(f->replant_steps[0] == CTRL_REPLANT_MAX_STEPS && f->replant_steps[1] == CTRL_REPLANT_MAX_STEPS);
    /* The animation stops, still flagged down: no landing until the foot
     * has arrived, then it lands where the animation has it. */
    const float z = (float)(s - 1);
    int early = 0, n = 0;
    for (; n < 40 && !f->on[L_HEEL]; n++) {
        float left = hypotf(f->ioff[0][0], f->ioff[0][2]);
        step(c, 0.0f, hip, z, BEND, BEND, on, anim);
        early += f->on[L_HEEL] && left >= CTRL_REPLANT_ARRIVE_CM;
    }
    CHECKF(early == 0, "%d landings before the foot arrived", early);
    CHECKF(f->on[L_HEEL] && n > 6 && n < CTRL_REPLANT_MAX_STEPS, "landed after %d steps (on %d)", n, f->on[L_HEEL]);
    /* (Where the animation has it: with the stride warp the stance's drift
     * has set since.) */
    float want[3] = {anim[L_HEEL][0] + f->warp[0][0], 0.0f, anim[L_HEEL][2] + f->warp[0][1]};
    CHECKF(dist_xz(f->lock[L_HEEL], want) < CTRL_REPLANT_ARRIVE_CM, "landed %.2f cm from the animation",
           (double)dist_xz(f->lock[L_HEEL], want));

    /* Walking: held at 15 cm, let go past 18, no re-plant. */
    c = reset_at(0.0f, 0.0f);
    c->base[0] = 0.0f;
    c->base[1] = 1.0f;
    step(c, 0.0f, hip, 0.0f, BEND, BEND, on, anim);
    for (s = 1; s <= 30 && f->on[L_HEEL]; s++)
        step(c, 0.0f, hip, (float)s, BEND, BEND, on, anim);
    gone = anim[L_HEEL][2] - touch;
    CHECKF(gone > CTRL_LOCK_MAX_CM && gone < CTRL_LOCK_MAX_CM + 1.01f, "walking: let go %.2f cm from the animation",
           (double)gone);
    CHECK(f->replant_steps[0] == 0);
}

/* ---- the body grounded ------------------------------------------------------- */

/* Both feet 5 cm up and nothing flagged, no jump: after the grace, the
 * body comes down CTRL_GROUND_DROP_CM_S fast until a foot is on the
 * ground. During a jump it stays up. */
static void test_ground_body(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_foot_state_t *f = &c->foot;
    const float off[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float hip = hip_for_ankle(c, BEND, CTRL_HEEL_SOLE_CM + 5.0f);
    const float grace_steps = CTRL_GROUND_GRACE_S / DT, rate = CTRL_GROUND_DROP_CM_S * DT;
    float prev = 0.0f, most = 0.0f, low = 1e9f, anim[CTRL_CONTACTS][3];
    int landed = -1;
    for (int s = 1; s <= 30; s++) {
        step(c, 0.0f, hip, 0.0f, BEND, BEND, off, anim);
        float drop = f->ground_drop;
        most = fmaxf(most, drop);
        /* (How far the animation's lowest point is above its sole.) */
        for (int k = 0; s == 1 && k < CTRL_CONTACTS; k++)
            low = fminf(low, anim[k][1] - (k & 1 ? CTRL_TOE_SOLE_CM : CTRL_HEEL_SOLE_CM));
        if ((float)s < grace_steps - 0.5f)
            CHECKF(drop == 0.0f, "step %d: down %.2f cm within the grace", s, (double)drop);
        bool any_on = f->on[L_HEEL] || f->on[L_TOE] || f->on[R_HEEL] || f->on[R_TOE];
        if (landed < 0 && drop > 0.0f)
            CHECKF(drop - prev <= rate + TOL, "step %d: down %.2f cm in a step", s, (double)(drop - prev));
        if (landed < 0 && any_on)
            landed = s;
        prev = drop;
        /* The hip is lowered by the drop. */
        CHECKF(landed >= 0 || fabsf(c->joint_pos[c->j.hip][1] - (hip - drop)) <= TOL, "step %d: hip %.2f, want %.2f", s,
               (double)c->joint_pos[c->j.hip][1], (double)(hip - drop));
    }
    CHECKF(landed > 0 && landed <= (int)grace_steps + 5, "a foot reached the ground at step %d", landed);
    /* Never lowered further than the lowest point was above the ground
     * (afterwards, with a foot caught, the drop eases back and comes again:
     * not checked). */
    CHECKF(most <= low + TOL, "down %.2f cm, the lowest point %.2f up", (double)most, (double)low);

    /* Jumping: not lowered. */
    c = reset_at(0.0f, 0.0f);
    c->jump = 0.5f;
    for (int s = 1; s <= 30; s++)
        step(c, 0.0f, hip, 0.0f, BEND, BEND, off, NULL);
    CHECK_NEAR(f->ground_drop, 0.0f, 0.0f);
    CHECK_NEAR(c->joint_pos[c->j.hip][1], hip, TOL);
}

/* ---- ctrl_foot_shift --------------------------------------------------------- */

static void test_shift(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_foot_state_t *f = &c->foot;
    /* The left foot held, the right one up in the air. */
    const float flags[4] = {1.0f, 1.0f, 0.0f, 0.0f};
    float hip = hip_for_ankle(c, BEND, 4.5f);
    for (int s = 0; s < 5; s++)
        step(c, 0.0f, hip, 0.0f, BEND, 0.8f, flags, NULL);
    CHECK(foot_on(f, 0) && !foot_on(f, 1));
    float left[3], right[3], lock[3];
    memcpy(left, c->joint_pos[c->j.foot[0]], sizeof left);
    memcpy(right, c->joint_pos[c->j.foot[1]], sizeof right);
    memcpy(lock, f->lock[L_HEEL], sizeof lock);
    /* The body moved by (3, -2): the free foot goes with it, the held one
     * stays; the shown points are the new pose's. */
    c->pose.trans[c->j.hip][0] += 3.0f;
    c->pose.trans[c->j.hip][2] -= 2.0f;
    ctrl_update_model(c);
    ctrl_foot_shift(c, 3.0f, -2.0f, 0.0f);
    const float *la = c->joint_pos[c->j.foot[0]], *ra = c->joint_pos[c->j.foot[1]];
    CHECK_NEAR(la[0], left[0], TOL);
    CHECK_NEAR(la[1], left[1], TOL);
    CHECK_NEAR(la[2], left[2], TOL);
    CHECK_NEAR(ra[0], right[0] + 3.0f, TOL);
    CHECK_NEAR(ra[1], right[1], TOL);
    CHECK_NEAR(ra[2], right[2] - 2.0f, TOL);
    CHECK_NEAR(f->target[1][0], right[0] + 3.0f, TOL);
    float p[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, p);
    CHECK(memcmp(p, f->shown, sizeof p) == 0);
    CHECK(dist_xz(f->lock[L_HEEL], lock) == 0.0f);
    /* IK off: nothing moves. */
    ctrl_set_ik(c, false);
    float before[CTRL_JOINTS][3];
    memcpy(before, c->joint_pos, sizeof before);
    ctrl_foot_shift(c, 5.0f, 5.0f, 0.0f);
    CHECK(memcmp(before, c->joint_pos, sizeof before) == 0);
    ctrl_set_ik(c, true);
}

/* ---- main ---------------------------------------------------------------------- */

static const ctrl_fixture_group_t groups[] = {
    {"reset", test_reset},
    {"flags", test_flags},
    {"lock", test_lock},
    {"settle", test_settle},
    {"release", test_release},
    {"step_out", test_step_out},
    {"ground_body", test_ground_body},
    {"shift", test_shift},
};

int main(int argc, char **argv)
{
    return ctrl_fixture_main(argc, argv, "test_ctrl_foot", &fx, make_level, NULL, groups,
                             (int)(sizeof groups / sizeof groups[0]));
}
