/* eval_cli.c: `strider eval motion [options]`: argument parsing, the tables,
 * and the CSV, JSON and SVG outputs of a motion evaluation. */
/* fnmatch is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include "eval/motion_eval.h"
#include "game/crowd.h"

#include "core/report.h"
#include "core/args.h"
#include "core/log.h"
#include "core/paths.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EVAL_EXIT_OK = 0, EVAL_EXIT_FAIL = 1, EVAL_EXIT_USAGE = 2, EVAL_MAX_SCENARIOS = 128, EVAL_PATTERNS_MAX = 4096 };
#define EVAL_SOAK_STEPS_DEFAULT 20000
#define EVAL_SOAK_STEPS_MAX 1000000

static bool matches(const eval_scenario_t *s, const char *patterns)
{
    if (!patterns)
        return true;
    char buf[EVAL_PATTERNS_MAX];
    snprintf(buf, sizeof buf, "%s", patterns);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
        if (fnmatch(tok, s->name, 0) == 0 || fnmatch(tok, s->group, 0) == 0)
            return true;
    return false;
}

/* One row of results per scenario, for every output. */
typedef struct eval_row_t {
    const eval_scenario_t *s;
    eval_result_t r;
    int misses;
    char text[EVAL_FAIL_TEXT];
} eval_row_t;

static const char *const COLUMNS[] = {"scenario",
                                      "level",
                                      "steps",
                                      "heel_p95_cm",
                                      "heel_max_cm",
                                      "toe_p95_cm",
                                      "toe_max_cm",
                                      "sink_cm",
                                      "stand_cm",
                                      "flight_s",
                                      "jump_s",
                                      "ceiling_cm",
                                      "edge_cm",
                                      "wall_cm",
                                      "speed_pct",
                                      "head_pct",
                                      "flex_deg",
                                      "flex_event_deg",
                                      "flex_off_deg",
                                      "rot_p999_ratio",
                                      "rot_p999_deg",
                                      "rot_max_deg",
                                      "rot_off_max_deg",
                                      "foot_step_cm",
                                      "foot_step_off_cm",
                                      "foot_accel_cm",
                                      "foot_accel_off_cm",
                                      "net_diff_steps",
                                      "goals"};
enum { COLUMN_COUNT = (int)(sizeof COLUMNS / sizeof COLUMNS[0]) };

/* The worst joint's local rotation change p99.9 against the network alone's,
 * and the largest p99.9 and change of any joint. */
static float rot_ratio(const eval_result_t *r)
{
    float worst = 0.0f;
    for (int b = 0; b < MM_JOINTS; b++)
        if (r->off.rot_p999_deg[b] > 0.0f)
            worst = fmaxf(worst, r->on.rot_p999_deg[b] / r->off.rot_p999_deg[b]);
    return worst;
}

static float max_over_joints(const float v[MM_JOINTS])
{
    float m = 0.0f;
    for (int b = 0; b < MM_JOINTS; b++)
        m = fmaxf(m, v[b]);
    return m;
}

static void smooth_cells(report_table_t *t, const eval_result_t *r)
{
    const mm_result_t *on = &r->on, *off = &r->off;
    report_table_num(t, on->flex_max_deg[MM_STEADY], 1);
    report_table_num(t, on->flex_max_deg[MM_NEAR_EVENT], 1);
    if (r->have_off)
        report_table_num(t, fmaxf(off->flex_max_deg[MM_STEADY], off->flex_max_deg[MM_NEAR_EVENT]), 1);
    else
        report_table_str(t, "-");
    if (r->have_off)
        report_table_num(t, rot_ratio(r), 2);
    else
        report_table_str(t, "-");
    report_table_num(t, max_over_joints(on->rot_p999_deg), 1);
    report_table_num(t, max_over_joints(on->rot_max_deg), 1);
    if (r->have_off)
        report_table_num(t, max_over_joints(off->rot_max_deg), 1);
    else
        report_table_str(t, "-");
    report_table_num(t, on->point_step_max_cm, 1);
    if (r->have_off)
        report_table_num(t, off->point_step_max_cm, 1);
    else
        report_table_str(t, "-");
    report_table_num(t, on->point_accel_max_cm, 2);
    if (r->have_off) {
        report_table_num(t, off->point_accel_max_cm, 2);
        report_table_num(t, r->net_diff_steps, 0);
    } else {
        report_table_str(t, "-");
        report_table_str(t, "-");
    }
}

static void fill_table(report_table_t *t, const eval_row_t *rows, int n, const mm_calibration_t *cal)
{
    report_table_init(t, "motion evaluation (cm, s, deg; goals in docs/MOTION_EVAL.md)", COLUMN_COUNT, COLUMNS);
    report_table_note(t,
                      "idle heights above the ground: heels %.2f / %.2f cm, toes %.2f / %.2f cm; standing head %.1f cm",
                      (double)cal->idle_height_cm[0], (double)cal->idle_height_cm[2], (double)cal->idle_height_cm[1],
                      (double)cal->idle_height_cm[3], (double)cal->stand_head_cm);
    report_table_note(t, "sink: below the idle height; stand: a held heel or toe off the root's ground, outside jumps; "
                         "ceiling: above a crouch ceiling (< 0 clear, - never under one); "
                         "edge: closest root approach; wall: deepest joint (< 0 never inside)");
    report_table_note(
        t, "smoothness per step, on the displayed pose: flex = knee/elbow flexion change (steady; within "
           "0.3 s of a take-off, landing, wall push or crouch change); rot = local joint rotation change "
           "(p99.9 ratio: the worst joint's against the network alone's); foot = heel/toe displacement and "
           "acceleration; *_off: the network alone (IK off) from the same inputs; net_diff_steps: steps whose "
           "network input differed between the two");
    for (int i = 0; i < n; i++) {
        const mm_result_t *r = &rows[i].r.on;
        if (!report_table_row_begin(t))
            break;
        report_table_str(t, rows[i].s->name);
        report_table_str(t, rows[i].s->level);
        report_table_num(t, r->steps, 0);
        report_table_num(t, r->slide_p95_cm[MM_HEEL], 2);
        report_table_num(t, r->slide_max_cm[MM_HEEL], 2);
        report_table_num(t, r->slide_p95_cm[MM_TOE], 2);
        report_table_num(t, r->slide_max_cm[MM_TOE], 2);
        report_table_num(t, r->sink_max_cm, 1);
        report_table_num(t, r->stand_off_cm, 1);
        report_table_num(t, r->flight_max_s, 2);
        report_table_num(t, r->jump_flight_max_s, 2);
        if (r->ceiling_max_cm > -1.0e8f)
            report_table_num(t, r->ceiling_max_cm, 1);
        else
            report_table_str(t, "-");
        report_table_num(t, r->edge_min_cm, 0);
        report_table_num(t, r->wall_max_cm > -1.0e8f ? r->wall_max_cm : -999.0, 1);
        if (r->want_speed_cm_s > 0.0f)
            report_table_num(t, 100.0 * r->speed_cm_s / r->want_speed_cm_s, 0);
        else
            report_table_str(t, "-");
        if (rows[i].s->flags & EVAL_CROUCH)
            report_table_num(t, r->head_crouch_cm > 0.0f ? 100.0 * (1.0 - r->head_crouch_cm / cal->stand_head_cm) : 0.0,
                             0);
        else
            report_table_str(t, "-");
        smooth_cells(t, &rows[i].r);
        report_table_str(t, rows[i].misses ? "MISSED" : "met");
    }
}

/* ---- the plot ------------------------------------------------------------- */

typedef struct plot_metric_t {
    const char *name;
    float limit;
    bool higher_is_better;
} plot_metric_t;

static const plot_metric_t PLOT_METRICS[] = {
    {"heel slide p95", 2.0f, false},
    {"toe slide p95", 2.0f, false},
    {"slide max", 4.0f, false},
    {"sink", 1.0f, false},
    {"flight", 0.3f, false},
    {"jump flight", 1.2f, false},
    {"ceiling", 0.0f, false},
    {"edge", 50.0f, true},
    {"wall", 2.0f, false},
    {"flexion / step", 12.0f, false},
    {"flexion near events", 20.0f, false},
    {"rotation p99.9 / IK off", 1.5f, false},
    {"rotation max / step", 20.0f, false},
    {"foot step - IK off's", 2.0f, false},
};
enum { PLOT_METRIC_COUNT = (int)(sizeof PLOT_METRICS / sizeof PLOT_METRICS[0]) };

static float plot_value(const eval_row_t *row, int m)
{
    const mm_result_t *r = &row->r.on;
    bool off = row->r.have_off;
    switch (m) {
    case 0: return r->slide_p95_cm[MM_HEEL];
    case 1: return r->slide_p95_cm[MM_TOE];
    case 2: return fmaxf(r->slide_max_cm[MM_HEEL], r->slide_max_cm[MM_TOE]);
    case 3: return r->sink_max_cm;
    case 4: return r->flight_max_s;
    case 5: return r->jump_flight_max_s;
    case 6: return r->ceiling_max_cm > -1.0e8f ? r->ceiling_max_cm : NAN;
    case 7: return r->edge_min_cm;
    case 8: return r->wall_max_cm > -1.0e8f ? r->wall_max_cm : NAN;
    case 9: return r->flex_max_deg[MM_STEADY];
    case 10: return r->flex_max_deg[MM_NEAR_EVENT];
    case 11: return off ? rot_ratio(&row->r) : NAN;
    case 12: return max_over_joints(r->rot_max_deg);
    default: return off ? r->point_step_max_cm - row->r.off.point_step_max_cm : NAN;
    }
}

/* Ends an SVG and closes it; false (one logged line) when any write failed. */
static bool svg_close(FILE *f, const char *path)
{
    fputs("</svg>\n", f);
    bool ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (!ok)
        log_error("%s: writing the plot failed (disk full or I/O error)", path);
    return ok;
}

/* A grid of bars: a row per scenario, a column per measure; each bar is the
 * value against its goal (the dark line), green when met, red when not. */
static bool write_svg(const char *path, const eval_row_t *rows, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        log_error("%s: cannot create the plot: %s", path, strerror(errno));
        return false;
    }
    const int name_w = 230, col_w = 140, row_h = 18, top = 60, bar_w = 80;
    int width = name_w + PLOT_METRIC_COUNT * col_w + 20, height = top + n * row_h + 30;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
            "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height);
    fprintf(
        f, "<text x=\"10\" y=\"20\" font-size=\"15\">strider eval motion: each bar is the value against its "
           "goal (dark line); green met, red missed; smoothness per step, against the network alone (IK off)</text>\n");
    for (int m = 0; m < PLOT_METRIC_COUNT; m++) {
        int x = name_w + m * col_w;
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", x, top - 22, PLOT_METRICS[m].name);
        fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">%s %g</text>\n", x, top - 8,
                PLOT_METRICS[m].higher_is_better ? "goal &gt;=" : "goal &lt;=", (double)PLOT_METRICS[m].limit);
    }
    for (int i = 0; i < n; i++) {
        int y = top + i * row_h;
        if (i % 2)
            fprintf(f, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f3f3f3\"/>\n", y, width, row_h);
        fprintf(f, "<text x=\"10\" y=\"%d\">%s</text>\n", y + 13, rows[i].s->name);
        for (int m = 0; m < PLOT_METRIC_COUNT; m++) {
            const plot_metric_t *pm = &PLOT_METRICS[m];
            float v = plot_value(&rows[i], m);
            int x = name_w + m * col_w;
            if (!isfinite(v)) {
                fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#999\">-</text>\n", x, y + 13);
                continue;
            }
            bool met = pm->higher_is_better ? v >= pm->limit : v <= pm->limit;
            /* Scale: the goal sits at 60 % of the bar width; a zero goal
             * (ceilings) is drawn on a 5 cm scale. */
            float unit = pm->limit > 0.0f ? pm->limit : 5.0f;
            float goal_x = pm->limit > 0.0f ? 0.6f * bar_w : 0.2f * bar_w;
            float len = goal_x + (v - pm->limit) / unit * 0.6f * bar_w;
            if (len < 1.0f)
                len = 1.0f;
            if (len > bar_w)
                len = bar_w;
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", x, y + 3, (double)len,
                    row_h - 6, met ? "#4caf50" : "#e53935");
            fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#222\"/>\n", x + (double)goal_x,
                    x + (double)goal_x, y + 1, y + row_h - 1);
            fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" fill=\"#222\">%.*f</text>\n", x + bar_w + 4, y + 12,
                    fabsf(v) < 100.0f ? 2 : 0, (double)v);
        }
    }
    return svg_close(f, path);
}

/* ---- the step cycle plot ----------------------------------------------------- */

/* The first whole phase cycle (the phase wrapping from near 2 pi to near 0)
 * that starts after FROM steps: [*a, *b). False when the trace has none. */
static bool find_cycle(const eval_trace_t *t, int from, int *a, int *b)
{
    int first = -1;
    for (int i = from > 1 ? from : 1; i < t->count; i++) {
        if (!(t->phase_rad[i] < t->phase_rad[i - 1] - 3.14159265f))
            continue;
        if (first < 0) {
            first = i;
        } else {
            *a = first;
            *b = i;
            return true;
        }
    }
    return false;
}

/* One panel: the series ON and OFF (STRIDE floats apart) over N steps. */
static void svg_panel(FILE *f, int x, int y, int w, int h, const char *title, const char *unit, const float *on,
                      const float *off, int stride, int n)
{
    float top = 1.0f, lo = 0.0f;
    bool angle = unit[0] == 'f';
    if (angle)
        lo = 1.0e9f;
    for (int i = 0; i < n; i++) {
        top = fmaxf(top, fmaxf(on[i * stride], off[i * stride]));
        if (angle)
            lo = fminf(lo, fminf(on[i * stride], off[i * stride]));
    }
    if (angle) {
        lo = floorf(lo / 10.0f) * 10.0f;
        top = fmaxf(lo + 10.0f, ceilf(top / 10.0f) * 10.0f);
    } else {
        top = ceilf(top);
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#bbb\"/>\n", x, y, w, h);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", x + 4, y + 13, title);
    fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\" text-anchor=\"end\">%.0f</text>\n", x - 2, y + 10, (double)top);
    fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\" text-anchor=\"end\">%.0f</text>\n", x - 2, y + h, (double)lo);
    for (int run = 0; run < 2; run++) {
        const float *v = run ? off : on;
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\"%s points=\"",
                run ? "#1f77b4" : "#d62728", run ? " stroke-dasharray=\"4 2\"" : "");
        for (int i = 0; i < n; i++) {
            float px = (float)x + (float)w * (float)i / (float)(n > 1 ? n - 1 : 1);
            float py = (float)(y + h) - (float)h * (v[i * stride] - lo) / (top - lo);
            fprintf(f, "%.1f,%.1f ", (double)px, (double)py);
        }
        fputs("\"/>\n", f);
    }
}

/* Small multiples over one step cycle of trace T: every joint's local
 * rotation change per step, then the knees' and elbows' flexion; IK on
 * solid red, the network alone dashed blue. */
static bool write_cycle_svg(const char *path, const eval_t *e, const char *scenario, const eval_trace_t *t, int a,
                            int b)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        log_error("%s: cannot create the plot: %s", path, strerror(errno));
        return false;
    }
    const int cols = 5, pw = 220, ph = 90, gap_x = 40, gap_y = 28, top = 70, left = 40;
    int panels = MM_JOINTS + MM_HINGES, rows = (panels + cols - 1) / cols;
    int width = left + cols * (pw + gap_x), height = top + rows * (ph + gap_y) + 10;
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
            "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height);
    fprintf(f,
            "<text x=\"10\" y=\"20\" font-size=\"15\">strider eval motion: one step cycle of %s (steps %d-%d, "
            "%.2f s), per joint</text>\n",
            scenario, a + 1, b, (double)(b - a) / 60.0);
    fprintf(f, "<text x=\"10\" y=\"40\">local rotation change per step (deg), then knee and elbow flexion (deg): "
               "<tspan fill=\"#d62728\">IK on (solid)</tspan>, <tspan fill=\"#1f77b4\">network alone, IK off "
               "(dashed)</tspan>, same inputs</text>\n");
    for (int p = 0; p < panels; p++) {
        int x = left + (p % cols) * (pw + gap_x), y = top + (p / cols) * (ph + gap_y);
        char title[96];
        if (p < MM_JOINTS) {
            snprintf(title, sizeof title, "%s", eval_joint_name(e, p));
            svg_panel(f, x, y, pw, ph, title, "deg", &t->rot_change_deg[a][0][p], &t->rot_change_deg[a][1][p],
                      2 * MM_JOINTS, b - a);
        } else {
            int h = p - MM_JOINTS;
            snprintf(title, sizeof title, "%s flexion", MM_HINGE_NAMES[h]);
            svg_panel(f, x, y, pw, ph, title, "flex", &t->flex_deg[a][0][h], &t->flex_deg[a][1][h], 2 * MM_HINGES,
                      b - a);
        }
    }
    return svg_close(f, path);
}

/* The scripted scenario called NAME, or NULL. */
static const eval_scenario_t *scripted_scenario(const char *name)
{
    int total;
    const eval_scenario_t *all = eval_scenarios(&total);
    for (int i = 0; i < total; i++)
        if (!strcmp(all[i].name, name))
            return (all[i].flags & EVAL_SOAK) ? NULL : &all[i];
    return NULL;
}

/* Plays scenario NAME (scripted) with a trace and plots its first step
 * cycle after 4 s. */
static bool cycle_plot(eval_t *e, const char *name, const char *path)
{
    const eval_scenario_t *s = scripted_scenario(name);
    eval_trace_t t = {.capacity = (int)lrintf(s->seconds * 60.0f)};
    t.phase_rad = malloc(sizeof *t.phase_rad * (size_t)t.capacity);
    t.rot_change_deg = malloc(sizeof *t.rot_change_deg * (size_t)t.capacity);
    t.flex_deg = malloc(sizeof *t.flex_deg * (size_t)t.capacity);
    eval_result_t r;
    int a = 0, b = 0;
    bool ok = t.phase_rad && t.rot_change_deg && t.flex_deg;
    if (!ok)
        log_error("eval: out of memory for the cycle trace");
    ok = ok && eval_run_scenario(e, s, &r, &t);
    if (ok && !find_cycle(&t, 240, &a, &b)) {
        log_error("eval: %s: no whole step cycle after 4 s to plot", name);
        ok = false;
    }
    ok = ok && write_cycle_svg(path, e, name, &t, a, b);
    free(t.phase_rad);
    free(t.rot_change_deg);
    free(t.flex_deg);
    return ok;
}

static void print_goal_summary(const eval_row_t *rows, int n, eval_level_t level)
{
    const char *what = level == EVAL_INVARIANTS ? "invariant" : (level == EVAL_PLACEMENT ? "placement goal" : "goal");
    int missed = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].misses) {
            if (!missed)
                printf("\n%ss missed:\n", what);
            printf("  %-32s %s\n", rows[i].s->name, rows[i].text);
            missed++;
        }
    printf("\n%d of %d scenarios met every %s\n", n - missed, n, what);
}

/* The command line of `strider eval motion` and its defaults. */
typedef struct motion_cli_t {
    eval_options_t opt;
    const char *patterns, *csv, *json, *svg, *data, *cycle_svg, *cycle_scenario;
    bool list;
    eval_level_t level;
} motion_cli_t;

static const char MOTION_USAGE_HEAD[] =
    "usage: strider eval motion [options]\n"
    "  plays named scenarios through the game's script -> input -> simulation -> controller\n"
    "  path (headless, fixed 60 Hz step) and measures the displayed pose against the goals of\n"
    "  docs/MOTION_EVAL.md: foot slide, sinking, flights, ceilings, level edges, walls, speed,\n"
    "  crouch height, bone lengths, NaN, and smoothness (joint rotation, knee and elbow flexion,\n"
    "  heel and toe steps per step) against the network alone (IK off) played in lockstep\n"
    "options:\n";

/* Fills O from argv: -1 to go on, else the exit code. */
static int motion_parse(motion_cli_t *o, int argc, char **argv)
{
    *o = (motion_cli_t){.opt = {.mode = PFNN_PHASE_CUBIC,
                                .soak_steps = EVAL_SOAK_STEPS_DEFAULT,
                                .seed = 1,
                                .flip_deg = EVAL_FLIP_DEG_DEFAULT},
                        .cycle_scenario = "flat_walk",
                        .level = EVAL_GOALS};
    static const char *const MODES[] = {"cubic", "linear", "constant"};
    static const pfnn_mode_t MODE_VALUES[] = {PFNN_PHASE_CUBIC, PFNN_PHASE_LINEAR, PFNN_PHASE_CONSTANT};
    static const char *const CHECKS[] = {"goals", "placement", "invariants"};
    static const eval_level_t CHECK_VALUES[] = {EVAL_GOALS, EVAL_PLACEMENT, EVAL_INVARIANTS};
    int mode = 0, check = 0;
    const args_opt_t opts[] = {
        {.name = "--scenario",
         .kind = ARGS_STRING,
         .dest = &o->patterns,
         .max_len = EVAL_PATTERNS_MAX - 1,
         .label = "--scenario PATTERN[,PATTERN...]",
         .help = "run the scenarios whose name or group matches (glob)"},
        {.name = "--list", .kind = ARGS_FLAG, .dest = &o->list, .help = "list the scenarios and exit"},
        {.name = "--soak-steps",
         .kind = ARGS_INT,
         .dest = &o->opt.soak_steps,
         .lo = 1,
         .hi = EVAL_SOAK_STEPS_MAX,
         .arg = "N",
         .help = "steps of each random soak (default 20000)"},
        {.name = "--seed",
         .kind = ARGS_U32,
         .dest = &o->opt.seed,
         .lo = 0,
         .hi = 4294967295L,
         .arg = "N",
         .help = "seed of the soak intents (default 1)"},
        {.name = "--mode",
         .kind = ARGS_CHOICE,
         .dest = &mode,
         .choices = MODES,
         .nchoices = 3,
         .label = "--mode cubic|linear|constant",
         .help = "phase mode (default cubic, as the game)",
         .error = "--mode must be cubic, linear or constant, got '%s'"},
        {.name = "--no-ik", .kind = ARGS_FLAG, .dest = &o->opt.no_ik, .help = "foot IK off"},
        {.name = "--check",
         .kind = ARGS_CHOICE,
         .dest = &check,
         .choices = CHECKS,
         .nchoices = 3,
         .label = "--check goals|placement|invariants",
         .help = "what to hold the runs to (default goals; placement: all\n"
                 "but smoothness; invariants: finite, bones, ceilings, edges,\n"
                 "walls, jump flights, no joint flipping)",
         .error = "--check must be goals, placement or invariants, got '%s'"},
        {.name = "--flip-deg",
         .kind = ARGS_DOUBLE,
         .dest = &o->opt.flip_deg,
         .flo = 0.0,
         .fhi = 180.0,
         .arg = "D",
         .help = "a joint turning more than D degrees in a step is a flip\n"
                 "(placement, invariants; default 90; 0: not checked)"},
        {.name = "--network",
         .kind = ARGS_PATH,
         .dest = &o->opt.network,
         .arg = "FILE",
         .help = "weights (default assets/network/pfnn.bin)"},
        {.name = "--data",
         .kind = ARGS_PATH,
         .dest = &o->data,
         .arg = "DIR",
         .help = "folder with assets/ (default: the source tree)"},
        {.name = "--csv",
         .kind = ARGS_PATH,
         .dest = &o->csv,
         .label = "--csv PATH  --json PATH  --svg PATH",
         .help = "write the results"},
        {.name = "--json", .kind = ARGS_PATH, .dest = &o->json},
        {.name = "--svg", .kind = ARGS_PATH, .dest = &o->svg},
        {.name = "--dump-dir",
         .kind = ARGS_PATH,
         .dest = &o->opt.dump_dir,
         .arg = "DIR",
         .help = "a pose CSV per scenario and NAME_ik_off.csv (see --dump-pose)"},
        {.name = "--dump-member",
         .kind = ARGS_INT,
         .dest = &o->opt.dump_member,
         .lo = 0,
         .hi = CROWD_MAX - 1,
         .arg = "N",
         .help = "with --dump-dir, the member a crowd scenario dumps (default 0)"},
        {.name = "--cycle-svg",
         .kind = ARGS_PATH,
         .dest = &o->cycle_svg,
         .arg = "PATH",
         .help = "plot one step cycle per joint, IK on against IK off"},
        {.name = "--cycle-scenario",
         .kind = ARGS_STRING,
         .dest = &o->cycle_scenario,
         .arg = "NAME",
         .help = "the scenario of that plot (default flat_walk)"},
    };
    const args_spec_t spec = {
        .prog = "strider eval",
        .hint = " (see --help)",
        .label_width = 32,
        .head = MOTION_USAGE_HEAD,
        .tail = "exit codes: 0 every goal met, 1 a goal missed or a runtime failure, 2 usage error\n",
        .opts = opts,
        .count = (int)(sizeof opts / sizeof opts[0]),
    };
    switch (args_parse(&spec, argc, argv, 1)) {
    case ARGS_HELP: return EVAL_EXIT_OK;
    case ARGS_ERROR: return EVAL_EXIT_USAGE;
    case ARGS_OK: break;
    }
    o->opt.mode = MODE_VALUES[mode];
    o->level = CHECK_VALUES[check];
    return -1;
}

static int run_motion(int argc, char **argv)
{
    motion_cli_t cli;
    int parsed = motion_parse(&cli, argc, argv);
    if (parsed >= 0)
        return parsed;
    eval_options_t opt = cli.opt;
    const char *patterns = cli.patterns, *csv = cli.csv, *json = cli.json, *svg = cli.svg, *data = cli.data;
    const char *cycle_svg = cli.cycle_svg, *cycle_scenario = cli.cycle_scenario;
    bool list = cli.list;
    eval_level_t level = cli.level;
    if (cycle_svg && !scripted_scenario(cycle_scenario)) {
        fprintf(stderr, "strider eval: --cycle-scenario: '%s' is not a scripted scenario (see --list)\n",
                cycle_scenario);
        return EVAL_EXIT_USAGE;
    }
    int total;
    const eval_scenario_t *all = eval_scenarios(&total);
    static eval_row_t rows[EVAL_MAX_SCENARIOS];
    int n = 0;
    for (int i = 0; i < total && n < EVAL_MAX_SCENARIOS; i++)
        if (matches(&all[i], patterns))
            rows[n++].s = &all[i];
    if (n == 0) {
        fprintf(stderr, "strider eval: no scenario matches '%s' (see --list)\n", patterns ? patterns : "");
        return EVAL_EXIT_USAGE;
    }
    if (list) {
        for (int i = 0; i < n; i++)
            printf("%-32s %-10s %-7s %s\n", rows[i].s->name, rows[i].s->group, rows[i].s->level,
                   rows[i].s->flags & EVAL_SOAK ? "(random intents)" : "");
        return EVAL_EXIT_OK;
    }
    /* Only the smoothness goals need the IK-off run. */
    opt.no_reference = level != EVAL_GOALS;
    paths_init(data);
    report_env_t env;
    report_env_collect(&env, argc, argv);
    eval_t *e = eval_open(&opt);
    if (!e)
        return EVAL_EXIT_FAIL;
    int failures = 0;
    for (int i = 0; i < n; i++) {
        if (!eval_run_scenario(e, rows[i].s, &rows[i].r, NULL)) {
            eval_close(e);
            return EVAL_EXIT_FAIL;
        }
        rows[i].misses = eval_check(e, rows[i].s, &rows[i].r, level, rows[i].text, EVAL_FAIL_TEXT);
        failures += rows[i].misses > 0;
    }
    report_env_print(&env, stdout);
    report_table_t t;
    fill_table(&t, rows, n, eval_calibration(e));
    report_table_print(&t, stdout);
    print_goal_summary(rows, n, level);
    /* The files carry the misses too, as notes. */
    for (int i = 0; i < n; i++)
        if (rows[i].misses)
            report_table_note(&t, "%s: %s", rows[i].s->name, rows[i].text);
    bool io_ok = true;
    if (csv)
        io_ok = report_table_write_csv(&t, &env, csv) && io_ok;
    if (json)
        io_ok = report_table_write_json(&t, &env, json) && io_ok;
    if (svg)
        io_ok = write_svg(svg, rows, n) && io_ok;
    if (cycle_svg)
        io_ok = cycle_plot(e, cycle_scenario, cycle_svg) && io_ok;
    report_table_free(&t);
    eval_close(e);
    return (failures || !io_ok) ? EVAL_EXIT_FAIL : EVAL_EXIT_OK;
}

int eval_main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs("usage: strider eval motion [options]   (strider eval motion --help for its options)\n",
              argc < 2 ? stderr : stdout);
        return argc < 2 ? EVAL_EXIT_USAGE : EVAL_EXIT_OK;
    }
    if (!strcmp(argv[1], "motion"))
        return run_motion(argc - 1, argv + 1);
    fprintf(stderr, "strider eval: unknown evaluation '%s' (valid: motion)\n", argv[1]);
    return EVAL_EXIT_USAGE;
}
