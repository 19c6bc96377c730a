/* Unit tests for ctrl_traj's targets (src/ctrl/ctrl_traj.h,
 * ctrl_traj_targets): the player's request becomes smoothed targets. Held
 * input brings the target velocity to the requested direction times the
 * walk, run or crouch speed, and the facing to that direction; no input
 * brings it to rest facing the same way; the smoothing depends on time, not
 * on how it is cut into steps; a crouch is forced under a low ceiling; the
 * jump button's rising edge makes one jump; non-finite input counts as 0.
 * The targets are read from the controller's state (ctrl_internal.h); the
 * root stays where it was reset (nothing else of the step runs).
 * Usage: test_ctrl_traj TEST --net PATH
 * TEST: converge stop smoothing crouch strafe jump nonfinite. PATH: any
 * network with the shipped layout (the tiny fixture: nothing here runs it).
 * Runs from the repository root (the skeleton is read from assets/).
 */
#include "ctrl/ctrl.h"
#include "ctrl/ctrl_traj.h"

#include "check.h"
#include "ctrl_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DT (1.0f / 60.0f)

/* A flat level (x and z from -630 to 630 cm) with a 110 cm ceiling over
 * x in [200, 400], z in [-200, 200]. */
static const char level_text[] = "strider-level 1\n"
                                 "name ctrl-traj-test\n"
                                 "flat 64 64 cell 20 height 0\n"
                                 "spawn 0 0 0\n"
                                 "crouch 200 -200 400 200 110\n";

static ctrl_fixture_t fx;

/* The controller standing at (X, Z), facing +z. */
static ctrl_t *reset_at(float x, float z)
{
    ctrl_spawn_t s = {x, z, 0.0f};
    ctrl_reset(fx.ctrl, &fx.level, &s);
    return fx.ctrl;
}

static void hold(ctrl_t *c, const ctrl_input_t *in, int steps)
{
    for (int k = 0; k < steps; k++)
        ctrl_traj_targets(c, in, DT);
}

static ctrl_input_t move(float mx, float mz, float speed)
{
    ctrl_input_t in = {0};
    in.move_x = mx;
    in.move_z = mz;
    in.speed = speed;
    return in;
}

/* ---- held input -------------------------------------------------------------- */

static void check_converged(const char *what, ctrl_t *c, float ux, float uz, float speed)
{
    CHECKF(fabsf(c->target_vel[0] - ux * speed) < 0.01f && fabsf(c->target_vel[1] - uz * speed) < 0.01f,
           "%s: target velocity (%.3f, %.3f), expected (%.3f, %.3f)", what, (double)c->target_vel[0],
           (double)c->target_vel[1], (double)(ux * speed), (double)(uz * speed));
    CHECKF(fabsf(c->target_dir[0] - ux) < 1e-4f && fabsf(c->target_dir[1] - uz) < 1e-4f,
           "%s: target direction (%.5f, %.5f), expected (%.5f, %.5f)", what, (double)c->target_dir[0],
           (double)c->target_dir[1], (double)ux, (double)uz);
}

static void test_converge(void)
{
    /* Two seconds of each request: walk, run, half a stick's walk, turning
     * from one to the next (the direction turns more than 90 degrees). */
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_input_t walk = move(0.6f, 0.8f, 0.0f);
    hold(c, &walk, 120);
    check_converged("walk", c, 0.6f, 0.8f, CTRL_WALK_SPEED_CM_S);
    ctrl_input_t run = move(-0.8f, -0.6f, 1.0f);
    hold(c, &run, 120);
    check_converged("run", c, -0.8f, -0.6f, CTRL_RUN_SPEED_CM_S);
    ctrl_input_t slow = move(0.0f, -0.5f, 0.0f);
    hold(c, &slow, 120);
    check_converged("half a walk", c, 0.0f, -1.0f, 0.5f * CTRL_WALK_SPEED_CM_S);
    ctrl_input_t left = move(-1.0f, 0.0f, 1.0f);
    hold(c, &left, 120);
    check_converged("run along -x", c, -1.0f, 0.0f, CTRL_RUN_SPEED_CM_S);
    /* Gaits: running, the run's share of the factored gait is all of it. */
    CHECK_NEAR(c->base[2], 1.0f, 1e-3f);
    CHECK_NEAR(c->base[0] + c->base[1] + c->base[2], 1.0f, 1e-5f);
}

static void test_stop(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_input_t run = move(0.8f, -0.6f, 1.0f), none = {0};
    hold(c, &run, 120);
    hold(c, &none, 120);
    /* At rest, still facing the way it went, standing. */
    check_converged("stop", c, 0.8f, -0.6f, 0.0f);
    CHECK_NEAR(c->base[0], 1.0f, 1e-3f);
    /* A stick barely off its centre (a target speed under
     * CTRL_STAND_SPEED_CM_S): it stands, and does not turn. */
    ctrl_input_t nudge = move(-0.05f, 0.0f, 0.0f);
    hold(c, &nudge, 120);
    CHECK_NEAR(c->base[0], 1.0f, 1e-3f);
    CHECK_NEAR(c->target_dir[0], 0.8f, 1e-4f);
    CHECK_NEAR(c->target_dir[1], -0.6f, 1e-4f);
    CHECK_NEAR(hypotf(c->target_vel[0], c->target_vel[1]), 0.05f * CTRL_WALK_SPEED_CM_S, 0.01f);
}

/* ---- smoothing --------------------------------------------------------------- */

static void test_smoothing(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_input_t walk = move(0.0f, 1.0f, 0.0f);
    /* Smoothed: one step is part of the way, and every step gets nearer. */
    ctrl_traj_targets(c, &walk, DT);
    float v1 = c->target_vel[1];
    CHECKF(v1 > 0.0f && v1 < 0.9f * CTRL_WALK_SPEED_CM_S, "after one step: %.3f cm/s of %.1f", (double)v1,
           (double)CTRL_WALK_SPEED_CM_S);
    bool monotone = true;
    float prev = v1;
    for (int k = 0; k < 60; k++) {
        ctrl_traj_targets(c, &walk, DT);
        monotone &= c->target_vel[1] >= prev && c->target_vel[1] <= CTRL_WALK_SPEED_CM_S + 1e-3f;
        prev = c->target_vel[1];
    }
    CHECKF(monotone, "the target speed overshot or went back");
    /* Time, not steps: two half steps equal one whole (dt_s scales only the
     * time constants), for every target. */
    ctrl_input_t turn = move(1.0f, 0.0f, 1.0f);
    turn.strafe = true;
    turn.facing_x = -1.0f;
    ctrl_traj_targets(c, &turn, DT);
    float one_vel[2] = {c->target_vel[0], c->target_vel[1]}, one_dir[2] = {c->target_dir[0], c->target_dir[1]};
    float one_base[3] = {c->base[0], c->base[1], c->base[2]}, one_strafe = c->strafe_amount;
    /* The same 61 steps of walking again, then the turn in two halves. */
    reset_at(0.0f, 0.0f);
    for (int k = 0; k < 61; k++)
        ctrl_traj_targets(c, &walk, DT);
    ctrl_traj_targets(c, &turn, 0.5f * DT);
    ctrl_traj_targets(c, &turn, 0.5f * DT);
    CHECK_NEAR(c->target_vel[0], one_vel[0], 1e-3f);
    CHECK_NEAR(c->target_vel[1], one_vel[1], 1e-3f);
    CHECK_NEAR(c->target_dir[0], one_dir[0], 1e-4f);
    CHECK_NEAR(c->target_dir[1], one_dir[1], 1e-4f);
    CHECK_NEAR(c->strafe_amount, one_strafe, 1e-5f);
    for (int k = 0; k < 3; k++)
        CHECK_NEAR(c->base[k], one_base[k], 1e-5f);
    /* ... and a long step goes further than a short one. */
    reset_at(0.0f, 0.0f);
    ctrl_traj_targets(c, &walk, 2.0f * DT);
    CHECK(c->target_vel[1] > v1);
}

/* ---- crouch ------------------------------------------------------------------ */

static void test_crouch(void)
{
    /* Asked for: the crouch speed, whatever the speed asked. */
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_input_t run = move(0.0f, 1.0f, 1.0f);
    run.crouch = true;
    hold(c, &run, 120);
    check_converged("crouch asked", c, 0.0f, 1.0f, CTRL_CROUCH_SPEED_CM_S);
    CHECK_NEAR(c->crouch, 1.0f, 1e-3f);
    /* Standing up again. */
    run.crouch = false;
    hold(c, &run, 120);
    check_converged("up again", c, 0.0f, 1.0f, CTRL_RUN_SPEED_CM_S);
    CHECK_NEAR(c->crouch, 0.0f, 1e-3f);
    /* Under the low ceiling: crouching, not asked. */
    c = reset_at(300.0f, 0.0f);
    run.crouch = false;
    hold(c, &run, 120);
    check_converged("under the ceiling", c, 0.0f, 1.0f, CTRL_CROUCH_SPEED_CM_S);
    CHECK_NEAR(c->crouch, 1.0f, 1e-3f);
}

/* ---- strafe ------------------------------------------------------------------ */

static void test_strafe(void)
{
    /* Moving along +x facing -z (not unit: normalised). */
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_input_t in = move(1.0f, 0.0f, 0.0f);
    in.strafe = true;
    in.facing_z = -3.0f;
    hold(c, &in, 120);
    CHECK_NEAR(c->target_vel[0], CTRL_WALK_SPEED_CM_S, 0.01f);
    CHECK_NEAR(c->target_vel[1], 0.0f, 0.01f);
    CHECK_NEAR(c->target_dir[0], 0.0f, 1e-4f);
    CHECK_NEAR(c->target_dir[1], -1.0f, 1e-4f);
    CHECK_NEAR(c->strafe_amount, 1.0f, 1e-3f);
    /* Let go of strafe: it faces the way it moves again. */
    in.strafe = false;
    hold(c, &in, 120);
    check_converged("after strafing", c, 1.0f, 0.0f, CTRL_WALK_SPEED_CM_S);
    CHECK_NEAR(c->strafe_amount, 0.0f, 1e-3f);
}

/* ---- jump -------------------------------------------------------------------- */

static void test_jump(void)
{
    /* The button held for three seconds: one jump (up, then down again). */
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_input_t in = {0};
    in.jump = true;
    float peak = 0.0f;
    for (int k = 0; k < 180; k++) {
        ctrl_traj_targets(c, &in, DT);
        peak = fmaxf(peak, c->jump);
    }
    CHECKF(peak > 0.5f, "jump button: the jump gait rose only to %.3f", (double)peak);
    CHECKF(c->jump < 0.05f, "jump button held: still %.3f jump after 3 s", (double)c->jump);
    /* Released and pressed again: another. */
    in.jump = false;
    hold(c, &in, 10);
    in.jump = true;
    hold(c, &in, 30);
    CHECKF(c->jump > 0.5f, "second press: jump %.3f", (double)c->jump);
    /* Under the low ceiling there is no room: no jump. */
    c = reset_at(300.0f, 0.0f);
    peak = 0.0f;
    for (int k = 0; k < 60; k++) {
        ctrl_traj_targets(c, &in, DT);
        in.jump = k % 20 < 10; /* pressed again and again */
        peak = fmaxf(peak, c->jump);
    }
    CHECKF(peak < 1e-3f, "under a low ceiling: jump rose to %.3f", (double)peak);
}

/* ---- non-finite input ---------------------------------------------------------- */

static void test_nonfinite(void)
{
    ctrl_t *c = reset_at(0.0f, 0.0f);
    ctrl_input_t walk = move(0.0f, 1.0f, 0.0f);
    hold(c, &walk, 120);
    /* As 0: no move, no facing, walk speed; the targets stay finite. */
    ctrl_input_t bad = {.move_x = NAN, .move_z = INFINITY, .speed = NAN, .facing_x = NAN, .facing_z = -INFINITY};
    bad.strafe = true;
    hold(c, &bad, 120);
    CHECK(isfinite(c->target_vel[0]) && isfinite(c->target_vel[1]));
    CHECK(isfinite(c->target_dir[0]) && isfinite(c->target_dir[1]));
    check_converged("non-finite input", c, 0.0f, 1.0f, 0.0f);
    ctrl_input_t half = {.move_x = 1.0f, .move_z = NAN, .speed = NAN};
    hold(c, &half, 120);
    check_converged("a NaN part", c, 1.0f, 0.0f, CTRL_WALK_SPEED_CM_S);
}

static bool make_level(void)
{
    if (!level_parse(&fx.level, level_text, strlen(level_text), "ctrl-traj-test.lvl", NULL)) {
        fprintf(stderr, "FAIL: level: %s\n", level_last_error());
        return false;
    }
    return true;
}

static const ctrl_fixture_group_t GROUPS[] = {
    {"converge", test_converge}, {"stop", test_stop}, {"smoothing", test_smoothing}, {"crouch", test_crouch},
    {"strafe", test_strafe},     {"jump", test_jump}, {"nonfinite", test_nonfinite},
};

int main(int argc, char **argv)
{
    return ctrl_fixture_main(argc, argv, "test_ctrl_traj", &fx, make_level, NULL, GROUPS,
                             (int)(sizeof GROUPS / sizeof GROUPS[0]));
}
