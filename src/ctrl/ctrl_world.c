/* ctrl_world.c: the ground under the character and what blocks it (see
 * ctrl_world.h). */
#include "ctrl/ctrl_world.h"

#include "core/log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A jump this strong that carries the root over a gap holds its height
 * there (ctrl_support_height), for the root and the feet, until the ground
 * is back within CTRL_GAP_RELEASE_CM of it. */
#define CTRL_GAP_RELEASE_CM 10.0f
#define CTRL_JUMP_HOLD_MIN 0.1f
/* Ledges: ground within this distance more than a step higher or lower. */
#define CTRL_LEDGE_SPAN_CM 40.0f
#define CTRL_LEDGE_PASSES 3
/* Among ledges, a move may not take the root deeper in by more than this
 * (cm): rounding, not a step. */
#define CTRL_LEDGE_DEEPER_CM 1e-3f
/* Among ledges, a move may not take the root's ground further than this
 * (cm) from the height of the terrain sample nearest where it was (its side
 * of the ledge), unless it was further already: half a step, so walkable
 * slopes (less than a step per cell) pass between samples and a ledge's
 * cliff (more than a step within a cell) is not climbed or stepped down. */
#define CTRL_LEDGE_SIDE_CM (0.5f * CTRL_STEP_MAX_CM)
/* ... except down a drop of at most this (cm) from that height to the
 * lowest sample of the cell the move ends in: after landing on a low
 * obstacle's crest (gaps' 35 and 45 cm boxes) a leg steps down off it, as it
 * would not off a trench's bank (90 cm and more). */
#define CTRL_LEDGE_STEP_DOWN_CM 50.0f
/* Over a gap the root moves on at least this fast towards the nearest
 * ground found within the second distance (probed every third) in a fan of
 * directions about the way it took off, else back; and fast enough to be
 * there within CTRL_GAP_LAND_S of taking off (a jump along a trench would
 * otherwise run on over it), at most CTRL_GAP_SPEED_MAX_CM_S. */
#define CTRL_GAP_SPEED_CM_S 200.0f
#define CTRL_GAP_SPEED_MAX_CM_S 800.0f
#define CTRL_GAP_MAX_CM 300.0f
#define CTRL_GAP_PROBE_CM 10.0f
#define CTRL_GAP_FAN 4
#define CTRL_GAP_FAN_STEP_RAD 0.3f
#define CTRL_GAP_LAND_S 0.85f
#define CTRL_GAP_DETOUR 1.5f
/* Steps after landing over a gap during which ledges do not block. */
#define CTRL_LANDING_STEPS 20

/* Ceilings: crouch this far ahead (s of trajectory) and behind; keep every
 * point this far below; lower the body at most this much (cm), and let it
 * back up with this time constant (s). */
#define CTRL_CEILING_AHEAD_S 0.75f
#define CTRL_CEILING_BEHIND_S 0.25f
#define CTRL_CEILING_MARGIN_CM 2.0f
#define CTRL_CEILING_DROP_MAX_CM 80.0f
#define CTRL_CEILING_RELAX_TAU_S 0.3f
#define CTRL_CEILING_RAMP 0.6f

/* Level edges: the root stays this far plus its radius inside the terrain. */
#define CTRL_EDGE_CLEARANCE_CM 40.0f
/* Walls: no body point closer than this to a wall's surface (cm); passes
 * for corners. */
#define CTRL_WALL_MARGIN_CM 1.0f
#define CTRL_WALL_PASSES 3

float ctrl_ground(const ctrl_t *c, float x, float z) { return terrain_height(&c->level->terrain, x, z); }

bool ctrl_over_gap(const ctrl_t *c)
{
    /* Also just after landing: a foot still trailing over the gap would
     * drop into it and snap back up when it lifts. */
    return c->ground_held || c->landing_steps > 0;
}

float ctrl_gap_floor_ground(const ctrl_t *c, float x, float z, float w)
{
    float g = ctrl_ground(c, x, z);
    float root_h = c->traj.pos[CTRL_TRAJ_NOW][1];
    return g < root_h - CTRL_GAP_RELEASE_CM ? g + w * (root_h - g) : g;
}

float ctrl_foot_ground(const ctrl_t *c, float x, float z)
{
    return ctrl_gap_floor_ground(c, x, z, ctrl_over_gap(c) ? 1.0f : 0.0f);
}

/* Keeps (x, z) at least MARGIN inside the terrain's edges. */
static void keep_on_terrain(const ctrl_t *c, float margin, float *x, float *z)
{
    float min_x, min_z, max_x, max_z;
    terrain_bounds(&c->level->terrain, &min_x, &min_z, &max_x, &max_z);
    *x = clampf(*x, min_x + margin, max_x - margin);
    *z = clampf(*z, min_z + margin, max_z - margin);
}

/* ---- ledges -------------------------------------------------------------- */

/* DIST[k]: the distance (cm) from sample k to the nearest sample not on a
 * ledge (0 off the ledges), by the two-pass chamfer transform with steps
 * of one cell and a diagonal (within 8 % of the straight-line distance). */
static void ledge_distances(const terrain_t *t, const uint8_t *ledge, float *dist)
{
    const float big = 1.0e9f, straight = t->cell_cm, diagonal = t->cell_cm * 1.41421356f;
    int w = t->width, d = t->depth;
    for (int k = 0; k < w * d; k++)
        dist[k] = ledge[k] ? big : 0.0f;
    /* Forward: from the neighbours above and to the left; backward: below
     * and to the right. */
    for (int pass = 0; pass < 2; pass++) {
        int s = pass == 0 ? 1 : -1;
        for (int jj = 0; jj < d; jj++) {
            int j = pass == 0 ? jj : d - 1 - jj;
            for (int ii = 0; ii < w; ii++) {
                int i = pass == 0 ? ii : w - 1 - ii;
                float *p = &dist[(size_t)j * (size_t)w + (size_t)i];
                if (*p == 0.0f)
                    continue;
                if (i - s >= 0 && i - s < w)
                    *p = fminf(*p, p[-s] + straight);
                if (j - s >= 0 && j - s < d) {
                    const float *q = p - (ptrdiff_t)s * w;
                    *p = fminf(*p, q[0] + straight);
                    if (i - s >= 0 && i - s < w)
                        *p = fminf(*p, q[-s] + diagonal);
                    if (i + s >= 0 && i + s < w)
                        *p = fminf(*p, q[s] + diagonal);
                }
            }
        }
    }
}

/* How deep (cm) (x, z) lies among ledges: the distances of the samples
 * around it to ground off them, interpolated as the terrain's heights are
 * (continuous: a step towards clear ground reads less). */
/* The ledge map of the level the controller is on, or NULL (none). */
static const uint8_t *ledge_map(const ctrl_t *c) { return c->world ? c->world->ledge : NULL; }

static float ledge_field(const ctrl_t *c, float x, float z)
{
    if (!ledge_map(c))
        return 0.0f;
    return terrain_interpolate(&c->level->terrain, c->world->ledge_dist, x, z);
}

/* Builds W's ledge map of LEVEL, reusing W's memory when it is large
 * enough. Out of memory: no map (ledges do not block), one logged line. */
static void level_view_build(ctrl_level_t *w, const level_t *level)
{
    const terrain_t *t = &level->terrain;
    size_t n = (size_t)t->width * (size_t)t->depth;
    w->level = level;
    if (n > w->cap) {
        free(w->ledge);
        free(w->ledge_dist);
        w->ledge = malloc(n);
        w->ledge_dist = malloc(n * sizeof *w->ledge_dist);
        w->cap = n;
        if (!w->ledge || !w->ledge_dist) {
            log_warn("ctrl: no memory for the ledge map of %dx%d samples; ledges will not block", t->width, t->depth);
            free(w->ledge);
            free(w->ledge_dist);
            w->ledge = NULL;
            w->ledge_dist = NULL;
            w->cap = 0;
            return;
        }
    }
    /* A sample is on a ledge when ground within CTRL_LEDGE_SPAN_CM of it is
     * more than a step higher or lower: a drop no leg steps down, a wall of
     * earth no leg steps up. */
    int span = (int)lrintf(CTRL_LEDGE_SPAN_CM / t->cell_cm);
    if (span < 1)
        span = 1;
    for (int j = 0; j < t->depth; j++)
        for (int i = 0; i < t->width; i++) {
            float h = t->heights[(size_t)j * (size_t)t->width + (size_t)i];
            bool ledge = false;
            for (int dj = -span; dj <= span && !ledge; dj++) {
                int jj = j + dj;
                if (jj < 0 || jj >= t->depth)
                    continue;
                for (int di = -span; di <= span; di++) {
                    int ii = i + di;
                    if (ii < 0 || ii >= t->width)
                        continue;
                    if (fabsf(t->heights[(size_t)jj * (size_t)t->width + (size_t)ii] - h) > CTRL_STEP_MAX_CM) {
                        ledge = true;
                        break;
                    }
                }
            }
            w->ledge[(size_t)j * (size_t)t->width + (size_t)i] = ledge;
        }
    ledge_distances(t, w->ledge, w->ledge_dist);
}

ctrl_level_t *ctrl_level_create(const level_t *level)
{
    ctrl_level_t *w = calloc(1, sizeof *w);
    if (!w) {
        log_error("ctrl: out of memory for a level view");
        return NULL;
    }
    level_view_build(w, level);
    return w;
}

void ctrl_level_destroy(ctrl_level_t *w)
{
    if (!w)
        return;
    free(w->ledge);
    free(w->ledge_dist);
    free(w);
}

void ctrl_world_reset(ctrl_t *c, const ctrl_level_t *shared)
{
    c->ground_held = false;
    if (shared) {
        c->world = shared;
    } else {
        if (!c->own_world)
            c->own_world = calloc(1, sizeof *c->own_world);
        if (c->own_world)
            level_view_build(c->own_world, c->level);
        else
            log_warn("ctrl: no memory for a level view; ledges will not block");
        c->world = c->own_world;
    }
}

void ctrl_world_free(ctrl_t *c)
{
    ctrl_level_destroy(c->own_world);
    c->own_world = NULL;
    c->world = NULL;
}

/* The samples (columns I0..I1, rows J0..J1, within the terrain) whose
 * cells a disc of RADIUS at (x, z) may reach. */
typedef struct ledge_window_t {
    int i0, i1, j0, j1;
} ledge_window_t;

static ledge_window_t ledge_window_at(const terrain_t *t, float radius, float x, float z)
{
    int reach = (int)ceilf((radius + 0.5f * t->cell_cm) / t->cell_cm) + 1;
    int ci = (int)lrintf((x - t->origin_x) / t->cell_cm), cj = (int)lrintf((z - t->origin_z) / t->cell_cm);
    ledge_window_t w = {ci - reach, ci + reach, cj - reach, cj + reach};
    w.i0 = w.i0 < 0 ? 0 : w.i0;
    w.j0 = w.j0 < 0 ? 0 : w.j0;
    w.i1 = w.i1 > t->width - 1 ? t->width - 1 : w.i1;
    w.j1 = w.j1 > t->depth - 1 ? t->depth - 1 : w.j1;
    return w;
}

/* How far (cm) a disc of RADIUS at (x, z) reaches into the ledge sample
 * cell it reaches deepest into (a cell is a square of the terrain's cell
 * size around its sample; inside one, the radius plus the distance to its
 * nearest side); 0 when it is clear. Continuous in (x, z), unlike the
 * length of the push out below, which walks the point out cell by cell. */
static float ledge_depth(const ctrl_t *c, float radius, float x, float z)
{
    const uint8_t *ledge = ledge_map(c);
    if (!ledge)
        return 0.0f;
    const terrain_t *t = &c->level->terrain;
    float half = 0.5f * t->cell_cm;
    ledge_window_t w = ledge_window_at(t, radius, x, z);
    float worst = 0.0f;
    for (int j = w.j0; j <= w.j1; j++)
        for (int i = w.i0; i <= w.i1; i++) {
            if (!ledge[(size_t)j * (size_t)t->width + (size_t)i])
                continue;
            float ex = fabsf(x - (t->origin_x + (float)i * t->cell_cm)) - half;
            float ez = fabsf(z - (t->origin_z + (float)j * t->cell_cm)) - half;
            /* Signed distance to the cell: negative inside. */
            float sd = ex > 0.0f || ez > 0.0f ? hypotf(fmaxf(ex, 0.0f), fmaxf(ez, 0.0f)) : fmaxf(ex, ez);
            worst = fmaxf(worst, radius - sd);
        }
    return worst;
}

/* A point among ledges that a move starts from: its ledge_field, how far
 * its disc reaches in (ledge_depth), its ground and the height of the
 * terrain sample nearest it. */
typedef struct ledge_from_t {
    float field, touch, ground, side;
} ledge_from_t;

/* The lowest of the four samples around (x, z) (the cell it lies in). */
static float cell_lowest(const terrain_t *t, float x, float z)
{
    int i = (int)floorf((x - t->origin_x) / t->cell_cm), j = (int)floorf((z - t->origin_z) / t->cell_cm);
    float lo = INFINITY;
    for (int dj = 0; dj < 2; dj++)
        for (int di = 0; di < 2; di++) {
            int ii = i + di < 0 ? 0 : (i + di > t->width - 1 ? t->width - 1 : i + di);
            int jj = j + dj < 0 ? 0 : (j + dj > t->depth - 1 ? t->depth - 1 : j + dj);
            lo = fminf(lo, t->heights[(size_t)jj * (size_t)t->width + (size_t)ii]);
        }
    return lo;
}

static ledge_from_t ledge_from_at(const ctrl_t *c, float touch, float x, float z)
{
    const terrain_t *t = &c->level->terrain;
    int i = (int)lrintf((x - t->origin_x) / t->cell_cm), j = (int)lrintf((z - t->origin_z) / t->cell_cm);
    i = i < 0 ? 0 : (i > t->width - 1 ? t->width - 1 : i);
    j = j < 0 ? 0 : (j > t->depth - 1 ? t->depth - 1 : j);
    ledge_from_t f = {ledge_field(c, x, z), touch, ctrl_ground(c, x, z),
                      t->heights[(size_t)j * (size_t)t->width + (size_t)i]};
    return f;
}

bool ctrl_drops_past_step(const ctrl_t *c, const float from[2], const float to[2])
{
    return ctrl_ground(c, from[0], from[1]) - cell_lowest(&c->level->terrain, to[0], to[1]) > CTRL_LEDGE_STEP_DOWN_CM;
}

/* Among ledges, (x, z) is deeper in than the point F: further from ground
 * off the ledges, or up or down the cliff F stands beside (its ground
 * further from F's side than CTRL_LEDGE_SIDE_CM and than F's own; down a
 * drop of at most CTRL_LEDGE_STEP_DOWN_CM is allowed), or, both
 * on ground off the ledges, reaching further in. The second catches what
 * the first cannot: the field is level across a ledge's edge (the samples
 * either side of it are as far from ground off the ledges), so a point on
 * that crest would otherwise walk over the edge. */
static bool deeper_among_ledges(const ctrl_t *c, float radius, const ledge_from_t *f, float x, float z)
{
    float field = ledge_field(c, x, z);
    if (field > f->field + CTRL_LEDGE_DEEPER_CM)
        return true;
    float off = ctrl_ground(c, x, z) - f->side;
    if (fabsf(off) > fmaxf(CTRL_LEDGE_SIDE_CM, fabsf(f->ground - f->side)) + CTRL_LEDGE_DEEPER_CM) {
        if (off > 0.0f || f->side - cell_lowest(&c->level->terrain, x, z) > CTRL_LEDGE_STEP_DOWN_CM)
            return true;
    }
    if (field > CTRL_LEDGE_DEEPER_CM || f->field > CTRL_LEDGE_DEEPER_CM)
        return false;
    return ledge_depth(c, radius, x, z) > f->touch + CTRL_LEDGE_DEEPER_CM;
}

/* Pushes (x, z) with RADIUS out of every ledge sample's cell (a square of
 * the terrain's cell size around the sample). */
static void push_out_of_ledges(const ctrl_t *c, float radius, float *x, float *z)
{
    const uint8_t *ledge = ledge_map(c);
    if (!ledge)
        return;
    const terrain_t *t = &c->level->terrain;
    float half = 0.5f * t->cell_cm;
    for (int pass = 0; pass < CTRL_LEDGE_PASSES; pass++) {
        ledge_window_t w = ledge_window_at(t, radius, *x, *z);
        float best = 0.0f, bx = 0.0f, bz = 0.0f;
        for (int j = w.j0; j <= w.j1; j++) {
            for (int i = w.i0; i <= w.i1; i++) {
                if (!ledge[(size_t)j * (size_t)t->width + (size_t)i])
                    continue;
                float sx = t->origin_x + (float)i * t->cell_cm, sz = t->origin_z + (float)j * t->cell_cm;
                float qx = clampf(*x, sx - half, sx + half), qz = clampf(*z, sz - half, sz + half);
                float dx = *x - qx, dz = *z - qz, d = hypotf(dx, dz);
                float depth;
                if (d > 1e-4f) {
                    depth = radius - d;
                    dx /= d;
                    dz /= d;
                } else {
                    /* Inside the cell: out through its nearest side. */
                    float ex = half - fabsf(*x - sx), ez = half - fabsf(*z - sz);
                    if (ex < ez) {
                        dx = *x >= sx ? 1.0f : -1.0f;
                        dz = 0.0f;
                        depth = radius + ex;
                    } else {
                        dx = 0.0f;
                        dz = *z >= sz ? 1.0f : -1.0f;
                        depth = radius + ez;
                    }
                }
                if (depth > best) {
                    best = depth;
                    bx = dx;
                    bz = dz;
                }
            }
        }
        if (!(best > 0.0f))
            return;
        *x += bx * best;
        *z += bz * best;
    }
}

bool ctrl_on_ledge(const ctrl_t *c, float x, float z) { return c->world && ctrl_level_on_ledge(c->world, x, z); }

bool ctrl_level_on_ledge(const ctrl_level_t *w, float x, float z)
{
    const uint8_t *ledge = w->ledge;
    if (!ledge)
        return false;
    const terrain_t *t = &w->level->terrain;
    int i = (int)lrintf((x - t->origin_x) / t->cell_cm), j = (int)lrintf((z - t->origin_z) / t->cell_cm);
    if (i < 0 || j < 0 || i >= t->width || j >= t->depth)
        return false;
    return ledge[(size_t)j * (size_t)t->width + (size_t)i];
}

/* ---- other characters ---------------------------------------------------- */

/* How far (cm) a disc of RADIUS at (x, z) reaches into the deepest of the
 * other characters' capsules (ctrl_set_obstacles); 0 when clear. */
static float obstacle_depth(const ctrl_t *c, float radius, float x, float z)
{
    float worst = 0.0f;
    for (int k = 0; k < c->obstacle_count; k++) {
        const float *o = c->obstacle[k];
        float d = hypotf(x - o[0], z - o[1]);
        worst = fmaxf(worst, radius + o[2] - d);
    }
    return worst;
}

/* Pushes (x, z) with RADIUS out of the other characters' capsules, the
 * deepest first: a move towards one slides around it. */
static void push_out_of_obstacles(const ctrl_t *c, float radius, float *x, float *z)
{
    for (int pass = 0; pass < CTRL_OBSTACLE_PASSES; pass++) {
        float best = 0.0f, bx = 0.0f, bz = 0.0f;
        for (int k = 0; k < c->obstacle_count; k++) {
            const float *o = c->obstacle[k];
            float dx = *x - o[0], dz = *z - o[1], d = hypotf(dx, dz);
            float depth = radius + o[2] - d;
            if (!(depth > best))
                continue;
            best = depth;
            if (d > 1e-3f) {
                bx = dx / d;
                bz = dz / d;
            } else { /* on the centre: out sideways, the same way every time */
                bx = 1.0f;
                bz = 0.0f;
            }
        }
        if (!(best > 0.0f))
            return;
        *x += bx * best;
        *z += bz * best;
    }
}

/* ---- a point's move ------------------------------------------------------ */

/* How far inside the level's edges a point of RADIUS stays (cm): they block
 * like walls, the root CTRL_EDGE_CLEARANCE_CM plus its radius inside, the
 * trajectory its own radius further in. */
static float edge_margin(float radius) { return CTRL_EDGE_CLEARANCE_CM + radius; }

/* The last step of a move from FROM: (X, Z), the candidate CAND as the
 * earlier steps left it, is pushed out of the walls and kept on the level,
 * and taken into CAND unless the way there crosses a wall; then CAND stays
 * (already kept on the level) if the way to it does not cross one, else
 * the point stays at FROM. */
static void settle_against_walls(const ctrl_t *c, const float from[2], float radius, float x, float z, float cand[2])
{
    level_push_out_of_walls(c->level, &x, &z, radius);
    keep_on_terrain(c, edge_margin(radius), &x, &z);
    if (!level_segment_crosses_wall(c->level, from[0], from[1], x, z)) {
        cand[0] = x;
        cand[1] = z;
    } else if (level_segment_crosses_wall(c->level, from[0], from[1], cand[0], cand[1])) {
        cand[0] = from[0];
        cand[1] = from[1];
    }
}

/* ctrl_collide_point with OVER_LEDGES and without the other characters:
 * only the walls and the level's edges hold the point back. */
static void collide_walls_and_edges(const ctrl_t *c, const float from[2], float radius, float cand[2])
{
    keep_on_terrain(c, edge_margin(radius), &cand[0], &cand[1]);
    settle_against_walls(c, from, radius, cand[0], cand[1], cand);
}

void ctrl_collide_point(const ctrl_t *c, const float from[2], float radius, bool over_ledges, float cand[2])
{
    keep_on_terrain(c, edge_margin(radius), &cand[0], &cand[1]);
    float x = cand[0], z = cand[1];
    if (!over_ledges) {
        /* Already among ledges (landed there, or a jump ended there): it
         * may move, but not deeper in; pushed out from there, it would
         * jump across the margin in one step. A move that would go deeper
         * keeps what it can of itself along x or z, as a move into a wall
         * slides along it: refused whole, a walk that drifts a little
         * towards the ledge while leaving it stalls. */
        float from_touch = ledge_depth(c, radius, from[0], from[1]);
        if (from_touch > 0.0f) {
            /* The rest of where it starts only when among ledges: this
             * runs for every trajectory point of every character. */
            ledge_from_t f = ledge_from_at(c, from_touch, from[0], from[1]);
            if (deeper_among_ledges(c, radius, &f, x, z)) {
                float ax = fabsf(x - from[0]), az = fabsf(z - from[1]);
                bool x_ok = !deeper_among_ledges(c, radius, &f, x, from[1]);
                bool z_ok = !deeper_among_ledges(c, radius, &f, from[0], z);
                if (x_ok && (!z_ok || ax >= az)) {
                    z = from[1];
                } else if (z_ok) {
                    x = from[0];
                } else {
                    x = from[0];
                    z = from[1];
                }
            }
        } else {
            push_out_of_ledges(c, radius, &x, &z);
        }
    }
    push_out_of_obstacles(c, radius, &x, &z);
    settle_against_walls(c, from, radius, x, z, cand);
    /* A wall can push a point back into another character; a move that
     * ends deeper in one than it began is refused, as a move through a
     * wall is: two bodies never go further into each other. */
    if (obstacle_depth(c, radius, cand[0], cand[1]) > obstacle_depth(c, radius, from[0], from[1]) + 1e-3f) {
        cand[0] = from[0];
        cand[1] = from[1];
    }
}

/* ---- the body against walls ------------------------------------------------- */

/* How deep (cm, with the margin) P reaches into the nearest wall below its
 * top, and the way out of it; 0 when it is clear. Seen from the root: a
 * point past a wall's middle goes back the way it came, not on through. */
float ctrl_wall_depth(const ctrl_t *c, const float p[3], float *ax, float *az)
{
    if (p[1] - ctrl_ground(c, p[0], p[2]) >= LEVEL_WALL_HEIGHT_CM)
        return 0.0f;
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float clear = level_wall_clearance_from(c->level, p[0], p[2], root[0], root[2], ax, az);
    return fmaxf(0.0f, CTRL_WALL_MARGIN_CM - clear);
}

bool ctrl_keep_out_of_walls(ctrl_t *c, float moved[2])
{
    moved[0] = moved[1] = 0.0f;
    if (c->level->wall_count == 0)
        return false;
    float *root = c->traj.pos[CTRL_TRAJ_NOW];
    for (int pass = 0; pass < CTRL_WALL_PASSES; pass++) {
        float worst = 0.0f, wx = 0.0f, wz = 0.0f;
        float pts[CTRL_JOINTS + 4][3];
        int n = 0;
        for (int b = 0; b < CTRL_JOINTS; b++)
            memcpy(pts[n++], c->joint_pos[b], sizeof pts[0]);
        ctrl_contact_points(c, &pts[n]);
        n += 2;
        ctrl_head_top(c, pts[n++]);
        for (int k = 0; k < n; k++) {
            float ax, az;
            float d = ctrl_wall_depth(c, pts[k], &ax, &az);
            if (d > worst) {
                worst = d;
                wx = ax;
                wz = az;
            }
        }
        if (!(worst > 0.0f))
            break;
        /* Move the whole character (root, pose, the joints it feeds back)
         * out along that wall's normal, never into another or off the level. */
        float from[2] = {root[0], root[2]};
        float cand[2] = {root[0] + wx * worst, root[2] + wz * worst};
        /* Other characters do not hold it in: squeezed between one and a
         * wall, a hand stayed 2.3 cm in the wall; the other's capsule is
         * left to its own avoidance. Ledges do not either: the push may
         * cross them, as a jump does. */
        collide_walls_and_edges(c, from, CTRL_ROOT_RADIUS_CM, cand);
        float dx = cand[0] - root[0], dz = cand[1] - root[2];
        if (!(dx * dx + dz * dz > 1e-6f))
            break;
        moved[0] += dx;
        moved[1] += dz;
        root[0] += dx;
        root[2] += dz;
        c->prev_root[0] += dx;
        c->prev_root[2] += dz;
        for (int b = 0; b < CTRL_JOINTS; b++) {
            c->joint_world[b][0] += dx;
            c->joint_world[b][2] += dz;
        }
        c->pose.trans[c->j.hip][0] += dx;
        c->pose.trans[c->j.hip][2] += dz;
        ctrl_update_model(c);
        c->stats.wall_pushes++;
    }
    return moved[0] != 0.0f || moved[1] != 0.0f;
}

/* The root's height. On ground: the terrain, followed up at once and down
 * at most CTRL_ROOT_FALL_CM_S (a step down takes a few frames). A jump that
 * carries the root off the top of a ledge holds the height it took off from
 * until the root is over ground again near that height (more than a step
 * below it is the gap), and ctrl_gap_carry() sees that it gets there: the network's jumps
 * were recorded over flat ground and its hip is relative to the ground, so
 * following the trench down would sink the jumping body into it. Nothing
 * else holds the height: a jump over a slope falling away lands on it. */
float ctrl_support_height(ctrl_t *c, float x, float z, float prev_h)
{
    float g = ctrl_ground(c, x, z);
    if (!isfinite(prev_h)) {
        c->ground_held = false;
        return g;
    }
    if (c->ground_held) {
        /* Held until the ground is back near the height (not on the far
         * side's slope: the body would sink down it and drag the foot
         * still planted over the gap). */
        if (g < prev_h - CTRL_GAP_RELEASE_CM)
            return prev_h;
        /* Down on the far side. Its rim may slope (a ledge there): the
         * root may cross ledges a little longer, or they would push it back
         * into the gap. */
        c->ground_held = false;
        c->landing_steps = CTRL_LANDING_STEPS;
    } else if (c->jump > CTRL_JUMP_HOLD_MIN && c->landing_steps == 0 && g < prev_h && ctrl_on_ledge(c, x, z)) {
        /* Jumping off a ledge's top: the height it took off from (not the
         * tail of the jump it has just landed from, turning back). */
        c->ground_held = true;
        c->hold_steps = 0;
        /* Carried on the way it was going (or facing) when it took off. */
        const float *p0 = c->traj.pos[CTRL_TRAJ_NOW - 1];
        float ux = x - p0[0], uz = z - p0[2], l = hypotf(ux, uz);
        if (!(l > 1e-3f)) {
            ux = c->traj.dir[CTRL_TRAJ_NOW][0];
            uz = c->traj.dir[CTRL_TRAJ_NOW][1];
            l = 1.0f;
        }
        c->hold_dir[0] = ux / l;
        c->hold_dir[1] = uz / l;
        memcpy(c->hold_from, p0, sizeof c->hold_from);
        return prev_h;
    }
    return g >= prev_h ? g : fmaxf(g, prev_h - CTRL_ROOT_FALL_CM_S / CTRL_NET_FPS);
}

/* Ground at about height H at (x, z): not a gap below it. */
static bool rim_at(const ctrl_t *c, float x, float z, float h)
{
    return ctrl_ground(c, x, z) >= h - CTRL_GAP_RELEASE_CM && !ctrl_on_ledge(c, x, z);
}

/* Distance (cm) along (ux, uz) from the root to the first rim it can reach
 * (on the terrain, no wall between), or a negative value when there is none
 * within CTRL_GAP_MAX_CM. */
static float rim_along(const ctrl_t *c, float ux, float uz)
{
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    float margin = CTRL_EDGE_CLEARANCE_CM + CTRL_ROOT_RADIUS_CM;
    for (float d = CTRL_GAP_PROBE_CM; d <= CTRL_GAP_MAX_CM; d += CTRL_GAP_PROBE_CM) {
        float x = root[0] + ux * d, z = root[2] + uz * d;
        if (level_edge_clearance(c->level, x, z) < margin ||
            level_segment_crosses_wall(c->level, root[0], root[2], x, z))
            return -1.0f;
        if (rim_at(c, x, z, root[1]))
            return d;
    }
    return -1.0f;
}

void ctrl_gap_carry(ctrl_t *c, float *dx, float *dz)
{
    if (!c->ground_held)
        return;
    c->hold_steps++;
    const float *root = c->traj.pos[CTRL_TRAJ_NOW];
    /* The way it took off, unless a rim in a fan about it is much nearer
     * (the jump went along the gap) ... */
    float best = rim_along(c, c->hold_dir[0], c->hold_dir[1]), ux = c->hold_dir[0], uz = c->hold_dir[1];
    float straight = best;
    for (int k = -CTRL_GAP_FAN; k <= CTRL_GAP_FAN; k++) {
        float a = (float)k * CTRL_GAP_FAN_STEP_RAD, ca = cosf(a), sa = sinf(a);
        float vx = c->hold_dir[0] * ca - c->hold_dir[1] * sa, vz = c->hold_dir[0] * sa + c->hold_dir[1] * ca;
        float d = rim_along(c, vx, vz);
        if (k != 0 && d > 0.0f && (best < 0.0f || d < best) && !(straight > 0.0f && straight < CTRL_GAP_DETOUR * d)) {
            best = d;
            ux = vx;
            uz = vz;
        }
    }
    /* ... else back to where it took off. */
    if (best < 0.0f) {
        float bx = c->hold_from[0] - root[0], bz = c->hold_from[2] - root[2];
        best = hypotf(bx, bz);
        if (!(best > 1e-3f))
            return;
        ux = bx / best;
        uz = bz / best;
        *dx = *dz = 0.0f;
    }
    float left_s = CTRL_GAP_LAND_S - (float)c->hold_steps / CTRL_NET_FPS;
    float speed = left_s > 1.0f / CTRL_NET_FPS ? best / left_s : CTRL_GAP_SPEED_MAX_CM_S;
    float step = fminf(fmaxf(speed, CTRL_GAP_SPEED_CM_S), CTRL_GAP_SPEED_MAX_CM_S) / CTRL_NET_FPS;
    step = fminf(step, best + CTRL_GAP_PROBE_CM);
    float along = *dx * ux + *dz * uz;
    if (along < step) {
        *dx += ux * (step - along);
        *dz += uz * (step - along);
    }
}

/* ---- ceilings ------------------------------------------------------------- */

bool ctrl_low_ceiling(const ctrl_t *c, float x, float z)
{
    float ceil_cm = level_crouch_ceiling(c->level, x, z);
    return ceil_cm > 0.0f && ceil_cm < CTRL_CROUCH_CLEARANCE_CM;
}

bool ctrl_ceiling_near(const ctrl_t *c)
{
    const ctrl_traj_view_t *t = &c->traj;
    int ahead = (int)lrintf(CTRL_CEILING_AHEAD_S * CTRL_NET_FPS);
    int behind = (int)lrintf(CTRL_CEILING_BEHIND_S * CTRL_NET_FPS);
    for (int i = CTRL_TRAJ_NOW - behind; i <= CTRL_TRAJ_NOW + ahead && i < CTRL_TRAJ_FRAMES; i++)
        if (ctrl_low_ceiling(c, t->pos[i][0], t->pos[i][2]))
            return true;
    /* The head top reaches past the root (leaning, walking backwards). */
    float top[3];
    ctrl_head_top(c, top);
    return ctrl_low_ceiling(c, top[0], top[2]);
}

/* Height (cm) the point P is above the lowest ceiling near it, less the
 * margin; very negative when no crouch area is near. Outside an area its
 * ceiling is taken to rise by CTRL_CEILING_RAMP per cm of distance, so the
 * body is lowered gradually as it approaches, not at once at the edge. */
static float above_ceiling(const ctrl_t *c, const float p[3])
{
    const level_t *l = c->level;
    float best = 1.0e9f;
    for (int i = 0; i < l->crouch_count; i++) {
        const level_crouch_area_t *a = &l->crouch[i];
        float dx = fmaxf(fmaxf(a->min_x - p[0], p[0] - a->max_x), 0.0f);
        float dz = fmaxf(fmaxf(a->min_z - p[2], p[2] - a->max_z), 0.0f);
        best = fminf(best, a->ceiling_cm + CTRL_CEILING_RAMP * hypotf(dx, dz));
    }
    if (best > 1.0e8f)
        return -1.0e9f;
    return p[1] - (ctrl_ground(c, p[0], p[2]) + best - CTRL_CEILING_MARGIN_CM);
}

void ctrl_fit_ceiling(ctrl_t *c, float dt_s)
{
    /* The body above the legs moves with the hip; the legs are solved after. */
    float need = 0.0f, top[3];
    for (int b = 0; b < CTRL_JOINTS; b++) {
        if (ctrl_is_leg(c, b))
            continue;
        need = fmaxf(need, above_ceiling(c, c->joint_pos[b]));
    }
    ctrl_head_top(c, top);
    need = fmaxf(need, above_ceiling(c, top));
    c->ceiling_drop = fminf(CTRL_CEILING_DROP_MAX_CM,
                            fmaxf(need, c->ceiling_drop * expf(-dt_s / CTRL_CEILING_RELAX_TAU_S)));
    if (c->ceiling_drop > 0.0f) {
        c->pose.trans[c->j.hip][1] -= c->ceiling_drop;
        ctrl_update_model(c);
    }
}
