#include "app/cli.h"

#include "game/crowd.h"

#include "core/args.h"
#include "core/pool.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A day at 60 Hz: anything longer is surely a typo. */
#define CLI_MAX_FRAMES 5184000L

/* Values of --skin, --crowd-deform, --skin-method, --view, --tween and --phase-mode. */
static const char *const SKINS[] = {"cpu", "gpu"};
static const char *const CROWD_DEFORMS[] = {"gpu", "cpu"};
static const char *const SKIN_METHODS[] = {"points", "matrix", "dqs"};
static const char *const VIEWS[] = {"character"};
static const char *const TWEENS[] = {"linear", "hermite"};
static const char *const PHASE_MODES[] = {"cubic", "linear", "constant"};
#define CHOICES(a) .choices = (a), .nchoices = (int)(sizeof(a) / sizeof((a)[0]))

static bool parse_size_value(const char *v, void *dest)
{
    app_options_t *o = dest;
    return cli_parse_size(v, &o->width, &o->height);
}

static bool parse_expression_value(const char *v, void *dest)
{
    app_options_t *o = dest;
    int count = cli_parse_expressions(v, o->expressions, CLI_MAX_EXPRESSIONS);
    if (count < 0)
        return false;
    o->expression_count = count;
    return true;
}

/* What cli_parse() learns beyond app_options_t. */
typedef struct cli_seen_t {
    bool pose_frame, skin, crowd_deform_given;
    int skin_choice, crowd_deform;
} cli_seen_t;

/* Where the table's options go: the spec's base while cli_parse() reads argv. */
typedef struct cli_read_t {
    app_options_t opt;
    cli_seen_t seen;
} cli_read_t;
#define AT(member) ARGS_AT(cli_read_t, member)

/* The options, their places in a cli_read_t, and the usage text. */
static const args_opt_t CLI_OPTS[] = {
    {.name = "--level",
     .kind = ARGS_STRING,
     .dest_at = AT(opt.level),
     .arg = "NAME",
     .help = "start on level NAME (flat, hills, tunnel, gaps, course, steps)"},
    {.name = "--view",
     .kind = ARGS_CHOICE,
     .text_at = AT(opt.view),
     CHOICES(VIEWS),
     .arg = "WHAT",
     .help = "open a viewer instead of the game (WHAT: character)",
     .error = "unknown --view '%s' (valid: character)"},
    {.name = "--frames",
     .kind = ARGS_LONG,
     .dest_at = AT(opt.frames),
     .lo = 1,
     .hi = CLI_MAX_FRAMES,
     .arg = "N",
     .help = "run N frames, then exit 0"},
    {.name = "--character",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.character),
     .arg = "FILE",
     .help = "character to show: .chr, or a skinned glTF 2.0 .glb/.gltf imported at start\n"
             "(default assets/characters/strider.chr)"},
    {.name = "--map",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.map),
     .arg = "FILE",
     .help = "joint map onto the controller's skeleton, for rigs without the CMU names"},
    {.name = "--no-character",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.no_character),
     .help = "draw the scene without the character (reference renders)"},
    {.kind = ARGS_TEXT, .help = "\ncharacter deformation (game and viewer; the menu switches them live):\n"},
    {.name = "--skin",
     .kind = ARGS_CHOICE,
     .dest_at = AT(seen.skin_choice),
     .given_at = AT(seen.skin),
     CHOICES(SKINS),
     .label = "--skin cpu|gpu",
     .help = "skin on the CPU (default) or in the vertex shader"},
    {.name = "--skin-method",
     .kind = ARGS_CHOICE,
     .dest_at = AT(opt.skin_method),
     CHOICES(SKIN_METHODS),
     .arg = "M",
     .help = "points, matrix (default) or dqs: blend points, blend matrices, dual quaternions"},
    {.name = "--skin-once",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.skin_once),
     .help = "with --skin gpu (its default): morph and skin once per frame in a compute\n"
             "pass; the shadow and main passes draw that"},
    {.name = "--skin-per-pass",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.skin_per_pass),
     .help = "with --skin gpu: each pass morphs and skins again in its vertex shader\n"
             "(Dawn's and Gosselin's way; on GPUs with few graphics units much slower)"},
    {.name = "--cpu-morph",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.cpu_morph),
     .help = "with --skin gpu: blend shapes on the CPU (default: in the vertex shader)"},
    {.name = "--hybrid",
     .kind = ARGS_INT,
     .dest_at = AT(opt.hybrid),
     .lo = 1,
     .hi = CLI_HYBRID_MAX,
     .arg = "N",
     .help = "Cebenoyan's hybrid, CPU skinning only: the CPU skins a key every N frames\n"
             "(1-8) and the vertex shader blends the last two; the figure lags N-1 frames",
     .error = "--hybrid needs a key interval from 1 to 8 frames, got '%s'"},
    {.name = "--influences",
     .kind = ARGS_INT,
     .dest_at = AT(opt.influences),
     .lo = 1,
     .hi = CLI_MAX_INFLUENCES,
     .arg = "N",
     .help = "keep the N heaviest weights of each vertex, renormalised (1-4; default 4)"},
    {.name = "--dense",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.dense),
     .help = "dense blend-shape layout (every target x vertex) instead of sparse"},
    {.kind = ARGS_TEXT, .help = "\ngame:\n"},
    {.name = "--network",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.network),
     .arg = "FILE",
     .help = "PFNN weights driving the character (default assets/network/pfnn.bin)"},
    {.name = "--marker",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.marker),
     .help = "a simple marker instead of the PFNN character (loads neither file)"},
    {.name = "--no-ik",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.no_ik),
     .help = "start with the controller's foot IK off (the menu toggles it)"},
    {.name = "--phase-mode",
     .kind = ARGS_CHOICE,
     .text_at = AT(opt.phase_mode),
     CHOICES(PHASE_MODES),
     .arg = "M",
     .help = "the network's phase function: cubic (exact, default), linear (10\n"
             "precomputed slices) or constant (50); the menu switches it"},
    {.name = "--crowd",
     .kind = ARGS_INT,
     .dest_at = AT(opt.crowd),
     .lo = 0,
     .hi = CROWD_MAX,
     .arg = "N",
     .help = "N PFNN characters on the level, the player's one of them; the\n"
             "others wander (0: the player alone; the menu changes N)"},
    {.name = "--crowd-seed",
     .kind = ARGS_U32,
     .dest_at = AT(opt.crowd_seed),
     .given_at = AT(opt.crowd_seed_given),
     .lo = 0,
     .hi = (long)UINT32_MAX,
     .arg = "N",
     .help = "seed of the crowd's places and wandering (default: --seed)"},
    {.name = "--crowd-threads",
     .kind = ARGS_INT,
     .dest_at = AT(opt.crowd_threads),
     .lo = 1,
     .hi = POOL_MAX_THREADS,
     .arg = "N",
     .help = "threads that step the crowd (default: every CPU); any N gives the same motion"},
    {.name = "--crowd-deform",
     .kind = ARGS_CHOICE,
     .dest_at = AT(seen.crowd_deform),
     .given_at = AT(seen.crowd_deform_given),
     CHOICES(CROWD_DEFORMS),
     .label = "--crowd-deform gpu|cpu",
     .help = "where the others are skinned: in the vertex shaders of both passes (gpu,\n"
             "default on a GPU) or once per frame on the crowd's threads (cpu, default on a\n"
             "software rasteriser); the menu switches it"},
    {.kind = ARGS_TEXT, .help = "\ncharacter viewer (--view character):\n"},
    {.name = "--pose",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.pose),
     .arg = "FILE.bvh",
     .help = "pose the character from this clip (default: rest pose)"},
    {.name = "--pose-frame",
     .kind = ARGS_LONG,
     .dest_at = AT(opt.pose_frame),
     .given_at = AT(seen.pose_frame),
     .lo = 0,
     .hi = CLI_MAX_FRAMES,
     .arg = "N",
     .help = "0-based frame of the clip (default 0)",
     .error = "--pose-frame needs a frame number from 0, got '%s'"},
    {.name = "--expression",
     .kind = ARGS_CUSTOM,
     .dest_at = AT(opt),
     .parse = parse_expression_value,
     .arg = "LIST",
     .help = "blend-shape weights, NAME[=W],... (W from -1 to 2, default 1)",
     .error = "--expression needs NAME[=W],... with W from -1 to 2, got '%s'"},
    {.name = "--active-shapes",
     .kind = ARGS_INT,
     .dest_at = AT(opt.active_shapes),
     .lo = 0,
     .hi = CLI_MAX_ACTIVE_SHAPES,
     .arg = "N",
     .help = "also turn on N of the character's blend shapes, evenly spread over its\n"
             "list, at weight 0.5 (a load to measure: Dawn drove 50; 0-4096)"},
    {.name = "--play",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.play),
     .help = "play the clip from --pose-frame at the fixed step (looping)"},
    {.name = "--face",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.face_closeup),
     .help = "frame the head instead of the whole figure"},
    {.name = "--clip",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.clip),
     .arg = "FILE.vac",
     .help = "vertex-animated clip for a mesh of the character\n"
             "(default assets/clips/talk.vac, the head talking, when it fits)"},
    {.name = "--play-clip",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.play_clip),
     .help = "play the vertex clip (looping; tweened, then blend shapes, then skinned)"},
    {.name = "--clip-time",
     .kind = ARGS_DOUBLE,
     .dest_at = AT(opt.clip_time_s),
     .given_at = AT(opt.clip_time_given),
     .flo = -CLI_MAX_ANIM_TIME_S,
     .fhi = CLI_MAX_ANIM_TIME_S,
     .arg = "S",
     .help = "show the vertex clip at S seconds (held unless --play-clip)",
     .error = "--clip-time needs seconds from -86400 to 86400, got '%s'"},
    {.name = "--tween",
     .kind = ARGS_CHOICE,
     .text_at = AT(opt.tween),
     CHOICES(TWEENS),
     .arg = "MODE",
     .help = "vertex-clip tweening: linear or hermite (default hermite)"},
    {.name = "--curve",
     .kind = ARGS_STRING,
     .dest_at = AT(opt.curve),
     .arg = "NAME",
     .help = "play an expression curve on the blend shapes (talk, smile-surprise-blink)"},
    {.name = "--curve-time",
     .kind = ARGS_DOUBLE,
     .dest_at = AT(opt.curve_time_s),
     .given_at = AT(opt.curve_time_given),
     .flo = -CLI_MAX_ANIM_TIME_S,
     .fhi = CLI_MAX_ANIM_TIME_S,
     .arg = "S",
     .help = "start the expression curve at S seconds (needs --curve)",
     .error = "--curve-time needs seconds from -86400 to 86400, got '%s'"},
    {.name = "--bake",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.bake),
     .arg = "FILE.chr",
     .help = "bake the blend-shape weights into a new .chr at start (exit 1\n"
             "if it cannot be written; the menu's Bake button writes there too)"},
    {.kind = ARGS_TEXT, .help = "  an unknown shape name or a frame past the clip's end is a usage error (2)\n\n"},
    {.name = "--screenshot",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.screenshot),
     .arg = "PATH",
     .help = "write a PNG of the last frame"},
    {.name = "--script",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.script),
     .arg = "FILE",
     .help = "play timed intents from FILE (deterministic)"},
    {.name = "--seed",
     .kind = ARGS_U32,
     .dest_at = AT(opt.seed),
     .lo = 0,
     .hi = (long)UINT32_MAX,
     .arg = "N",
     .help = "seed for anything random (default 1)"},
    {.name = "--size",
     .kind = ARGS_CUSTOM,
     .dest_at = AT(opt),
     .parse = parse_size_value,
     .arg = "WxH",
     .help = "window size in pixels (default 1280x720)",
     .error = "--size needs WxH with each side from 64 to 16384, got '%s'"},
    {.name = "--hidden",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.hidden),
     .help = "do not show the window (tests, benchmarks); it cannot be closed, so it\n"
             "needs --frames N or a --script that quits"},
    {.name = "--fullscreen", .kind = ARGS_FLAG, .dest_at = AT(opt.fullscreen), .help = "start in desktop fullscreen"},
    {.name = "--no-vsync", .kind = ARGS_FLAG, .dest_at = AT(opt.no_vsync), .help = "start with vsync off"},
    {.name = "--menu", .kind = ARGS_FLAG, .dest_at = AT(opt.menu), .help = "start with the debug menu open"},
    {.name = "--virtual-gamepad",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.virtual_gamepad),
     .help = "attach SDL's virtual gamepad (driven by 'pad'/'button' script lines)"},
    {.name = "--data",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.data_dir),
     .arg = "DIR",
     .help = "folder holding assets/ and shaders/ (default: the source tree)"},
    {.name = "--report",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.report),
     .arg = "PATH",
     .help = "write a JSON summary of the final state at exit"},
    {.name = "--dump-pose",
     .kind = ARGS_PATH,
     .dest_at = AT(opt.dump_pose),
     .arg = "PATH",
     .help = "game: a CSV row per fixed step of the displayed pose (root, every joint,\n"
             "heels and toes, contacts and lock weights, gait weights; see pose_dump.h)"},
    {.name = "--verbose",
     .kind = ARGS_FLAG,
     .dest_at = AT(opt.verbose),
     .label = "--verbose | --quiet",
     .help = "more or less logging"},
    {.name = "--quiet", .kind = ARGS_FLAG, .dest_at = AT(opt.quiet)},
    {.kind = ARGS_TEXT, .help = "  --help              this text\n"},
};
#undef AT

static args_spec_t cli_spec(void)
{
    return (args_spec_t){
        .prog = "strider",
        .hint = " (try --help)",
        .label_width = 19,
        .head = "usage: strider [options]\n"
                "       strider bench <blendshapes|skinning|pfnn|render> [options]   (see strider bench --help)\n"
                "\n"
                "options:\n",
        .tail = "\n"
                "exit codes: 0 success, 1 runtime failure (window, OpenGL, data files) or an output\n"
                "            that could not be written, 2 usage error\n",
        .opts = CLI_OPTS,
        .count = (int)(sizeof CLI_OPTS / sizeof CLI_OPTS[0]),
    };
}

void cli_print_usage(FILE *out)
{
    args_spec_t spec = cli_spec();
    args_usage(&spec, out);
}

bool cli_parse_size(const char *s, int *w, int *h)
{
    if (!s)
        return false;
    const char *x = strchr(s, 'x');
    if (!x || x == s)
        return false;
    char buf[32];
    size_t n = (size_t)(x - s);
    if (n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    long lw, lh;
    if (!args_to_long(buf, CLI_MIN_SIZE, CLI_MAX_SIZE, &lw) || !args_to_long(x + 1, CLI_MIN_SIZE, CLI_MAX_SIZE, &lh))
        return false;
    *w = (int)lw;
    *h = (int)lh;
    return true;
}

int cli_parse_expressions(const char *list, cli_expression_t *out, int max)
{
    if (!list || !*list)
        return -1;
    int n = 0;
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        size_t name_len = eq ? (size_t)(eq - p) : len;
        if (n >= max || name_len == 0 || name_len >= CLI_EXPRESSION_NAME_MAX)
            return -1;
        memcpy(out[n].name, p, name_len);
        out[n].name[name_len] = 0;
        out[n].weight = 1.0f;
        if (eq) {
            char buf[32];
            size_t wl = len - name_len - 1;
            if (wl == 0 || wl >= sizeof buf)
                return -1;
            memcpy(buf, eq + 1, wl);
            buf[wl] = 0;
            char *e = NULL;
            errno = 0;
            float w = strtof(buf, &e);
            if (errno || *e || !(w >= CLI_EXPRESSION_WEIGHT_MIN && w <= CLI_EXPRESSION_WEIGHT_MAX))
                return -1;
            out[n].weight = w;
        }
        n++;
        if (!end)
            return n;
        p = end + 1;
    }
}

static cli_result_t usage_error(const args_spec_t *spec, const char *msg)
{
    args_error(spec, "%s", msg);
    return CLI_USAGE_ERROR;
}

cli_result_t cli_parse(int argc, char **argv, app_options_t *opt)
{
    cli_read_t dest;
    memset(&dest, 0, sizeof dest);
    dest.opt.width = 1280;
    dest.opt.height = 720;
    dest.opt.seed = 1;
    dest.opt.skin_method = CLI_SKIN_METHOD_DEFAULT;
    args_spec_t spec = cli_spec();
    spec.base = &dest;
    args_result_t parsed = args_parse(&spec, argc, argv, 1);
    *opt = dest.opt;
    cli_seen_t seen = dest.seen;
    switch (parsed) {
    case ARGS_HELP: return CLI_EXIT_OK;
    case ARGS_ERROR: return CLI_USAGE_ERROR;
    case ARGS_OK: break;
    }
    opt->skin_gpu = seen.skin && seen.skin_choice == 1;
    opt->crowd_cpu = seen.crowd_deform == 1;
    opt->crowd_deform_auto = !seen.crowd_deform_given;
    bool pose_frame_given = seen.pose_frame, skin_given = seen.skin;
    if (!opt->view && (opt->pose || pose_frame_given || opt->expression_count > 0 || opt->face_closeup || opt->play ||
                       opt->active_shapes > 0))
        return usage_error(&spec, "--pose, --pose-frame, --play, --expression, --active-shapes and --face need --view "
                                  "character");
    bool anim = opt->clip || opt->play_clip || opt->clip_time_given || opt->tween || opt->curve ||
                opt->curve_time_given || opt->bake;
    if (!opt->view && anim)
        return usage_error(&spec, "--clip, --play-clip, --clip-time, --tween, --curve, --curve-time and --bake need "
                                  "--view character");
    if (opt->curve_time_given && !opt->curve)
        return usage_error(&spec, "--curve-time needs --curve NAME");
    if (opt->view && (opt->network || opt->marker || opt->no_ik || opt->dump_pose || opt->phase_mode))
        return usage_error(&spec, "--network, --marker, --no-ik, --dump-pose and --phase-mode are game options (not "
                                  "with --view)");
    if ((opt->crowd > 0 || opt->crowd_seed_given || opt->crowd_threads || opt->crowd_cpu) && (opt->view || opt->marker))
        return usage_error(&spec, "--crowd and --crowd-seed need the PFNN character (not with --view or --marker)");
    if (opt->crowd_seed_given && opt->crowd == 0)
        return usage_error(&spec, "--crowd-seed needs --crowd N");
    if (opt->marker && opt->dump_pose)
        return usage_error(&spec, "--dump-pose needs the character (not with --marker)");
    if (opt->marker && (opt->network || opt->character || opt->no_character || opt->phase_mode || opt->map))
        return usage_error(&spec, "--marker replaces the character: no --network, --character, --map, --no-character "
                                  "or --phase-mode");
    if ((opt->skin_once || opt->skin_per_pass || opt->cpu_morph) && !opt->skin_gpu)
        return usage_error(&spec, "--skin-once, --skin-per-pass and --cpu-morph need --skin gpu");
    if (opt->skin_once && opt->skin_per_pass)
        return usage_error(&spec, "--skin-once and --skin-per-pass: one or the other");
    if (opt->hybrid > 0 && opt->skin_gpu)
        return usage_error(&spec, "--hybrid blends CPU-skinned keys: not with --skin gpu");
    if (opt->marker &&
        (skin_given || opt->skin_method != CLI_SKIN_METHOD_DEFAULT || opt->hybrid > 0 || opt->influences || opt->dense))
        return usage_error(&spec, "--marker has no character to skin: no --skin, --skin-method, --hybrid, --influences "
                                  "or --dense");
    /* Nobody can close a window nobody sees: the run must end by itself
     * (a script without 'quit' is refused once it is read, in app.c). */
    if (opt->hidden && opt->frames == 0 && !opt->script)
        return usage_error(&spec, "--hidden needs --frames N or a --script that quits (a hidden window cannot be "
                                  "closed)");
    if ((pose_frame_given || opt->play) && !opt->pose)
        return usage_error(&spec, "--pose-frame and --play need --pose FILE.bvh");
    return CLI_RUN;
}
