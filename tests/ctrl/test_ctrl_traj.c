/* Unit tests for ctrl_traj (src/ctrl/ctrl_traj.h).
 * ctrl_traj_targets: the player's request becomes smoothed targets. Held
 * input brings the target velocity to the requested direction times the
 * walk, run or crouch speed, and the facing to that direction; no input
 * brings it to rest facing the same way; the smoothing depends on time, not
 * on how it is cut into steps; a crouch is forced under a low ceiling; the
 * jump button's rising edge makes one jump; non-finite input counts as 0.
 * ctrl_traj_predict: the future blends the network's last prediction
 * towards the targets by the original demo's exponents, more so further
 * ahead; walls and the level's edges stop it; each point takes the ground's
 * height and the gaits of the areas it passes.
 * ctrl_traj_advance: the past shifts by a frame, the root moves and turns by
 * the network's root motion (less of it standing), never through a wall nor
 * back down just after landing; the future comes from the output's six
 * points, in between linearly; the phase wraps at 2 pi.
 * The state is set and read in the controller (ctrl_internal.h); nothing
 * else of the step runs.
 * Usage: test_ctrl_traj TEST --net PATH
 * TEST: converge stop smoothing crouch strafe jump nonfinite predict_blend
 * predict_dir predict_blocked predict_areas advance_root advance_future
 * advance_phase advance_blocked advance_landing. PATH: any network with the shipped layout
 * (the tiny fixture: nothing here runs it).
 * Runs from the repository root (the skeleton is read from assets/).
 */
#include "ctrl/ctrl.h"
#include "ctrl/ctrl_traj.h"
#include "ctrl/ctrl_world.h"

#include "check.h"
#include "ctrl_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DT (1.0f / 60.0f)

/* A flat level (x and z from -630 to 630 cm, samples at odd multiples of
 * 10 cm) with a 110 cm ceiling over x in [200, 400], z in [-200, 200], a
 * jump area of radius 40 at (-400, -400), a wall along x = 450 from z = -550
 * to -300 (radius 15) and, written into the samples (make_level), a 20 cm
 * platform (a step, not a ledge) over x in [-500, -300], z in [200, 500]
 * and a 100 cm block (a ledge: more than a step down) over x in [100, 300],
 * z in [300, 500]. */
static const char level_text[] = "strider-level 1\n"
                                 "name ctrl-traj-test\n"
                                 "flat 64 64 cell 20 height 0\n"
                                 "spawn 0 0 0\n"
                                 "crouch 200 -200 400 200 110\n"
                                 "jump -400 -400 40\n"
                                 "wall 450 -550 450 -300 15\n";

#define WALL_X 450.0f
#define WALL_R 15.0f
#define PLATFORM_CM 20.0f
#define BLOCK_CM 100.0f

static ctrl_fixture_t fx;

/* The controller standing at (X, Z), facing HEADING (0: +z, pi/2: +x). */
static ctrl_t *reset_facing(float x, float z, float heading)
{
    ctrl_spawn_t s = {x, z, heading};
    ctrl_reset(fx.ctrl, &fx.level, &s);
    return fx.ctrl;
}

static ctrl_t *reset_at(float x, float z) { return reset_facing(x, z, 0.0f); }

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

/* ---- ctrl_traj_predict --------------------------------------------------------- */

#define NOW CTRL_TRAJ_NOW
/* ctrl_traj.c's blending exponents (the original demo's, not its
 * 'responsive' setting): point k of the future moves 1 - (1 - k / 60)^E of
 * the way from the network's step to the target's, E = 2 for positions; its
 * direction turns that share towards the target's, E = 5 walking, 3
 * strafing. */
#define BIAS_POS 2.0
#define BIAS_DIR_WALK 5.0
#define BIAS_DIR_STRAFE 3.0

static double blend_share(int k, double bias) { return 1.0 - pow(1.0 - (double)k / (double)NOW, bias); }

/* The network's last prediction: the future on a line from the root, (VX,
 * VZ) cm a frame. */
static void set_future_line(ctrl_t *c, float vx, float vz)
{
    const float *r = c->traj.pos[NOW];
    for (int k = 1; k < CTRL_TRAJ_FRAMES - NOW; k++) {
        c->traj.pos[NOW + k][0] = r[0] + (float)k * vx;
        c->traj.pos[NOW + k][2] = r[2] + (float)k * vz;
    }
}

/* The past (frames before NOW) set to marks that nothing else writes. */
static void mark_past(ctrl_t *c)
{
    for (int i = 0; i < NOW; i++) {
        c->traj.pos[i][0] = (float)i;
        c->traj.pos[i][1] = -(float)i;
        c->traj.pos[i][2] = 2.0f * (float)i;
        c->traj.dir[i][0] = sinf(0.01f * (float)i);
        c->traj.dir[i][1] = cosf(0.01f * (float)i);
        for (int g = 0; g < CTRL_GAITS; g++)
            c->traj.gait[i][g] = (float)(i * CTRL_GAITS + g);
    }
}

static bool past_marked(const ctrl_t *c)
{
    bool ok = true;
    for (int i = 0; i < NOW; i++) {
        ok &= c->traj.pos[i][0] == (float)i && c->traj.pos[i][1] == -(float)i && c->traj.pos[i][2] == 2.0f * (float)i;
        ok &= c->traj.dir[i][0] == sinf(0.01f * (float)i) && c->traj.dir[i][1] == cosf(0.01f * (float)i);
        for (int g = 0; g < CTRL_GAITS; g++)
            ok &= c->traj.gait[i][g] == (float)(i * CTRL_GAITS + g);
    }
    return ok;
}

static void test_predict_blend(void)
{
    /* The network's prediction on the target (2, -1) cm a frame: kept. */
    ctrl_t *c = reset_at(0.0f, 0.0f);
    mark_past(c);
    c->target_vel[0] = 2.0f * CTRL_NET_FPS;
    c->target_vel[1] = -1.0f * CTRL_NET_FPS;
    set_future_line(c, 2.0f, -1.0f);
    ctrl_traj_predict(c);
    float worst = 0.0f;
    for (int k = 1; k < CTRL_TRAJ_FRAMES - NOW; k++)
        worst = fmaxf(worst,
                      hypotf(c->traj.pos[NOW + k][0] - 2.0f * (float)k, c->traj.pos[NOW + k][2] + 1.0f * (float)k));
    CHECKF(worst < 1e-3f, "a prediction on the target moved by up to %.4f cm", (double)worst);
    CHECK(past_marked(c));
    CHECK(c->traj.pos[NOW][0] == 0.0f && c->traj.pos[NOW][2] == 0.0f);
    /* The network going along +z at 1 cm a frame, the target along +x at
     * 2: each step of the future is the network's moved that share towards
     * the target's, the near future mostly the network's, the far the
     * target's. The strafe amount does not change the positions' exponent. */
    for (int strafe = 0; strafe < 2; strafe++) {
        c = reset_at(0.0f, 0.0f);
        c->strafe_amount = (float)strafe;
        c->target_vel[0] = 2.0f * CTRL_NET_FPS;
        c->target_vel[1] = 0.0f;
        set_future_line(c, 0.0f, 1.0f);
        ctrl_traj_predict(c);
        double ex = 0.0, ez = 0.0;
        worst = 0.0f;
        for (int k = 1; k < CTRL_TRAJ_FRAMES - NOW; k++) {
            double s = blend_share(k, BIAS_POS);
            ex += 2.0 * s;
            ez += 1.0 - s;
            worst = fmaxf(worst, (float)hypot(c->traj.pos[NOW + k][0] - ex, c->traj.pos[NOW + k][2] - ez));
        }
        CHECKF(worst < 1e-3f, "strafe %d: the blend is up to %.4f cm from the expected", strafe, (double)worst);
        /* First step: 1 / 30 of the way less 1 / 3600. */
        CHECK_NEAR(c->traj.pos[NOW + 1][0], 2.0 * blend_share(1, BIAS_POS), 1e-5);
    }
}

static void test_predict_dir(void)
{
    /* Facing +z, the target facing +x: point k turns the share of 90
     * degrees, by the walking or the strafing exponent (halfway strafing:
     * half of each). The current direction and the past stay. */
    const double bias[3] = {BIAS_DIR_WALK, 0.5 * (BIAS_DIR_WALK + BIAS_DIR_STRAFE), BIAS_DIR_STRAFE};
    for (int s = 0; s < 3; s++) {
        ctrl_t *c = reset_at(0.0f, 0.0f);
        mark_past(c);
        c->strafe_amount = 0.5f * (float)s;
        c->target_dir[0] = 1.0f;
        c->target_dir[1] = 0.0f;
        ctrl_traj_predict(c);
        float worst = 0.0f, worst_len = 0.0f;
        for (int k = 1; k < CTRL_TRAJ_FRAMES - NOW; k++) {
            const float *d = c->traj.dir[NOW + k];
            double want = 0.5 * (double)CTRL_PI * blend_share(k, bias[s]);
            worst = fmaxf(worst, (float)fabs(atan2(d[0], d[1]) - want));
            worst_len = fmaxf(worst_len, fabsf(hypotf(d[0], d[1]) - 1.0f));
        }
        CHECKF(worst < 1e-5f, "strafe %.1f: directions up to %.2e rad off", (double)c->strafe_amount, (double)worst);
        CHECKF(worst_len < 1e-5f, "strafe %.1f: a direction %.2e from unit length", (double)c->strafe_amount,
               (double)worst_len);
        CHECK(c->traj.dir[NOW][0] == 0.0f && c->traj.dir[NOW][1] == 1.0f);
        CHECK(past_marked(c));
    }
}

static void test_predict_blocked(void)
{
    /* On target at 5 cm a frame along +x, towards the wall at x 450: every
     * point stops at the wall's radius plus the trajectory's (30 cm). */
    ctrl_t *c = reset_facing(350.0f, -400.0f, 0.5f * CTRL_PI);
    c->target_vel[0] = 5.0f * CTRL_NET_FPS;
    set_future_line(c, 5.0f, 0.0f);
    ctrl_traj_predict(c);
    const float stop = WALL_X - WALL_R - 30.0f;
    float worst = 0.0f;
    for (int k = 1; k < CTRL_TRAJ_FRAMES - NOW; k++) {
        const float *p = c->traj.pos[NOW + k];
        worst = fmaxf(worst, hypotf(p[0] - fminf(350.0f + 5.0f * (float)k, stop), p[2] + 400.0f));
    }
    CHECKF(worst < 0.01f, "before the wall: a point up to %.3f cm from where it stops", (double)worst);
    /* Along +z towards the level's edge (z 630): stopped 40 cm plus the
     * radius inside it. */
    c = reset_at(0.0f, 400.0f);
    c->target_vel[1] = 5.0f * CTRL_NET_FPS;
    set_future_line(c, 0.0f, 5.0f);
    ctrl_traj_predict(c);
    worst = 0.0f;
    for (int k = 1; k < CTRL_TRAJ_FRAMES - NOW; k++) {
        const float *p = c->traj.pos[NOW + k];
        worst = fmaxf(worst, hypotf(p[0], p[2] - fminf(400.0f + 5.0f * (float)k, 630.0f - 40.0f - 30.0f)));
    }
    CHECKF(worst < 0.01f, "before the edge: a point up to %.3f cm from where it stops", (double)worst);
}

static void check_gait(const char *what, const float g[CTRL_GAITS], float stand, float walk, float crouch, float jump)
{
    const float want[CTRL_GAITS] = {stand, walk, 0.0f, crouch, jump, 0.0f};
    float worst = 0.0f;
    for (int k = 0; k < CTRL_GAITS; k++)
        worst = fmaxf(worst, fabsf(g[k] - want[k]));
    CHECKF(worst < 1e-5f, "%s: gait (%.4f %.4f %.4f %.4f %.4f %.4f), expected (%.4f %.4f 0 %.4f %.4f 0)", what,
           (double)g[0], (double)g[1], (double)g[2], (double)g[3], (double)g[4], (double)g[5], (double)stand,
           (double)walk, (double)crouch, (double)jump);
}

static void test_predict_areas(void)
{
    /* Heights: up onto the 20 cm platform (z from 200) at 5 cm a frame;
     * the root's own height is not the prediction's to set. */
    ctrl_t *c = reset_at(-400.0f, 0.0f);
    c->target_vel[1] = 5.0f * CTRL_NET_FPS;
    set_future_line(c, 0.0f, 5.0f);
    c->traj.pos[NOW][1] = 7.0f;
    ctrl_traj_predict(c);
    bool on_ground = true;
    for (int i = NOW + 1; i < CTRL_TRAJ_FRAMES; i++)
        on_ground &= c->traj.pos[i][1] == ctrl_ground(c, c->traj.pos[i][0], c->traj.pos[i][2]);
    CHECK(on_ground);
    CHECK_NEAR(c->traj.pos[NOW + 10][1], 0.0f, 0.0f);
    CHECK_NEAR(c->traj.pos[NOW + 50][1], PLATFORM_CM, 1e-4f);
    CHECK_NEAR(c->traj.pos[NOW][1], 7.0f, 0.0f);
    /* Jump area (radius 40 at (-400, -400), falling off over 50 cm): along
     * -z from (-400, -250), walking, half crouched. The jump takes over
     * from the crouch, the crouch from the walk. */
    c = reset_at(-400.0f, -250.0f);
    c->base[0] = 0.0f;
    c->base[1] = 1.0f;
    c->crouch = 0.5f;
    c->target_vel[1] = -5.0f * CTRL_NET_FPS;
    set_future_line(c, 0.0f, -5.0f);
    ctrl_traj_predict(c);
    check_gait("now", c->traj.gait[NOW], 0.0f, 0.5f, 0.5f, 0.0f);
    check_gait("100 cm from the jump's centre", c->traj.gait[NOW + 10], 0.0f, 0.5f, 0.5f, 0.0f);
    check_gait("50 cm from it", c->traj.gait[NOW + 20], 0.0f, 0.1f, 0.1f, 0.8f);
    check_gait("on it", c->traj.gait[NOW + 30], 0.0f, 0.0f, 0.0f, 1.0f);
    /* The crouch area (x in [200, 400], z from -200), standing, a quarter
     * jumping: crouched under its ceiling, the jump still over it. */
    c = reset_at(300.0f, -300.0f);
    c->jump = 0.25f;
    c->target_vel[1] = 5.0f * CTRL_NET_FPS;
    set_future_line(c, 0.0f, 5.0f);
    ctrl_traj_predict(c);
    check_gait("now", c->traj.gait[NOW], 0.75f, 0.0f, 0.0f, 0.25f);
    check_gait("5 cm before the ceiling", c->traj.gait[NOW + 19], 0.75f, 0.0f, 0.0f, 0.25f);
    check_gait("5 cm under it", c->traj.gait[NOW + 21], 0.0f, 0.0f, 0.75f, 0.25f);
    check_gait("1 m under it", c->traj.gait[NOW + 40], 0.0f, 0.0f, 0.75f, 0.25f);
}

/* ---- ctrl_traj_advance --------------------------------------------------------- */

/* The root moved by (LX, LZ) in the root frame of HEADING: x along
 * (cos h, -sin h), z along the facing (sin h, cos h). */
static void frame_to_world(float heading, float lx, float lz, float out[2])
{
    out[0] = lx * cosf(heading) + lz * sinf(heading);
    out[1] = -lx * sinf(heading) + lz * cosf(heading);
}

static void test_advance_root(void)
{
    /* Walking, heading 0.3 rad: the root moves by the output's root
     * velocity (2, 3) cm in its frame and turns by its 0.2 rad; the past
     * moves down a frame. */
    const float heading = 0.3f;
    ctrl_t *c = reset_facing(0.0f, 0.0f, heading);
    c->base[0] = 0.0f;
    c->base[1] = 1.0f;
    mark_past(c);
    ctrl_traj_view_t before = c->traj;
    c->y[OY_RVEL_X] = 2.0f;
    c->y[OY_RVEL_Z] = 3.0f;
    c->y[OY_RANG] = 0.2f;
    ctrl_traj_advance(c);
    float w[2];
    frame_to_world(heading, 2.0f, 3.0f, w);
    CHECK_NEAR(c->traj.pos[NOW][0], w[0], 1e-5f);
    CHECK_NEAR(c->traj.pos[NOW][2], w[1], 1e-5f);
    CHECK_NEAR(c->traj.pos[NOW][1], 0.0f, 0.0f);
    CHECK_NEAR(c->traj.dir[NOW][0], sinf(heading + 0.2f), 1e-6f);
    CHECK_NEAR(c->traj.dir[NOW][1], cosf(heading + 0.2f), 1e-6f);
    CHECK_NEAR(c->stats.root_speed_cm_s, hypotf(2.0f, 3.0f) * CTRL_NET_FPS, 1e-3f);
    CHECK(c->stats.wall_pushes == 0 && c->stats.wall_blocks == 0);
    CHECK(memcmp(c->traj.pos[0], before.pos[1], sizeof c->traj.pos[0] * NOW) == 0);
    CHECK(memcmp(c->traj.dir[0], before.dir[1], sizeof c->traj.dir[0] * NOW) == 0);
    CHECK(memcmp(c->traj.gait[0], before.gait[1], sizeof c->traj.gait[0] * NOW) == 0);
    /* Standing, none of it (the root does not drift); at 1/16 of the way
     * from standing, (1/16)^(1/4) = half of it. */
    for (int half = 0; half < 2; half++) {
        c = reset_facing(0.0f, 0.0f, heading);
        c->base[0] = half ? 15.0f / 16.0f : 1.0f;
        c->base[1] = 1.0f - c->base[0];
        c->y[OY_RVEL_X] = 2.0f;
        c->y[OY_RVEL_Z] = 3.0f;
        c->y[OY_RANG] = 0.2f;
        ctrl_traj_advance(c);
        float k = half ? 0.5f : 0.0f;
        CHECK_NEAR(c->traj.pos[NOW][0], k * w[0], 1e-5f);
        CHECK_NEAR(c->traj.pos[NOW][2], k * w[1], 1e-5f);
        CHECK_NEAR(c->traj.dir[NOW][0], sinf(heading + k * 0.2f), 1e-6f);
        CHECK_NEAR(c->traj.dir[NOW][1], cosf(heading + k * 0.2f), 1e-6f);
    }
}

/* Output point K of the future (10 (K + 1) frames ahead) in the root frame. */
static void future_point(float *y, int k, float px, float pz, float dir_rad)
{
    y[OY_TPOS_X + k] = px;
    y[OY_TPOS_Z + k] = pz;
    y[OY_TDIR_X + k] = sinf(dir_rad);
    y[OY_TDIR_Z + k] = cosf(dir_rad);
}

static void test_advance_future(void)
{
    /* Heading 0.3, turning 0.2: the new frame's yaw is 0.5. Point k at
     * (3 (k + 1), 20 (k + 1)), facing 0.1 k rad from the root's way. */
    const float yaw = 0.5f;
    ctrl_t *c = reset_facing(0.0f, 0.0f, 0.3f);
    c->base[0] = 0.0f;
    c->base[1] = 1.0f;
    c->y[OY_RANG] = 0.2f;
    for (int k = 0; k < OY_FUTURE; k++)
        future_point(c->y, k, 3.0f * (float)(k + 1), 20.0f * (float)(k + 1), 0.1f * (float)k);
    ctrl_traj_advance(c);
    float w[2];
    for (int k = 0; k < OY_FUTURE - 1; k++) {
        const float *p = c->traj.pos[NOW + 10 * (k + 1)], *d = c->traj.dir[NOW + 10 * (k + 1)];
        frame_to_world(yaw, 3.0f * (float)(k + 1), 20.0f * (float)(k + 1), w);
        CHECKF(fabsf(p[0] - w[0]) < 1e-4f && fabsf(p[2] - w[1]) < 1e-4f,
               "point %d at (%.4f, %.4f), expected (%.4f, %.4f)", k, (double)p[0], (double)p[2], (double)w[0],
               (double)w[1]);
        CHECKF(fabsf(d[0] - sinf(yaw + 0.1f * (float)k)) < 1e-5f && fabsf(d[1] - cosf(yaw + 0.1f * (float)k)) < 1e-5f,
               "point %d facing (%.5f, %.5f)", k, (double)d[0], (double)d[1]);
    }
    /* In between, linearly from the root to point 0, then between points;
     * the directions between two unit ones bisect them. */
    const float between[3][3] = {
        {5.0f, 1.5f, 10.0f}, {15.0f, 4.5f, 30.0f}, {59.0f, 15.0f + 0.9f * 3.0f, 100.0f + 18.0f}};
    for (int b = 0; b < 3; b++) {
        const float *p = c->traj.pos[NOW + (int)between[b][0]];
        frame_to_world(yaw, between[b][1], between[b][2], w);
        CHECKF(fabsf(p[0] - w[0]) < 1e-4f && fabsf(p[2] - w[1]) < 1e-4f,
               "frame %d ahead at (%.4f, %.4f), expected (%.4f, %.4f)", (int)between[b][0], (double)p[0], (double)p[2],
               (double)w[0], (double)w[1]);
    }
    CHECK_NEAR(c->traj.dir[NOW + 5][0], sinf(yaw), 1e-5f);
    CHECK_NEAR(c->traj.dir[NOW + 15][0], sinf(yaw + 0.05f), 1e-5f);
    CHECK_NEAR(c->traj.dir[NOW + 15][1], cosf(yaw + 0.05f), 1e-5f);
    /* No direction in the output: the root's. */
    c = reset_facing(0.0f, 0.0f, 0.3f);
    c->base[0] = 0.0f;
    c->base[1] = 1.0f;
    ctrl_traj_advance(c);
    bool same = true;
    for (int i = NOW + 1; i < CTRL_TRAJ_FRAMES; i++)
        same &= fabsf(c->traj.dir[i][0] - c->traj.dir[NOW][0]) < 1e-6f &&
                fabsf(c->traj.dir[i][1] - c->traj.dir[NOW][1]) < 1e-6f;
    CHECK(same);
    /* The points take the ground's height: onto the platform from z 200. */
    c = reset_at(-400.0f, 100.0f);
    for (int k = 0; k < OY_FUTURE; k++)
        future_point(c->y, k, 0.0f, 40.0f * (float)(k + 1), 0.0f);
    ctrl_traj_advance(c);
    bool on_ground = true;
    for (int i = NOW + 1; i < CTRL_TRAJ_FRAMES; i++)
        on_ground &= c->traj.pos[i][1] == ctrl_ground(c, c->traj.pos[i][0], c->traj.pos[i][2]);
    CHECK(on_ground);
    CHECK_NEAR(c->traj.pos[NOW + 10][1], 0.0f, 0.0f);
    CHECK_NEAR(c->traj.pos[NOW + 40][1], PLATFORM_CM, 1e-4f);
}

static void test_advance_phase(void)
{
    /* The phase advances by the output's and wraps into [0, 2 pi). */
    const float cases[4][3] = {
        {1.0f, 0.25f, 1.25f},
        {6.0f, 0.5f, 6.5f - CTRL_TWO_PI},
        {0.2f, -0.5f, CTRL_TWO_PI - 0.3f},
        {0.0f, CTRL_TWO_PI + 0.5f, 0.5f},
    };
    for (int k = 0; k < 4; k++) {
        ctrl_t *c = reset_at(0.0f, 0.0f);
        c->phase = cases[k][0];
        c->y[OY_DPHASE] = cases[k][1];
        ctrl_traj_advance(c);
        CHECKF(fabsf(c->phase - cases[k][2]) < 1e-5f, "phase %.3f + %.3f: %.6f, expected %.6f", (double)cases[k][0],
               (double)cases[k][1], (double)c->phase, (double)cases[k][2]);
        CHECK(c->phase >= 0.0f && c->phase < CTRL_TWO_PI);
    }
}

static void test_advance_blocked(void)
{
    /* Walking at the wall (x 450, radius 15) facing +x from x 350, 80 cm
     * in a frame: stopped at its radius plus the root's (20 cm) from its
     * line; pushed. Then on into it: not moved at all; blocked. */
    ctrl_t *c = reset_facing(350.0f, -400.0f, 0.5f * CTRL_PI);
    c->base[0] = 0.0f;
    c->base[1] = 1.0f;
    c->y[OY_RVEL_Z] = 80.0f;
    ctrl_traj_advance(c);
    const float stop = WALL_X - WALL_R - CTRL_ROOT_RADIUS_CM;
    CHECK_NEAR(c->traj.pos[NOW][0], stop, 0.01f);
    CHECK_NEAR(c->traj.pos[NOW][2], -400.0f, 1e-3f);
    CHECK_NEAR(c->stats.root_speed_cm_s, (stop - 350.0f) * CTRL_NET_FPS, 1.0f);
    CHECK(c->stats.wall_pushes == 1 && c->stats.wall_blocks == 0);
    c->y[OY_RVEL_Z] = 10.0f;
    ctrl_traj_advance(c);
    CHECK_NEAR(c->traj.pos[NOW][0], stop, 0.01f);
    CHECK_NEAR(c->stats.root_speed_cm_s, 0.0f, 1.0f);
    CHECK(c->stats.wall_pushes == 2 && c->stats.wall_blocks == 1);
    /* Slanting into it (the root frame's -x is world +z here): slides
     * along it, pushed, not blocked. */
    c->y[OY_RVEL_X] = -10.0f;
    ctrl_traj_advance(c);
    CHECK_NEAR(c->traj.pos[NOW][0], stop, 0.01f);
    CHECK_NEAR(c->traj.pos[NOW][2], -390.0f, 0.01f);
    CHECK(c->stats.wall_pushes == 3 && c->stats.wall_blocks == 1);
}

/* From (X, Z) facing -z, MOVE_CM along -z in one frame, with LANDING steps
 * of landing left and JUMP. */
static ctrl_t *landed_at(float x, float z, int landing, float jump, float move_cm)
{
    ctrl_t *c = reset_facing(x, z, CTRL_PI);
    c->base[0] = 0.0f;
    c->base[1] = 1.0f;
    c->landing_steps = landing;
    c->jump = jump;
    c->y[OY_RVEL_Z] = move_cm;
    ctrl_traj_advance(c);
    return c;
}

/* From the block's top at (200, 400): 150 cm off it is 100 cm down. */
static ctrl_t *off_the_block(int landing, float jump, float move_cm)
{
    return landed_at(200.0f, 400.0f, landing, jump, move_cm);
}

/* From the platform at (-400, 300): 150 cm off it is a step 20 cm down. */
static ctrl_t *off_the_platform(int landing, float jump, float move_cm)
{
    return landed_at(-400.0f, 300.0f, landing, jump, move_cm);
}

static void test_advance_landing(void)
{
    /* Just landed: held where it is, not down again past a step; a step
     * of landing counted. */
    ctrl_t *c = off_the_block(5, 0.0f, 150.0f);
    CHECK_NEAR(c->traj.pos[NOW][0], 200.0f, 1e-3f);
    CHECK_NEAR(c->traj.pos[NOW][2], 400.0f, 1e-3f);
    CHECK_NEAR(c->traj.pos[NOW][1], BLOCK_CM, 1e-4f);
    CHECK(c->landing_steps == 4);
    /* Along the top (no lower): moves. */
    c = off_the_block(5, 0.0f, 50.0f);
    CHECK_NEAR(c->traj.pos[NOW][2], 350.0f, 1e-3f);
    /* Jumping again, or on the last step of landing: off it, the root's
     * height following the ground down at CTRL_ROOT_FALL_CM_S. */
    const float fall = CTRL_ROOT_FALL_CM_S / CTRL_NET_FPS;
    c = off_the_block(5, 1.0f, 150.0f);
    CHECK_NEAR(c->traj.pos[NOW][2], 250.0f, 1e-3f);
    CHECK_NEAR(c->traj.pos[NOW][1], BLOCK_CM - fall, 1e-4f);
    /* (On the last step the ledge rules of any walk hold it instead: off
     * the top, short of the far side of the block's edge cells.) */
    c = off_the_block(1, 0.0f, 150.0f);
    CHECK(c->traj.pos[NOW][2] < 300.0f);
    CHECK(c->landing_steps == 0);
    /* A step down is taken while landing (off the far side of a box it
     * landed on): held, the body ran on the spot with both feet up. */
    c = off_the_platform(5, 0.0f, 150.0f);
    CHECK_NEAR(c->traj.pos[NOW][2], 150.0f, 1e-3f);
    CHECK_NEAR(c->traj.pos[NOW][1], PLATFORM_CM - fall, 1e-4f);
    CHECK(c->landing_steps == 4);
}

static bool make_level(void)
{
    if (!ctrl_fixture_parse_level(&fx, level_text, "ctrl-traj-test.lvl"))
        return false;
    terrain_t *t = &fx.level.terrain;
    ctrl_fixture_set_heights(t, -500.0f, 200.0f, -300.0f, 500.0f, PLATFORM_CM);
    ctrl_fixture_set_heights(t, 100.0f, 300.0f, 300.0f, 500.0f, BLOCK_CM);
    return true;
}

static const ctrl_fixture_group_t GROUPS[] = {
    {"converge", test_converge},
    {"stop", test_stop},
    {"smoothing", test_smoothing},
    {"crouch", test_crouch},
    {"strafe", test_strafe},
    {"jump", test_jump},
    {"nonfinite", test_nonfinite},
    {"predict_blend", test_predict_blend},
    {"predict_dir", test_predict_dir},
    {"predict_blocked", test_predict_blocked},
    {"predict_areas", test_predict_areas},
    {"advance_root", test_advance_root},
    {"advance_future", test_advance_future},
    {"advance_phase", test_advance_phase},
    {"advance_blocked", test_advance_blocked},
    {"advance_landing", test_advance_landing},
};

int main(int argc, char **argv)
{
    return ctrl_fixture_main(argc, argv, "test_ctrl_traj", &fx, make_level, NULL, GROUPS,
                             (int)(sizeof GROUPS / sizeof GROUPS[0]));
}
