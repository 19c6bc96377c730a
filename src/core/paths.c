/* PATH_MAX is POSIX (<limits.h>), not C11. */
#define _POSIX_C_SOURCE 200809L

#include "core/paths.h"

#include "core/log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef STRIDER_DATA_DIR
#define STRIDER_DATA_DIR "."
#endif

_Static_assert(PATHS_MAX == PATH_MAX, "a path buffer holds any path the system opens");

static char g_data_dir[PATHS_MAX] = STRIDER_DATA_DIR;
/* Length of a data root that did not fit (paths_join() then fails), or 0. */
static size_t g_data_dir_too_long;

void paths_init(const char *override_dir)
{
    const char *dir = override_dir;
    if (!dir || !dir[0])
        dir = getenv("STRIDER_DATA");
    if (!dir || !dir[0])
        dir = STRIDER_DATA_DIR;
    size_t n = strlen(dir);
    g_data_dir_too_long = n >= sizeof g_data_dir ? n : 0;
    snprintf(g_data_dir, sizeof g_data_dir, "%s", g_data_dir_too_long ? "" : dir);
}

const char *paths_data_dir(void) { return g_data_dir; }

bool paths_join(const char *rel, char *out, size_t out_size)
{
    if (g_data_dir_too_long) {
        log_error("%s: the data folder's path is %zu bytes, longer than the %d allowed", rel, g_data_dir_too_long,
                  PATHS_MAX - 1);
        return false;
    }
    int n = snprintf(out, out_size, "%s/%s", g_data_dir, rel);
    if (n < 0 || (size_t)n >= out_size) {
        log_error("%s/%s: path too long", g_data_dir, rel);
        return false;
    }
    return true;
}

bool paths_copy(const char *path, char *out, size_t out_size)
{
    size_t n = strlen(path);
    if (n >= out_size) {
        /* The tail names the file; the whole path would be a 4 KB line. */
        enum { SHOWN = 48 };
        log_error("%s%s: path of %zu bytes, longer than the %zu allowed", n > SHOWN ? "..." : "",
                  n > SHOWN ? path + n - SHOWN : path, n, out_size ? out_size - 1 : 0);
        if (out_size)
            out[0] = 0;
        return false;
    }
    memcpy(out, path, n + 1);
    return true;
}

bool paths_dirname(const char *path, char *out, size_t out_size)
{
    const char *slash = strrchr(path, '/');
    size_t n = !slash ? 1 : (slash == path ? 1 : (size_t)(slash - path));
    if (n >= out_size)
        return false;
    memcpy(out, slash ? path : ".", n);
    out[n] = 0;
    return true;
}
