/* Unit tests for ctrl_foot_place (src/ctrl/ctrl_foot_place.c: where a foot
 * goes in a step), calling ctrl_foot_place() on an animated pose and foot
 * state set by hand: the free foot (the animation, the stride warp and the
 * hand-over's offsets, at the ankle or hanging from the toe); a foot on its
 * heel lock, on heel and toe (turned about the ankle onto the toe's), hung
 * from its toe's; the ground clearance (by speed, by the path since the
 * foot let go, a heel lifted about a held toe and the 45-degree cap of that
 * turn); a step's arc; a foot pushed off a ledge a step above the root, not
 * off an 18 cm step (lifted onto it), and the push easing away by its
 * spring; a foot out of a wall; the ground's lift easing away by its spring;
 * a foot carried sideways into the step's 18 cm rise held back the way it
 * came, rising at most CTRL_FOOT_RISE_MAX_CM a step onto it.
 * It includes ctrl_foot_internal.h, the foot files' own header.
 * Usage: test_ctrl_foot_place TEST --net PATH
 * TEST: free locks clear arc ledge walls ease_lift bank. PATH: any network with
 * the shipped layout (the tiny fixture: nothing here runs it). Runs from
 * the repository root (the skeleton is read from assets/).
 *
 * The level: 121 x 121 samples 20 cm apart (x and z from -1200 to 1200 cm),
 * flat at height 0, with
 *   box   x, z in [200, 400]                   raised to 60 cm (a ledge)
 *   step  x in [-600, -400], z in [200, 400]   raised to 18 cm (a step)
 * and walls of radius 15 from (600, -600) to (600, -200) and from (-600,
 * -600) to (-200, -600).
 */
#include "ctrl/ctrl.h"
#include "ctrl/ctrl_foot.h"
#include "ctrl/ctrl_foot_internal.h"
#include "ctrl/ctrl_world.h"

#include "check.h"
#include "ctrl_fixture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DT (1.0f / 60.0f)
/* Float rounding of the geometry below (cm). */
#define TOL 1e-3f
/* Knees bent by this much (rad). */
#define BEND 0.5f

static const char level_text[] = "strider-level 1\n"
                                 "name ctrl-foot-place-test\n"
                                 "flat 121 121 cell 20 height 0\n"
                                 "spawn 0 0 0\n"
                                 "wall 600 -600 600 -200 15\n"
                                 "wall -600 -600 -200 -600 15\n";

static ctrl_fixture_t fx;

static bool make_level(void)
{
    if (!ctrl_fixture_parse_level(&fx, level_text, "ctrl-foot-place-test.lvl"))
        return false;
    terrain_t *t = &fx.level.terrain;
    if (!ctrl_fixture_layout_ok(t))
        return false;
    ctrl_fixture_set_heights(t, 200.0f, 200.0f, 400.0f, 400.0f, 60.0f);
    ctrl_fixture_set_heights(t, -600.0f, 200.0f, -400.0f, 400.0f, 18.0f);
    return true;
}

static void quat_x(float a, float out[4])
{
    out[0] = sinf(0.5f * a);
    out[1] = out[2] = 0.0f;
    out[3] = cosf(0.5f * a);
}

/* The controller's root at (RX, RZ); the animated pose: the hip over (X, Z)
 * facing +z, the knees bent by BEND, the feet turned TOE_UP (rad) from
 * standing flat, the left ankle ANKLE_Y high; the foot state reset to it
 * (nothing held, no offsets). */
static ctrl_t *pose_at(float rx, float rz, float x, float z, float ankle_y, float toe_up)
{
    ctrl_t *c = fx.ctrl;
    ctrl_spawn_t s = {rx, rz, 0.0f};
    ctrl_reset(c, &fx.level, &s);
    c->pose = c->rest;
    quat_yaw(0.0f, c->pose.rot[c->j.hip]);
    for (int side = 0; side < 2; side++) {
        quat_x(-BEND, c->pose.rot[c->j.thigh[side]]);
        quat_x(2.0f * BEND, c->pose.rot[c->j.shin[side]]);
        quat_x(-BEND - toe_up, c->pose.rot[c->j.foot[side]]);
    }
    c->pose.trans[c->j.hip][0] = x;
    c->pose.trans[c->j.hip][1] = 0.0f;
    c->pose.trans[c->j.hip][2] = z;
    ctrl_update_model(c);
    c->pose.trans[c->j.hip][1] = ankle_y - c->joint_pos[c->j.foot[0]][1];
    ctrl_update_model(c);
    ctrl_foot_reset(c);
    return c;
}

static float spring_at(float x0, float v0, float h, float t)
{
    float y = 2.0f * logf(2.0f) / h;
    return (x0 + (v0 + y * x0) * t) * expf(-y * t);
}

static float dist3(const float a[3], const float b[3])
{
    return sqrtf((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* Angle (rad) of the rotation from P to Q. */
static float quat_angle(const float p[4], const float q[4])
{
    float inv[4], r[4];
    ctrl_quat_conj(p, inv);
    pose_quat_mul(inv, q, r);
    return 2.0f * atan2f(sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), fabsf(r[3]));
}

static float foot_length(const ctrl_t *c, int side)
{
    const float *o = fx.skel.end_offset[c->j.toe_end[side]];
    return sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
}

/* Where the foot of SIDE is, above its sole height, at its lowest point
 * (heel or toe), over the ground. */
static float lowest(const ctrl_t *c, int side, const float a[3], const float r[4])
{
    float toe[3];
    toe_of(c, side, a, r, toe);
    return fminf(a[1] - ctrl_ground(c, a[0], a[2]) - CTRL_HEEL_SOLE_CM,
                 toe[1] - ctrl_ground(c, toe[0], toe[2]) - CTRL_TOE_SOLE_CM);
}

/* ---- the free foot -------------------------------------------------------------- */

static void test_free(void)
{
    for (int side = 0; side < 2; side++)
        for (int anchor = 0; anchor < 2; anchor++) {
            /* Up in the air: nothing lifts it. */
            ctrl_t *c = pose_at(0.0f, 0.0f, 0.0f, 0.0f, 30.0f, 0.1f);
            ctrl_foot_state_t *f = &c->foot;
            const int foot = c->j.foot[side];
            float anim_a[3], anim_r[4], anim_t[3];
            memcpy(anim_a, c->joint_pos[foot], sizeof anim_a);
            memcpy(anim_r, c->model_rot[foot], sizeof anim_r);
            toe_of(c, side, anim_a, anim_r, anim_t);
            f->warp[side][0] = 3.0f;
            f->warp[side][1] = -2.0f;
            const float ioff[3] = {1.0f, 2.0f, -4.0f}, iroff[3] = {0.1f, 0.2f, -0.05f};
            memcpy(f->ioff[side], ioff, sizeof ioff);
            memcpy(f->iroff[side], iroff, sizeof iroff);
            f->anchor_toe[side] = anchor;
            const float move[3] = {3.0f + 1.0f, 2.0f, -2.0f - 4.0f};
            float a[3], r[4], want_r[4], q[4], toe[3];
            ctrl_foot_place(c, side, a, r, DT);
            /* The turn: the offset's rotation after the animation's. */
            ctrl_rotvec_to_quat(iroff, q);
            pose_quat_mul(q, anim_r, want_r);
            CHECKF(quat_angle(r, want_r) < 1e-4f, "side %d anchor %d: turned %.5f rad off", side, anchor,
                   (double)quat_angle(r, want_r));
            toe_of(c, side, a, r, toe);
            /* The offset's point moved by warp and offset, the other hangs
             * from it by the foot's turn. */
            const float *moved = anchor ? toe : a, *from = anchor ? anim_t : anim_a;
            for (int k = 0; k < 3; k++)
                CHECK_NEAR(moved[k], from[k] + move[k], TOL);
            CHECK_NEAR(dist3(a, toe), foot_length(c, side), TOL);
            float shifted[3] = {anim_a[0] + move[0], anim_a[1] + move[1], anim_a[2] + move[2]};
            if (anchor)
                CHECKF(dist3(a, shifted) > 1.0f, "side %d: hung from the toe, the ankle moved as the toe did", side);
        }
}

/* ---- held on locks -------------------------------------------------------------- */

static void test_locks(void)
{
    for (int side = 0; side < 2; side++) {
        const int kh = 2 * side, kt = 2 * side + 1, foot = fx.ctrl->j.foot[side];
        /* Heel held: the ankle on its lock, the foot turned as it is free. */
        ctrl_t *c = pose_at(0.0f, 0.0f, 0.0f, 0.0f, 4.5f, 0.0f);
        ctrl_foot_state_t *f = &c->foot;
        float a[3], r[4], toe[3];
        const float *anim_a = c->joint_pos[foot];
        const float heel_lock[3] = {anim_a[0] + 2.0f, anim_a[1], anim_a[2] + 3.0f};
        f->on[kh] = true;
        memcpy(f->lock[kh], heel_lock, sizeof heel_lock);
        /* (Shown there: not moving, no swing clearance for the toe.) */
        memcpy(f->shown[kh], heel_lock, sizeof heel_lock);
        toe_of(c, side, heel_lock, c->model_rot[foot], f->shown[kt]);
        ctrl_foot_place(c, side, a, r, DT);
        for (int k = 0; k < 3; k++)
            CHECK_NEAR(a[k], heel_lock[k], TOL);
        CHECK(quat_angle(r, c->model_rot[foot]) < 1e-5f);
        /* And the toe: the foot turned about the ankle towards the toe's
         * lock; the lock is where the foot then puts the toe. */
        const float toe_lock[3] = {heel_lock[0] + 3.0f, heel_lock[1] - 3.0f, heel_lock[2] + 11.5f};
        f->on[kt] = true;
        memcpy(f->lock[kt], toe_lock, sizeof toe_lock);
        ctrl_foot_place(c, side, a, r, DT);
        toe_of(c, side, a, r, toe);
        for (int k = 0; k < 3; k++) {
            CHECK_NEAR(a[k], heel_lock[k], TOL);
            CHECK_NEAR(f->lock[kt][k], toe[k], TOL);
            float dir = (toe_lock[k] - heel_lock[k]) / dist3(toe_lock, heel_lock);
            CHECK_NEAR(toe[k], heel_lock[k] + dir * foot_length(c, side), 1e-2f);
        }
        /* Toe only: the foot hangs from it, turned as it is free. */
        c = pose_at(0.0f, 0.0f, 0.0f, 0.0f, 4.5f, 0.0f);
        float anim_t[3];
        toe_of(c, side, c->joint_pos[foot], c->model_rot[foot], anim_t);
        const float toe_only[3] = {anim_t[0] + 1.0f, CTRL_TOE_SOLE_CM, anim_t[2] + 2.0f};
        f->on[kt] = true;
        memcpy(f->lock[kt], toe_only, sizeof toe_only);
        /* (Shown there: not moving, no swing clearance for the heel.) */
        for (int k = 0; k < 3; k++)
            f->shown[kh][k] = c->joint_pos[foot][k] + toe_only[k] - anim_t[k];
        ctrl_foot_place(c, side, a, r, DT);
        toe_of(c, side, a, r, toe);
        for (int k = 0; k < 3; k++)
            CHECK_NEAR(toe[k], toe_only[k], TOL);
        CHECK(quat_angle(r, c->model_rot[foot]) < 1e-5f);
        /* Held: no ledge push kept. */
        CHECK(f->ledge_push[side][0] == 0.0f && f->ledge_push[side][1] == 0.0f);
    }
}

/* ---- ground clearance ------------------------------------------------------------- */

/* A free flat foot the animation has 2 cm into the ground, moving SPEED
 * (cm/s) with PATH cm covered since it let go: its lowest point this far
 * above its sole height. */
static float cleared(int side, float speed, float path)
{
    ctrl_t *c = pose_at(0.0f, 0.0f, 0.0f, 0.0f, 2.0f, 0.0f);
    ctrl_foot_state_t *f = &c->foot;
    for (int k = 2 * side; k < 2 * side + 2; k++) {
        f->speed[k] = speed;
        f->free_path[k] = path;
    }
    float a[3], r[4];
    ctrl_foot_place(c, side, a, r, DT);
    return lowest(c, side, a, r);
}

static void test_clear(void)
{
    for (int side = 0; side < 2; side++) {
        /* Covered ground: the clearance follows the speed, from none at
         * 20 cm/s to 1.5 cm from 60. */
        CHECK_NEAR(cleared(side, 0.0f, 100.0f), 0.0f, TOL);
        CHECK_NEAR(cleared(side, 20.0f, 100.0f), 0.0f, TOL);
        CHECK_NEAR(cleared(side, 40.0f, 100.0f), 0.75f, TOL);
        CHECK_NEAR(cleared(side, 60.0f, 100.0f), 1.5f, TOL);
        CHECK_NEAR(cleared(side, 200.0f, 100.0f), 1.5f, TOL);
        /* Just let go, however slowly: twice the path, at most 1.5 cm,
         * then over as much path again following the speed. */
        CHECK_NEAR(cleared(side, 0.0f, 0.0f), 0.0f, TOL);
        CHECK_NEAR(cleared(side, 0.0f, 0.5f), 1.0f, TOL);
        CHECK_NEAR(cleared(side, 0.0f, 2.0f), 1.5f, TOL);
        CHECK_NEAR(cleared(side, 0.0f, 4.5f), 0.75f, TOL);

        /* A held toe, the heel shown below the ground: the heel rises
         * about the toe onto the ground, the toe stays. Turned too far
         * (more than 45 degrees), the turn stops there and the whole foot
         * is lifted. */
        const float toe_up[] = {0.4f, 1.2f};
        for (int i = 0; i < 2; i++) {
            ctrl_t *c = pose_at(0.0f, 0.0f, 0.0f, 0.0f, 4.5f, toe_up[i]);
            ctrl_foot_state_t *f = &c->foot;
            const int foot = c->j.foot[side], kh = 2 * side, kt = kh + 1;
            float anim_t[3], r0[4], a[3], r[4], toe[3];
            memcpy(r0, c->model_rot[foot], sizeof r0);
            toe_of(c, side, c->joint_pos[foot], r0, anim_t);
            f->on[kt] = true;
            const float lock[3] = {anim_t[0], CTRL_TOE_SOLE_CM, anim_t[2]};
            memcpy(f->lock[kt], lock, sizeof lock);
            for (int k = 0; k < 3; k++)
                f->shown[kh][k] = c->joint_pos[foot][k] + lock[k] - anim_t[k];
            CHECKF(f->shown[kh][1] < 0.0f, "toe up %.1f: the heel at %.2f cm", (double)toe_up[i],
                   (double)f->shown[kh][1]);
            ctrl_foot_place(c, side, a, r, DT);
            toe_of(c, side, a, r, toe);
            CHECK_NEAR(a[1], CTRL_HEEL_SOLE_CM, TOL);
            CHECK_NEAR(dist3(a, toe), foot_length(c, side), TOL);
            if (i == 0) {
                for (int k = 0; k < 3; k++)
                    CHECK_NEAR(toe[k], lock[k], TOL);
            } else {
                CHECK_NEAR(quat_angle(r0, r), CTRL_CLEAR_TURN_MAX_DEG * CTRL_PI / 180.0f, 1e-3f);
                CHECKF(toe[1] > lock[1] + 1.0f, "capped: the toe at %.2f, not lifted with the foot", (double)toe[1]);
            }
        }
    }
}

/* ---- a step's arc --------------------------------------------------------------- */

typedef struct arc_case_t {
    float span, left; /* cm the offset had to go when the foot let go, and has left */
    float lift;       /* its lowest point above the ground, cm */
} arc_case_t;

static void test_arc(void)
{
    /* Peak min(4, 1.5 + 0.4 span) half-way, 4 p (1 - p) of it at p. */
    const arc_case_t cases[] = {
        {10.0f, 5.0f, 4.0f}, {10.0f, 2.5f, 3.0f},  {10.0f, 7.5f, 3.0f}, {10.0f, 10.0f, 0.0f}, {10.0f, 0.0f, 0.0f},
        {2.0f, 1.0f, 2.3f},  {20.0f, 10.0f, 4.0f}, {0.4f, 0.2f, 0.0f},  {10.0f, 12.0f, 0.0f},
    };
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            ctrl_t *c = pose_at(0.0f, 0.0f, 0.0f, 0.0f, CTRL_HEEL_SOLE_CM, 0.0f);
            ctrl_foot_state_t *f = &c->foot;
            f->span[side] = cases[i].span;
            /* The offset along (0.6, 0.8), the points shown where it puts
             * them (not moving: no swing clearance). */
            f->ioff[side][0] = 0.6f * cases[i].left;
            f->ioff[side][2] = 0.8f * cases[i].left;
            for (int k = 2 * side; k < 2 * side + 2; k++) {
                f->shown[k][0] += f->ioff[side][0];
                f->shown[k][2] += f->ioff[side][2];
            }
            float a[3], r[4];
            ctrl_foot_place(c, side, a, r, DT);
            CHECKF(fabsf(lowest(c, side, a, r) - cases[i].lift) <= TOL, "side %d case %zu: %.4f cm up, want %.4f", side,
                   i, (double)lowest(c, side, a, r), (double)cases[i].lift);
            /* Held, no arc. */
            f->on[2 * side] = true;
            memcpy(f->lock[2 * side], a, sizeof a);
            f->lock[2 * side][1] = CTRL_HEEL_SOLE_CM;
            ctrl_foot_place(c, side, a, r, DT);
            CHECK_NEAR(a[1], CTRL_HEEL_SOLE_CM, TOL);
        }
}

/* ---- ledges and steps ---------------------------------------------------------- */

/* Point P (sole SOLE) is below the top of ground more than a step above the
 * root's (at 0). */
static bool inside_ledge(const ctrl_t *c, const float p[3], float sole)
{
    float g = ctrl_ground(c, p[0], p[2]);
    return p[1] - sole < g - TOL && g > CTRL_STEP_MAX_CM;
}

static void test_ledge(void)
{
    for (int side = 0; side < 2; side++) {
        /* The animation has the foot 30 cm inside the 60 cm box, the root
         * 100 cm off it: the foot is pushed towards the root until heel
         * and toe are out, no further. */
        ctrl_t *c = pose_at(300.0f, 100.0f, 300.0f, 230.0f, 4.5f, 0.0f);
        const int foot = c->j.foot[side];
        float anim_a[3], a[3], r[4], toe[3], anim_t[3];
        memcpy(anim_a, c->joint_pos[foot], sizeof anim_a);
        toe_of(c, side, anim_a, c->model_rot[foot], anim_t);
        CHECK(inside_ledge(c, anim_a, CTRL_HEEL_SOLE_CM) && inside_ledge(c, anim_t, CTRL_TOE_SOLE_CM));
        ctrl_foot_place(c, side, a, r, DT);
        toe_of(c, side, a, r, toe);
        CHECKF(!inside_ledge(c, a, CTRL_HEEL_SOLE_CM) && !inside_ledge(c, toe, CTRL_TOE_SOLE_CM),
               "side %d: the foot still in the box (heel z %.2f, toe z %.2f)", side, (double)a[2], (double)toe[2]);
        /* Towards the root: along the line from the animated ankle. */
        float dx = a[0] - anim_a[0], dz = a[2] - anim_a[2], tx = 300.0f - anim_a[0], tz = 100.0f - anim_a[2];
        CHECKF(fabsf(dx * tz - dz * tx) < 0.01f * hypotf(tx, tz) && dx * tx + dz * tz > 0.0f,
               "side %d: pushed (%.2f, %.2f), the root lies (%.2f, %.2f)", side, (double)dx, (double)dz, (double)tx,
               (double)tz);
        /* The toe (ahead) is the last out: on the box's side, where the
         * ground is a step (32 cm) above the root's; 1 cm back towards the
         * box, it is more. */
        float ty = CTRL_STEP_MAX_CM, len = hypotf(dx, dz);
        CHECK(ctrl_ground(c, toe[0], toe[2]) <= ty + TOL);
        CHECKF(ctrl_ground(c, toe[0] - dx / len, toe[2] - dz / len) > ty,
               "side %d: pushed %.2f cm, more than a cm too far", side, (double)len);
        /* The push kept, then eased away by its spring once the animation
         * is clear of the box. */
        ctrl_foot_state_t *f = &c->foot;
        CHECK_NEAR(f->ledge_push[side][1], dz, TOL);
        c = pose_at(300.0f, 100.0f, 300.0f, 0.0f, 4.5f, 0.0f);
        f->ledge_push[side][1] = -50.0f;
        for (int n = 1; n <= 20; n++) {
            memcpy(anim_a, c->joint_pos[foot], sizeof anim_a);
            ctrl_foot_place(c, side, a, r, DT);
            float want = spring_at(-50.0f, 0.0f, CTRL_LEDGE_PUSH_HALFLIFE_S, (float)n * DT);
            CHECKF(fabsf(a[2] - anim_a[2] - want) < 0.01f && fabsf(a[0] - anim_a[0]) < TOL,
                   "side %d, %d steps on: pushed %.3f cm, the spring %.3f", side, n, (double)(a[2] - anim_a[2]),
                   (double)want);
        }
        /* An 18 cm step is stepped onto, not pushed off. */
        c = pose_at(-500.0f, 100.0f, -500.0f, 300.0f, 4.5f, 0.0f);
        memcpy(anim_a, c->joint_pos[foot], sizeof anim_a);
        ctrl_foot_place(c, side, a, r, DT);
        CHECK_NEAR(a[0], anim_a[0], TOL);
        CHECK_NEAR(a[2], anim_a[2], TOL);
        CHECK_NEAR(lowest(c, side, a, r), 0.0f, TOL);
        CHECK(a[1] >= 18.0f + CTRL_HEEL_SOLE_CM - TOL);
    }
}

/* ---- walls -------------------------------------------------------------------- */

/* The foot of SIDE, the hip over (X, Z), placed out of the wall: clear of
 * it, heel and toe, moved only along (NX, NZ) (towards the root's side) by
 * the depth its deeper point had. */
static void check_out_of_wall(int side, float rx, float rz, float x, float z, float nx, float nz)
{
    ctrl_t *c = pose_at(rx, rz, x, z, 4.5f, 0.0f);
    const int foot = c->j.foot[side];
    float anim_a[3], anim_t[3], a[3], r[4], toe[3], ax, az;
    memcpy(anim_a, c->joint_pos[foot], sizeof anim_a);
    toe_of(c, side, anim_a, c->model_rot[foot], anim_t);
    float depth = fmaxf(ctrl_wall_depth(c, anim_a, &ax, &az), ctrl_wall_depth(c, anim_t, &ax, &az));
    CHECKF(depth > 5.0f, "side %d: the foot only %.2f cm into the wall", side, (double)depth);
    ctrl_foot_place(c, side, a, r, DT);
    toe_of(c, side, a, r, toe);
    CHECK_NEAR(ctrl_wall_depth(c, a, &ax, &az), 0.0f, 1e-2f);
    CHECK_NEAR(ctrl_wall_depth(c, toe, &ax, &az), 0.0f, 1e-2f);
    CHECK_NEAR(a[0] - anim_a[0], nx * depth, 1e-2f);
    CHECK_NEAR(a[2] - anim_a[2], nz * depth, 1e-2f);
}

static void test_walls(void)
{
    for (int side = 0; side < 2; side++) {
        /* Into the wall along z from the side (x 585..615), the root at x
         * 400: out on the root's side (-x), even the right foot whose
         * ankle is past the wall's middle line. */
        check_out_of_wall(side, 400.0f, -400.0f, side == 0 ? 590.0f : 620.0f, -400.0f, -1.0f, 0.0f);
        /* Into the wall along x, the root north of it: out northwards. */
        check_out_of_wall(side, -400.0f, -400.0f, -400.0f, -598.0f, 0.0f, 1.0f);
    }
}

/* ---- the ground's lift easing away ----------------------------------------------- */

static void test_ease_lift(void)
{
    for (int side = 0; side < 2; side++) {
        /* The animation has the foot 4.5 cm up over the 18 cm step: lifted
         * onto it at once and held there. */
        ctrl_t *c = pose_at(-300.0f, 300.0f, -500.0f, 300.0f, 4.5f, 0.0f);
        ctrl_foot_state_t *f = &c->foot;
        const int foot = c->j.foot[side];
        float a[3], r[4], peak = 0.0f;
        for (int n = 0; n < 30; n++) {
            ctrl_foot_place(c, side, a, r, DT);
            CHECKF(lowest(c, side, a, r) >= -TOL, "side %d step %d: %.3f cm into the step", side, n,
                   (double)lowest(c, side, a, r));
            peak = fmaxf(peak, lowest(c, side, a, r));
        }
        CHECK_NEAR(lowest(c, side, a, r), 0.0f, TOL);
        CHECK_NEAR(f->ground_lift[side], a[1] - c->joint_pos[foot][1], TOL);
        /* Off the step (the animation 200 cm on, flat ground): the lift
         * eases away by its spring from where it was, not at once. */
        float lift = f->ground_lift[side], vel = f->ground_lift_vel[side];
        c->pose.trans[c->j.hip][0] += 200.0f;
        ctrl_update_model(c);
        /* (Shown there: not moving, no swing clearance.) */
        for (int k = 0; k < CTRL_CONTACTS; k++)
            f->shown[k][0] += 200.0f;
        for (int n = 1; n <= 30; n++) {
            ctrl_foot_place(c, side, a, r, DT);
            float want = spring_at(lift, vel, CTRL_LIFT_EASE_HALFLIFE_S, (float)n * DT);
            float got = a[1] - c->joint_pos[foot][1];
            CHECKF(fabsf(got - want) < 0.01f, "side %d, %d steps off the step: lifted %.3f cm, the spring %.3f", side,
                   n, (double)got, (double)want);
        }
        /* Over the step the foot is never into it and ends on it; how high
         * it rises there first is checked only loosely (a lift grown at once
         * leaves its spring moving: it rose a further 2.4 cm in the next
         * steps). */
        CHECKF(peak < 3.0f, "side %d: held up to %.3f cm over the step", side, (double)peak);
    }
}

/* ---- a bank: ground rising faster than a foot may rise ----------------------------- */

static void test_bank(void)
{
    for (int side = 0; side < 2; side++) {
        /* Shown last step 30 cm to the -x side of the animation, on flat
         * ground; the animation carries the foot at the same height 10 cm
         * past the step's rise (x -620 to -600: 18 cm over 20 cm). */
        ctrl_t *c = pose_at(-700.0f, 300.0f, -590.0f - (side == 0 ? 10.0f : -10.0f), 300.0f, 4.5f, 0.0f);
        ctrl_foot_state_t *f = &c->foot;
        const int foot = c->j.foot[side], kh = 2 * side, kt = kh + 1;
        float anim_a[3], anim_t[3], a[3], r[4], toe[3];
        memcpy(anim_a, c->joint_pos[foot], sizeof anim_a);
        toe_of(c, side, anim_a, c->model_rot[foot], anim_t);
        CHECKF(anim_a[0] > -600.0f && anim_a[0] < -580.0f, "side %d: the ankle at x %.2f", side, (double)anim_a[0]);
        for (int k = 0; k < 3; k++) {
            f->shown[kh][k] = anim_a[k] - (k == 0 ? 30.0f : 0.0f);
            f->shown[kt][k] = anim_t[k] - (k == 0 ? 30.0f : 0.0f);
        }
        float rose = 0.0f, was_y = f->shown[kh][1];
        int n = 0;
        for (; n < 60; n++) {
            ctrl_foot_place(c, side, a, r, DT);
            toe_of(c, side, a, r, toe);
            /* Never into the ground, never higher in a step than the limit
             * and the swing clearance allow, never past where it came from
             * or off the way it came. */
            CHECKF(lowest(c, side, a, r) >= -TOL, "side %d step %d: %.3f cm into the ground", side, n,
                   (double)lowest(c, side, a, r));
            rose = fmaxf(rose, a[1] - was_y);
            CHECKF(a[0] >= f->shown[kh][0] - TOL && a[0] <= anim_a[0] + TOL && fabsf(a[2] - anim_a[2]) < TOL,
                   "side %d step %d: the ankle at (%.2f, %.2f), came from x %.2f to x %.2f", side, n, (double)a[0],
                   (double)a[2], (double)f->shown[kh][0], (double)anim_a[0]);
            was_y = a[1];
            /* Shown there (the solve leaves a free foot where it is put). */
            memcpy(f->shown[kh], a, sizeof a);
            memcpy(f->shown[kt], toe, sizeof toe);
            if (fabsf(a[0] - anim_a[0]) < 0.5f)
                break;
        }
        CHECKF(rose <= CTRL_FOOT_RISE_MAX_CM + CTRL_SWING_CLEARANCE_CM + TOL,
               "side %d: rose %.2f cm in a step (at most %.1f and the clearance)", side, (double)rose,
               (double)CTRL_FOOT_RISE_MAX_CM);
        /* It arrives on the step's top (the rise climbed in six steps, the
         * hold then easing away by its spring: 25 cm to 0.5 in about six
         * of its half-lives). */
        CHECKF(n >= 6 && n < 60, "side %d: arrived after %d steps", side, n);
        CHECK(a[1] >= 18.0f + CTRL_HEEL_SOLE_CM - TOL);
        /* Flat ground, carried the same way: not held. */
        c = pose_at(-700.0f, -300.0f, -590.0f - (side == 0 ? 10.0f : -10.0f), -300.0f, 4.5f, 0.0f);
        memcpy(anim_a, c->joint_pos[foot], sizeof anim_a);
        toe_of(c, side, anim_a, c->model_rot[foot], anim_t);
        for (int k = 0; k < 3; k++) {
            c->foot.shown[kh][k] = anim_a[k] - (k == 0 ? 30.0f : 0.0f);
            c->foot.shown[kt][k] = anim_t[k] - (k == 0 ? 30.0f : 0.0f);
        }
        ctrl_foot_place(c, side, a, r, DT);
        CHECK_NEAR(a[0], anim_a[0], TOL);
        CHECK_NEAR(a[2], anim_a[2], TOL);
    }
}

/* ---- main ------------------------------------------------------------------------ */

static const ctrl_fixture_group_t groups[] = {
    {"free", test_free},   {"locks", test_locks}, {"clear", test_clear},         {"arc", test_arc},
    {"ledge", test_ledge}, {"walls", test_walls}, {"ease_lift", test_ease_lift}, {"bank", test_bank},
};

int main(int argc, char **argv)
{
    return ctrl_fixture_main(argc, argv, "test_ctrl_foot_place", &fx, make_level, NULL, groups,
                             (int)(sizeof groups / sizeof groups[0]));
}
