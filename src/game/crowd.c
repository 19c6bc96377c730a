/* crowd.c: members, their wandering, the capsules they avoid, and the step
 * in three parallel parts around one network evaluation. */
#include "game/crowd.h"

#include "core/log.h"
#include "core/mathx.h"
#include "core/pool.h"
#include "pfnn/batch.h"
#include "world/terrain.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define CROWD_PI 3.14159265358979f

/* Wandering. Plans last this long (s) and turn this much at most (rad). */
#define WANDER_PLAN_MIN_S 1.5f
#define WANDER_PLAN_MAX_S 6.0f
#define WANDER_TURN_MAX_RAD 1.8f
/* How far ahead (cm) a member looks for walls, ledges and edges, and how
 * fast (rad/s) it turns away from them. */
#define WANDER_LOOK_CM 150.0f
#define WANDER_AVOID_TURN_RAD_S 2.5f
/* Clearance (cm) kept from walls and the level's edges ahead. */
#define WANDER_WALL_CLEAR_CM 60.0f
#define WANDER_EDGE_CLEAR_CM 120.0f
/* Giving way: others within this lateral distance (cm) ahead are passed on
 * the right, turning at up to this rate (rad/s). */
#define WANDER_PASS_CM 90.0f
#define WANDER_PASS_TURN_RAD_S 2.0f
/* Stuck: moving slower than this (cm/s) for this long (s) while asked to go. */
#define WANDER_STUCK_CM_S 12.0f
#define WANDER_STUCK_S 1.0f
/* A running member presses jump about this often (per s), for this long (s). */
#define WANDER_JUMP_PER_S 0.15f
#define WANDER_JUMP_HOLD_S 0.2f
/* Spawning: tries per member, and the free space around each (cm). */
#define SPAWN_TRIES 400
#define SPAWN_GAP_CM 40.0f
#define SPAWN_SPACING_CM 170.0f

struct crowd_t {
    crowd_desc_t desc;
    pool_t *pool;
    ctrl_level_t *world;
    const level_t *level;
    int count;
    uint32_t seed;
    uint64_t step;
    float dt_s;
    bool player; /* member 0 takes the step's player intent */
    ctrl_input_t player_intent;
    crowd_member_t *member;
    /* Per member: the capsule (x, z, radius) at the step's start, its
     * obstacles, the network's input, phase and output. */
    float (*capsule)[CTRL_OBSTACLE_FLOATS];
    float (*obstacle)[CROWD_NEIGHBOURS][CTRL_OBSTACLE_FLOATS];
    float *x, *y, *phase;
    /* Members in order of their capsules' x (kept from step to step, so
     * sorting it again is nearly linear), and each one's place in it:
     * neighbours are found by a sweep along x. */
    int *order, *rank;
    /* Spawning: a grid of cells SPAWN cell size wide over the terrain, each
     * with a list of the members placed in it (head per cell, next per member). */
    int *cell_head, *cell_next;
    size_t cell_cap;
    int cells_x, cells_z;
    float cell_x0, cell_z0;
    /* The network: one batch, or (single_inference) one inference per
     * member on a workspace per thread. */
    pfnn_batch_t *batch;
    pfnn_workspace_t *ws;
    int ws_count;
    /* crowd_draw_run(): its job, and a pose per thread. */
    const crowd_draw_job_t *draw;
    /* crowd_skin_run(): its jobs, and whether one was refused (any thread). */
    const skin_job_t *skin_jobs;
    _Atomic bool skin_failed;
    pose_t *draw_pose;
    crowd_stats_t stats;
};

/* ---- small helpers --------------------------------------------------------- */

static uint32_t rng_next(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

/* Uniform in [0, 1). */
static float rng_unit(uint32_t *s) { return (float)(rng_next(s) >> 8) * (1.0f / 16777216.0f); }
static float rng_range(uint32_t *s, float lo, float hi) { return lo + (hi - lo) * rng_unit(s); }

static uint32_t member_seed(uint32_t seed, int i)
{
    /* splitmix-style mixing: nearby seeds and members give unrelated streams. */
    uint32_t h = seed * 0x9E3779B9u ^ (uint32_t)(i + 1) * 0x85EBCA6Bu;
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h ? h : 0x1234567u;
}

static float wrap_pi(float a)
{
    while (a > CROWD_PI)
        a -= 2.0f * CROWD_PI;
    while (a < -CROWD_PI)
        a += 2.0f * CROWD_PI;
    return a;
}

static void root_of(const crowd_t *c, int i, float out[3])
{
    memcpy(out, ctrl_trajectory(c->member[i].ctrl)->pos[CTRL_TRAJ_NOW], sizeof(float) * 3);
}

/* ---- create / destroy ------------------------------------------------------ */

crowd_t *crowd_create(const crowd_desc_t *desc)
{
    if (!desc || !desc->net || !desc->skel || desc->max_count < 1 || desc->max_count > CROWD_MAX || desc->threads < 0 ||
        desc->threads > POOL_MAX_THREADS) {
        log_error("crowd: needs a network, a skeleton, 1..%d members and 0..%d threads", CROWD_MAX, POOL_MAX_THREADS);
        return NULL;
    }
    crowd_t *c = calloc(1, sizeof *c);
    if (!c) {
        log_error("crowd: out of memory");
        return NULL;
    }
    c->desc = *desc;
    size_t n = (size_t)desc->max_count;
    if (desc->threads != 1 && !(c->pool = pool_create(desc->threads))) {
        free(c);
        return NULL;
    }
    c->ws_count = pool_threads(c->pool);
    c->member = calloc(n, sizeof *c->member);
    c->capsule = calloc(n, sizeof *c->capsule);
    c->obstacle = calloc(n, sizeof *c->obstacle);
    c->x = calloc(n * PFNN_N_IN, sizeof *c->x);
    c->y = calloc(n * PFNN_N_OUT, sizeof *c->y);
    c->phase = calloc(n, sizeof *c->phase);
    c->order = calloc(n, sizeof *c->order);
    c->rank = calloc(n, sizeof *c->rank);
    c->cell_next = calloc(n, sizeof *c->cell_next);
    c->ws = calloc((size_t)c->ws_count, sizeof *c->ws);
    c->draw_pose = calloc((size_t)c->ws_count, sizeof *c->draw_pose);
    bool ok = c->member && c->capsule && c->obstacle && c->x && c->y && c->phase && c->order && c->rank &&
              c->cell_next && c->ws;
    if (!ok)
        log_error("crowd: out of memory for %d members", desc->max_count);
    for (int b = 0; ok && b < c->ws_count; b++)
        ok = pfnn_workspace_init(&c->ws[b], desc->net);
    ctrl_desc_t cd = {.net = desc->net, .skel = desc->skel, .mode = desc->mode, .ik_off = desc->ik_off};
    for (int i = 0; ok && i < desc->max_count; i++) {
        c->member[i].ctrl = ctrl_create(&cd);
        ok = c->member[i].ctrl != NULL;
    }
    if (ok) {
        pfnn_batch_desc_t bd = {.net = desc->net, .max_count = desc->max_count, .pool = c->pool};
        c->batch = pfnn_batch_create(&bd);
        ok = c->batch != NULL;
    }
    if (!ok) {
        crowd_destroy(c);
        return NULL;
    }
    return c;
}

void crowd_destroy(crowd_t *c)
{
    if (!c)
        return;
    pfnn_batch_destroy(c->batch);
    pool_destroy(c->pool);
    if (c->member)
        for (int i = 0; i < c->desc.max_count; i++)
            ctrl_destroy(c->member[i].ctrl);
    if (c->ws)
        for (int b = 0; b < c->ws_count; b++)
            pfnn_workspace_free(&c->ws[b]);
    ctrl_level_destroy(c->world);
    free(c->member);
    free(c->capsule);
    free(c->obstacle);
    free(c->x);
    free(c->y);
    free(c->phase);
    free(c->order);
    free(c->rank);
    free(c->cell_head);
    free(c->cell_next);
    free(c->ws);
    free(c->draw_pose);
    free(c);
}

/* ---- reset ----------------------------------------------------------------- */

#define SPAWN_CLEAR_CM (2.0f * CTRL_BODY_RADIUS_CM + SPAWN_GAP_CM)

/* An empty spawn grid over the level's terrain; false when out of memory. */
static bool spawn_grid_init(crowd_t *c)
{
    float x0, z0, x1, z1;
    terrain_bounds(&c->level->terrain, &x0, &z0, &x1, &z1);
    c->cell_x0 = x0;
    c->cell_z0 = z0;
    c->cells_x = (int)ceilf((x1 - x0) / SPAWN_CLEAR_CM) + 1;
    c->cells_z = (int)ceilf((z1 - z0) / SPAWN_CLEAR_CM) + 1;
    size_t n = (size_t)c->cells_x * (size_t)c->cells_z;
    if (n > c->cell_cap) {
        free(c->cell_head);
        c->cell_head = malloc(n * sizeof *c->cell_head);
        c->cell_cap = c->cell_head ? n : 0;
        if (!c->cell_head) {
            log_error("crowd: out of memory for a spawn grid of %zu cells", n);
            return false;
        }
    }
    for (size_t k = 0; k < n; k++)
        c->cell_head[k] = -1;
    return true;
}

static int spawn_cell(float v, float v0, int cells)
{
    int i = (int)floorf((v - v0) / SPAWN_CLEAR_CM);
    return i < 0 ? 0 : (i >= cells ? cells - 1 : i);
}

static void spawn_grid_add(crowd_t *c, int m, float x, float z)
{
    int i = spawn_cell(x, c->cell_x0, c->cells_x), j = spawn_cell(z, c->cell_z0, c->cells_z);
    size_t k = (size_t)j * (size_t)c->cells_x + (size_t)i;
    c->cell_next[m] = c->cell_head[k];
    c->cell_head[k] = m;
}

/* A member may start at (x, z): well inside the level, off walls, ledges
 * and crouch areas, and SPAWN_GAP_CM clear of the members placed so far. */
static bool free_place(const crowd_t *c, float x, float z)
{
    const level_t *l = c->level;
    if (level_edge_clearance(l, x, z) < WANDER_EDGE_CLEAR_CM ||
        level_wall_clearance(l, x, z, NULL, NULL) < WANDER_WALL_CLEAR_CM || level_crouch_ceiling(l, x, z) > 0.0f ||
        ctrl_level_on_ledge(c->world, x, z))
        return false;
    int ci = spawn_cell(x, c->cell_x0, c->cells_x), cj = spawn_cell(z, c->cell_z0, c->cells_z);
    for (int j = cj - 1; j <= cj + 1; j++)
        for (int i = ci - 1; i <= ci + 1; i++) {
            if (i < 0 || j < 0 || i >= c->cells_x || j >= c->cells_z)
                continue;
            for (int k = c->cell_head[(size_t)j * (size_t)c->cells_x + (size_t)i]; k >= 0; k = c->cell_next[k]) {
                float p[3];
                root_of(c, k, p);
                if (hypotf(p[0] - x, p[2] - z) < SPAWN_CLEAR_CM)
                    return false;
            }
        }
    return true;
}

static void wander_reset(crowd_member_t *m, uint32_t seed, int i, float heading)
{
    memset(&m->wander, 0, sizeof m->wander);
    m->wander.rng = member_seed(seed, i);
    m->wander.heading_rad = heading;
    m->wander.turn_sign = (rng_next(&m->wander.rng) & 1u) ? 1.0f : -1.0f;
    m->wander.steps_left = 0; /* a plan is made on the first step */
    memset(&m->intent, 0, sizeof m->intent);
}

/* Members c->count .. COUNT - 1 on seeded free places on a disc around
 * member 0 that grows with COUNT, so a crowd of any size starts about as
 * dense (the spawn grid holds the members placed so far). Places fewer
 * when the level has no more room (stats.spawn_shortfall, one line). */
static void place_members(crowd_t *c, int count)
{
    float r0[3];
    root_of(c, 0, r0);
    uint32_t rng = member_seed(c->seed, -1 - c->count);
    float radius = SPAWN_SPACING_CM * sqrtf((float)count) + 200.0f;
    float x0, z0, x1, z1;
    terrain_bounds(&c->level->terrain, &x0, &z0, &x1, &z1);
    int placed = c->count;
    for (int i = placed; i < count; i++) {
        bool found = false;
        float x = 0.0f, z = 0.0f;
        for (int t = 0; t < SPAWN_TRIES && !found; t++) {
            /* Later tries look further out; points are drawn in the part
             * of the disc's square that lies on the terrain. */
            float rt = radius * (1.0f + 2.0f * (float)t / SPAWN_TRIES);
            x = rng_range(&rng, fmaxf(r0[0] - rt, x0), fminf(r0[0] + rt, x1));
            z = rng_range(&rng, fmaxf(r0[2] - rt, z0), fminf(r0[2] + rt, z1));
            found = hypotf(x - r0[0], z - r0[2]) <= rt && free_place(c, x, z);
        }
        if (!found)
            break;
        crowd_member_t *m = &c->member[placed];
        ctrl_spawn_t s = {x, z, rng_range(&rng, -CROWD_PI, CROWD_PI)};
        ctrl_reset_shared(m->ctrl, c->world, &s);
        ctrl_set_mode(m->ctrl, c->desc.mode);
        ctrl_set_ik(m->ctrl, !c->desc.ik_off);
        wander_reset(m, c->seed, placed, s.heading_rad);
        float r[3];
        root_of(c, placed, r);
        spawn_grid_add(c, placed, r[0], r[2]);
        const pose_t *p = ctrl_pose(m->ctrl);
        memcpy(m->prev_rot, p->rot, sizeof m->prev_rot);
        memcpy(m->prev_trans, p->trans, sizeof m->prev_trans);
        ctrl_set_obstacles(m->ctrl, NULL, 0);
        placed++;
    }
    c->stats.spawn_shortfall = count - placed;
    if (placed < count)
        log_warn("crowd: room for %d of %d members on %s", placed, count, c->level->name);
    c->count = placed;
    c->stats.count = placed;
    for (int i = 0; i < c->count; i++)
        c->order[i] = i;
}

bool crowd_reset(crowd_t *c, const level_t *level, int count, uint32_t seed, const ctrl_spawn_t *player, bool rebuild)
{
    if (!c->world || c->level != level || rebuild) {
        ctrl_level_destroy(c->world);
        c->world = ctrl_level_create(level);
        if (!c->world)
            return false;
    }
    c->level = level;
    count = count < 1 ? 1 : (count > c->desc.max_count ? c->desc.max_count : count);
    c->step = 0;
    memset(&c->stats, 0, sizeof c->stats);
    ctrl_spawn_t s0 = {level->spawn_x, level->spawn_z, level->spawn_heading_rad};
    if (player)
        s0 = *player;
    if (!spawn_grid_init(c))
        return false;
    ctrl_reset_shared(c->member[0].ctrl, c->world, &s0);
    wander_reset(&c->member[0], seed, 0, s0.heading_rad);
    const pose_t *p0 = ctrl_pose(c->member[0].ctrl);
    memcpy(c->member[0].prev_rot, p0->rot, sizeof c->member[0].prev_rot);
    memcpy(c->member[0].prev_trans, p0->trans, sizeof c->member[0].prev_trans);
    ctrl_set_obstacles(c->member[0].ctrl, NULL, 0);
    float r0[3];
    root_of(c, 0, r0);
    spawn_grid_add(c, 0, r0[0], r0[2]);
    c->seed = seed;
    c->count = 1;
    place_members(c, count);
    return true;
}

bool crowd_resize(crowd_t *c, int count)
{
    if (!c->world)
        return false;
    count = count < 1 ? 1 : (count > c->desc.max_count ? c->desc.max_count : count);
    if (count <= c->count) {
        c->count = count;
        c->stats.count = count;
        for (int i = 0; i < count; i++)
            c->order[i] = i;
        return true;
    }
    if (!spawn_grid_init(c))
        return false;
    for (int i = 0; i < c->count; i++) {
        float r[3];
        root_of(c, i, r);
        spawn_grid_add(c, i, r[0], r[2]);
    }
    place_members(c, count);
    return true;
}

/* ---- wandering ------------------------------------------------------------- */

static void new_plan(crowd_wander_t *w, float dt_s)
{
    float r = rng_unit(&w->rng);
    w->stop = r < 0.15f;
    w->crouch = !w->stop && r < 0.22f;
    w->speed = r < 0.72f ? rng_range(&w->rng, 0.0f, 0.3f) : rng_range(&w->rng, 0.7f, 1.0f);
    w->heading_rad = wrap_pi(w->heading_rad + rng_range(&w->rng, -WANDER_TURN_MAX_RAD, WANDER_TURN_MAX_RAD));
    w->steps_left = (int)(rng_range(&w->rng, WANDER_PLAN_MIN_S, WANDER_PLAN_MAX_S) / dt_s);
}

/* Something ahead at (x, z) a member should not walk into. */
static bool blocked_at(const crowd_t *c, float x, float z)
{
    const level_t *l = c->level;
    if (level_edge_clearance(l, x, z) < WANDER_EDGE_CLEAR_CM ||
        level_wall_clearance(l, x, z, NULL, NULL) < WANDER_WALL_CLEAR_CM)
        return true;
    return ctrl_level_on_ledge(c->world, x, z) && !level_in_jump_area(l, x, z);
}

/* Turn (rad/s, + = towards +x of the facing's right) to pass the others
 * ahead of member I on its right. */
static float give_way(const crowd_t *c, int i, int n, float dir_x, float dir_z)
{
    const float *me = c->capsule[i];
    float turn = 0.0f;
    for (int k = 0; k < n; k++) {
        float dx = c->obstacle[i][k][0] - me[0], dz = c->obstacle[i][k][1] - me[1];
        float ahead = dx * dir_x + dz * dir_z;
        if (ahead <= 0.0f || ahead > CROWD_NEAR_CM)
            continue;
        /* Right of the facing (sin h, cos h) is (cos h, -sin h). */
        float side = dx * dir_z - dz * dir_x;
        if (fabsf(side) > WANDER_PASS_CM)
            continue;
        float urgency = (1.0f - ahead / CROWD_NEAR_CM) * (1.0f - fabsf(side) / WANDER_PASS_CM);
        /* The other is on the right (side > 0): turn left a little more
         * than it; on the left or dead ahead: turn right. */
        turn += (side > 20.0f ? -1.0f : 1.0f) * urgency;
    }
    return clampf(turn, -1.0f, 1.0f) * WANDER_PASS_TURN_RAD_S;
}

static void wander_step(crowd_t *c, int i, int neighbours, ctrl_input_t *out)
{
    crowd_member_t *m = &c->member[i];
    crowd_wander_t *w = &m->wander;
    float dt = c->dt_s;
    if (--w->steps_left <= 0)
        new_plan(w, dt);
    const float *me = c->capsule[i];
    float dir_x = sinf(w->heading_rad), dir_z = cosf(w->heading_rad);
    if (!w->stop) {
        /* Walls, ledges and edges ahead: turn away, the same way until clear. */
        float look = WANDER_LOOK_CM * (1.0f + w->speed);
        if (blocked_at(c, me[0] + dir_x * look, me[1] + dir_z * look) ||
            blocked_at(c, me[0] + dir_x * 0.5f * look, me[1] + dir_z * 0.5f * look))
            w->heading_rad = wrap_pi(w->heading_rad + w->turn_sign * WANDER_AVOID_TURN_RAD_S * dt);
        else if ((rng_next(&w->rng) & 255u) == 0u)
            w->turn_sign = -w->turn_sign;
        w->heading_rad = wrap_pi(w->heading_rad + give_way(c, i, neighbours, dir_x, dir_z) * dt);
        /* Stuck (a wall, a ledge, others): turn round. */
        w->stuck_steps = ctrl_root_speed_cm_s(m->ctrl) < WANDER_STUCK_CM_S ? w->stuck_steps + 1 : 0;
        if (w->stuck_steps > (int)(WANDER_STUCK_S / dt)) {
            w->heading_rad = wrap_pi(w->heading_rad + CROWD_PI + rng_range(&w->rng, -0.6f, 0.6f));
            w->stuck_steps = 0;
        }
        if (w->jump_steps > 0)
            w->jump_steps--;
        else if (w->speed > 0.6f && rng_unit(&w->rng) < WANDER_JUMP_PER_S * dt)
            w->jump_steps = (int)(WANDER_JUMP_HOLD_S / dt);
    } else {
        w->stuck_steps = 0;
        w->jump_steps = 0;
    }
    memset(out, 0, sizeof *out);
    float go = w->stop ? 0.0f : 1.0f;
    out->move_x = go * sinf(w->heading_rad);
    out->move_z = go * cosf(w->heading_rad);
    out->speed = w->speed;
    out->crouch = w->crouch;
    out->jump = w->jump_steps > 0;
}

/* ---- the step -------------------------------------------------------------- */

/* Sorts c->order by the capsules' x (insertion sort: the order of the last
 * step is nearly right; ties by index, so the order is the same on every
 * run) and fills c->rank. X_OF: capsule x (0) of the step's start, or the
 * roots after it (1). */
static float x_of(const crowd_t *c, int i, int after)
{
    return after ? ctrl_trajectory(c->member[i].ctrl)->pos[CTRL_TRAJ_NOW][0] : c->capsule[i][0];
}

static void sort_by_x(crowd_t *c, int after)
{
    int *o = c->order;
    for (int a = 1; a < c->count; a++) {
        int v = o[a];
        float xv = x_of(c, v, after);
        int b = a;
        while (b > 0) {
            float xb = x_of(c, o[b - 1], after);
            if (xb < xv || (xb == xv && o[b - 1] < v))
                break;
            o[b] = o[b - 1];
            b--;
        }
        o[b] = v;
    }
    for (int a = 0; a < c->count; a++)
        c->rank[o[a]] = a;
}

/* Keeps the nearest CROWD_NEIGHBOURS of member I's obstacles in order of
 * distance D (ties: the order met, which is fixed). */
static void keep_nearest(crowd_t *c, int i, int k, float d, float *dist, int *n)
{
    float(*o)[CTRL_OBSTACLE_FLOATS] = c->obstacle[i];
    if (*n == CROWD_NEIGHBOURS && d >= dist[*n - 1])
        return;
    int at = *n < CROWD_NEIGHBOURS ? (*n)++ : *n - 1;
    while (at > 0 && dist[at - 1] > d) {
        dist[at] = dist[at - 1];
        memcpy(o[at], o[at - 1], sizeof o[0]);
        at--;
    }
    dist[at] = d;
    o[at][0] = c->capsule[k][0];
    o[at][1] = c->capsule[k][1];
    o[at][2] = c->capsule[k][2] + CROWD_MOVE_MARGIN_CM;
}

/* Member I's obstacles: the nearest CROWD_NEIGHBOURS capsules within
 * CROWD_NEAR_CM (a sweep along x from its place in the order), each grown
 * by the margin a step may move. */
static int gather_obstacles(crowd_t *c, int i)
{
    float dist[CROWD_NEIGHBOURS];
    int n = 0;
    const float *me = c->capsule[i];
    for (int dir = -1; dir <= 1; dir += 2)
        for (int a = c->rank[i] + dir; a >= 0 && a < c->count; a += dir) {
            int k = c->order[a];
            float dx = c->capsule[k][0] - me[0];
            if (fabsf(dx) > CROWD_NEAR_CM)
                break;
            float d = hypotf(dx, c->capsule[k][1] - me[1]);
            if (d <= CROWD_NEAR_CM)
                keep_nearest(c, i, k, d, dist, &n);
        }
    return n;
}

static void begin_block(void *user, int begin, int end, int thread)
{
    crowd_t *c = user;
    (void)thread;
    for (int i = begin; i < end; i++) {
        crowd_member_t *m = &c->member[i];
        const pose_t *p = ctrl_pose(m->ctrl);
        memcpy(m->prev_rot, p->rot, sizeof m->prev_rot);
        memcpy(m->prev_trans, p->trans, sizeof m->prev_trans);
        int n = gather_obstacles(c, i);
        if (i == 0 && c->player)
            m->intent = c->player_intent;
        else
            wander_step(c, i, n, &m->intent);
        ctrl_set_obstacles(m->ctrl, (const float(*)[CTRL_OBSTACLE_FLOATS])c->obstacle[i], n);
        ctrl_step_begin(m->ctrl, &m->intent, c->dt_s);
        float phase;
        const float *x = ctrl_step_input(m->ctrl, &phase);
        memcpy(&c->x[(size_t)i * PFNN_N_IN], x, sizeof(float) * PFNN_N_IN);
        c->phase[i] = phase;
    }
}

static void single_block(void *user, int begin, int end, int thread)
{
    crowd_t *c = user;
    pfnn_workspace_t *ws = &c->ws[thread];
    for (int i = begin; i < end; i++) {
        pfnn_job_t job = {
            .net = c->desc.net,
            .ws = ws,
            .mode = c->desc.mode,
            .dtype = PFNN_F32,
            .isa = PFNN_ISA_AUTO,
            .phase = c->phase[i],
            .x = &c->x[(size_t)i * PFNN_N_IN],
            .y = &c->y[(size_t)i * PFNN_N_OUT],
        };
        pfnn_run_unchecked(&job);
    }
}

static void finish_block(void *user, int begin, int end, int thread)
{
    crowd_t *c = user;
    (void)thread;
    for (int i = begin; i < end; i++)
        ctrl_step_finish(c->member[i].ctrl, &c->y[(size_t)i * PFNN_N_OUT]);
}

/* Each member's gap to the nearest other capsule after the step: a sweep
 * along x (c->order sorted by the roots after the step) that stops where
 * x alone is further than the best gap found. */
static void gap_block(void *user, int begin, int end, int thread)
{
    crowd_t *c = user;
    (void)thread;
    for (int i = begin; i < end; i++) {
        float a[3], best = INFINITY;
        root_of(c, i, a);
        for (int dir = -1; dir <= 1; dir += 2)
            for (int r = c->rank[i] + dir; r >= 0 && r < c->count; r += dir) {
                float b[3];
                root_of(c, c->order[r], b);
                if (fabsf(b[0] - a[0]) - 2.0f * CTRL_BODY_RADIUS_CM > best)
                    break;
                best = fminf(best, hypotf(a[0] - b[0], a[2] - b[2]) - 2.0f * CTRL_BODY_RADIUS_CM);
            }
        c->member[i].min_gap_cm = best;
    }
}

void crowd_step_begin(crowd_t *c, const ctrl_input_t *player, float dt_s)
{
    c->dt_s = dt_s > 0.0f && isfinite(dt_s) ? dt_s : 1.0f / 60.0f;
    c->player = player != NULL;
    if (player)
        c->player_intent = *player;
    for (int i = 0; i < c->count; i++) {
        float r[3];
        root_of(c, i, r);
        c->capsule[i][0] = r[0];
        c->capsule[i][1] = r[2];
        c->capsule[i][2] = CTRL_BODY_RADIUS_CM;
    }
    sort_by_x(c, 0);
    pool_for(c->pool, c->count, CROWD_BLOCK, begin_block, c);
}

void crowd_step_network(crowd_t *c)
{
    if (c->desc.single_inference) {
        pool_for(c->pool, c->count, CROWD_BLOCK, single_block, c);
        return;
    }
    pfnn_batch_job_t job = {
        .batch = c->batch,
        .mode = c->desc.mode,
        .dtype = PFNN_F32,
        .isa = PFNN_ISA_AUTO,
        .count = c->count,
        .phase = c->phase,
        .x = c->x,
        .y = c->y,
    };
    pfnn_batch_run_unchecked(&job);
}

void crowd_step_finish(crowd_t *c)
{
    pool_for(c->pool, c->count, CROWD_BLOCK, finish_block, c);
    sort_by_x(c, 1);
    pool_for(c->pool, c->count, CROWD_BLOCK, gap_block, c);
    float gap = INFINITY;
    for (int i = 0; i < c->count; i++)
        gap = fminf(gap, c->member[i].min_gap_cm);
    c->stats.min_gap_cm = gap;
    if (c->stats.steps == 0 || gap < c->stats.min_gap_ever_cm)
        c->stats.min_gap_ever_cm = gap;
    if (gap < 0.0f)
        c->stats.overlap_steps++;
    c->stats.steps++;
    c->step++;
}

void crowd_step(crowd_t *c, const ctrl_input_t *player, float dt_s)
{
    crowd_step_begin(c, player, dt_s);
    crowd_step_network(c);
    crowd_step_finish(c);
}

/* ---- drawing ---------------------------------------------------------------- */

static void draw_block(void *user, int begin, int end, int thread)
{
    crowd_t *c = user;
    const crowd_draw_job_t *job = c->draw;
    pose_t *p = &c->draw_pose[thread];
    float t = clampf(job->alpha, 0.0f, 1.0f);
    for (int i = begin; i < end; i++) {
        const crowd_member_t *m = &c->member[i];
        const pose_t *now = ctrl_pose(m->ctrl);
        p->joint_count = CTRL_JOINTS;
        for (int j = 0; j < CTRL_JOINTS; j++) {
            const float *a = m->prev_rot[j], *b = now->rot[j];
            float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
            float sb = d < 0.0f ? -t : t, n2 = 0.0f;
            for (int k = 0; k < 4; k++) {
                p->rot[j][k] = (1.0f - t) * a[k] + sb * b[k];
                n2 += p->rot[j][k] * p->rot[j][k];
            }
            float inv = n2 > 0.0f ? 1.0f / sqrtf(n2) : 1.0f;
            for (int k = 0; k < 4; k++)
                p->rot[j][k] *= inv;
            for (int k = 0; k < 3; k++)
                p->trans[j][k] = (1.0f - t) * m->prev_trans[j][k] + t * now->trans[j][k];
        }
        float model[CTRL_JOINTS][POSE_MAT_FLOATS];
        pose_model_job_t mj = {
            .skel = c->desc.skel, .local = p, .capacity = CTRL_JOINTS, .model_mat = model, .model_rot = NULL};
        pose_model_run(&mj);
        size_t k = (size_t)(i - job->first);
        pose_palette_job_t pj = {
            .bind = job->bind,
            .joint_count = CTRL_JOINTS,
            .model_mat = (const float(*)[POSE_MAT_FLOATS])model,
            .palette = (float(*)[POSE_MAT_FLOATS])(job->palette + k * CTRL_JOINTS * POSE_MAT_FLOATS),
        };
        pose_palette_run(&pj);
        float *b = job->bounds + 4 * k;
        b[0] = model[0][3];
        b[1] = model[0][7];
        b[2] = model[0][11];
        b[3] = CROWD_DRAW_RADIUS_CM;
    }
}

static void draw_block_shifted(void *user, int begin, int end, int thread)
{
    crowd_t *c = user;
    draw_block(user, begin + c->draw->first, end + c->draw->first, thread);
}

bool crowd_draw_run(crowd_t *c, const crowd_draw_job_t *job)
{
    if (!job || !job->bind || job->bind->joint_count != CTRL_JOINTS || !job->palette || !job->bounds ||
        job->first < 0) {
        log_error("crowd: a draw job needs the bind pose of the %d-joint skeleton and its spans", CTRL_JOINTS);
        return false;
    }
    c->draw = job;
    pool_for(c->pool, c->count - job->first, CROWD_BLOCK, draw_block_shifted, c);
    c->draw = NULL;
    return true;
}

static void skin_block(void *user, int begin, int end, int thread)
{
    (void)thread;
    crowd_t *c = user;
    for (int i = begin; i < end; i++)
        if (!skin_run(&c->skin_jobs[i]))
            atomic_store(&c->skin_failed, true);
}

bool crowd_skin_run(crowd_t *c, const skin_job_t *jobs, int count)
{
    if (count <= 0)
        return true;
    if (!jobs) {
        log_error("crowd: %d skinning jobs and no array", count);
        return false;
    }
    c->skin_jobs = jobs;
    atomic_store(&c->skin_failed, false);
    pool_for(c->pool, count, CROWD_SKIN_BLOCK, skin_block, c);
    c->skin_jobs = NULL;
    return !atomic_load(&c->skin_failed);
}

/* ---- accessors ------------------------------------------------------------- */

int crowd_count(const crowd_t *c) { return c->count; }
int crowd_max_count(const crowd_t *c) { return c->desc.max_count; }
int crowd_threads(const crowd_t *c) { return pool_threads(c->pool); }
ctrl_t *crowd_ctrl(crowd_t *c, int i) { return i >= 0 && i < c->desc.max_count ? c->member[i].ctrl : NULL; }

void crowd_set_mode(crowd_t *c, pfnn_mode_t mode)
{
    if (!pfnn_has_mode(c->desc.net, mode, PFNN_F32))
        return;
    c->desc.mode = mode;
    for (int i = 0; i < c->desc.max_count; i++)
        ctrl_set_mode(c->member[i].ctrl, mode);
}

void crowd_set_ik(crowd_t *c, bool on)
{
    c->desc.ik_off = !on;
    for (int i = 0; i < c->desc.max_count; i++)
        ctrl_set_ik(c->member[i].ctrl, on);
}
const crowd_member_t *crowd_member(const crowd_t *c, int i) { return i >= 0 && i < c->count ? &c->member[i] : NULL; }
const crowd_stats_t *crowd_stats(const crowd_t *c) { return &c->stats; }
void crowd_root(const crowd_t *c, int i, float out[3]) { root_of(c, i, out); }
void crowd_set_single_inference(crowd_t *c, bool on) { c->desc.single_inference = on; }

size_t crowd_member_bytes(const crowd_t *c)
{
    size_t per = sizeof(crowd_member_t) + sizeof *c->capsule + sizeof *c->obstacle;
    per += sizeof(float) * (PFNN_N_IN + PFNN_N_OUT + 1);
    /* The last member's controller: member 0 may also hold a level view of
     * its own (the player's controller reset alone). */
    return per + ctrl_state_bytes(c->member[c->desc.max_count - 1].ctrl);
}
