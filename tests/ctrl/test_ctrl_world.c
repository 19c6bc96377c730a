/* Unit tests for ctrl_world (src/ctrl/ctrl_world.h): the ground under a
 * point, ledges, the collision of a point with walls, ledges, other
 * characters and the level's edges, a point's depth in a wall, low ceilings
 * and the root's support height; over a gap, the floor under the feet, the
 * height held and let go, and the carry to ground ahead or back; the whole
 * body kept out of walls; the ceiling near and the body lowered under it;
 * on a level made in memory whose shapes give the expected values exactly.
 * Usage: test_ctrl_world TEST --net PATH
 * TEST: ground ledges collide wall_depth ceiling support gap_floor gap_hold
 * gap_carry keep_out ceiling_near fit_ceiling. PATH: any network with the
 * shipped layout (the tiny fixture: nothing here runs it). Runs from the
 * repository root (the skeleton is read from assets/).
 *
 * The level: 121 x 121 samples 20 cm apart (x and z from -1200 to 1200 cm),
 * flat at height 0, shaped by writing the terrain's samples:
 *   box     x, z in [200, 400]      raised to 60 cm (a ledge all round)
 *   step    x in [-600, -400], z in [200, 400]   raised to 18 cm (a step)
 *   trench  x, z in [-600, -400]    lowered to -60 cm
 *   block30 x in [-1000, -900], z in [-200, -100] raised to 30 cm
 *   block34 x in [-1000, -900], z in [100, 200]   raised to 34 cm
 *   channel x in [-200, 400], z in [-1060, -1000] lowered to -60 cm (a long,
 *           narrow trench)
 * and, from the level text, a wall from (600, -600) to (600, -200) of
 * radius 15, a crouch area with a 110 cm ceiling and one with a 200 cm
 * ceiling. The spawn (and so the root) is at (0, 0).
 */
#include "ctrl/ctrl.h"
#include "ctrl/ctrl_world.h"

#include "check.h"
#include "ctrl_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Float rounding of the geometry below (cm). */
#define TOL 1e-3f

#define WALL_X 600.0f
#define WALL_Z0 -600.0f
#define WALL_Z1 -200.0f
#define WALL_R 15.0f

static const char level_text[] = "strider-level 1\n"
                                 "name ctrl-world-test\n"
                                 "flat 121 121 cell 20 height 0\n"
                                 "spawn 0 0 0\n"
                                 "wall 600 -600 600 -200 15\n"
                                 "crouch -1000 600 -600 1000 110\n"
                                 "crouch 600 600 1000 1000 200\n";

static ctrl_fixture_t fx;

static bool make_level(void)
{
    if (!ctrl_fixture_parse_level(&fx, level_text, "ctrl-world-test.lvl"))
        return false;
    terrain_t *t = &fx.level.terrain;
    if (!ctrl_fixture_layout_ok(t))
        return false;
    ctrl_fixture_set_heights(t, 200.0f, 200.0f, 400.0f, 400.0f, 60.0f);
    ctrl_fixture_set_heights(t, -600.0f, 200.0f, -400.0f, 400.0f, 18.0f);
    ctrl_fixture_set_heights(t, -600.0f, -600.0f, -400.0f, -400.0f, -60.0f);
    ctrl_fixture_set_heights(t, -1000.0f, -200.0f, -900.0f, -100.0f, 30.0f);
    ctrl_fixture_set_heights(t, -1000.0f, 100.0f, -900.0f, 200.0f, 34.0f);
    ctrl_fixture_set_heights(t, -200.0f, -1060.0f, 400.0f, -1000.0f, -60.0f);
    return true;
}

/* The controller on the level, its root at (X, Z); the ledge map is built
 * here, from the heights as they are now. */
static void reset_at(float x, float z)
{
    ctrl_spawn_t s = {x, z, 0.0f};
    ctrl_reset(fx.ctrl, &fx.level, &s);
}

/* Distance (cm) from (x, z) to the wall's centre line. */
static float wall_distance(float x, float z)
{
    float cz = fminf(fmaxf(z, WALL_Z0), WALL_Z1);
    return hypotf(x - WALL_X, z - cz);
}

/* ---- ctrl_ground ------------------------------------------------------------ */

static void test_ground(void)
{
    const ctrl_t *c = fx.ctrl;
    /* Flat ground, and on the shapes' samples. */
    CHECK_NEAR(ctrl_ground(c, 0.0f, 0.0f), 0.0f, 0.0f);
    CHECK_NEAR(ctrl_ground(c, -813.0f, 947.0f), 0.0f, 0.0f);
    CHECK_NEAR(ctrl_ground(c, 300.0f, 300.0f), 60.0f, TOL);
    CHECK_NEAR(ctrl_ground(c, 200.0f, 400.0f), 60.0f, TOL);
    CHECK_NEAR(ctrl_ground(c, 333.0f, 251.0f), 60.0f, TOL);
    CHECK_NEAR(ctrl_ground(c, -500.0f, 300.0f), 18.0f, TOL);
    CHECK_NEAR(ctrl_ground(c, -500.0f, -500.0f), -60.0f, TOL);
    /* x and z are not swapped: the step lies at z = 300, not x = 300. */
    CHECK_NEAR(ctrl_ground(c, 300.0f, -500.0f), 0.0f, TOL);
    /* Between the box's last sample (x = 400, 60) and the next (420, 0): linear. */
    CHECK_NEAR(ctrl_ground(c, 410.0f, 300.0f), 30.0f, TOL);
    CHECK_NEAR(ctrl_ground(c, 405.0f, 300.0f), 45.0f, TOL);
    CHECK_NEAR(ctrl_ground(c, 300.0f, 185.0f), 15.0f, TOL);
    /* Off the corner sample (400, 400) half a cell both ways: bilinear. */
    CHECK_NEAR(ctrl_ground(c, 410.0f, 410.0f), 15.0f, TOL);
    /* Into the trench, a quarter of a cell past its last rim sample (x = -620, 0). */
    CHECK_NEAR(ctrl_ground(c, -615.0f, -500.0f), -15.0f, TOL);
}

/* ---- ctrl_on_ledge ------------------------------------------------------------ */

/* How many points of a 10 cm grid over [x0, x1] x [z0, z1] lie on a ledge. */
static int ledge_points(float x0, float z0, float x1, float z1)
{
    int n = 0;
    for (float z = z0; z <= z1; z += 10.0f)
        for (float x = x0; x <= x1; x += 10.0f)
            n += ctrl_on_ledge(fx.ctrl, x, z);
    return n;
}

static void test_ledges(void)
{
    const ctrl_t *c = fx.ctrl;
    /* Open flat ground. */
    CHECK(!ctrl_on_ledge(c, 0.0f, 0.0f));
    CHECK(!ctrl_on_ledge(c, 800.0f, 0.0f));
    CHECK(!ctrl_on_ledge(c, -200.0f, 900.0f));
    /* The 60 cm box: at its foot and on top near its edge, on every side. */
    CHECK(ctrl_on_ledge(c, 185.0f, 300.0f));
    CHECK(ctrl_on_ledge(c, 215.0f, 300.0f));
    CHECK(ctrl_on_ledge(c, 385.0f, 300.0f));
    CHECK(ctrl_on_ledge(c, 415.0f, 300.0f));
    CHECK(ctrl_on_ledge(c, 300.0f, 185.0f));
    CHECK(ctrl_on_ledge(c, 300.0f, 215.0f));
    CHECK(ctrl_on_ledge(c, 300.0f, 415.0f));
    CHECK(ctrl_on_ledge(c, 190.0f, 190.0f));
    /* ... but not on its middle, nor a metre from it. */
    CHECK(!ctrl_on_ledge(c, 300.0f, 300.0f));
    CHECK(!ctrl_on_ledge(c, 100.0f, 300.0f));
    CHECK(!ctrl_on_ledge(c, 300.0f, 500.0f));
    /* The 18 cm step is walked: no ledge anywhere on or around it. */
    int step_ledges = ledge_points(-700.0f, 100.0f, -300.0f, 500.0f);
    CHECKF(step_ledges == 0, "%d points on or around the 18 cm step are on a ledge", step_ledges);
    /* CTRL_STEP_MAX_CM (32) is the threshold: 30 cm is a step, 34 a ledge. */
    int block30 = ledge_points(-1100.0f, -300.0f, -800.0f, 0.0f);
    CHECKF(block30 == 0, "%d points around the 30 cm block are on a ledge", block30);
    CHECK(ctrl_on_ledge(c, -1015.0f, 150.0f));
    CHECK(ctrl_on_ledge(c, -950.0f, 185.0f));
    /* The trench's sides, from outside and from inside; not its middle. */
    CHECK(ctrl_on_ledge(c, -615.0f, -500.0f));
    CHECK(ctrl_on_ledge(c, -585.0f, -500.0f));
    CHECK(ctrl_on_ledge(c, -500.0f, -385.0f));
    CHECK(!ctrl_on_ledge(c, -500.0f, -500.0f));
    CHECK(!ctrl_on_ledge(c, -500.0f, -700.0f));
    /* Off the level: no ledge. */
    CHECK(!ctrl_on_ledge(c, 5000.0f, 0.0f));
}

/* ---- ctrl_collide_point ---------------------------------------------------- */

typedef struct walk_t {
    float end[2];       /* where the point ended */
    float lo, hi;       /* lowest and highest ground on the way */
    float max_x, max_z; /* furthest it got along +x and +z */
} walk_t;

/* STEPS moves of (DX, DZ) from (X, Z), each through ctrl_collide_point. */
static walk_t walk(float x, float z, float dx, float dz, int steps, bool over_ledges)
{
    float p[2] = {x, z};
    walk_t w = {{x, z}, ctrl_ground(fx.ctrl, x, z), ctrl_ground(fx.ctrl, x, z), x, z};
    for (int k = 0; k < steps; k++) {
        float cand[2] = {p[0] + dx, p[1] + dz};
        ctrl_collide_point(fx.ctrl, p, CTRL_ROOT_RADIUS_CM, over_ledges, cand);
        p[0] = cand[0];
        p[1] = cand[1];
        float g = ctrl_ground(fx.ctrl, p[0], p[1]);
        w.lo = fminf(w.lo, g);
        w.hi = fmaxf(w.hi, g);
        w.max_x = fmaxf(w.max_x, p[0]);
        w.max_z = fmaxf(w.max_z, p[1]);
    }
    w.end[0] = p[0];
    w.end[1] = p[1];
    return w;
}

static void collide_open_ground(void)
{
    for (int over = 0; over < 2; over++) {
        float from[2] = {-200.0f, -200.0f}, cand[2] = {-195.0f, -198.0f};
        ctrl_collide_point(fx.ctrl, from, CTRL_ROOT_RADIUS_CM, over, cand);
        CHECKF(cand[0] == -195.0f && cand[1] == -198.0f, "open ground (over_ledges %d): moved to (%g, %g)", over,
               (double)cand[0], (double)cand[1]);
    }
}

static void collide_walls(void)
{
    const ctrl_t *c = fx.ctrl;
    const float reach = WALL_R + CTRL_ROOT_RADIUS_CM;
    /* Straight into the wall's margin: stops at the margin, on its side. */
    float from[2] = {500.0f, -400.0f}, cand[2] = {590.0f, -400.0f};
    ctrl_collide_point(c, from, CTRL_ROOT_RADIUS_CM, false, cand);
    CHECK_NEAR(cand[0], WALL_X - reach, 0.01f);
    CHECK_NEAR(cand[1], -400.0f, TOL);
    /* Through it: never to the far side. */
    float cand2[2] = {700.0f, -400.0f};
    ctrl_collide_point(c, from, CTRL_ROOT_RADIUS_CM, true, cand2);
    CHECKF(cand2[0] <= WALL_X - reach + TOL && wall_distance(cand2[0], cand2[1]) >= reach - TOL,
           "a move through the wall ended at (%g, %g)", (double)cand2[0], (double)cand2[1]);
    CHECK(!level_segment_crosses_wall(&fx.level, from[0], from[1], cand2[0], cand2[1]));
    /* Slanting into it: the move is kept outside, with what it can make along the wall. */
    float from3[2] = {560.0f, -400.0f}, cand3[2] = {590.0f, -350.0f};
    ctrl_collide_point(c, from3, CTRL_ROOT_RADIUS_CM, false, cand3);
    CHECK_NEAR(cand3[0], WALL_X - reach, 0.01f);
    CHECK_NEAR(cand3[1], -350.0f, 0.01f);
    /* Moves from all round the wall (clear of it), every way, up to 1.2 m
     * long: none ends within the wall's radius plus its own, none crosses. */
    int moves = 0, inside = 0, crossed = 0;
    float worst = 1e9f;
    for (float fz = -760.0f; fz <= -40.0f; fz += 24.0f)
        for (float fxp = 440.0f; fxp <= 760.0f; fxp += 24.0f) {
            if (wall_distance(fxp, fz) < reach)
                continue;
            for (int a = 0; a < 24; a++)
                for (float len = 10.0f; len <= 120.0f; len += 22.0f) {
                    float ang = (float)a * (2.0f * 3.14159265f / 24.0f);
                    float f[2] = {fxp, fz}, q[2] = {fxp + len * sinf(ang), fz + len * cosf(ang)};
                    ctrl_collide_point(c, f, CTRL_ROOT_RADIUS_CM, a % 2 == 0, q);
                    moves++;
                    float d = wall_distance(q[0], q[1]);
                    worst = fminf(worst, d);
                    inside += d < reach - TOL;
                    crossed += level_segment_crosses_wall(&fx.level, f[0], f[1], q[0], q[1]);
                }
        }
    printf("ctrl_world: walls: %d moves, %d ended inside the margin, %d crossed; nearest %.3f cm (allowed %.1f)\n",
           moves, inside, crossed, (double)worst, (double)reach);
    CHECKF(moves > 1000, "only %d moves tried", moves);
    CHECKF(inside == 0, "%d of %d moves ended within %.1f cm of the wall (nearest %.3f)", inside, moves, (double)reach,
           (double)worst);
    CHECKF(crossed == 0, "%d of %d moves crossed the wall", crossed, moves);
    /* A smaller radius comes nearer: the given radius counts. */
    float from4[2] = {500.0f, -400.0f}, cand4[2] = {600.0f - WALL_R - 2.0f, -400.0f};
    ctrl_collide_point(c, from4, 5.0f, false, cand4);
    CHECK_NEAR(cand4[0], WALL_X - WALL_R - 5.0f, 0.01f);
}

static void collide_ledges(void)
{
    /* Towards the 60 cm box in 2 cm steps from 2 m before its edge: held
     * back on the flat, never climbing it ... */
    walk_t held = walk(0.0f, 300.0f, 2.0f, 0.0f, 200, false);
    CHECKF(held.hi <= TOL && held.max_x < 200.0f - CTRL_ROOT_RADIUS_CM,
           "walked onto the 60 cm box: reached x %.2f, ground up to %.2f", (double)held.max_x, (double)held.hi);
    /* Its disc (the radius given) stops short of the ledge, not on it. */
    CHECKF(!ctrl_on_ledge(fx.ctrl, held.end[0] + CTRL_ROOT_RADIUS_CM - 0.01f, held.end[1]),
           "held at (%.2f, %.2f), its disc on the box's ledge", (double)held.end[0], (double)held.end[1]);
    /* ... over it, and on, as a jump may. */
    walk_t jumped = walk(0.0f, 300.0f, 2.0f, 0.0f, 250, true);
    CHECK_NEAR(jumped.end[0], 500.0f, 0.01f);
    CHECK_NEAR(jumped.end[1], 300.0f, TOL);
    CHECK_NEAR(jumped.hi, 60.0f, TOL);
    /* Into the trench: held at its rim, or down into it as a jump. */
    walk_t rim = walk(-500.0f, -800.0f, 0.0f, 2.0f, 200, false);
    CHECKF(rim.lo >= -TOL && rim.max_z < -600.0f, "walked into the trench: reached z %.2f, ground down to %.2f",
           (double)rim.max_z, (double)rim.lo);
    CHECKF(!ctrl_on_ledge(fx.ctrl, rim.end[0], rim.end[1] + CTRL_ROOT_RADIUS_CM - 0.01f),
           "held at (%.2f, %.2f), its disc on the trench's ledge", (double)rim.end[0], (double)rim.end[1]);
    walk_t down = walk(-500.0f, -800.0f, 0.0f, 2.0f, 200, true);
    CHECK_NEAR(down.end[1], -400.0f, 0.01f);
    CHECK_NEAR(down.lo, -60.0f, TOL);
    /* Over the 18 cm step and off it: walked, ledges or not. */
    walk_t step = walk(-500.0f, 100.0f, 0.0f, 2.0f, 200, false);
    CHECK_NEAR(step.end[0], -500.0f, TOL);
    CHECK_NEAR(step.end[1], 500.0f, 0.01f);
    CHECK_NEAR(step.hi, 18.0f, TOL);
    /* On the box's foot already (its ledge starts 50 cm before the edge): a
     * move away is made as asked; towards the box, it gets no nearer (nor
     * higher). */
    float from[2] = {172.0f, 300.0f};
    CHECK(ctrl_on_ledge(fx.ctrl, from[0], from[1]));
    float away[2] = {170.0f, 300.5f};
    ctrl_collide_point(fx.ctrl, from, CTRL_ROOT_RADIUS_CM, false, away);
    CHECKF(away[0] == 170.0f && away[1] == 300.5f, "a move off the ledge went to (%g, %g)", (double)away[0],
           (double)away[1]);
    walk_t in = walk(from[0], from[1], 2.0f, 0.0f, 50, false);
    CHECKF(in.max_x <= from[0] + TOL && in.hi <= ctrl_ground(fx.ctrl, from[0], from[1]) + TOL,
           "from the box's foot towards it: reached x %.2f, ground %.2f", (double)in.max_x, (double)in.hi);
}

/* Within the last cell before a ledge's edge the ledge field is level
 * across it (the samples either side are as far from ground off the
 * ledges), so only the side rule holds a point there: from anywhere in that
 * cell, 50 moves of 2 cm over the edge neither get across its middle nor
 * take the ground further from the side it started on than half a step or
 * than it was, but down a drop no deeper than a leg steps down. Along
 * the edge, the same point walks as asked. */
static void collide_ledge_edges(void)
{
    const float side = 0.5f * CTRL_STEP_MAX_CM, box = 60.0f, trench = -60.0f;
    for (float d = 0.0f; d < 10.0f; d += 0.5f) {
        /* How far the ground at the start is from its side's height: 3 cm a cm. */
        const float start = fmaxf(side, 3.0f * d);
        /* The box's edge lies between the samples at x 180 (ground 0) and 200 (60). */
        walk_t up = walk(180.0f + d, 300.0f, 2.0f, 0.0f, 50, false);
        CHECKF(up.max_x < 190.0f && up.hi <= start + TOL, "from x %.1f up the box: reached x %.2f, ground up to %.2f",
               (double)(180.0f + d), (double)up.max_x, (double)up.hi);
        walk_t off = walk(200.0f - d, 300.0f, -2.0f, 0.0f, 50, false);
        CHECKF(off.end[0] > 190.0f && off.lo >= box - start - TOL,
               "from x %.1f down off the box: ended at x %.2f, ground down to %.2f", (double)(200.0f - d),
               (double)off.end[0], (double)off.lo);
        /* The trench's rim: between z -620 (ground 0) and -600 (-60). */
        walk_t in = walk(-500.0f, -620.0f + d, 0.0f, 2.0f, 50, false);
        CHECKF(in.max_z < -610.0f && in.lo >= -start - TOL,
               "from z %.1f into the trench: reached z %.2f, ground down to %.2f", (double)(-620.0f + d),
               (double)in.max_z, (double)in.lo);
        walk_t out = walk(-500.0f, -600.0f - d, 0.0f, -2.0f, 50, false);
        CHECKF(out.end[1] > -610.0f && out.hi <= trench + start + TOL,
               "from z %.1f up out of the trench: ended at z %.2f, ground up to %.2f", (double)(-600.0f - d),
               (double)out.end[1], (double)out.hi);
    }
    /* The 34 cm block (a ledge too, its edge between the samples at x -900
     * and -880): from its crest a leg steps down off it, but does not step
     * up onto it. */
    for (float d = 0.0f; d < 10.0f; d += 0.5f) {
        walk_t down = walk(-900.0f + d, 150.0f, 2.0f, 0.0f, 30, false);
        CHECKF(fabsf(down.end[0] - (-840.0f + d)) < 0.01f && down.lo <= TOL,
               "from x %.1f down off the 34 cm block: ended at x %.2f, ground down to %.2f", (double)(-900.0f + d),
               (double)down.end[0], (double)down.lo);
        walk_t onto = walk(-880.0f - d, 150.0f, -2.0f, 0.0f, 30, false);
        CHECKF(onto.end[0] > -890.0f && onto.hi <= fmaxf(side, 1.7f * d) + TOL,
               "from x %.1f up onto the 34 cm block: ended at x %.2f, ground up to %.2f", (double)(-880.0f - d),
               (double)onto.end[0], (double)onto.hi);
    }
    walk_t along = walk(185.0f, 300.0f, 0.0f, 2.0f, 20, false);
    CHECK_NEAR(along.end[0], 185.0f, TOL);
    CHECK_NEAR(along.end[1], 340.0f, 0.01f);
}

static void collide_edges_and_others(void)
{
    const ctrl_t *c = fx.ctrl;
    /* The level's edges: it stays inside, by at least its radius. */
    float from[2] = {1100.0f, -900.0f}, cand[2] = {1300.0f, -1350.0f};
    ctrl_collide_point(c, from, CTRL_ROOT_RADIUS_CM, true, cand);
    CHECKF(cand[0] <= 1200.0f - CTRL_ROOT_RADIUS_CM && cand[1] >= -1200.0f + CTRL_ROOT_RADIUS_CM,
           "a move off the level's corner ended at (%g, %g)", (double)cand[0], (double)cand[1]);
    /* Another character (capsule of radius 25 at (0, -800)): not entered,
     * pushed out to its radius plus the given one ... */
    const float other[1][CTRL_OBSTACLE_FLOATS] = {{0.0f, -800.0f, 25.0f}};
    ctrl_set_obstacles(fx.ctrl, other, 1);
    float f2[2] = {-100.0f, -800.0f}, q2[2] = {-10.0f, -800.0f};
    ctrl_collide_point(c, f2, CTRL_ROOT_RADIUS_CM, false, q2);
    CHECK_NEAR(hypotf(q2[0] - other[0][0], q2[1] - other[0][1]), other[0][2] + CTRL_ROOT_RADIUS_CM, 0.01f);
    CHECK_NEAR(q2[1], -800.0f, TOL);
    /* ... and once it is gone, the same move is made. */
    ctrl_set_obstacles(fx.ctrl, NULL, 0);
    float q3[2] = {-10.0f, -800.0f};
    ctrl_collide_point(c, f2, CTRL_ROOT_RADIUS_CM, false, q3);
    CHECK(q3[0] == -10.0f && q3[1] == -800.0f);
}

static void test_collide(void)
{
    collide_open_ground();
    collide_walls();
    collide_ledges();
    collide_ledge_edges();
    collide_edges_and_others();
}

/* ---- ctrl_wall_depth ------------------------------------------------------- */

/* Depth of (x, H above the ground, z) in the wall, and the way out. */
static float depth_at(float x, float h, float z, float out[2])
{
    float p[3] = {x, ctrl_ground(fx.ctrl, x, z) + h, z};
    out[0] = out[1] = NAN;
    return ctrl_wall_depth(fx.ctrl, p, &out[0], &out[1]);
}

static void test_wall_depth(void)
{
    float a[2];
    /* The root at (0, 0), on the wall's -x side. Clear: 0. */
    CHECK_NEAR(depth_at(550.0f, 50.0f, -400.0f, a), 0.0f, 0.0f);
    CHECK_NEAR(depth_at(0.0f, 50.0f, 0.0f, a), 0.0f, 0.0f);
    /* On the wall's surface (15 cm from its line): the margin alone. */
    float margin = depth_at(WALL_X - WALL_R, 50.0f, -400.0f, a);
    CHECKF(margin > 0.0f && margin < 5.0f, "depth on the wall's surface %g: no small margin", (double)margin);
    /* Inside the margin, short of the surface: > 0; beyond it, clear. */
    CHECK_NEAR(depth_at(WALL_X - WALL_R - 0.5f * margin, 50.0f, -400.0f, a), 0.5f * margin, TOL);
    CHECK(a[0] < 0.0f);
    CHECK_NEAR(depth_at(WALL_X - WALL_R - margin - 0.5f, 50.0f, -400.0f, a), 0.0f, 0.0f);
    /* 5 cm into it: 5 more, out along -x (away from the wall, a unit vector). */
    CHECK_NEAR(depth_at(590.0f, 50.0f, -400.0f, a), margin + 5.0f, TOL);
    CHECK_NEAR(a[0], -1.0f, 1e-5f);
    CHECK_NEAR(a[1], 0.0f, 1e-5f);
    /* By its end (600, -200): out radially from the end. */
    float d = hypotf(8.0f, 10.0f);
    CHECK_NEAR(depth_at(608.0f, 50.0f, -190.0f, a), margin + WALL_R - d, TOL);
    CHECK_NEAR(a[0], 8.0f / d, 1e-4f);
    CHECK_NEAR(a[1], 10.0f / d, 1e-4f);
    CHECK_NEAR(hypotf(a[0], a[1]), 1.0f, 1e-5f);
    /* Above the wall's top it does not collide; just below it does. */
    CHECK_NEAR(depth_at(590.0f, LEVEL_WALL_HEIGHT_CM + 1.0f, -400.0f, a), 0.0f, 0.0f);
    CHECK(depth_at(590.0f, LEVEL_WALL_HEIGHT_CM - 1.0f, -400.0f, a) > 0.0f);
    /* Past the wall's middle as seen from the root: back the way it came
     * (5 cm past the line: 5 + the radius back to the root's face). */
    CHECK_NEAR(depth_at(605.0f, 50.0f, -400.0f, a), margin + 5.0f + WALL_R, TOL);
    CHECK_NEAR(a[0], -1.0f, 1e-5f);
    CHECK_NEAR(a[1], 0.0f, 1e-5f);
    /* The root on the +x side: the same points go out the other way. */
    reset_at(700.0f, -400.0f);
    CHECK_NEAR(depth_at(605.0f, 50.0f, -400.0f, a), margin + WALL_R - 5.0f, TOL);
    CHECK_NEAR(a[0], 1.0f, 1e-5f);
    CHECK_NEAR(depth_at(590.0f, 50.0f, -400.0f, a), margin + 10.0f + WALL_R, TOL);
    CHECK_NEAR(a[0], 1.0f, 1e-5f);
    CHECK_NEAR(a[1], 0.0f, 1e-5f);
}

/* ---- ctrl_low_ceiling ------------------------------------------------------ */

static void test_ceiling(void)
{
    const ctrl_t *c = fx.ctrl;
    /* The 110 cm ceiling over x in [-1000, -600], z in [600, 1000]. */
    CHECK(ctrl_low_ceiling(c, -800.0f, 800.0f));
    CHECK(ctrl_low_ceiling(c, -601.0f, 601.0f));
    CHECK(!ctrl_low_ceiling(c, -599.0f, 800.0f));
    CHECK(!ctrl_low_ceiling(c, -800.0f, 599.0f));
    CHECK(!ctrl_low_ceiling(c, 0.0f, 0.0f));
    CHECK(!ctrl_low_ceiling(c, 800.0f, -800.0f));
    /* A 200 cm ceiling (over CTRL_CROUCH_CLEARANCE_CM) is stood under. */
    CHECK(!ctrl_low_ceiling(c, 800.0f, 800.0f));
}

/* ---- ctrl_support_height --------------------------------------------------- */

static void test_support(void)
{
    ctrl_t *c = fx.ctrl;
    /* On flat ground, from the ground's height: the ground. */
    CHECK_NEAR(ctrl_support_height(c, 0.0f, 0.0f, 0.0f), 0.0f, 0.0f);
    CHECK_NEAR(ctrl_support_height(c, -800.0f, 400.0f, 0.0f), 0.0f, 0.0f);
    /* No last height (non-finite): the ground, flat or on the box. */
    CHECK_NEAR(ctrl_support_height(c, 0.0f, 0.0f, NAN), 0.0f, 0.0f);
    CHECK_NEAR(ctrl_support_height(c, 0.0f, 0.0f, INFINITY), 0.0f, 0.0f);
    CHECK_NEAR(ctrl_support_height(c, 0.0f, 0.0f, -INFINITY), 0.0f, 0.0f);
    CHECK_NEAR(ctrl_support_height(c, 300.0f, 300.0f, NAN), 60.0f, TOL);
    /* Up at once (onto the box) ... */
    CHECK_NEAR(ctrl_support_height(c, 300.0f, 300.0f, 0.0f), 60.0f, TOL);
    /* ... down at most CTRL_ROOT_FALL_CM_S (a step down takes a few frames),
     * to the ground and no lower (58 cm: not a whole number of steps). */
    const float fall = CTRL_ROOT_FALL_CM_S / CTRL_NET_FPS;
    float h = 58.0f;
    int steps = 0;
    bool too_fast = false;
    while (h > 0.0f && steps < 100) {
        float next = ctrl_support_height(c, 0.0f, 0.0f, h);
        too_fast |= next < h - fall - TOL || next < 0.0f;
        h = next;
        steps++;
    }
    CHECK_NEAR(h, 0.0f, 0.0f);
    CHECKF(!too_fast, "fell faster than %.2f cm a step, or below the ground", (double)fall);
    CHECK_NEAR(ctrl_support_height(c, 0.0f, 0.0f, 10.0f), 10.0f - fall, TOL);
    /* And into the trench as well, followed down. */
    CHECK_NEAR(ctrl_support_height(c, -500.0f, -500.0f, 0.0f), -fall, TOL);
}

/* ---- gaps: the floor under the feet ------------------------------------------ */

#define NOW CTRL_TRAJ_NOW

/* ctrl_world.c's release: ground within 10 cm below the held height is
 * not a gap. */
#define GAP_RELEASE_CM 10.0f

static void test_gap_floor(void)
{
    ctrl_t *c = fx.ctrl;
    reset_at(-500.0f, -700.0f);
    float *root = c->traj.pos[NOW];
    CHECK_NEAR(root[1], 0.0f, 0.0f);
    /* Over the trench (60 cm below the root): the floor weighted between
     * the trench's bottom and the root's height. */
    CHECK_NEAR(ctrl_gap_floor_ground(c, -500.0f, -500.0f, 0.0f), -60.0f, TOL);
    CHECK_NEAR(ctrl_gap_floor_ground(c, -500.0f, -500.0f, 0.5f), -30.0f, TOL);
    CHECK_NEAR(ctrl_gap_floor_ground(c, -500.0f, -500.0f, 1.0f), 0.0f, TOL);
    /* On ground near the root's height: the ground, whatever the weight. */
    CHECK_NEAR(ctrl_gap_floor_ground(c, 0.0f, 0.0f, 1.0f), 0.0f, 0.0f);
    CHECK_NEAR(ctrl_gap_floor_ground(c, 300.0f, 300.0f, 1.0f), 60.0f, TOL);
    /* Down the trench's side (3 cm a cm from z -620): 9 cm below is
     * ground, 15 cm below is the gap. */
    CHECK_NEAR(ctrl_gap_floor_ground(c, -500.0f, -617.0f, 1.0f), -9.0f, TOL);
    CHECK_NEAR(ctrl_gap_floor_ground(c, -500.0f, -615.0f, 1.0f), 0.0f, TOL);
    /* The release is measured from the root's height: 10 cm over the
     * bottom, still the bottom; a little more, the root's height. */
    root[1] = -60.0f + GAP_RELEASE_CM;
    CHECK_NEAR(ctrl_gap_floor_ground(c, -500.0f, -500.0f, 1.0f), -60.0f, TOL);
    root[1] = -60.0f + GAP_RELEASE_CM + 0.5f;
    CHECK_NEAR(ctrl_gap_floor_ground(c, -500.0f, -500.0f, 1.0f), root[1], TOL);
    root[1] = 0.0f;
    /* The feet's floor: the terrain, unless the root is held over a gap or
     * has just landed from one. */
    CHECK(!ctrl_over_gap(c));
    CHECK_NEAR(ctrl_foot_ground(c, -500.0f, -500.0f), -60.0f, TOL);
    c->ground_held = true;
    CHECK(ctrl_over_gap(c));
    CHECK_NEAR(ctrl_foot_ground(c, -500.0f, -500.0f), 0.0f, TOL);
    CHECK_NEAR(ctrl_foot_ground(c, 300.0f, 300.0f), 60.0f, TOL);
    c->ground_held = false;
    c->landing_steps = 3;
    CHECK(ctrl_over_gap(c));
    CHECK_NEAR(ctrl_foot_ground(c, -500.0f, -500.0f), 0.0f, TOL);
    c->landing_steps = 0;
}

/* ---- gaps: the height held ----------------------------------------------------- */

/* Reset facing +z at (-500, -700), the last step's root at (FROM_X, 0,
 * FROM_Z), jumping JUMP. */
static ctrl_t *before_the_trench(float from_x, float from_z, float jump)
{
    reset_at(-500.0f, -700.0f);
    ctrl_t *c = fx.ctrl;
    c->traj.pos[NOW - 1][0] = from_x;
    c->traj.pos[NOW - 1][1] = 0.0f;
    c->traj.pos[NOW - 1][2] = from_z;
    c->jump = jump;
    return c;
}

static void test_gap_hold(void)
{
    const float fall = CTRL_ROOT_FALL_CM_S / CTRL_NET_FPS;
    /* Jumping off the trench's rim (from z -625 to -595, on its ledge, the
     * ground 60 cm down): the height is held, carried on the way it went. */
    ctrl_t *c = before_the_trench(-500.0f, -625.0f, 1.0f);
    CHECK(ctrl_on_ledge(c, -500.0f, -595.0f));
    CHECK_NEAR(ctrl_support_height(c, -500.0f, -595.0f, 0.0f), 0.0f, 0.0f);
    CHECK(c->ground_held && c->hold_steps == 0);
    CHECK_NEAR(c->hold_dir[0], 0.0f, 1e-6f);
    CHECK_NEAR(c->hold_dir[1], 1.0f, 1e-6f);
    CHECK(c->hold_from[0] == -500.0f && c->hold_from[1] == 0.0f && c->hold_from[2] == -625.0f);
    /* Held over the bottom, and over the far side until the ground is
     * within 10 cm (3 cm a cm up from z -400): at z -384 it is 12 cm
     * below, at -382 6 cm. */
    CHECK_NEAR(ctrl_support_height(c, -500.0f, -500.0f, 0.0f), 0.0f, 0.0f);
    CHECK_NEAR(ctrl_support_height(c, -500.0f, -384.0f, 0.0f), 0.0f, 0.0f);
    CHECK(c->ground_held && c->landing_steps == 0);
    /* Let go there: landing, the height following the ground down. */
    CHECK_NEAR(ctrl_support_height(c, -500.0f, -382.0f, 0.0f), -fall, TOL);
    CHECK(!c->ground_held && c->landing_steps > 0);
    CHECK(ctrl_over_gap(c));
    /* No hold without a jump stronger than 0.1, while landing, or off a
     * ledge (a slope falling away): the root follows the ground down. */
    c = before_the_trench(-500.0f, -625.0f, 0.1f);
    CHECK_NEAR(ctrl_support_height(c, -500.0f, -595.0f, 0.0f), -fall, TOL);
    CHECK(!c->ground_held);
    c = before_the_trench(-500.0f, -625.0f, 1.0f);
    c->landing_steps = 3;
    CHECK_NEAR(ctrl_support_height(c, -500.0f, -595.0f, 0.0f), -fall, TOL);
    CHECK(!c->ground_held);
    c = before_the_trench(-500.0f, -530.0f, 1.0f);
    CHECK(!ctrl_on_ledge(c, -500.0f, -500.0f));
    CHECK_NEAR(ctrl_support_height(c, -500.0f, -500.0f, 0.0f), -fall, TOL);
    CHECK(!c->ground_held);
    /* Taking off where the last step was (no way it went): carried the way
     * it faces (+x here). */
    c = before_the_trench(-500.0f, -595.0f, 1.0f);
    c->traj.dir[NOW][0] = 1.0f;
    c->traj.dir[NOW][1] = 0.0f;
    CHECK_NEAR(ctrl_support_height(c, -500.0f, -595.0f, 0.0f), 0.0f, 0.0f);
    CHECK(c->ground_held);
    CHECK(c->hold_dir[0] == 1.0f && c->hold_dir[1] == 0.0f);
}

/* ---- gaps: the carry ------------------------------------------------------------- */

/* ctrl_world.c's carry: at least 200 cm/s, at most 800, and fast enough to
 * reach the ground it found 0.85 s after taking off. */
#define GAP_SPEED_MIN 200.0
#define GAP_SPEED_MAX 800.0
#define GAP_LAND_S 0.85

/* The carry's step (cm) towards ground BEST cm away, STEPS steps after
 * taking off (counting this one). */
static float carry_step(double best, int steps)
{
    double left = GAP_LAND_S - (double)steps / (double)CTRL_NET_FPS;
    double speed = left > 1.0 / (double)CTRL_NET_FPS ? best / left : GAP_SPEED_MAX;
    return (float)(fmin(fmax(speed, GAP_SPEED_MIN), GAP_SPEED_MAX) / (double)CTRL_NET_FPS);
}

/* Held at (X, H, Z) over a gap, taken off going (UX, UZ) HOLD_STEPS steps
 * ago from where it is now. */
static ctrl_t *held_at(float x, float h, float z, float ux, float uz, int hold_steps)
{
    reset_at(0.0f, 0.0f);
    ctrl_t *c = fx.ctrl;
    c->traj.pos[NOW][0] = x;
    c->traj.pos[NOW][1] = h;
    c->traj.pos[NOW][2] = z;
    c->ground_held = true;
    c->hold_dir[0] = ux;
    c->hold_dir[1] = uz;
    c->hold_steps = hold_steps;
    c->hold_from[0] = x;
    c->hold_from[1] = h;
    c->hold_from[2] = z;
    return c;
}

/* ctrl_gap_carry on the move (DX, DZ); checks the result (WX, WZ). */
static void check_carry(const char *what, float dx, float dz, float wx, float wz)
{
    ctrl_gap_carry(fx.ctrl, &dx, &dz);
    CHECKF(fabsf(dx - wx) < 1e-4f && fabsf(dz - wz) < 1e-4f, "%s: carried (%.5f, %.5f), expected (%.5f, %.5f)", what,
           (double)dx, (double)dz, (double)wx, (double)wz);
}

static void test_gap_carry(void)
{
    /* Not held: the move is the root motion's. */
    reset_at(0.0f, 0.0f);
    check_carry("not held", 1.5f, -2.0f, 1.5f, -2.0f);
    CHECK(fx.ctrl->hold_steps == 0);
    /* In the middle of the trench, going +x: the first ground ahead off its
     * ledges is at x -340 (160 cm; x -360 and -380 are within 40 cm of the
     * bottom). Carried at least that share of it, whatever the move was
     * (on, back, sideways), never slowed. */
    const float s1 = carry_step(160.0, 1);
    CHECK_NEAR(s1, GAP_SPEED_MIN / CTRL_NET_FPS, 1e-6f);
    held_at(-500.0f, 0.0f, -500.0f, 1.0f, 0.0f, 0);
    check_carry("still", 0.0f, 0.0f, s1, 0.0f);
    CHECK(fx.ctrl->hold_steps == 1);
    held_at(-500.0f, 0.0f, -500.0f, 1.0f, 0.0f, 0);
    check_carry("back", -2.0f, 0.0f, s1, 0.0f);
    held_at(-500.0f, 0.0f, -500.0f, 1.0f, 0.0f, 0);
    check_carry("sideways", 0.0f, 2.0f, s1, 2.0f);
    held_at(-500.0f, 0.0f, -500.0f, 1.0f, 0.0f, 0);
    check_carry("faster", 5.0f, 0.0f, 5.0f, 0.0f);
    /* Later, faster, to be there in time; at most 800 cm/s. */
    held_at(-500.0f, 0.0f, -500.0f, 1.0f, 0.0f, 29);
    check_carry("30 steps on", 0.0f, 0.0f, carry_step(160.0, 30), 0.0f);
    CHECK(carry_step(160.0, 30) > s1 && carry_step(160.0, 30) < carry_step(160.0, 41));
    held_at(-500.0f, 0.0f, -500.0f, 1.0f, 0.0f, 40);
    check_carry("41 steps on", 0.0f, 0.0f, (float)(GAP_SPEED_MAX / CTRL_NET_FPS), 0.0f);
    held_at(-500.0f, 0.0f, -500.0f, 1.0f, 0.0f, 60);
    check_carry("61 steps on", 0.0f, 0.0f, (float)(GAP_SPEED_MAX / CTRL_NET_FPS), 0.0f);
    /* Along the channel (60 cm wide) from x 300, 20 cm from its +z side:
     * its end is 160 cm ahead, its side 80 cm away in the fan's widest
     * direction (1.2 rad off; x -940 is the first row off its ledges): the
     * side, much nearer. From x 360 the end is 100 cm ahead: less than 1.5
     * times the side's distance, so on to the end. */
    held_at(300.0f, 0.0f, -1020.0f, 1.0f, 0.0f, 0);
    check_carry("along the channel", 0.0f, 0.0f, s1 * cosf(1.2f), s1 * sinf(1.2f));
    held_at(360.0f, 0.0f, -1020.0f, 1.0f, 0.0f, 0);
    check_carry("near the channel's end", 0.0f, 0.0f, s1, 0.0f);
    /* No ground near the held height anywhere within 3 m (held at 100 cm):
     * back to where it took off, 50 cm behind, instead of the move. */
    ctrl_t *c = held_at(-500.0f, 100.0f, -500.0f, 1.0f, 0.0f, 0);
    c->hold_from[0] = -550.0f;
    check_carry("back where it took off", 5.0f, 1.0f, -s1, 0.0f);
    /* 2 cm from there, at full speed: no further than 10 cm past it. */
    c = held_at(-500.0f, 100.0f, -500.0f, 1.0f, 0.0f, 60);
    c->hold_from[0] = -502.0f;
    check_carry("2 cm from where it took off", 0.0f, 0.0f, -12.0f, 0.0f);
    /* There already: the move is left as it is. */
    held_at(-500.0f, 100.0f, -500.0f, 1.0f, 0.0f, 0);
    check_carry("where it took off", 5.0f, 1.0f, 5.0f, 1.0f);
}

/* ---- the body kept out of walls ---------------------------------------------- */

/* Moves the whole posed character by (DX, DZ) (root and hip). */
static void shift_body(ctrl_t *c, float dx, float dz)
{
    c->traj.pos[NOW][0] += dx;
    c->traj.pos[NOW][2] += dz;
    c->pose.trans[c->j.hip][0] += dx;
    c->pose.trans[c->j.hip][2] += dz;
    ctrl_update_model(c);
}

/* The body points ctrl_keep_out_of_walls looks at: the joints, the toe
 * tips and the head top. Returns the deepest one's depth; DEEPEST its
 * index (joints, then toes, then the head top). */
enum { BODY_POINTS = CTRL_JOINTS + 3, BODY_HEAD_TOP = CTRL_JOINTS + 2 };

static float body_depth(const ctrl_t *c, int *deepest)
{
    float pts[BODY_POINTS][3], toes[2][3], worst = 0.0f;
    memcpy(pts, c->joint_pos, sizeof c->joint_pos);
    ctrl_contact_points(c, toes);
    memcpy(pts[CTRL_JOINTS], toes, sizeof toes);
    ctrl_head_top(c, pts[BODY_HEAD_TOP]);
    *deepest = -1;
    for (int k = 0; k < BODY_POINTS; k++) {
        float ax, az, d = ctrl_wall_depth(c, pts[k], &ax, &az);
        if (d > worst) {
            worst = d;
            *deepest = k;
        }
    }
    return worst;
}

/* Keeps the character out of the wall and checks that it moved, rigidly,
 * straight out along -x by the depth the deepest point had, and is clear. */
static void check_kept_out(const char *what, int want_deepest)
{
    ctrl_t *c = fx.ctrl;
    int deepest;
    float depth = body_depth(c, &deepest);
    CHECKF(deepest == want_deepest && depth > 1.0f, "%s: point %d deepest (%.3f cm), not point %d", what, deepest,
           (double)depth, want_deepest);
    float joints[CTRL_JOINTS][3], root[3], prev_root[3], joint_world[CTRL_JOINTS][3];
    memcpy(joints, c->joint_pos, sizeof joints);
    memcpy(root, c->traj.pos[NOW], sizeof root);
    memcpy(prev_root, c->prev_root, sizeof prev_root);
    memcpy(joint_world, c->joint_world, sizeof joint_world);
    int pushes = c->stats.wall_pushes;
    float moved[2] = {NAN, NAN};
    CHECKF(ctrl_keep_out_of_walls(c, moved), "%s: not moved", what);
    CHECKF(fabsf(moved[0] + depth) < TOL && moved[1] == 0.0f, "%s: moved (%.4f, %.4f), expected (%.4f, 0)", what,
           (double)moved[0], (double)moved[1], (double)-depth);
    float after = body_depth(c, &deepest);
    CHECKF(after < TOL, "%s: point %d still %.4f cm in", what, deepest, (double)after);
    float worst = 0.0f;
    for (int b = 0; b < CTRL_JOINTS; b++)
        for (int a = 0; a < 3; a++) {
            float m = a == 0 ? moved[0] : (a == 2 ? moved[1] : 0.0f);
            worst = fmaxf(worst, fabsf(c->joint_pos[b][a] - (joints[b][a] + m)));
            worst = fmaxf(worst, fabsf(c->joint_world[b][a] - (joint_world[b][a] + m)));
        }
    CHECKF(worst < TOL, "%s: the body did not move rigidly (%.4f cm off)", what, (double)worst);
    CHECK_NEAR(c->traj.pos[NOW][0], root[0] + moved[0], TOL);
    CHECK_NEAR(c->prev_root[0], prev_root[0] + moved[0], TOL);
    CHECK(c->traj.pos[NOW][2] == root[2] && c->prev_root[2] == prev_root[2]);
    CHECK(c->stats.wall_pushes == pushes + 1);
}

static void test_keep_out(void)
{
    ctrl_t *c = fx.ctrl;
    /* Standing clear of the wall: nothing moves. */
    reset_at(500.0f, -400.0f);
    float moved[2] = {NAN, NAN};
    CHECK(!ctrl_keep_out_of_walls(c, moved));
    CHECK(moved[0] == 0.0f && moved[1] == 0.0f);
    CHECK(c->traj.pos[NOW][0] == 500.0f && c->stats.wall_pushes == 0);
    /* Facing +z beside it, 70 cm from its line: the left hand (62 cm out
     * from the root along +x, below the wall's top) reaches in. */
    reset_at(WALL_X - 70.0f, -400.0f);
    check_kept_out("a hand", skel_find(&fx.skel, "lHand"));
    /* ... but not with the body lifted 20 cm: the hands (133 cm up) are
     * over the wall's top (150 cm). */
    reset_at(WALL_X - 70.0f, -400.0f);
    c->pose.trans[c->j.hip][1] += 20.0f;
    ctrl_update_model(c);
    CHECK(!ctrl_keep_out_of_walls(c, moved));
    /* Facing the wall (+x), the left leg swung 45 degrees forward (about
     * the root frame's x axis): its toe tip reaches furthest, 5 cm into it,
     * the root still more than its radius from the wall's. */
    ctrl_spawn_t s = {WALL_X - 100.0f, -400.0f, 0.5f * CTRL_PI};
    ctrl_reset(c, &fx.level, &s);
    const float swing[4] = {-sinf(0.125f * CTRL_PI), 0.0f, 0.0f, cosf(0.125f * CTRL_PI)};
    float q[4], toes[2][3];
    pose_quat_mul(swing, c->pose.rot[c->j.thigh[0]], q);
    memcpy(c->pose.rot[c->j.thigh[0]], q, sizeof q);
    ctrl_update_model(c);
    ctrl_contact_points(c, toes);
    CHECKF(toes[0][0] > c->traj.pos[NOW][0] + 40.0f, "the swung toe tip only %.2f cm ahead of the root",
           (double)(toes[0][0] - c->traj.pos[NOW][0]));
    shift_body(c, WALL_X - WALL_R + 5.0f - toes[0][0], 0.0f);
    check_kept_out("the left toe tip", CTRL_JOINTS);
    /* Leaning 45 degrees over towards the wall: the head top (down to about
     * 140 cm) reaches furthest, 5 cm into it. */
    ctrl_reset(c, &fx.level, &s);
    float lean[4] = {0.0f, 0.0f, -sinf(0.125f * CTRL_PI), cosf(0.125f * CTRL_PI)};
    pose_quat_mul(lean, c->pose.rot[c->j.hip], q);
    memcpy(c->pose.rot[c->j.hip], q, sizeof q);
    ctrl_update_model(c);
    float top[3];
    ctrl_head_top(c, top);
    CHECKF(top[1] < LEVEL_WALL_HEIGHT_CM && top[0] > c->traj.pos[NOW][0] + 40.0f,
           "the leaning head top at (%.2f, %.2f) from the root x %.2f", (double)top[0], (double)top[1],
           (double)c->traj.pos[NOW][0]);
    shift_body(c, WALL_X - WALL_R + 5.0f - top[0], 0.0f);
    check_kept_out("the head top", BODY_HEAD_TOP);
}

/* ---- ceilings near ------------------------------------------------------------ */

/* The 110 cm ceiling: x in [-1000, -600], z in [600, 1000]. */
static void test_ceiling_near(void)
{
    ctrl_t *c = fx.ctrl;
    /* 2 m from it, facing it: clear, however it stands. */
    ctrl_spawn_t s = {-400.0f, 800.0f, -0.5f * CTRL_PI};
    ctrl_reset(c, &fx.level, &s);
    CHECK(!ctrl_ceiling_near(c));
    /* A trajectory point under it, up to 0.75 s (45 frames) ahead or 0.25 s
     * (15) behind: near. */
    const int frames[4] = {NOW + 45, NOW + 46, NOW - 15, NOW - 16};
    for (int k = 0; k < 4; k++) {
        ctrl_reset(c, &fx.level, &s);
        c->traj.pos[frames[k]][0] = -700.0f;
        bool want = k % 2 == 0;
        CHECKF(ctrl_ceiling_near(c) == want, "a point under it %d frames from now: near %d, expected %d",
               frames[k] - NOW, !want, want);
    }
    /* Under the 200 cm ceiling: stood under, not near. */
    ctrl_spawn_t high = {800.0f, 800.0f, 0.0f};
    ctrl_reset(c, &fx.level, &high);
    CHECK(!ctrl_ceiling_near(c));
    /* The head top under it, 10 cm past its edge (the body reaching out
     * past the root, which stays 2 m away). */
    ctrl_reset(c, &fx.level, &s);
    float top[3];
    ctrl_head_top(c, top);
    shift_body(c, -610.0f - top[0], 0.0f);
    c->traj.pos[NOW][0] = -400.0f;
    ctrl_head_top(c, top);
    CHECK(ctrl_low_ceiling(c, top[0], top[2]));
    CHECK(ctrl_ceiling_near(c));
}

/* ---- fitting under a ceiling ------------------------------------------------- */

/* ctrl_world.c's ceiling rules: every point above the legs stays 2 cm
 * under a ceiling; outside a crouch area its ceiling rises 0.6 cm a cm of
 * distance; the body goes down at most 80 cm, and back up with a time
 * constant of 0.3 s. */
#define CEIL_MARGIN_CM 2.0f
#define CEIL_RAMP 0.6f
#define CEIL_DROP_MAX_CM 80.0f
#define CEIL_RELAX_S 0.3f

/* How far (cm) P is under the lowest (ramped) ceiling, less the margin. */
static float headroom(const float p[3])
{
    float best = INFINITY;
    for (int i = 0; i < fx.level.crouch_count; i++) {
        const level_crouch_area_t *a = &fx.level.crouch[i];
        float dx = fmaxf(fmaxf(a->min_x - p[0], p[0] - a->max_x), 0.0f);
        float dz = fmaxf(fmaxf(a->min_z - p[2], p[2] - a->max_z), 0.0f);
        best = fminf(best, a->ceiling_cm + CEIL_RAMP * hypotf(dx, dz));
    }
    return ctrl_ground(fx.ctrl, p[0], p[2]) + best - CEIL_MARGIN_CM - p[1];
}

/* The least headroom of the points above the legs (and the head top). */
static float least_headroom(const ctrl_t *c)
{
    float top[3], least = INFINITY;
    ctrl_head_top(c, top);
    least = headroom(top);
    for (int b = 0; b < CTRL_JOINTS; b++)
        if (!ctrl_is_leg(c, b))
            least = fminf(least, headroom(c->joint_pos[b]));
    return least;
}

/* Fits the posed body at (X, Z) (lifted by LIFT cm) under the ceilings in
 * DT_S after a drop of DROP; checks the hip went down by the new drop and
 * returns it. */
static float fit_at(float x, float z, float lift, float drop, float dt_s)
{
    ctrl_t *c = fx.ctrl;
    reset_at(x, z);
    c->ceiling_drop = drop;
    c->pose.trans[c->j.hip][1] += lift;
    ctrl_update_model(c);
    float hip = c->pose.trans[c->j.hip][1];
    ctrl_fit_ceiling(c, dt_s);
    CHECK_NEAR(c->pose.trans[c->j.hip][1], hip - c->ceiling_drop, TOL);
    return c->ceiling_drop;
}

static void test_fit_ceiling(void)
{
    ctrl_t *c = fx.ctrl;
    const float dt = 1.0f / CTRL_NET_FPS;
    /* In the open: nothing to do. */
    CHECK_NEAR(fit_at(0.0f, 0.0f, 0.0f, 0.0f, dt), 0.0f, 0.0f);
    /* Under the 110 cm ceiling: down until the highest point (the head top,
     * 165 cm up standing) is just under it. */
    float drop = fit_at(-800.0f, 800.0f, 0.0f, 0.0f, dt);
    CHECKF(drop > 50.0f && drop < CEIL_DROP_MAX_CM, "under the ceiling: down %.3f cm", (double)drop);
    CHECK_NEAR(least_headroom(c), 0.0f, TOL);
    float top[3];
    ctrl_head_top(c, top);
    CHECK_NEAR(top[1], 110.0f - CEIL_MARGIN_CM, TOL);
    /* 50 cm out of it (its edge at x -600): the ramp's ceiling. */
    drop = fit_at(-550.0f, 800.0f, 0.0f, 0.0f, dt);
    CHECK(drop > 10.0f);
    CHECK_NEAR(least_headroom(c), 0.0f, TOL);
    /* At most 80 cm (the body lifted 40 cm: it would need 97). */
    CHECK_NEAR(fit_at(-800.0f, 800.0f, 40.0f, 0.0f, dt), CEIL_DROP_MAX_CM, 0.0f);
    /* A high ceiling (200 cm) counts too: nothing standing, but lifted 40
     * cm the head top goes under it. */
    CHECK_NEAR(fit_at(800.0f, 800.0f, 0.0f, 0.0f, dt), 0.0f, 0.0f);
    CHECK(fit_at(800.0f, 800.0f, 40.0f, 0.0f, dt) > 0.0f);
    CHECK_NEAR(least_headroom(c), 0.0f, TOL);
    /* Out in the open after a drop of 60: back up slowly, exponentially;
     * under the ceiling after a larger drop than it needs: the larger. */
    CHECK_NEAR(fit_at(0.0f, 0.0f, 0.0f, 60.0f, 0.1f), 60.0f * expf(-0.1f / CEIL_RELAX_S), 1e-4f);
    CHECK_NEAR(fit_at(-800.0f, 800.0f, 0.0f, 75.0f, dt), 75.0f * expf(-dt / CEIL_RELAX_S), 1e-4f);
    /* The legs are solved after: a leg raised over the head does not count. */
    reset_at(-800.0f, 800.0f);
    const float flip[4] = {1.0f, 0.0f, 0.0f, 0.0f};
    float q[4];
    pose_quat_mul(c->pose.rot[c->j.thigh[0]], flip, q);
    memcpy(c->pose.rot[c->j.thigh[0]], q, sizeof q);
    ctrl_update_model(c);
    ctrl_head_top(c, top);
    CHECKF(c->joint_pos[c->j.foot[0]][1] > top[1], "the raised foot at %.2f, the head top at %.2f",
           (double)c->joint_pos[c->j.foot[0]][1], (double)top[1]);
    ctrl_fit_ceiling(c, dt);
    ctrl_head_top(c, top);
    CHECK_NEAR(top[1], 110.0f - CEIL_MARGIN_CM, TOL);
}

static void ready(void) { reset_at(0.0f, 0.0f); }

static const ctrl_fixture_group_t GROUPS[] = {
    {"ground", test_ground},
    {"ledges", test_ledges},
    {"collide", test_collide},
    {"wall_depth", test_wall_depth},
    {"ceiling", test_ceiling},
    {"support", test_support},
    {"gap_floor", test_gap_floor},
    {"gap_hold", test_gap_hold},
    {"gap_carry", test_gap_carry},
    {"keep_out", test_keep_out},
    {"ceiling_near", test_ceiling_near},
    {"fit_ceiling", test_fit_ceiling},
};

int main(int argc, char **argv)
{
    return ctrl_fixture_main(argc, argv, "test_ctrl_world", &fx, make_level, ready, GROUPS,
                             (int)(sizeof GROUPS / sizeof GROUPS[0]));
}
