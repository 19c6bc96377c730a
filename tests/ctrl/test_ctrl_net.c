/* Unit tests for ctrl_net (src/ctrl/ctrl_net.h), without running the
 * network: the input and output are written and read in the controller
 * (ctrl_internal.h) by their layout (docs/FORMATS_PFNN.md sections 2-3).
 * ctrl_net_input: the twelve trajectory points (every 10 frames) and their
 * directions in the root frame, their gaits, the terrain 25 cm left and
 * right of each and under it relative to the root (the root's own height
 * over a gap), the previous joints in the previous root frame; the fed
 * posture steered towards the gait's hip height, the fed momentum towards
 * the requested speed (and, crouching, direction).
 * ctrl_net_pose: the output's joints into the world and smoothed with the
 * last ones, its 6-D rotations into the local pose (any scale or skew of
 * the pair, the same rotation; bone lengths the skeleton's), and a pop of a
 * joint's turn taken out by a spring.
 * Usage: test_ctrl_net TEST --net PATH
 * TEST: input_traj input_heights input_joints posture speed pose_joints
 * pose_rotations pose_pop. PATH: any network with the shipped layout (the
 * tiny fixture: nothing here runs it). Runs from the repository root (the
 * skeleton is read from assets/).
 */
#include "ctrl/ctrl.h"
#include "ctrl/ctrl_net.h"

#include "check.h"
#include "ctrl_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW CTRL_TRAJ_NOW
#define TOL 1e-3f

/* A level of 64 x 64 samples 20 cm apart (x and z from -630 to 630 cm),
 * the plane h = 0.1 x - 0.05 z written into its samples (bilinear
 * interpolation gives a plane exactly), with a 110 cm ceiling over x in
 * [200, 400], z in [-200, 200]. */
static const char level_text[] = "strider-level 1\n"
                                 "name ctrl-net-test\n"
                                 "flat 64 64 cell 20 height 0\n"
                                 "spawn 0 0 0\n"
                                 "crouch 200 -200 400 200 110\n";

static ctrl_fixture_t fx;

static float plane(float x, float z) { return 0.1f * x - 0.05f * z; }

static ctrl_t *reset_facing(float x, float z, float heading)
{
    ctrl_spawn_t s = {x, z, heading};
    ctrl_reset(fx.ctrl, &fx.level, &s);
    return fx.ctrl;
}

/* (LX, LZ) in the frame of YAW into the world: the frame's x axis is
 * (cos, -sin), its z axis the facing (sin, cos). */
static void frame_to_world(float yaw, float lx, float lz, float out[2])
{
    out[0] = lx * cosf(yaw) + lz * sinf(yaw);
    out[1] = -lx * sinf(yaw) + lz * cosf(yaw);
}

/* The gait at the current frame: all jump, which turns posture steering
 * off (the tests of the rest see the fed pose as it is). */
static void jumping_now(ctrl_t *c)
{
    memset(c->traj.gait[NOW], 0, sizeof c->traj.gait[NOW]);
    c->traj.gait[NOW][CTRL_GAIT_JUMP] = 1.0f;
}

/* ---- input: trajectory ----------------------------------------------------------- */

static void test_input_traj(void)
{
    /* Heading 0.7 at (100, -50); point j (frame 10 j) at (3 (j - 6),
     * 20 (j - 6)) in the root frame, facing 0.05 (j - 6) rad from it, gaits
     * numbered. */
    const float yaw = 0.7f;
    ctrl_t *c = reset_facing(100.0f, -50.0f, yaw);
    const float *root = c->traj.pos[NOW];
    for (int j = 0; j < CTRL_TRAJ_POINTS; j++) {
        int i = j * CTRL_TRAJ_STEP;
        float w[2], a = 0.05f * (float)(j - 6);
        frame_to_world(yaw, 3.0f * (float)(j - 6), 20.0f * (float)(j - 6), w);
        if (i != NOW) {
            c->traj.pos[i][0] = root[0] + w[0];
            c->traj.pos[i][2] = root[2] + w[1];
        }
        c->traj.dir[i][0] = sinf(yaw + a);
        c->traj.dir[i][1] = cosf(yaw + a);
        for (int g = 0; g < CTRL_GAITS; g++)
            c->traj.gait[i][g] = (float)(j * CTRL_GAITS + g) / 100.0f;
    }
    jumping_now(c);
    ctrl_net_input(c);
    float worst_pos = 0.0f, worst_dir = 0.0f;
    bool gaits = true;
    for (int j = 0; j < CTRL_TRAJ_POINTS; j++) {
        float a = 0.05f * (float)(j - 6);
        worst_pos = fmaxf(
            worst_pos, hypotf(c->x[IX_POS_X + j] - 3.0f * (float)(j - 6), c->x[IX_POS_Z + j] - 20.0f * (float)(j - 6)));
        worst_dir = fmaxf(worst_dir, hypotf(c->x[IX_DIR_X + j] - sinf(a), c->x[IX_DIR_Z + j] - cosf(a)));
        for (int g = 0; g < CTRL_GAITS; g++)
            gaits &= c->x[IX_GAIT + CTRL_GAITS * j + g] == c->traj.gait[j * CTRL_TRAJ_STEP][g];
    }
    CHECKF(worst_pos < 1e-4f, "trajectory positions up to %.2e cm off", (double)worst_pos);
    CHECKF(worst_dir < 1e-5f, "trajectory directions up to %.2e off", (double)worst_dir);
    CHECK(gaits);
}

/* ---- input: heights --------------------------------------------------------------- */

static void test_input_heights(void)
{
    /* On the plane, heading -0.4 at (100, -50), the points along the
     * facing every 30 cm: the heights under each point and 25 cm to its
     * left and right (with y up and facing +z, +x is on the left), less
     * the root's height. */
    const float yaw = -0.4f;
    ctrl_t *c = reset_facing(100.0f, -50.0f, yaw);
    const float *root = c->traj.pos[NOW];
    CHECK_NEAR(root[1], plane(100.0f, -50.0f), TOL);
    for (int j = 0; j < CTRL_TRAJ_POINTS; j++) {
        float *p = c->traj.pos[j * CTRL_TRAJ_STEP];
        p[0] = root[0] + 30.0f * (float)(j - 6) * sinf(yaw);
        p[2] = root[2] + 30.0f * (float)(j - 6) * cosf(yaw);
    }
    jumping_now(c);
    ctrl_net_input(c);
    float lx = 25.0f * cosf(yaw), lz = -25.0f * sinf(yaw), worst = 0.0f;
    for (int j = 0; j < CTRL_TRAJ_POINTS; j++) {
        const float *p = c->traj.pos[j * CTRL_TRAJ_STEP];
        worst = fmaxf(worst, fabsf(c->x[IX_H_C + j] - (plane(p[0], p[2]) - root[1])));
        worst = fmaxf(worst, fabsf(c->x[IX_H_L + j] - (plane(p[0] + lx, p[2] + lz) - root[1])));
        worst = fmaxf(worst, fabsf(c->x[IX_H_R + j] - (plane(p[0] - lx, p[2] - lz) - root[1])));
    }
    CHECKF(worst < TOL, "heights up to %.4f cm off", (double)worst);
    /* Left less right: the plane's rise over 50 cm to the left. */
    CHECK_NEAR(c->x[IX_H_L + 6] - c->x[IX_H_R + 6], 2.0f * (0.1f * lx - 0.05f * lz), TOL);
    /* Held 30 cm over the ground (a gap being jumped): the root's height. */
    c = reset_facing(100.0f, -50.0f, yaw);
    c->traj.pos[NOW][1] += 30.0f;
    c->ground_held = true;
    jumping_now(c);
    ctrl_net_input(c);
    worst = 0.0f;
    for (int j = 0; j < CTRL_TRAJ_POINTS; j++)
        worst = fmaxf(worst, fmaxf(fabsf(c->x[IX_H_C + j]), fmaxf(fabsf(c->x[IX_H_L + j]), fabsf(c->x[IX_H_R + j]))));
    CHECKF(worst < TOL, "over a gap: heights up to %.4f cm from the root's", (double)worst);
}

/* ---- input: the previous joints ---------------------------------------------------- */

static void test_input_joints(void)
{
    /* The last step's root at (50, 7, 20) facing -0.4 (the current one
     * elsewhere): joint b at (b, 80 + b, -2 b) in that frame, moving
     * (0.1 b, -0.05 b, 0.2) cm a frame. */
    ctrl_t *c = reset_facing(-100.0f, 100.0f, 1.0f);
    const float prev_yaw = -0.4f;
    c->prev_root[0] = 50.0f;
    c->prev_root[1] = 7.0f;
    c->prev_root[2] = 20.0f;
    c->prev_yaw = prev_yaw;
    for (int b = 0; b < CTRL_JOINTS; b++) {
        float fb = (float)b, w[2];
        frame_to_world(prev_yaw, fb, -2.0f * fb, w);
        c->joint_world[b][0] = 50.0f + w[0];
        c->joint_world[b][1] = 7.0f + 80.0f + fb;
        c->joint_world[b][2] = 20.0f + w[1];
        frame_to_world(prev_yaw, 0.1f * fb, 0.2f, w);
        c->joint_vel_world[b][0] = w[0];
        c->joint_vel_world[b][1] = -0.05f * fb;
        c->joint_vel_world[b][2] = w[1];
    }
    jumping_now(c);
    ctrl_net_input(c);
    float worst = 0.0f;
    for (int b = 0; b < CTRL_JOINTS; b++) {
        float fb = (float)b;
        const float *p = &c->x[IX_JPOS + 3 * b], *v = &c->x[IX_JVEL + 3 * b];
        worst = fmaxf(worst, fabsf(p[0] - fb) + fabsf(p[1] - (80.0f + fb)) + fabsf(p[2] + 2.0f * fb));
        worst = fmaxf(worst, fabsf(v[0] - 0.1f * fb) + fabsf(v[1] + 0.05f * fb) + fabsf(v[2] - 0.2f));
    }
    CHECKF(worst < TOL, "previous joints up to %.4f cm off", (double)worst);
}

/* ---- input: posture steering -------------------------------------------------------- */

/* ctrl_net.c's posture: the training's hip heights standing, walking and
 * crouched (cm); under a ceiling the crouch's hip is lowered so the head
 * top (15 cm over the head, the head 1.77 times the hip's height) clears
 * it; steering starts 5 cm from the target, stops within 0.75, and takes
 * half the way a step. */
#define HIP_STAND 79.9f
#define HIP_WALK 78.7f
#define HIP_CROUCH 62.9f
#define POSTURE_ON 5.0f
#define POSTURE_RATE 0.5f

/* Standing at (X, Z), the fed pose the standing seed with its heights
 * scaled by SCALE, in the gait GAIT now, posture steering STEERING; fills
 * FED with the fed joints and returns the fed hip's height. */
static float fed_posture(float x, float z, float scale, int gait, bool steering, float fed[CTRL_JOINTS][3])
{
    ctrl_t *c = reset_facing(x, z, 0.0f);
    for (int b = 0; b < CTRL_JOINTS; b++) {
        c->joint_world[b][1] = c->prev_root[1] + scale * c->stand_pose[b][1];
        fed[b][0] = c->stand_pose[b][0];
        fed[b][1] = scale * c->stand_pose[b][1];
        fed[b][2] = c->stand_pose[b][2];
    }
    memset(c->traj.gait[NOW], 0, sizeof c->traj.gait[NOW]);
    c->traj.gait[NOW][gait] = 1.0f;
    c->posture_steer = steering;
    return fed[c->j.hip][1];
}

/* The fed joints after ctrl_net_input against WANT (scaled by K in height,
 * or, when STAND, halfway to the standing seed). */
static void check_posture(const char *what, const float fed[CTRL_JOINTS][3], float k, bool stand)
{
    ctrl_t *c = fx.ctrl;
    ctrl_net_input(c);
    float worst = 0.0f;
    for (int b = 0; b < CTRL_JOINTS; b++)
        for (int a = 0; a < 3; a++) {
            float want = stand ? fed[b][a] + POSTURE_RATE * (c->stand_pose[b][a] - fed[b][a])
                               : (a == 1 ? k * fed[b][a] : fed[b][a]);
            worst = fmaxf(worst, fabsf(c->x[IX_JPOS + 3 * b + a] - want));
        }
    CHECKF(worst < TOL, "%s: the fed pose up to %.4f cm from the expected", what, (double)worst);
}

static void test_posture(void)
{
    float fed[CTRL_JOINTS][3];
    /* Standing, fed a pose three quarters of the seed's height: halfway
     * back to the seed. */
    fed_posture(0.0f, 0.0f, 0.75f, CTRL_GAIT_STAND, false, fed);
    check_posture("standing, crouched", fed, 1.0f, true);
    CHECK(fx.ctrl->posture_steer);
    /* Walking, crouching: scaled in height halfway to the gait's hip. */
    float hip = fed_posture(0.0f, 0.0f, 0.75f, CTRL_GAIT_WALK, false, fed);
    check_posture("walking", fed, 1.0f + POSTURE_RATE * (HIP_WALK / hip - 1.0f), false);
    hip = fed_posture(0.0f, 0.0f, 1.0f, CTRL_GAIT_CROUCH, false, fed);
    check_posture("crouching", fed, 1.0f + POSTURE_RATE * (HIP_CROUCH / hip - 1.0f), false);
    /* Crouching under the 110 cm ceiling: lower, the head top under it. */
    const float under = (110.0f - 15.0f) / 1.77f;
    hip = fed_posture(300.0f, 0.0f, 1.0f, CTRL_GAIT_CROUCH, false, fed);
    check_posture("under the ceiling", fed, 1.0f + POSTURE_RATE * (under / hip - 1.0f), false);
    /* Half jumping, half walking: left alone. */
    fed_posture(0.0f, 0.0f, 0.75f, CTRL_GAIT_WALK, true, fed);
    fx.ctrl->traj.gait[NOW][CTRL_GAIT_WALK] = 0.5f;
    fx.ctrl->traj.gait[NOW][CTRL_GAIT_JUMP] = 0.5f;
    check_posture("jumping", fed, 1.0f, false);
    CHECK(!fx.ctrl->posture_steer);
    /* 2 cm from the walk's hip: steered only if it was steering already. */
    float seed_hip = fx.ctrl->stand_pose[fx.ctrl->j.hip][1], scale = (HIP_WALK + 2.0f) / seed_hip;
    fed_posture(0.0f, 0.0f, scale, CTRL_GAIT_WALK, false, fed);
    check_posture("near the walk's hip", fed, 1.0f, false);
    hip = fed_posture(0.0f, 0.0f, scale, CTRL_GAIT_WALK, true, fed);
    check_posture("near it, steering", fed, 1.0f + POSTURE_RATE * (HIP_WALK / hip - 1.0f), false);
    CHECKF(fabsf(hip - HIP_WALK) < POSTURE_ON, "the fed hip %.2f is not near the walk's", (double)hip);
}

/* ---- input: speed steering --------------------------------------------------------- */

/* ctrl_net.c's speed steering: jumps keep at most 180 cm/s; the fed
 * momentum is scaled by 0.5 to 1.5. */
#define JUMP_SPEED 180.0f
#define STEER_MIN 0.5f
#define STEER_MAX 1.5f

/* Walking along +z (the root frame's z) at ACT cm/s for the last second,
 * the network having made RATIO times the speed it was fed, asked for
 * WANT cm/s at ANGLE rad from +z, crouched CROUCH, jumping JUMP. Fills X0
 * with the input asked for nothing (not steered), then makes the input. */
static ctrl_t *speed_case(float act, float ratio, float want, float angle, float crouch, float jump,
                          float x0[PFNN_N_IN])
{
    ctrl_t *c = reset_facing(0.0f, 0.0f, 0.0f);
    for (int m = 1; m <= NOW; m++)
        c->traj.pos[NOW - m][2] = -(float)m * act / CTRL_NET_FPS;
    for (int b = 0; b < CTRL_JOINTS; b++)
        c->joint_vel_world[b][2] = act / CTRL_NET_FPS;
    c->base[0] = 0.0f;
    c->base[1] = 1.0f;
    c->crouch = crouch;
    c->jump = jump;
    jumping_now(c);
    for (int pass = 0; pass < 2; pass++) {
        c->speed_ratio = ratio;
        c->fed_speed = act / ratio;
        c->target_vel[0] = pass ? want * sinf(angle) : 0.0f;
        c->target_vel[1] = pass ? want * cosf(angle) : 0.0f;
        ctrl_net_input(c);
        if (pass == 0)
            memcpy(x0, c->x, sizeof c->x);
    }
    return c;
}

/* The past points and the joints' root velocity scaled by K and turned by
 * TURN (rad, towards +x) from X0's. */
static void check_steered(const char *what, const float x0[PFNN_N_IN], float k, float turn)
{
    const ctrl_t *c = fx.ctrl;
    float worst = 0.0f;
    for (int j = 0; j < CTRL_TRAJ_POINTS; j++) {
        float px = x0[IX_POS_X + j], pz = x0[IX_POS_Z + j];
        float len = hypotf(px, pz), ang = atan2f(px, pz) + (j < CTRL_TRAJ_POINTS / 2 ? turn : 0.0f);
        float s = j < CTRL_TRAJ_POINTS / 2 ? k : 1.0f;
        worst = fmaxf(worst,
                      hypotf(c->x[IX_POS_X + j] - s * len * sinf(ang), c->x[IX_POS_Z + j] - s * len * cosf(ang)));
    }
    const float v = x0[IX_JVEL + 2];
    for (int b = 0; b < CTRL_JOINTS; b++)
        worst = fmaxf(
            worst, hypotf(c->x[IX_JVEL + 3 * b] - k * v * sinf(turn), c->x[IX_JVEL + 3 * b + 2] - k * v * cosf(turn)));
    CHECKF(worst < TOL, "%s: the fed momentum up to %.4f cm off", what, (double)worst);
}

static void test_speed(void)
{
    float x0[PFNN_N_IN];
    /* 100 cm/s fed, 120 asked: 1.2 times the momentum; only the past. */
    speed_case(100.0f, 1.0f, 120.0f, 0.0f, 0.0f, 0.0f, x0);
    check_steered("120 of 100", x0, 1.2f, 0.0f);
    CHECK_NEAR(fx.ctrl->fed_speed, 120.0f, 0.01f);
    CHECK(x0[IX_POS_Z + 0] < -50.0f);
    /* Limited to 0.5 and 1.5 times. */
    speed_case(100.0f, 1.0f, 1000.0f, 0.0f, 0.0f, 0.0f, x0);
    check_steered("1000 of 100", x0, STEER_MAX, 0.0f);
    speed_case(100.0f, 1.0f, 30.0f, 0.0f, 0.0f, 0.0f, x0);
    check_steered("30 of 100", x0, STEER_MIN, 0.0f);
    /* The network making 1.25 times what it is fed: fed less. */
    speed_case(100.0f, 1.25f, 120.0f, 0.0f, 0.0f, 0.0f, x0);
    check_steered("120 of 100, the network faster", x0, 120.0f / 125.0f, 0.0f);
    /* Jumping: at most 180 cm/s asked. */
    speed_case(150.0f, 1.0f, 300.0f, 0.0f, 0.0f, 1.0f, x0);
    check_steered("jumping", x0, JUMP_SPEED / 150.0f, 0.0f);
    /* Crouched, asked 30 degrees off the way it went: turned that far
     * (half crouched, half of it); not crouched, not turned. */
    const float a = CTRL_PI / 6.0f;
    speed_case(100.0f, 1.0f, 100.0f, a, 1.0f, 0.0f, x0);
    check_steered("crouched, 30 degrees off", x0, 1.0f, a);
    speed_case(100.0f, 1.0f, 100.0f, a, 0.5f, 0.0f, x0);
    check_steered("half crouched", x0, 1.0f, 0.5f * a);
    speed_case(100.0f, 1.0f, 100.0f, a, 0.0f, 0.0f, x0);
    check_steered("standing up", x0, 1.0f, 0.0f);
    /* Standing still, or asked to stand: not steered. */
    speed_case(5.0f, 1.0f, 120.0f, 0.0f, 0.0f, 0.0f, x0);
    check_steered("from rest", x0, 1.0f, 0.0f);
    speed_case(100.0f, 1.0f, 5.0f, 0.0f, 0.0f, 0.0f, x0);
    check_steered("asked to stand", x0, 1.0f, 0.0f);
}

/* ---- output: joints --------------------------------------------------------------- */

static void test_pose_joints(void)
{
    /* Heading 0.6 at (30, -20): joint b of the output at (b, 50 + 3 b,
     * -b) in the root frame, moving (0.5, -0.25, 1) cm a frame; the last
     * joints 4 cm off in x. Shown: halfway between the output and the last
     * joints moved on by the velocity. */
    const float yaw = 0.6f;
    ctrl_t *c = reset_facing(30.0f, -20.0f, yaw);
    const float *root = c->traj.pos[NOW];
    float last[CTRL_JOINTS][3], out[CTRL_JOINTS][3], vel[3];
    float w[2];
    frame_to_world(yaw, 0.5f, 1.0f, w);
    vel[0] = w[0];
    vel[1] = -0.25f;
    vel[2] = w[1];
    for (int b = 0; b < CTRL_JOINTS; b++) {
        float fb = (float)b;
        c->y[OY_JPOS + 3 * b] = fb;
        c->y[OY_JPOS + 3 * b + 1] = 50.0f + 3.0f * fb;
        c->y[OY_JPOS + 3 * b + 2] = -fb;
        c->y[OY_JVEL + 3 * b] = 0.5f;
        c->y[OY_JVEL + 3 * b + 1] = -0.25f;
        c->y[OY_JVEL + 3 * b + 2] = 1.0f;
        frame_to_world(yaw, fb, -fb, w);
        out[b][0] = root[0] + w[0];
        out[b][1] = root[1] + 50.0f + 3.0f * fb;
        out[b][2] = root[2] + w[1];
        for (int a = 0; a < 3; a++)
            last[b][a] = out[b][a] + (a == 0 ? 4.0f : 0.0f);
        memcpy(c->joint_world[b], last[b], sizeof last[b]);
    }
    c->prev_yaw = -1.0f;
    ctrl_net_pose(c);
    float worst = 0.0f;
    for (int b = 0; b < CTRL_JOINTS; b++)
        for (int a = 0; a < 3; a++) {
            worst = fmaxf(worst, fabsf(c->joint_world[b][a] - 0.5f * (last[b][a] + vel[a] + out[b][a])));
            worst = fmaxf(worst, fabsf(c->joint_vel_world[b][a] - vel[a]));
        }
    CHECKF(worst < TOL, "joints up to %.4f cm from the expected", (double)worst);
    /* Fed back next step from this root; the hip placed there. */
    CHECK(memcmp(c->prev_root, root, sizeof c->prev_root) == 0);
    CHECK_NEAR(c->prev_yaw, yaw, 1e-6f);
    CHECK(memcmp(c->pose.trans[c->j.hip], c->joint_world[c->j.hip], sizeof(float) * 3) == 0);
    CHECK_NEAR(c->joint_pos[c->j.hip][1], c->joint_world[c->j.hip][1], TOL);
}

/* ---- output: rotations ------------------------------------------------------------ */

/* V rotated by the unit quaternion Q (x y z w). */
static void quat_rotate(const float q[4], const float v[3], float out[3])
{
    float t[3] = {2.0f * (q[1] * v[2] - q[2] * v[1]), 2.0f * (q[2] * v[0] - q[0] * v[2]),
                  2.0f * (q[0] * v[1] - q[1] * v[0])};
    out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
    out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
    out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

static void quat_axis_angle(float ax, float ay, float az, float angle, float out[4])
{
    float n = sqrtf(ax * ax + ay * ay + az * az), s = sinf(0.5f * angle) / n;
    out[0] = ax * s;
    out[1] = ay * s;
    out[2] = az * s;
    out[3] = cosf(0.5f * angle);
}

/* Joint B's 6-D rotation in the output: the rotation Q's first two
 * columns, the first scaled by SCALE and SKEW times it added to the second. */
static void set_rot6(ctrl_t *c, int b, const float q[4], float scale, float skew)
{
    const float ex[3] = {1.0f, 0.0f, 0.0f}, ey[3] = {0.0f, 1.0f, 0.0f};
    float a[3], col[3];
    quat_rotate(q, ex, a);
    quat_rotate(q, ey, col);
    for (int k = 0; k < 3; k++) {
        c->y[OY_JROT + 6 * b + k] = scale * a[k];
        c->y[OY_JROT + 6 * b + 3 + k] = col[k] + skew * scale * a[k];
    }
}

/* The angle (rad) of the rotation between P and Q. */
static float quat_angle(const float p[4], const float q[4])
{
    float inv[4], r[4];
    ctrl_quat_conj(p, inv);
    pose_quat_mul(inv, q, r);
    return 2.0f * atan2f(sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), fabsf(r[3]));
}

static void test_pose_rotations(void)
{
    /* Heading 0.6; in the root frame the hip turned 0.8 rad about
     * (1, 2, 3), the other joints each about its own axis, given
     * unnormalised and skewed for odd joints. Local rotations: the
     * parent's inverse times the joint's; the hip's with the heading. */
    const float yaw = 0.6f;
    ctrl_t *c = reset_facing(30.0f, -20.0f, yaw);
    float q[CTRL_JOINTS][4];
    for (int b = 0; b < CTRL_JOINTS; b++) {
        quat_axis_angle(1.0f + (float)b, 2.0f - 0.3f * (float)b, 3.0f, 0.8f - 0.05f * (float)b, q[b]);
        set_rot6(c, b, q[b], b % 2 ? 3.0f : 1.0f, b % 2 ? 0.7f : 0.0f);
    }
    ctrl_net_pose(c);
    float worst = 0.0f;
    for (int b = 0; b < CTRL_JOINTS; b++) {
        int par = fx.skel.joint_parent[b];
        float want[4], inv[4], qy[4];
        if (par < 0) {
            quat_axis_angle(0.0f, 1.0f, 0.0f, yaw, qy);
            pose_quat_mul(qy, q[b], want);
        } else {
            ctrl_quat_conj(q[par], inv);
            pose_quat_mul(inv, q[b], want);
        }
        worst = fmaxf(worst, quat_angle(c->pose.rot[b], want));
    }
    CHECKF(worst < 1e-5f, "local rotations up to %.2e rad from the expected", (double)worst);
    /* Bone lengths: the skeleton's, however the joints turn. */
    worst = 0.0f;
    for (int b = 0; b < CTRL_JOINTS; b++) {
        int par = fx.skel.joint_parent[b];
        if (par < 0)
            continue;
        const float *o = fx.skel.joint_offset[b];
        float len = sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
        float d = sqrtf(powf(c->joint_pos[b][0] - c->joint_pos[par][0], 2.0f) +
                        powf(c->joint_pos[b][1] - c->joint_pos[par][1], 2.0f) +
                        powf(c->joint_pos[b][2] - c->joint_pos[par][2], 2.0f));
        worst = fmaxf(worst, fabsf(d - len));
    }
    CHECKF(worst < TOL, "bone lengths up to %.4f cm from the skeleton's", (double)worst);
    /* A degenerate pair (no first column, or two parallel ones): no turn. */
    c = reset_facing(30.0f, -20.0f, yaw);
    const float none[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    for (int b = 0; b < CTRL_JOINTS; b++)
        set_rot6(c, b, none, 1.0f, 0.0f);
    int spine = fx.skel.joint_parent[fx.ctrl->j.head];
    set_rot6(c, spine, q[spine], 0.0f, 0.0f);
    set_rot6(c, c->j.head, q[c->j.head], 1.0f, 0.0f);
    memcpy(&c->y[OY_JROT + 6 * c->j.head + 3], &c->y[OY_JROT + 6 * c->j.head], sizeof(float) * 3);
    ctrl_net_pose(c);
    CHECK(quat_angle(c->pose.rot[spine], none) < 1e-5f);
    CHECK(quat_angle(c->pose.rot[c->j.head], none) < 1e-5f);
}

/* ---- output: pops ---------------------------------------------------------------- */

/* ctrl_net.c's pops: a joint's turn departing from the last step's by
 * more than 8 degrees hands the excess to an offset that a critically
 * damped spring of half-life 0.1 s takes away. */
#define POP_DEV_RAD 0.1396f
#define POP_HALFLIFE_S 0.1f

/* The left shin's rotation in the output: DEG degrees about x after 40
 * about y; runs the step and returns how far (rad) what is shown is from
 * SHOWN_DEG degrees about x after the same 40 about y. */
static float shin_step(float deg, float shown_deg)
{
    ctrl_t *c = fx.ctrl;
    const float rad = CTRL_PI / 180.0f;
    float tilt[4], base[4], q[4], want[4];
    quat_axis_angle(0.0f, 1.0f, 0.0f, 40.0f * rad, base);
    quat_axis_angle(1.0f, 0.0f, 0.0f, deg * rad, tilt);
    pose_quat_mul(tilt, base, q);
    set_rot6(c, c->j.shin[0], q, 1.0f, 0.0f);
    ctrl_net_pose(c);
    quat_axis_angle(1.0f, 0.0f, 0.0f, shown_deg * rad, tilt);
    pose_quat_mul(tilt, base, want);
    return quat_angle(c->pose.rot[c->j.shin[0]], want);
}

static void test_pose_pop(void)
{
    /* The left shin turning about x: still, then 5 degrees in a step, then
     * on at 5 a step: shown as it is. */
    ctrl_t *c = reset_facing(0.0f, 0.0f, 0.0f);
    const float none[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    for (int b = 0; b < CTRL_JOINTS; b++)
        set_rot6(c, b, none, 1.0f, 0.0f);
    CHECK(shin_step(0.0f, 0.0f) < 1e-5f);
    CHECK(shin_step(5.0f, 5.0f) < 1e-5f);
    CHECK(shin_step(10.0f, 10.0f) < 1e-5f);
    /* Then 30 degrees more than turning on would have made (45, not 15):
     * 8 degrees of it shown, the rest handed to an offset that the spring
     * takes away, x(t) = x0 (1 + y t) e^(-y t), y = 2 ln 2 / half-life. */
    const float pop = 30.0f - POP_DEV_RAD * 180.0f / CTRL_PI;
    const float y = 2.0f * logf(2.0f) / POP_HALFLIFE_S, dt = 1.0f / CTRL_NET_FPS;
    float left = pop * (1.0f + y * dt) * expf(-y * dt);
    float off = shin_step(45.0f, 45.0f - left);
    CHECKF(off < 1e-5f, "after the pop: %.2e rad from the expected", (double)off);
    /* Turning on from there as the network did less the pop (13 degrees a
     * step): no new pop, the offset going on down. */
    left = pop * (1.0f + 2.0f * y * dt) * expf(-2.0f * y * dt);
    off = shin_step(45.0f + 35.0f - pop, 45.0f + 35.0f - pop - left);
    CHECKF(off < 1e-5f, "the step after: %.2e rad from the expected", (double)off);
}

static bool make_level(void)
{
    if (!ctrl_fixture_parse_level(&fx, level_text, "ctrl-net-test.lvl"))
        return false;
    ctrl_fixture_fill_heights(&fx.level.terrain, plane);
    return true;
}

static const ctrl_fixture_group_t GROUPS[] = {
    {"input_traj", test_input_traj},
    {"input_heights", test_input_heights},
    {"input_joints", test_input_joints},
    {"posture", test_posture},
    {"speed", test_speed},
    {"pose_joints", test_pose_joints},
    {"pose_rotations", test_pose_rotations},
    {"pose_pop", test_pose_pop},
};

int main(int argc, char **argv)
{
    return ctrl_fixture_main(argc, argv, "test_ctrl_net", &fx, make_level, NULL, GROUPS,
                             (int)(sizeof GROUPS / sizeof GROUPS[0]));
}
