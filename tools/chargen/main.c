/* strider-chargen: builds the Strider character (tools/chargen/cg_build.c)
 * and writes it as a .chr file, or renders an offline preview PNG.
 *
 *   strider-chargen --out FILE [--density N] [--extra-bones N] [--shapes N] [--tiny]
 *   strider-chargen --preview OUT.png [--in FILE.chr] [--view body|face|joints|expressions]
 *                   [--shape NAME[=W]]... [--pose FILE.bvh --pose-frame N]
 *
 * The committed asset is regenerated with
 *   build/release/tools/chargen/strider-chargen --out assets/characters/strider.chr
 * Exit status 0 on success (and for --help), 1 with one error line on a
 * file or data error, 2 with one error line on a usage error.
 */
#include "anim/bvh.h"
#include "asset/character.h"
#include "cg_build.h"
#include "cg_preview.h"
#include "cg_show.h"
#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SHAPE_ARGS = 16 };
/* What parse_args() found: run, print the usage and exit 0, or exit 2. */
enum { ARGS_RUN = -1, EXIT_OK = 0, EXIT_USAGE = 2 };

typedef struct options_t {
    const char *skeleton;
    const char *out;
    const char *in;
    const char *preview;
    const char *view;
    const char *pose;
    int pose_frame;
    const char *shape[MAX_SHAPE_ARGS];
    int shape_count;
    bool no_correctives;
    cg_params_t params;
} options_t;

static void usage(FILE *f)
{
    fprintf(f, "usage: strider-chargen --out FILE [--density N] [--extra-bones N] [--shapes N] [--tiny]\n"
               "                       [--skeleton FILE] [--verbose]\n"
               "       strider-chargen --preview OUT.png [--in FILE.chr] [--view body|face|joints|expressions]\n"
               "                       [--shape NAME[=W]]... [--pose FILE.bvh --pose-frame N] [--no-correctives]\n"
               "       strider-chargen --help\n");
}

static bool parse_int(const char *s, int lo, int hi, int *out)
{
    char *e = NULL;
    long v = strtol(s, &e, 10);
    if (e == s || *e || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* The options that take a value (the others are handled before). */
static bool is_valued_option(const char *a)
{
    static const char *const valued[] = {"--out",   "--in",      "--skeleton",    "--preview", "--view",      "--pose",
                                         "--shape", "--density", "--extra-bones", "--shapes",  "--pose-frame"};
    for (size_t i = 0; i < sizeof valued / sizeof valued[0]; i++)
        if (!strcmp(a, valued[i]))
            return true;
    return false;
}

/* ARGS_RUN, EXIT_OK (--help: the usage printed) or EXIT_USAGE after one
 * line. */
static int parse_args(int argc, char **argv, options_t *o)
{
    memset(o, 0, sizeof *o);
    o->skeleton = "assets/skeleton/cmu21.skel";
    o->view = "body";
    o->params.density = 1.0f;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--tiny")) {
            o->params.tiny = true;
            takes = false;
        } else if (!strcmp(a, "--no-correctives")) {
            o->no_correctives = true;
            takes = false;
        } else if (!strcmp(a, "--verbose")) {
            o->params.verbose = true;
            log_set_level(LOG_DEBUG);
            takes = false;
        } else if (!is_valued_option(a)) {
            log_error("chargen: unknown option '%s' (try --help)", a);
            return EXIT_USAGE;
        } else if (!v) {
            log_error("chargen: %s needs a value", a);
            return EXIT_USAGE;
        } else if (!strcmp(a, "--out")) {
            o->out = v;
        } else if (!strcmp(a, "--in")) {
            o->in = v;
        } else if (!strcmp(a, "--skeleton")) {
            o->skeleton = v;
        } else if (!strcmp(a, "--preview")) {
            o->preview = v;
        } else if (!strcmp(a, "--view")) {
            if (strcmp(v, "body") && strcmp(v, "face") && strcmp(v, "joints") && strcmp(v, "expressions")) {
                log_error("chargen: unknown --view '%s' (body, face, joints or expressions)", v);
                return EXIT_USAGE;
            }
            o->view = v;
        } else if (!strcmp(a, "--pose")) {
            o->pose = v;
        } else if (!strcmp(a, "--pose-frame")) {
            if (!parse_int(v, 0, 10000000, &o->pose_frame)) {
                log_error("chargen: --pose-frame wants a frame number, got '%s'", v);
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--shape")) {
            if (o->shape_count == MAX_SHAPE_ARGS) {
                log_error("chargen: more than %d --shape options", MAX_SHAPE_ARGS);
                return EXIT_USAGE;
            }
            o->shape[o->shape_count++] = v;
        } else if (!strcmp(a, "--density")) {
            char *e = NULL;
            o->params.density = strtof(v, &e);
            if (e == v || *e || !(o->params.density >= 0.05f && o->params.density <= 64.0f)) {
                log_error("chargen: --density wants a number in 0.05..64, got '%s'", v);
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--extra-bones")) {
            if (!parse_int(v, 0, SKEL_MAX_JOINTS, &o->params.extra_bones)) {
                log_error("chargen: --extra-bones wants 0..%d, got '%s'", SKEL_MAX_JOINTS, v);
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--shapes")) {
            if (!parse_int(v, 0, CHR_MAX_SHAPES, &o->params.shapes)) {
                log_error("chargen: --shapes wants 0..%d, got '%s'", CHR_MAX_SHAPES, v);
                return EXIT_USAGE;
            }
        }
        if (takes)
            i++;
    }
    if (!o->out && !o->preview) {
        log_error("chargen: nothing to do: give --out FILE or --preview OUT.png (try --help)");
        return EXIT_USAGE;
    }
    return ARGS_RUN;
}

/* Frames the posed figure: hip position and a distance for its height. */
static void frame_body(cg_show_t *sh, cg_view_t *v, float yaw)
{
    float hip[3];
    cg_show_joint_pos(sh, 0, hip);
    /* Views are relative to where the hips face (the root's +Z axis). */
    v->yaw_deg = yaw + cg_show_joint_heading_deg(sh, 0);
    v->pitch_deg = 4.0f;
    v->target[0] = hip[0];
    v->target[1] = hip[1] - 4.0f;
    v->target[2] = hip[2];
    v->dist = 430.0f;
    v->fov_deg = 30.0f;
}

static void frame_face(cg_show_t *sh, cg_view_t *v, float yaw)
{
    int head = skel_find(&sh->chr->skel, "head");
    float hp[3];
    cg_show_joint_pos(sh, head < 0 ? 0 : head, hp);
    v->yaw_deg = yaw;
    v->pitch_deg = 2.0f;
    v->target[0] = hp[0];
    v->target[1] = hp[1] + 4.0f;
    v->target[2] = hp[2] + 3.0f;
    v->dist = 62.0f;
    v->fov_deg = 30.0f;
}

static bool render_preview(const options_t *o, const chr_character_t *chr)
{
    cg_show_t sh;
    if (!cg_show_create(&sh, chr))
        return false;
    sh.no_correctives = o->no_correctives;
    bool ok = true;
    for (int i = 0; i < o->shape_count && ok; i++)
        ok = cg_show_set_shape(&sh, o->shape[i]);
    if (ok && o->pose) {
        /* The runtime's reader (anim/bvh.h): the clip's joints mapped by
         * name onto the character's skeleton. */
        static bvh_t bvh;
        static pose_t pose;
        bvh_map_t map;
        ok = bvh_load(&bvh, o->pose);
        if (ok) {
            ok = bvh_map_skel(&bvh, &chr->skel, &map);
            if (ok && o->pose_frame >= bvh.frame_count) {
                log_error("%s: frame %d out of range (0..%d)", o->pose, o->pose_frame, bvh.frame_count - 1);
                ok = false;
            }
            ok = ok && bvh_frame_pose(&bvh, &chr->skel, &map, o->pose_frame, &pose);
            if (ok)
                cg_show_pose(&sh, &pose);
            bvh_free(&bvh);
        }
    }
    cg_image_t img = {0};
    if (ok && !strcmp(o->view, "body")) {
        ok = cg_show_deform(&sh) && cg_image_create(&img, 1200, 720);
        const float yaw[3] = {0.0f, 35.0f, 90.0f};
        for (int i = 0; i < 3 && ok; i++) {
            cg_view_t v;
            frame_body(&sh, &v, yaw[i]);
            cg_preview_draw(&img, i * 400, 0, 400, 720, &v, sh.draw, (int)chr->mesh_count);
        }
    } else if (ok && !strcmp(o->view, "face")) {
        ok = cg_show_deform(&sh) && cg_image_create(&img, 1000, 500);
        const float yaw[2] = {0.0f, 35.0f};
        for (int i = 0; i < 2 && ok; i++) {
            cg_view_t v;
            frame_face(&sh, &v, yaw[i]);
            cg_preview_draw(&img, i * 500, 0, 500, 500, &v, sh.draw, (int)chr->mesh_count);
        }
    } else if (ok && !strcmp(o->view, "joints")) {
        /* Close-ups of the joints that suffer most under skinning. */
        static const char *joints[8] = {"lShldr", "lForeArm", "lThigh", "lShin",
                                        "rShldr", "rForeArm", "rThigh", "rShin"};
        static const float yaws[8] = {-20.0f, -20.0f, 30.0f, 60.0f, 20.0f, 20.0f, -30.0f, -60.0f};
        int ts = 300;
        ok = cg_show_deform(&sh) && cg_image_create(&img, 4 * ts, 2 * ts);
        float facing = cg_show_joint_heading_deg(&sh, 0);
        for (int i = 0; i < 8 && ok; i++) {
            int j = skel_find(&chr->skel, joints[i]);
            if (j < 0)
                continue;
            cg_view_t v = {.yaw_deg = facing + yaws[i], .pitch_deg = 10.0f, .dist = 95.0f, .fov_deg = 30.0f};
            cg_show_joint_pos(&sh, j, v.target);
            cg_preview_draw(&img, (i % 4) * ts, (i / 4) * ts, ts, ts, &v, sh.draw, (int)chr->mesh_count);
        }
    } else if (ok && !strcmp(o->view, "expressions")) {
        /* One tile per --shape (or a default set), 4 per row; the first
         * tile is the neutral face. */
        static const char *defaults[] = {"happy", "sad", "angry", "surprised", "disgusted", "afraid", "thoughtful"};
        const char *const *list = o->shape_count ? o->shape : defaults;
        int n = o->shape_count ? o->shape_count : (int)(sizeof defaults / sizeof defaults[0]);
        int tiles = n + 1, cols = 4, rows = (tiles + cols - 1) / cols, ts = 300;
        ok = cg_image_create(&img, cols * ts, rows * ts);
        for (int i = 0; i < tiles && ok; i++) {
            cg_show_clear_shapes(&sh);
            if (i > 0)
                ok = cg_show_set_shape(&sh, list[i - 1]);
            ok = ok && cg_show_deform(&sh);
            if (!ok)
                break;
            cg_view_t v;
            frame_face(&sh, &v, 20.0f);
            cg_preview_draw(&img, (i % cols) * ts, (i / cols) * ts, ts, ts, &v, sh.draw, (int)chr->mesh_count);
        }
    } else if (ok) {
        log_error("chargen: unknown --view '%s' (body, face, joints or expressions)", o->view);
        ok = false;
    }
    if (ok)
        ok = cg_image_save_png(&img, o->preview);
    cg_image_free(&img);
    cg_show_destroy(&sh);
    return ok;
}

int main(int argc, char **argv)
{
    options_t o;
    int args = parse_args(argc, argv, &o);
    if (args != ARGS_RUN)
        return args;
    static chr_character_t chr;
    if (o.in) {
        if (!chr_load(&chr, o.in))
            return 1;
    } else {
        static skel_t s;
        if (!skel_load(&s, o.skeleton))
            return 1;
        if (!cg_build_character(&s, &o.params, &chr))
            return 1;
    }
    bool ok = true;
    if (o.out) {
        ok = chr_save(&chr, o.out);
        if (ok)
            printf("%s: %d joints, %u meshes, %u triangles, %u blend shapes, %u correctives\n", o.out,
                   chr.skel.joint_count, chr.mesh_count, chr_triangle_count(&chr), chr.shape_count,
                   chr.corrective_count);
    }
    if (ok && o.preview)
        ok = render_preview(&o, &chr);
    chr_free(&chr);
    return ok ? 0 : 1;
}
