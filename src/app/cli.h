/* cli: command-line options of the demo (and the `view` mode).
 *
 * cli_parse() fills a zero-initialised app_options_t from argv; unknown
 * options, missing or absurd values print one line plus a usage hint and
 * return CLI_USAGE_ERROR. --help prints the full usage and returns CLI_EXIT_OK.
 * Exit codes of the program (documented in the README):
 *   0 success, 1 runtime failure (window, GL, data files), 2 usage error.
 * Does NOT: open files or windows; it only checks syntax and ranges.
 */
#ifndef STRIDER_APP_CLI_H
#define STRIDER_APP_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

typedef enum cli_result_t { CLI_RUN, CLI_EXIT_OK, CLI_USAGE_ERROR } cli_result_t;

enum { CLI_MAX_EXPRESSIONS = 64, CLI_EXPRESSION_NAME_MAX = 32 };
/* --active-shapes and --influences ranges. */
enum { CLI_MAX_ACTIVE_SHAPES = 4096, CLI_MAX_INFLUENCES = 4 };
/* --clip-time / --curve-time must lie within +-this many seconds. */
#define CLI_MAX_ANIM_TIME_S 86400.0
/* --skin-method values (anim/skin.h's skin_method); DEFAULT keeps the figure's. */
enum { CLI_SKIN_METHOD_DEFAULT = -1, CLI_SKIN_POINTS = 0, CLI_SKIN_MATRIX = 1, CLI_SKIN_DQS = 2 };
/* --hybrid N: a CPU key every N frames, N from 1 to this. */
enum { CLI_HYBRID_MAX = 8 };
/* --expression weights must lie in this range (sliders go 0..1). */
#define CLI_EXPRESSION_WEIGHT_MIN (-1.0f)
#define CLI_EXPRESSION_WEIGHT_MAX 2.0f

/* One NAME[=W] item of --expression (W defaults to 1). */
typedef struct cli_expression_t {
    char name[CLI_EXPRESSION_NAME_MAX];
    float weight;
} cli_expression_t;

struct gfx_switch_bench_t; /* render/gfx_switch_bench.h */

typedef struct app_options_t {
    const char *level;      /* level name, NULL = first level */
    const char *screenshot; /* PNG path written after the last frame */
    const char *script;
    const char *data_dir;
    const char *report;    /* JSON summary written at exit */
    const char *dump_pose; /* --dump-pose: CSV of the displayed pose per fixed step, NULL = none */
    const char *view;      /* "character" for the character viewer, NULL for the demo */
    /* Game and viewer: */
    const char *character; /* .chr, .glb or .gltf path, NULL = assets/characters/strider.chr */
    const char *map;       /* --map: joint map onto the controller's skeleton, NULL = by joint names */
    bool no_character;     /* --no-character: simulate but draw the scene only (reference renders) */
    bool skin_gpu;         /* --skin gpu: skin (and morph) in the vertex shader; --skin cpu (default) */
    int skin_method;       /* --skin-method: CLI_SKIN_*, CLI_SKIN_METHOD_DEFAULT when not given */
    bool skin_once;        /* --skin-once: with --skin gpu, one compute-pass deform per frame (the default) */
    bool skin_per_pass;    /* --skin-per-pass: with --skin gpu, each pass deforms in its vertex shader */
    int hybrid;            /* --hybrid N: Cebenoyan's CPU keys every N frames, GPU lerp; 0 off */
    bool cpu_morph;        /* --cpu-morph: with --skin gpu, blend shapes on the CPU */
    int influences;        /* --influences N: weights kept per vertex (1-4); 0: all (the default) */
    bool dense;            /* --dense: the dense blend-shape layout instead of the sparse one */
    int active_shapes;     /* --active-shapes N: viewer, N of the shapes on (a load, as Dawn's 50) */
    /* Game only: */
    const char *network;    /* pfnn.bin path, NULL = assets/network/pfnn.bin */
    bool marker;            /* --marker: the simple marker instead of the PFNN character */
    bool no_ik;             /* --no-ik: start with foot IK off */
    const char *phase_mode; /* --phase-mode: constant, linear or cubic; NULL = cubic */
    int crowd;              /* --crowd N: N characters, the player's one of them; 0 = the player alone */
    uint32_t crowd_seed;    /* --crowd-seed, when crowd_seed_given; else --seed */
    bool crowd_seed_given;
    int crowd_threads; /* --crowd-threads N; 0 = every CPU */
    bool crowd_cpu;    /* --crowd-deform cpu: the others skinned on the CPU (the menu switches it) */
    /* No --crowd-deform: CPU on a software rasteriser (its sample cull
     * then drops the triangles that cover no pixel), else GPU. */
    bool crowd_deform_auto;
    /* Viewer only (--view character): */
    const char *pose; /* BVH clip, NULL = rest pose */
    long pose_frame;  /* 0-based frame of the clip */
    cli_expression_t expressions[CLI_MAX_EXPRESSIONS];
    int expression_count;
    bool face_closeup;    /* --face: frame the head instead of the whole figure */
    bool play;            /* --play: start playing the clip (from --pose-frame) */
    const char *clip;     /* --clip: vertex-animated clip (.vac), NULL = the shipped one if it fits */
    bool play_clip;       /* --play-clip: play the vertex clip (looping) */
    bool clip_time_given; /* --clip-time: the vertex clip on, at clip_time_s */
    double clip_time_s;
    const char *tween;   /* --tween: "linear" or "hermite", NULL = hermite */
    const char *curve;   /* --curve: built-in expression curve to play, NULL = none */
    double curve_time_s; /* --curve-time: where it starts, s */
    bool curve_time_given;
    const char *bake; /* --bake: bake the shape weights into this .chr on the first frame */
    long frames;      /* 0 = run until quit */
    uint32_t seed;
    int width, height;
    bool hidden, fullscreen, no_vsync, menu, virtual_gamepad, verbose, quiet;
    /* Not options: set by `strider bench render` / `bench crowd` only (app.h), else NULL. */
    struct gfx_switch_bench_t *render_bench;
    struct app_crowd_bench_t *crowd_bench;
} app_options_t;

cli_result_t cli_parse(int argc, char **argv, app_options_t *opt);
/* Window sides --size accepts, pixels. */
enum { CLI_MIN_SIZE = 64, CLI_MAX_SIZE = 16384 };
/* Parses "WxH" (each side CLI_MIN_SIZE..CLI_MAX_SIZE) into *W, *H; false
 * (nothing printed) otherwise. */
bool cli_parse_size(const char *s, int *w, int *h);
/* Parses "NAME[=W],NAME[=W],..." into out (at most MAX items); returns the
 * count, or -1 on a syntax error (empty or over-long name, bad weight). */
int cli_parse_expressions(const char *list, cli_expression_t *out, int max);
void cli_print_usage(FILE *out);

#endif
