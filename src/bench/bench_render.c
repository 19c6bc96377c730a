/* `strider bench render`: what each of the renderer's pixel-keeping savings
 * buys in the game's own frames. The game runs as usual (a level, the PFNN
 * character walking by a script, CPU skinning unless told otherwise) in a
 * hidden window, but frame k is drawn with the k-th variant in turn, each
 * render bracketed by glFinish (render/gfx_switch_bench.h): a machine whose
 * load drifts slows every variant alike, so the ratios between the rows of a
 * level are measured under one condition. At the last frame the same scene is
 * drawn with every variant and its pixels compared with the first's: a
 * saving that changes the picture fails the benchmark. */
#include "bench/bench_internal.h"

#include "app/app.h"
#include "core/log.h"
#include "core/paths.h"
#include "game/crowd.h"
#include "render/gfx_switch_bench.h"
#include "world/level.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    VARIANT_SHIPPED,
    VARIANT_LOOKUP_EVERYWHERE,
    VARIANT_FOG_EVERYWHERE,
    VARIANT_UNCACHED_SHADOWS,
    VARIANT_ALL_SKIRTS,
    VARIANT_ALL_TRIANGLES,
    VARIANT_NO_SAVINGS,
    VARIANT_SCALAR_CULL,
    VARIANT_COUNT
};
_Static_assert((int)VARIANT_COUNT <= (int)GFX_SWITCH_BENCH_MAX_VARIANTS, "every variant fits one run");

/* A variant keeps the picture when no colour channel moves by more than
 * this many levels (of 255). */
#define RENDER_SAME_LEVELS 1

static const char *const k_variants[VARIANT_COUNT] = {"shipped",          "lookup-everywhere", "fog-everywhere",
                                                      "uncached-shadows", "all-skirts",        "all-triangles",
                                                      "no-savings",       "scalar-cull"};

static gfx_switches_t variant_switches(int v)
{
    bool all = v == VARIANT_NO_SAVINGS;
    return (gfx_switches_t){.lookup_everywhere = all || v == VARIANT_LOOKUP_EVERYWHERE,
                            .fog_everywhere = all || v == VARIANT_FOG_EVERYWHERE,
                            .uncached_shadows = all || v == VARIANT_UNCACHED_SHADOWS,
                            .all_skirts = all || v == VARIANT_ALL_SKIRTS,
                            .all_triangles = all || v == VARIANT_ALL_TRIANGLES,
                            .scalar_cull = v == VARIANT_SCALAR_CULL};
}

enum { MAX_FRAMES = 100000 };

/* One level's rows; false on a runtime failure (logged). */
static bool run_level(const char *level, const int *variants, int nvariants, app_options_t opt, int frames, int warmup,
                      report_table_t *t, report_env_t *env, int *failures)
{
    gfx_switch_bench_t rb;
    memset(&rb, 0, sizeof rb);
    rb.count = nvariants;
    rb.warmup_frames = warmup;
    rb.capacity = frames;
    rb.pixel_capacity = opt.width * opt.height;
    bool ok = true;
    for (int v = 0; v < nvariants; v++) {
        rb.variants[v] = variant_switches(variants[v]);
        ok = ok && (rb.ms[v] = malloc((size_t)frames * sizeof(double))) != NULL;
    }
    for (int k = 0; k < 2; k++)
        ok = ok && (rb.pixels[k] = malloc((size_t)rb.pixel_capacity * 3)) != NULL;
    if (!ok)
        log_error("bench render: out of memory for %d frames of %d variants", frames, nvariants);
    opt.level = level;
    /* Every variant gets FRAMES timed frames; one more draws the comparison. */
    opt.frames = (long)warmup + (long)frames * nvariants + 1;
    opt.render_bench = &rb;
    /* The game names its own failures (a missing file, no GL 4.5) in one line. */
    int rc = ok ? app_run(&opt) : 1;
    ok = ok && rc == 0;
    if (ok) {
        report_env_set_gl(env, rb.renderer, rb.version);
        double first = 0.0;
        for (int v = 0; v < nvariants && ok; v++) {
            if (rb.samples[v] < 1) {
                log_error("bench render: no timed frame of %s on level %s", k_variants[variants[v]], level);
                ok = false;
                break;
            }
            double median, lo, hi;
            bench_stats(rb.ms[v], rb.samples[v], &median, &lo, &hi);
            if (v == 0)
                first = median;
            /* Kept pixels are the same within a level: a saving is a
             * different shader variant, and a GPU's compiler may round its
             * arithmetic differently (on an H200, lookup-everywhere moved
             * 1 of 2,073,600 pixels by 1 level); llvmpipe keeps every bit. */
            if (rb.max_channel_diff[v] > RENDER_SAME_LEVELS) {
                fprintf(stderr,
                        "strider bench render: %s changes the picture of level %s: %ld of %d pixels differ from %s's "
                        "(by up to %d levels)\n",
                        k_variants[variants[v]], level, rb.differing[v], rb.width * rb.height, k_variants[variants[0]],
                        rb.max_channel_diff[v]);
                (*failures)++;
            }
            if (!report_table_row_begin(t)) {
                ok = false;
                break;
            }
            report_table_str(t, level);
            report_table_str(t, k_variants[variants[v]]);
            report_table_num(t, rb.width, 0);
            report_table_num(t, rb.height, 0);
            report_table_num(t, rb.samples[v], 0);
            report_table_num(t, median, 2);
            report_table_num(t, lo, 2);
            report_table_num(t, hi, 2);
            report_table_num(t, median / first, 3);
            report_table_num(t, (double)rb.differing[v], 0);
            report_table_num(t, rb.max_channel_diff[v], 0);
        }
    }
    for (int v = 0; v < nvariants; v++)
        free(rb.ms[v]);
    free(rb.pixels[0]);
    free(rb.pixels[1]);
    return ok;
}

/* The command line and its defaults. */
typedef struct render_cli_t {
    bench_common_t c;
    int levels[BENCH_LIST_MAX], nlevels;
    int variants[BENCH_LIST_MAX], nvariants;
    app_options_t opt; /* the game's options, for every level */
    const char *level_names[64];
    int nlevel_names;
    int skin; /* 0: cpu, 1: gpu */
} render_cli_t;

static const char *const k_skins[] = {"cpu", "gpu"};

/* Fills O from argv: -1 to go on, else the exit code. */
static int render_parse(render_cli_t *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->c = (bench_common_t){.repeats = 60, .warmup = 20};
    o->nvariants = VARIANT_COUNT;
    for (int v = 0; v < VARIANT_COUNT; v++)
        o->variants[v] = v;
    o->opt.width = 720;
    o->opt.height = 480;
    o->opt.hidden = true;
    o->opt.no_vsync = true;
    o->opt.seed = 1;
    o->opt.crowd_seed = 1;
    o->opt.crowd_seed_given = true;
    o->opt.crowd_deform_auto = true;
    o->nlevel_names = bench_level_names(o->level_names, 64);
    const args_opt_t opts[] = {
        BENCH_COMMON_OPTS(&o->c),
        {.name = "--levels",
         .kind = ARGS_NAME_LIST,
         .dest = o->levels,
         .count = &o->nlevels,
         .choices = o->level_names,
         .nchoices = o->nlevel_names,
         .arg = "LIST",
         .help = "built-in levels, default hills"},
        {.name = "--variants",
         .kind = ARGS_NAME_LIST,
         .dest = o->variants,
         .count = &o->nvariants,
         .choices = k_variants,
         .nchoices = VARIANT_COUNT,
         .arg = "LIST",
         .help = "renderer variants, drawn frame by frame in turn (the first is the\n"
                 "reference of the ratios and pictures), default all, in this order:\n"
                 "  shipped (every saving on), lookup-everywhere (every terrain chunk\n"
                 "  looks up the shadow map), fog-everywhere (every terrain chunk and\n"
                 "  the figure compute the fog), uncached-shadows (the terrain, walls and\n"
                 "  areas drawn into the shadow map every frame), all-skirts (every\n"
                 "  terrain chunk's four skirts, also those hidden under the surfaces),\n"
                 "  all-triangles (the figure sends every triangle, also those that\n"
                 "  cover no pixel or texel centre), no-savings (all five),\n"
                 "  scalar-cull (the sample cull of the figure and the crowd one\n"
                 "  triangle at a time, not sixteen with AVX-512: the same triangles)"},
        {.name = "--frames",
         .kind = ARGS_INT,
         .dest = &o->c.repeats,
         .lo = 1,
         .hi = MAX_FRAMES,
         .arg = "N",
         .help = "timed frames per variant, default 60 (--repeats is the same)"},
        {.kind = ARGS_TEXT, .help = "  --warmup N          untimed frames at the start, default 20\n"},
        BENCH_SIZE_OPT(&o->opt, "window, default 720x480"),
        {.name = "--script",
         .kind = ARGS_PATH,
         .dest = &o->opt.script,
         .arg = "PATH",
         .help = "input script, default assets/scripts/walk_turn.script"},
        {.name = "--crowd",
         .kind = ARGS_INT,
         .dest = &o->opt.crowd,
         .lo = 0,
         .hi = CROWD_MAX,
         .arg = "N",
         .help = "N PFNN characters on the level, the player's one of them, as the\n"
                 "game's --crowd (crowd seed 1, deformed as the game's default)"},
        {.name = "--character",
         .kind = ARGS_PATH,
         .dest = &o->opt.character,
         .arg = "PATH",
         .help = ".chr, .glb or .gltf (default the shipped character)"},
        {.name = "--map",
         .kind = ARGS_PATH,
         .dest = &o->opt.map,
         .arg = "PATH",
         .help = "its joint map, for rigs without the CMU joint names (as the game's)"},
        {.name = "--skin",
         .kind = ARGS_CHOICE,
         .dest = &o->skin,
         .choices = k_skins,
         .nchoices = 2,
         .label = "--skin cpu|gpu",
         .help = "skinning path, default cpu"},
        {.name = "--screenshot",
         .kind = ARGS_PATH,
         .dest = &o->opt.screenshot,
         .arg = "PATH",
         .help = "PNG of the last frame, drawn with the first variant (the last\n"
                 "level's, with --levels LIST)"},
        {.kind = ARGS_TEXT,
         .help = "  --csv PATH --json PATH --smoke\n"
                 "times: gfx_render_frame (shadow and main pass, rasterisation included) between two glFinish;\n"
                 "deformation, menu and swap are outside\n"},
    };
    args_spec_t spec = bench_args_spec("strider bench render",
                                       "usage: strider bench render [options]   (needs a display: xvfb-run -a on a "
                                       "headless machine)\n",
                                       opts, (int)(sizeof opts / sizeof opts[0]));
    int parsed = bench_parse_args(&spec, argc, argv);
    if (parsed >= 0)
        return parsed;
    o->opt.skin_gpu = o->skin == 1;
    if (o->nvariants > GFX_SWITCH_BENCH_MAX_VARIANTS) {
        args_error(&spec, "--variants takes at most %d names", GFX_SWITCH_BENCH_MAX_VARIANTS);
        return BENCH_EXIT_USAGE;
    }
    return -1;
}

int bench_render(int argc, char **argv, const report_env_t *env_in)
{
    report_env_t env = *env_in;
    /* Large (the game's options): static, as the other commands' runs are. */
    static render_cli_t cli;
    int parsed = render_parse(&cli, argc, argv);
    if (parsed >= 0)
        return parsed;
    bench_common_t c = cli.c;
    int *levels = cli.levels, nlevels = cli.nlevels, *variants = cli.variants, nvariants = cli.nvariants;
    app_options_t opt = cli.opt;
    if (nlevels == 0 && (levels[0] = bench_level_index(cli.level_names, cli.nlevel_names, "hills")) >= 0)
        nlevels = 1;
    if (nlevels == 0) {
        fprintf(stderr, "strider bench render: no level to draw\n");
        return BENCH_EXIT_RUNTIME;
    }
    if (c.smoke) {
        c.repeats = 2;
        c.warmup = 2;
        opt.width = 160;
        opt.height = 120;
    }
    char script[PATHS_MAX];
    if (!opt.script) {
        if (!paths_join("assets/scripts/walk_turn.script", script, sizeof script))
            return BENCH_EXIT_RUNTIME;
        opt.script = script;
    }
    if (c.repeats > MAX_FRAMES / nvariants) {
        fprintf(stderr, "strider bench render: %d frames x %d variants is more than %d frames\n", c.repeats, nvariants,
                MAX_FRAMES);
        return BENCH_EXIT_USAGE;
    }

    static const char *const cols[] = {"level",      "variant",          "width",           "height",
                                       "frames",     "median_ms",        "min_ms",          "max_ms",
                                       "over_first", "differing_pixels", "max_channel_diff"};
    report_table_t t;
    report_table_init(&t, "render: the game's frames, each variant in turn (glFinish-bracketed gfx_render_frame)",
                      (int)(sizeof cols / sizeof cols[0]), cols);
    report_table_note(&t,
                      "script %s, %s skinning, %d other characters, %d untimed frames first, then the variants frame "
                      "by frame in turn",
                      opt.script, opt.skin_gpu ? "GPU" : "CPU", opt.crowd > 0 ? opt.crowd - 1 : 0, c.warmup);
    report_table_note(&t, "over_first: the row's median over its level's first row's (above 1: switching the "
                          "saving off costs that much more)");
    report_table_note(&t,
                      "differing_pixels: at the last frame the same scene drawn with every variant; pixels whose "
                      "colour differs from the first variant's picture; max_channel_diff: by how many levels at "
                      "most (over %d is a failure)",
                      RENDER_SAME_LEVELS);
    /* The game's informational lines would bury the table. */
    log_set_level(LOG_WARN);
    int failures = 0;
    for (int l = 0; l < nlevels; l++)
        if (!run_level(level_builtin_name(levels[l]), variants, nvariants, opt, c.repeats, c.warmup, &t, &env,
                       &failures)) {
            report_table_free(&t);
            return BENCH_EXIT_RUNTIME;
        }
    report_env_print(&env, stdout);
    return bench_finish(&t, &env, &c, failures);
}
