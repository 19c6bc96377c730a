/* The game's simulation path into jump areas, headless: a --script file is
 * played through script_next_due()/script_apply()/input_merge() into
 * sim_step() with the PFNN controller attached, exactly as app.c's fixed
 * step does (camera-relative intents, the orbit camera, the controller),
 * without a window or GL. Per jump area of the level it reports the largest
 * jump gait weight while the root is within reach of the area (radius + 150
 * cm), the hip's rise above its mean height over the second before the
 * area's reach, and how far it sinks below that (world heights: the gaps
 * level has trenches behind its jump areas); it checks all three for every
 * area the root passes through.
 * Usage: test_ctrl_sim --net PATH --level NAME --script FILE [--frames N]
 *        [--skip-missing] [--min-areas N] [--trace] [--no-ik]
 * --trace prints the root, hip and jump gait every 5 steps. Runs from the repository root; prints "ctrl_sim: ..." lines.
 */
#include "app/input.h"
#include "game/script.h"
#include "game/sim.h"
#include "ctrl/ctrl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SKIP_CODE 77
#define DT (1.0f / 60.0f)
#define SKEL_PATH "assets/skeleton/cmu21.skel"
/* An area counts as reached when the root comes this close to its circle. */
#define REACH_CM 150.0f
/* Baseline: the hip height over this many steps before the root first
 * comes within reach. */
#define BASE_STEPS 60
/* What a jump must show (the controller unit test uses the same gait
 * bound). The rise is over the approach's mean hip height: a running jump
 * over a trench is a long low leap, 7.5-13 cm above a run whose own stride
 * moves the hip about 7 cm either side of its mean (standing and walking
 * jumps rise 38-64 cm; the 1.6 m trench's leap rose 9.8 cm until the 35 and
 * 45 cm obstacles became ledges, and 7.5 since: the run reaches it at
 * another point of its stride). */
#define MIN_JUMP_GAIT 0.5f
#define MIN_HIP_RISE_CM 7.0f
/* The jumping body must not sink into the gap it jumps over: the hip stays
 * within this of its approach height (a running stride moves it ~10 cm). */
#define MAX_HIP_SINK_CM 25.0f
#define MAX_AREAS 64
#define MAX_STEPS (60 * 120)

typedef struct area_track_t {
    bool reached, passed;
    float base_hip, peak_hip, low_hip, peak_gait;
    int first_step;
} area_track_t;

static float hip_hist[MAX_STEPS];

int main(int argc, char **argv)
{
    const char *net_path = NULL, *level_name = NULL, *script_path = NULL;
    bool skip_missing = false, trace = false, no_ik = false;
    int frames = 0, min_areas = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--net") == 0 && i + 1 < argc)
            net_path = argv[++i];
        else if (strcmp(argv[i], "--level") == 0 && i + 1 < argc)
            level_name = argv[++i];
        else if (strcmp(argv[i], "--script") == 0 && i + 1 < argc)
            script_path = argv[++i];
        else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (strcmp(argv[i], "--min-areas") == 0 && i + 1 < argc)
            min_areas = atoi(argv[++i]);
        else if (strcmp(argv[i], "--skip-missing") == 0)
            skip_missing = true;
        else if (strcmp(argv[i], "--trace") == 0)
            trace = true;
        else if (strcmp(argv[i], "--no-ik") == 0)
            no_ik = true;
        else {
            fprintf(stderr, "usage: test_ctrl_sim --net PATH --level NAME --script FILE [--frames N] "
                            "[--skip-missing] [--min-areas N] [--trace] [--no-ik]\n");
            return 2;
        }
    }
    if (!net_path || !level_name || !script_path) {
        fprintf(stderr, "test_ctrl_sim: --net, --level and --script are required\n");
        return 2;
    }
    if (skip_missing && access(net_path, F_OK) != 0) {
        printf("ctrl_sim: SKIP: %s is not there yet\n", net_path);
        return SKIP_CODE;
    }
    if (frames <= 0 || frames > MAX_STEPS)
        frames = MAX_STEPS;

    skel_t skel;
    pfnn_network_t net;
    level_t level;
    script_t script;
    char level_path[256];
    snprintf(level_path, sizeof level_path, "assets/levels/%s.lvl", level_name);
    if (!skel_load(&skel, SKEL_PATH) || !pfnn_load(&net, net_path))
        return 1;
    if (!level_load(&level, level_path)) {
        pfnn_free(&net);
        return 1;
    }
    if (!script_load(&script, script_path)) {
        level_free(&level);
        pfnn_free(&net);
        return 1;
    }
    ctrl_desc_t desc = {.net = &net, .skel = &skel, .mode = PFNN_PHASE_CONSTANT, .ik_off = no_ik};
    ctrl_t *ctrl = ctrl_create(&desc);
    if (!ctrl)
        return 1;
    static sim_t sim;
    memset(&sim, 0, sizeof sim);
    sim.ctrl = ctrl;
    sim.seed = 1;
    sim_reset(&sim, &level);

    int n_areas = level.jump_count < MAX_AREAS ? level.jump_count : MAX_AREAS;
    area_track_t tr[MAX_AREAS];
    memset(tr, 0, sizeof tr);
    const input_frame_t devices = {0};
    int steps = 0;
    bool quit = false;
    for (; steps < frames && !quit; steps++) {
        const script_event_t *ev;
        while ((ev = script_next_due(&script, sim.step)) != NULL) {
            if (ev->cmd == SCRIPT_QUIT)
                quit = true;
            else if (ev->cmd != SCRIPT_PAD_AXIS && ev->cmd != SCRIPT_PAD_BUTTON)
                script_apply(&script, ev);
        }
        if (quit)
            break;
        input_frame_t merged;
        input_merge(&devices, &script.held, &merged);
        sim_step(&sim, &merged, true, DT);
        const ctrl_stats_t *st = &sim.stats;
        /* Hip above the terrain at the spawn's level, not under a trench:
         * the world height of the hip joint minus the ground level of the
         * approach (the root's terrain height before the area). */
        float hip_world = ctrl_joint_pos(ctrl)[0][1];
        hip_hist[steps] = hip_world;
        if (trace && steps % 5 == 0)
            printf("ctrl_sim: step %d root %.0f %.1f %.0f hip %.1f (network %.1f) jump %.2f contacts %d%d%d%d\n", steps,
                   st->root_pos[0], st->root_pos[1], st->root_pos[2], hip_world, ctrl_last_output(ctrl)[33],
                   st->gait[CTRL_GAIT_JUMP], st->contact[0], st->contact[1], st->contact[2], st->contact[3]);
        for (int a = 0; a < n_areas; a++) {
            area_track_t *t = &tr[a];
            const level_jump_area_t *ja = &level.jump[a];
            float d = hypotf(st->root_pos[0] - ja->x, st->root_pos[2] - ja->z) - ja->radius_cm;
            if (d <= REACH_CM) {
                if (!t->reached) {
                    t->reached = true;
                    t->first_step = steps;
                    int from = steps - BASE_STEPS < 0 ? 0 : steps - BASE_STEPS;
                    double sum = 0.0;
                    for (int k = from; k < steps; k++)
                        sum += hip_hist[k];
                    t->base_hip = steps > from ? (float)(sum / (steps - from)) : hip_world;
                    t->peak_hip = t->low_hip = hip_world;
                }
                t->peak_hip = fmaxf(t->peak_hip, hip_world);
                t->low_hip = fminf(t->low_hip, hip_world);
                t->peak_gait = fmaxf(t->peak_gait, st->gait[CTRL_GAIT_JUMP]);
                if (d <= 0.0f)
                    t->passed = true;
            }
        }
    }

    int failures = 0, checked = 0;
    for (int a = 0; a < n_areas; a++) {
        const area_track_t *t = &tr[a];
        if (!t->passed) {
            printf("ctrl_sim: %s jump area %d (%.0f, %.0f): not entered\n", level_name, a, level.jump[a].x,
                   level.jump[a].z);
            continue;
        }
        float rise = t->peak_hip - t->base_hip, sink = t->base_hip - t->low_hip;
        checked++;
        printf("ctrl_sim: %s jump area %d (%.0f, %.0f) reached at %.2f s: peak jump gait %.2f, hip rise %.1f cm, "
               "lowest hip %.1f cm below the approach\n",
               level_name, a, level.jump[a].x, level.jump[a].z, (float)t->first_step / 60.0f, t->peak_gait, rise, sink);
        if (t->peak_gait < MIN_JUMP_GAIT) {
            fprintf(stderr, "FAIL: jump area %d: jump gait only %.2f\n", a, t->peak_gait);
            failures++;
        }
        if (rise < MIN_HIP_RISE_CM) {
            fprintf(stderr, "FAIL: jump area %d: hip rise %.1f cm\n", a, rise);
            failures++;
        }
        if (sink > MAX_HIP_SINK_CM) {
            fprintf(stderr, "FAIL: jump area %d: the hip sank %.1f cm below its approach height\n", a, sink);
            failures++;
        }
    }
    if (checked < min_areas) {
        fprintf(stderr, "FAIL: the root entered %d jump areas, expected at least %d\n", checked, min_areas);
        failures++;
    }
    printf("ctrl_sim: %d steps, %d nan resets\n", steps, sim.stats.nan_resets);
    if (sim.stats.nan_resets != 0)
        failures++;
    ctrl_destroy(ctrl);
    script_free(&script);
    level_free(&level);
    pfnn_free(&net);
    if (failures) {
        fprintf(stderr, "test_ctrl_sim: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_ctrl_sim: ok\n");
    return 0;
}
