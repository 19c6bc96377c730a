/* strider-import: converts a skinned glTF 2.0 character (.glb or .gltf, with
 * morph targets) into a .chr, through the import the game and the viewer
 * run on `--character FILE.glb` (asset/import_file.h), so .chr stays the
 * one runtime format.
 *
 *   strider-import FILE.glb --out FILE.chr [--map FILE.map] [--skeleton FILE.skel] [--no-dress] [--quiet]
 *
 * The rig must map onto the controller's skeleton (--skeleton, default the
 * data folder's assets/skeleton/cmu21.skel: by its joint names, the
 * built-in CMU 31-joint names, or --map) and the character is dressed by
 * region (asset/import_look.h); --no-dress converts any rig as it is,
 * with the file's materials.
 * Prints what was imported (vertices, triangles, joints, targets, weights
 * renormalised or truncated) and the import time (read + build, wall
 * clock). Exit 0; 1 with one error line on bad input (missing, truncated,
 * not glTF, two skins, too many joints, bad weights...); 2 on a usage error.
 */
/* clock_gettime */
#define _POSIX_C_SOURCE 200809L

#include "anim/retarget.h"
#include "asset/import_file.h"
#include "core/log.h"
#include "core/paths.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: strider-import FILE.glb|FILE.gltf --out FILE.chr [--map FILE.map] [--skeleton FILE.skel]\n"
               "                      [--no-dress] [--quiet]\n"
               "  --map       joint map for rigs without the CMU 31-joint names (docs/FORMATS_CHARACTER.md)\n"
               "  --skeleton  the controller's skeleton the map refers to (default assets/skeleton/cmu21.skel)\n"
               "  --no-dress  keep the file's materials (no outfit by region)\n"
               "  --quiet     errors and warnings only\n");
}

/* A path the system could not open whole is a usage error, never truncated. */
static bool path_fits(const char *what, const char *path)
{
    if (strlen(path) < PATHS_MAX)
        return true;
    log_error("import: %s: path of %zu bytes, longer than the %d the system allows", what, strlen(path), PATHS_MAX - 1);
    return false;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *map = NULL, *skeleton = NULL;
    bool dress = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quiet")) {
            log_set_level(LOG_WARN);
        } else if (!strcmp(a, "--no-dress")) {
            dress = false;
        } else if (!strcmp(a, "--out") || !strcmp(a, "--map") || !strcmp(a, "--skeleton")) {
            if (i + 1 >= argc) {
                log_error("import: %s needs a value", a);
                return 2;
            }
            const char **dst = !strcmp(a, "--out") ? &out : (!strcmp(a, "--map") ? &map : &skeleton);
            *dst = argv[++i];
            if (!path_fits(a, *dst))
                return 2;
        } else if (a[0] == '-' && a[1] != '\0') {
            log_error("import: unknown option '%s'", a);
            usage(stderr);
            return 2;
        } else if (!in) {
            in = a;
            if (!path_fits("the input", in))
                return 2;
        } else {
            log_error("import: one input file only ('%s' and '%s')", in, a);
            return 2;
        }
    }
    if (!in || !out) {
        log_error("import: %s", !in ? "no input file" : "no --out FILE.chr");
        usage(stderr);
        return 2;
    }
    if (!imp_is_gltf_path(in)) {
        log_error("%s: not a glTF file name (.glb or .gltf expected)", in);
        return 1;
    }
    /* The skeleton the joint map refers to. */
    static skel_t driver;
    char skel_path[PATHS_MAX];
    paths_init(NULL);
    if (dress) {
        if (skeleton)
            snprintf(skel_path, sizeof skel_path, "%s", skeleton); /* fits: checked by path_fits() */
        else if (!paths_join("assets/skeleton/cmu21.skel", skel_path, sizeof skel_path))
            return 1;
        if (!skel_load(&driver, skel_path))
            return 1;
    }
    chr_character_t c;
    imp_info_t info;
    double t0 = now_s();
    bool ok = imp_load_character(in, map, dress ? &driver : NULL, &c, &info);
    double t1 = now_s();
    if (!ok)
        return 1;
    ok = chr_save(&c, out);
    if (ok)
        log_info("import: %s -> %s: %u vertices, %u triangles, %u joints, %u morph targets, %u meshes "
                 "(%u skinned, %u rigid), %.1f cm tall; weights: %u renormalised, %u vertices over %d influences; "
                 "%u normals computed; %s; imported in %.3f s",
                 in, out, info.source_vertices, info.source_triangles, info.joints, info.targets,
                 info.skinned_meshes + info.rigid_meshes, info.skinned_meshes, info.rigid_meshes,
                 (double)info.height_cm, info.renormalised, info.truncated, CHR_MAX_INFLUENCES, info.computed_normals,
                 dress ? (info.eyes == 2 ? "dressed (eyes, mouth, outfit)" : "dressed") : "not dressed", t1 - t0);
    chr_free(&c);
    return ok ? 0 : 1;
}
