/* ctrl_fixture: what the per-file controller tests share: a skeleton, a
 * network (--net), a level made in memory and one controller over them, and
 * the main that runs the named group of checks:
 *   test_X GROUP --net PATH
 * Call order: ctrl_fixture_main(), which loads, calls the test's
 * MAKE_LEVEL (fills fx->level), creates fx->ctrl, calls READY (if any) and
 * then the group, and frees everything. Exit 0 when every check held, 1 on a
 * failed check or load, 2 on a usage error.
 * Does NOT: reset the controller (READY or the tests do).
 */
#ifndef STRIDER_TESTS_CTRL_FIXTURE_H
#define STRIDER_TESTS_CTRL_FIXTURE_H

#include "anim/skel.h"
#include "ctrl/ctrl.h"
#include "pfnn/network.h"
#include "world/level.h"

#include "check.h"

#include <stdio.h>
#include <string.h>

#define CTRL_FIXTURE_SKEL "assets/skeleton/cmu21.skel"

typedef struct ctrl_fixture_t {
    skel_t skel;
    pfnn_network_t net;
    level_t level;
    ctrl_t *ctrl;
} ctrl_fixture_t;

typedef struct ctrl_fixture_group_t {
    const char *name;
    void (*run)(void);
} ctrl_fixture_group_t;

/* Parses the level TEXT (NAME in messages) into fx->level; one FAIL line
 * and false when it does not parse. */
static inline bool ctrl_fixture_parse_level(ctrl_fixture_t *fx, const char *text, const char *name)
{
    if (!level_parse(&fx->level, text, strlen(text), name, NULL)) {
        fprintf(stderr, "FAIL: level: %s\n", level_last_error());
        return false;
    }
    return true;
}

/* Whether T is the 121 x 121 grid of 20 cm cells from (-1200, -1200) that
 * the tests' boxes are placed on (one FAIL line when not). */
static inline bool ctrl_fixture_layout_ok(const terrain_t *t)
{
    if (t->width == 121 && t->depth == 121 && t->cell_cm == 20.0f && t->origin_x == -1200.0f && t->origin_z == -1200.0f)
        return true;
    fprintf(stderr, "FAIL: level: terrain %dx%d, cell %g, origin (%g, %g): not the layout the tests expect\n", t->width,
            t->depth, (double)t->cell_cm, (double)t->origin_x, (double)t->origin_z);
    return false;
}

/* Sets every sample of T with x in [X0, X1] and z in [Z0, Z1] to H. */
static inline void ctrl_fixture_set_heights(terrain_t *t, float x0, float z0, float x1, float z1, float h)
{
    for (int j = 0; j < t->depth; j++)
        for (int i = 0; i < t->width; i++) {
            float x = t->origin_x + (float)i * t->cell_cm, z = t->origin_z + (float)j * t->cell_cm;
            if (x >= x0 && x <= x1 && z >= z0 && z <= z1)
                t->heights[(size_t)j * (size_t)t->width + (size_t)i] = h;
        }
}

/* Sets every sample of T to HEIGHT(x, z) (a plane, a slope). */
static inline void ctrl_fixture_fill_heights(terrain_t *t, float (*height)(float x, float z))
{
    for (int j = 0; j < t->depth; j++)
        for (int i = 0; i < t->width; i++)
            t->heights[(size_t)j * (size_t)t->width + (size_t)i] = height(t->origin_x + (float)i * t->cell_cm,
                                                                          t->origin_z + (float)j * t->cell_cm);
}

static inline int ctrl_fixture_main(int argc, char **argv, const char *prog, ctrl_fixture_t *fx,
                                    bool (*make_level)(void), void (*ready)(void), const ctrl_fixture_group_t *groups,
                                    int group_count)
{
    const char *group = argc > 1 ? argv[1] : "";
    const char *net_path = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--net") == 0 && i + 1 < argc) {
            net_path = argv[++i];
        } else {
            fprintf(stderr, "usage: %s GROUP --net PATH\n", prog);
            return 2;
        }
    }
    if (!net_path) {
        fprintf(stderr, "%s: --net PATH is required\n", prog);
        return 2;
    }
    const ctrl_fixture_group_t *g = NULL;
    for (int i = 0; i < group_count; i++)
        if (strcmp(groups[i].name, group) == 0)
            g = &groups[i];
    if (!g) {
        fprintf(stderr, "%s: unknown test '%s'\n", prog, group);
        return 2;
    }
    if (!skel_load(&fx->skel, CTRL_FIXTURE_SKEL) || !pfnn_load(&fx->net, net_path))
        return 1;
    int rc = 1;
    if (make_level()) {
        ctrl_desc_t d = {.net = &fx->net, .skel = &fx->skel, .mode = PFNN_PHASE_CONSTANT};
        fx->ctrl = ctrl_create(&d);
        if (!fx->ctrl) {
            fprintf(stderr, "FAIL: ctrl_create\n");
        } else {
            if (ready)
                ready();
            g->run();
            rc = check_summary();
        }
    }
    ctrl_destroy(fx->ctrl);
    level_free(&fx->level);
    pfnn_free(&fx->net);
    return rc;
}

#endif
