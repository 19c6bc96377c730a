/* Unit tests for ctrl_foot_leg (src/ctrl/ctrl_foot_internal.h, the legs'
 * part): the hip drop that brings a target within a share of the leg's
 * length (checked by lowering the hip that far and measuring), whether a
 * point is in reach of a thigh, the push-off of a foot held by its toe (the
 * toe stays, the heel rises by the least turn that brings the ankle in
 * reach, no more than CTRL_TOE_PIVOT_MAX_RAD), the knee's pole (its bend
 * direction, the character's forward while the leg is straight, a blend
 * between), the two-joint solve of a leg from rest and from mid-stride (the
 * ankle on a reachable target, as near as it can on one out of reach, the
 * foot's world rotation, bone lengths, nothing else moved), and, loosely (it
 * is being tuned), the soft reach of a free foot. Not ctrl_foot_allowed_reach
 * (being reworked). It includes ctrl_foot_internal.h, the foot files' own
 * header, as the tests of one concern include ctrl_internal.h.
 * Usage: test_ctrl_foot_leg TEST --net PATH
 * TEST: drop in_reach push_off push_off_idle push_off_limit knee_pole
 * solve_leg solve_far soft_reach. PATH: any network with the shipped layout
 * (the tiny fixture: nothing here runs it). Runs from the repository root
 * (the skeleton is read from assets/).
 *
 * The controller stands in its rest pose (ctrl_reset) on flat ground; the
 * functions read its joints (c->joint_pos, c->model_rot), leg lengths and
 * foot state, which the tests set as a step would have left them.
 */
#include "ctrl/ctrl.h"
#include "ctrl/ctrl_foot_internal.h"

#include "check.h"
#include "ctrl_fixture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Float rounding of the geometry below (cm). */
#define TOL 1e-3f
/* What the push-off's bisection of the toe's turn leaves (14 halvings of at
 * most 0.3 rad, on a foot 13 cm long: 2.4e-4 cm), and the IK's solve. */
#define REACH_TOL 1e-2f

static const char level_text[] = "strider-level 1\n"
                                 "name ctrl-foot-leg-test\n"
                                 "flat 32 32 cell 20 height 0\n"
                                 "spawn 0 0 0\n";

static ctrl_fixture_t fx;

static bool make_level(void)
{
    if (!ctrl_fixture_parse_level(&fx, level_text, "ctrl-foot-leg-test.lvl"))
        return false;
    return true;
}

/* The controller standing at the origin facing HEADING, no foot held. */
static ctrl_t *reset_facing(float heading)
{
    ctrl_spawn_t s = {0.0f, 0.0f, heading};
    ctrl_reset(fx.ctrl, &fx.level, &s);
    return fx.ctrl;
}

static float dist3(const float a[3], const float b[3])
{
    return sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const float a[3], const float b[3], float out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void sub3(const float a[3], const float b[3], float out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = a[k] - b[k];
}

/* Angle (rad) of the rotation from P to Q. */
static float quat_angle(const float p[4], const float q[4])
{
    float inv[4], r[4];
    ctrl_quat_conj(p, inv);
    pose_quat_mul(inv, q, r);
    return 2.0f * atan2f(sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), fabsf(r[3]));
}

/* Lowers the hip by D cm (raises it for D < 0) and derives the joints again. */
static void lower_hip(ctrl_t *c, float d)
{
    c->pose.trans[c->j.hip][1] -= d;
    ctrl_update_model(c);
}

static float bone_length(int b)
{
    const float *o = fx.skel.joint_offset[b];
    return sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
}

/* ---- ctrl_foot_drop_for_reach ------------------------------------------------ */

typedef struct drop_case_t {
    float dx, dy, dz; /* the target from the thigh, cm */
    float fraction;
} drop_case_t;

static void test_drop(void)
{
    ctrl_t *c = reset_facing(0.4f);
    const drop_case_t cases[] = {
        {0.0f, -100.0f, 0.0f, 0.97f},
        {20.0f, -90.0f, 15.0f, 0.97f},
        {-30.0f, -60.0f, 40.0f, 0.9f},
        {10.0f, -95.0f, -5.0f, 1.0f},
        {5.0f, -40.0f, 10.0f, 0.97f},
        {-50.0f, -80.0f, -45.0f, 0.97f},
        /* Nearly the whole reach out on the ground plane (95% and 98%). */
        {-70.0f, -60.0f, 30.0f, 0.97f},
        {78.0f, -50.0f, 0.0f, 0.97f},
    };
    for (int side = 0; side < 2; side++) {
        const float leg = c->leg_len[side];
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            const drop_case_t *k = &cases[i];
            float thigh[3], target[3];
            memcpy(thigh, c->joint_pos[c->j.thigh[side]], sizeof thigh);
            target[0] = thigh[0] + k->dx;
            target[1] = thigh[1] + k->dy;
            target[2] = thigh[2] + k->dz;
            float d = ctrl_foot_drop_for_reach(c, side, target, k->fraction);
            /* The hip lowered by that much: the target lies exactly the
             * share of the leg's length from the thigh, below it. */
            lower_hip(c, d);
            const float *moved = c->joint_pos[c->j.thigh[side]];
            CHECKF(fabsf(dist3(target, moved) - leg * k->fraction) <= TOL,
                   "side %d case %zu: dropped %.3f cm, the target %.4f cm from the thigh, want %.4f", side, i,
                   (double)d, (double)dist3(target, moved), (double)(leg * k->fraction));
            CHECKF(target[1] < moved[1], "side %d case %zu: the target %.2f cm is not below the thigh at %.2f", side, i,
                   (double)target[1], (double)moved[1]);
            lower_hip(c, -d);
            /* A target already well within reach: the hip could rise. */
            if (hypotf(k->dx, hypotf(k->dy, k->dz)) < leg * k->fraction - 1.0f)
                CHECKF(d < 0.0f, "side %d case %zu: a target in reach asks a drop of %.3f cm", side, i, (double)d);
        }
        /* 3-4-5: a reach of 50 cm, the target 30 cm out (18, 24) and 100
         * cm down: the thigh comes down to 40 cm above it, 60 cm. */
        float thigh[3], target[3];
        memcpy(thigh, c->joint_pos[c->j.thigh[side]], sizeof thigh);
        target[0] = thigh[0] + 18.0f;
        target[1] = thigh[1] - 100.0f;
        target[2] = thigh[2] - 24.0f;
        CHECK_NEAR(ctrl_foot_drop_for_reach(c, side, target, 50.0f / leg), 60.0f, TOL);
        /* Straight below at the reach itself: no drop. */
        target[0] = thigh[0];
        target[1] = thigh[1] - 0.97f * leg;
        target[2] = thigh[2];
        CHECK_NEAR(ctrl_foot_drop_for_reach(c, side, target, 0.97f), 0.0f, TOL);
        /* A longer reach needs less drop. */
        target[1] = thigh[1] - leg;
        target[0] = thigh[0] + 20.0f;
        float less = ctrl_foot_drop_for_reach(c, side, target, 0.99f),
              more = ctrl_foot_drop_for_reach(c, side, target, 0.95f);
        CHECKF(more > less + 1.0f, "side %d: a drop of %.3f cm at 95%% of the leg, %.3f at 99%%", side, (double)more,
               (double)less);
        /* Further out on the ground plane than the reach: no drop reaches
         * it, the most the hip comes down. */
        target[0] = thigh[0] + 0.6f * leg;
        target[2] = thigh[2] + 0.6f * leg;
        CHECK_NEAR(ctrl_foot_drop_for_reach(c, side, target, 0.8f), CTRL_HIP_DROP_MAX_CM, 0.0f);
        target[0] = thigh[0] - 0.97f * leg - 0.1f;
        target[2] = thigh[2];
        CHECK_NEAR(ctrl_foot_drop_for_reach(c, side, target, 0.97f), CTRL_HIP_DROP_MAX_CM, 0.0f);
    }
}

/* ---- ctrl_foot_in_reach ----------------------------------------------------- */

static void test_in_reach(void)
{
    ctrl_t *c = reset_facing(-0.8f);
    const float dirs[][3] = {{0.0f, -1.0f, 0.0f}, {0.0f, 0.0f, 1.0f},  {1.0f, 0.0f, 0.0f},
                             {0.0f, 1.0f, 0.0f},  {0.6f, -0.8f, 0.0f}, {-0.48f, -0.6f, 0.64f}};
    const float fractions[] = {0.5f, 0.97f, 0.998f, 1.0f};
    for (int side = 0; side < 2; side++) {
        const float *thigh = c->joint_pos[c->j.thigh[side]];
        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
            for (size_t j = 0; j < sizeof fractions / sizeof fractions[0]; j++) {
                float reach = c->leg_len[side] * fractions[j], in[3], out[3];
                for (int k = 0; k < 3; k++) {
                    in[k] = thigh[k] + dirs[i][k] * (reach - 0.01f);
                    out[k] = thigh[k] + dirs[i][k] * (reach + 0.01f);
                }
                CHECKF(ctrl_foot_in_reach(c, side, in, fractions[j]), "side %d dir %zu: 0.01 cm inside %.3f of the leg",
                       side, i, (double)fractions[j]);
                CHECKF(!ctrl_foot_in_reach(c, side, out, fractions[j]),
                       "side %d dir %zu: 0.01 cm beyond %.3f of the leg", side, i, (double)fractions[j]);
            }
    }
    /* Each side measures from its own thigh: a point just in reach of the
     * left one, outwards, is beyond the right one. */
    const float *left = c->joint_pos[c->j.thigh[0]], *right = c->joint_pos[c->j.thigh[1]];
    float out_dir[3], a[3];
    sub3(left, right, out_dir);
    float n = sqrtf(dot3(out_dir, out_dir));
    for (int k = 0; k < 3; k++)
        a[k] = left[k] + out_dir[k] / n * (c->leg_len[0] - 1.0f);
    CHECK(ctrl_foot_in_reach(c, 0, a, 1.0f));
    CHECK(!ctrl_foot_in_reach(c, 1, a, 1.0f));
}

/* ---- ctrl_foot_push_off ----------------------------------------------------- */

/* The foot of SIDE held as given (heel, toe), its allowed reach the
 * comfortable one; A and R its rest ankle and world rotation, the ankle
 * moved DOWN cm down and BACK cm back (against the facing HEADING). */
static void held_foot(ctrl_t *c, int side, bool heel, bool toe, float heading, float down, float back, float a[3],
                      float r[4])
{
    c->foot.on[2 * side] = heel;
    c->foot.on[2 * side + 1] = toe;
    c->foot.reach[side] = CTRL_HIP_DROP_REACH;
    memcpy(a, c->joint_pos[c->j.foot[side]], sizeof(float) * 3);
    memcpy(r, c->model_rot[c->j.foot[side]], sizeof(float) * 4);
    a[0] -= back * sinf(heading);
    a[1] -= down;
    a[2] -= back * cosf(heading);
}

/* What a toe-held foot's push-off reaches for: its allowed reach and the
 * hip's share beyond it, at most the hard cap. */
static float push_fraction(const ctrl_t *c, int side)
{
    return fminf(c->foot.reach[side] + CTRL_PUSH_HIP_SHARE, CTRL_HARD_REACH);
}

static void test_push_off(void)
{
    const float heading = 0.3f;
    ctrl_t *c = reset_facing(heading);
    for (int side = 0; side < 2; side++) {
        /* The rest leg is nearly straight (99.8% of its length to the
         * ankle): out of the push-off's reach, with the ankle a little
         * lower and further back the more so. */
        const float moves[][2] = {{0.0f, 0.0f}, {1.0f, 0.0f}, {0.5f, 1.0f}};
        for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
            float a[3], r[4], a0[3], r0[4], toe0[3], toe1[3];
            held_foot(c, side, false, true, heading, moves[i][0], moves[i][1], a, r);
            memcpy(a0, a, sizeof a0);
            memcpy(r0, r, sizeof r0);
            const float *thigh = c->joint_pos[c->j.thigh[side]];
            float want = push_fraction(c, side) * c->leg_len[side];
            CHECKF(dist3(a0, thigh) > want + 0.1f,
                   "side %d move %zu: the ankle %.3f cm from the thigh, in reach (%.3f)", side, i,
                   (double)dist3(a0, thigh), (double)want);
            toe_of(c, side, a0, r0, toe0);
            bool ok = ctrl_foot_push_off(c, side, a, r);
            CHECKF(ok, "side %d move %zu: the push-off gave up", side, i);
            /* The toe stays where it is held; the foot turns rigidly about it. */
            toe_of(c, side, a, r, toe1);
            CHECKF(dist3(toe0, toe1) <= TOL, "side %d move %zu: the toe moved %.4f cm", side, i,
                   (double)dist3(toe0, toe1));
            CHECK_NEAR(dist3(a, toe1), dist3(a0, toe0), TOL);
            /* By the least turn that brings the ankle in reach: it ends on the
             * reach's sphere, not inside it. */
            CHECKF(fabsf(dist3(a, thigh) - want) <= REACH_TOL,
                   "side %d move %zu: the ankle %.4f cm from the thigh, want %.4f", side, i, (double)dist3(a, thigh),
                   (double)want);
            CHECK(ctrl_foot_in_reach(c, side, a, push_fraction(c, side) + 1e-4f));
            /* The heel rises; the turn is within the limit. */
            CHECKF(a[1] > a0[1] + 0.05f, "side %d move %zu: the ankle went from %.3f to %.3f cm high", side, i,
                   (double)a0[1], (double)a[1]);
            float turn = quat_angle(r0, r);
            CHECKF(turn > 0.01f && turn <= CTRL_TOE_PIVOT_MAX_RAD, "side %d move %zu: turned %.4f rad", side, i,
                   (double)turn);
            /* It turns towards the thigh: the ankle stays in the plane of
             * the toe, the ankle and the thigh. */
            float u[3], w[3], nrm[3], moved[3];
            sub3(a0, toe0, u);
            sub3(thigh, toe0, w);
            cross3(u, w, nrm);
            sub3(a, toe0, moved);
            CHECKF(fabsf(dot3(nrm, moved)) / sqrtf(dot3(nrm, nrm)) <= TOL,
                   "side %d move %zu: the ankle left the toe-ankle-thigh plane by %.4f cm", side, i,
                   (double)(fabsf(dot3(nrm, moved)) / sqrtf(dot3(nrm, nrm))));
        }
        /* A longer allowed reach asks a smaller turn. */
        float a[3], r[4], r0[4];
        held_foot(c, side, false, true, heading, 0.5f, 0.0f, a, r);
        memcpy(r0, r, sizeof r0);
        CHECK(ctrl_foot_push_off(c, side, a, r));
        float turn_comfortable = quat_angle(r0, r);
        held_foot(c, side, false, true, heading, 0.5f, 0.0f, a, r);
        c->foot.reach[side] = CTRL_HIP_DROP_REACH + 0.01f;
        CHECK(ctrl_foot_push_off(c, side, a, r));
        float turn_longer = quat_angle(r0, r);
        CHECKF(turn_longer < turn_comfortable - 0.01f, "side %d: %.4f rad at the comfortable reach, %.4f beyond it",
               side, (double)turn_comfortable, (double)turn_longer);
        c->foot.on[2 * side + 1] = false;
    }
}

/* Only a foot held by its toe alone pushes off, and only when out of reach. */
static void test_push_off_idle(void)
{
    const float heading = -1.2f;
    ctrl_t *c = reset_facing(heading);
    for (int side = 0; side < 2; side++) {
        const bool held[3][2] = {{true, true}, {true, false}, {false, false}};
        for (int i = 0; i < 3; i++) {
            float a[3], r[4], a0[3], r0[4];
            /* Far out of reach: a push-off would turn it, or give up. */
            held_foot(c, side, held[i][0], held[i][1], heading, 5.0f, 5.0f, a, r);
            memcpy(a0, a, sizeof a0);
            memcpy(r0, r, sizeof r0);
            CHECKF(ctrl_foot_push_off(c, side, a, r), "side %d, heel %d toe %d: gave up", side, held[i][0], held[i][1]);
            CHECKF(memcmp(a, a0, sizeof a) == 0 && memcmp(r, r0, sizeof r) == 0,
                   "side %d, heel %d toe %d: the foot moved", side, held[i][0], held[i][1]);
        }
        /* Held by the toe, already in reach (the ankle 10 cm up). */
        float a[3], r[4], a0[3], r0[4];
        held_foot(c, side, false, true, heading, -10.0f, 0.0f, a, r);
        memcpy(a0, a, sizeof a0);
        memcpy(r0, r, sizeof r0);
        CHECK(ctrl_foot_push_off(c, side, a, r));
        CHECKF(memcmp(a, a0, sizeof a) == 0 && memcmp(r, r0, sizeof r) == 0, "side %d: a foot in reach moved", side);
        c->foot.on[2 * side + 1] = false;
    }
}

/* The turn the push-off needs grows with how far out of reach the ankle
 * is; up to CTRL_TOE_PIVOT_MAX_RAD it holds, beyond it gives up, the foot
 * turned by the limit. */
static void test_push_off_limit(void)
{
    const float heading = 2.0f;
    ctrl_t *c = reset_facing(heading);
    for (int side = 0; side < 2; side++) {
        float last_ok = -1.0f, prev_turn = 0.0f;
        int gave_up = 0, turned_back = 0;
        for (int i = 0; i <= 60; i++) {
            float down = 0.25f * (float)i;
            float a[3], r[4], r0[4], toe0[3], toe1[3];
            held_foot(c, side, false, true, heading, down, 0.0f, a, r);
            memcpy(r0, r, sizeof r0);
            toe_of(c, side, a, r, toe0);
            bool ok = ctrl_foot_push_off(c, side, a, r);
            float turn = quat_angle(r0, r);
            toe_of(c, side, a, r, toe1);
            CHECKF(dist3(toe0, toe1) <= TOL, "side %d, %.2f cm down: the toe moved %.4f cm", side, (double)down,
                   (double)dist3(toe0, toe1));
            if (turn < prev_turn - 1e-4f)
                turned_back++;
            prev_turn = turn;
            if (ok) {
                CHECKF(gave_up == 0, "side %d, %.2f cm down: held again after giving up", side, (double)down);
                CHECKF(turn <= CTRL_TOE_PIVOT_MAX_RAD + 1e-5f, "side %d, %.2f cm down: held, turned %.4f rad", side,
                       (double)down, (double)turn);
                last_ok = turn;
            } else {
                CHECKF(fabsf(turn - CTRL_TOE_PIVOT_MAX_RAD) <= 1e-4f,
                       "side %d, %.2f cm down: gave up turned %.4f rad, not the limit", side, (double)down,
                       (double)turn);
                CHECK(!ctrl_foot_in_reach(c, side, a, push_fraction(c, side)));
                gave_up++;
            }
        }
        CHECKF(turned_back == 0, "side %d: the turn fell %d times as the ankle went further", side, turned_back);
        /* The limit is where it gives up: it held near it, and gave up. */
        CHECKF(last_ok > CTRL_TOE_PIVOT_MAX_RAD - 0.05f, "side %d: held at most %.4f rad", side, (double)last_ok);
        CHECKF(gave_up > 0, "side %d: never gave up, 15 cm down", side);
        printf("push_off_limit: side %d held up to %.4f rad, gave up %d times of 61\n", side, (double)last_ok, gave_up);
        c->foot.on[2 * side + 1] = false;
    }
}

/* ---- ctrl_foot_knee_pole ---------------------------------------------------- */

/* Puts the joints of SIDE's leg at HIP, KNEE and ANKLE (only the pole reads them). */
static void set_leg(ctrl_t *c, int side, const float hip[3], const float knee[3], const float ankle[3])
{
    memcpy(c->joint_pos[c->j.thigh[side]], hip, sizeof(float) * 3);
    memcpy(c->joint_pos[c->j.shin[side]], knee, sizeof(float) * 3);
    memcpy(c->joint_pos[c->j.foot[side]], ankle, sizeof(float) * 3);
}

static void test_knee_pole(void)
{
    ctrl_t *c = reset_facing(0.0f);
    const float fwd[3] = {0.6f, 0.0f, 0.8f}, fwd2[3] = {-0.8f, 0.0f, 0.6f};
    const float hip[3] = {0.0f, 100.0f, 0.0f}, ankle[3] = {0.0f, 10.0f, 0.0f};
    for (int side = 0; side < 2; side++) {
        float pole[3];
        /* Bent well beyond CTRL_KNEE_BEND_CM: the knee's own direction,
         * whatever the forward. */
        const float knee_z[3] = {0.0f, 55.0f, 10.0f};
        set_leg(c, side, hip, knee_z, ankle);
        ctrl_foot_knee_pole(c, side, fwd, pole);
        CHECK_NEAR(pole[0], 0.0f, TOL);
        CHECK_NEAR(pole[1], 0.0f, TOL);
        CHECK_NEAR(pole[2], 1.0f, TOL);
        ctrl_foot_knee_pole(c, side, fwd2, pole);
        CHECK_NEAR(pole[2], 1.0f, TOL);
        /* Straight: the forward. */
        const float knee_line[3] = {0.0f, 55.0f, 0.0f};
        set_leg(c, side, hip, knee_line, ankle);
        ctrl_foot_knee_pole(c, side, fwd, pole);
        for (int k = 0; k < 3; k++)
            CHECK_NEAR(pole[k], fwd[k], TOL);
        /* A quarter and a half of the bend: that share of the knee's
         * direction (-x here), the rest the forward. */
        const float shares[] = {0.25f, 0.5f};
        for (int i = 0; i < 2; i++) {
            float s = shares[i];
            const float knee_x[3] = {-s * CTRL_KNEE_BEND_CM, 40.0f, 0.0f};
            set_leg(c, side, hip, knee_x, ankle);
            ctrl_foot_knee_pole(c, side, fwd, pole);
            CHECK_NEAR(pole[0], -s + (1.0f - s) * fwd[0], TOL);
            CHECK_NEAR(pole[1], 0.0f, TOL);
            CHECK_NEAR(pole[2], (1.0f - s) * fwd[2], TOL);
        }
        /* A slanted leg bent sideways and forward: unit, square to the
         * hip-ankle line, towards the knee, in the plane of the leg. */
        const float hip2[3] = {5.0f, 95.0f, -3.0f}, knee2[3] = {20.0f, 60.0f, 20.0f}, ankle2[3] = {18.0f, 15.0f, 40.0f};
        set_leg(c, side, hip2, knee2, ankle2);
        ctrl_foot_knee_pole(c, side, fwd, pole);
        float axis[3], kv[3], n1[3], n2[3], par[3];
        sub3(ankle2, hip2, axis);
        sub3(knee2, hip2, kv);
        CHECK_NEAR(dot3(pole, pole), 1.0f, TOL);
        CHECK_NEAR(dot3(pole, axis), 0.0f, TOL);
        CHECK(dot3(pole, kv) > 1.0f);
        cross3(axis, pole, n1);
        cross3(axis, kv, n2);
        cross3(n1, n2, par);
        CHECK_NEAR(sqrtf(dot3(par, par)) / (sqrtf(dot3(n1, n1)) * sqrtf(dot3(n2, n2))), 0.0f, TOL);
        /* Continuous as the knee bends from straight past the threshold. */
        float prev[3] = {fwd[0], fwd[1], fwd[2]}, worst = 0.0f;
        for (int i = 0; i <= 80; i++) {
            const float knee_b[3] = {0.0f, 55.0f, -0.1f * (float)i};
            set_leg(c, side, hip, knee_b, ankle);
            ctrl_foot_knee_pole(c, side, fwd, pole);
            worst = fmaxf(worst, dist3(pole, prev));
            memcpy(prev, pole, sizeof prev);
        }
        CHECKF(worst < 0.1f, "side %d: the pole jumped %.4f in a 1 mm bend", side, (double)worst);
        CHECK_NEAR(prev[2], -1.0f, TOL);
        /* Hip and ankle at one point: no direction, but no NaN either. */
        set_leg(c, side, hip, knee_z, hip);
        ctrl_foot_knee_pole(c, side, fwd, pole);
        CHECK(isfinite(pole[0]) && isfinite(pole[1]) && isfinite(pole[2]));
    }
    /* Each side reads its own leg. */
    const float knee_l[3] = {0.0f, 55.0f, 10.0f}, knee_r[3] = {0.0f, 55.0f, -10.0f};
    set_leg(c, 0, hip, knee_l, ankle);
    set_leg(c, 1, hip, knee_r, ankle);
    float pl[3], pr[3];
    ctrl_foot_knee_pole(c, 0, fwd, pl);
    ctrl_foot_knee_pole(c, 1, fwd, pr);
    CHECK_NEAR(pl[2], 1.0f, TOL);
    CHECK_NEAR(pr[2], -1.0f, TOL);
}

/* ---- ctrl_foot_solve_leg ---------------------------------------------------- */

/* The joints of SIDE's leg after a solve: the ankle on TARGET (or, when
 * FAR, as near as the leg reaches on the line to it), the foot's world
 * rotation R, both bones their length, the thigh in place and every other
 * joint as it was (BEFORE). */
static void check_solved(const ctrl_t *c, int side, const float target[3], const float r[4], bool far,
                         const float before[][3])
{
    const float *thigh = c->joint_pos[c->j.thigh[side]], *knee = c->joint_pos[c->j.shin[side]];
    const float *ankle = c->joint_pos[c->j.foot[side]];
    if (!far) {
        CHECKF(dist3(ankle, target) <= REACH_TOL, "side %d: the ankle %.4f cm from its target", side,
               (double)dist3(ankle, target));
    } else {
        float to_target[3], to_ankle[3], off[3];
        sub3(target, thigh, to_target);
        sub3(ankle, thigh, to_ankle);
        cross3(to_target, to_ankle, off);
        CHECK_NEAR(dist3(ankle, thigh), CTRL_IK_MAX_EXTENSION * c->leg_len[side], REACH_TOL);
        CHECKF(sqrtf(dot3(off, off)) / sqrtf(dot3(to_target, to_target)) <= REACH_TOL &&
                   dot3(to_target, to_ankle) > 0.0f,
               "side %d: the ankle is off the line to its target by %.4f cm", side,
               (double)(sqrtf(dot3(off, off)) / sqrtf(dot3(to_target, to_target))));
    }
    float turn = quat_angle(c->model_rot[c->j.foot[side]], r);
    CHECKF(turn <= 1e-3f, "side %d: the foot %.5f rad off the rotation asked", side, (double)turn);
    CHECK_NEAR(dist3(thigh, knee), bone_length(c->j.shin[side]), TOL);
    CHECK_NEAR(dist3(knee, ankle), bone_length(c->j.foot[side]), TOL);
    int moved = 0;
    for (int b = 0; b < c->skel->joint_count; b++)
        if (b != c->j.shin[side] && b != c->j.foot[side] && dist3(c->joint_pos[b], before[b]) > TOL)
            moved++;
    CHECKF(moved == 0, "side %d: %d joints outside the shin and foot moved", side, moved);
}

/* R0 turned by ANGLE about AXIS in the world. */
static void turned(const float r0[4], const float axis[3], float angle, float out[4])
{
    float q[4];
    pose_quat_axis_angle(axis, angle, q);
    pose_quat_mul(q, r0, out);
}

/* Local rotation of joint B turned by ANGLE about AXIS (in its frame). */
static void turn_local(ctrl_t *c, int b, const float axis[3], float angle)
{
    float q[4], out[4];
    pose_quat_axis_angle(axis, angle, q);
    pose_quat_mul(c->pose.rot[b], q, out);
    memcpy(c->pose.rot[b], out, sizeof out);
}

/* The leg of SIDE mid-stride: its buttock tilted, the thigh swung, the knee
 * bent. */
static void stride_pose(ctrl_t *c, int side)
{
    const float x[3] = {1.0f, 0.0f, 0.0f}, z[3] = {0.0f, 0.0f, 1.0f};
    turn_local(c, c->skel->joint_parent[c->j.thigh[side]], z, 0.15f);
    turn_local(c, c->j.thigh[side], x, -0.5f);
    turn_local(c, c->j.shin[side], x, 0.7f);
    ctrl_update_model(c);
}

static void test_solve_leg(void)
{
    const float heading = 0.6f;
    ctrl_t *c = reset_facing(heading);
    /* The character's forward and left (its frame's +x: the left leg's side). */
    const float fwd[3] = {sinf(heading), 0.0f, cosf(heading)}, left[3] = {cosf(heading), 0.0f, -sinf(heading)};
    const float up[3] = {0.0f, 1.0f, 0.0f};
    /* Ankle targets from the rest ankle (forward, up, outward, cm) and turns
     * of the foot (about the character's left, then up, rad). */
    const float moves[][5] = {
        {15.0f, 20.0f, 3.0f, 0.4f, 0.0f},
        {-20.0f, 10.0f, 0.0f, -0.3f, 0.2f},
        {5.0f, 40.0f, -4.0f, 0.0f, -0.5f},
        {0.0f, 1.0f, 0.0f, 0.0f, 0.0f},
    };
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < 2 * sizeof moves / sizeof moves[0]; i++) {
            const float *m = moves[i / 2];
            float out = side == 0 ? 1.0f : -1.0f;
            c = reset_facing(heading);
            /* Every other solve starts mid-stride, the thigh's parent turned
             * too: the thigh's rotation is then its own, not its parent's. */
            if (i % 2 == 1)
                stride_pose(c, side);
            float before[CTRL_JOINTS][3];
            memcpy(before, c->joint_pos, sizeof before);
            float target[3], r[4], tmp[4], pole[3];
            for (int k = 0; k < 3; k++)
                target[k] = c->joint_pos[c->j.foot[side]][k] + m[0] * fwd[k] + m[1] * up[k] + m[2] * out * left[k];
            turned(c->model_rot[c->j.foot[side]], left, m[3], tmp);
            turned(tmp, up, m[4], r);
            ctrl_foot_knee_pole(c, side, fwd, pole);
            ctrl_foot_solve_leg(c, side, target, r, pole);
            ctrl_update_model(c);
            check_solved(c, side, target, r, false, (const float(*)[3])before);
            /* The knee bends towards the pole. */
            const float *hip = c->joint_pos[c->j.thigh[side]], *knee = c->joint_pos[c->j.shin[side]];
            float axis[3], kv[3];
            sub3(target, hip, axis);
            sub3(knee, hip, kv);
            float t = dot3(kv, axis) / dot3(axis, axis);
            for (int k = 0; k < 3; k++)
                kv[k] -= t * axis[k];
            CHECKF(dot3(kv, pole) > 0.0f, "side %d move %zu: the knee bends away from its pole", side, i);
        }
}

/* A target beyond the leg: the ankle goes as far as the IK lets it, on the
 * line from the thigh to the target; the foot still gets its rotation. */
static void test_solve_far(void)
{
    const float heading = -2.5f;
    const float dirs[][3] = {{0.0f, -1.0f, 0.0f}, {0.6f, -0.8f, 0.0f}, {0.0f, -0.6f, -0.8f}};
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
            ctrl_t *c = reset_facing(heading);
            float before[CTRL_JOINTS][3];
            memcpy(before, c->joint_pos, sizeof before);
            const float *thigh = c->joint_pos[c->j.thigh[side]];
            const float fwd[3] = {sinf(heading), 0.0f, cosf(heading)};
            float target[3], r[4], pole[3];
            for (int k = 0; k < 3; k++)
                target[k] = thigh[k] + dirs[i][k] * 1.3f * c->leg_len[side];
            turned(c->model_rot[c->j.foot[side]], fwd, 0.3f, r);
            ctrl_foot_knee_pole(c, side, fwd, pole);
            ctrl_foot_solve_leg(c, side, target, r, pole);
            ctrl_update_model(c);
            check_solved(c, side, target, r, true, (const float(*)[3])before);
        }
}

/* ---- ctrl_foot_soft_reach (loosely: its curve is being tuned) ---------------- */

static void test_soft_reach(void)
{
    const float heading = 1.0f;
    ctrl_t *c = reset_facing(heading);
    const float dirs[][3] = {{0.0f, -1.0f, 0.0f}, {0.6f, -0.8f, 0.0f}, {0.0f, -0.8f, 0.6f}};
    for (int side = 0; side < 2; side++) {
        const float *thigh = c->joint_pos[c->j.thigh[side]];
        const float leg = c->leg_len[side];
        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
            float prev = 0.0f;
            int back = 0, past = 0, longer = 0, off_line = 0, moved_inside = 0;
            for (int s = 0; s <= 200; s++) {
                /* From half the leg to one and a half, 0.5% a step. */
                float d = leg * (0.5f + 0.005f * (float)s), a[3];
                for (int k = 0; k < 3; k++)
                    a[k] = thigh[k] + dirs[i][k] * d;
                ctrl_foot_soft_reach(c, side, a);
                float v[3], x[3];
                sub3(a, thigh, v);
                float nd = sqrtf(dot3(v, v));
                cross3(v, dirs[i], x);
                if (d <= 0.9f * leg && fabsf(nd - d) > TOL)
                    moved_inside++;
                if (nd > d + TOL)
                    longer++;
                if (nd > CTRL_HARD_REACH * leg + TOL)
                    past++;
                if (s > 0 && nd < prev - TOL)
                    back++;
                if (sqrtf(dot3(x, x)) > TOL || dot3(v, dirs[i]) <= 0.0f)
                    off_line++;
                prev = nd;
            }
            CHECKF(moved_inside == 0, "side %d dir %zu: %d points within 90%% of the leg moved", side, i, moved_inside);
            CHECKF(longer == 0, "side %d dir %zu: %d points pushed away from the thigh", side, i, longer);
            CHECKF(past == 0, "side %d dir %zu: %d points left past the hard reach", side, i, past);
            CHECKF(back == 0, "side %d dir %zu: %d points came nearer than a nearer one", side, i, back);
            CHECKF(off_line == 0, "side %d dir %zu: %d points left the line from the thigh", side, i, off_line);
        }
    }
}

/* ---- main ---------------------------------------------------------------------- */

static const ctrl_fixture_group_t groups[] = {
    {"drop", test_drop},
    {"in_reach", test_in_reach},
    {"push_off", test_push_off},
    {"push_off_idle", test_push_off_idle},
    {"push_off_limit", test_push_off_limit},
    {"knee_pole", test_knee_pole},
    {"solve_leg", test_solve_leg},
    {"solve_far", test_solve_far},
    {"soft_reach", test_soft_reach},
};

int main(int argc, char **argv)
{
    return ctrl_fixture_main(argc, argv, "test_ctrl_foot_leg", &fx, make_level, NULL, groups,
                             (int)(sizeof groups / sizeof groups[0]));
}
