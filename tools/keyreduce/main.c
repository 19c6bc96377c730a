/* strider-keyreduce: removes keys from a vertex-animated clip (.vac) while
 * the rebuilt clip stays within an error bound at every original key time
 * (greedy, see kr.h; Dawn 4.3 / Zoltar-style key reduction), and writes the
 * reduced clip with its (now non-uniform) key times.
 *
 *   strider-keyreduce --in FILE.vac --out FILE.vac [--bound CM] [--mode linear|hermite]
 *
 * Prints the keys kept and removed and the largest error (cm). Same input,
 * same bytes. Exit 0, or 1 with one error line.
 */
#include "kr.h"

#include "core/file.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BOUND_CM 0.05f
#define MAX_BOUND_CM 100.0f

static void usage(void)
{
    fprintf(stderr, "usage: strider-keyreduce --in FILE.vac --out FILE.vac [--bound CM] [--mode linear|hermite]\n"
                    "  --bound  largest vertex error allowed at any original key time, cm (default 0.05)\n"
                    "  --mode   reconstruction the player will use (default hermite)\n");
}

/* For the summary only: the files were read and written by then. */
static long file_bytes(const char *path)
{
    uint64_t n = 0;
    return file_is_regular(path, &n) ? (long)n : -1;
}

int main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    float bound = DEFAULT_BOUND_CM;
    tween_mode_t mode = TWEEN_HERMITE;
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        usage();
        return argc < 2 ? 1 : 0;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            log_error("keyreduce: %s needs a value", a);
            usage();
            return 1;
        }
        i++;
        if (!strcmp(a, "--in"))
            in = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--bound")) {
            char *e = NULL;
            bound = strtof(v, &e);
            if (e == v || *e || !(bound >= 0.0f && bound <= MAX_BOUND_CM)) {
                log_error("keyreduce: --bound wants cm in 0..100, got '%s'", v);
                return 1;
            }
        } else if (!strcmp(a, "--mode")) {
            if (!strcmp(v, "linear"))
                mode = TWEEN_LINEAR;
            else if (!strcmp(v, "hermite"))
                mode = TWEEN_HERMITE;
            else {
                log_error("keyreduce: --mode wants linear or hermite, got '%s'", v);
                return 1;
            }
        } else {
            log_error("keyreduce: unknown option '%s'", a);
            usage();
            return 1;
        }
    }
    if (!in || !out) {
        log_error("keyreduce: --in and --out are required");
        return 1;
    }
    clip_t clip, reduced;
    if (!clip_load(&clip, in))
        return 1;
    kr_result_t r;
    bool ok = kr_reduce(&clip, mode, bound, &reduced, &r) && clip_save(&reduced, out);
    if (ok)
        printf("%s: %u keys kept, %u removed of %u; max error %.4f cm at the original key times (bound %.4f cm, "
               "%s); %ld -> %ld bytes\n",
               out, r.kept, r.removed, clip.key_count, (double)r.max_error_cm, (double)bound, tween_mode_name(mode),
               file_bytes(in), file_bytes(out));
    clip_free(&reduced);
    clip_free(&clip);
    return ok ? 0 : 1;
}
