/* game/crowd on the shipped network:
 * - one member stepped as the player equals a lone controller stepped with
 *   ctrl_step() (the split step and the crowd's own inference change
 *   nothing);
 * - the same seed and count give the same bytes on 1, 2 and 3 threads, and
 *   with one network inference per member instead of the batch;
 * - on hills, gaps and course no two capsules ever overlap, the wanderers
 *   get somewhere, and none of them sticks in one place;
 * - no allocation in crowd_step();
 * - a crowd too large for the room it has is placed short and says so.
 * Usage: test_game_crowd TEST (player|threads|overlap|noalloc|room). */
#include "alloc_count.h"
#include "check.h"
#include "core/log.h"
#include "game/crowd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKEL_PATH "assets/skeleton/cmu21.skel"
#define NET_PATH "assets/network/pfnn.bin"
#define DT (1.0f / 60.0f)

static skel_t skel;
static pfnn_network_t net;
/* --short (the sanitizer builds, ~10x slower a step): a third of the steps. */
static int step_div = 1;

static bool load_level(level_t *l, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "assets/levels/%s.lvl", name);
    bool ok = level_load(l, path);
    CHECKF(ok, "cannot load %s", path);
    return ok;
}

static crowd_t *make_ex(int max, int threads, bool single)
{
    crowd_desc_t d = {.net = &net,
                      .skel = &skel,
                      .mode = PFNN_PHASE_CUBIC,
                      .max_count = max,
                      .threads = threads,
                      .single_inference = single};
    crowd_t *c = crowd_create(&d);
    CHECK(c != NULL);
    return c;
}

static crowd_t *make(int max, int threads) { return make_ex(max, threads, false); }

/* A scripted player: walk, turn, run, stop, crouch, jump. */
static void player_input(int step, ctrl_input_t *in)
{
    memset(in, 0, sizeof *in);
    float a = 0.004f * (float)step;
    int phase = (step / 120) % 6;
    in->move_x = phase == 3 ? 0.0f : sinf(a);
    in->move_z = phase == 3 ? 0.0f : cosf(a);
    in->speed = phase == 2 ? 1.0f : 0.0f;
    in->crouch = phase == 4;
    in->jump = phase == 5 && step % 120 < 10;
}

static void test_player(void)
{
    level_t l;
    if (!load_level(&l, "hills"))
        return;
    crowd_t *c = make(1, 1);
    ctrl_desc_t d = {.net = &net, .skel = &skel, .mode = PFNN_PHASE_CUBIC};
    ctrl_t *lone = ctrl_create(&d);
    CHECK(lone != NULL);
    if (c && lone) {
        ctrl_spawn_t s = {l.spawn_x, l.spawn_z, l.spawn_heading_rad};
        CHECK(crowd_reset(c, &l, 1, 7, &s, false));
        ctrl_reset(lone, &l, &s);
        int differ = -1;
        for (int step = 0; step < 900 && differ < 0; step++) {
            ctrl_input_t in;
            player_input(step, &in);
            crowd_step(c, &in, DT);
            ctrl_step(lone, &in, DT);
            const pose_t *a = ctrl_pose(crowd_ctrl(c, 0)), *b = ctrl_pose(lone);
            if (memcmp(a->rot, b->rot, sizeof(float) * 4 * CTRL_JOINTS) ||
                memcmp(a->trans, b->trans, sizeof(float) * 3 * CTRL_JOINTS))
                differ = step;
        }
        CHECKF(differ < 0, "the crowd's member 0 and a lone controller part at step %d", differ);
    }
    ctrl_destroy(lone);
    crowd_destroy(c);
    level_free(&l);
}

static void run(crowd_t *c, const level_t *l, int count, int steps)
{
    crowd_reset(c, l, count, 12345, NULL, false);
    for (int step = 0; step < steps; step++)
        crowd_step(c, NULL, DT);
}

static void test_threads(void)
{
    level_t l;
    if (!load_level(&l, "course"))
        return;
    enum { COUNT = 24 };
    const int STEPS = 400 / step_div;
    static float ref[COUNT][CTRL_JOINTS][7];
    /* The last run: one inference per member instead of the batch. */
    const int threads[] = {1, 2, 3, 2};
    for (int t = 0; t < 4; t++) {
        crowd_t *c = make_ex(COUNT, threads[t], t == 3);
        if (!c)
            break;
        run(c, &l, COUNT, STEPS);
        CHECK(crowd_count(c) == COUNT);
        int differ = 0;
        for (int i = 0; i < crowd_count(c); i++) {
            const pose_t *p = ctrl_pose(crowd_ctrl(c, i));
            for (int j = 0; j < CTRL_JOINTS; j++) {
                float v[7];
                memcpy(v, p->rot[j], sizeof(float) * 4);
                memcpy(v + 4, p->trans[j], sizeof(float) * 3);
                if (t == 0)
                    memcpy(ref[i][j], v, sizeof v);
                else
                    differ += memcmp(ref[i][j], v, sizeof v) != 0;
            }
        }
        CHECKF(differ == 0, "%d joints differ between 1 and %d threads%s", differ, threads[t],
               t == 3 ? ", single inferences" : "");
        crowd_destroy(c);
    }
    level_free(&l);
}

static void test_overlap(void)
{
    const char *levels[] = {"hills", "gaps", "course"};
    enum { COUNT = 20 };
    const int STEPS = 1800 / step_div;
    crowd_t *c = make(COUNT, 2);
    if (!c)
        return;
    for (int k = 0; k < 3; k++) {
        level_t l;
        if (!load_level(&l, levels[k]))
            continue;
        crowd_reset(c, &l, COUNT, 99u + (uint32_t)k, NULL, false);
        float start[COUNT][3], far[COUNT];
        for (int i = 0; i < crowd_count(c); i++) {
            crowd_root(c, i, start[i]);
            far[i] = 0.0f;
        }
        for (int step = 0; step < STEPS; step++) {
            crowd_step(c, NULL, DT);
            for (int i = 0; i < crowd_count(c); i++) {
                float r[3];
                crowd_root(c, i, r);
                far[i] = fmaxf(far[i], hypotf(r[0] - start[i][0], r[2] - start[i][2]));
            }
        }
        const crowd_stats_t *st = crowd_stats(c);
        CHECKF(crowd_count(c) == COUNT, "%s: %d of %d placed", levels[k], crowd_count(c), COUNT);
        CHECKF(st->overlap_steps == 0 && st->min_gap_ever_cm >= 0.0f,
               "%s: capsules overlapped after %llu steps (closest %.1f cm)", levels[k],
               (unsigned long long)st->overlap_steps, st->min_gap_ever_cm);
        /* 30 s of wandering (10 with --short): every member gets at least
         * 3 m (1 m) from where it started (a stuck one would not). */
        float least = INFINITY;
        for (int i = 0; i < crowd_count(c); i++)
            least = fminf(least, far[i]);
        CHECKF(least > 300.0f / (float)step_div, "%s: a member got only %.0f cm from its start in %d steps", levels[k],
               least, STEPS);
        ctrl_stats_t cs;
        int resets = 0;
        for (int i = 0; i < crowd_count(c); i++) {
            ctrl_get_stats(crowd_ctrl(c, i), &cs);
            resets += cs.nan_resets;
        }
        CHECKF(resets == 0, "%s: %d network resets", levels[k], resets);
        printf("crowd %s: %d members, closest capsules %.1f cm apart, least travel %.0f cm\n", levels[k],
               crowd_count(c), st->min_gap_ever_cm, least);
        level_free(&l);
    }
    crowd_destroy(c);
}

static void test_noalloc(void)
{
    level_t l;
    if (!load_level(&l, "tunnel"))
        return;
    crowd_t *c = make(16, 2);
    if (c) {
        run(c, &l, 16, 10);
        long before = alloc_count_calls;
        for (int step = 0; step < 300; step++)
            crowd_step(c, NULL, DT);
        CHECKF(alloc_count_calls == before, "%ld allocations in 300 crowd steps", alloc_count_calls - before);
        void *volatile p = malloc(16); /* volatile: the pair may not be optimised away */
        CHECKF(alloc_count_calls > before, "allocation counter is not wired (--wrap=malloc)");
        free(p);
    }
    crowd_destroy(c);
    level_free(&l);
}

static void test_room(void)
{
    level_t l;
    if (!load_level(&l, "flat"))
        return;
    crowd_t *c = make(CROWD_MAX, 1);
    if (c) {
        /* flat is 40 m across: far fewer than 4096 fit 40 cm apart. */
        CHECK(crowd_reset(c, &l, CROWD_MAX, 1, NULL, false));
        const crowd_stats_t *st = crowd_stats(c);
        CHECKF(crowd_count(c) > 50 && crowd_count(c) < CROWD_MAX, "placed %d", crowd_count(c));
        CHECK(st->spawn_shortfall == CROWD_MAX - crowd_count(c));
        crowd_step(c, NULL, DT);
        CHECK(crowd_stats(c)->min_gap_cm >= 0.0f);
        printf("crowd room: %d of %d placed on flat\n", crowd_count(c), CROWD_MAX);
    }
    crowd_destroy(c);
    crowd_desc_t bad = {.net = &net, .skel = &skel, .max_count = 0};
    CHECK(crowd_create(&bad) == NULL);
    bad.max_count = CROWD_MAX + 1;
    CHECK(crowd_create(&bad) == NULL);
    level_free(&l);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[2], "--short"))
        step_div = 3;
    else if (argc != 2) {
        fprintf(stderr, "usage: test_game_crowd player|threads|overlap|noalloc|room [--short]\n");
        return 2;
    }
    if (!skel_load(&skel, SKEL_PATH) || !pfnn_load(&net, NET_PATH))
        return 1;
    const char *t = argv[1];
    if (!strcmp(t, "player"))
        test_player();
    else if (!strcmp(t, "threads"))
        test_threads();
    else if (!strcmp(t, "overlap"))
        test_overlap();
    else if (!strcmp(t, "noalloc"))
        test_noalloc();
    else if (!strcmp(t, "room"))
        test_room();
    else {
        fprintf(stderr, "test_game_crowd: unknown test '%s'\n", t);
        return 2;
    }
    pfnn_free(&net);
    return check_summary();
}
