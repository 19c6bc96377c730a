#include "app/cli.h"

#include "core/paths.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A day at 60 Hz: anything longer is surely a typo. */
#define CLI_MAX_FRAMES 5184000L

void cli_print_usage(FILE *out)
{
    fputs("usage: strider [options]\n"
          "       strider bench <blendshapes|skinning|pfnn> [options]   (see strider bench --help)\n"
          "\n"
          "options:\n"
          "  --level NAME        start on level NAME (flat, hills, tunnel, gaps, course, steps)\n"
          "  --view WHAT         open a viewer instead of the game (WHAT: character)\n"
          "  --frames N          run N frames, then exit 0\n"
          "  --character FILE    character to show: .chr, or a skinned glTF 2.0 .glb/.gltf imported at start\n"
          "                      (default assets/characters/strider.chr)\n"
          "  --map FILE          joint map onto the controller's skeleton, for rigs without the CMU names\n"
          "  --no-character      draw the scene without the character (reference renders)\n"
          "\n"
          "character deformation (game and viewer; the menu switches them live):\n"
          "  --skin cpu|gpu      skin on the CPU (default) or in the vertex shader\n"
          "  --skin-method M     points, matrix (default) or dqs: blend points, blend matrices, dual quaternions\n"
          "  --skin-once         with --skin gpu (its default): morph and skin once per frame in a compute\n"
          "                      pass; the shadow and main passes draw that\n"
          "  --skin-per-pass     with --skin gpu: each pass morphs and skins again in its vertex shader\n"
          "                      (Dawn's and Gosselin's way; on GPUs with few graphics units much slower)\n"
          "  --cpu-morph         with --skin gpu: blend shapes on the CPU (default: in the vertex shader)\n"
          "  --hybrid N          Cebenoyan's hybrid, CPU skinning only: the CPU skins a key every N frames\n"
          "                      (1-8) and the vertex shader blends the last two; the figure lags N-1 frames\n"
          "  --influences N      keep the N heaviest weights of each vertex, renormalised (1-4; default 4)\n"
          "  --dense             dense blend-shape layout (every target x vertex) instead of sparse\n"
          "\n"
          "game:\n"
          "  --network FILE      PFNN weights driving the character (default assets/network/pfnn.bin)\n"
          "  --marker            a simple marker instead of the PFNN character (loads neither file)\n"
          "  --no-ik             start with the controller's foot IK off (the menu toggles it)\n"
          "  --phase-mode M      the network's phase function: cubic (exact, default), linear (10\n"
          "                      precomputed slices) or constant (50); the menu switches it\n"
          "\n"
          "character viewer (--view character):\n"
          "  --pose FILE.bvh     pose the character from this clip (default: rest pose)\n"
          "  --pose-frame N      0-based frame of the clip (default 0)\n"
          "  --expression LIST   blend-shape weights, NAME[=W],... (W from -1 to 2, default 1)\n"
          "  --active-shapes N   also turn on N of the character's blend shapes, evenly spread over its\n"
          "                      list, at weight 0.5 (a load to measure: Dawn drove 50; 0-4096)\n"
          "  --play              play the clip from --pose-frame at the fixed step (looping)\n"
          "  --face              frame the head instead of the whole figure\n"
          "  --clip FILE.vac     vertex-animated clip for a mesh of the character\n"
          "                      (default assets/clips/talk.vac, the head talking, when it fits)\n"
          "  --play-clip         play the vertex clip (looping; tweened, then blend shapes, then skinned)\n"
          "  --clip-time S       show the vertex clip at S seconds (held unless --play-clip)\n"
          "  --tween MODE        vertex-clip tweening: linear or hermite (default hermite)\n"
          "  --curve NAME        play an expression curve on the blend shapes (talk, smile-surprise-blink)\n"
          "  --curve-time S      start the expression curve at S seconds (needs --curve)\n"
          "  --bake FILE.chr     bake the blend-shape weights into a new .chr at start (exit 1\n"
          "                      if it cannot be written; the menu's Bake button writes there too)\n"
          "  an unknown shape name or a frame past the clip's end is a usage error (2)\n"
          "\n"
          "  --screenshot PATH   write a PNG of the last frame\n"
          "  --script FILE       play timed intents from FILE (deterministic)\n"
          "  --seed N            seed for anything random (default 1)\n"
          "  --size WxH          window size in pixels (default 1280x720)\n"
          "  --hidden            do not show the window (tests, benchmarks); it cannot be closed, so it\n"
          "                      needs --frames N or a --script that quits\n"
          "  --fullscreen        start in desktop fullscreen\n"
          "  --no-vsync          start with vsync off\n"
          "  --menu              start with the debug menu open\n"
          "  --virtual-gamepad   attach SDL's virtual gamepad (driven by 'pad'/'button' script lines)\n"
          "  --data DIR          folder holding assets/ and shaders/ (default: the source tree)\n"
          "  --report PATH       write a JSON summary of the final state at exit\n"
          "  --dump-pose PATH    game: a CSV row per fixed step of the displayed pose (root, every joint,\n"
          "                      heels and toes, contacts and lock weights, gait weights; see pose_dump.h)\n"
          "  --verbose | --quiet more or less logging\n"
          "  --help              this text\n"
          "\n"
          "exit codes: 0 success, 1 runtime failure (window, OpenGL, data files) or an output\n"
          "            that could not be written, 2 usage error\n",
          out);
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return false;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
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
    if (!parse_long(buf, CLI_MIN_SIZE, CLI_MAX_SIZE, &lw) || !parse_long(x + 1, CLI_MIN_SIZE, CLI_MAX_SIZE, &lh))
        return false;
    *w = (int)lw;
    *h = (int)lh;
    return true;
}

int cli_parse_expressions(const char *list, cli_expression *out, int max)
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

static bool parse_time(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v >= -CLI_MAX_ANIM_TIME_S && v <= CLI_MAX_ANIM_TIME_S))
        return false;
    *out = v;
    return true;
}

static cli_result usage_error(const char *fmt, const char *arg)
{
    fputs("strider: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (try --help)\n", stderr);
    return CLI_USAGE_ERROR;
}

/* A path value the system could not open whole: refused, never truncated. */
static cli_result path_too_long(const char *opt, const char *v)
{
    fprintf(stderr, "strider: %s: path of %zu bytes, longer than the %d the system allows (try --help)\n", opt,
            strlen(v), PATHS_MAX - 1);
    return CLI_USAGE_ERROR;
}

cli_result cli_parse(int argc, char **argv, app_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->width = 1280;
    opt->height = 720;
    opt->seed = 1;
    opt->skin_method = CLI_SKIN_METHOD_DEFAULT;
    bool pose_frame_given = false, skin_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDS_VALUE()                                                                              \
    do {                                                                                           \
        if (!v)                                                                                    \
            return usage_error("option %s needs a value", a);                                      \
        i++;                                                                                       \
    } while (0)
#define NEEDS_PATH()                                                                               \
    do {                                                                                           \
        NEEDS_VALUE();                                                                             \
        if (strlen(v) >= PATHS_MAX)                                                                \
            return path_too_long(a, v);                                                            \
    } while (0)
        long n;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli_print_usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(a, "--level") == 0) {
            NEEDS_VALUE();
            opt->level = v;
        } else if (strcmp(a, "--view") == 0) {
            NEEDS_VALUE();
            if (strcmp(v, "character") != 0)
                return usage_error("unknown --view '%s' (valid: character)", v);
            opt->view = v;
        } else if (strcmp(a, "--map") == 0) {
            NEEDS_PATH();
            opt->map = v;
        } else if (strcmp(a, "--character") == 0) {
            NEEDS_PATH();
            opt->character = v;
        } else if (strcmp(a, "--pose") == 0) {
            NEEDS_PATH();
            opt->pose = v;
        } else if (strcmp(a, "--pose-frame") == 0) {
            NEEDS_VALUE();
            if (!parse_long(v, 0, CLI_MAX_FRAMES, &n))
                return usage_error("--pose-frame needs a frame number from 0, got '%s'", v);
            opt->pose_frame = n;
            pose_frame_given = true;
        } else if (strcmp(a, "--expression") == 0) {
            NEEDS_VALUE();
            int count = cli_parse_expressions(v, opt->expressions, CLI_MAX_EXPRESSIONS);
            if (count < 0)
                return usage_error("--expression needs NAME[=W],... with W from -1 to 2, got '%s'", v);
            opt->expression_count = count;
        } else if (strcmp(a, "--active-shapes") == 0) {
            NEEDS_VALUE();
            if (!parse_long(v, 0, CLI_MAX_ACTIVE_SHAPES, &n))
                return usage_error("--active-shapes needs a whole number from 0 to 4096, got '%s'", v);
            opt->active_shapes = (int)n;
        } else if (strcmp(a, "--play") == 0) {
            opt->play = true;
        } else if (strcmp(a, "--clip") == 0) {
            NEEDS_PATH();
            opt->clip = v;
        } else if (strcmp(a, "--play-clip") == 0) {
            opt->play_clip = true;
        } else if (strcmp(a, "--clip-time") == 0) {
            NEEDS_VALUE();
            if (!parse_time(v, &opt->clip_time_s))
                return usage_error("--clip-time needs seconds from -86400 to 86400, got '%s'", v);
            opt->clip_time_given = true;
        } else if (strcmp(a, "--tween") == 0) {
            NEEDS_VALUE();
            if (strcmp(v, "linear") != 0 && strcmp(v, "hermite") != 0)
                return usage_error("--tween needs linear or hermite, got '%s'", v);
            opt->tween = v;
        } else if (strcmp(a, "--curve") == 0) {
            NEEDS_VALUE();
            opt->curve = v;
        } else if (strcmp(a, "--curve-time") == 0) {
            NEEDS_VALUE();
            if (!parse_time(v, &opt->curve_time_s))
                return usage_error("--curve-time needs seconds from -86400 to 86400, got '%s'", v);
            opt->curve_time_given = true;
        } else if (strcmp(a, "--bake") == 0) {
            NEEDS_PATH();
            opt->bake = v;
        } else if (strcmp(a, "--face") == 0) {
            opt->face_closeup = true;
        } else if (strcmp(a, "--no-character") == 0) {
            opt->no_character = true;
        } else if (strcmp(a, "--skin") == 0) {
            NEEDS_VALUE();
            if (strcmp(v, "cpu") != 0 && strcmp(v, "gpu") != 0)
                return usage_error("--skin needs cpu or gpu, got '%s'", v);
            opt->skin_gpu = strcmp(v, "gpu") == 0;
            skin_given = true;
        } else if (strcmp(a, "--skin-method") == 0) {
            NEEDS_VALUE();
            static const char *const methods[] = {"points", "matrix", "dqs"};
            opt->skin_method = CLI_SKIN_METHOD_DEFAULT;
            for (int m = 0; m < 3; m++)
                if (strcmp(v, methods[m]) == 0)
                    opt->skin_method = m;
            if (opt->skin_method == CLI_SKIN_METHOD_DEFAULT)
                return usage_error("--skin-method needs points, matrix or dqs, got '%s'", v);
        } else if (strcmp(a, "--skin-once") == 0) {
            opt->skin_once = true;
        } else if (strcmp(a, "--skin-per-pass") == 0) {
            opt->skin_per_pass = true;
        } else if (strcmp(a, "--cpu-morph") == 0) {
            opt->cpu_morph = true;
        } else if (strcmp(a, "--hybrid") == 0) {
            NEEDS_VALUE();
            if (!parse_long(v, 1, CLI_HYBRID_MAX, &n))
                return usage_error("--hybrid needs a key interval from 1 to 8 frames, got '%s'", v);
            opt->hybrid = (int)n;
        } else if (strcmp(a, "--influences") == 0) {
            NEEDS_VALUE();
            if (!parse_long(v, 1, CLI_MAX_INFLUENCES, &n))
                return usage_error("--influences needs a whole number from 1 to 4, got '%s'", v);
            opt->influences = (int)n;
        } else if (strcmp(a, "--dense") == 0) {
            opt->dense = true;
        } else if (strcmp(a, "--network") == 0) {
            NEEDS_PATH();
            opt->network = v;
        } else if (strcmp(a, "--marker") == 0) {
            opt->marker = true;
        } else if (strcmp(a, "--no-ik") == 0) {
            opt->no_ik = true;
        } else if (strcmp(a, "--phase-mode") == 0) {
            NEEDS_VALUE();
            if (strcmp(v, "cubic") != 0 && strcmp(v, "linear") != 0 && strcmp(v, "constant") != 0)
                return usage_error("--phase-mode needs cubic, linear or constant, got '%s'", v);
            opt->phase_mode = v;
        } else if (strcmp(a, "--frames") == 0) {
            NEEDS_VALUE();
            if (!parse_long(v, 1, CLI_MAX_FRAMES, &n))
                return usage_error("--frames needs a whole number from 1 to 5184000, got '%s'", v);
            opt->frames = n;
        } else if (strcmp(a, "--screenshot") == 0) {
            NEEDS_PATH();
            opt->screenshot = v;
        } else if (strcmp(a, "--script") == 0) {
            NEEDS_PATH();
            opt->script = v;
        } else if (strcmp(a, "--seed") == 0) {
            NEEDS_VALUE();
            if (!parse_long(v, 0, (long)UINT32_MAX, &n))
                return usage_error("--seed needs a whole number from 0 to 4294967295, got '%s'", v);
            opt->seed = (uint32_t)n;
        } else if (strcmp(a, "--size") == 0) {
            NEEDS_VALUE();
            if (!cli_parse_size(v, &opt->width, &opt->height))
                return usage_error("--size needs WxH with each side from 64 to 16384, got '%s'", v);
        } else if (strcmp(a, "--data") == 0) {
            NEEDS_PATH();
            opt->data_dir = v;
        } else if (strcmp(a, "--report") == 0) {
            NEEDS_PATH();
            opt->report = v;
        } else if (strcmp(a, "--dump-pose") == 0) {
            NEEDS_PATH();
            opt->dump_pose = v;
        } else if (strcmp(a, "--hidden") == 0) {
            opt->hidden = true;
        } else if (strcmp(a, "--fullscreen") == 0) {
            opt->fullscreen = true;
        } else if (strcmp(a, "--no-vsync") == 0) {
            opt->no_vsync = true;
        } else if (strcmp(a, "--menu") == 0) {
            opt->menu = true;
        } else if (strcmp(a, "--virtual-gamepad") == 0) {
            opt->virtual_gamepad = true;
        } else if (strcmp(a, "--verbose") == 0) {
            opt->verbose = true;
        } else if (strcmp(a, "--quiet") == 0) {
            opt->quiet = true;
        } else {
            return usage_error("unknown option '%s'", a);
        }
#undef NEEDS_PATH
#undef NEEDS_VALUE
    }
    if (!opt->view && (opt->pose || pose_frame_given || opt->expression_count > 0 || opt->face_closeup || opt->play ||
                       opt->active_shapes > 0))
        return usage_error("%s", "--pose, --pose-frame, --play, --expression, --active-shapes and --face need --view "
                                 "character");
    bool anim = opt->clip || opt->play_clip || opt->clip_time_given || opt->tween || opt->curve ||
                opt->curve_time_given || opt->bake;
    if (!opt->view && anim)
        return usage_error("%s", "--clip, --play-clip, --clip-time, --tween, --curve, --curve-time and --bake need "
                                 "--view character");
    if (opt->curve_time_given && !opt->curve)
        return usage_error("%s", "--curve-time needs --curve NAME");
    if (opt->view && (opt->network || opt->marker || opt->no_ik || opt->dump_pose || opt->phase_mode))
        return usage_error("%s", "--network, --marker, --no-ik, --dump-pose and --phase-mode are game options (not "
                                 "with --view)");
    if (opt->marker && opt->dump_pose)
        return usage_error("%s", "--dump-pose needs the character (not with --marker)");
    if (opt->marker && (opt->network || opt->character || opt->no_character || opt->phase_mode || opt->map))
        return usage_error("%s", "--marker replaces the character: no --network, --character, --map, --no-character "
                                 "or --phase-mode");
    if ((opt->skin_once || opt->skin_per_pass || opt->cpu_morph) && !opt->skin_gpu)
        return usage_error("%s", "--skin-once, --skin-per-pass and --cpu-morph need --skin gpu");
    if (opt->skin_once && opt->skin_per_pass)
        return usage_error("%s", "--skin-once and --skin-per-pass: one or the other");
    if (opt->hybrid > 0 && opt->skin_gpu)
        return usage_error("%s", "--hybrid blends CPU-skinned keys: not with --skin gpu");
    if (opt->marker &&
        (skin_given || opt->skin_method != CLI_SKIN_METHOD_DEFAULT || opt->hybrid > 0 || opt->influences || opt->dense))
        return usage_error("%s", "--marker has no character to skin: no --skin, --skin-method, --hybrid, --influences "
                                 "or --dense");
    /* Nobody can close a window nobody sees: the run must end by itself
     * (a script without 'quit' is refused once it is read, in app.c). */
    if (opt->hidden && opt->frames == 0 && !opt->script)
        return usage_error("%s", "--hidden needs --frames N or a --script that quits (a hidden window cannot be "
                                 "closed)");
    if ((pose_frame_given || opt->play) && !opt->pose)
        return usage_error("%s", "--pose-frame and --play need --pose FILE.bvh");
    return CLI_RUN;
}
