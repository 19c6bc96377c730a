/* Unit tests for ctrl_debug (ctrl_debug_draw and ctrl_gait_rgba in
 * src/ctrl/ctrl.h): the colour of a gait mix; how many segments each draw
 * bit adds (appended, never clearing the list); the trajectory (the path
 * between its frames lifted off the ground, coloured by gait, the past
 * dimmer; a facing tick at each network sample, the current one twice as
 * long); the contacts (a cross at each point, green while locked, red free,
 * and a bar over the lock as tall as its weight); the bones; the level
 * (each wall's foot and top, each crouch box at its ceiling, each jump
 * circle, all following the ground).
 * Usage: test_ctrl_debug TEST --net PATH
 * TEST: gait_rgba counts trajectory contacts joints level. PATH: any
 * network with the shipped layout (the tiny fixture: nothing here runs it).
 * Runs from the repository root (the skeleton is read from assets/).
 *
 * The level: 64 x 64 samples 20 cm apart (x and z from -630 to 630 cm),
 * the plane h = 0.1 x - 0.05 z written into its samples (bilinear
 * interpolation gives the plane exactly), two walls, two crouch areas and
 * two jump circles.
 */
#include "ctrl/ctrl.h"
#include "ctrl/ctrl_internal.h"

#include "check.h"
#include "ctrl_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 1e-3f
/* Segments of a jump circle (ctrl_debug.c). */
#define CIRCLE_SEGMENTS 24
#define MAX_VERTS 4096

static const char level_text[] = "strider-level 1\n"
                                 "name ctrl-debug-test\n"
                                 "flat 64 64 cell 20 height 0\n"
                                 "spawn 0 0 0\n"
                                 "wall -300 100 -100 300 15\n"
                                 "wall 200 -400 400 -400 20\n"
                                 "crouch 100 100 300 250 110\n"
                                 "crouch -500 -500 -300 -350 140\n"
                                 "jump -200 -200 80\n"
                                 "jump 300 300 50\n";

static ctrl_fixture_t fx;
static debug_line_vertex_t verts[MAX_VERTS];

static float plane(float x, float z) { return 0.1f * x - 0.05f * z; }

static bool make_level(void)
{
    if (!ctrl_fixture_parse_level(&fx, level_text, "ctrl-debug-test.lvl"))
        return false;
    ctrl_fixture_fill_heights(&fx.level.terrain, plane);
    return true;
}

static ctrl_t *reset_facing(float heading)
{
    ctrl_spawn_t s = {0.0f, 0.0f, heading};
    ctrl_reset(fx.ctrl, &fx.level, &s);
    return fx.ctrl;
}

/* An empty list over the static vertices. */
static debug_lines_t empty_lines(void)
{
    debug_lines_t dl = {.vertices = verts, .capacity = MAX_VERTS};
    debug_lines_clear(&dl);
    return dl;
}

/* Segments one draw of FLAGS adds to an empty list. */
static int segments(const ctrl_t *c, unsigned flags)
{
    debug_lines_t dl = empty_lines();
    ctrl_debug_draw(c, flags, &dl);
    CHECKF(dl.dropped == 0, "flags %#x: %d segments dropped", flags, dl.dropped);
    return dl.count / 2;
}

static bool same_point(const float a[3], const float b[3], float tol)
{
    return fabsf(a[0] - b[0]) <= tol && fabsf(a[1] - b[1]) <= tol && fabsf(a[2] - b[2]) <= tol;
}

static unsigned channel(uint32_t rgba, int k) { return (rgba >> (8 * k)) & 0xFFu; }

/* ---- ctrl_gait_rgba ------------------------------------------------------------ */

/* RGBA matches (R, G, B), each channel within one step, opaque. */
static bool colour_is(uint32_t rgba, unsigned r, unsigned g, unsigned b)
{
    const unsigned want[3] = {r, g, b};
    for (int k = 0; k < 3; k++)
        if (abs((int)channel(rgba, k) - (int)want[k]) > 1)
            return false;
    return channel(rgba, 3) == 255u;
}

static void test_gait_rgba(void)
{
    float g[CTRL_GAITS];
    /* One gait each: stand white, walk blue, run red, crouch green, jump
     * yellow. */
    const unsigned pure[5][3] = {{255, 255, 255}, {51, 102, 255}, {255, 51, 51}, {51, 230, 77}, {255, 230, 26}};
    for (int i = 0; i < 5; i++) {
        memset(g, 0, sizeof g);
        g[i] = 1.0f;
        uint32_t rgba = ctrl_gait_rgba(g);
        CHECKF(colour_is(rgba, pure[i][0], pure[i][1], pure[i][2]), "gait %d: %08x", i, (unsigned)rgba);
    }
    /* The spare gait adds nothing: all of it is black. */
    memset(g, 0, sizeof g);
    g[CTRL_GAIT_SPARE] = 1.0f;
    CHECK(colour_is(ctrl_gait_rgba(g), 0, 0, 0));
    /* A mix is the weighted sum: half walk, half run. */
    memset(g, 0, sizeof g);
    g[CTRL_GAIT_WALK] = g[CTRL_GAIT_RUN] = 0.5f;
    CHECK(colour_is(ctrl_gait_rgba(g), 153, 77, 153));
    /* Clamped to [0, 1] a channel: twice the stand is still white, less
     * than none of it black. */
    memset(g, 0, sizeof g);
    g[CTRL_GAIT_STAND] = 2.0f;
    CHECK(colour_is(ctrl_gait_rgba(g), 255, 255, 255));
    g[CTRL_GAIT_STAND] = -1.0f;
    CHECK(colour_is(ctrl_gait_rgba(g), 0, 0, 0));
    /* Run with some jump: red up to 255 (clamped), green from both. */
    memset(g, 0, sizeof g);
    g[CTRL_GAIT_RUN] = 0.6f;
    g[CTRL_GAIT_JUMP] = 0.6f;
    CHECK(colour_is(ctrl_gait_rgba(g), 255, 168, 46));
}

/* ---- counts -------------------------------------------------------------------- */

static void test_counts(void)
{
    ctrl_t *c = reset_facing(0.0f);
    const level_t *l = &fx.level;
    const int traj = (CTRL_TRAJ_FRAMES - 1) + CTRL_TRAJ_POINTS;
    const int joints = (c->skel->joint_count - 1) + 2;
    const int level = 2 * l->wall_count + 4 * l->crouch_count + CIRCLE_SEGMENTS * l->jump_count;
    /* No lock has weight after a reset: one cross of two lines per point. */
    CHECK(segments(c, CTRL_DRAW_CONTACTS) == 2 * CTRL_CONTACTS);
    CHECK(segments(c, CTRL_DRAW_TRAJECTORY) == traj);
    CHECK(segments(c, CTRL_DRAW_JOINTS) == joints);
    CHECKF(segments(c, CTRL_DRAW_LEVEL) == level, "%d level segments, want %d", segments(c, CTRL_DRAW_LEVEL), level);
    CHECK(segments(c, 0) == 0);
    CHECK(segments(c, CTRL_DRAW_ALL) == traj + 2 * CTRL_CONTACTS + joints + level);
    /* Each lock with weight adds its bar. */
    c->foot.weight[1] = 1.0f;
    c->foot.weight[2] = 0.3f;
    CHECK(segments(c, CTRL_DRAW_CONTACTS) == 2 * CTRL_CONTACTS + 2);
    /* Appended: what the list held stays, untouched. */
    debug_lines_t dl = empty_lines();
    const float a[3] = {1.0f, 2.0f, 3.0f}, b[3] = {4.0f, 5.0f, 6.0f};
    debug_lines_add(&dl, a, b, 0x12345678u);
    ctrl_debug_draw(c, CTRL_DRAW_JOINTS, &dl);
    CHECK(dl.count == 2 + 2 * joints);
    CHECK(same_point(verts[0].pos, a, 0.0f) && same_point(verts[1].pos, b, 0.0f) && verts[0].rgba == 0x12345678u);
    ctrl_debug_draw(c, CTRL_DRAW_JOINTS, &dl);
    CHECK(dl.count == 2 + 4 * joints);
    /* Nothing to draw into: nothing happens. */
    ctrl_debug_draw(c, CTRL_DRAW_ALL, NULL);
    ctrl_debug_draw(NULL, CTRL_DRAW_ALL, &dl);
    CHECK(dl.count == 2 + 4 * joints);
}

/* ---- the trajectory ------------------------------------------------------------ */

static void test_trajectory(void)
{
    ctrl_t *c = reset_facing(0.0f);
    /* Frame i at (3 i, i / 2, -2 i), facing turning with i, its gait
     * walking into running. */
    for (int i = 0; i < CTRL_TRAJ_FRAMES; i++) {
        float t = (float)i / (float)(CTRL_TRAJ_FRAMES - 1), yaw = 0.02f * (float)i;
        c->traj.pos[i][0] = 3.0f * (float)i;
        c->traj.pos[i][1] = 0.5f * (float)i;
        c->traj.pos[i][2] = -2.0f * (float)i;
        c->traj.dir[i][0] = sinf(yaw);
        c->traj.dir[i][1] = cosf(yaw);
        memset(c->traj.gait[i], 0, sizeof c->traj.gait[i]);
        c->traj.gait[i][CTRL_GAIT_WALK] = 1.0f - t;
        c->traj.gait[i][CTRL_GAIT_RUN] = t;
    }
    debug_lines_t dl = empty_lines();
    ctrl_debug_draw(c, CTRL_DRAW_TRAJECTORY, &dl);
    CHECK(dl.count == 2 * (CTRL_TRAJ_FRAMES - 1 + CTRL_TRAJ_POINTS));
    /* The path: frame to frame, lifted by one height over the ground. */
    float lift = verts[0].pos[1] - c->traj.pos[0][1];
    CHECKF(lift > 0.0f && lift < 10.0f, "the path lifted %.3f cm", (double)lift);
    int bad_pos = 0, bad_rgb = 0, bad_alpha = 0;
    uint32_t past_alpha = channel(verts[0].rgba, 3), future_alpha = channel(verts[2 * CTRL_TRAJ_NOW].rgba, 3);
    for (int i = 0; i + 1 < CTRL_TRAJ_FRAMES; i++) {
        const debug_line_vertex_t *v = &verts[2 * i];
        float a[3] = {c->traj.pos[i][0], c->traj.pos[i][1] + lift, c->traj.pos[i][2]};
        float b[3] = {c->traj.pos[i + 1][0], c->traj.pos[i + 1][1] + lift, c->traj.pos[i + 1][2]};
        if (!same_point(v[0].pos, a, TOL) || !same_point(v[1].pos, b, TOL))
            bad_pos++;
        uint32_t want = ctrl_gait_rgba(c->traj.gait[i]);
        if ((v[0].rgba & 0x00FFFFFFu) != (want & 0x00FFFFFFu) || v[1].rgba != v[0].rgba)
            bad_rgb++;
        if (channel(v[0].rgba, 3) != (i < CTRL_TRAJ_NOW ? past_alpha : future_alpha))
            bad_alpha++;
    }
    CHECKF(bad_pos == 0, "%d path segments not between their frames", bad_pos);
    CHECKF(bad_rgb == 0, "%d path segments not in their frame's gait colour", bad_rgb);
    CHECKF(bad_alpha == 0, "%d path segments with the other half's alpha", bad_alpha);
    /* The past dimmer than the (opaque) future. */
    CHECKF(future_alpha == 255u && past_alpha < future_alpha, "alpha %u past, %u future", past_alpha, future_alpha);
    /* The ticks: from each sample along its facing, level; the current one
     * twice as long as the others. */
    const debug_line_vertex_t *ticks = &verts[2 * (CTRL_TRAJ_FRAMES - 1)];
    float tick_len = 0.0f;
    for (int j = 0; j < CTRL_TRAJ_POINTS; j++) {
        int i = j * CTRL_TRAJ_STEP;
        const debug_line_vertex_t *v = &ticks[2 * j];
        float a[3] = {c->traj.pos[i][0], c->traj.pos[i][1] + lift, c->traj.pos[i][2]};
        CHECKF(same_point(v[0].pos, a, TOL), "tick %d does not start at its sample", j);
        float dx = v[1].pos[0] - v[0].pos[0], dz = v[1].pos[2] - v[0].pos[2], len = hypotf(dx, dz);
        CHECK_NEAR(v[1].pos[1], v[0].pos[1], TOL);
        CHECKF(fabsf(dx - c->traj.dir[i][0] * len) <= TOL && fabsf(dz - c->traj.dir[i][1] * len) <= TOL,
               "tick %d not along its facing", j);
        if (j == 0)
            tick_len = len;
        CHECK_NEAR(len, (i == CTRL_TRAJ_NOW ? 2.0f : 1.0f) * tick_len, TOL);
        CHECK(v[0].rgba == ctrl_gait_rgba(c->traj.gait[i]));
    }
    CHECK(tick_len > 1.0f);
}

/* ---- the contacts -------------------------------------------------------------- */

static void test_contacts(void)
{
    ctrl_t *c = reset_facing(0.9f);
    /* The left heel and right toe locked, the lock's weight 1 and 0.4, the
     * locks away from the shown points. */
    const bool on[CTRL_CONTACTS] = {true, false, false, true};
    const float weight[CTRL_CONTACTS] = {1.0f, 0.0f, 0.0f, 0.4f};
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        c->foot.on[k] = on[k];
        c->foot.weight[k] = weight[k];
        c->foot.lock[k][0] = 50.0f + 10.0f * (float)k;
        c->foot.lock[k][1] = -99.0f;
        c->foot.lock[k][2] = -30.0f;
    }
    float p[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, p);
    debug_lines_t dl = empty_lines();
    ctrl_debug_draw(c, CTRL_DRAW_CONTACTS, &dl);
    CHECK(dl.count == 2 * (2 * CTRL_CONTACTS + 2));
    const debug_line_vertex_t *v = verts;
    float arm = 0.0f;
    for (int k = 0; k < CTRL_CONTACTS; k++) {
        /* A cross centred on the point, along x then z, arms alike. */
        for (int axis = 0; axis < 3; axis += 2, v += 2) {
            float mid[3], d[3];
            for (int n = 0; n < 3; n++) {
                mid[n] = 0.5f * (v[0].pos[n] + v[1].pos[n]);
                d[n] = v[1].pos[n] - v[0].pos[n];
            }
            CHECKF(same_point(mid, p[k], TOL), "point %d: a cross arm not centred on it", k);
            if (arm == 0.0f)
                arm = d[axis];
            int other = 2 - axis;
            CHECKF(fabsf(d[axis] - arm) <= TOL && fabsf(d[other]) <= TOL && fabsf(d[1]) <= TOL,
                   "point %d: arm (%.3f, %.3f, %.3f) not %.3f along axis %d", k, (double)d[0], (double)d[1],
                   (double)d[2], (double)arm, axis);
            unsigned r = channel(v[0].rgba, 0), g = channel(v[0].rgba, 1);
            CHECKF(on[k] ? g > 2 * r : r > 2 * g, "point %d (%s): colour %08x", k, on[k] ? "locked" : "free",
                   (unsigned)v[0].rgba);
        }
        /* The bar: over the lock, from the point's height, as tall as the
         * weight (10 cm at 1). */
        if (weight[k] > 0.0f) {
            const float base[3] = {c->foot.lock[k][0], p[k][1], c->foot.lock[k][2]};
            const float top[3] = {base[0], base[1] + 10.0f * weight[k], base[2]};
            CHECKF(same_point(v[0].pos, base, TOL) && same_point(v[1].pos, top, TOL), "point %d: the bar", k);
            CHECK(channel(v[0].rgba, 1) > 2 * channel(v[0].rgba, 0));
            v += 2;
        }
    }
    CHECK(arm > 1.0f);
}

/* ---- the bones ----------------------------------------------------------------- */

static void test_joints(void)
{
    ctrl_t *c = reset_facing(-0.5f);
    /* Bend a leg so no bone lies where the rest pose put it. */
    const float bend[4] = {sinf(0.3f), 0.0f, 0.0f, cosf(0.3f)};
    memcpy(c->pose.rot[c->j.shin[0]], bend, sizeof bend);
    ctrl_update_model(c);
    debug_lines_t dl = empty_lines();
    ctrl_debug_draw(c, CTRL_DRAW_JOINTS, &dl);
    const skel_t *s = c->skel;
    int bad = 0;
    for (int b = 1; b < s->joint_count; b++) {
        const debug_line_vertex_t *v = &verts[2 * (b - 1)];
        if (!same_point(v[0].pos, c->joint_pos[s->joint_parent[b]], TOL) || !same_point(v[1].pos, c->joint_pos[b], TOL))
            bad++;
    }
    CHECKF(bad == 0, "%d bones not from their parent joint to their joint", bad);
    /* Then each foot from heel to toe tip. */
    float p[CTRL_CONTACTS][3];
    ctrl_contact_pos(c, p);
    const debug_line_vertex_t *feet = &verts[2 * (s->joint_count - 1)];
    for (int side = 0; side < 2; side++) {
        CHECK(same_point(feet[2 * side].pos, p[2 * side], TOL));
        CHECK(same_point(feet[2 * side + 1].pos, p[2 * side + 1], TOL));
    }
}

/* ---- the level ----------------------------------------------------------------- */

/* P lies LIFT plus ABOVE over the ground. */
static bool on_ground(const float p[3], float lift, float above)
{
    return fabsf(p[1] - (plane(p[0], p[2]) + lift + above)) <= TOL;
}

static void test_level(void)
{
    ctrl_t *c = reset_facing(0.0f);
    const level_t *l = &fx.level;
    debug_lines_t dl = empty_lines();
    ctrl_debug_draw(c, CTRL_DRAW_LEVEL, &dl);
    const debug_line_vertex_t *v = verts;
    /* Walls: the centre line at its foot, and again straight above it. */
    float lift = v[0].pos[1] - plane(v[0].pos[0], v[0].pos[2]);
    CHECKF(lift > 0.0f && lift < 10.0f, "the level's lines lifted %.3f cm", (double)lift);
    float top = v[2].pos[1] - v[0].pos[1];
    for (int i = 0; i < l->wall_count; i++, v += 4) {
        const level_wall_t *w = &l->walls[i];
        const float a[3] = {w->x0, plane(w->x0, w->z0) + lift, w->z0},
                    b[3] = {w->x1, plane(w->x1, w->z1) + lift, w->z1};
        CHECKF(same_point(v[0].pos, a, TOL) && same_point(v[1].pos, b, TOL), "wall %d: its foot", i);
        const float a2[3] = {a[0], a[1] + top, a[2]}, b2[3] = {b[0], b[1] + top, b[2]};
        CHECKF(same_point(v[2].pos, a2, TOL) && same_point(v[3].pos, b2, TOL), "wall %d: its top", i);
    }
    /* As tall as the walls collide and are drawn (level.h). */
    CHECKF(fabsf(top - LEVEL_WALL_HEIGHT_CM) < TOL, "the walls' tops %.3f cm up, want %.0f", (double)top,
           (double)LEVEL_WALL_HEIGHT_CM);
    /* Crouch areas: their four sides, corner to corner round the box, at
     * the ceiling over the ground. */
    for (int i = 0; i < l->crouch_count; i++) {
        const level_crouch_area_t *r = &l->crouch[i];
        const float xs[4] = {r->min_x, r->max_x, r->max_x, r->min_x}, zs[4] = {r->min_z, r->min_z, r->max_z, r->max_z};
        for (int k = 0; k < 4; k++, v += 2) {
            int n = (k + 1) & 3;
            bool ok = fabsf(v[0].pos[0] - xs[k]) <= TOL && fabsf(v[0].pos[2] - zs[k]) <= TOL &&
                      fabsf(v[1].pos[0] - xs[n]) <= TOL && fabsf(v[1].pos[2] - zs[n]) <= TOL &&
                      on_ground(v[0].pos, lift, r->ceiling_cm) && on_ground(v[1].pos, lift, r->ceiling_cm);
            CHECKF(ok, "crouch area %d, side %d", i, k);
        }
    }
    /* Jump areas: a closed chain of segments on the circle, on the ground. */
    for (int i = 0; i < l->jump_count; i++) {
        const level_jump_area_t *j = &l->jump[i];
        int off = 0, broken = 0;
        for (int k = 0; k < CIRCLE_SEGMENTS; k++) {
            const debug_line_vertex_t *s = &v[2 * k], *next = &v[2 * ((k + 1) % CIRCLE_SEGMENTS)];
            for (int e = 0; e < 2; e++)
                if (fabsf(hypotf(s[e].pos[0] - j->x, s[e].pos[2] - j->z) - j->radius_cm) > TOL ||
                    !on_ground(s[e].pos, lift, 0.0f))
                    off++;
            if (!same_point(s[1].pos, next[0].pos, TOL) || same_point(s[0].pos, s[1].pos, TOL))
                broken++;
        }
        CHECKF(off == 0, "jump area %d: %d ends off its circle or the ground", i, off);
        CHECKF(broken == 0, "jump area %d: the circle broken at %d segments", i, broken);
        v += 2 * CIRCLE_SEGMENTS;
    }
    CHECK(v == verts + dl.count);
}

/* ---- main ---------------------------------------------------------------------- */

static const ctrl_fixture_group_t groups[] = {
    {"gait_rgba", test_gait_rgba}, {"counts", test_counts}, {"trajectory", test_trajectory},
    {"contacts", test_contacts},   {"joints", test_joints}, {"level", test_level},
};

int main(int argc, char **argv)
{
    return ctrl_fixture_main(argc, argv, "test_ctrl_debug", &fx, make_level, NULL, groups,
                             (int)(sizeof groups / sizeof groups[0]));
}
