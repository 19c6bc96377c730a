#include "core/paths.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef STRIDER_DATA_DIR
#define STRIDER_DATA_DIR "."
#endif

static char g_data_dir[PATHS_MAX] = STRIDER_DATA_DIR;

void paths_init(const char *override_dir)
{
    const char *dir = override_dir;
    if (!dir || !dir[0])
        dir = getenv("STRIDER_DATA");
    if (!dir || !dir[0])
        dir = STRIDER_DATA_DIR;
    snprintf(g_data_dir, sizeof g_data_dir, "%s", dir);
}

const char *paths_data_dir(void) { return g_data_dir; }

bool paths_join(const char *rel, char *out, size_t out_size)
{
    int n = snprintf(out, out_size, "%s/%s", g_data_dir, rel);
    if (n < 0 || (size_t)n >= out_size) {
        log_error("%s/%s: path too long", g_data_dir, rel);
        return false;
    }
    return true;
}
