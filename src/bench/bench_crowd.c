/* `strider bench crowd`: a crowd of N PFNN characters in the game's own
 * frames, per --counts N. The game runs as usual (a level, the player
 * standing, the others wandering, the level and every character drawn
 * between steps, so the network's weights compete with the renderer for
 * the caches as in play) in a hidden window, one fixed step per frame.
 * Per step: the crowd's three parts (intents and controllers' first
 * halves, the network, the second halves: pose, walls, feet, root
 * motion), with the network as one batch on even frames and one
 * inference per member on odd frames, so their ratio comes from one run
 * under one condition; then the deformation (the members' palettes and
 * the player's figure) and the glFinish-bracketed render. Per count: the
 * medians in total and per character, the memory one more member costs,
 * and whether any two capsules overlapped (a failure). --crowd-deform
 * picks where the others are skinned: gpu (default), cpu, or both by turns
 * of two frames (one batch and one single network step each), whose
 * deformation, render and frame medians then come per mode from one run
 * (the cpu_* columns, and their ratios to the GPU's). */
#include "bench/bench_internal.h"

#include "app/app.h"
#include "core/log.h"
#include "core/stats.h"
#include "game/crowd.h"
#include "world/level.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CROWD_BENCH_MAX_FRAMES = APP_CROWD_BENCH_MAX_SAMPLES };

static const char *const k_phase_modes[] = {"cubic", "linear", "constant"};
static const char *const k_deforms[] = {"gpu", "cpu", "both"};

/* Median of the samples of V whose single flag equals SINGLE (all when
 * ANY) and whose crowd was CPU-skinned or not (CPU: 0 no, 1 yes, -1
 * either); NAN when there are none. SCRATCH holds n doubles. */
static double median_mode(const app_crowd_bench_t *b, const double *v, bool any, bool single, int cpu, double *scratch)
{
    int n = 0;
    for (int k = 0; k < b->samples; k++)
        if ((any || b->single[k] == single) && (cpu < 0 || b->cpu[k] == (cpu == 1)))
            scratch[n++] = v[k];
    if (n == 0)
        return NAN;
    stats_sort_d(scratch, n);
    return stats_median_d(scratch, n);
}

static double median_of(const app_crowd_bench_t *b, const double *v, bool any, bool single, double *scratch)
{
    return median_mode(b, v, any, single, -1, scratch);
}

/* The deformation, render and frame medians of the frames skinned in mode
 * CPU (0 GPU, 1 CPU; -1 all); SUM is scratch for the frame sums. */
static void mode_medians(const app_crowd_bench_t *b, int cpu, double *sum, double *scratch, double out[3])
{
    out[0] = median_mode(b, b->deform_ms, true, false, cpu, scratch);
    out[1] = median_mode(b, b->render_ms, true, false, cpu, scratch);
    for (int k = 0; k < b->samples; k++)
        sum[k] = b->begin_ms[k] + b->net_ms[k] + b->finish_ms[k] + b->deform_ms[k] + b->render_ms[k];
    out[2] = median_mode(b, sum, true, false, cpu, scratch);
}

/* One count's row; false on a runtime failure (logged). */
static bool run_count(int count, app_options_t opt, app_crowd_deform_t deform, int frames, int warmup,
                      report_table_t *t, report_env_t *env, int *failures)
{
    static app_crowd_bench_t b;
    static double scratch[APP_CROWD_BENCH_MAX_SAMPLES], sum[APP_CROWD_BENCH_MAX_SAMPLES];
    memset(&b, 0, sizeof b);
    b.warmup_frames = warmup;
    b.deform = deform;
    opt.crowd_cpu = deform == APP_CROWD_DEFORM_CPU;
    opt.crowd = count;
    opt.frames = (long)warmup + frames;
    opt.crowd_bench = &b;
    /* The game names its own failures (a missing file, no GL 4.5) in one line. */
    if (app_run(&opt) != 0)
        return false;
    if (b.samples < 2) {
        log_error("bench crowd: no timed frames with %d characters", count);
        return false;
    }
    report_env_set_gl(env, b.renderer, b.version);
    for (int k = 0; k < b.samples; k++)
        sum[k] = b.begin_ms[k] + b.net_ms[k] + b.finish_ms[k];
    double sim = median_of(&b, sum, false, false, scratch);
    double begin = median_of(&b, b.begin_ms, false, false, scratch);
    double net = median_of(&b, b.net_ms, false, false, scratch);
    double net_single = median_of(&b, b.net_ms, false, true, scratch);
    double finish = median_of(&b, b.finish_ms, false, false, scratch);
    /* The main columns: the GPU mode's frames with "both", else all. */
    double main_m[3], cpu_m[3] = {NAN, NAN, NAN};
    mode_medians(&b, deform == APP_CROWD_DEFORM_BOTH ? 0 : -1, sum, scratch, main_m);
    if (deform != APP_CROWD_DEFORM_GPU)
        mode_medians(&b, 1, sum, scratch, cpu_m);
    double deform_ms = main_m[0], render = main_m[1], frame = main_m[2];
    bool both = deform == APP_CROWD_DEFORM_BOTH;
    if (b.overlap_steps > 0) {
        fprintf(stderr, "strider bench crowd: %d characters: capsules overlapped after %llu steps (closest %.1f cm)\n",
                b.members, b.overlap_steps, (double)b.min_gap_cm);
        (*failures)++;
    }
    if (!report_table_row_begin(t))
        return false;
    double n = b.members > 0 ? b.members : 1;
    report_table_num(t, count, 0);
    report_table_num(t, b.members, 0);
    report_table_num(t, b.threads, 0);
    report_table_num(t, b.samples, 0);
    report_table_num(t, sim, 3);
    report_table_num(t, sim / n, 4);
    report_table_num(t, begin, 3);
    report_table_num(t, net, 3);
    report_table_num(t, net_single, 3);
    report_table_num(t, net_single / net, 2);
    report_table_num(t, finish, 3);
    report_table_num(t, deform_ms, 3);
    report_table_num(t, render, 2);
    report_table_num(t, frame, 2);
    report_table_num(t, 1000.0 / frame, 1);
    report_table_num(t, cpu_m[0], 3);
    report_table_num(t, cpu_m[1], 2);
    report_table_num(t, 1000.0 / cpu_m[2], 1);
    report_table_num(t, both ? cpu_m[0] / deform_ms : NAN, 2);
    report_table_num(t, both ? cpu_m[1] / render : NAN, 2);
    report_table_num(t, both ? frame / cpu_m[2] : NAN, 2);
    report_table_num(t, (double)b.member_bytes / 1024.0, 1);
    report_table_num(t, b.drawn_main, 0);
    report_table_num(t, b.drawn_shadow, 0);
    report_table_num(t, (double)b.min_gap_cm, 1);
    report_table_num(t, (double)b.overlap_steps, 0);
    return true;
}

/* The table's notes: the run's conditions and what the columns are. */
static void add_notes(report_table_t *tp, const app_options_t *op, const bench_common_t *cp, int deform)
{
    report_table_note(tp,
                      "level %s, %dx%d, phase mode %s, %d untimed steps, then %d steps of which every other runs the "
                      "network as one inference per member (net_single_ms) instead of one batch (net_batch_ms)",
                      op->level, op->width, op->height, op->phase_mode ? op->phase_mode : "cubic", cp->warmup,
                      cp->repeats);
    report_table_note(tp, "sim_ms = begin + network (batch) + finish; frame_ms = sim + deform + render (the median of "
                          "their sums); member_kb: state one more character costs (not the shared network, skeleton, "
                          "level view or mesh)");
    report_table_note(tp,
                      "deformation %s: deform/render/frame_ms and fps are the %s frames; cpu_*: the CPU-skinned "
                      "frames (nan when none); cpu_*_x: CPU over GPU ms (deform, render) and CPU over GPU fps, with "
                      "--crowd-deform both only",
                      k_deforms[deform], deform == APP_CROWD_DEFORM_BOTH ? "GPU-skinned" : "timed");
    report_table_note(tp, "drawn_*: crowd members the last frame drew in the main and shadow pass (the player is "
                          "drawn by its own figure); overlap_steps > 0 fails the run");
}

int bench_crowd(int argc, char **argv, const report_env_t *env_in)
{
    report_env_t env = *env_in;
    bench_common_t c = {.repeats = 120, .warmup = 30};
    int counts[BENCH_LIST_MAX] = {1, 10, 100}, ncounts = 0;
    app_options_t opt;
    memset(&opt, 0, sizeof opt);
    opt.width = 1280;
    opt.height = 720;
    opt.hidden = true;
    opt.no_vsync = true;
    opt.seed = 1;
    const char *level_names[64];
    int nlevel_names = bench_level_names(level_names, 64);
    int level = -1, deform = APP_CROWD_DEFORM_GPU;
    const args_opt_t opts[] = {
        BENCH_COMMON_OPTS(&c),
        {.name = "--counts",
         .kind = ARGS_INT_LIST,
         .dest = counts,
         .count = &ncounts,
         .lo = 1,
         .hi = CROWD_MAX,
         .arg = "LIST",
         .help = "characters (the player's one of them), default 1,10,100"},
        {.name = "--frames",
         .kind = ARGS_INT,
         .dest = &c.repeats,
         .lo = 2,
         .hi = CROWD_BENCH_MAX_FRAMES,
         .arg = "N",
         .help = "timed frames (= steps) per count, half with the batch, default 120"},
        {.kind = ARGS_TEXT, .help = "  --warmup N          untimed frames at the start, default 30\n"},
        {.name = "--level",
         .kind = ARGS_CHOICE,
         .dest = &level,
         .choices = level_names,
         .nchoices = nlevel_names,
         .arg = "NAME",
         .help = "built-in level, default hills"},
        BENCH_SIZE_OPT(&opt, "window, default 1280x720"),
        {.name = "--crowd-seed",
         .kind = ARGS_U32,
         .dest = &opt.crowd_seed,
         .given = &opt.crowd_seed_given,
         .lo = 0,
         .hi = (long)UINT32_MAX,
         .arg = "N",
         .help = "the crowd's seed, default 1"},
        {.name = "--phase-mode",
         .kind = ARGS_CHOICE,
         .text = &opt.phase_mode,
         .choices = k_phase_modes,
         .nchoices = 3,
         .arg = "M",
         .help = "every character's phase function: cubic (default), linear or constant"},
        {.name = "--crowd-deform",
         .kind = ARGS_CHOICE,
         .dest = &deform,
         .choices = k_deforms,
         .nchoices = 3,
         .arg = "M",
         .help = "where the others are skinned: gpu (default), cpu, or both by turns of two\n"
                 "frames (the cpu_* columns and their ratios to the GPU's, from one run)"},
        {.kind = ARGS_TEXT,
         .help = "  --csv PATH --json PATH --smoke\n"
                 "times per 60 Hz step: the crowd's parts (begin, network, finish; wall clock), the deformation\n"
                 "(palettes and the player's figure) and gfx_render_frame between two glFinish\n"},
    };
    args_spec_t spec = bench_args_spec(
        "strider bench crowd",
        "usage: strider bench crowd [options]   (needs a display: xvfb-run -a on a headless machine)\n", opts,
        (int)(sizeof opts / sizeof opts[0]));
    int parsed = bench_parse_args(&spec, argc, argv);
    if (parsed >= 0)
        return parsed;
    if (ncounts == 0)
        ncounts = 3;
    if (c.smoke) {
        counts[0] = 1;
        counts[1] = 6;
        ncounts = 2;
        c.repeats = 4;
        c.warmup = 2;
        opt.width = 160;
        opt.height = 120;
    }
    opt.level = level >= 0 ? level_names[level] : "hills";
    if (!opt.crowd_seed_given)
        opt.crowd_seed = opt.seed;
    opt.crowd_seed_given = true;

    static const char *const cols[] = {
        "count",        "placed",        "threads",       "steps",      "sim_ms",       "sim_ms_per_char", "begin_ms",
        "net_batch_ms", "net_single_ms", "net_speedup",   "finish_ms",  "deform_ms",    "render_ms",       "frame_ms",
        "fps",          "cpu_deform_ms", "cpu_render_ms", "cpu_fps",    "cpu_deform_x", "cpu_render_x",    "cpu_fps_x",
        "member_kb",    "drawn_main",    "drawn_shadow",  "min_gap_cm", "overlap_steps"};
    report_table_t t;
    report_table_init(&t, "crowd: the game's steps and frames with N characters (medians)",
                      (int)(sizeof cols / sizeof cols[0]), cols);
    add_notes(&t, &opt, &c, deform);
    /* The game's informational lines would bury the table. */
    log_set_level(LOG_WARN);
    int failures = 0;
    for (int i = 0; i < ncounts; i++)
        if (!run_count(counts[i], opt, (app_crowd_deform_t)deform, c.repeats, c.warmup, &t, &env, &failures)) {
            report_table_free(&t);
            return BENCH_EXIT_RUNTIME;
        }
    report_env_print(&env, stdout);
    return bench_finish(&t, &env, &c, failures);
}
