/* Unit tests for ctrl_world (src/ctrl/ctrl_world.h): the ground under a
 * point, ledges, the collision of a point with walls, ledges, other
 * characters and the level's edges, a point's depth in a wall, low ceilings
 * and the root's support height, on a level made in memory whose shapes give
 * the expected values exactly.
 * Usage: test_ctrl_world TEST --net PATH
 * TEST: ground ledges collide wall_depth ceiling support. PATH: any network
 * with the shipped layout (the tiny fixture: nothing here runs it). Runs from
 * the repository root (the skeleton is read from assets/).
 *
 * The level: 121 x 121 samples 20 cm apart (x and z from -1200 to 1200 cm),
 * flat at height 0, shaped by writing the terrain's samples:
 *   box     x, z in [200, 400]      raised to 60 cm (a ledge all round)
 *   step    x in [-600, -400], z in [200, 400]   raised to 18 cm (a step)
 *   trench  x, z in [-600, -400]    lowered to -60 cm
 *   block30 x in [-1000, -900], z in [-200, -100] raised to 30 cm
 *   block34 x in [-1000, -900], z in [100, 200]   raised to 34 cm
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

/* Sets every sample with x in [x0, x1] and z in [z0, z1] to H. */
static void set_heights(terrain_t *t, float x0, float z0, float x1, float z1, float h)
{
    for (int j = 0; j < t->depth; j++)
        for (int i = 0; i < t->width; i++) {
            float x = t->origin_x + (float)i * t->cell_cm, z = t->origin_z + (float)j * t->cell_cm;
            if (x >= x0 && x <= x1 && z >= z0 && z <= z1)
                t->heights[(size_t)j * (size_t)t->width + (size_t)i] = h;
        }
}

static bool make_level(void)
{
    if (!level_parse(&fx.level, level_text, strlen(level_text), "ctrl-world-test.lvl", NULL)) {
        fprintf(stderr, "FAIL: level: %s\n", level_last_error());
        return false;
    }
    terrain_t *t = &fx.level.terrain;
    if (t->width != 121 || t->depth != 121 || t->cell_cm != 20.0f || t->origin_x != -1200.0f ||
        t->origin_z != -1200.0f) {
        fprintf(stderr, "FAIL: level: terrain %dx%d, cell %g, origin (%g, %g): not the layout the tests expect\n",
                t->width, t->depth, (double)t->cell_cm, (double)t->origin_x, (double)t->origin_z);
        return false;
    }
    set_heights(t, 200.0f, 200.0f, 400.0f, 400.0f, 60.0f);
    set_heights(t, -600.0f, 200.0f, -400.0f, 400.0f, 18.0f);
    set_heights(t, -600.0f, -600.0f, -400.0f, -400.0f, -60.0f);
    set_heights(t, -1000.0f, -200.0f, -900.0f, -100.0f, 30.0f);
    set_heights(t, -1000.0f, 100.0f, -900.0f, 200.0f, 34.0f);
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

static void ready(void) { reset_at(0.0f, 0.0f); }

static const ctrl_fixture_group_t GROUPS[] = {
    {"ground", test_ground},         {"ledges", test_ledges},   {"collide", test_collide},
    {"wall_depth", test_wall_depth}, {"ceiling", test_ceiling}, {"support", test_support},
};

int main(int argc, char **argv)
{
    return ctrl_fixture_main(argc, argv, "test_ctrl_world", &fx, make_level, ready, GROUPS,
                             (int)(sizeof GROUPS / sizeof GROUPS[0]));
}
