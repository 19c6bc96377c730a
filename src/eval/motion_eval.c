/* motion_eval.c: plays scenarios through the game's fixed-step path and
 * measures them (the runner; eval_cli.c prints and writes the results). */
#include "eval/motion_eval.h"

#include "core/log.h"
#include "core/paths.h"
#include "game/crowd.h"
#include "game/pose_dump.h"
#include "game/script.h"
#include "game/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVAL_STEP_S (1.0f / 60.0f)
#define EVAL_PI 3.14159265358979323846f
#define EVAL_NETWORK "assets/network/pfnn.bin"
#define EVAL_SKELETON "assets/skeleton/cmu21.skel"
/* Calibration: stand idle on flat ground this long and take the medians of
 * the last second. */
#define EVAL_CALIB_STEPS 240
#define EVAL_CALIB_TAIL 60

/* Goals (docs/MOTION_EVAL.md). */
#define GOAL_SLIDE_FLAT_P95_CM 1.0f
#define GOAL_SLIDE_P95_CM 2.0f
#define GOAL_SLIDE_MAX_CM 4.0f
#define GOAL_SINK_CM 1.0f
#define GOAL_STAND_OFF_CM 32.0f
#define GOAL_FLIGHT_S 0.3f
#define GOAL_JUMP_FLIGHT_S 1.2f
#define GOAL_CEILING_CM 0.0f
#define GOAL_EDGE_CM 50.0f
#define GOAL_WALL_CM 2.0f
#define GOAL_FLEX_DEG 12.0f
#define GOAL_FLEX_EVENT_DEG 20.0f
#define GOAL_ROT_RATIO 1.5f
#define GOAL_ROT_P999_DEG 12.0f
#define GOAL_ROT_MAX_DEG 20.0f
#define GOAL_POINT_STEP_OVER_CM 2.0f
#define GOAL_SPEED_FRACTION 0.2f
#define GOAL_HEAD_DROP 0.25f
#define GOAL_BONE_ERROR 1e-4f

struct eval_t {
    eval_options_t opt;
    skel_t skel;
    pfnn_network_t net;
    bool net_loaded;
    ctrl_t *ctrl;
    ctrl_t *ref; /* IK off, played in lockstep (NULL with no_reference) */
    level_t level[EVAL_LEVELS];
    bool level_loaded[EVAL_LEVELS];
    const char *level_name[EVAL_LEVELS];
    mm_calibration_t cal;
};

static int level_index(eval_t *e, const char *name)
{
    for (int i = 0; i < EVAL_LEVELS && i < level_builtin_count(); i++)
        if (strcmp(level_builtin_name(i), name) == 0) {
            if (!e->level_loaded[i]) {
                char path[LEVEL_PATH_MAX];
                if (!level_path_for_name(name, path, sizeof path) || !level_load(&e->level[i], path))
                    return -1;
                e->level_loaded[i] = true;
            }
            return i;
        }
    log_error("eval: unknown level '%s'", name);
    return -1;
}

/* The requested ground speed of an intent, as ctrl.c turns it into one. */
static float want_speed(const ctrl_input_t *it)
{
    float mag = fminf(1.0f, hypotf(it->move_x, it->move_z));
    float s = it->crouch ? CTRL_CROUCH_SPEED_CM_S
                         : CTRL_WALK_SPEED_CM_S + (CTRL_RUN_SPEED_CM_S - CTRL_WALK_SPEED_CM_S) * it->speed;
    return mag * s;
}

/* The displayed POSE, the controller's stats ST and the intent IT of one
 * step as the metrics' frame. */
static void frame_from(const eval_t *e, const pose_t *pose, const ctrl_stats_t *st, const ctrl_input_t *it,
                       mm_frame_t *f)
{
    ctrl_sample_t s;
    ctrl_sample(e->ctrl, pose, &s);
    memcpy(f->joint_local, pose->rot, sizeof f->joint_local);
    f->wall_pushes = st->wall_pushes;
    memcpy(f->root, st->root_pos, sizeof f->root);
    memcpy(f->joint, s.joint, sizeof f->joint);
    memcpy(f->joint_rot, s.rot, sizeof f->joint_rot);
    memcpy(f->point, s.point, sizeof f->point);
    memcpy(f->head_top, s.head_top, sizeof f->head_top);
    f->head_height_cm = st->head_height_cm;
    for (int k = 0; k < MM_POINTS; k++) {
        f->flag[k] = st->contact[k];
        f->lock_weight[k] = st->lock_weight[k];
    }
    memcpy(f->gait, st->gait, sizeof f->gait);
    f->want_speed_cm_s = want_speed(it);
    f->nan_resets = st->nan_resets;
}

static void frame_from_sim(const eval_t *e, const sim_t *sim, mm_frame_t *f)
{
    frame_from(e, &sim->pose, &sim->stats, &sim->intent, f);
}

/* ---- soak scripts ---------------------------------------------------------- */

static float rnd(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return (float)(x >> 8) * (1.0f / 16777216.0f);
}

/* A script of random intents held 0.3-3 s: stops, walks, runs, strafes,
 * crouches, jump presses and camera orbits. The heading is dead-reckoned from
 * the requested speeds, and half the intents steer back towards the start
 * once it is over 15 m away, so the run stays among the level's features
 * (and keeps meeting its edges). The text is malloc'd. */
static char *soak_script(uint32_t seed, int steps)
{
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    uint32_t st = seed * 2654435761u ^ 0x5bd1e995u;
    if (st == 0)
        st = 1;
    float t = 0.0f, end = (float)steps * EVAL_STEP_S;
    float yaw = 0.0f, px = 0.0f, pz = 0.0f; /* camera yaw and estimated position */
    bool crouch = false;
    while (t < end) {
        char line[256];
        float hold = 0.3f + 2.7f * rnd(&st);
        float ang = 2.0f * EVAL_PI * rnd(&st);
        float mag = rnd(&st) < 0.15f ? 0.0f : (rnd(&st) < 0.2f ? 0.5f : 1.0f);
        float dist = hypotf(px, pz);
        if (dist > 1500.0f && rnd(&st) < 0.5f) {
            /* World direction home, then into the camera frame, +-60 degrees. */
            float home = atan2f(-px, -pz) + (rnd(&st) - 0.5f) * (2.0f * EVAL_PI / 3.0f);
            ang = home - yaw;
            mag = 1.0f;
        }
        float r = rnd(&st);
        float speed = r < 0.4f ? 0.0f : (r < 0.7f ? 1.0f : rnd(&st));
        bool strafe = rnd(&st) < 0.1f;
        crouch = rnd(&st) < (crouch ? 0.5f : 0.15f);
        float orbit = rnd(&st) < 0.1f ? (rnd(&st) - 0.5f) * 180.0f : 0.0f;
        float mx = sinf(ang) * mag, my = cosf(ang) * mag;
        int n = snprintf(line, sizeof line, "%.3f move %.3f %.3f speed %.2f strafe %d crouch %d orbit %.1f 0\n",
                         (double)t, (double)mx, (double)my, (double)speed, strafe, crouch, (double)orbit);
        if (rnd(&st) < 0.25f) {
            float at = t + hold * rnd(&st);
            float up = at + 0.05f + 0.4f * rnd(&st);
            if (up < t + hold)
                n += snprintf(line + n, sizeof line - (size_t)n, "%.3f jump 1\n%.3f jump 0\n", (double)at, (double)up);
        }
        if (len + (size_t)n + 1 > cap) {
            cap *= 2;
            char *grown = realloc(text, cap);
            if (!grown) {
                free(text);
                return NULL;
            }
            text = grown;
        }
        memcpy(text + len, line, (size_t)n);
        len += (size_t)n;
        /* Dead reckoning (intent_resolve's basis: right = (-cos, sin)). */
        float v = mag * (crouch ? CTRL_CROUCH_SPEED_CM_S
                                : CTRL_WALK_SPEED_CM_S + (CTRL_RUN_SPEED_CM_S - CTRL_WALK_SPEED_CM_S) * speed);
        float wx = -cosf(yaw) * sinf(ang) + sinf(yaw) * cosf(ang);
        float wz = sinf(yaw) * sinf(ang) + cosf(yaw) * cosf(ang);
        px += wx * v * hold;
        pz += wz * v * hold;
        yaw += orbit * (EVAL_PI / 180.0f) * hold;
        t += hold;
    }
    text[len] = '\0';
    return text;
}

/* ---- running ----------------------------------------------------------------- */

/* One run of a scenario: its sim, accumulator and optional pose dump. */
typedef struct eval_play_t {
    sim_t sim;
    mm_acc_t acc;
    pose_dump_t dump;
    bool dumping;
} eval_play_t;

static void play_reset(eval_t *e, eval_play_t *p, ctrl_t *c, level_t *lvl, bool ik)
{
    memset(&p->sim, 0, sizeof p->sim);
    p->sim.ctrl = c;
    p->sim.seed = 1;
    sim_reset(&p->sim, lvl);
    ctrl_set_ik(c, ik);
    ctrl_set_mode(c, e->opt.mode);
}

static void trace_step(const eval_play_t *p, int run, eval_trace_t *t, int i)
{
    const pose_t *a = &p->sim.prev_pose, *b = &p->sim.pose;
    for (int j = 0; j < MM_JOINTS; j++)
        t->rot_change_deg[i][run][j] = i > 0 ? mm_quat_angle_deg(a->rot[j], b->rot[j]) : 0.0f;
    ctrl_sample_t s;
    ctrl_sample(p->sim.ctrl, b, &s);
    for (int h = 0; h < MM_HINGES; h++)
        t->flex_deg[i][run][h] = mm_hinge_flexion(&p->acc, h, (const float(*)[3])s.joint);
}

/* Plays SCRIPT on level LI from the given spawn for at most STEPS steps
 * with the runs RUN[0] (as the options ask) and, unless NULL, RUN[1] (the
 * IK-off reference) in lockstep, and hands each run's frames to its
 * accumulator and dump; counts the steps whose network inputs differ. */
static bool play(eval_t *e, int li, const eval_scenario_t *s, script_t *script, int steps, eval_play_t *run[2],
                 eval_result_t *res, eval_trace_t *trace)
{
    level_t *lvl = &e->level[li];
    float sx = lvl->spawn_x, sz = lvl->spawn_z, sh = lvl->spawn_heading_rad;
    if (s && s->spawn) {
        lvl->spawn_x = s->x;
        lvl->spawn_z = s->z;
        lvl->spawn_heading_rad = s->heading_deg * (EVAL_PI / 180.0f);
    }
    play_reset(e, run[0], e->ctrl, lvl, !e->opt.no_ik);
    if (run[1])
        play_reset(e, run[1], e->ref, lvl, false);
    if (trace)
        trace->count = 0;
    input_frame_t none;
    memset(&none, 0, sizeof none);
    for (int i = 0; i < steps; i++) {
        const script_event_t *ev;
        bool quit = false;
        while ((ev = script_next_due(script, run[0]->sim.step)) != NULL) {
            if (ev->cmd == SCRIPT_QUIT)
                quit = true;
            else
                script_apply(script, ev);
        }
        if (quit)
            break;
        input_frame_t in;
        input_merge(&none, &script->held, &in);
        for (int k = 0; k < 2 && run[k]; k++) {
            eval_play_t *p = run[k];
            sim_step(&p->sim, &in, true, EVAL_STEP_S);
            mm_frame_t f;
            frame_from_sim(e, &p->sim, &f);
            mm_add(&p->acc, &f);
            if (p->dumping)
                pose_dump_row(&p->dump, p->sim.step, p->sim.ctrl, &p->sim.pose, &p->sim.stats);
            if (trace && trace->count < trace->capacity)
                trace_step(p, k, trace, trace->count);
        }
        if (trace && trace->count < trace->capacity) {
            trace->phase_rad[trace->count] = run[0]->sim.stats.phase_rad;
            if (!run[1]) {
                memcpy(trace->rot_change_deg[trace->count][1], trace->rot_change_deg[trace->count][0],
                       sizeof trace->rot_change_deg[0][0]);
                memcpy(trace->flex_deg[trace->count][1], trace->flex_deg[trace->count][0],
                       sizeof trace->flex_deg[0][0]);
            }
            trace->count++;
        }
        if (run[1] && memcmp(ctrl_last_input(e->ctrl), ctrl_last_input(e->ref), sizeof(float) * PFNN_N_IN) != 0) {
            if (res->net_diff_steps++ == 0)
                res->net_diff_first = i + 1;
        }
    }
    lvl->spawn_x = sx;
    lvl->spawn_z = sz;
    lvl->spawn_heading_rad = sh;
    return true;
}

static int cmp_float(const void *pa, const void *pb)
{
    float a = *(const float *)pa, b = *(const float *)pb;
    return (a > b) - (a < b);
}

/* Idle heights of the foot points and the standing head height: the median
 * of the last second of standing still on flat ground. */
static bool calibrate(eval_t *e)
{
    int li = level_index(e, "flat");
    if (li < 0)
        return false;
    level_t *lvl = &e->level[li];
    sim_t sim;
    memset(&sim, 0, sizeof sim);
    sim.ctrl = e->ctrl;
    sim_reset(&sim, lvl);
    ctrl_set_ik(e->ctrl, !e->opt.no_ik);
    ctrl_set_mode(e->ctrl, e->opt.mode);
    float h[MM_POINTS + 1][EVAL_CALIB_TAIL];
    input_frame_t none;
    memset(&none, 0, sizeof none);
    for (int i = 0; i < EVAL_CALIB_STEPS; i++) {
        sim_step(&sim, &none, true, EVAL_STEP_S);
        int k = i - (EVAL_CALIB_STEPS - EVAL_CALIB_TAIL);
        if (k < 0)
            continue;
        ctrl_sample_t s;
        ctrl_sample(e->ctrl, &sim.pose, &s);
        for (int p = 0; p < MM_POINTS; p++)
            h[p][k] = mm_height_above_ground(lvl, s.point[p]);
        h[MM_POINTS][k] = sim.stats.head_height_cm;
    }
    for (int p = 0; p <= MM_POINTS; p++) {
        qsort(h[p], EVAL_CALIB_TAIL, sizeof(float), cmp_float);
        float m = h[p][EVAL_CALIB_TAIL / 2];
        if (!isfinite(m)) {
            log_error("eval: the idle calibration is not finite");
            return false;
        }
        if (p < MM_POINTS)
            e->cal.idle_height_cm[p] = m;
        else
            e->cal.stand_head_cm = m;
    }
    return true;
}

eval_t *eval_open(const eval_options_t *opt)
{
    eval_t *e = calloc(1, sizeof *e);
    if (!e) {
        log_error("eval: out of memory");
        return NULL;
    }
    e->opt = *opt;
    char path[PATHS_MAX];
    bool ok = paths_join(EVAL_SKELETON, path, sizeof path) && skel_load(&e->skel, path);
    if (ok) {
        if (opt->network)
            snprintf(path, sizeof path, "%s", opt->network);
        else
            ok = paths_join(EVAL_NETWORK, path, sizeof path);
    }
    pfnn_load_desc_t ld = {.modes = 1u << opt->mode};
    ok = ok && pfnn_load_ex(&e->net, path, &ld);
    e->net_loaded = ok;
    if (ok) {
        ctrl_desc_t d = {.net = &e->net, .skel = &e->skel, .mode = opt->mode, .ik_off = opt->no_ik};
        e->ctrl = ctrl_create(&d);
        ok = e->ctrl != NULL;
        if (ok && !opt->no_reference) {
            d.ik_off = true;
            e->ref = ctrl_create(&d);
            ok = e->ref != NULL;
        }
    }
    ok = ok && calibrate(e);
    if (!ok) {
        eval_close(e);
        return NULL;
    }
    return e;
}

void eval_close(eval_t *e)
{
    if (!e)
        return;
    ctrl_destroy(e->ctrl);
    ctrl_destroy(e->ref);
    if (e->net_loaded)
        pfnn_free(&e->net);
    for (int i = 0; i < EVAL_LEVELS; i++)
        if (e->level_loaded[i])
            level_free(&e->level[i]);
    free(e);
}

const mm_calibration_t *eval_calibration(const eval_t *e) { return &e->cal; }
const char *eval_joint_name(const eval_t *e, int joint) { return e->skel.joint_name[joint]; }

/* Opens DUMP at DIR/NAME SUFFIX.csv. */
static bool open_dump_at(const eval_t *e, const char *name, const char *suffix, pose_dump_t *dump)
{
    char path[PATHS_MAX];
    snprintf(path, sizeof path, "%s/%s%s.csv", e->opt.dump_dir, name, suffix);
    return pose_dump_open(dump, path, &e->skel);
}

static bool open_dump(const eval_t *e, const eval_scenario_t *s, const char *suffix, eval_play_t *p)
{
    p->dumping = open_dump_at(e, s->name, suffix, &p->dump);
    return p->dumping;
}

/* ---- crowds ------------------------------------------------------------------ */

int eval_crowd_count(const eval_scenario_t *s)
{
    return (s->flags & EVAL_CROWD100) ? 100 : (s->flags & EVAL_CROWD20) ? 20 : 0;
}

/* A crowd's members, each measured: crowd[0] as the options ask, crowd[1]
 * (unless NULL) every member with IK off, stepped in lockstep from the
 * same seed (a wall push that differs can make the two crowds' members
 * part: the net_diff count says how often member inputs differed). */
typedef struct eval_crowd_t {
    crowd_t *crowd[2];
    mm_acc_t *acc[2]; /* per member */
    int begun[2];
} eval_crowd_t;

static void crowd_free(eval_crowd_t *c)
{
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < c->begun[k]; i++)
            mm_free(&c->acc[k][i]);
        free(c->acc[k]);
        crowd_destroy(c->crowd[k]);
    }
}

static bool crowd_open(eval_t *e, int li, int count, int steps, int runs, eval_crowd_t *c)
{
    memset(c, 0, sizeof *c);
    for (int k = 0; k < runs; k++) {
        crowd_desc_t d = {.net = &e->net,
                          .skel = &e->skel,
                          .mode = e->opt.mode,
                          .ik_off = k == 1 || e->opt.no_ik,
                          .max_count = count};
        c->crowd[k] = crowd_create(&d);
        c->acc[k] = calloc((size_t)count, sizeof *c->acc[k]);
        if (!c->crowd[k] || !c->acc[k] || !crowd_reset(c->crowd[k], &e->level[li], count, e->opt.seed, NULL, false))
            return false;
        if (crowd_count(c->crowd[k]) != count) {
            log_error("eval: %s has room for %d of %d crowd members", e->level_name[li], crowd_count(c->crowd[k]),
                      count);
            return false;
        }
        for (; c->begun[k] < count; c->begun[k]++)
            if (!mm_begin(&c->acc[k][c->begun[k]], &e->level[li], &e->skel, &e->cal, steps, 0, 0))
                return false;
    }
    return true;
}

static void crowd_measure(const eval_t *e, crowd_t *crowd, mm_acc_t *acc)
{
    for (int i = 0; i < crowd_count(crowd); i++) {
        const crowd_member_t *m = crowd_member(crowd, i);
        ctrl_stats_t st;
        ctrl_get_stats(m->ctrl, &st);
        mm_frame_t f;
        frame_from(e, ctrl_pose(m->ctrl), &st, &m->intent, &f);
        mm_add(&acc[i], &f);
    }
}

/* Every member's misses at each level; the worst member's results go in
 * OUT's on/off. */
static void crowd_judge(const eval_t *e, const eval_scenario_t *s, eval_crowd_t *c, eval_result_t *out)
{
    int count = crowd_count(c->crowd[0]), worst_misses = -1;
    static eval_result_t one; /* large: off the stack */
    char text[EVAL_FAIL_TEXT];
    for (int i = 0; i < count; i++) {
        memset(&one, 0, sizeof one);
        mm_finish(&c->acc[0][i], &one.on);
        one.have_off = c->crowd[1] != NULL;
        if (one.have_off)
            mm_finish(&c->acc[1][i], &one.off);
        int misses = 0;
        for (int j = 0; j < e->skel.joint_count; j++)
            if (one.on.rot_max_deg[j] > out->crowd_turn_deg) {
                out->crowd_turn_deg = one.on.rot_max_deg[j];
                out->crowd_turn_member = i;
                out->crowd_turn_joint = j;
                out->crowd_turn_step = one.on.rot_max_step[j];
            }
        for (int level = 0; level < 3; level++) {
            int n = eval_check(e, s, &one, (eval_level_t)level, text, (int)sizeof text);
            if (level == EVAL_GOALS)
                misses = n;
            if (n > 0 && out->crowd_failing[level]++ == 0) {
                int len = snprintf(out->crowd_text[level], sizeof out->crowd_text[level], "member %d: ", i);
                size_t room = sizeof out->crowd_text[level] - (size_t)len, k = 0;
                for (; k + 1 < room && text[k]; k++)
                    out->crowd_text[level][(size_t)len + k] = text[k];
                out->crowd_text[level][(size_t)len + k] = '\0';
            }
        }
        if (misses > worst_misses) {
            worst_misses = misses;
            out->crowd_worst = i;
            out->on = one.on;
            out->off = one.off;
            out->have_off = one.have_off;
        }
    }
}

static bool run_crowd(eval_t *e, int li, const eval_scenario_t *s, int steps, eval_result_t *out)
{
    int count = eval_crowd_count(s), runs = e->ref ? 2 : 1;
    eval_crowd_t c;
    bool ok = crowd_open(e, li, count, steps, runs, &c);
    /* The asked-for member's displayed pose, as a single scenario's. */
    static pose_dump_t dump[2];
    bool dumping[2] = {false, false};
    int dm = e->opt.dump_member;
    if (ok && e->opt.dump_dir && dm >= count) {
        log_error("eval: %s has %d members: --dump-member %d is past the last", s->name, count, dm);
        ok = false;
    }
    for (int k = 0; ok && e->opt.dump_dir && k < runs; k++) {
        char name[128];
        snprintf(name, sizeof name, "%s_member%d", s->name, dm);
        ok = dumping[k] = open_dump_at(e, name, k == 0 ? "" : "_ik_off", &dump[k]);
    }
    for (int step = 0; ok && step < steps; step++) {
        for (int k = 0; k < runs; k++) {
            crowd_step(c.crowd[k], NULL, EVAL_STEP_S);
            crowd_measure(e, c.crowd[k], c.acc[k]);
            if (dumping[k]) {
                const crowd_member_t *m = crowd_member(c.crowd[k], dm);
                ctrl_stats_t st;
                ctrl_get_stats(m->ctrl, &st);
                pose_dump_row(&dump[k], (uint64_t)step + 1, m->ctrl, ctrl_pose(m->ctrl), &st);
            }
        }
        for (int i = 0; runs == 2 && i < count; i++)
            if (memcmp(ctrl_last_input(crowd_ctrl(c.crowd[0], i)), ctrl_last_input(crowd_ctrl(c.crowd[1], i)),
                       sizeof(float) * PFNN_N_IN) != 0 &&
                out->net_diff_steps++ == 0)
                out->net_diff_first = step + 1;
    }
    if (ok) {
        out->crowd_members = count;
        const crowd_stats_t *st = crowd_stats(c.crowd[0]);
        out->crowd_min_gap_cm = st->min_gap_ever_cm;
        out->crowd_overlap_steps = st->overlap_steps;
        crowd_judge(e, s, &c, out);
    }
    for (int k = 0; k < 2; k++)
        if (dumping[k])
            ok = pose_dump_close(&dump[k]) && ok;
    crowd_free(&c);
    return ok;
}

bool eval_run_scenario(eval_t *e, const eval_scenario_t *s, eval_result_t *out, eval_trace_t *trace)
{
    memset(out, 0, sizeof *out);
    int li = level_index(e, s->level);
    if (li < 0)
        return false;
    int steps = (s->flags & EVAL_SOAK) ? e->opt.soak_steps : (int)lrintf(s->seconds / EVAL_STEP_S);
    if (steps <= 0) {
        log_error("eval: %s: no steps to run", s->name);
        return false;
    }
    if (eval_crowd_count(s) > 0)
        return run_crowd(e, li, s, steps, out);
    char *text = NULL;
    const char *src = s->script;
    if (!src) {
        /* Each soak gets its own intents: the seed mixed with its level. */
        text = soak_script(e->opt.seed * 7919u + (uint32_t)li, steps);
        if (!text) {
            log_error("eval: %s: out of memory for the soak script", s->name);
            return false;
        }
        src = text;
    }
    script_t script;
    bool ok = script_parse(&script, src, strlen(src), s->name);
    free(text);
    if (!ok)
        return false;
    int from = (int)lrintf(s->speed_from_s / EVAL_STEP_S), to = (int)lrintf(s->speed_to_s / EVAL_STEP_S);
    if (!(s->flags & EVAL_SPEED))
        from = to = 0;
    /* The runs are large (two sims with their poses): off the stack. */
    eval_play_t *runs = calloc(2, sizeof *runs);
    eval_play_t *run[2] = {runs, e->ref && runs ? &runs[1] : NULL};
    int nruns = run[1] ? 2 : 1, begun = 0;
    ok = runs != NULL;
    if (!ok)
        log_error("eval: %s: out of memory", s->name);
    while (ok && begun < nruns) {
        ok = mm_begin(&run[begun]->acc, &e->level[li], &e->skel, &e->cal, steps, from, to);
        begun += ok;
    }
    if (ok && e->opt.dump_dir) {
        ok = open_dump(e, s, "", run[0]);
        if (ok && run[1])
            ok = open_dump(e, s, "_ik_off", run[1]);
    }
    ok = ok && play(e, li, s, &script, steps, run, out, trace);
    for (int k = 0; k < nruns && runs; k++)
        if (run[k]->dumping)
            ok = pose_dump_close(&run[k]->dump) && ok;
    for (int k = 0; k < begun; k++) {
        mm_finish(&run[k]->acc, k == 0 ? &out->on : &out->off);
        mm_free(&run[k]->acc);
    }
    out->have_off = nruns == 2 && ok;
    free(runs);
    script_free(&script);
    return ok;
}

/* Appends "what value (goal)" to TEXT. */
static void miss(char *text, int size, int *n, const char *fmt, double v)
{
    int len = (int)strlen(text);
    if (len < size - 1)
        snprintf(text + len, (size_t)(size - len), "%s", len ? "; " : "");
    len = (int)strlen(text);
    if (len < size - 1)
        snprintf(text + len, (size_t)(size - len), fmt, v);
    (*n)++;
}

/* The smoothness goals (docs/MOTION_EVAL.md) of R against the network
 * alone, OFF. */
static void check_smoothness(const eval_t *e, const mm_result_t *r, const mm_result_t *off, char *text, int text_size,
                             int *n)
{
    char fmt[160];
    static const char *const point_name[MM_POINTS] = {"left heel", "left toe", "right heel", "right toe"};
    const float flex_goal[2] = {GOAL_FLEX_DEG, GOAL_FLEX_EVENT_DEG};
    for (int c = 0; c < 2; c++)
        if (r->flex_max_deg[c] > flex_goal[c]) {
            snprintf(fmt, sizeof fmt, "%s flexion changed %%.1f deg in a step at step %d%s (<= %.0f)",
                     MM_HINGE_NAMES[r->flex_hinge[c]], r->flex_step[c], c == MM_NEAR_EVENT ? " near an event" : "",
                     (double)flex_goal[c]);
            miss(text, text_size, n, fmt, r->flex_max_deg[c]);
        }
    int worst = -1;
    float worst_ratio = 0.0f;
    for (int b = 0; b < MM_JOINTS; b++) {
        float ratio = off->rot_p999_deg[b] > 0.0f ? r->rot_p999_deg[b] / off->rot_p999_deg[b] : 0.0f;
        bool over = r->rot_p999_deg[b] > GOAL_ROT_P999_DEG || (ratio > GOAL_ROT_RATIO);
        if (over && (worst < 0 || ratio > worst_ratio)) {
            worst = b;
            worst_ratio = ratio;
        }
    }
    if (worst >= 0) {
        snprintf(fmt, sizeof fmt,
                 "%s local rotation change p99.9 %%.2f deg, %.2fx the network alone's %.2f (<= %.1fx, <= %.0f); "
                 "largest %.1f deg at step %d",
                 eval_joint_name(e, worst), (double)worst_ratio, (double)off->rot_p999_deg[worst],
                 (double)GOAL_ROT_RATIO, (double)GOAL_ROT_P999_DEG, (double)r->rot_max_deg[worst],
                 r->rot_max_step[worst]);
        miss(text, text_size, n, fmt, r->rot_p999_deg[worst]);
    }
    worst = 0;
    for (int b = 1; b < MM_JOINTS; b++)
        if (r->rot_max_deg[b] > r->rot_max_deg[worst])
            worst = b;
    if (r->rot_max_deg[worst] > GOAL_ROT_MAX_DEG) {
        snprintf(fmt, sizeof fmt, "%s turned %%.1f deg in a step at step %d (<= %.0f)", eval_joint_name(e, worst),
                 r->rot_max_step[worst], (double)GOAL_ROT_MAX_DEG);
        miss(text, text_size, n, fmt, r->rot_max_deg[worst]);
    }
    float step_goal = off->point_step_max_cm + GOAL_POINT_STEP_OVER_CM;
    if (r->point_step_max_cm > step_goal) {
        snprintf(fmt, sizeof fmt, "%s moved %%.1f cm in a step at step %d (<= the network alone's %.1f + %.0f)",
                 point_name[r->point_step_point], r->point_step_step, (double)off->point_step_max_cm,
                 (double)GOAL_POINT_STEP_OVER_CM);
        miss(text, text_size, n, fmt, r->point_step_max_cm);
    }
}

int eval_check(const eval_t *e, const eval_scenario_t *s, const eval_result_t *res, eval_level_t level, char *text,
               int text_size)
{
    const mm_result_t *r = &res->on;
    int n = 0;
    text[0] = '\0';
    if (res->crowd_members > 0) {
        /* A crowd: its members' misses (judged one by one at the run's end),
         * and the capsules. */
        if (res->crowd_overlap_steps > 0)
            miss(text, text_size, &n, "capsules overlapped (closest %.1f cm apart)", res->crowd_min_gap_cm);
        if (res->crowd_failing[level] > 0) {
            /* The member's text as a format: its '%' doubled. */
            char fmt[2 * EVAL_FAIL_TEXT + 64];
            int len = snprintf(fmt, sizeof fmt, "%%.0f of %d members miss; ", res->crowd_members);
            for (const char *p = res->crowd_text[level]; *p && len < (int)sizeof fmt - 3; p++) {
                if (*p == '%')
                    fmt[len++] = '%';
                fmt[len++] = *p;
            }
            fmt[len] = '\0';
            miss(text, text_size, &n, fmt, (double)res->crowd_failing[level]);
            /* Where to look first (not a miss of its own). */
            int used = (int)strlen(text);
            if (used < text_size - 1)
                snprintf(text + used, (size_t)(text_size - used), "; largest turn: member %d, %s %.1f deg at step %d",
                         res->crowd_turn_member, e->skel.joint_name[res->crowd_turn_joint], (double)res->crowd_turn_deg,
                         res->crowd_turn_step);
        }
        return n;
    }
    bool goals = level != EVAL_INVARIANTS;
    float p95 = (s->flags & EVAL_FLAT) ? GOAL_SLIDE_FLAT_P95_CM : GOAL_SLIDE_P95_CM;
    for (int t = 0; t < 2 && goals; t++) {
        const char *what = t == MM_HEEL ? "heel" : "toe";
        char sfmt[96];
        if (r->slide_p95_cm[t] > p95) {
            snprintf(sfmt, sizeof sfmt, "%s slide p95 %%.1f cm (<= %.0f)", what, (double)p95);
            miss(text, text_size, &n, sfmt, r->slide_p95_cm[t]);
        }
        if (!(s->flags & EVAL_FLAT) && r->slide_max_cm[t] > GOAL_SLIDE_MAX_CM) {
            snprintf(sfmt, sizeof sfmt, "%s slide max %%.1f cm from step %d (<= %.0f)", what, r->slide_max_step[t],
                     (double)GOAL_SLIDE_MAX_CM);
            miss(text, text_size, &n, sfmt, r->slide_max_cm[t]);
        }
    }
    if (goals && r->sink_max_cm > GOAL_SINK_CM)
        miss(text, text_size, &n, "sink %.1f cm (<= 1)", r->sink_max_cm);
    if (r->stand_off_cm > GOAL_STAND_OFF_CM) {
        char sfmt[128];
        snprintf(sfmt, sizeof sfmt, "a held foot stood %%.1f cm off the body's ground at step %d (<= %.0f)",
                 r->stand_off_step, (double)GOAL_STAND_OFF_CM);
        miss(text, text_size, &n, sfmt, r->stand_off_cm);
    }
    static const char *const extra[] = {"head top", "left heel", "left toe", "right heel", "right toe"};
    char fmt[128];
    if (goals && r->flight_max_s > GOAL_FLIGHT_S) {
        snprintf(fmt, sizeof fmt, "airborne without a jump %%.2f s from step %d (<= 0.3)", r->flight_step);
        miss(text, text_size, &n, fmt, r->flight_max_s);
    }
    if (r->jump_flight_max_s > GOAL_JUMP_FLIGHT_S) {
        snprintf(fmt, sizeof fmt, "jump flight %%.2f s from step %d (<= 1.2)", r->jump_flight_step);
        miss(text, text_size, &n, fmt, r->jump_flight_max_s);
    }
    if (r->ceiling_max_cm > GOAL_CEILING_CM) {
        const char *what = r->ceiling_point < MM_JOINTS ? e->skel.joint_name[r->ceiling_point]
                                                        : extra[r->ceiling_point - MM_JOINTS];
        snprintf(fmt, sizeof fmt, "%s %%.1f cm through a ceiling at step %d (0)", what, r->ceiling_step);
        miss(text, text_size, &n, fmt, r->ceiling_max_cm);
    }
    if (r->edge_min_cm < GOAL_EDGE_CM)
        miss(text, text_size, &n, "root %.0f cm from the edge (>= 50)", r->edge_min_cm);
    if (r->wall_max_cm > GOAL_WALL_CM) {
        const char *what = r->wall_point < MM_JOINTS ? e->skel.joint_name[r->wall_point]
                                                     : extra[r->wall_point - MM_JOINTS];
        snprintf(fmt, sizeof fmt, "%s %%.1f cm into a wall at step %d (<= 2)", what, r->wall_step);
        miss(text, text_size, &n, fmt, r->wall_max_cm);
    }
    if (level != EVAL_GOALS && e->opt.flip_deg > 0.0) {
        int fj = 0;
        for (int j = 1; j < MM_JOINTS; j++)
            if (r->rot_max_deg[j] > r->rot_max_deg[fj])
                fj = j;
        if (r->rot_max_deg[fj] > e->opt.flip_deg) {
            snprintf(fmt, sizeof fmt, "%s turned %%.0f deg in a step at step %d, a flip (<= %.0f)",
                     e->skel.joint_name[fj], r->rot_max_step[fj], e->opt.flip_deg);
            miss(text, text_size, &n, fmt, r->rot_max_deg[fj]);
        }
    }
    if (level == EVAL_GOALS && !res->have_off)
        miss(text, text_size, &n, "smoothness not measured (no IK-off run)", 0.0);
    else if (level == EVAL_GOALS)
        check_smoothness(e, r, &res->off, text, text_size, &n);
    if (r->nonfinite_steps > 0 || r->nan_resets > 0)
        miss(text, text_size, &n, "%.0f non-finite steps or resets (0)", (double)(r->nonfinite_steps + r->nan_resets));
    if (r->bone_error_max > GOAL_BONE_ERROR)
        miss(text, text_size, &n, "bone length error %.1e (<= 1e-4)", r->bone_error_max);
    if (goals && (s->flags & EVAL_SPEED) && r->want_speed_cm_s > 0.0f &&
        fabsf(r->speed_cm_s / r->want_speed_cm_s - 1.0f) > GOAL_SPEED_FRACTION)
        miss(text, text_size, &n, "speed %.0f %% of the request (80-120)", 100.0f * r->speed_cm_s / r->want_speed_cm_s);
    if (goals && (s->flags & EVAL_CROUCH)) {
        float drop = r->head_crouch_cm > 0.0f ? 1.0f - r->head_crouch_cm / e->cal.stand_head_cm : 0.0f;
        if (drop < GOAL_HEAD_DROP)
            miss(text, text_size, &n, "head %.0f %% lower under the ceilings (>= 25)", 100.0f * drop);
    }
    return n;
}
